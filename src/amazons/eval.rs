//! The parameterised Amazons evaluation (seed 004).
//!
//! From each side's amazons, queen-move distances D1 and king-move distances D2 to every
//! empty point (bitboard flood fills). Then, summed over the empty points:
//! - t1, t2: +1 where White is nearer (by D1, resp. D2), -1 where Black is, a tie value k
//!   for the side to move where both are equally near;
//! - c1 = 2 * sum(2^-D1w - 2^-D1b), c2 = sum(clamp((D2b - D2w) / 6, -1, 1));
//! - w, the game's progress, = sum over points both reach of 2^-|D1w - D1b| (small late);
//! - m, mobility: per amazon, the empty points one queen move away, each weighted by its
//!   free neighbours over its king distance, White's minus Black's.
//!
//! The weights that combine them depend on the phase (moves played). The widely used table for
//! turns 1-15, 16-35 and 36 on was the hand-set default (`examples/amazons-hand-set.json`);
//! the built-in weights are what `configs/amazons-spsa.json` made of it (docs/amazons.md). All
//! weights are tunable parameters.

use super::board::{king_spread, queen_fill, queen_reach, Board, Side, BOARD};
use super::knobs::{self, Knobs};
use crate::params::{Params, Spec, Specs, WeightFileError};

/// The game name in weight files.
pub const GAME: &str = "amazons";

/// Every tunable Amazons parameter. Weights are in hundredths and may be negative (a random
/// weight set is then a random direction, not a reshuffle of good ones); the tie value k in
/// hundredths of a point; the UCT constant in hundredths. The `search_*` knobs keep their
/// defaults unless a configuration names them.
const WEIGHTS: [Spec; 19] = [
    Spec::weight("opening_t1", 25, -100, 100, 8),
    Spec::weight("opening_t2", 18, -100, 100, 8),
    Spec::weight("opening_c1", 25, -100, 100, 8),
    Spec::weight("opening_c2", 88, -100, 100, 8),
    Spec::weight("opening_m", -8, -100, 100, 8),
    Spec::weight("middle_t1", 22, -100, 100, 8),
    Spec::weight("middle_t2", 42, -100, 100, 8),
    Spec::weight("middle_c1", 11, -100, 100, 8),
    Spec::weight("middle_c2", 41, -100, 100, 8),
    Spec::weight("middle_m", 14, -100, 100, 8),
    Spec::weight("end_t1", 82, -100, 100, 8),
    Spec::weight("end_t2", 31, -100, 100, 8),
    Spec::weight("end_c1", -5, -100, 100, 8),
    Spec::weight("end_c2", 9, -100, 100, 8),
    Spec::weight("end_m", 25, -100, 100, 8),
    Spec::weight("tie", 18, 0, 50, 6),
    Spec::weight("opening_until", 14, 5, 40, 6),
    Spec::weight("middle_until", 36, 10, 80, 7),
    Spec::weight("uct_c", 6, 5, 200, 8),
];

/// The evaluation's weights followed by the search's knobs.
static SPECS: std::sync::LazyLock<Specs> =
    std::sync::LazyLock::new(|| WEIGHTS.iter().chain(&knobs::SPECS).cloned().collect());

/// Every tunable parameter of the Amazons evaluation and search.
pub fn specs() -> Specs {
    SPECS.clone()
}

/// A parameter's meaning in one line.
pub fn describe(name: &str) -> String {
    let term = |t: &str| match t {
        "t1" => "queen-move territory (points one side reaches first)",
        "t2" => "king-move territory",
        "c1" => "the c1 term: queen-distance advantage over contested points",
        "c2" => "the c2 term: king-distance advantage over contested points",
        "m" => "per-amazon mobility",
        _ => "?",
    };
    match name.split_once('_') {
        Some((phase @ ("opening" | "middle" | "end"), t)) if t != "until" => {
            format!("weight (hundredths) of {} in the {phase} phase", term(t))
        }
        _ => match name {
            "tie" => "territory credit (hundredths of a point) for a point both reach at the same distance, to the side to move".into(),
            "opening_until" => "moves played before the opening phase ends".into(),
            "middle_until" => "moves played before the middle phase ends".into(),
            "uct_c" => "UCB1 exploration constant (hundredths)".into(),
            other => knobs::describe(other).unwrap_or(other).to_string(),
        },
    }
}

/// The hand-set parameters.
pub fn default_params() -> Params {
    Params::defaults(&specs())
}

/// Compiled weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// [phase][t1, t2, c1, c2, m], as fractions.
    terms: [[f64; 5]; 3],
    tie: f64,
    opening_until: u32,
    middle_until: u32,
    /// UCB1's exploration constant.
    pub uct_c: f64,
    /// The search's settings.
    pub knobs: Knobs,
}

impl Weights {
    /// Compiles a parameter set of this game (another game's set is refused).
    pub fn new(params: &Params) -> Result<Weights, WeightFileError> {
        params.values_of(&specs()).map(Weights::compile)
    }

    /// Compiles the values of this game's spec list, in its order.
    fn compile(ints: &[i32]) -> Weights {
        let v: Vec<f64> = ints.iter().map(|&x| x as f64 / 100.0).collect();
        let mut terms = [[0.0; 5]; 3];
        for (p, row) in terms.iter_mut().enumerate() {
            row.copy_from_slice(&v[p * 5..p * 5 + 5]);
        }
        Weights {
            terms,
            tie: v[15],
            opening_until: ints[16] as u32,
            middle_until: (ints[17] as u32).max(ints[16] as u32),
            uct_c: v[18],
            knobs: Knobs::from_values(&ints[WEIGHTS.len()..]),
        }
    }

    /// The evaluation for the side to move, in points of territory (positive is good),
    /// at `moves_played` plies into the game.
    pub fn evaluate(&self, board: &Board, moves_played: u32) -> f64 {
        let f = Features::of(board);
        let turn = (moves_played / 2) + 1;
        let phase = if turn <= self.opening_until {
            0
        } else if turn <= self.middle_until {
            1
        } else {
            2
        };
        let w = &self.terms[phase];
        // t1 and t2 count ties for the side to move.
        let tie = if board.turn() == Side::White {
            self.tie
        } else {
            -self.tie
        };
        let t1 = f.t1 + tie * f.ties1;
        let t2 = f.t2 + tie * f.ties2;
        let white = w[0] * t1 + w[1] * t2 + w[2] * f.c1 + w[3] * f.c2 + w[4] * f.m;
        if board.turn() == Side::White {
            white
        } else {
            -white
        }
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights::compile(default_params().values())
    }
}

/// The evaluation's terms, from White's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Features {
    pub t1: f64,
    pub ties1: f64,
    pub t2: f64,
    pub ties2: f64,
    pub c1: f64,
    pub c2: f64,
    pub w: f64,
    pub m: f64,
}

const UNREACHED: u8 = u8::MAX;
/// Distance of every empty point from `sources` (by queen moves if `queen`, else king steps).
fn distances(sources: u128, occupied: u128, queen: bool) -> [u8; 100] {
    let mut dist = [UNREACHED; 100];
    let empty = !occupied & BOARD;
    let mut seen = sources;
    let mut frontier = sources;
    let mut d = 0u8;
    while frontier != 0 {
        d += 1;
        let mut next = if queen {
            queen_fill(frontier, empty)
        } else {
            king_spread(frontier)
        };
        next &= empty & !seen;
        seen |= next;
        let mut n = next;
        while n != 0 {
            let s = n.trailing_zeros() as usize;
            n &= n - 1;
            dist[s] = d;
        }
        frontier = next;
    }
    dist
}

impl Features {
    /// Computes every term of a position.
    pub fn of(board: &Board) -> Features {
        let occupied = board.occupied();
        let (white, black) = (board.amazons(Side::White), board.amazons(Side::Black));
        let q = [distances(white, occupied, true), distances(black, occupied, true)];
        let k = [
            distances(white, occupied, false),
            distances(black, occupied, false),
        ];
        let mut f = Features::default();
        let mut empty = !occupied & BOARD;
        while empty != 0 {
            let s = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            let (qw, qb, kw, kb) = (q[0][s], q[1][s], k[0][s], k[1][s]);
            territory(qw, qb, &mut f.t1, &mut f.ties1);
            territory(kw, kb, &mut f.t2, &mut f.ties2);
            f.c1 += pow2(qw) - pow2(qb);
            if kw != UNREACHED || kb != UNREACHED {
                f.c2 += ((kb as f64 - kw as f64) / 6.0).clamp(-1.0, 1.0);
            }
            if qw != UNREACHED && qb != UNREACHED {
                f.w += pow2(qw.abs_diff(qb));
            }
        }
        f.c1 *= 2.0;
        f.m = mobility(white, occupied, &k[0]) - mobility(black, occupied, &k[1]);
        f
    }
}

fn territory(a: u8, b: u8, score: &mut f64, ties: &mut f64) {
    if a < b {
        *score += 1.0;
    } else if b < a {
        *score -= 1.0;
    } else if a != UNREACHED {
        *ties += 1.0;
    }
}

/// 2^-d, and 0 for an unreached point.
fn pow2(d: u8) -> f64 {
    const TABLE: [f64; 16] = {
        let mut t = [0.0; 16];
        let mut i = 0;
        let mut v = 1.0;
        while i < 16 {
            t[i] = v;
            v /= 2.0;
            i += 1;
        }
        t
    };
    if d == UNREACHED {
        0.0
    } else {
        TABLE.get(d as usize).copied().unwrap_or(0.0)
    }
}

/// Each amazon's points one queen move away, weighted by their free neighbours over their king
/// distance; an amazon with few such points counts for little, which is the danger of being
/// walled in.
fn mobility(amazons: u128, occupied: u128, king_dist: &[u8; 100]) -> f64 {
    let empty = !occupied & BOARD;
    let mut total = 0.0;
    let mut a = amazons;
    while a != 0 {
        let s = a.trailing_zeros() as usize;
        a &= a - 1;
        let mut reach = queen_reach(s, occupied);
        while reach != 0 {
            let t = reach.trailing_zeros() as usize;
            reach &= reach - 1;
            let free = (king_spread(1u128 << t) & empty).count_ones() as f64;
            total += free / king_dist[t].max(1) as f64;
        }
    }
    total / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::check_specs;

    #[test]
    fn the_parameter_list_lines_up() {
        check_specs(&specs()).unwrap();
        let mut p = default_params();
        for (i, s) in specs().iter().enumerate().take(15) {
            p.set(&s.name, 1 + i as i64).unwrap();
        }
        p.set("opening_until", 9).unwrap();
        p.set("middle_until", 30).unwrap();
        let w = Weights::new(&p).unwrap();
        assert_eq!(w.terms[0], [0.01, 0.02, 0.03, 0.04, 0.05]);
        assert_eq!(w.terms[2], [0.11, 0.12, 0.13, 0.14, 0.15]);
        assert_eq!((w.opening_until, w.middle_until), (9, 30));
    }

    #[test]
    fn the_example_weight_files_stay_loadable() {
        // The hand-set start of the tuning run and the searches docs/amazons.md compares UCT with.
        let load = |name: &str| {
            let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
            Weights::new(&Params::load(std::path::Path::new(&path), GAME, &specs(), &[]).unwrap()).unwrap()
        };
        assert_eq!(load("amazons-hand-set.json").terms[2][0], 0.80);
        assert!(load("amazons-alphabeta.json").knobs.alphabeta);
        let seed = load("amazons-uct-seed.json").knobs;
        assert!(!seed.root_by_eval && seed.playout_plies == 8);
        let built_in = Weights::default().knobs;
        assert!(built_in.root_by_eval && built_in.playout_plies == 0);
    }

    #[test]
    fn the_start_is_level_and_colour_flip_negates() {
        let b = Board::startpos();
        let f = Features::of(&b);
        for term in [f.t1, f.t2, f.c1, f.c2, f.m] {
            assert!(term.abs() < 1e-9, "{f:?}");
        }
        let w = Weights::default();
        let mut b = Board::startpos();
        for (i, mv) in b.clone().legal_moves().into_iter().step_by(331).enumerate() {
            b.play(mv);
            let flipped = b.color_flipped();
            assert!((w.evaluate(&b, 1 + i as u32) - w.evaluate(&flipped, 1 + i as u32)).abs() < 1e-9);
            let (f, g) = (Features::of(&b), Features::of(&flipped));
            assert!((f.t1 + g.t1).abs() < 1e-9 && (f.m + g.m).abs() < 1e-9 && (f.c1 + g.c1).abs() < 1e-9);
            b = Board::startpos();
        }
    }

    #[test]
    fn distances_and_king_steps() {
        assert_eq!(
            king_spread(1),
            0b10 | 1 << 10 | 1 << 11,
            "a1's neighbours: b1, a2, b2"
        );
        assert_eq!(
            king_spread(1 << 9).count_ones(),
            3,
            "j1 has three neighbours, none across the edge"
        );
        let start = Board::startpos();
        let q = distances(start.amazons(Side::White), start.occupied(), true);
        assert_eq!(q[5], 1, "f1 is one queen move from g1");
        let k = distances(start.amazons(Side::White), start.occupied(), false);
        assert_eq!(k[0], 3, "a1 is three king steps from a4");
    }
}
