//! Xiangqi FEN: reading (with validation) and writing.
//!
//! `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`: ten rows from
//! Black's back rank (rank 9) down to Red's (rank 0), `w` (or `r`) for Red to move and `b`
//! for Black; the two `-` fields and the clocks are optional.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::Board;
#[cfg(test)]
use super::board::START_FEN;
use super::types::{Color, File, Piece, Rank, Role, Square};
use std::fmt::Write;

/// Why a FEN could not be read, or why the position it describes is impossible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("the board has {0} rows; a Xiangqi FEN has 10 separated by '/'")]
    RowCount(usize),
    #[error("row {row} (counting from Black's side) covers {width} files; every row covers 9")]
    RowWidth { row: usize, width: u32 },
    #[error("'{0}' is not a Xiangqi piece letter (KABNRCP for Red, kabnrcp for Black)")]
    BadPiece(char),
    #[error("'{0}' is not a side to move (expected w or b)")]
    BadTurn(String),
    #[error("'{field}' is not a valid {name}")]
    BadNumber { name: &'static str, field: String },
    #[error("the FEN has {0} fields; at most 6 (board, side, two '-', halfmove clock, move number)")]
    TooManyFields(usize),
    #[error("{0} has no king")]
    MissingKing(Color),
    #[error("{0} has more than one king")]
    TooManyKings(Color),
    #[error("{color} has {count} {role}s; at most {max} are possible")]
    TooManyPieces {
        color: Color,
        role: &'static str,
        count: u32,
        max: u32,
    },
    #[error("the {color} king on {square} is outside its palace")]
    KingOutsidePalace { color: Color, square: Square },
    #[error("the {color} advisor on {square} is not on an advisor point")]
    AdvisorOffPoint { color: Color, square: Square },
    #[error("the {color} elephant on {square} is not on an elephant point")]
    ElephantOffPoint { color: Color, square: Square },
    #[error("the {color} pawn on {square} stands behind its starting rank")]
    PawnBehindStart { color: Color, square: Square },
    #[error(
        "the {color} pawn on {square} has not crossed the river, so it stands on a file no pawn starts on"
    )]
    PawnOffFile { color: Color, square: Square },
    #[error("the {color} pawn on {square} shares its file with another pawn that has not crossed the river")]
    PawnsOnOneFile { color: Color, square: Square },
    #[error("the kings face each other on an open file")]
    KingsFacing,
    #[error("{0}, the side not to move, is in check")]
    OpponentInCheck(Color),
}

/// Points an advisor of `color` can ever stand on: the palace corners and centre.
fn advisor_points(color: Color) -> Bitboard {
    ["d0", "f0", "e1", "d2", "f2"]
        .iter()
        .map(|s| relative(Square::parse(s).expect("valid square"), color))
        .collect()
}

/// Points an elephant of `color` can ever stand on.
fn elephant_points(color: Color) -> Bitboard {
    ["c0", "g0", "a2", "e2", "i2", "c4", "g4"]
        .iter()
        .map(|s| relative(Square::parse(s).expect("valid square"), color))
        .collect()
}

fn relative(sq: Square, color: Color) -> Square {
    match color {
        Color::Red => sq,
        Color::Black => sq.flip_rank(),
    }
}

impl Board {
    /// Reads and validates a FEN.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let placement = *fields.first().ok_or(FenError::Empty)?;
        if fields.len() > 6 {
            return Err(FenError::TooManyFields(fields.len()));
        }
        let mut board = Board::empty();
        let rows: Vec<&str> = placement.split('/').collect();
        if rows.len() != 10 {
            return Err(FenError::RowCount(rows.len()));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = Rank::new(9 - i as u32).expect("ten rows");
            let mut file = 0u32;
            for c in row.chars() {
                match c.to_digit(10) {
                    Some(d) if d > 0 => file += d,
                    _ => {
                        let piece = Piece::from_char(c).ok_or(FenError::BadPiece(c))?;
                        if let Some(f) = File::new(file) {
                            board.set_piece(Square::from_coords(f, rank), piece);
                        }
                        file += 1;
                    }
                }
            }
            if file != 9 {
                return Err(FenError::RowWidth {
                    row: i + 1,
                    width: file,
                });
            }
        }
        let turn = match fields.get(1).copied() {
            None | Some("w") | Some("r") | Some("W") | Some("R") => Color::Red,
            Some("b") | Some("B") => Color::Black,
            Some(other) => return Err(FenError::BadTurn(other.to_string())),
        };
        board.set_turn(turn);
        let number = |idx: usize, name: &'static str, default: u32| -> Result<u32, FenError> {
            match fields.get(idx) {
                None => Ok(default),
                Some(f) => f.parse::<u32>().map_err(|_| FenError::BadNumber {
                    name,
                    field: f.to_string(),
                }),
            }
        };
        let halfmoves = number(4, "halfmove clock", 0)?;
        let fullmoves = number(5, "move number", 1)?;
        board.set_clocks(halfmoves, fullmoves);
        board.validate()?;
        Ok(board)
    }

    /// Checks what a playable position must satisfy; the first failure is reported.
    fn validate(&self) -> Result<(), FenError> {
        for color in Color::ALL {
            let kings = self.pieces(color, Role::King);
            match kings.count() {
                0 => return Err(FenError::MissingKing(color)),
                1 => {}
                _ => return Err(FenError::TooManyKings(color)),
            }
            for role in Role::ALL {
                let count = self.pieces(color, role).count();
                if count > role.max_count() {
                    return Err(FenError::TooManyPieces {
                        color,
                        role: role.name(),
                        count,
                        max: role.max_count(),
                    });
                }
            }
            let king = kings.first().expect("one king");
            if !king.in_palace(color) {
                return Err(FenError::KingOutsidePalace { color, square: king });
            }
            if let Some(square) = (self.pieces(color, Role::Advisor) & !advisor_points(color)).first() {
                return Err(FenError::AdvisorOffPoint { color, square });
            }
            if let Some(square) = (self.pieces(color, Role::Elephant) & !elephant_points(color)).first() {
                return Err(FenError::ElephantOffPoint { color, square });
            }
            // A pawn moves only forward until it crosses the river: before it, it stands on
            // its own starting file (a, c, e, g or i), one pawn to a file.
            let mut uncrossed_files = 0u16;
            for square in self.pieces(color, Role::Pawn) {
                let rank = square.rank().relative_to(color).index();
                if rank < 3 {
                    return Err(FenError::PawnBehindStart { color, square });
                }
                if rank <= 4 {
                    let file = square.file().index();
                    if file % 2 == 1 {
                        return Err(FenError::PawnOffFile { color, square });
                    }
                    if uncrossed_files & 1 << file != 0 {
                        return Err(FenError::PawnsOnOneFile { color, square });
                    }
                    uncrossed_files |= 1 << file;
                }
            }
        }
        let (red_king, black_king) = (self.king(Color::Red), self.king(Color::Black));
        if attacks::file_attacks(red_king, self.occupancy()).contains(black_king) {
            return Err(FenError::KingsFacing);
        }
        let opponent = self.turn().flip();
        if self.checkers_of(opponent).any() {
            return Err(FenError::OpponentInCheck(opponent));
        }
        Ok(())
    }

    /// The FEN of this position, with the two `-` fields and both clocks.
    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.piece_at(Square::new_unchecked(rank * 9 + file)) {
                    Some(p) => {
                        if empty > 0 {
                            write!(s, "{empty}").expect("write to String");
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(s, "{empty}").expect("write to String");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        let side = if self.turn() == Color::Red { 'w' } else { 'b' };
        write!(s, " {side} - - {} {}", self.halfmoves(), self.fullmoves()).expect("write to String");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trip() {
        let b = Board::from_fen(START_FEN).unwrap();
        assert_eq!(b.fen(), START_FEN);
        assert_eq!(b.occupied().count(), 32);
        assert_eq!(b.king(Color::Red).to_string(), "e0");
        assert_eq!(b.king(Color::Black).to_string(), "e9");
        assert!(!b.in_check());
    }

    #[test]
    fn short_fen_and_aliases() {
        let b = Board::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w").unwrap();
        assert_eq!(b.fen(), START_FEN);
        let b = Board::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b").unwrap();
        assert_eq!(b.turn(), Color::Black);
    }

    fn err(fen: &str) -> FenError {
        Board::from_fen(fen).unwrap_err()
    }

    #[test]
    fn each_failure_is_named() {
        assert_eq!(err(""), FenError::Empty);
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w"),
            FenError::RowCount(9)
        );
        assert!(matches!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w"),
            FenError::RowWidth { row: 10, .. }
        ));
        assert!(matches!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w"),
            FenError::RowWidth { row: 10, .. }
        ));
        assert!(matches!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1"),
            FenError::BadNumber { .. }
        ));
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKXBNR w"),
            FenError::BadPiece('X')
        );
        assert_eq!(
            err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x"),
            FenError::BadTurn("x".into())
        );
        assert_eq!(
            err("4k4/9/9/9/9/9/9/9/9/3K1K3 w"),
            FenError::TooManyKings(Color::Red)
        );
        assert_eq!(
            err("9/9/9/9/9/9/9/9/9/4K4 w"),
            FenError::MissingKing(Color::Black)
        );
        assert_eq!(err("4k4/9/9/9/9/9/9/9/4K4/9 w"), FenError::KingsFacing);
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/K8 w"),
            FenError::KingOutsidePalace {
                color: Color::Red,
                square: Square::parse("a0").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/3A5/4K4 w"),
            FenError::AdvisorOffPoint {
                color: Color::Red,
                square: Square::parse("d1").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/3BK4 w"),
            FenError::ElephantOffPoint {
                color: Color::Red,
                square: Square::parse("d0").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/9/P8/9/4K4 w"),
            FenError::PawnBehindStart {
                color: Color::Red,
                square: Square::parse("a2").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/p8/9/9/9/9/9/9/4K4 w"),
            FenError::PawnBehindStart {
                color: Color::Black,
                square: Square::parse("a7").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/9/9/9/9/1P7/9/9/4K4 w"),
            FenError::PawnOffFile {
                color: Color::Red,
                square: Square::parse("b3").unwrap()
            }
        );
        assert_eq!(
            err("3k5/9/9/p8/p8/9/9/9/9/4K4 w"),
            FenError::PawnsOnOneFile {
                color: Color::Black,
                square: Square::parse("a6").unwrap()
            }
        );
        // Across the river pawns go where they like: two on one file, on any file.
        assert!(Board::from_fen("3k5/9/9/1P7/1P7/9/9/9/9/4K4 w").is_ok());
        assert_eq!(
            err("3k5/9/9/9/9/9/9/9/9/3RK4 w"),
            FenError::OpponentInCheck(Color::Black)
        );
        assert_eq!(
            err("rrrakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            FenError::TooManyPieces {
                color: Color::Black,
                role: "rook",
                count: 4,
                max: 2
            }
        );
    }
}
