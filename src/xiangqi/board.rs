//! The position: where the pieces stand, whose turn it is, the hash and the clocks.
//!
//! A `Board` is always valid (it is only made from a validated setup or by playing legal
//! moves), so every side has exactly one king.

use super::attacks::{self, Occupancy};
use super::bitboard::Bitboard;
use super::moves::Move;
use super::types::{Color, Piece, Role, Square};
use super::zobrist;

/// The standard start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A Xiangqi position.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    mailbox: [Option<Piece>; 90],
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 7],
    occ: Occupancy,
    /// Each side's king square, kept beside the bitboards: asked for at nearly every node.
    kings: [Square; 2],
    turn: Color,
    hash: u64,
    halfmoves: u32,
    fullmoves: u32,
}

/// What [`Board::make`] needs to undo a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: Option<Piece>,
    halfmoves: u32,
    hash: u64,
}

impl Undo {
    /// The piece the move captured, if any.
    #[inline]
    pub fn captured(&self) -> Option<Piece> {
        self.captured
    }

    /// The hash of the position before the move.
    #[inline]
    pub fn hash_before(&self) -> u64 {
        self.hash
    }
}

impl Board {
    /// The standard start position.
    pub fn startpos() -> Board {
        Board::from_fen(START_FEN).expect("the start FEN is valid")
    }

    /// An empty board with Red to move; used by the FEN reader before validation.
    pub(crate) fn empty() -> Board {
        Board {
            mailbox: [None; 90],
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 7],
            occ: Occupancy::EMPTY,
            // Placeholders until the setup's kings are placed (validation requires both).
            kings: [Square::new_unchecked(0); 2],
            turn: Color::Red,
            hash: 0,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    #[inline]
    fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(self.mailbox[sq.index()].is_none());
        self.mailbox[sq.index()] = Some(piece);
        if piece.role == Role::King {
            self.kings[piece.color.index()] = sq;
        }
        self.by_color[piece.color.index()] ^= Bitboard::from_square(sq);
        self.by_role[piece.role.index()] ^= Bitboard::from_square(sq);
        self.hash ^= zobrist::piece_key(piece, sq);
    }

    #[inline]
    fn remove(&mut self, sq: Square, piece: Piece) {
        debug_assert_eq!(self.mailbox[sq.index()], Some(piece));
        self.mailbox[sq.index()] = None;
        self.by_color[piece.color.index()] ^= Bitboard::from_square(sq);
        self.by_role[piece.role.index()] ^= Bitboard::from_square(sq);
        self.hash ^= zobrist::piece_key(piece, sq);
    }

    /// Places a piece while building a position (no occupancy bookkeeping shortcuts).
    pub(crate) fn set_piece(&mut self, sq: Square, piece: Piece) {
        if let Some(old) = self.mailbox[sq.index()] {
            self.remove(sq, old);
            self.occ.toggle(sq);
        }
        self.put(sq, piece);
        self.occ.toggle(sq);
    }

    pub(crate) fn set_turn(&mut self, turn: Color) {
        self.hash ^= zobrist::turn_key(self.turn) ^ zobrist::turn_key(turn);
        self.turn = turn;
    }

    pub(crate) fn set_clocks(&mut self, halfmoves: u32, fullmoves: u32) {
        self.halfmoves = halfmoves;
        self.fullmoves = fullmoves.max(1);
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.mailbox[sq.index()]
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The Zobrist hash of placement and side to move (clocks excluded).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Plies since the last capture.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and counting up after each Black move.
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occ.bitboard()
    }

    #[inline]
    pub fn occupancy(&self) -> &Occupancy {
        &self.occ
    }

    /// The king of `color`. Every valid board has one.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        debug_assert!(self.pieces(color, Role::King).contains(self.kings[color.index()]));
        self.kings[color.index()]
    }

    /// Pieces of `by` that attack the king standing on `ksq`, given an occupancy and a mask
    /// of `by`'s pieces still on the board (so callers can test hypothetical moves).
    #[inline(always)]
    pub(crate) fn king_attackers(
        &self,
        ksq: Square,
        by: Color,
        occ: &Occupancy,
        alive: Bitboard,
    ) -> Bitboard {
        let them = self.by_color[by.index()] & alive;
        let pawns = self.by_role[Role::Pawn.index()] & them;
        let mut out = attacks::pawn_attackers(by, ksq) & pawns;
        // Most squares share no line with an enemy slider and have no enemy horse in reach;
        // skipping those lookups is most of this function's speed.
        let rooks = self.by_role[Role::Rook.index()] & them;
        let cannons = self.by_role[Role::Cannon.index()] & them;
        let king = self.by_role[Role::King.index()] & them;
        if (attacks::lines_through(ksq) & (rooks | cannons | king)).any() {
            let (slide, jump) = attacks::slider_attacks(ksq, occ);
            let file = attacks::lines_through(ksq) & attacks::file_mask(ksq.file());
            out |= (slide & rooks) | (slide & file & king) | (jump & cannons);
        }
        let horses = self.by_role[Role::Horse.index()] & them;
        if (attacks::horse_zone(ksq) & horses).any() {
            out |= attacks::horse_attackers(ksq, occ) & horses;
        }
        out
    }

    /// Pieces giving check to `color`'s king (the flying general included).
    #[inline]
    pub fn checkers_of(&self, color: Color) -> Bitboard {
        self.king_attackers(self.king(color), color.flip(), &self.occ, Bitboard::FULL)
    }

    /// Pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.checkers_of(self.turn)
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers().any()
    }

    /// Whether moving `color`'s piece from `from` to `to` leaves `color`'s king safe.
    /// Pseudo-legality of the move itself is the caller's concern.
    #[inline(always)]
    pub(crate) fn king_safe_after(&self, color: Color, from: Square, to: Square) -> bool {
        let occ = self.occ.after_move(from, to);
        let ksq = if self.mailbox[from.index()].is_some_and(|p| p.role == Role::King) {
            to
        } else {
            self.king(color)
        };
        self.king_attackers(ksq, color.flip(), &occ, !Bitboard::from_square(to))
            .is_empty()
    }

    /// Whether the legal move `mv` gives check, without playing it: the moved piece from its
    /// new point, or a piece it uncovers (a line opened, a cannon's screen moved in or out,
    /// a horse's leg freed).
    #[inline]
    pub fn gives_check(&self, mv: Move) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.mailbox[from.index()].expect("a legal move starts on a piece");
        let ksq = self.king(self.turn.flip());
        let occ = self.occ.after_move(from, to);
        self.piece_attacks(to, piece, &occ).contains(ksq)
            || self
                .king_attackers(ksq, self.turn, &occ, !Bitboard::from_square(from))
                .any()
    }

    /// Every point `color` attacks or defends (cannons: their capture points).
    pub fn attack_map(&self, color: Color) -> Bitboard {
        let occ = &self.occ;
        let mut att = self.step_attacks(color);
        for sq in self.pieces(color, Role::Rook) {
            att |= attacks::rook_attacks(sq, occ);
        }
        for sq in self.pieces(color, Role::Cannon) {
            att |= attacks::cannon_captures(sq, occ);
        }
        for sq in self.pieces(color, Role::Horse) {
            att |= attacks::horse_attacks(sq, occ);
        }
        att
    }

    /// The pieces of `color` that attack or defend `sq`, as [`Board::attack_map`] counts
    /// them (cannons by their captures, the king by its steps), found from the point back to
    /// the pieces: cheaper than a whole map when only a few points are asked about. Every
    /// step and line is symmetric, so they are the pieces `sq` would reach as each kind.
    pub fn attackers_of(&self, color: Color, sq: Square) -> Bitboard {
        self.attackers_with(color, sq, &self.occ)
    }

    /// [`Board::attackers_of`] with the lines, screens and legs of another occupancy: that
    /// after a move, say (the pieces themselves are this board's, so a piece that moved
    /// still counts where it was).
    pub fn attackers_with(&self, color: Color, sq: Square, occ: &Occupancy) -> Bitboard {
        let by = self.by_color(color);
        let role = |r: Role| self.by_role[r.index()] & by;
        let mut out = (attacks::pawn_attackers(color, sq) & role(Role::Pawn))
            | (attacks::advisor_attacks(sq) & role(Role::Advisor))
            | (attacks::elephant_attacks(sq, occ) & role(Role::Elephant))
            | (attacks::king_attacks(sq) & role(Role::King));
        let (rooks, cannons, horses) = (role(Role::Rook), role(Role::Cannon), role(Role::Horse));
        if (attacks::lines_through(sq) & (rooks | cannons)).any() {
            let (slide, jump) = attacks::slider_attacks(sq, occ);
            out |= (slide & rooks) | (jump & cannons);
        }
        if (attacks::horse_zone(sq) & horses).any() {
            out |= attacks::horse_attackers(sq, occ) & horses;
        }
        out
    }

    /// Points attacked by `color`'s stepping pieces: king, advisors, elephants and pawns.
    #[inline]
    pub fn step_attacks(&self, color: Color) -> Bitboard {
        attacks::king_attacks(self.king(color))
            | attacks::advisor_attacks_all(self.pieces(color, Role::Advisor))
            | attacks::elephant_attacks_all(color, self.pieces(color, Role::Elephant), &self.occ)
            | attacks::pawn_attacks_all(color, self.pieces(color, Role::Pawn))
    }

    /// The points a piece on `from` attacks with the given occupancy (cannons: their captures).
    pub fn piece_attacks(&self, from: Square, piece: Piece, occ: &Occupancy) -> Bitboard {
        match piece.role {
            Role::King => attacks::king_attacks(from),
            Role::Advisor => attacks::advisor_attacks(from),
            Role::Elephant => attacks::elephant_attacks(from, occ),
            Role::Horse => attacks::horse_attacks(from, occ),
            Role::Rook => attacks::rook_attacks(from, occ),
            Role::Cannon => attacks::cannon_captures(from, occ),
            Role::Pawn => attacks::pawn_attacks(piece.color, from),
        }
    }

    /// The hash after `mv`, without playing it (to prefetch the child's table entry early).
    #[inline]
    pub fn hash_after(&self, mv: Move) -> u64 {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.mailbox[from.index()].expect("a legal move starts on a piece");
        let mut hash = self.hash ^ zobrist::BLACK_TO_MOVE;
        hash ^= zobrist::piece_key(piece, from) ^ zobrist::piece_key(piece, to);
        if let Some(c) = self.mailbox[to.index()] {
            hash ^= zobrist::piece_key(c, to);
        }
        hash
    }

    /// Plays a move the caller knows to be legal and returns what undoes it.
    #[inline]
    pub fn make(&mut self, mv: Move) -> Undo {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.mailbox[from.index()].expect("a legal move starts on a piece");
        let captured = self.mailbox[to.index()];
        let undo = Undo {
            captured,
            halfmoves: self.halfmoves,
            hash: self.hash,
        };
        self.remove(from, piece);
        self.occ.toggle(from);
        match captured {
            Some(c) => {
                self.remove(to, c);
                self.halfmoves = 0;
            }
            None => {
                self.occ.toggle(to);
                self.halfmoves += 1;
            }
        }
        self.put(to, piece);
        if self.turn == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = self.turn.flip();
        self.hash ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back `mv`, which must be the last move made, with the `Undo` it returned.
    #[inline]
    pub fn unmake(&mut self, mv: Move, undo: Undo) {
        let (from, to) = (mv.from(), mv.to());
        let piece = self.mailbox[to.index()].expect("unmake of a move that was made");
        self.turn = self.turn.flip();
        if self.turn == Color::Black {
            self.fullmoves -= 1;
        }
        self.remove(to, piece);
        match undo.captured {
            Some(c) => self.put(to, c),
            None => self.occ.toggle(to),
        }
        self.put(from, piece);
        self.occ.toggle(from);
        self.halfmoves = undo.halfmoves;
        self.hash = undo.hash;
    }

    /// Passes the turn (for null-move pruning); undone by calling it again with the result.
    #[inline]
    pub fn make_null(&mut self) -> Undo {
        let undo = Undo {
            captured: None,
            halfmoves: self.halfmoves,
            hash: self.hash,
        };
        self.turn = self.turn.flip();
        self.hash ^= zobrist::BLACK_TO_MOVE;
        undo
    }

    /// Takes back [`Board::make_null`].
    #[inline]
    pub fn unmake_null(&mut self, undo: Undo) {
        self.turn = self.turn.flip();
        self.hash = undo.hash;
        self.halfmoves = undo.halfmoves;
    }

    /// The hash computed from scratch; equals [`Board::hash`] on every valid board.
    pub fn compute_hash(&self) -> u64 {
        let mut h = zobrist::turn_key(self.turn);
        for sq in Square::all() {
            if let Some(p) = self.piece_at(sq) {
                h ^= zobrist::piece_key(p, sq);
            }
        }
        h
    }

    /// The same position with colours swapped and the board turned around
    /// (Red becomes Black on the mirrored rank); perft and evaluation are symmetric under it.
    pub fn color_flipped(&self) -> Board {
        self.transformed(|sq| sq.flip_rank(), true)
    }

    /// The same position mirrored across the central file.
    pub fn mirrored(&self) -> Board {
        self.transformed(|sq| sq.mirror_file(), false)
    }

    fn transformed(&self, map: impl Fn(Square) -> Square, swap_colors: bool) -> Board {
        let mut b = Board::empty();
        for sq in Square::all() {
            if let Some(p) = self.piece_at(sq) {
                let color = if swap_colors { p.color.flip() } else { p.color };
                b.set_piece(map(sq), Piece::new(color, p.role));
            }
        }
        b.set_turn(if swap_colors { self.turn.flip() } else { self.turn });
        b.set_clocks(self.halfmoves, self.fullmoves);
        b
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Board({})", self.fen())
    }
}

impl std::fmt::Display for Board {
    /// A text diagram, rank 9 on top, followed by the FEN.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for rank in (0..10).rev() {
            write!(f, "{rank} ")?;
            for file in 0..9 {
                let sq = Square::new_unchecked(rank * 9 + file);
                let c = self.piece_at(sq).map_or('.', |p| p.char());
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h i")?;
        write!(f, "{}", self.fen())
    }
}
