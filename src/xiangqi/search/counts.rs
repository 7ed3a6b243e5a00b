//! What a search did, counted: where its nodes went, how often each cut before the move
//! loop was tried and held, what the loop pruned, reduced and searched again, and how well
//! the moves were ordered. A diagnostic (`qitune bench` prints it): the counts never steer
//! the search, so they leave its node count alone.

/// One thing a search counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Nodes of the main search (the root included), past the rules and the horizon.
    MainNodes,
    /// Of those, the nodes at depth 1 (after the check extension).
    DepthOne,
    /// Of those, the nodes in check, which the check extension takes a ply deeper.
    CheckExtensions,
    /// Nodes of the quiescence search.
    QuiescenceNodes,
    /// Of those, the nodes in check, which search every evasion.
    QuiescenceInCheck,
    /// Nodes cut by reverse futility.
    ReverseFutilityCuts,
    /// Razoring's quiescence searches.
    RazorTries,
    /// Of those, the ones that held below alpha and cut the node.
    RazorCuts,
    /// Null-move searches.
    NullTries,
    /// Of those, the ones that held above beta and cut the node.
    NullCuts,
    /// Nodes where ProbCut searched captures.
    ProbCutTries,
    /// Of those, the ones it cut.
    ProbCutCuts,
    /// Moves the move loop searched.
    MovesSearched,
    /// Quiet moves the move loop pruned unsearched.
    MovesPruned,
    /// Captures the move loop pruned unsearched (knob `search_capture_futility`).
    CapturesPruned,
    /// Late moves searched first at a reduced depth.
    Reduced,
    /// Of those, the ones searched again at the full depth because the reduced search beat alpha.
    ReSearched,
    /// Null-window searches at a PV node searched again with the full window.
    PvsReSearched,
    /// Nodes of the main search cut off by a move.
    CutNodes,
    /// Of those, the ones cut by the first move searched.
    CutByFirst,
    /// The sum over them of the cutting move's place (1 for the first).
    CutPlaces,
}

/// How many kinds of [`Count`] there are.
const COUNTS: usize = Count::CutPlaces as usize + 1;

/// The counts of one search, or of several added together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    counts: [u64; COUNTS],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts { counts: [0; COUNTS] }
    }
}

impl Counts {
    /// Counts one more `count`.
    #[inline]
    pub(super) fn bump(&mut self, count: Count) {
        self.counts[count as usize] += 1;
    }

    /// Counts a node cut off by the `place`-th move searched (1-based).
    #[inline]
    pub(super) fn cut(&mut self, place: usize) {
        self.bump(Count::CutNodes);
        self.counts[Count::CutByFirst as usize] += (place == 1) as u64;
        self.counts[Count::CutPlaces as usize] += place as u64;
    }

    /// The number of `count`.
    pub fn get(&self, count: Count) -> u64 {
        self.counts[count as usize]
    }

    /// `part` as a share of `whole` (0 when there is no whole).
    pub fn share(&self, part: Count, whole: Count) -> f64 {
        self.get(part) as f64 / self.get(whole).max(1) as f64
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Counts) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
    }

    /// The mean place of the move that cut a node off (1 for the first).
    pub fn mean_cut_place(&self) -> f64 {
        self.share(Count::CutPlaces, Count::CutNodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_their_places_and_tallies_add_up() {
        let mut t = Counts::default();
        for place in [1, 1, 1, 3] {
            t.cut(place);
        }
        t.bump(Count::NullTries);
        assert_eq!(t.get(Count::CutNodes), 4);
        assert_eq!(t.share(Count::CutByFirst, Count::CutNodes), 0.75);
        assert_eq!(t.mean_cut_place(), 1.5);
        let mut both = t;
        both.add(&t);
        assert_eq!(both.get(Count::CutPlaces), 12);
        assert_eq!(both.get(Count::NullTries), 2);
        assert_eq!(both.get(Count::NullCuts), 0);
        assert_eq!(Counts::default().share(Count::CutByFirst, Count::CutNodes), 0.0);
    }
}
