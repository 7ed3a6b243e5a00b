//! Strictly legal move generation.
//!
//! Out of check, a non-king move can only expose its own king in two ways: the piece
//! leaves a line or a horse leg that shielded the king ("danger from" squares), or it
//! lands between the king and an enemy cannon that had no screen ("danger to" squares).
//! Moves touching neither are legal without further work, so whole target sets are
//! emitted (or counted) at once; only the rest, king moves, and all moves while in check
//! get the full test of the king's safety on the changed occupancy.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::{Move, MoveList, MoveParseError};
use super::types::{Color, Role, Square};

/// Receives generated moves: either a whole set of legal targets for one piece, or one
/// legal move. Monomorphised per use, so counting never materialises moves.
trait Sink {
    fn targets(&mut self, from: Square, targets: Bitboard);
    fn one(&mut self, from: Square, to: Square);
}

struct Counter(usize);

impl Sink for Counter {
    #[inline]
    fn targets(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as usize;
    }
    #[inline]
    fn one(&mut self, _from: Square, _to: Square) {
        self.0 += 1;
    }
}

impl Sink for MoveList {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::new(from, to));
        }
    }
    #[inline]
    fn one(&mut self, from: Square, to: Square) {
        self.push(Move::new(from, to));
    }
}

/// The four orthogonal rays from every square, excluding the square itself.
static RAYS: [[u128; 4]; 90] = {
    let mut t = [[0u128; 4]; 90];
    let dirs: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
    let mut i = 0;
    while i < 90 {
        let mut d = 0;
        while d < 4 {
            let mut cur = Square::new_unchecked(i as u32).offset(dirs[d].0, dirs[d].1);
            while let Some(s) = cur {
                t[i][d] |= 1u128 << s.index();
                cur = s.offset(dirs[d].0, dirs[d].1);
            }
            d += 1;
        }
        i += 1;
    }
    t
};

impl Board {
    /// Pseudo-legal targets of the non-king piece on `from`, restricted to `mask`.
    #[inline(always)]
    fn piece_targets(&self, from: Square, role: Role, us: Color, mask: Bitboard) -> Bitboard {
        let occ = self.occupancy();
        let own = self.by_color(us);
        let t = match role {
            Role::Advisor => attacks::advisor_attacks(from) & !own,
            Role::Elephant => attacks::elephant_attacks(from, occ) & !own,
            Role::Horse => attacks::horse_attacks(from, occ) & !own,
            Role::Rook => attacks::rook_attacks(from, occ) & !own,
            Role::Cannon => {
                let (slide, jump) = attacks::slider_attacks(from, occ);
                (slide & !self.occupied()) | (jump & self.by_color(us.flip()))
            }
            Role::Pawn => attacks::pawn_attacks(us, from) & !own,
            Role::King => attacks::king_attacks(from) & !own,
        };
        t & mask
    }

    /// Squares whose piece may not leave without a full test, and empty squares a piece
    /// may not enter without one (see the module comment). Only valid out of check.
    #[inline(always)]
    fn danger(&self, us: Color, king: Square) -> (Bitboard, Bitboard) {
        let them = us.flip();
        let occ = self.occupancy();
        let own = self.by_color(us);
        let mut from = Bitboard::EMPTY;
        let mut to = Bitboard::EMPTY;
        let rooks = self.pieces(them, Role::Rook);
        let cannons = self.pieces(them, Role::Cannon);
        let sliders = rooks | cannons;
        let lines = attacks::lines_through(king);
        let file_sliders = sliders | self.pieces(them, Role::King);
        if (lines & file_sliders).any() {
            let (first, second) = attacks::slider_attacks(king, occ);
            let blockers = (first & self.occupied()) | second;
            for (d, ray) in RAYS[king.index()].iter().enumerate() {
                let ray = Bitboard(*ray);
                // North and south are the king's file, where the other king counts too.
                let enemies = if d % 2 == 0 { file_sliders } else { sliders };
                if (ray & enemies).is_empty() {
                    continue;
                }
                from |= blockers & ray & own;
                if (first & ray & cannons).any() {
                    to |= first & ray & !self.occupied();
                }
            }
        }
        if (attacks::horse_zone(king) & self.pieces(them, Role::Horse)).any() {
            from |= attacks::diagonal_neighbours(king) & own;
        }
        (from, to)
    }

    #[inline(always)]
    fn generate_into<S: Sink>(&self, mask: Bitboard, in_check: bool, sink: &mut S) {
        let us = self.turn();
        let king = self.king(us);
        let own = self.by_color(us);
        for to in attacks::king_attacks(king) & !own & mask {
            if self.king_safe_after(us, king, to) {
                sink.one(king, to);
            }
        }
        let (danger_from, danger_to) = if in_check {
            (Bitboard::FULL, Bitboard::EMPTY)
        } else {
            self.danger(us, king)
        };
        // One loop per role, so the role's target function is static in each.
        self.emit_role::<S, 4>(us, mask, danger_from, danger_to, sink);
        self.emit_role::<S, 5>(us, mask, danger_from, danger_to, sink);
        self.emit_role::<S, 3>(us, mask, danger_from, danger_to, sink);
        self.emit_role::<S, 6>(us, mask, danger_from, danger_to, sink);
        self.emit_role::<S, 1>(us, mask, danger_from, danger_to, sink);
        self.emit_role::<S, 2>(us, mask, danger_from, danger_to, sink);
    }

    #[inline(always)]
    fn emit_role<S: Sink, const ROLE: usize>(
        &self,
        us: Color,
        mask: Bitboard,
        danger_from: Bitboard,
        danger_to: Bitboard,
        sink: &mut S,
    ) {
        let role = Role::ALL[ROLE];
        for from in self.pieces(us, role) {
            let targets = self.piece_targets(from, role, us, mask);
            if danger_from.contains(from) {
                for to in targets {
                    if self.king_safe_after(us, from, to) {
                        sink.one(from, to);
                    }
                }
            } else {
                sink.targets(from, targets & !danger_to);
                for to in targets & danger_to {
                    if self.king_safe_after(us, from, to) {
                        sink.one(from, to);
                    }
                }
            }
        }
    }

    /// All legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        self.legal_moves_to_in(Bitboard::FULL, self.in_check())
    }

    /// Legal moves that land on `mask` (e.g. the opponent's pieces for captures only).
    pub fn legal_moves_to(&self, mask: Bitboard) -> MoveList {
        self.legal_moves_to_in(mask, self.in_check())
    }

    /// [`Board::legal_moves_to`] for a caller that already knows whether the side to move is
    /// in check (the search does), saving the check detection.
    #[inline]
    pub fn legal_moves_to_in(&self, mask: Bitboard, in_check: bool) -> MoveList {
        debug_assert_eq!(in_check, self.in_check());
        let mut list = MoveList::new();
        self.generate_into(mask, in_check, &mut list);
        list
    }

    /// Legal captures of the enemy pieces on `victims`, out of check only. Found from each
    /// victim back to its attackers, so a few victims cost a few lookups rather than the
    /// targets of every piece (quiescence asks for captures of the pieces it attacks).
    pub fn legal_captures_of(&self, victims: Bitboard) -> MoveList {
        debug_assert!(!self.in_check());
        let us = self.turn();
        let king = self.king(us);
        let (danger_from, _) = self.danger(us, king);
        let mut list = MoveList::new();
        for to in victims & self.by_color(us.flip()) {
            for from in self.attackers_of(us, to) {
                // The king's own moves always get the full test; other pieces only when
                // they may shield the king.
                let test = from == king || danger_from.contains(from);
                if !test || self.king_safe_after(us, from, to) {
                    list.push(Move::new(from, to));
                }
            }
        }
        list
    }

    /// The number of legal moves, without listing them.
    pub fn count_legal(&self) -> usize {
        let mut c = Counter(0);
        self.generate_into(Bitboard::FULL, self.in_check(), &mut c);
        c.0
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        self.count_legal() > 0
    }

    /// Whether `mv` is legal here. Safe for any 16-bit move, e.g. one read from a hash table.
    pub fn is_legal(&self, mv: Move) -> bool {
        let (from, to) = (mv.from(), mv.to());
        let us = self.turn();
        let Some(piece) = self.piece_at(from) else {
            return false;
        };
        if piece.color != us {
            return false;
        }
        self.piece_targets(from, piece.role, us, Bitboard::FULL)
            .contains(to)
            && self.king_safe_after(us, from, to)
    }

    /// Parses an ICCS move and checks that it is legal here, saying why not if it is not.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let mv = Move::parse_iccs(text)?;
        let (from, to) = (mv.from(), mv.to());
        let us = self.turn();
        let name = || text.trim().to_string();
        let piece = self.piece_at(from).ok_or_else(|| MoveParseError::NoPiece {
            mv: name(),
            square: from,
        })?;
        if piece.color != us {
            return Err(MoveParseError::WrongSide {
                mv: name(),
                square: from,
            });
        }
        if !self
            .piece_targets(from, piece.role, us, Bitboard::FULL)
            .contains(to)
        {
            let reason = if self.by_color(us).contains(to) {
                "it lands on a piece of its own side"
            } else {
                "the piece cannot move there"
            };
            return Err(MoveParseError::Illegal { mv: name(), reason });
        }
        if !self.king_safe_after(us, from, to) {
            let reason = "it leaves the king in check or facing the other king";
            return Err(MoveParseError::Illegal { mv: name(), reason });
        }
        Ok(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(fen: &str) -> Vec<String> {
        let mut v: Vec<String> = Board::from_fen(fen)
            .unwrap()
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn start_position_has_44_moves() {
        let b = Board::startpos();
        assert_eq!(b.legal_moves().len(), 44);
        assert_eq!(b.count_legal(), 44);
    }

    #[test]
    fn flying_general_pins_the_last_screen() {
        // Only the horse on e4 stands between the kings, and a horse always leaves its file.
        let m = moves("4k4/9/9/9/9/4N4/9/9/9/4K4 w");
        assert!(!m.iter().any(|m| m.starts_with("e4")), "{m:?}");
        assert!(m.contains(&"e0d0".to_string()));
    }

    #[test]
    fn cannon_screen_cannot_be_created_in_front_of_the_king() {
        // Black cannon on e7 aims at the red king with no screen: no red piece may step onto e1..e6.
        let m = moves("3k5/9/4c4/9/9/9/9/9/R8/4K4 w");
        assert!(!m.contains(&"a1e1".to_string()), "{m:?}");
        assert!(m.contains(&"a1d1".to_string()));
        assert!(m.contains(&"a1f1".to_string()));
    }

    #[test]
    fn horse_leg_and_elephant_eye_block() {
        let b = Board::from_fen("3k5/9/9/9/9/9/9/9/1R7/1N2K4 w").unwrap();
        let horse: Vec<String> = b
            .legal_moves()
            .iter()
            .filter(|m| m.from().to_string() == "b0")
            .map(|m| m.to_string())
            .collect();
        assert_eq!(horse, ["b0d1"]);
    }

    #[test]
    fn captures_by_victim_are_the_legal_captures() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "2bak2n1/4a4/1c2b4/4pcp1p/1np6/3r2P2/2P1P3P/N3C4/2C2R3/2BAKAB2 w - - 0 15",
            "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
            "c3kab2/4a4/r1n1b1n2/pP2p3p/6p2/2R6/P3c1P1P/2NCC1N2/4A4/2B1KABr1 w - - 0 15",
        ];
        for fen in fens {
            let b = Board::from_fen(fen).unwrap();
            let enemies = b.by_color(b.turn().flip());
            let mut by_victim: Vec<u16> = b.legal_captures_of(enemies).iter().map(|m| m.raw()).collect();
            let mut by_piece: Vec<u16> = b.legal_moves_to(enemies).iter().map(|m| m.raw()).collect();
            by_victim.sort_unstable();
            by_piece.sort_unstable();
            assert!(!by_piece.is_empty(), "{fen}");
            assert_eq!(by_victim, by_piece, "{fen}");
        }
    }

    #[test]
    fn is_legal_agrees_with_generation() {
        let b = Board::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")
            .unwrap();
        let legal = b.legal_moves();
        for from in Square::all() {
            for to in Square::all() {
                if from != to {
                    let mv = Move::new(from, to);
                    assert_eq!(b.is_legal(mv), legal.contains(mv), "{mv}");
                }
            }
        }
    }
}
