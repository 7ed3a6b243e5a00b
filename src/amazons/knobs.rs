//! The Amazons search's settings, declared as tunable parameters after the evaluation's:
//! they keep their defaults unless a configuration names them. Each is declared once in the
//! list below (see [`knobs!`](crate::params::knobs)); switches are `bool`.

use crate::params::knobs;

knobs! {
    alphabeta: bool = 0, 0..=1, 1, "search_alphabeta",
        "search: 1 plays alpha-beta (iterative deepening over the ordered candidates) instead of UCT";
    playout_plies: u32 = 0, 0..=20, 5, "search_playout_plies",
        "search: random plies of a UCT playout before the evaluation scores it";
    playout_scale: u32 = 30, 0..=200, 8, "search_playout_scale",
        "search: a playout scores sigmoid(evaluation / this), in tenths of a point; 0 scores only its sign";
    expand_after: u32 = 40, 1..=200, 8, "search_expand_after",
        "search: visits before a UCT node (other than the root) grows children";
    widen_every: u32 = 10, 1..=100, 7, "search_widen_every",
        "search: a UCT node allows one more child every this many visits (progressive widening)";
    root_by_eval: bool = 1, 0..=1, 1, "search_root_by_eval",
        "search: 1 orders UCT's root moves by the evaluation after them (the best 400 of all legal moves), 0 by the cheap ordering as below the root";
    final_by_mean: bool = 0, 0..=1, 1, "search_final_by_mean",
        "search: 1 plays the root child with the best mean result among those visited at least search_expand_after times (the seed's rule), 0 the most visited one";
    tree_reuse: bool = 0, 0..=1, 1, "search_tree_reuse",
        "search: 1 keeps UCT's tree between a game's moves (the subtree under the opponent's reply becomes the next root), 0 starts every search afresh";
}

impl Default for Knobs {
    fn default() -> Knobs {
        Knobs::from_values(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_is_described() {
        for spec in SPECS {
            assert!(describe(&spec.name).is_some(), "{}", spec.name);
        }
        assert_eq!(Knobs::default().playout_scale, 30);
    }
}
