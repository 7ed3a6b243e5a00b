//! Search scores: the mate scale, its bounds, and mates that the 120-ply rule may forbid.
//! The search and the transposition table share these, so neither imports the other.

use super::eval::Score;
use super::rules::NO_CAPTURE_LIMIT;

/// The score of giving mate now; a mate in n plies scores `MATE - n`.
pub const MATE: Score = 30_000;
/// The deepest the search goes from the root.
pub const MAX_PLY: usize = 128;
/// Above every score, mates included.
pub const INFINITY: Score = 31_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;

/// A mate score converted to moves to mate (positive: we mate), for protocol output.
pub fn mate_in_moves(score: Score) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score + 1) / 2)
    } else {
        None
    }
}

/// A score stored at a node `ply` plies from the root: mates count from the node.
pub fn to_table(score: Score, ply: usize) -> Score {
    if score >= MATE_BOUND {
        score + ply as Score
    } else if score <= -MATE_BOUND {
        score - ply as Score
    } else {
        score
    }
}

/// A stored score read at `ply` from the root in a position whose no-capture count is
/// `halfmoves`. A mate further off than the plies left before the 120-ply draw may never
/// happen (it was found along another path to this position), so it is read as the largest
/// score that is not a mate.
pub fn from_table(score: Score, ply: usize, halfmoves: u32) -> Score {
    let plies_left = NO_CAPTURE_LIMIT.saturating_sub(halfmoves) as Score;
    if score >= MATE_BOUND {
        if MATE - score > plies_left {
            return MATE_BOUND - 1;
        }
        score - ply as Score
    } else if score <= -MATE_BOUND {
        if MATE + score > plies_left {
            return -(MATE_BOUND - 1);
        }
        score + ply as Score
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mates_are_moved_between_root_and_node_and_checked_against_the_rule() {
        // A mate in 5 plies from the root, found 3 plies down: a mate in 2 from that node.
        let stored = to_table(MATE - 5, 3);
        assert_eq!(stored, MATE - 2);
        assert_eq!(from_table(stored, 1, 0), MATE - 3, "read one ply from the root");
        assert_eq!(from_table(-stored, 1, 0), -(MATE - 3));
        // With 119 plies gone, only a mate in 1 from the node can still happen.
        assert_eq!(from_table(MATE - 1, 4, 119), MATE - 5);
        assert_eq!(from_table(MATE - 2, 4, 119), MATE_BOUND - 1);
        assert_eq!(from_table(-(MATE - 2), 4, 119), -(MATE_BOUND - 1));
        assert_eq!(from_table(37, 9, 119), 37);
        assert_eq!(mate_in_moves(MATE - 3), Some(2));
        assert_eq!(mate_in_moves(-(MATE - 4)), Some(-2));
        assert_eq!(mate_in_moves(500), None);
    }
}
