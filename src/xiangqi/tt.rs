//! The transposition table: two-entry buckets, one slot kept for depth, one always replaced.
//!
//! Threads searching the same position share one table (lazy SMP). Entries are two atomic
//! words written without locks: the data and the position's hash XOR the data, so that an
//! entry torn by two threads writing at once fails its check and is never believed.

use super::moves::Move;
use super::score::{from_table, to_table};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

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

/// A search result as the table stores and returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best move; storing none keeps the one the table has for the position.
    pub mv: Option<Move>,
    /// The score from the node's side, mate distances counted from the root: the table
    /// keeps them relative to the node (see [`Tt::store`] and [`Tt::probe`]).
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    /// The position's static evaluation, when the node computed one; storing none keeps
    /// the one the table has.
    pub eval: Option<i32>,
}

impl Entry {
    /// Whether the stored score settles a node searched with the window (`alpha`, `beta`):
    /// exact, or a bound on the window's far side.
    #[inline]
    pub fn settles(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        }
    }
}

/// An entry's contents, packed into one word by [`Data::pack`].
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Data {
    /// The move's raw bits ([`Move::raw`]; 0 for none).
    mv: u16,
    score: i16,
    depth: i8,
    /// Bits 0-1: bound (0 = empty); bits 2-7: the search generation that wrote it.
    meta: u8,
    /// The static evaluation, or [`NO_EVAL`].
    eval: i16,
}

impl Data {
    fn pack(self) -> u64 {
        u64::from(self.mv)
            | u64::from(self.score as u16) << 16
            | u64::from(self.depth as u8) << 32
            | u64::from(self.meta) << 40
            | u64::from(self.eval as u16) << 48
    }

    fn unpack(w: u64) -> Data {
        Data {
            mv: w as u16,
            score: (w >> 16) as u16 as i16,
            depth: (w >> 32) as u8 as i8,
            meta: (w >> 40) as u8,
            eval: (w >> 48) as u16 as i16,
        }
    }

    fn used(self) -> bool {
        self.meta & 3 != 0
    }
}

/// One stored position: `check` is its hash XOR the packed data.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The data, and whether it belongs to `hash` (an empty or torn entry belongs to none).
    #[inline]
    fn read(&self, hash: u64) -> (Data, bool) {
        let data = self.data.load(Relaxed);
        let d = Data::unpack(data);
        (d, d.used() && self.check.load(Relaxed) ^ data == hash)
    }

    #[inline]
    fn write(&self, hash: u64, d: Data) {
        let data = d.pack();
        self.check.store(hash ^ data, Relaxed);
        self.data.store(data, Relaxed);
    }

    /// Copies `other` here (the check moves with its data, so ownership is kept).
    #[inline]
    fn copy_from(&self, other: &Slot) {
        let (check, data) = (other.check.load(Relaxed), other.data.load(Relaxed));
        self.check.store(check, Relaxed);
        self.data.store(data, Relaxed);
    }
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);

/// An entry's `eval` when none was stored.
const NO_EVAL: i16 = i16::MIN;

/// Two entries, aligned so that a bucket never straddles a cache line.
#[derive(Default)]
#[repr(C, align(32))]
struct Bucket([Slot; 2]);

const _: () = assert!(std::mem::size_of::<Bucket>() == 32);

/// Huge pages: a table this size or larger is aligned to them and asks the kernel for them,
/// because probes scatter over the whole table and 4 KiB pages make nearly each one a TLB miss.
const HUGE_PAGE: usize = 2 * 1024 * 1024;

/// A transposition table of a fixed size, shareable between threads.
pub struct Tt {
    /// Backing store; the table proper is `len` buckets from `start`, aligned to a huge page.
    memory: Vec<Bucket>,
    start: usize,
    len: usize,
    generation: AtomicU8,
}

impl Tt {
    /// A table using about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> Tt {
        Tt::try_new(megabytes).expect("memory for the transposition table")
    }

    /// [`Tt::new`], or `None` when the memory cannot be had (a size a user asked for).
    pub fn try_new(megabytes: usize) -> Option<Tt> {
        let bytes = megabytes.max(1).checked_mul(1024 * 1024)?;
        let len = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let huge = bytes >= 2 * HUGE_PAGE;
        let slack = if huge {
            HUGE_PAGE / std::mem::size_of::<Bucket>()
        } else {
            0
        };
        // Reserve without touching, so that the pages are first faulted in after the advice.
        let mut memory: Vec<Bucket> = Vec::new();
        memory.try_reserve_exact(len + slack).ok()?;
        let misalign = memory.as_ptr() as usize % HUGE_PAGE;
        let start = if huge && misalign != 0 {
            (HUGE_PAGE - misalign) / std::mem::size_of::<Bucket>()
        } else {
            0
        };
        if huge {
            advise_huge_pages(memory.as_ptr().wrapping_add(start), len);
        }
        memory.resize_with(len + slack, Bucket::default);
        Some(Tt {
            memory,
            start,
            len,
            generation: AtomicU8::new(0),
        })
    }

    /// Forgets everything (between games, so every game starts alike).
    pub fn clear(&self) {
        for e in self.memory.iter().flat_map(|b| &b.0) {
            e.check.store(0, Relaxed);
            e.data.store(0, Relaxed);
        }
        self.generation.store(0, Relaxed);
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        let g = self.generation.load(Relaxed);
        self.generation.store((g + 1) & 63, Relaxed);
    }

    #[inline]
    fn index(&self, hash: u64) -> usize {
        self.start + ((hash as u128 * self.len as u128) >> 64) as usize
    }

    /// Asks the CPU to start loading the bucket of `hash`, so that the probe a node makes
    /// soon after finds it in cache instead of waiting on main memory.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = &self.memory[self.index(hash)] as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint; it never faults and reads nothing into the
            // program, and `ptr` points into the table anyway.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// Looks a position up; `ply` converts stored mate distances back to the root's view.
    #[inline]
    pub fn probe(&self, hash: u64, ply: usize, halfmoves: u32) -> Option<Entry> {
        let bucket = &self.memory[self.index(hash)].0;
        let e = bucket.iter().map(|e| e.read(hash)).find(|&(_, mine)| mine)?.0;
        let bound = match e.meta & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Entry {
            mv: Move::from_raw(e.mv),
            score: from_table(e.score as i32, ply, halfmoves),
            depth: e.depth as i32,
            bound,
            eval: (e.eval != NO_EVAL).then_some(e.eval as i32),
        })
    }

    /// Stores the result of the node at `ply`: replaces the same position, else the
    /// shallower or older slot. Where `keep_deeper` is above 0, a bound from a search at
    /// least that many plies shallower than this search's entry for the position leaves the
    /// entry as it is but for the move it brings: a shallow re-search (after a reduction, or
    /// a window the entry did not settle) says less than what the deeper one found.
    #[inline]
    pub fn store(&self, hash: u64, ply: usize, entry: Entry, keep_deeper: i32) {
        let Entry {
            mv,
            score,
            depth,
            bound,
            eval,
        } = entry;
        let generation = self.generation.load(Relaxed);
        let bucket = &self.memory[self.index(hash)].0;
        let (first, first_mine) = bucket[0].read(hash);
        let (second, second_mine) = bucket[1].read(hash);
        let (slot, same) = if first_mine {
            (0, Some(first))
        } else if second_mine {
            (1, Some(second))
        } else {
            // Keep the deeper current-generation entry in slot 0; replace slot 1 otherwise.
            let stale = first.meta >> 2 != generation;
            if !first.used() || stale || depth >= first.depth as i32 {
                bucket[1].copy_from(&bucket[0]);
                (0, None)
            } else {
                (1, None)
            }
        };
        if let Some(old) = same.filter(|old| {
            keep_deeper > 0
                && bound != Bound::Exact
                && old.meta >> 2 == generation
                && depth + keep_deeper <= old.depth as i32
        }) {
            if let Some(mv) = mv {
                bucket[slot].write(hash, Data { mv: mv.raw(), ..old });
            }
            return;
        }
        // Keep a known best move (or evaluation) when a search of the same position brings none.
        let mv = mv.map(Move::raw).unwrap_or(same.map_or(0, |e| e.mv));
        let eval = eval
            .and_then(|v| i16::try_from(v).ok().filter(|&v| v != NO_EVAL))
            .unwrap_or(same.map_or(NO_EVAL, |e| e.eval));
        let data = Data {
            mv,
            score: to_table(score, ply) as i16,
            depth: depth.clamp(-1, 127) as i8,
            meta: generation << 2
                | match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
            eval,
        };
        bucket[slot].write(hash, data);
    }

    /// Bytes of memory the table uses.
    pub fn bytes(&self) -> usize {
        self.len * std::mem::size_of::<Bucket>()
    }
}

/// Asks Linux to back `len` buckets from `first` with huge pages. Only a hint: if the
/// kernel declines, the table works the same, a little slower.
fn advise_huge_pages(first: *const Bucket, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: the range lies inside an allocation this table owns for its whole life, and
    // MADV_HUGEPAGE changes only how the memory is backed, never its contents or validity.
    unsafe {
        libc::madvise(
            first as *mut libc::c_void,
            len * std::mem::size_of::<Bucket>(),
            libc::MADV_HUGEPAGE,
        );
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (first, len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xiangqi::score::MATE;

    fn entry(mv: Option<Move>, score: i32, depth: i32, bound: Bound, eval: Option<i32>) -> Entry {
        Entry {
            mv,
            score,
            depth,
            bound,
            eval,
        }
    }

    #[test]
    fn stores_and_adjusts_mates_by_ply() {
        let tt = Tt::new(1);
        let mv = Move::parse_iccs("h2e2").unwrap();
        // A mate in 5 plies from the root seen at ply 3 is a mate in 2 from that node.
        let key = 0xDEAD_BEEF_0000_1234;
        tt.store(key, 3, entry(Some(mv), MATE - 5, 4, Bound::Exact, Some(-70)), 0);
        let hit = tt.probe(key, 1, 0).unwrap();
        assert_eq!(hit.score, MATE - 3, "seen from ply 1 it is a mate in 3");
        assert_eq!(hit.mv, Some(mv));
        assert_eq!(hit.bound, Bound::Exact);
        assert_eq!(hit.eval, Some(-70));
        // A later result without a move or an evaluation keeps those already known.
        tt.store(key, 3, entry(None, 12, 5, Bound::Upper, None), 0);
        let hit = tt.probe(key, 3, 0).unwrap();
        assert_eq!((hit.mv, hit.eval, hit.score), (Some(mv), Some(-70), 12));
        tt.store(key, 3, entry(None, 12, 5, Bound::Upper, Some(40_000)), 0);
        assert_eq!(tt.probe(key, 3, 0).unwrap().eval, Some(-70), "too large to keep");
        assert!(tt.probe(0x1234_5678_0000_1234, 1, 0).is_none());
        tt.clear();
        assert!(tt.probe(key, 1, 0).is_none());
    }

    #[test]
    fn a_shallow_bound_keeps_a_deeper_entry_of_the_same_search() {
        let tt = Tt::new(1);
        let (key, deep, shallow) = (
            0x0BAD_F00D_0000_0042,
            Move::parse_iccs("h2e2").unwrap(),
            Move::parse_iccs("b0c2").unwrap(),
        );
        tt.store(key, 0, entry(Some(deep), 30, 10, Bound::Lower, Some(5)), 4);
        // Six plies shallower, a bound: the deep score, depth and bound stay, the move is new.
        tt.store(key, 0, entry(Some(shallow), -20, 4, Bound::Upper, None), 4);
        let hit = tt.probe(key, 0, 0).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.depth, hit.bound, hit.eval),
            (Some(shallow), 30, 10, Bound::Lower, Some(5))
        );
        // An exact score, or a bound fewer plies shallower, replaces it.
        tt.store(key, 0, entry(None, -20, 7, Bound::Upper, None), 4);
        assert_eq!(tt.probe(key, 0, 0).unwrap().depth, 7);
        tt.store(key, 0, entry(None, 11, 1, Bound::Exact, None), 4);
        assert_eq!(tt.probe(key, 0, 0).unwrap().score, 11);
        // An entry of an earlier search is replaced, and with the knob off every store replaces.
        tt.store(key, 0, entry(None, 50, 12, Bound::Lower, None), 4);
        tt.new_search();
        tt.store(key, 0, entry(None, 40, 2, Bound::Lower, None), 4);
        assert_eq!(tt.probe(key, 0, 0).unwrap().depth, 2);
        tt.store(key, 0, entry(None, 60, 12, Bound::Lower, None), 0);
        tt.store(key, 0, entry(None, 70, 3, Bound::Lower, None), 0);
        assert_eq!(tt.probe(key, 0, 0).unwrap().score, 70);
    }

    #[test]
    fn a_table_too_large_for_memory_is_refused() {
        // 2^60 bytes: more than any address space; usize::MAX MiB overflows the byte count.
        assert!(Tt::try_new(1 << 40).is_none());
        assert!(Tt::try_new(usize::MAX).is_none());
        let tt = Tt::try_new(8).unwrap();
        assert_eq!(tt.bytes(), 8 << 20);
    }
}
