//! The search's and the clock's settings (margins, reductions, the aspiration window, the
//! time budget), declared as tunable parameters beside the evaluation's: they stay at their
//! defaults unless a tuner names them (`all` in a run configuration means the evaluation).
//!
//! Each knob is declared once, in the [`knobs!`](crate::params::knobs) list below: its name in weight files and
//! engine options, its field and type, its default, range, bits and meaning. The spec list,
//! the descriptions and the [`Knobs`] struct are made from that list. A switch is a `bool`
//! (0 or 1 in weight files).
//!
//! Knobs whose SPRT did not keep them are removed with their code; weight files written
//! before that still load when they give such a knob the value whose behaviour stayed
//! ([`RETIRED`]). What each was and how it lost is in `docs/engine.md`.

use crate::params::{knobs, Retired};

knobs! {
    rfp_margin: i32 = 90, 20..=300, 7, "search_rfp_margin",
        "search: reverse futility margin per ply of depth";
    futility_margin: i32 = 58, 30..=400, 8, "search_futility_margin",
        "search: futility margin per ply of depth for quiet moves (depth 3 and less)";
    lmp_base: i32 = 1, 0..=16, 5, "search_lmp_base",
        "search: quiet moves searched before late-move pruning, plus search_lmp_square x depth^2 (all times search_lmp_percent / 100)";
    null_reduction: i32 = 1, 0..=5, 3, "search_null_reduction",
        "search: null-move reduction before its growth with depth and evaluation";
    aspiration_window: i32 = 24, 10..=200, 8, "search_aspiration_window",
        "search: half-width of the first aspiration window";
    probcut_margin: i32 = 159, 0..=400, 8, "search_probcut_margin",
        "search: ProbCut's margin over beta for a capture's reduced search (depth 5 and more; 0: off)";
    history_prune: i32 = 2288, 0..=8000, 13, "search_history_prune",
        "search: quiet moves whose history is below -this x depth are pruned (depth 3 and less; 0: off)";
    razor_margin: i32 = 452, 0..=1000, 10, "search_razor_margin",
        "search: razoring margin per ply of depth: below alpha by it, a quiescence search that stays below decides (depth 3 and less; 0: off)";
    futility_lmr_depth: i32 = 3, 0..=10, 4, "search_futility_lmr_depth",
        "search: futility also per quiet move by its reduced depth, where that is below this (0: off)";
    fail_low_keeps_move: bool = 1, 0..=1, 1, "search_fail_low_keeps_move",
        "search: 1 stores no best move for a node where every move failed low, so the table keeps the one it had (0: the best-scoring move)";
    lmr_divisor: i32 = 171, 100..=300, 8, "search_lmr_divisor",
        "search: late-move reductions are 1 + ln(depth) ln(move number) / (this / 100) plies before adjustments";
    iir_depth: i32 = 5, 0..=15, 4, "search_iir_depth",
        "search: off the PV, a node without a hash move is searched a ply shallower from this depth on (0: off)";
    null_min_depth: i32 = 6, 1..=6, 3, "search_null_min_depth",
        "search: the shallowest depth at which the null move is tried";
    exact_check_prune: bool = 1, 0..=1, 1, "search_exact_check_prune",
        "search: 1 spares from quiet-move pruning only the moves that give check (0: every move to or from a point near the enemy king)";
    rfp_depth: i32 = 3, 1..=12, 4, "search_rfp_depth",
        "search: the deepest node reverse futility pruning cuts";
    null_depth_divisor: i32 = 3, 2..=8, 3, "search_null_depth_divisor",
        "search: the null move's reduction grows by a ply per this many plies of depth";
    null_eval_divisor: i32 = 321, 0..=1000, 10, "search_null_eval_divisor",
        "search: the null move's reduction grows by a ply per this much of the evaluation over beta, up to 3 (0: off)";
    lmp_depth: i32 = 6, 1..=12, 4, "search_lmp_depth",
        "search: the deepest node late-move pruning prunes at";
    lmr_history: i32 = 7552, 0..=32000, 15, "search_lmr_history",
        "search: late-move reductions fall (or grow) by a ply per this much history plus continuation history (0: a ply less when the history is positive)";
    lmp_square: i32 = 1, 1..=4, 2, "search_lmp_square",
        "search: late-move pruning's quiet moves per depth^2 (see search_lmp_base)";
    qs_delta: i32 = 218, 0..=1000, 10, "search_qs_delta",
        "search: quiescence leaves out a capture that gives no check when standing pat plus the victim plus this stays at or below alpha (0: off)";
    lmp_percent: i32 = 91, 20..=200, 8, "search_lmp_percent",
        "search: late-move pruning's quiet-move count in percent of search_lmp_base + search_lmp_square x depth^2";
    scale_no_mating: i32 = 0, 0..=64, 7, "search_scale_no_mating",
        "search: 64ths of the static evaluation kept where the side it favours has no rook, horse, cannon or pawn short of the last rank (64: all)";
    scale_lone_attacker: i32 = 16, 0..=64, 7, "search_scale_lone_attacker",
        "search: 64ths of the static evaluation kept where the side it favours has only a horse or a cannon against two defenders or more, or a rook against all four, and no pawn short of the last rank (64: all)";
    tt_feedback: bool = 1, 0..=1, 1, "search_tt_feedback",
        "search: 1 lets the table's score stand in for the static evaluation where its bound says it is nearer the truth, and gives a quiet hash move that settles a node from the table the history a searched one would earn";
    tt_keep_deeper: i32 = 0, 0..=16, 5, "search_tt_keep_deeper",
        "search: a bound from a search this many plies or more shallower than the table's entry of this search for the same position keeps that entry, its move aside (Stockfish's rule at 4; 0: off, every store replaces)";
    fail_high_shallower: bool = 1, 0..=1, 1, "search_fail_high_shallower",
        "search: 1 searches the root a ply shallower for each fail high of the aspiration window in a row, never below 1 ply (Stockfish's and Pikafish-HCE's rule; 0: every re-search at the iteration's depth)";
    correction_pieces: i32 = 0, 0..=64, 7, "search_correction_pieces",
        "search: the correction history's tables by where each side's pieces other than pawns stand (a table a side, Stockfish's non-pawn correction), weighed in 32nds of a pawn-structure or material entry (0: off)";
    capture_futility: i32 = 0, 0..=600, 10, "search_capture_futility",
        "search: off the PV and out of check, a capture that gives no check is left out (after the first move, to depth 6) when the static evaluation plus its victim plus this x (depth + 1) stays at or below alpha (Pikafish-HCE's capture futility; 0: off)";
    futility_history: i32 = 0, 0..=256, 9, "search_futility_history",
        "search: per-move futility's margin grows (or shrinks) by the quiet move's history plus continuation history / this, so a move that often cut off is pruned later (Pikafish-HCE's history / 60; 0: off)";
    moves_left: u32 = 32, 10..=60, 6, "time_moves_left",
        "clock: moves assumed left in sudden death (Et = increment + time left / this)";
    hard_share: u32 = 5, 2..=10, 4, "time_hard_share",
        "clock: the hard cap never exceeds the usable time left / this, plus the increment";
}

/// The knobs removed with their code, each with the value whose behaviour the search kept.
pub(super) const RETIRED: &[Retired] = &[
    Retired::new("search_cont_ply2", 0),
    Retired::new("search_research_history", 0),
    Retired::new("search_eval_history", 0),
    Retired::new("search_history_from_to", 0),
    Retired::new("search_check_extension_safe", 0),
    Retired::new("search_prior_bonus", 0),
    Retired::new("search_lmr_pv", 0),
    Retired::new("search_lmr_extend", 0),
    Retired::new("search_lmr_checks", 0),
    Retired::new("search_order_threats", 0),
    Retired::new("search_lmr_cutoffs", 0),
    Retired::new("search_lmr_captures", 0),
    Retired::new("search_lmr_after", 2),
    Retired::new("search_pv_alpha_reduce", 0),
    Retired::new("search_pv_iir", 0),
    Retired::new("search_lmr_cut", 0),
    Retired::new("search_lmr_deeper", 0),
    Retired::new("search_lmr_tt_capture", 0),
    Retired::new("search_lmr_bad_captures", 0),
    Retired::new("search_mate_threat_extension", 0),
    Retired::new("search_qs_checks", 0),
    Retired::new("search_check_extension_depth", 0),
    Retired::new("search_improving", 0),
    Retired::new("search_qs_tt", 0),
    Retired::new("search_lmr_cut_node", 0),
    Retired::new("search_singular_depth", 0),
    Retired::new("search_single_reply", 0),
    Retired::new("search_tt_pv", 0),
    Retired::new("search_shuffle_damping", 0),
    Retired::new("search_see_quiet_margin", 0),
    Retired::new("search_capture_history", 0),
    Retired::new("search_see_capture_margin", 0),
    Retired::new("search_lmp_checks", 0),
    Retired::new("time_stability", 0),
    // Every file written while the defect was the default says 0.
    Retired::fixed("search_qs_last_move", 0, 1),
];

/// The clock's knobs (see [`super::time::TimeManager`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeKnobs {
    pub moves_left: u32,
    pub hard_share: u32,
}

impl Knobs {
    /// The clock's part.
    pub fn time(&self) -> TimeKnobs {
        TimeKnobs {
            moves_left: self.moves_left,
            hard_share: self.hard_share,
        }
    }
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs::from_values(&[])
    }
}

impl Default for TimeKnobs {
    fn default() -> TimeKnobs {
        Knobs::default().time()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_is_described_and_read_from_its_own_place() {
        for (i, spec) in SPECS.iter().enumerate() {
            assert!(describe(&spec.name).is_some(), "{}", spec.name);
            // Each knob at its maximum, the others at their defaults, changes only its field.
            let mut values: Vec<i32> = SPECS.iter().map(|s| s.default).collect();
            if spec.max == spec.default {
                values[i] = spec.min;
            } else {
                values[i] = spec.max;
            }
            assert_ne!(Knobs::from_values(&values), Knobs::default(), "{}", spec.name);
        }
        assert!(describe("search_tt_pv").is_none(), "retired knobs are not knobs");
        for r in RETIRED {
            assert!(
                !SPECS.iter().any(|s| s.name == r.name),
                "{} is retired and declared",
                r.name
            );
        }
    }
}
