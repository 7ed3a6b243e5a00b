//! The parameterised evaluation.
//!
//! Terms (seeds 002 and 003): material per piece type (the king fixed), piece-square values
//! (mirror-symmetric across the central file, declared only for points the piece can
//! reach), mobility of horses, rooks and cannons, threats and protection, king safety and
//! coordination, endgame adjustments tapered by the phase, attack patterns (hollow and
//! bottom cannons, open files, attackers of the palace; while all are zero they cost
//! nothing), enemy pawns inside a palace short of advisors (-20 since it won its SPRT), and,
//! zero by default for the tuners and the SPRT queue to set: mobility onto points a cheap
//! enemy piece guards, pieces a cheaper enemy piece attacks, massed wings counted only
//! with pieces the defence cannot take at a profit, and, evolved only where a configuration
//! names them, the material imbalance (what each piece is worth beside the side's others
//! and against the enemy's, by their numbers), the number of crossed pawns and an endgame
//! value for each piece-square point (tapered in as the material thins). Every weight is
//! one entry of [`specs`]; [`Weights`] compiles a [`Params`] into flat tables for the hot
//! path.
//!
//! The defaults were set by hand (`examples/xiangqi-hand-set.json`), then by the GA with
//! mirrored twins over every weight (`configs/xiangqi-ga-twins-all.json`, 144,000 games at
//! 1,000 nodes a move; `experiments/weights/xiangqi-twins-built-in.json`), and are now that set with its
//! scalar weights retuned by SPSA at 10,000 nodes a move (`experiments/configs/xiangqi-eval-spsa.json`;
//! written here by `scripts/set-built-in-weights.py`): +66.3 Elo over the twins' set in an
//! SPRT at a real clock.

mod params;
mod terms;
#[cfg(test)]
mod tests;

pub use params::{default_params, describe, material_only_params, pst_squares, specs};
pub use terms::features;

use super::bitboard::Bitboard;
use super::board::Board;
use super::knobs::Knobs;
use super::moves::Move;
use super::types::{Color, File, Rank, Role, Square};
use crate::params::{Params, WeightFileError};
use params::{endgame_first, CROSSED_PAWNS, IMBALANCE_COUNT, IMBALANCE_FIRST, PST_POINTS, S};
use terms::{crossed_pawns, imbalance, walk_terms, ScoreTerms, PATTERNS};

/// The game name in weight files.
pub const GAME: &str = "xiangqi";

/// Scores are in centipawn-like units; mates are far above any evaluation.
pub type Score = i32;

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
    /// Whether any material imbalance term has a weight: at zero it is not counted.
    imbalance: bool,
    /// Whether any of [`CROSSED_PAWNS`] has a weight: at zero they are not counted.
    crossed: bool,
    knobs: Knobs,
}

const SCALAR_COUNT: usize = S::tempo as usize + 1;

impl Weights {
    /// Compiles a parameter set of this game (another game's set is refused).
    pub fn new(params: &Params) -> Result<Weights, WeightFileError> {
        params.values_of(&specs()).map(Weights::compile)
    }

    /// Compiles the values of this game's spec list, in its order.
    fn compile(v: &[i32]) -> Weights {
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
        let endgame = &v[endgame_first()..];
        for (i, &(role, file, rank)) in PST_POINTS.iter().enumerate() {
            let pst = v[SCALAR_COUNT + i];
            let red_sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
            let crossed = role == Role::Pawn && rank >= 5;
            let base_mg = material(role) + pst;
            let base_eg = base_mg
                + endgame[i]
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
        let imbalance = scalar[IMBALANCE_FIRST..IMBALANCE_FIRST + IMBALANCE_COUNT]
            .iter()
            .any(|&w| w != 0);
        let crossed = CROSSED_PAWNS.iter().any(|&p| scalar[p as usize] != 0);
        Weights {
            mg,
            eg,
            scalar,
            patterns,
            imbalance,
            crossed,
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

    /// The part of [`Weights::evaluate_with`] known without looking at attacks: material,
    /// its imbalance and piece-square values tapered by phase, plus the tempo, for the side
    /// to move.
    #[inline]
    pub fn material_estimate(&self, board: &Board, psq: Psq) -> Score {
        board.turn().sign() * self.material_red(board, psq) + self.s(S::tempo)
    }

    /// Material, its imbalance, the crossed pawns' count and piece-square values tapered by
    /// phase, from Red's point of view: the evaluation's part that needs no attacks.
    #[inline]
    fn material_red(&self, board: &Board, psq: Psq) -> Score {
        let phase = phase(board);
        let mut terms = ScoreTerms {
            weights: self,
            total: (psq.mg * phase + psq.eg * (PHASE_MAX - phase)) / PHASE_MAX,
        };
        if self.imbalance {
            imbalance(board, &mut terms);
        }
        if self.crossed {
            crossed_pawns(board, &mut terms);
        }
        terms.total
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
        (terms.total + self.material_red(board, psq), attacked)
    }
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
        Weights::compile(default_params().values())
    }
}

/// The weights of the player `material`: the pieces' values and nothing else.
pub fn material_only() -> Weights {
    Weights::compile(material_only_params().values())
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
