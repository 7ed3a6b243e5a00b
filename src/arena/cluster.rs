//! A schedule's games spread over MPI ranks (the `mpi` feature). Rank 0 owns the run and
//! hands out games by index as ranks ask for them, so fast and slow ranks both stay busy;
//! every other rank plays what it is given with its own threads and sends the records back.
//! Games are deterministic, so the records, and all the run makes of them, are the same as
//! on one machine, whatever the number of ranks.

use super::wire::{RecordWire, ScheduleWire};
use super::ArenaError;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Message tags.
const SCHEDULE: i32 = 1;
const WORK: i32 = 2;
const RESULTS: i32 = 3;
const STOP: i32 = 4;

/// How long a waiting rank sleeps between looks at its mailbox: waiting must not take a core
/// from the threads that play (Open MPI's blocking receive spins, and every wake-up costs).
const POLL: Duration = Duration::from_millis(5);

/// Requests a playing rank keeps open: while it plays one batch of games the next is already
/// on its way, so that rank 0's answering late never leaves it idle.
const IN_FLIGHT: i32 = 2;

/// What a playing rank sends: the games it finished, and how many it can take next.
#[derive(Serialize, Deserialize)]
struct Results {
    capacity: usize,
    /// (game index, record), or the error that stopped the rank.
    records: Result<Vec<(usize, RecordWire)>, String>,
}

/// The MPI world this process belongs to.
pub struct Cluster {
    // Finalises MPI when dropped; kept for that.
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
}

impl Cluster {
    /// Joins the MPI world (once per process).
    pub fn init() -> Result<Cluster, ArenaError> {
        let universe = mpi::initialize()
            .ok_or_else(|| ArenaError::Wire("MPI is already initialised in this process".to_string()))?;
        let world = universe.world();
        Ok(Cluster {
            _universe: universe,
            world,
        })
    }

    /// This process's rank: 0 runs the work and the others play.
    pub fn rank(&self) -> i32 {
        self.world.rank()
    }

    /// The number of ranks.
    pub fn size(&self) -> i32 {
        self.world.size()
    }

    /// Rank 0: plays every game of `schedule`, on `threads` threads of its own with
    /// `play_here(index)` and on the other ranks, calling `done(index, record)` as each
    /// record comes back from another rank. Games are handed out in index order, a rank's
    /// threads' worth at a time, to whoever asks first.
    pub fn play(
        &self,
        schedule: &ScheduleWire,
        threads: usize,
        play_here: impl Fn(usize) + Sync,
        mut done: impl FnMut(usize, RecordWire),
    ) -> Result<(), ArenaError> {
        let games = schedule.fixtures.len();
        let next = AtomicUsize::new(0);
        let take = |k: usize| {
            let start = next.fetch_add(k, Ordering::Relaxed).min(games);
            start..(start + k).min(games)
        };
        let bytes = to_bytes(schedule);
        for rank in 1..self.size() {
            self.world
                .process_at_rank(rank)
                .send_with_tag(&bytes[..], SCHEDULE);
        }
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let mine = take(1);
                    if mine.is_empty() {
                        break;
                    }
                    play_here(mine.start);
                });
            }
            // Every rank answers the schedule with IN_FLIGHT empty results that ask for work,
            // and each request is answered, with empty work once nothing is left: so each
            // rank has had its last word before the next schedule.
            let mut asking = IN_FLIGHT * (self.size() - 1);
            let mut serve = || {
                while asking > 0 {
                    let (message, status) =
                        self.wait(|world| world.any_process().immediate_matched_probe_with_tag(RESULTS));
                    let (bytes, _) = (message, status).matched_receive_vec::<u8>();
                    let results: Results = from_bytes(&bytes)?;
                    let records = results.records.map_err(|e| {
                        ArenaError::Wire(format!("rank {} could not play: {e}", status.source_rank()))
                    })?;
                    for (index, record) in records {
                        if index >= games {
                            return Err(ArenaError::Wire(format!("a record for game {index} of {games}")));
                        }
                        done(index, record);
                    }
                    let work: Vec<usize> = take(results.capacity.max(1)).collect();
                    if work.is_empty() {
                        asking -= 1;
                    }
                    self.world
                        .process_at_rank(status.source_rank())
                        .send_with_tag(&to_bytes(&work)[..], WORK);
                }
                Ok(())
            };
            let served = serve();
            if served.is_err() {
                // This process's threads stop at their current game.
                next.store(games, Ordering::Relaxed);
            }
            served
        })
    }

    /// Every rank but 0: plays the games rank 0 hands out, on `threads` threads, with `play`
    /// (which knows the games by name), until rank 0 says stop.
    pub fn serve(
        &self,
        threads: usize,
        play: impl Fn(&ScheduleWire, usize, &super::outside::Engines) -> Result<RecordWire, ArenaError> + Sync,
    ) -> Result<(), ArenaError> {
        let runner = super::Runner::new(threads)?;
        // Outside engines' processes are kept from one schedule to the next, as on rank 0.
        let engines = &runner.engines;
        let root = self.world.process_at_rank(0);
        let mut schedule: Option<ScheduleWire> = None;
        let answer = |records: Result<Vec<(usize, RecordWire)>, String>| {
            let results = Results {
                capacity: threads.max(1),
                records,
            };
            root.send_with_tag(&to_bytes(&results)[..], RESULTS);
        };
        // Work received and not yet played, in the order it came.
        let mut queue: std::collections::VecDeque<Vec<usize>> = std::collections::VecDeque::new();
        loop {
            // Play what is queued; look at the mailbox without waiting in between, and wait
            // only when there is nothing to play.
            let found = if queue.is_empty() {
                Some(self.wait(|world| world.process_at_rank(0).immediate_matched_probe()))
            } else {
                self.world.process_at_rank(0).immediate_matched_probe()
            };
            if let Some((message, status)) = found {
                let (bytes, _) = (message, status).matched_receive_vec::<u8>();
                match status.tag() {
                    SCHEDULE => {
                        schedule = Some(from_bytes(&bytes)?);
                        for _ in 0..IN_FLIGHT {
                            answer(Ok(Vec::new()));
                        }
                    }
                    WORK => {
                        let work: Vec<usize> = from_bytes(&bytes)?;
                        if !work.is_empty() {
                            queue.push_back(work);
                        }
                    }
                    STOP => return Ok(()),
                    other => return Err(ArenaError::Wire(format!("unknown message tag {other}"))),
                }
                continue;
            }
            let Some(work) = queue.pop_front() else {
                continue;
            };
            let Some(s) = &schedule else {
                return Err(ArenaError::Wire("work came before its schedule".to_string()));
            };
            let records: Result<Vec<(usize, RecordWire)>, ArenaError> = runner
                .map(0..work.len(), |k| play(s, work[k], engines).map(|r| (work[k], r)))
                .into_iter()
                .collect();
            answer(records.map_err(|e| e.to_string()));
        }
    }

    /// Rank 0: tells the other ranks their work is over (they return from `serve`).
    pub fn stop(&self) {
        for rank in 1..self.size() {
            self.world.process_at_rank(rank).send_with_tag(&[0u8][..], STOP);
        }
    }

    /// Waits, without spinning, until `probe` finds a message.
    fn wait<T>(&self, probe: impl Fn(&SimpleCommunicator) -> Option<T>) -> T {
        loop {
            if let Some(found) = probe(&self.world) {
                return found;
            }
            std::thread::sleep(POLL);
        }
    }
}

/// Rank 0 ending, however it ends, releases the other ranks from `serve`.
impl Drop for Cluster {
    fn drop(&mut self) {
        if self.rank() == 0 {
            self.stop();
        }
    }
}

fn to_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("plain data serialises")
}

fn from_bytes<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, ArenaError> {
    serde_json::from_slice(bytes).map_err(|e| ArenaError::Wire(format!("a message does not read: {e}")))
}
