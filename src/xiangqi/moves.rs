//! Moves and fixed-capacity move lists.

use super::types::Square;
use std::fmt;
use std::num::NonZeroU16;

/// A move from one square to another, packed in 16 bits: `from | to << 7`, with the top
/// bit set so the value is never zero and `Option<Move>` costs nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

impl Move {
    const TAG: u16 = 1 << 15;

    #[inline]
    pub fn new(from: Square, to: Square) -> Move {
        let raw = Self::TAG | from.index() as u16 | (to.index() as u16) << 7;
        Move(NonZeroU16::new(raw).expect("tagged move is never zero"))
    }

    #[inline]
    pub fn from(self) -> Square {
        Square::new_unchecked((self.0.get() & 0x7f) as u32)
    }

    #[inline]
    pub fn to(self) -> Square {
        Square::new_unchecked((self.0.get() >> 7 & 0x7f) as u32)
    }

    /// The packed 16-bit value (for transposition-table entries).
    #[inline]
    pub fn raw(self) -> u16 {
        self.0.get()
    }

    /// Unpacks a value from [`Move::raw`]; `None` for values no move packs to.
    pub fn from_raw(raw: u16) -> Option<Move> {
        let from = Square::new((raw & 0x7f) as u32)?;
        let to = Square::new((raw >> 7 & 0x7f) as u32)?;
        (raw & Self::TAG != 0 && from != to).then(|| Move::new(from, to))
    }

    /// Parses ICCS coordinates (`h2e2`, also `H2-E2`). Only the syntax is checked here;
    /// [`super::Board::parse_move`] also checks legality.
    pub fn parse_iccs(text: &str) -> Result<Move, MoveParseError> {
        let t = text.trim();
        let (a, b) = match t.len() {
            4 => (t.get(0..2), t.get(2..4)),
            5 if t.as_bytes()[2] == b'-' => (t.get(0..2), t.get(3..5)),
            _ => (None, None),
        };
        let syntax = || MoveParseError::Syntax(text.to_string());
        let from = Square::parse(a.ok_or_else(syntax)?).ok_or_else(syntax)?;
        let to = Square::parse(b.ok_or_else(syntax)?).ok_or_else(syntax)?;
        if from == to {
            return Err(syntax());
        }
        Ok(Move::new(from, to))
    }

    /// The move seen from the other side of the board (ranks reversed).
    pub fn flip_rank(self) -> Move {
        Move::new(self.from().flip_rank(), self.to().flip_rank())
    }

    /// The move mirrored across the central file.
    pub fn mirror_file(self) -> Move {
        Move::new(self.from().mirror_file(), self.to().mirror_file())
    }
}

impl fmt::Display for Move {
    /// ICCS coordinates in lower case, as UCCI and UCI engines write them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a move text was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveParseError {
    #[error("'{0}' is not a move in ICCS coordinates (expected e.g. h2e2: files a-i, ranks 0-9)")]
    Syntax(String),
    #[error("illegal move {mv}: there is no piece on {square}")]
    NoPiece { mv: String, square: Square },
    #[error("illegal move {mv}: the piece on {square} belongs to the side not to move")]
    WrongSide { mv: String, square: Square },
    #[error("illegal move {mv}: {reason}")]
    Illegal { mv: String, reason: &'static str },
}

/// The most legal moves a Xiangqi position can have is well below this.
pub const MAX_MOVES: usize = 256;

/// A move list on the stack: no allocation in the search.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        let filler = Move::new(Square::new_unchecked(0), Square::new_unchecked(1));
        MoveList {
            moves: [filler; MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_and_text() {
        let m = Move::parse_iccs("h2e2").unwrap();
        assert_eq!(m.from().to_string(), "h2");
        assert_eq!(m.to().to_string(), "e2");
        assert_eq!(m.to_string(), "h2e2");
        assert_eq!(Move::from_raw(m.raw()), Some(m));
        assert_eq!(Move::parse_iccs("H2-E2").unwrap(), m);
        assert_eq!(std::mem::size_of::<Option<Move>>(), 2);
        for bad in ["", "h2", "h2e", "h2e2x", "j2e2", "h2e10", "e2e2", "h2+e2"] {
            assert!(Move::parse_iccs(bad).is_err(), "{bad}");
        }
        assert_eq!(Move::from_raw(0), None);
    }
}
