//! Who survives a generation, and who races on after a racing round.

use super::fitness::per_game;
use super::settings::Selection;
use super::Ga;
use crate::arena::stats::Wdl;

impl Ga {
    /// Who survives: each group's best, or the best against the reference, those who raced
    /// to the last round first (they have the most games).
    pub(super) fn survivors(&self, groups: &[Vec<usize>], racing: &[usize], selection: &[i32]) -> Vec<usize> {
        let keep = self.settings.groups();
        match self.settings.selection {
            // Twins end in tell_twins, but a pair's better twin is its group's best.
            Selection::Groups { .. } | Selection::Twins => champions(groups, selection),
            Selection::Reference { .. } => {
                let finalists = leaders(racing, selection, keep);
                let mut finalist = vec![false; selection.len()];
                for &i in racing {
                    finalist[i] = true;
                }
                let rest: Vec<usize> = (0..selection.len()).filter(|&i| !finalist[i]).collect();
                let need = keep.saturating_sub(finalists.len());
                let mut survivors = finalists;
                survivors.extend(leaders(&rest, selection, need));
                survivors
            }
        }
    }
}

/// The `n` best of `among` by `fitness`, best first; ties go to the earlier individual.
fn leaders(among: &[usize], fitness: &[i32], n: usize) -> Vec<usize> {
    let mut order = among.to_vec();
    order.sort_by_key(|&i| (std::cmp::Reverse(fitness[i]), i));
    order.truncate(n);
    order
}

/// Who races on after a round: the better half of `racing` by score a game (at least
/// `keep`, never fewer than race), in index order. The leader always stays.
pub fn halve(racing: &[usize], results: &[Wdl], keep: usize) -> Vec<usize> {
    let mut scores = vec![i32::MIN; results.len()];
    for &i in racing {
        scores[i] = per_game(results[i]);
    }
    let mut kept = leaders(racing, &scores, racing.len().div_ceil(2).max(keep));
    kept.sort_unstable();
    kept
}

/// Each group's champion: the best fitness; ties go to the earlier in the group.
fn champions(groups: &[Vec<usize>], fitness: &[i32]) -> Vec<usize> {
    groups
        .iter()
        .map(|g| {
            *g.iter()
                .reduce(|best, i| if fitness[*i] > fitness[*best] { i } else { best })
                .expect("groups are not empty")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// After any round the leader (best score a game, earliest on ties) races on, the
        /// field halves but never below `keep`, and nobody rejoins.
        #[test]
        fn racing_never_drops_the_leader(results in prop::collection::vec((0u32..9, 0u32..9, 0u32..9), 2..40),
                                         keep in 1usize..8, picks in prop::collection::vec(any::<bool>(), 40)) {
            let results: Vec<Wdl> = results.iter().map(|&(wins, draws, losses)| Wdl { wins, draws, losses }).collect();
            let racing: Vec<usize> = (0..results.len()).filter(|&i| picks[i] || i == 0).collect();
            let kept = halve(&racing, &results, keep);
            let score = |i: usize| per_game(results[i]);
            let leader = *racing.iter().reduce(|b, i| if score(*i) > score(*b) { i } else { b }).unwrap();
            prop_assert!(kept.contains(&leader));
            prop_assert!(kept.iter().all(|i| racing.contains(i)));
            prop_assert_eq!(kept.len(), racing.len().div_ceil(2).max(keep).min(racing.len()));
            // Everyone kept scores at least as well as everyone dropped.
            let worst_kept = kept.iter().map(|&i| score(i)).min().unwrap();
            prop_assert!(racing.iter().filter(|i| !kept.contains(i)).all(|&i| score(i) <= worst_kept));
        }
    }
}
