//! The transposition table: two-entry buckets, one slot kept for depth, one always replaced.

use super::moves::Move;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true value is at least the score (a fail-high).
    Lower,
    /// The true value is at most the score (a fail-low).
    Upper,
}

/// A stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub mv: Option<Move>,
    /// The score, already adjusted to the probing node's distance from the root.
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u32,
    mv: u16,
    score: i16,
    depth: i8,
    /// Bits 0-1: bound (0 = empty); bits 2-7: the search generation that wrote it.
    meta: u8,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 12);

/// Scores at or beyond this are mates; they are stored relative to the node, not the root.
const MATE_BOUND: i32 = super::search::MATE - super::search::MAX_PLY as i32;

/// A transposition table of a fixed size.
pub struct Tt {
    buckets: Vec<[Entry; 2]>,
    generation: u8,
}

impl Tt {
    /// A table using about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> Tt {
        let bytes = megabytes.max(1) * 1024 * 1024;
        let n = (bytes / std::mem::size_of::<[Entry; 2]>()).max(1);
        Tt {
            buckets: vec![[Entry::default(); 2]; n],
            generation: 0,
        }
    }

    /// Forgets everything (between games, so every game starts alike).
    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(|b| *b = [Entry::default(); 2]);
        self.generation = 0;
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn index(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Looks a position up; `ply` converts stored mate distances back to the root's view.
    #[inline]
    pub fn probe(&self, hash: u64, ply: usize) -> Option<Hit> {
        let key = (hash >> 32) as u32;
        let bucket = &self.buckets[self.index(hash)];
        let e = bucket.iter().find(|e| e.key == key && e.meta & 3 != 0)?;
        let bound = match e.meta & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Hit {
            mv: Move::from_raw(e.mv),
            score: from_tt(e.score as i32, ply),
            depth: e.depth as i32,
            bound,
        })
    }

    /// Stores a result: replaces the same position, else the shallower or older slot.
    #[inline]
    pub fn store(&mut self, hash: u64, ply: usize, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let key = (hash >> 32) as u32;
        let generation = self.generation;
        let i = self.index(hash);
        let bucket = &mut self.buckets[i];
        let slot = if let Some(s) = bucket.iter().position(|e| e.key == key && e.meta & 3 != 0) {
            s
        } else {
            // Keep the deeper current-generation entry in slot 0; replace slot 1 otherwise.
            let old = bucket[0];
            let stale = old.meta >> 2 != generation;
            if old.meta & 3 == 0 || stale || depth >= old.depth as i32 {
                bucket[1] = old;
                0
            } else {
                1
            }
        };
        let e = &mut bucket[slot];
        // Keep a known best move when a fail-low of the same position brings none.
        let mv = mv.map(Move::raw).unwrap_or(if e.key == key { e.mv } else { 0 });
        *e = Entry {
            key,
            mv,
            score: to_tt(score, ply) as i16,
            depth: depth.clamp(-1, 127) as i8,
            meta: generation << 2
                | match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
        };
    }

    /// Bytes of memory the table uses.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<[Entry; 2]>()
    }
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xiangqi::search::MATE;

    #[test]
    fn stores_and_adjusts_mates_by_ply() {
        let mut tt = Tt::new(1);
        let mv = Move::parse_iccs("h2e2").unwrap();
        // A mate in 5 plies from the root seen at ply 3 is a mate in 2 from that node.
        tt.store(0xDEAD_BEEF_0000_1234, 3, Some(mv), MATE - 5, 4, Bound::Exact);
        let hit = tt.probe(0xDEAD_BEEF_0000_1234, 1).unwrap();
        assert_eq!(hit.score, MATE - 3, "seen from ply 1 it is a mate in 3");
        assert_eq!(hit.mv, Some(mv));
        assert_eq!(hit.bound, Bound::Exact);
        assert!(tt.probe(0x1234_5678_0000_1234, 1).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF_0000_1234, 1).is_none());
    }
}
