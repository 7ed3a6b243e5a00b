//! The arena: parallel, deterministic matches between engines, with honest statistics.

#[cfg(feature = "mpi")]
pub mod cluster;
pub mod label;
pub mod outside;
pub mod pgn;
pub mod play;
pub mod rating;
pub mod stats;
pub mod wire;

pub use outside::{OutsideEngine, Protocol};
pub use play::{play_game, Agent, Conditions, Player};

use crate::game::{Budget, Game, GameRecord, Seat};
use crate::params::Params;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The ply cap of every game unless a user sets another (`match --max-plies`, a run's
/// `max_plies`): long enough that nearly every decided game ends before it.
pub const DEFAULT_MAX_PLIES: usize = 300;

/// Errors of the arena.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("'{spec}' is no player and no file: a player is {names}, ucci:COMMAND, uci:COMMAND, an engine description or a weight file")]
    UnknownPlayer { spec: String, names: String },
    #[error("'{spec}': the seed after 'random:' must be a whole number")]
    RandomSeed { spec: String },
    #[error(transparent)]
    Engine(#[from] outside::DescriptionError),
    #[error(transparent)]
    Weights(#[from] crate::params::LoadError),
    #[error(transparent)]
    Params(#[from] crate::params::WeightFileError),
    #[error("cannot read {path}: {source}")]
    ReadPositions { path: String, source: std::io::Error },
    #[error("{path} line {line}: {message}")]
    Position {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path} holds no positions")]
    NoPositions { path: String },
    #[error("cannot start {threads} threads: {message}")]
    Threads { threads: usize, message: String },
    /// A schedule or record passed between processes does not fit (a bug or a mismatch of
    /// versions between ranks).
    #[error("between processes: {0}")]
    Wire(String),
}

/// Reads a player: `default` (the built-in weights), `random:SEED` (every weight drawn at
/// random, reproducibly), a game's own names (Xiangqi: `material`), an outside engine
/// (`ucci:COMMAND`, `uci:COMMAND`, or an engine description file), or a weight file.
pub fn agent<G: Game>(spec: &str) -> Result<Agent<G::Weights>, ArenaError> {
    if let Some(engine) = outside::from_command(spec) {
        return Ok(Agent::Outside(Arc::new(engine?)));
    }
    if let Some(engine) = outside::from_file(Path::new(spec)) {
        return Ok(Agent::Outside(Arc::new(engine?)));
    }
    player_weights::<G>(spec).map(Agent::Weights)
}

/// Reads a player of the game's own engine: `default`, `random:SEED`, a game's own names, or
/// the path of a weight file.
pub fn player_weights<G: Game>(spec: &str) -> Result<G::Weights, ArenaError> {
    if spec == "default" {
        return Ok(G::weights(&Params::defaults(&G::specs()))?);
    }
    if let Some(w) = G::named_player(spec) {
        return Ok(w);
    }
    match spec.strip_prefix("random:") {
        Some(seed) => {
            let seed: u64 = seed.parse().map_err(|_| ArenaError::RandomSeed {
                spec: spec.to_string(),
            })?;
            Ok(random_weights::<G>(seed)?)
        }
        None if !Path::new(spec).exists() => {
            let names: Vec<&str> = ["default"]
                .into_iter()
                .chain(G::PLAYER_NAMES.iter().copied())
                .collect();
            Err(ArenaError::UnknownPlayer {
                spec: spec.to_string(),
                names: format!("{}, random:SEED", names.join(", ")),
            })
        }
        None => Ok(G::load_weights(Path::new(spec))?),
    }
}

/// The player `random:SEED`: every weight drawn at random from its range, reproducibly.
pub fn random_weights<G: Game>(seed: u64) -> Result<G::Weights, crate::params::WeightFileError> {
    G::weights(&Params::random(&G::specs(), &mut ChaCha8Rng::seed_from_u64(seed)))
}

/// Reads start positions of game `G`: one FEN per line, `#` comments and blank lines skipped.
pub fn read_positions<G: Game>(path: &Path) -> Result<Vec<G::Board>, ArenaError> {
    let name = || path.display().to_string();
    let text = crate::fsutil::read_text(path, crate::fsutil::MAX_POSITION_BYTES)
        .map_err(|source| ArenaError::ReadPositions { path: name(), source })?;
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        boards.push(G::parse_position(line).map_err(|e| ArenaError::Position {
            path: name(),
            line: i + 1,
            message: e.to_string(),
        })?);
    }
    if boards.is_empty() {
        return Err(ArenaError::NoPositions { path: name() });
    }
    Ok(boards)
}

/// The parallel runner of every batch of games: a pool of worker threads that plays games by
/// index and gives the results back in index order, whatever the number of threads.
pub struct Runner {
    pool: rayon::ThreadPool,
    /// Outside engines waiting between games.
    engines: outside::Engines,
    /// Other MPI ranks that play schedules whose players are known by their parameters.
    #[cfg(feature = "mpi")]
    cluster: Option<std::rc::Rc<cluster::Cluster>>,
}

impl Runner {
    pub fn new(threads: usize) -> Result<Runner, ArenaError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| ArenaError::Threads {
                threads,
                message: e.to_string(),
            })?;
        Ok(Runner {
            pool,
            engines: outside::Engines::new(2 * threads.max(1)),
            #[cfg(feature = "mpi")]
            cluster: None,
        })
    }

    /// Schedules go to the other ranks of `cluster` (when it has any) instead of this
    /// process's threads.
    #[cfg(feature = "mpi")]
    pub fn with_cluster(mut self, cluster: Option<std::rc::Rc<cluster::Cluster>>) -> Runner {
        self.cluster = cluster.filter(|c| c.size() > 1);
        self
    }

    /// Runs `work` on the runner's threads (rayon's parallel iterators inside it use them).
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        self.pool.install(work)
    }

    /// `play(i)` for every `i` in `indices`, in parallel, in index order.
    pub fn map<T: Send>(&self, indices: Range<usize>, play: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        self.pool.install(|| indices.into_par_iter().map(play).collect())
    }

    /// `play(i)` for `i` from `indices.start` on, each result handed to `keep` in index order
    /// as soon as every earlier one has been, so that what `keep` has seen is always the
    /// unbroken beginning of `indices`. A thread starts an index only within a window of
    /// [`STREAM_AHEAD`] results a thread past the first one `keep` still waits for: a game
    /// that stalls holds the others back rather than letting finished results pile up, so a
    /// stream of any length holds at most that window in memory. No index starts once
    /// `stop` is set or `keep` has returned false (the games under way finish; after a false
    /// their results are dropped).
    pub fn stream<T: Send>(
        &self,
        indices: Range<usize>,
        stop: &AtomicBool,
        play: impl Fn(usize) -> T + Sync,
        keep: impl FnMut(T) -> bool + Send,
    ) {
        struct Order<T, K> {
            /// The next index to start, and the next `keep` takes.
            claimed: usize,
            next: usize,
            waiting: std::collections::BTreeMap<usize, T>,
            keep: K,
            ended: bool,
        }
        let pool = &self.pool;
        let window = STREAM_AHEAD * pool.current_num_threads().max(1);
        let order = Mutex::new(Order {
            claimed: indices.start,
            next: indices.start,
            waiting: std::collections::BTreeMap::new(),
            keep,
            ended: false,
        });
        let moved = Condvar::new();
        let lock = || order.lock().unwrap_or_else(|e| e.into_inner());
        let worker = || loop {
            let index = {
                let mut o = lock();
                loop {
                    if o.ended || stop.load(Ordering::Relaxed) || o.claimed >= indices.end {
                        return;
                    }
                    if o.claimed < o.next + window {
                        o.claimed += 1;
                        break o.claimed - 1;
                    }
                    // `stop` comes from outside the lock: look at it now and then.
                    o = moved
                        .wait_timeout(o, std::time::Duration::from_millis(20))
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            };
            let result = play(index);
            let mut o = lock();
            if o.ended {
                return;
            }
            let o = &mut *o;
            o.waiting.insert(index, result);
            let before = o.next;
            while let Some(result) = o.waiting.remove(&o.next) {
                o.next += 1;
                if !(o.keep)(result) {
                    o.ended = true;
                    break;
                }
            }
            if o.next != before || o.ended {
                moved.notify_all();
            }
        };
        // Only the pool goes into the scope (a runner with an MPI cluster is not Sync).
        pool.scope(|s| {
            for _ in 0..pool.current_num_threads() {
                s.spawn(|_| worker());
            }
        });
    }
}

/// How many results a thread may run ahead of the first one [`Runner::stream`] still waits
/// for.
pub const STREAM_AHEAD: usize = 4;

/// One game of a schedule: two players (indices into the schedule's players) and a start
/// position (an index into its positions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixture {
    pub first: usize,
    pub second: usize,
    pub position: usize,
}

impl Fixture {
    /// Two games between players `a` and `b` from one position, colours swapped.
    pub fn pair(a: usize, b: usize, position: usize) -> [Fixture; 2] {
        [
            Fixture {
                first: a,
                second: b,
                position,
            },
            Fixture {
                first: b,
                second: a,
                position,
            },
        ]
    }
}

/// Games between many players (a generation of the GA, a round robin).
pub struct Schedule<'a, G: Game> {
    pub players: &'a [Player<G::Weights>],
    /// The players' parameters (an outside engine's entry unused): what lets another
    /// process rebuild the game's own engines (MPI ranks). Without them the games are played
    /// here.
    pub params: Option<&'a [Params]>,
    pub positions: &'a [G::Board],
    pub fixtures: &'a [Fixture],
    pub conditions: Conditions,
}

impl<G: Game> Schedule<'_, G> {
    /// Plays every fixture, calling `done` as each game finishes; records in fixture order.
    pub fn run(
        &self,
        runner: &Runner,
        done: impl Fn(&GameRecord<G::Move>) + Sync,
    ) -> Result<Vec<GameRecord<G::Move>>, ArenaError> {
        self.run_indexed(runner, |_, record| done(record))
    }

    /// As [`Schedule::run`], telling `done` which fixture each finished game was.
    pub fn run_indexed(
        &self,
        runner: &Runner,
        done: impl Fn(usize, &GameRecord<G::Move>) + Sync,
    ) -> Result<Vec<GameRecord<G::Move>>, ArenaError> {
        #[cfg(feature = "mpi")]
        if let Some((cluster, wire)) = runner.cluster.as_ref().zip(wire::ScheduleWire::of(self)) {
            return self.run_on(cluster, runner, &wire, done);
        }
        // Only the pool goes into the workers (a runner with a cluster is not Sync).
        let engines = &runner.engines;
        Ok(runner.map(0..self.fixtures.len(), |i| {
            let record = self.play(i, engines);
            done(i, &record);
            record
        }))
    }

    /// Game `i` of the schedule.
    fn play(&self, i: usize, engines: &outside::Engines) -> GameRecord<G::Move> {
        let f = self.fixtures[i];
        play_game::<G>(
            &self.positions[f.position],
            &self.players[f.first],
            &self.players[f.second],
            &self.conditions,
            engines,
        )
    }

    /// Plays the schedule on `threads` threads here and on the other ranks of `cluster`.
    #[cfg(feature = "mpi")]
    fn run_on(
        &self,
        cluster: &cluster::Cluster,
        runner: &Runner,
        wire: &wire::ScheduleWire,
        done: impl Fn(usize, &GameRecord<G::Move>) + Sync,
    ) -> Result<Vec<GameRecord<G::Move>>, ArenaError> {
        let engines = &runner.engines;
        let records: std::sync::Mutex<Vec<Option<GameRecord<G::Move>>>> =
            std::sync::Mutex::new(vec![None; self.fixtures.len()]);
        let keep = |i: usize, record: GameRecord<G::Move>| {
            done(i, &record);
            records.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(record);
        };
        let mut failure = None;
        cluster.play(
            wire,
            runner.pool.current_num_threads(),
            |i| keep(i, self.play(i, engines)),
            |i, sent| match sent.record::<G>(&self.positions[self.fixtures[i].position]) {
                Ok(record) => keep(i, record),
                Err(e) => {
                    failure.get_or_insert(e);
                }
            },
        )?;
        if let Some(e) = failure {
            return Err(e);
        }
        records
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.ok_or_else(|| ArenaError::Wire(format!("game {i} never came back"))))
            .collect()
    }
}

/// Each player's wins, draws and losses over a schedule's games.
pub fn tally_players<M>(fixtures: &[Fixture], records: &[GameRecord<M>], players: usize) -> Vec<stats::Wdl> {
    let mut wdl = vec![stats::Wdl::default(); players];
    for (f, r) in fixtures.iter().zip(records) {
        let first = result_for(r, Seat::First);
        wdl[f.first].add(first);
        wdl[f.second].add(first.reversed());
    }
    wdl
}

/// A game's result from one seat's point of view.
pub fn result_for<M>(record: &GameRecord<M>, seat: Seat) -> stats::Wdl {
    result_of(record.winner, seat)
}

/// One game's result for `seat` when `winner` won (a draw when none did).
pub fn result_of(winner: Option<Seat>, seat: Seat) -> stats::Wdl {
    let one = |w, d, l| stats::Wdl {
        wins: w,
        draws: d,
        losses: l,
    };
    match winner {
        None => one(0, 1, 0),
        Some(s) if s == seat => one(1, 0, 0),
        Some(_) => one(0, 0, 1),
    }
}

/// A match between players A and B.
#[derive(Clone, Debug)]
pub struct Match<G: Game> {
    pub a: Player<G::Weights>,
    pub b: Player<G::Weights>,
    /// Start positions, used pair by pair in this order (wrapping around).
    pub positions: Vec<G::Board>,
    /// Games to play; each position is played twice with colours swapped.
    pub games: usize,
    pub conditions: Conditions,
    /// Stop as soon as this test decides (judged on the games in schedule order).
    pub sprt: Option<stats::Sprt>,
}

/// One played game of a match.
#[derive(Debug, PartialEq, Eq)]
pub struct Played<G: Game> {
    pub index: usize,
    /// Whether A had the first seat (Red, White).
    pub a_first: bool,
    pub record: GameRecord<G::Move>,
}

// By hand: a derive would ask the game type itself to be Clone.
impl<G: Game> Clone for Played<G> {
    fn clone(&self) -> Self {
        Played {
            index: self.index,
            a_first: self.a_first,
            record: self.record.clone(),
        }
    }
}

impl<G: Game> Played<G> {
    /// A's seat in this game.
    pub fn a_seat(&self) -> Seat {
        if self.a_first {
            Seat::First
        } else {
            Seat::Second
        }
    }

    /// The result from A's point of view.
    pub fn a_result(&self) -> stats::Wdl {
        result_for(&self.record, self.a_seat())
    }
}

impl<G: Game> Match<G> {
    /// Plays every game on a pool of `threads` workers, calling `done` as each finishes.
    /// The results come back in schedule order, the same for any number of threads. With an
    /// SPRT, the match ends at the first game pair (in schedule order) after which the test
    /// decides; games already under way then are dropped.
    pub fn run(
        &self,
        threads: usize,
        done: impl Fn(&Played<G>) + Sync,
    ) -> Result<Vec<Played<G>>, ArenaError> {
        let mut played = Vec::new();
        self.run_until(threads, &AtomicBool::new(false), done, |p| played.push(p))?;
        Ok(played)
    }

    /// As [`Match::run`], but every game counted goes to `keep` in schedule order instead of
    /// into a list, as soon as every game before it is done, so that a match of any length
    /// holds about one game per thread at a time and a crash loses only the games under way;
    /// once `stop` is set no further game starts, and the games already under way finish and
    /// are kept. Returns the number of games kept.
    pub fn run_until(
        &self,
        threads: usize,
        stop: &AtomicBool,
        done: impl Fn(&Played<G>) + Sync,
        keep: impl FnMut(Played<G>) + Send,
    ) -> Result<usize, ArenaError> {
        self.run_from(0, stats::Tally::default(), threads, stop, done, keep)
    }

    /// As [`Match::run_until`], from game `first` of the schedule on, the games before it
    /// having scored `prior` for A (a match resumed from its record): an SPRT decides on
    /// all of them.
    pub fn run_from(
        &self,
        first: usize,
        prior: stats::Tally,
        threads: usize,
        stop: &AtomicBool,
        done: impl Fn(&Played<G>) + Sync,
        mut keep: impl FnMut(Played<G>) + Send,
    ) -> Result<usize, ArenaError> {
        let runner = Runner::new(threads)?;
        let mut kept = 0;
        let mut tally = prior;
        runner.stream(
            first..self.games,
            stop,
            |index| {
                let p = self.play(index, &runner.engines);
                done(&p);
                p
            },
            |p| {
                tally.add(p.a_result());
                keep(p);
                kept += 1;
                // An SPRT decides after a whole pair, so that both colours of an opening count.
                !(self.sprt).is_some_and(|t| (first + kept) % 2 == 0 && t.decide(&tally.pairs).is_some())
            },
        );
        Ok(kept)
    }

    /// Where game `index` starts and whether A has its first seat: pair `index / 2` plays
    /// its position, A first in the pair's first game.
    pub fn schedule(&self, index: usize) -> (&G::Board, bool) {
        (
            &self.positions[(index / 2) % self.positions.len()],
            index % 2 == 0,
        )
    }

    /// Game `index` as [`Match::schedule`] has it.
    fn play(&self, index: usize, engines: &outside::Engines) -> Played<G> {
        let (start, a_first) = self.schedule(index);
        let (first, second) = if a_first {
            (&self.a, &self.b)
        } else {
            (&self.b, &self.a)
        };
        Played {
            index,
            a_first,
            record: play_game::<G>(start, first, second, &self.conditions, engines),
        }
    }
}

/// Sums results from A's point of view.
pub fn tally<G: Game>(played: &[Played<G>]) -> stats::Wdl {
    played.iter().fold(stats::Wdl::default(), |mut acc, p| {
        acc.add(p.a_result());
        acc
    })
}

impl Conditions {
    /// The usual conditions for players on `budget`: the default ply cap, no adjudication, a
    /// table that suits the budget, and a 50 ms grace on the clock for the pipes of outside
    /// engines.
    pub fn for_budget(budget: Budget) -> Conditions {
        Conditions {
            max_plies: DEFAULT_MAX_PLIES,
            adjudication: Default::default(),
            tt_mb: budget.tt_mb(),
            time_margin: std::time::Duration::from_millis(50),
        }
    }
}
