//! Coordinates and piece kinds: files, ranks, squares, colours, roles, pieces.
//!
//! The board is 9 files (a..i) by 10 ranks (0..9, counted from Red's side, as in
//! ICCS notation). Square index = rank * 9 + file, so a0 = 0 and i9 = 89.

use std::fmt;

/// A side. Red moves first and sits on ranks 0..4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    Red = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The other side.
    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// 0 for Red, 1 for Black: an index into per-colour tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for Red, -1 for Black: turns a side-relative score into Red's view.
    #[inline]
    pub const fn sign(self) -> i32 {
        match self {
            Color::Red => 1,
            Color::Black => -1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Red => "red",
            Color::Black => "black",
        })
    }
}

/// A kind of piece, independent of colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    King = 0,
    Advisor = 1,
    Elephant = 2,
    Horse = 3,
    Rook = 4,
    Cannon = 5,
    Pawn = 6,
}

impl Role {
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The most of this role one side can have (there are no promotions).
    pub const fn max_count(self) -> u32 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// The FEN letter in upper case (Red's). Elephants are `B`, horses `N`, as most tools write them.
    pub const fn upper_char(self) -> char {
        match self {
            Role::King => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Pawn => 'P',
        }
    }

    /// Reads a FEN letter of either case; `E` and `H` are accepted for elephant and horse.
    pub const fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'K' => Role::King,
            'A' => Role::Advisor,
            'B' | 'E' => Role::Elephant,
            'N' | 'H' => Role::Horse,
            'R' => Role::Rook,
            'C' => Role::Cannon,
            'P' => Role::Pawn,
            _ => return None,
        })
    }

    /// Lower-case English name, used in error messages and parameter names.
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }
}

/// A coloured piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    #[inline]
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// A dense index 0..14 for per-piece tables (Zobrist keys).
    #[inline]
    pub const fn index(self) -> usize {
        self.color.index() * 7 + self.role.index()
    }

    /// The FEN letter: upper case for Red, lower case for Black.
    pub const fn char(self) -> char {
        let c = self.role.upper_char();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Reads a FEN letter; the case gives the colour.
    pub const fn from_char(c: char) -> Option<Piece> {
        match Role::from_char(c) {
            Some(role) => Some(Piece::new(
                if c.is_ascii_uppercase() {
                    Color::Red
                } else {
                    Color::Black
                },
                role,
            )),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color, self.role.name())
    }
}

/// A file, a..i from Red's left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    pub const COUNT: usize = 9;

    /// A file from its index, or `None` past i.
    pub const fn new(index: u32) -> Option<File> {
        if index < 9 {
            Some(File(index as u8))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }

    /// The mirror file across the central e-file.
    pub const fn mirror(self) -> File {
        File(8 - self.0)
    }
}

/// A rank, 0..9 from Red's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const COUNT: usize = 10;

    /// A rank from its index, or `None` past 9.
    pub const fn new(index: u32) -> Option<Rank> {
        if index < 10 {
            Some(Rank(index as u8))
        } else {
            None
        }
    }

    #[inline]
    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    pub const fn char(self) -> char {
        (b'0' + self.0) as char
    }

    /// The rank seen from the other side of the board.
    pub const fn flip(self) -> Rank {
        Rank(9 - self.0)
    }

    /// The rank counted from `color`'s own back rank (0 = its back rank).
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::Red => self,
            Color::Black => self.flip(),
        }
    }
}

/// One of the 90 points of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 90;

    /// A square from its index, or `None` past 89.
    #[inline]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 90 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// A square from an index the caller knows is below 90.
    #[inline]
    pub const fn new_unchecked(index: u32) -> Square {
        debug_assert!(index < 90);
        Square(index as u8)
    }

    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> File {
        File(self.0 % 9)
    }

    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(self.0 / 9)
    }

    /// The square offset by (df, dr), or `None` off the board.
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        let f = self.file().index() as i32 + df;
        let r = self.rank().index() as i32 + dr;
        if f < 0 || f > 8 || r < 0 || r > 9 {
            None
        } else {
            Some(Square((r * 9 + f) as u8))
        }
    }

    /// The square seen from the other side (ranks reversed): used by colour-flips.
    pub const fn flip_rank(self) -> Square {
        Square::from_coords(self.file(), self.rank().flip())
    }

    /// The mirror square across the central file.
    pub const fn mirror_file(self) -> Square {
        Square::from_coords(self.file().mirror(), self.rank())
    }

    /// Whether the square lies on `color`'s half of the board (before the river).
    #[inline]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.0 < 45,
            Color::Black => self.0 >= 45,
        }
    }

    /// Whether the square is inside `color`'s palace.
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file().index();
        let r = self.rank().relative_to(color).index();
        f >= 3 && f <= 5 && r <= 2
    }

    /// Parses ICCS coordinates such as `e0` (case-insensitive).
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let r = b[1].wrapping_sub(b'0');
        Some(Square::from_coords(File::new(f as u32)?, Rank::new(r as u32)?))
    }

    /// All 90 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90).map(Square::new_unchecked)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::from_coords(sq.file(), sq.rank()), sq);
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
            assert_eq!(sq.flip_rank().flip_rank(), sq);
            assert_eq!(sq.mirror_file().mirror_file(), sq);
        }
        assert_eq!(Square::parse("a0").unwrap().index(), 0);
        assert_eq!(Square::parse("i9").unwrap().index(), 89);
        assert_eq!(Square::parse("j0"), None);
        assert_eq!(Square::parse("a10"), None);
    }

    #[test]
    fn palaces_and_sides() {
        let palace: Vec<_> = Square::all()
            .filter(|s| s.in_palace(Color::Black))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(palace, ["d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9"]);
        assert!(Square::parse("e4").unwrap().on_own_side(Color::Red));
        assert!(Square::parse("e5").unwrap().on_own_side(Color::Black));
    }

    #[test]
    fn piece_letters() {
        for c in "KABNRCPkabnrcp".chars() {
            assert_eq!(Piece::from_char(c).unwrap().char(), c);
        }
        assert_eq!(Piece::from_char('E').unwrap().role, Role::Elephant);
        assert_eq!(
            Piece::from_char('h').unwrap(),
            Piece::new(Color::Black, Role::Horse)
        );
        assert_eq!(Piece::from_char('x'), None);
    }
}
