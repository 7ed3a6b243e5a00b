//! The search's and the clock's settings (margins, reductions, the aspiration window, the
//! time budget), declared as tunable parameters beside the evaluation's: they stay at their
//! defaults unless a tuner names them (`all` in a run configuration means the evaluation).

use crate::params::Spec;

/// The knobs in the order [`Knobs::new`] reads them.
pub(super) const SPECS: [Spec; 47] = [
    Spec::search_knob("search_rfp_margin", 91, 20, 300, 7),
    Spec::search_knob("search_futility_margin", 79, 30, 400, 8),
    Spec::search_knob("search_lmp_base", 1, 0, 16, 5),
    Spec::search_knob("search_null_reduction", 1, 0, 5, 3),
    Spec::search_knob("search_aspiration_window", 40, 10, 200, 8),
    Spec::search_knob("search_probcut_margin", 150, 0, 400, 8),
    Spec::search_knob("search_correction_pieces", 0, 0, 64, 7),
    Spec::search_knob("search_lmr_tt_capture", 0, 0, 2, 2),
    Spec::search_knob("search_history_prune", 2000, 0, 8000, 13),
    Spec::search_knob("search_check_extension_safe", 0, 0, 1, 1),
    Spec::search_knob("search_razor_margin", 400, 0, 1000, 10),
    Spec::search_knob("search_lmr_bad_captures", 0, 0, 1, 1),
    Spec::search_knob("search_futility_lmr_depth", 3, 0, 10, 4),
    Spec::search_knob("search_fail_low_keeps_move", 1, 0, 1, 1),
    Spec::search_knob("search_lmr_checks", 0, 0, 1, 1),
    Spec::search_knob("search_lmr_divisor", 185, 100, 300, 8),
    Spec::search_knob("search_mate_threat_extension", 0, 0, 1, 1),
    Spec::search_knob("search_iir_depth", 6, 0, 15, 4),
    Spec::search_knob("search_null_min_depth", 4, 1, 6, 3),
    Spec::search_knob("search_exact_check_prune", 1, 0, 1, 1),
    Spec::search_knob("search_qs_checks", 0, 0, 1, 1),
    Spec::search_knob("search_check_extension_depth", 0, 0, 30, 5),
    Spec::search_knob("search_rfp_depth", 4, 1, 12, 4),
    Spec::search_knob("search_null_depth_divisor", 4, 2, 8, 3),
    Spec::search_knob("search_null_eval_divisor", 300, 0, 1000, 10),
    Spec::search_knob("search_improving", 0, 0, 1, 1),
    Spec::search_knob("search_lmp_depth", 5, 1, 12, 4),
    Spec::search_knob("search_qs_tt", 0, 0, 1, 1),
    Spec::search_knob("search_lmr_history", 8000, 0, 32000, 15),
    Spec::search_knob("search_lmr_cut_node", 0, 0, 3, 2),
    Spec::search_knob("search_lmp_square", 1, 1, 4, 2),
    Spec::search_knob("search_singular_depth", 0, 0, 20, 5),
    Spec::search_knob("search_qs_delta", 300, 0, 1000, 10),
    Spec::search_knob("search_single_reply", 0, 0, 1, 1),
    Spec::search_knob("search_tt_pv", 0, 0, 1, 1),
    Spec::search_knob("search_lmp_percent", 100, 20, 200, 8),
    Spec::search_knob("search_shuffle_damping", 0, 0, 1000, 10),
    Spec::search_knob("search_see_quiet_margin", 0, 0, 200, 8),
    Spec::search_knob("search_capture_history", 0, 0, 64, 7),
    Spec::search_knob("search_scale_no_mating", 0, 0, 64, 7),
    Spec::search_knob("search_scale_lone_attacker", 16, 0, 64, 7),
    Spec::search_knob("search_qs_last_move", 0, 0, 1, 1),
    Spec::search_knob("search_see_capture_margin", 0, 0, 800, 8),
    Spec::search_knob("search_lmp_checks", 0, 0, 1, 1),
    Spec::search_knob("time_moves_left", 32, 10, 60, 6),
    Spec::search_knob("time_hard_share", 5, 2, 10, 4),
    Spec::search_knob("time_stability", 0, 0, 90, 7),
];

/// A knob's meaning in one line, if `name` is a knob.
pub fn describe(name: &str) -> Option<&'static str> {
    Some(match name {
        "search_rfp_margin" => "search: reverse futility margin per ply of depth",
        "search_futility_margin" => {
            "search: futility margin per ply of depth for quiet moves (depth 3 and less)"
        }
        "search_lmp_base" => {
            "search: quiet moves searched before late-move pruning, plus search_lmp_square x depth^2 (all times search_lmp_percent / 100)"
        }
        "search_null_reduction" => "search: null-move reduction before its growth with depth and evaluation",
        "search_aspiration_window" => "search: half-width of the first aspiration window",
        "search_probcut_margin" => {
            "search: ProbCut's margin over beta for a capture's reduced search (depth 5 and more; 0: off)"
        }
        "search_correction_pieces" => {
            "search: weight (32nds) of the correction history by each side's placement of pieces other than pawns (0: off)"
        }
        "search_lmr_tt_capture" => {
            "search: plies more of late-move reduction for quiet moves where the hash move is a capture"
        }
        "search_history_prune" => {
            "search: quiet moves whose history is below -this x depth are pruned (depth 3 and less; 0: off)"
        }
        "search_check_extension_safe" => {
            "search: 1 extends only checks whose checking piece is protected or not attacked (0: every check)"
        }
        "search_razor_margin" => {
            "search: razoring margin per ply of depth: below alpha by it, a quiescence search that stays below decides (depth 3 and less; 0: off)"
        }
        "search_lmr_bad_captures" => "search: 1 reduces losing captures as late quiet moves are (0: never reduced)",
        "search_futility_lmr_depth" => {
            "search: futility also per quiet move by its reduced depth, where that is below this (0: off)"
        }
        "search_fail_low_keeps_move" => {
            "search: 1 stores no best move for a node where every move failed low, so the table keeps the one it had (0: the best-scoring move)"
        }
        "search_lmr_checks" => {
            "search: 1 reduces late quiet checks as other late quiet moves, a ply less (0: checks are never reduced)"
        }
        "search_lmr_divisor" => {
            "search: late-move reductions are 1 + ln(depth) ln(move number) / (this / 100) plies before adjustments"
        }
        "search_mate_threat_extension" => {
            "search: 1 extends a node a ply where the null move shows a mate threat against the side to move (0: off)"
        }
        "search_iir_depth" => {
            "search: off the PV, a node without a hash move is searched a ply shallower from this depth on (0: off)"
        }
        "search_null_min_depth" => "search: the shallowest depth at which the null move is tried",
        "search_exact_check_prune" => {
            "search: 1 spares from quiet-move pruning only the moves that give check (0: every move to or from a point near the enemy king)"
        }
        "search_qs_checks" => {
            "search: 1 searches quiet moves that give check at quiescence's first ply, after the captures (0: captures only)"
        }
        "search_check_extension_depth" => {
            "search: a node in check is extended a ply only at this depth or more (0: at every depth)"
        }
        "search_rfp_depth" => "search: the deepest node reverse futility pruning cuts",
        "search_null_depth_divisor" => {
            "search: the null move's reduction grows by a ply per this many plies of depth"
        }
        "search_null_eval_divisor" => {
            "search: the null move's reduction grows by a ply per this much of the evaluation over beta, up to 3 (0: off)"
        }
        "search_improving" => {
            "search: 1 weighs whether the static evaluation rose over two plies: a ply less of reverse futility margin if so, else half the late-move pruning count and a ply more of reduction (0: off)"
        }
        "search_lmp_depth" => "search: the deepest node late-move pruning prunes at",
        "search_qs_tt" => {
            "search: 1 has quiescence probe the transposition table (a cut-off at a null window, the move to try first) and store its results (0: off)"
        }
        "search_lmr_history" => {
            "search: late-move reductions fall (or grow) by a ply per this much history plus continuation history (0: a ply less when the history is positive)"
        }
        "search_lmr_cut_node" => {
            "search: plies more of late-move reduction at a node expected to fail high (a cut node)"
        }
        "search_lmp_square" => "search: late-move pruning's quiet moves per depth^2 (see search_lmp_base)",
        "search_singular_depth" => {
            "search: from this depth, a hash move that nothing else comes near in a half-depth search without it is searched a ply deeper (0: off)"
        }
        "search_qs_delta" => {
            "search: quiescence leaves out a capture that gives no check when standing pat plus the victim plus this stays at or below alpha (0: off)"
        }
        "search_single_reply" => {
            "search: 1 extends a check that leaves a single reply a ply more (0: off)"
        }
        "search_lmp_percent" => {
            "search: late-move pruning's quiet-move count in percent of search_lmp_base + search_lmp_square x depth^2"
        }
        "search_tt_pv" => {
            "search: 1 marks in the table the positions searched on the principal variation, and spares them reverse futility and a ply of late-move reduction (0: off)"
        }
        "search_shuffle_damping" => {
            "search: the static evaluation is scaled by (this - plies without capture) / this, toward a draw as the no-capture limit nears (0: off)"
        }
        "search_see_quiet_margin" => {
            "search: a quiet move that loses more than this x (its depth after reduction)^2 to an exchange on its point is not searched (0: off)"
        }
        "search_capture_history" => {
            "search: weight (16ths) of the capture history (capturer, point, victim) in ordering winning and even captures (0: off)"
        }
        "search_scale_no_mating" => {
            "search: 64ths of the static evaluation kept where the side it favours has no rook, horse, cannon or pawn short of the last rank (64: all)"
        }
        "search_scale_lone_attacker" => {
            "search: 64ths of the static evaluation kept where the side it favours has only a horse or a cannon against two defenders or more, or a rook against all four, and no pawn short of the last rank (64: all)"
        }
        "search_qs_last_move" => {
            "search: 1 has quiescence record the move that led to each of its nodes, by which it orders evasions (0: the main search's move last made at that ply)"
        }
        "search_see_capture_margin" => {
            "search: a losing capture that gives up more than this x depth in one exchange is pruned (0: off)"
        }
        "search_lmp_checks" => {
            "search: 1 lets late-move pruning's quiet-move count prune quiet checks too (0: checks are spared)"
        }
        "time_moves_left" => "clock: moves assumed left in sudden death (Et = increment + time left / this)",
        "time_hard_share" => {
            "clock: the hard cap never exceeds the usable time left / this, plus the increment"
        }
        "time_stability" => {
            "clock: percent more time after an iteration that changed the best move, up to half as much less once it has held 4 iterations; an obvious recapture's Et/4 then lasts (0: off)"
        }
        _ => return None,
    })
}

/// The knobs' values, compiled for the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knobs {
    pub rfp_margin: i32,
    pub futility_margin: i32,
    pub lmp_base: i32,
    pub null_reduction: i32,
    pub aspiration_window: i32,
    /// 0 turns ProbCut off.
    pub probcut_margin: i32,
    /// 0 leaves the correction history by piece placement out.
    pub correction_pieces: i32,
    /// Extra plies of reduction for late quiet moves where the hash move is a capture.
    pub lmr_tt_capture: i32,
    /// History pruning's threshold per ply of depth; 0 turns it off.
    pub history_prune: i32,
    /// 1: a check is extended only when its checking piece is not free to take.
    pub check_extension_safe: i32,
    /// Razoring's margin per ply of depth; 0 turns it off.
    pub razor_margin: i32,
    /// 1: losing captures are reduced as late quiet moves are.
    pub lmr_bad_captures: i32,
    /// Per-move futility by the reduced depth, where that is below this; 0 turns it off.
    pub futility_lmr_depth: i32,
    /// 1: a node where every move failed low leaves the table's move in place.
    pub fail_low_keeps_move: i32,
    /// 1: late quiet checks are reduced, a ply less than other late quiet moves.
    pub lmr_checks: i32,
    /// Late-move reductions' divisor, in hundredths.
    pub lmr_divisor: i32,
    /// 1: a node where passing gets the side to move mated is searched a ply deeper.
    pub mate_threat_extension: i32,
    /// Internal iterative reduction's shallowest depth; 0 turns it off.
    pub iir_depth: i32,
    /// The shallowest depth the null move is tried at.
    pub null_min_depth: i32,
    /// 1: pruning spares exactly the quiet moves that give check, not the check zone's.
    pub exact_check_prune: i32,
    /// 1: quiescence's first ply searches quiet checks too.
    pub qs_checks: i32,
    /// The shallowest depth whose in-check nodes are extended; 0: every depth.
    pub check_extension_depth: i32,
    /// Reverse futility pruning's deepest node.
    pub rfp_depth: i32,
    /// The null move's reduction grows by a ply per this many plies of depth.
    pub null_depth_divisor: i32,
    /// The null move's reduction grows by a ply per this much evaluation over beta; 0: off.
    pub null_eval_divisor: i32,
    /// 1: pruning and reductions weigh whether the static evaluation is improving.
    pub improving: i32,
    /// Late-move pruning's deepest node.
    pub lmp_depth: i32,
    /// 1: quiescence probes and stores the transposition table.
    pub qs_tt: i32,
    /// History (plus continuation history) per ply of less reduction; 0: a ply less for a
    /// positive history.
    pub lmr_history: i32,
    /// Extra plies of reduction for late moves of a cut node.
    pub lmr_cut_node: i32,
    /// Late-move pruning's count per depth squared.
    pub lmp_square: i32,
    /// The singular extension's shallowest depth; 0 turns it off.
    pub singular_depth: i32,
    /// Quiescence's delta-pruning margin; 0 turns it off.
    pub qs_delta: i32,
    /// 1: a check with a single reply is extended a ply more.
    pub single_reply: i32,
    /// 1: the table marks positions searched on the principal variation; such nodes are
    /// spared reverse futility and their late moves are reduced a ply less.
    pub tt_pv: i32,
    /// Late-move pruning's count in percent of lmp_base + lmp_square x depth^2.
    pub lmp_percent: i32,
    /// The static evaluation is scaled by (this - plies without capture) / this; 0: off.
    pub shuffle_damping: i32,
    /// A quiet move that gives up more than this x its reduced depth squared is pruned; 0: off.
    pub see_quiet_margin: i32,
    /// The capture history's weight in sixteenths in ordering captures; 0: off.
    pub capture_history: i32,
    /// 64ths of the evaluation kept for a side that cannot mate; 64: all.
    pub scale_no_mating: i32,
    /// 64ths of the evaluation kept for a side with a single piece against the defenders
    /// that often hold it; 64: all.
    pub scale_lone_attacker: i32,
    /// 1: quiescence records the move that led to each of its nodes (the continuation
    /// history of its evasions reads it); 0: the frame keeps the main search's.
    pub qs_last_move: i32,
    /// A losing capture that gives up more than this x depth in one exchange is pruned
    /// (Stockfish's SEE pruning of captures); 0: off.
    pub see_capture_margin: i32,
    /// 1: late-move pruning's count prunes quiet checks too.
    pub lmp_checks: i32,
    pub time: TimeKnobs,
}

/// The clock's knobs (see [`super::time::TimeManager`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeKnobs {
    pub moves_left: u32,
    pub hard_share: u32,
    /// The best move's stability's weight on the target, in percent; 0 leaves it out.
    pub stability: u32,
}

impl Knobs {
    /// Reads the knobs' values, in [`SPECS`] order (already checked against their ranges).
    pub fn new(values: &[i32]) -> Knobs {
        assert_eq!(values.len(), SPECS.len(), "one value per knob");
        let positive = |v: i32| v.max(1) as u32;
        Knobs {
            rfp_margin: values[0],
            futility_margin: values[1],
            lmp_base: values[2],
            null_reduction: values[3],
            aspiration_window: values[4],
            probcut_margin: values[5],
            correction_pieces: values[6],
            lmr_tt_capture: values[7],
            history_prune: values[8],
            check_extension_safe: values[9],
            razor_margin: values[10],
            lmr_bad_captures: values[11],
            futility_lmr_depth: values[12],
            fail_low_keeps_move: values[13],
            lmr_checks: values[14],
            lmr_divisor: values[15],
            mate_threat_extension: values[16],
            iir_depth: values[17],
            null_min_depth: values[18],
            exact_check_prune: values[19],
            qs_checks: values[20],
            check_extension_depth: values[21],
            rfp_depth: values[22],
            null_depth_divisor: values[23].max(1),
            null_eval_divisor: values[24],
            improving: values[25],
            lmp_depth: values[26],
            qs_tt: values[27],
            lmr_history: values[28],
            lmr_cut_node: values[29],
            lmp_square: values[30],
            singular_depth: values[31],
            qs_delta: values[32],
            single_reply: values[33],
            tt_pv: values[34],
            lmp_percent: values[35],
            shuffle_damping: values[36],
            see_quiet_margin: values[37],
            capture_history: values[38],
            scale_no_mating: values[39],
            scale_lone_attacker: values[40],
            qs_last_move: values[41],
            see_capture_margin: values[42],
            lmp_checks: values[43],
            time: TimeKnobs {
                moves_left: positive(values[44]),
                hard_share: positive(values[45]),
                stability: values[46].max(0) as u32,
            },
        }
    }
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs::new(&SPECS.map(|s| s.default))
    }
}

impl Default for TimeKnobs {
    fn default() -> TimeKnobs {
        Knobs::default().time
    }
}
