//! The parameterised evaluation.
//!
//! Terms (seeds 002 and 003): material per piece type (the king fixed), piece-square values
//! (mirror-symmetric across the central file, declared only for points the piece can
//! reach), mobility of horses, rooks and cannons, threats and protection, king safety and
//! coordination, endgame adjustments tapered by the phase, attack patterns (hollow and
//! bottom cannons, open files, attackers of the palace; while all are zero they cost
//! nothing), and, zero by default for the tuners and the SPRT queue to set: mobility onto
//! points a cheap enemy piece guards, pieces a cheaper enemy piece attacks, enemy pawns
//! inside a palace short of advisors, and massed wings counted only with pieces the defence
//! cannot take at a profit. Every weight is one entry of [`specs`];
//! [`Weights`] compiles a [`Params`] into flat tables for the hot path.
//!
//! The defaults were set by hand (`examples/xiangqi-hand-set.json`), then by the GA with
//! mirrored twins over every weight (`configs/xiangqi-ga-twins-all.json`, 144,000 games at
//! 1,000 nodes a move; `examples/xiangqi-twins-built-in.json`), and are now that set with its
//! scalar weights retuned by SPSA at 10,000 nodes a move (`configs/xiangqi-eval-spsa.json`;
//! written here by `scripts/set-built-in-weights.py`): +66.3 Elo over the twins' set in an
//! SPRT at a real clock.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::Board;
use super::knobs::{self, Knobs};
use super::moves::Move;
use super::types::{Color, File, Rank, Role, Square};
use crate::params::{Params, Spec};
use std::sync::LazyLock;

/// The game name in weight files.
pub const GAME: &str = "xiangqi";

/// Scores are in centipawn-like units; mates are far above any evaluation.
pub type Score = i32;

macro_rules! scalar_specs {
    ($($name:ident = $default:expr, [$min:expr, $max:expr], $bits:expr;)*) => {
        /// Indices of the scalar parameters in the spec list.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        #[repr(usize)]
        enum S { $($name,)* }
        const SCALARS: &[Spec] = &[$(Spec {
            name: stringify!($name),
            default: $default,
            min: $min,
            max: $max,
            bits: $bits,
            knob: false,
        },)*];
    };
}

scalar_specs! {
    king = 10_000, [10_000, 10_000], 0;
    advisor = 105, [50, 400], 8;
    elephant = 105, [50, 400], 8;
    horse = 331, [200, 800], 9;
    rook = 1208, [500, 1500], 10;
    cannon = 409, [200, 800], 9;
    pawn = 126, [20, 200], 8;
    advisor_eg = -26, [-120, 120], 8;
    elephant_eg = -31, [-120, 120], 8;
    horse_eg = 24, [-120, 120], 8;
    rook_eg = -15, [-120, 120], 8;
    cannon_eg = -54, [-120, 120], 8;
    pawn_crossed_eg = 68, [-60, 200], 8;
    mobility_horse = 14, [0, 31], 5;
    mobility_rook = 6, [0, 31], 5;
    mobility_cannon = 4, [0, 31], 5;
    hanging = -34, [-250, 0], 8;
    attacked_defended = -11, [-60, 20], 6;
    protected = 7, [-10, 30], 6;
    missing_advisor = -41, [-100, 20], 7;
    missing_elephant = -35, [-100, 20], 7;
    king_file_rook = -29, [-120, 20], 7;
    king_file_cannon = -51, [-120, 20], 7;
    palace_pressure = -2, [-40, 10], 6;
    linked_advisors = 16, [-20, 60], 6;
    linked_elephants = 15, [-20, 60], 6;
    hollow_cannon = 2, [-60, 200], 8;
    cannon_pins_horse = 4, [-60, 200], 8;
    bottom_cannon = -5, [-60, 200], 8;
    rook_open_file = 4, [-40, 80], 7;
    rook_half_open_file = 4, [-40, 80], 7;
    paired_pawns = 1, [-40, 80], 7;
    palace_attackers = 6, [-20, 60], 6;
    hollow_cannon_home = 0, [-60, 200], 8;
    cannon_pins_horse_home = 0, [-60, 200], 8;
    unsafe_mobility = 0, [-31, 10], 6;
    wing_attack = 20, [-40, 80], 7;
    wing_attack_safe = 0, [-40, 80], 7;
    bare_palace_pawn = 0, [-60, 20], 6;
    threat_by_lesser = 0, [-120, 20], 7;
    tempo = 19, [0, 40], 6;
}

/// Piece-square values for Red on files a..e (the rest mirror), rank 0 (Red's back rank)
/// first: hand-set, then tuned (the module's header says how).
const HORSE_PST: [[i32; 5]; 10] = [
    [-19, -24, -12, 1, 29],
    [-12, 5, -24, -1, -7],
    [-27, -4, -6, 13, 29],
    [13, 8, 1, 5, 25],
    [-14, 15, 33, 28, 25],
    [10, 21, 13, 42, 36],
    [-4, 42, 7, 56, 19],
    [32, 4, 18, 44, 32],
    [-26, 18, 39, 52, 37],
    [-19, 7, 2, 3, 13],
];
const ROOK_PST: [[i32; 5]; 10] = [
    [-37, 14, -9, 0, 17],
    [-16, -7, -10, -1, -2],
    [-13, 14, -16, 7, 11],
    [-6, 15, 26, 29, -7],
    [-7, 23, 25, 18, 18],
    [4, 10, 29, 9, -4],
    [2, 18, 22, 27, -12],
    [-11, -9, 16, 4, 5],
    [-2, 7, 8, 0, 20],
    [9, 2, 15, 19, 6],
];
const CANNON_PST: [[i32; 5]; 10] = [
    [-23, -5, 9, 21, -6],
    [-23, 3, 6, 11, -9],
    [17, -1, 16, 31, 34],
    [-11, 7, 19, 3, 23],
    [-1, -19, 22, 0, 27],
    [7, -3, -13, -5, 16],
    [-14, -8, 4, -8, 23],
    [11, -17, -6, -18, 0],
    [-1, -1, 2, -4, -10],
    [27, -7, -14, -7, 14],
];
/// Ranks 3 to 9; before the river a pawn stands only on files a, c and e.
const PAWN_PST: [[i32; 5]; 7] = [
    [-8, 0, -19, 0, 10],
    [-10, 0, 18, 0, 0],
    [5, 19, 36, 46, 49],
    [21, 44, 60, 64, 71],
    [21, 42, 75, 73, 84],
    [53, 29, 73, 94, 94],
    [8, -6, 23, 29, 20],
];

/// Points each role can stand on for Red, on files a..e (the rest mirror), with the
/// default piece-square value of each. Rank 0 is Red's back rank.
fn default_pst(role: Role, file: u32, rank: u32) -> Option<i32> {
    let f = file as usize;
    let r = rank as usize;
    Some(match role {
        Role::King => {
            if !(3..=4).contains(&f) || r > 2 {
                return None;
            }
            [[2, 15], [-27, 21], [-61, -6]][r][f - 3]
        }
        Role::Advisor => match (f, r) {
            (3, 0) => -25,
            (4, 1) => 19,
            (3, 2) => -3,
            _ => return None,
        },
        Role::Elephant => match (f, r) {
            (2, 0) => -7,
            (0, 2) => -23,
            (4, 2) => 18,
            (2, 4) => -15,
            _ => return None,
        },
        Role::Horse => HORSE_PST[r][f],
        Role::Rook => ROOK_PST[r][f],
        Role::Cannon => CANNON_PST[r][f],
        Role::Pawn => match r {
            0..=2 => return None,
            3 | 4 if f % 2 == 1 => return None,
            _ => PAWN_PST[r - 3][f],
        },
    })
}

/// The piece-square parameters: (role, file 0..4, rank) in spec order after the scalars.
static PST_POINTS: LazyLock<Vec<(Role, u32, u32)>> = LazyLock::new(|| {
    let mut v = Vec::new();
    for role in Role::ALL {
        for rank in 0..10 {
            for file in 0..5 {
                if default_pst(role, file, rank).is_some() {
                    v.push((role, file, rank));
                }
            }
        }
    }
    v
});

static SPECS: LazyLock<Vec<Spec>> = LazyLock::new(|| {
    let mut v = SCALARS.to_vec();
    for &(role, file, rank) in PST_POINTS.iter() {
        let sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
        // Names live for the program's life; the list is built once.
        let name: &'static str = Box::leak(format!("pst_{}_{}", role.name(), sq).into_boxed_str());
        v.push(Spec {
            name,
            default: default_pst(role, file, rank).expect("listed point"),
            min: -100,
            max: 100,
            bits: 7,
            knob: false,
        });
    }
    v.extend(knobs::SPECS);
    v
});

/// Every tunable parameter of the Xiangqi evaluation, in a fixed order.
pub fn specs() -> &'static [Spec] {
    &SPECS
}

/// A parameter's meaning in one line.
pub fn describe(name: &str) -> String {
    if let Some(meaning) = knobs::describe(name) {
        return meaning.to_string();
    }
    if let Some(rest) = name.strip_prefix("pst_") {
        if let Some((role, point)) = rest.split_once('_') {
            let article = if role.starts_with(['a', 'e']) { "an" } else { "a" };
            return format!(
                "piece-square value of {article} {role} on {point} for Red (files f-i mirror d-a; Black's points seen from its side)"
            );
        }
    }
    match name {
        "king" => "the king's value (fixed: never evolves)",
        "advisor" | "elephant" | "horse" | "rook" | "cannon" => "material value in the middlegame",
        "pawn" => "material value of a pawn (crossed pawns add their piece-square value)",
        "advisor_eg" | "elephant_eg" | "horse_eg" | "rook_eg" | "cannon_eg" => {
            "added to the piece's value as the material thins out (tapered by phase)"
        }
        "pawn_crossed_eg" => "added to a crossed pawn's value as the material thins out",
        "mobility_horse" | "mobility_rook" => "bonus per point the piece attacks that no own piece holds",
        "mobility_cannon" => "bonus per empty point the cannon can slide to",
        "hanging" => "for each piece of the side not to move that is attacked and unprotected",
        "attacked_defended" => "for each piece that is attacked though protected",
        "protected" => "for each protected piece",
        "missing_advisor" => "for each missing advisor, times the enemy rooks, horses and cannons / 4",
        "missing_elephant" => "for each missing elephant, times the enemy rooks, horses and cannons / 4",
        "king_file_rook" => "an enemy rook on the king's file",
        "king_file_cannon" => "an enemy cannon on the king's file",
        "palace_pressure" => "for each point of the own palace the enemy attacks",
        "linked_advisors" => "both advisors present and protected",
        "linked_elephants" => "both elephants present and protected",
        "hollow_cannon" => "a cannon on the enemy king's file with no piece between them",
        "cannon_pins_horse" => {
            "a cannon on the enemy king's file behind two screens, one of them a horse beside that king"
        }
        "bottom_cannon" => "a cannon on the enemy king's rank with no piece between them",
        "rook_open_file" => "a rook on a file without pawns",
        "rook_half_open_file" => "a rook on a file without own pawns but with an enemy one",
        "paired_pawns" => "for each pair of crossed pawns side by side",
        "palace_attackers" => {
            "for each pair of pieces (rooks, horses, cannons, crossed pawns) attacking the enemy palace"
        }
        "hollow_cannon_home" => {
            "a hollow cannon (see hollow_cannon) while the enemy king stands at home between both its advisors, so it cannot step off the file"
        }
        "cannon_pins_horse_home" => {
            "a cannon pinning a horse (see cannon_pins_horse) while the enemy king stands at home between both its advisors"
        }
        "unsafe_mobility" => {
            "for each point a rook, horse or cannon counts in its mobility that an enemy pawn, advisor, elephant or king attacks"
        }
        "wing_attack" => {
            "for each wing (files a to d, f to i) where two or more of the side's rooks, horses and cannons stand across the river"
        }
        "wing_attack_safe" => {
            "for each wing where two or more of the side's rooks, horses and cannons stand across the river on points no enemy pawn, advisor, elephant or king attacks and none it attacks unprotected"
        }
        "bare_palace_pawn" => {
            "for each missing advisor, times the enemy pawns across the river short of the own back rank"
        }
        "threat_by_lesser" => {
            "for each rook an enemy horse, cannon, pawn, advisor or elephant attacks, and each horse or cannon an enemy pawn, advisor or elephant attacks"
        }
        "tempo" => "for the side to move",
        other => return other.to_string(),
    }
    .to_string()
}

/// The built-in parameters.
pub fn default_params() -> Params {
    Params::defaults(specs())
}

/// Only material at the built-in values: every other weight zero (or its nearest bound).
pub fn material_only_params() -> Params {
    let specs = specs();
    let material = [
        S::king,
        S::advisor,
        S::elephant,
        S::horse,
        S::rook,
        S::cannon,
        S::pawn,
    ];
    let values: Vec<i32> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.knob || material.iter().any(|&m| m as usize == i) {
                s.default
            } else {
                0.clamp(s.min, s.max)
            }
        })
        .collect();
    Params::from_values(specs, &values).expect("zero is clamped into range")
}

/// Phase weights of the pieces that decide middlegame versus endgame; the start has 32.
const PHASE_ROOK: i32 = 4;
const PHASE_MINOR: i32 = 2;
const PHASE_MAX: i32 = 2 * (2 * PHASE_ROOK + 4 * PHASE_MINOR);

/// Evaluation weights compiled for speed: material folded into piece-square tables for
/// both phases, indexed by colour, role and square, from each side's own point of view.
#[derive(Clone, Debug)]
pub struct Weights {
    mg: Box<[[[i32; 90]; 7]; 2]>,
    eg: Box<[[[i32; 90]; 7]; 2]>,
    scalar: [i32; SCALAR_COUNT],
    /// Whether any of [`PATTERNS`] has a weight: at zero their counting is skipped.
    patterns: bool,
    knobs: Knobs,
}

const SCALAR_COUNT: usize = S::tempo as usize + 1;

impl Weights {
    /// Compiles a parameter set of this game.
    pub fn new(params: &Params) -> Weights {
        assert!(
            std::ptr::eq(params.specs(), specs()),
            "parameters of another game"
        );
        let v = params.values();
        let mut scalar = [0; SCALAR_COUNT];
        scalar.copy_from_slice(&v[..SCALAR_COUNT]);
        let material = |role: Role| match role {
            Role::King => 0, // kings are never captured; their fixed value only matters to the GA's genome
            Role::Advisor => scalar[S::advisor as usize],
            Role::Elephant => scalar[S::elephant as usize],
            Role::Horse => scalar[S::horse as usize],
            Role::Rook => scalar[S::rook as usize],
            Role::Cannon => scalar[S::cannon as usize],
            Role::Pawn => scalar[S::pawn as usize],
        };
        let eg_delta = |role: Role| match role {
            Role::Advisor => scalar[S::advisor_eg as usize],
            Role::Elephant => scalar[S::elephant_eg as usize],
            Role::Horse => scalar[S::horse_eg as usize],
            Role::Rook => scalar[S::rook_eg as usize],
            Role::Cannon => scalar[S::cannon_eg as usize],
            _ => 0,
        };
        let mut mg = Box::new([[[0; 90]; 7]; 2]);
        let mut eg = Box::new([[[0; 90]; 7]; 2]);
        for (i, &(role, file, rank)) in PST_POINTS.iter().enumerate() {
            let pst = v[SCALAR_COUNT + i];
            let red_sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
            let crossed = role == Role::Pawn && rank >= 5;
            let base_mg = material(role) + pst;
            let base_eg = base_mg
                + eg_delta(role)
                + if crossed {
                    scalar[S::pawn_crossed_eg as usize]
                } else {
                    0
                };
            for sq in [red_sq, red_sq.mirror_file()] {
                for color in Color::ALL {
                    let own = if color == Color::Red { sq } else { sq.flip_rank() };
                    mg[color.index()][role.index()][own.index()] = base_mg;
                    eg[color.index()][role.index()][own.index()] = base_eg;
                }
            }
        }
        let knobs = Knobs::from_values(&v[SCALAR_COUNT + PST_POINTS.len()..]);
        let patterns = PATTERNS.iter().any(|&p| scalar[p as usize] != 0);
        Weights {
            mg,
            eg,
            scalar,
            patterns,
            knobs,
        }
    }

    /// The search's and the clock's settings.
    #[inline]
    pub fn knobs(&self) -> &Knobs {
        &self.knobs
    }

    #[inline]
    fn s(&self, s: S) -> i32 {
        self.scalar[s as usize]
    }

    /// The material value of a role (for move ordering and exchange decisions).
    #[inline]
    pub fn value(&self, role: Role) -> i32 {
        match role {
            Role::King => self.s(S::king),
            Role::Advisor => self.s(S::advisor),
            Role::Elephant => self.s(S::elephant),
            Role::Horse => self.s(S::horse),
            Role::Rook => self.s(S::rook),
            Role::Cannon => self.s(S::cannon),
            Role::Pawn => self.s(S::pawn),
        }
    }

    /// The evaluation from the side to move's point of view.
    pub fn evaluate(&self, board: &Board) -> Score {
        self.evaluate_with(board, self.psq(board))
    }

    /// [`Weights::evaluate`] given the position's [`Psq`] (kept incrementally by the search).
    #[inline]
    pub fn evaluate_with(&self, board: &Board, psq: Psq) -> Score {
        self.evaluate_with_attacks(board, psq).0
    }

    /// [`Weights::evaluate_with`], also returning every point each side attacks or defends,
    /// indexed by colour (the search finds and orders captures with them).
    #[inline]
    pub fn evaluate_with_attacks(&self, board: &Board, psq: Psq) -> (Score, [Bitboard; 2]) {
        let (red, attacked) = self.evaluate_red_with(board, psq);
        (board.turn().sign() * red + self.s(S::tempo), attacked)
    }

    /// The part of [`Weights::evaluate_with`] known without looking at attacks: material and
    /// piece-square values tapered by phase, plus the tempo, for the side to move.
    #[inline]
    pub fn material_estimate(&self, board: &Board, psq: Psq) -> Score {
        let phase = phase(board);
        let red = (psq.mg * phase + psq.eg * (PHASE_MAX - phase)) / PHASE_MAX;
        board.turn().sign() * red + self.s(S::tempo)
    }

    /// How far the attack-based terms (mobility, threats, king safety) can plausibly move
    /// the score away from [`Weights::material_estimate`]: a search may trust the estimate
    /// when it is beyond a bound by more than this. Derived from the weights, so evolved or
    /// random weights get a margin of their own (with the defaults it covers the largest
    /// difference seen over 3,000 middlegame positions).
    pub fn positional_margin(&self) -> Score {
        let mobility = 17 * self.s(S::mobility_rook)
            + 17 * self.s(S::mobility_cannon)
            + 8 * self.s(S::mobility_horse)
            + 8 * self.s(S::unsafe_mobility).abs();
        // The patterns by what a middlegame plausibly holds of each: two of a kind, three
        // pieces at the palace.
        let patterns: i32 =
            PATTERNS.iter().map(|&p| 2 * self.s(p).abs()).sum::<i32>() + self.s(S::palace_attackers).abs();
        2 * mobility
            + 2 * self.s(S::hanging).abs()
            + self.s(S::king_file_rook).abs()
            + self.s(S::king_file_cannon).abs()
            + 2 * self.s(S::bare_palace_pawn).abs()
            + 2 * self.s(S::threat_by_lesser).abs()
            + patterns
    }

    /// The evaluation from Red's point of view, without the side-to-move tempo.
    pub fn evaluate_red(&self, board: &Board) -> Score {
        self.evaluate_red_with(board, self.psq(board)).0
    }

    /// Material and piece-square sums of both phases, from Red's point of view.
    pub fn psq(&self, board: &Board) -> Psq {
        let mut psq = Psq::default();
        for sq in Square::all() {
            if let Some(p) = board.piece_at(sq) {
                psq.add(
                    p.color.sign(),
                    self.mg[p.color.index()][p.role.index()][sq.index()],
                    self.eg[p.color.index()][p.role.index()][sq.index()],
                );
            }
        }
        psq
    }

    /// How `mv` (not yet made on `board`) changes the [`Psq`].
    #[inline]
    pub fn psq_after(&self, board: &Board, mv: Move, mut psq: Psq) -> Psq {
        let p = board.piece_at(mv.from()).expect("a move starts on a piece");
        let (c, r) = (p.color.index(), p.role.index());
        let (from, to) = (mv.from().index(), mv.to().index());
        psq.add(
            p.color.sign(),
            self.mg[c][r][to] - self.mg[c][r][from],
            self.eg[c][r][to] - self.eg[c][r][from],
        );
        if let Some(v) = board.piece_at(mv.to()) {
            let (c, r) = (v.color.index(), v.role.index());
            psq.add(-v.color.sign(), self.mg[c][r][to], self.eg[c][r][to]);
        }
        psq
    }

    fn evaluate_red_with(&self, board: &Board, psq: Psq) -> (Score, [Bitboard; 2]) {
        let mut terms = ScoreTerms {
            weights: self,
            total: 0,
        };
        let attacked = walk_terms(board, &mut terms);
        let phase = phase(board);
        let tapered = (psq.mg * phase + psq.eg * (PHASE_MAX - phase)) / PHASE_MAX;
        (terms.total + tapered, attacked)
    }
}

/// What the walk over the evaluation's positional terms ([`walk_terms`]) feeds: the score,
/// or the feature vector a fit on positions learns from. The terms are written once, so
/// the two cannot disagree.
trait Terms {
    /// Whether the walk must count term `s` (the score skips what is weighted 0).
    fn wants(&self, s: S) -> bool;
    /// Whether the walk must count the [`PATTERNS`].
    fn wants_patterns(&self) -> bool;
    /// `count` occurrences of term `s` for the side of `sign` (1 Red, -1 Black).
    fn add(&mut self, s: S, sign: i32, count: i32);
    /// Two terms whose weighted sum is scaled by `mul / div`, rounded toward zero.
    fn add_scaled(&mut self, sign: i32, terms: [(S, i32); 2], mul: i32, div: i32);
}

/// The positional terms summed by their weights, from Red's point of view.
struct ScoreTerms<'a> {
    weights: &'a Weights,
    total: i32,
}

impl Terms for ScoreTerms<'_> {
    #[inline]
    fn wants(&self, s: S) -> bool {
        self.weights.s(s) != 0
    }

    #[inline]
    fn wants_patterns(&self) -> bool {
        self.weights.patterns
    }

    #[inline]
    fn add(&mut self, s: S, sign: i32, count: i32) {
        self.total += sign * self.weights.s(s) * count;
    }

    #[inline]
    fn add_scaled(&mut self, sign: i32, [(s0, c0), (s1, c1)]: [(S, i32); 2], mul: i32, div: i32) {
        let w = &self.weights;
        self.total += sign * ((w.s(s0) * c0 + w.s(s1) * c1) * mul / div);
    }
}

/// The positional terms as (spec index, coefficient) pairs: every term, weighted or not.
struct FeatureTerms<'a> {
    out: &'a mut Vec<(u32, f32)>,
}

impl Terms for FeatureTerms<'_> {
    fn wants(&self, _: S) -> bool {
        true
    }

    fn wants_patterns(&self) -> bool {
        true
    }

    fn add(&mut self, s: S, sign: i32, count: i32) {
        self.out.push((s as u32, sign as f32 * count as f32));
    }

    fn add_scaled(&mut self, sign: i32, terms: [(S, i32); 2], mul: i32, div: i32) {
        for (s, c) in terms {
            self.out
                .push((s as u32, sign as f32 * (c as f32 * mul as f32 / div as f32)));
        }
    }
}

/// The evaluation's positional terms of `board` (mobility, patterns, threats, protection,
/// king safety), fed to `terms`; returns every point each side attacks or defends, indexed
/// by colour.
fn walk_terms<T: Terms>(board: &Board, terms: &mut T) -> [Bitboard; 2] {
    let occ = board.occupancy();
    let empty = !board.occupied();
    let steps = Color::ALL.map(|color| board.step_attacks(color));
    let count_unsafe = terms.wants(S::unsafe_mobility);
    let mut attacked = [Bitboard::EMPTY; 2];
    let mut reach = [0; 2];
    let mut minor = [Bitboard::EMPTY; 2];
    for color in Color::ALL {
        let c = color.index();
        let not_own = !board.by_color(color);
        let palace = attacks::PALACE[color.flip().index()];
        // Points a cheap enemy piece guards: what goes there is lost for less than it is worth.
        let guarded = steps[color.flip().index()];
        let unsafe_in = |m: Bitboard| {
            if count_unsafe {
                (m & guarded).count() as i32
            } else {
                0
            }
        };
        let (mut rook, mut cannon, mut horse, mut unsafe_points) = (0, 0, 0, 0);
        let mut att = steps[c];
        for sq in board.pieces(color, Role::Rook) {
            let a = attacks::rook_attacks(sq, occ);
            att |= a;
            reach[c] += (a & palace).any() as i32;
            let m = a & not_own;
            rook += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        for sq in board.pieces(color, Role::Cannon) {
            let (slide, jump) = attacks::slider_attacks(sq, occ);
            att |= jump;
            minor[c] |= jump;
            reach[c] += (jump & palace).any() as i32;
            let m = slide & empty;
            cannon += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        for sq in board.pieces(color, Role::Horse) {
            let a = attacks::horse_attacks(sq, occ);
            att |= a;
            minor[c] |= a;
            reach[c] += (a & palace).any() as i32;
            let m = a & not_own;
            horse += m.count() as i32;
            unsafe_points += unsafe_in(m);
        }
        attacked[c] = att;
        let sign = color.sign();
        terms.add(S::unsafe_mobility, sign, unsafe_points);
        terms.add(S::mobility_rook, sign, rook);
        terms.add(S::mobility_cannon, sign, cannon);
        terms.add(S::mobility_horse, sign, horse);
    }
    for color in Color::ALL {
        let sign = color.sign();
        if terms.wants_patterns() {
            // Only `wing_attack_safe` reads the exposed points.
            let exposed = if terms.wants(S::wing_attack_safe) {
                exposed(color, &steps, &attacked)
            } else {
                Bitboard::EMPTY
            };
            let counts = pattern_counts(board, color, reach[color.index()], exposed);
            for (&p, n) in PATTERNS.iter().zip(counts) {
                terms.add(p, sign, n);
            }
        }
        if terms.wants(S::threat_by_lesser) {
            let lesser = threats_by_lesser(board, color, minor[color.flip().index()]);
            terms.add(S::threat_by_lesser, sign, lesser);
        }
        safety_and_threats(board, color, &attacked, terms);
    }
    attacked
}

/// Threats, protection, king shelter and coordination for `color`.
fn safety_and_threats<T: Terms>(board: &Board, color: Color, attacked: &[Bitboard; 2], terms: &mut T) {
    let sign = color.sign();
    let them = color.flip();
    let own = board.by_color(color) & !board.by_role(Role::King);
    let (mine, theirs) = (attacked[color.index()], attacked[them.index()]);
    let threatened = own & theirs;
    let count = |b: Bitboard| b.count() as i32;
    // A hanging piece of the side not to move is about to be taken.
    if board.turn() == them {
        terms.add(S::hanging, sign, count(threatened & !mine));
    }
    terms.add(S::attacked_defended, sign, count(threatened & mine));
    terms.add(S::protected, sign, count(own & mine));
    let attackers = count(
        board.pieces(them, Role::Rook) | board.pieces(them, Role::Horse) | board.pieces(them, Role::Cannon),
    );
    let missing_adv = 2 - count(board.pieces(color, Role::Advisor));
    let missing_ele = 2 - count(board.pieces(color, Role::Elephant));
    // A missing defender matters in proportion to what the enemy can attack with (6 at most).
    let missing = [
        (S::missing_advisor, missing_adv),
        (S::missing_elephant, missing_ele),
    ];
    terms.add_scaled(sign, missing, attackers, 4);
    terms.add(
        S::bare_palace_pawn,
        sign,
        missing_adv * pawns_inside(board, color),
    );
    let file = attacks::file_mask(board.king(color).file());
    terms.add(
        S::king_file_rook,
        sign,
        count(board.pieces(them, Role::Rook) & file),
    );
    terms.add(
        S::king_file_cannon,
        sign,
        count(board.pieces(them, Role::Cannon) & file),
    );
    terms.add(
        S::palace_pressure,
        sign,
        count(attacks::PALACE[color.index()] & theirs),
    );
    let linked = |role| {
        let pieces = board.pieces(color, role);
        (pieces.count() == 2 && (pieces & mine).count() == 2) as i32
    };
    terms.add(S::linked_advisors, sign, linked(Role::Advisor));
    terms.add(S::linked_elephants, sign, linked(Role::Elephant));
}

/// The spec index of each piece-square parameter, by role and Red-view square (files f..i
/// folded onto d..a); `u32::MAX` where the role never stands.
static PST_INDEX: LazyLock<[[u32; 90]; 7]> = LazyLock::new(|| {
    let mut index = [[u32::MAX; 90]; 7];
    for (i, &(role, file, rank)) in PST_POINTS.iter().enumerate() {
        let sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
        for s in [sq, sq.mirror_file()] {
            index[role.index()][s.index()] = (SCALAR_COUNT + i) as u32;
        }
    }
    index
});

/// The evaluation of `board` as a linear function of the parameters: pushes (spec index,
/// coefficient) pairs such that the sum of value times coefficient is
/// [`Weights::evaluate_red`] plus the tempo from Red's point of view (up to the rounding of
/// the phase taper and of the king-shelter quarter). Knobs and the king's fixed value have
/// no coefficient. What fitting on positions learns from; its positional part is the
/// score's own walk over the terms ([`walk_terms`]).
pub fn features(board: &Board, out: &mut Vec<(u32, f32)>) {
    let phase = phase(board) as f32 / PHASE_MAX as f32;
    let endgame = 1.0 - phase;
    let mut add = |s: S, c: f32| out.push((s as u32, c));
    add(S::tempo, board.turn().sign() as f32);
    let material = |role: Role| match role {
        Role::King => None,
        Role::Advisor => Some((S::advisor, Some(S::advisor_eg))),
        Role::Elephant => Some((S::elephant, Some(S::elephant_eg))),
        Role::Horse => Some((S::horse, Some(S::horse_eg))),
        Role::Rook => Some((S::rook, Some(S::rook_eg))),
        Role::Cannon => Some((S::cannon, Some(S::cannon_eg))),
        Role::Pawn => Some((S::pawn, None)),
    };
    for sq in Square::all() {
        let Some(p) = board.piece_at(sq) else { continue };
        let sign = p.color.sign() as f32;
        let own = if p.color == Color::Red { sq } else { sq.flip_rank() };
        out.push((PST_INDEX[p.role.index()][own.index()], sign));
        if let Some((value, eg)) = material(p.role) {
            out.push((value as u32, sign));
            if let Some(eg) = eg {
                out.push((eg as u32, sign * endgame));
            }
        }
        if p.role == Role::Pawn && own.rank().index() >= 5 {
            out.push((S::pawn_crossed_eg as u32, sign * endgame));
        }
    }
    walk_terms(board, &mut FeatureTerms { out });
}

/// The attack patterns of Xiangqi practice that Pikafish's classical evaluation also
/// knows, in the order [`pattern_counts`] counts them.
const PATTERNS: [S; 11] = [
    S::hollow_cannon,
    S::cannon_pins_horse,
    S::bottom_cannon,
    S::rook_open_file,
    S::rook_half_open_file,
    S::paired_pawns,
    S::palace_attackers,
    S::hollow_cannon_home,
    S::cannon_pins_horse_home,
    S::wing_attack,
    S::wing_attack_safe,
];

/// How often `color` shows each of [`PATTERNS`], given `reach`, how many of its rooks,
/// horses and cannons attack a point of the enemy palace (its crossed pawns are added here).
/// Attackers count by pairs: one piece alone seldom mates, and each further one makes
/// more of the others' threats real.
/// `exposed` are the points where a piece of `color` may be taken at a loss (see [`exposed`]).
fn pattern_counts(board: &Board, color: Color, reach: i32, exposed: Bitboard) -> [i32; PATTERNS.len()] {
    let them = color.flip();
    let king = board.king(them);
    let occupied = board.occupied();
    let (mut hollow, mut pins, mut bottom) = (0, 0, 0);
    for sq in board.pieces(color, Role::Cannon) {
        let screens = attacks::between(sq, king) & occupied;
        if sq.file() == king.file() {
            match screens.count() {
                0 => hollow += 1,
                2 if (screens & board.pieces(them, Role::Horse) & attacks::king_attacks(king)).any() => {
                    pins += 1
                }
                _ => {}
            }
        } else if sq.rank() == king.rank() && screens.is_empty() {
            bottom += 1;
        }
    }
    let (own_pawns, their_pawns) = (board.pieces(color, Role::Pawn), board.pieces(them, Role::Pawn));
    let (mut open, mut half_open) = (0, 0);
    for sq in board.pieces(color, Role::Rook) {
        let file = attacks::file_mask(sq.file());
        if (own_pawns & file).is_empty() {
            if (their_pawns & file).is_empty() {
                open += 1;
            } else {
                half_open += 1;
            }
        }
    }
    let crossed = own_pawns & !attacks::own_half(color);
    let (mut linked, mut pawns_at_palace) = (0, 0);
    for sq in crossed {
        linked += sq.offset(1, 0).is_some_and(|right| crossed.contains(right)) as i32;
        pawns_at_palace += (attacks::pawn_attacks(color, sq) & attacks::PALACE[them.index()]).any() as i32;
    }
    let attackers = reach + pawns_at_palace;
    // Pieces massed on one wing across the river (Pikafish-HCE's PiecesOnOneSide): one alone
    // is easily met, two or more make an attack the defence must answer there.
    let across = (board.pieces(color, Role::Rook)
        | board.pieces(color, Role::Horse)
        | board.pieces(color, Role::Cannon))
        & !attacks::own_half(color);
    let massed = |pieces: Bitboard| {
        attacks::WINGS
            .iter()
            .filter(|&&w| (pieces & w).more_than_one())
            .count() as i32
    };
    // Pikafish-HCE counts only the pieces the defence cannot take at a profit.
    let (wings, safe_wings) = (massed(across), massed(across & !exposed));
    // Looked at only where a cannon holds the king's file.
    let held = (hollow + pins > 0 && held_at_home(board, them)) as i32;
    [
        hollow,
        pins,
        bottom,
        open,
        half_open,
        linked,
        attackers * (attackers - 1) / 2,
        hollow * held,
        pins * held,
        wings,
        safe_wings,
    ]
}

/// The points where a rook, horse or cannon of `color` would be lost at a profit: those an
/// enemy pawn, advisor, elephant or king attacks, and those the enemy attacks that `color`
/// does not defend (`steps` and `attacked` indexed by colour, as the evaluation has them).
fn exposed(color: Color, steps: &[Bitboard; 2], attacked: &[Bitboard; 2]) -> Bitboard {
    let them = color.flip().index();
    steps[them] | (attacked[them] & !attacked[color.index()])
}

/// Each colour's king's starting point (e0, e9; a point's index is rank x 9 + file).
const KING_HOME: [Square; 2] = [Square::new_unchecked(4), Square::new_unchecked(85)];
/// Each colour's advisors' starting points (d0 and f0, d9 and f9).
const ADVISOR_HOMES: [Bitboard; 2] = [
    Bitboard::from_square(Square::new_unchecked(3)).with(Square::new_unchecked(5)),
    Bitboard::from_square(Square::new_unchecked(84)).with(Square::new_unchecked(86)),
];

/// Whether `color`'s king stands on its starting point with both its advisors on theirs:
/// then it can only step up its own file, so a cannon on that file stays a threat (the
/// case Pikafish-HCE scores its hollow cannon and central horse in).
fn held_at_home(board: &Board, color: Color) -> bool {
    let c = color.index();
    board.king(color) == KING_HOME[c] && (board.pieces(color, Role::Advisor) & ADVISOR_HOMES[c]).count() == 2
}

/// How many of `color`'s rooks a cheaper enemy piece attacks (`minor`: what the enemy's horses
/// and cannons attack), and how many of its horses and cannons an enemy pawn, advisor or
/// elephant attacks: an exchange there loses material even where the piece is defended.
fn threats_by_lesser(board: &Board, color: Color, minor: Bitboard) -> i32 {
    let them = color.flip();
    let cheap = attacks::pawn_attacks_all(them, board.pieces(them, Role::Pawn))
        | attacks::advisor_attacks_all(board.pieces(them, Role::Advisor))
        | attacks::elephant_attacks_all(them, board.pieces(them, Role::Elephant), board.occupancy());
    let rooks = board.pieces(color, Role::Rook) & (cheap | minor);
    let minors = (board.pieces(color, Role::Horse) | board.pieces(color, Role::Cannon)) & cheap;
    (rooks.count() + minors.count()) as i32
}

/// The enemy pawns across the river in `color`'s half, short of its back rank: there a pawn
/// still bears on the palace (Pikafish-HCE values crossed pawns by the advisors left to meet
/// them).
fn pawns_inside(board: &Board, color: Color) -> i32 {
    let them = color.flip();
    (board.pieces(them, Role::Pawn) & attacks::own_half(color) & !LAST_RANK[them.index()]).count() as i32
}

/// Material plus piece-square values, summed for both phases from Red's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Psq {
    mg: i32,
    eg: i32,
}

impl Psq {
    #[inline]
    fn add(&mut self, sign: i32, mg: i32, eg: i32) {
        self.mg += sign * mg;
        self.eg += sign * eg;
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights::new(&default_params())
    }
}

/// What a side has left to mate with: the search scales down an advantage the side holding
/// it cannot convert (knobs `search_scale_no_mating` and `search_scale_lone_attacker`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatingForce {
    /// No rook, horse or cannon and no pawn short of the last rank: it cannot mate.
    None,
    /// A single rook, horse or cannon and no pawn short of the last rank, against the
    /// defenders that often hold it (a coarse rule: two advisors or elephants against a
    /// horse or a cannon, all four against a rook).
    Lone,
    /// Anything more.
    Enough,
}

/// Each colour's last rank (the enemy's back rank), where a pawn only steps sideways.
const LAST_RANK: [Bitboard; 2] = [Bitboard(0x1FF << 81), Bitboard(0x1FF)];

/// What `color` has left to mate with against the defenders in front of it.
pub fn mating_force(board: &Board, color: Color) -> MatingForce {
    if (board.pieces(color, Role::Pawn) & !LAST_RANK[color.index()]).any() {
        return MatingForce::Enough;
    }
    let rooks = board.pieces(color, Role::Rook).count();
    let minors = (board.pieces(color, Role::Horse) | board.pieces(color, Role::Cannon)).count();
    let them = color.flip();
    let defenders = (board.pieces(them, Role::Advisor) | board.pieces(them, Role::Elephant)).count();
    match (rooks, minors) {
        (0, 0) => MatingForce::None,
        (0, 1) if defenders >= 2 => MatingForce::Lone,
        (1, 0) if defenders == 4 => MatingForce::Lone,
        _ => MatingForce::Enough,
    }
}

/// The game phase: PHASE_MAX with all rooks, horses and cannons on the board, 0 with none.
#[inline]
fn phase(board: &Board) -> i32 {
    (PHASE_ROOK * board.by_role(Role::Rook).count() as i32
        + PHASE_MINOR * (board.by_role(Role::Horse) | board.by_role(Role::Cannon)).count() as i32)
        .min(PHASE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::check_specs;

    #[test]
    fn the_parameter_list_lines_up() {
        check_specs(specs()).unwrap();
        assert_eq!(SCALAR_COUNT, SCALARS.len());
        assert_eq!(
            specs().len(),
            SCALARS.len() + PST_POINTS.len() + knobs::SPECS.len()
        );
        // Reachable points only: king 6, advisor 3, elephant 4, horse/rook/cannon 50, pawn 31.
        assert_eq!(PST_POINTS.len(), 6 + 3 + 4 + 150 + 31);
        assert_eq!(specs()[S::king as usize].bits, 0, "the king is never evolved");
        let names: Vec<&str> = specs().iter().map(|s| s.name).collect();
        assert!(names.contains(&"pst_horse_c2"));
        assert!(names.contains(&"pst_pawn_e9"));
        assert!(!names.contains(&"pst_pawn_b3"), "a pawn never stands on b3");
    }

    #[test]
    fn start_position_is_balanced_and_material_counts() {
        let w = Weights::default();
        let b = Board::startpos();
        assert_eq!(w.evaluate_red(&b), 0);
        assert_eq!(w.evaluate(&b), w.s(S::tempo));
        let no_rook =
            Board::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w").unwrap();
        assert!(w.evaluate_red(&no_rook) > 700, "{}", w.evaluate_red(&no_rook));
    }

    #[test]
    fn incremental_psq_matches_the_sum() {
        let w = Weights::default();
        let mut b = Board::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")
            .unwrap();
        for _ in 0..40 {
            let moves = b.legal_moves();
            let Some(&mv) = moves
                .iter()
                .find(|m| b.piece_at(m.to()).is_some())
                .or(moves.first())
            else {
                break;
            };
            let expected = w.psq_after(&b, mv, w.psq(&b));
            b.make(mv);
            assert_eq!(w.psq(&b), expected);
        }
    }

    #[test]
    fn the_hand_set_and_former_built_in_weights_stay_loadable() {
        // The paper's baseline and the tuners' start, and the two built-in sets before the
        // current one: they must follow any change to the specs.
        let load = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples")
                .join(name);
            Params::load(&path, GAME, specs(), &knobs::RETIRED).unwrap()
        };
        let hand = load("xiangqi-hand-set.json");
        assert_eq!(hand.get("rook"), Some(900));
        assert_eq!(load("xiangqi-old-built-in.json").get("rook"), Some(925));
        assert_eq!(load("xiangqi-spsa-built-in.json").get("rook"), Some(984));
        assert_ne!(hand.values(), default_params().values());
    }

    #[test]
    fn features_sum_to_the_evaluation() {
        let mut out = Vec::new();
        use crate::game::Game;
        let text = include_str!("../../positions/xiangqi-middlegames.epd");
        for (n, line) in text.lines().filter(|l| !l.starts_with('#')).take(200).enumerate() {
            let board = crate::xiangqi::game::XiangqiGame::parse_position(line).unwrap();
            let params = if n % 2 == 0 {
                default_params()
            } else {
                Params::random(
                    specs(),
                    &mut <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(n as u64),
                )
            };
            let w = Weights::new(&params);
            out.clear();
            features(&board, &mut out);
            let v = params.values();
            let sum: f64 = out.iter().map(|&(i, c)| v[i as usize] as f64 * c as f64).sum();
            let expected = w.evaluate_red(&board) + board.turn().sign() * w.s(S::tempo);
            // The taper and the shelter quarter round in the evaluation, not here.
            assert!(
                (sum - expected as f64).abs() <= 3.0,
                "{line}: {sum} against {expected}"
            );
        }
    }

    #[test]
    fn mating_force_reads_what_is_left_to_mate_with() {
        let force = |fen: &str, color| mating_force(&Board::from_fen(fen).unwrap(), color);
        use MatingForce::*;
        // Advisors, elephants and a pawn on the last rank cannot mate; nor can one advisor.
        let defenders_only = "3k3P1/4a4/9/9/9/9/9/9/9/2BAKAB2 w";
        assert_eq!(force(defenders_only, Color::Red), None);
        assert_eq!(force(defenders_only, Color::Black), None);
        // A lone horse against two defenders (an advisor and an elephant) counts as lone; a
        // pawn short of the last rank, or one defender fewer, makes it enough.
        assert_eq!(force("3k5/4a4/4b4/9/9/9/9/9/4N4/4K4 w", Color::Red), Lone);
        assert_eq!(force("3k5/4a4/4b4/9/4P4/9/9/9/4N4/4K4 w", Color::Red), Enough);
        assert_eq!(force("3k5/4a4/9/9/9/9/9/9/4N4/4K4 w", Color::Red), Enough);
        // A rook beats three defenders; all four often hold it.
        assert_eq!(force("2bakab2/9/9/9/9/9/9/9/9/3K1R3 w", Color::Red), Lone);
        assert_eq!(force("2bak4/4a4/9/9/9/9/9/9/9/3K1R3 w", Color::Red), Enough);
        // Black's pawns count from Black's side: one on rank 0 is spent, one on rank 1 is not.
        assert_eq!(force("3k5/9/9/9/9/9/9/9/9/4K1p2 w", Color::Black), None);
        assert_eq!(force("3k5/9/9/9/9/9/9/9/6p2/4K4 w", Color::Black), Enough);
    }

    #[test]
    fn the_attack_patterns_are_counted_where_they_stand() {
        // Red: a cannon behind a pawn and Black's horse beside its king (a pin), a cannon on
        // the king's rank with nothing between, a rook on a file without pawns, two crossed
        // pawns side by side, and a horse and a cannon attacking the palace.
        let b = Board::from_fen("C3k4/4n4/6N2/9/3PP4/9/9/4C4/9/1R3K3 w").unwrap();
        assert_eq!(
            pattern_counts(&b, Color::Red, 2, Bitboard::EMPTY),
            [0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0]
        );
        assert_eq!(
            pattern_counts(&b, Color::Black, 0, Bitboard::EMPTY),
            [0; PATTERNS.len()]
        );
        // The pawn gone, the cannon on the king's file has no screen; with a Black pawn on
        // its file, the rook's file is half open.
        let b = Board::from_fen("C3k4/9/6N2/9/3P5/1p7/9/4C4/9/1R3K3 w").unwrap();
        assert_eq!(
            pattern_counts(&b, Color::Red, 0, Bitboard::EMPTY),
            [1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
        );
        // With the enemy king at home between both advisors, a pin or a hollow cannon also
        // counts as held; an advisor off its point, or the king off its own, frees the file;
        // Black's cannon against Red's held king counts alike. Wings count where two or more
        // rooks, horses and cannons stand across the river on files a to d or f to i; the
        // centre file is neither, and a piece on its own side of the river is not across.
        let (red, black) = (Color::Red, Color::Black);
        for (fen, color, counts) in [
            (
                "3aka3/4n4/9/9/4P4/9/9/4C4/9/3K5 w",
                red,
                [0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0],
            ),
            (
                "3aka3/9/9/9/9/9/9/4C4/9/3K5 w",
                red,
                [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
            ),
            (
                "4ka3/9/3a5/9/9/9/9/4C4/9/3K5 w",
                red,
                [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
            (
                "3a1a3/4k4/9/9/9/9/9/4C4/9/3K5 w",
                red,
                [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
            (
                "4k4/9/9/9/9/9/9/4c4/9/3AKA3 w",
                black,
                [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
            ),
            (
                "4k4/9/1R7/2N6/6C2/9/9/9/9/3K5 w",
                red,
                [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1],
            ),
            (
                "4k4/9/1R5N1/2N6/6C2/9/9/9/9/3K5 w",
                red,
                [0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 2],
            ),
            (
                "4k4/9/1R7/4N4/6C2/9/9/9/6C2/3K5 w",
                red,
                [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
            ),
            (
                "4k4/9/9/9/9/9/1r7/2n6/9/3K5 w",
                black,
                [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1],
            ),
        ] {
            assert_eq!(
                pattern_counts(&Board::from_fen(fen).unwrap(), color, 0, Bitboard::EMPTY),
                counts,
                "{fen}"
            );
        }
        // What the evaluation adds is what the features say (the loop above counts `reach`).
        let with_patterns = |value: fn(usize) -> i64| {
            let mut params = default_params();
            for (i, &p) in PATTERNS.iter().enumerate() {
                params.set(specs()[p as usize].name, value(i)).unwrap();
            }
            Weights::new(&params)
        };
        let w = with_patterns(|i| 10 + i as i64);
        let base = with_patterns(|_| 0);
        let b = Board::from_fen("C3k4/4n4/6N2/9/3PP4/9/9/4C4/9/1R3K3 w").unwrap();
        // cannon_pins_horse 11 + bottom_cannon 12 + rook_open_file 13 + paired_pawns 15 +
        // palace_attackers 16 x one pair.
        assert_eq!(w.evaluate_red(&b) - base.evaluate_red(&b), 11 + 12 + 13 + 15 + 16);
        // A hollow cannon against a held king: hollow_cannon 10 + hollow_cannon_home 17.
        let b = Board::from_fen("3aka3/9/9/9/9/9/9/4C4/9/3K5 w").unwrap();
        assert_eq!(w.evaluate_red(&b) - base.evaluate_red(&b), 10 + 17);
    }

    #[test]
    fn safe_wings_leave_out_pieces_the_defence_takes_at_a_profit() {
        let safe_wings = |fen: &str| {
            let b = Board::from_fen(fen).unwrap();
            let w = Weights::default();
            let (_, attacked) = w.evaluate_with_attacks(&b, w.psq(&b));
            let steps = Color::ALL.map(|color| b.step_attacks(color));
            let counts = pattern_counts(&b, Color::Red, 0, exposed(Color::Red, &steps, &attacked));
            (counts[9], counts[10])
        };
        // A rook and a horse across the river on the left wing.
        assert_eq!(safe_wings("4k4/9/1R7/9/2N6/9/9/9/9/3K5 w"), (1, 1));
        // A pawn attacks the horse: it is lost for less than it is worth.
        assert_eq!(safe_wings("4k4/9/1R7/2p6/2N6/9/9/9/9/3K5 w"), (1, 0));
        // A rook attacks the horse, which nothing defends; then the rook beside it defends it.
        assert_eq!(safe_wings("2r1k4/9/1R7/9/2N6/9/9/9/9/3K5 w"), (1, 0));
        assert_eq!(safe_wings("2r1k4/9/9/9/1RN6/9/9/9/9/3K5 w"), (1, 1));
    }

    #[test]
    fn missing_advisors_weigh_the_pawns_inside() {
        // Black lacks one advisor; two Red pawns stand in Black's half, one on its back rank.
        let b = Board::from_fen("P3k4/4a4/9/4P4/9/9/9/9/9/3K5 w").unwrap();
        assert_eq!(pawns_inside(&b, Color::Black), 1);
        assert_eq!(pawns_inside(&b, Color::Red), 0);
        let mut params = default_params();
        params.set("bare_palace_pawn", -20).unwrap();
        let with = Weights::new(&params);
        assert_eq!(with.evaluate_red(&b) - Weights::default().evaluate_red(&b), 20);
    }

    #[test]
    fn threats_by_lesser_pieces_count_defended_pieces_too() {
        // What the enemy's horses and cannons attack comes from the evaluation; here by hand.
        let count = |fen: &str, color| {
            threats_by_lesser(&Board::from_fen(fen).unwrap(), color, {
                let b = Board::from_fen(fen).unwrap();
                let them = color.flip();
                let occ = b.occupancy();
                let mut m = Bitboard::EMPTY;
                for sq in b.pieces(them, Role::Horse) {
                    m |= attacks::horse_attacks(sq, occ);
                }
                for sq in b.pieces(them, Role::Cannon) {
                    m |= attacks::slider_attacks(sq, occ).1;
                }
                m
            })
        };
        // A Black horse on b7 attacks a Red rook on c5; a Black rook would not count.
        assert_eq!(count("4k4/9/1n7/9/2R6/9/9/9/9/3K5 w", Color::Red), 1);
        assert_eq!(count("4k4/9/1r7/9/2R6/9/9/9/9/3K5 w", Color::Red), 0);
        // A Black pawn across the river attacks a Red cannon beside it; a Red rook does not
        // count as a threat to a Black horse.
        assert_eq!(count("4k4/9/9/9/9/2pC5/9/9/9/3K5 w", Color::Red), 1);
        assert_eq!(count("4k4/9/9/9/9/2nR5/9/9/9/3K5 w", Color::Black), 0);
    }

    #[test]
    fn material_only_weights_are_pure_material() {
        let w = Weights::new(&material_only_params());
        let b = Board::from_fen("rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w").unwrap();
        // Black is a rook short: exactly the rook's value, with no tempo.
        assert_eq!(w.evaluate_red(&b), default_params().get("rook").unwrap());
        assert_eq!(w.evaluate(&Board::startpos()), 0);
    }
}
