//! `qitune match`: play two engines against each other.

use anyhow::{bail, Context, Result};
use qitune::amazons::game::AmazonsGame;
use qitune::arena::stats::{Sprt, SprtDecision, Tally, Wdl};
use qitune::arena::{self, pgn, Conditions, Match};
use qitune::game::Game;
use qitune::game::{Adjudication, Agent, Budget, Ending, Player, Seat};
use qitune::xiangqi::game::XiangqiGame;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Play a match between two players and report W/D/L and Elo with a 95% error bar.
///
/// A player is `default` (the built-in weights), `material` (material only), `random:SEED`,
/// a weight file, or an outside engine: `ucci:COMMAND`, `uci:COMMAND` (a program and its
/// arguments) or an engine description file (JSON: name, path, args, protocol, options).
/// An outside engine needs its budget named: a real clock (`--tc`), or `--nodes`/`--depth`
/// when it honours `go nodes`/`go depth` (as qitune engine does over UCI).
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// Player A (results are given from A's point of view).
    #[arg(long)]
    a: String,
    /// Player B.
    #[arg(long)]
    b: String,
    /// Start positions, one FEN per line; without it, each pair starts from the start
    /// position after --random-plies seeded random moves.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Games to play (each position twice, colours swapped).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Nodes per move.
    #[arg(long, conflicts_with_all = ["depth", "tc"])]
    nodes: Option<u64>,
    /// Depth per move.
    #[arg(long, conflicts_with = "tc")]
    depth: Option<u32>,
    /// Clock per game, BASE+INC in seconds (e.g. 2+0.1).
    #[arg(long)]
    tc: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::threads_count)]
    threads: Option<usize>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Order in which pairs take the --positions file's positions (random: a shuffle by --seed).
    #[arg(long, value_enum, default_value = "sequential")]
    order: Order,
    /// Random plies of each opening when no --positions file is given.
    #[arg(long, default_value_t = 4)]
    random_plies: usize,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = arena::DEFAULT_MAX_PLIES)]
    max_plies: usize,
    /// Write the summary as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every game as Xiangqi PGN (ICCS moves) to this file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Hash table of each embedded engine, MiB, at most 4096 (default: by the budget, 1 to 64).
    #[arg(long)]
    hash: Option<usize>,
    /// How far past its clock a move may come, in milliseconds, before it loses on time.
    #[arg(long, default_value_t = 50)]
    time_margin: u64,
    /// Overwrite --pgn and --json files that exist.
    #[arg(long)]
    force: bool,
    /// Go on with a match that was stopped: the --pgn file's games are this match's first
    /// games (same players, positions, --order and --seed); the rest are played and
    /// appended, and the result (and an SPRT) counts them all.
    #[arg(long, requires = "pgn", conflicts_with = "force")]
    resume: bool,
    /// Sequential test ELO0,ELO1 (alpha = beta = 0.05); the match stops when it decides.
    #[arg(long)]
    sprt: Option<String>,
    /// Adjudicate a loss: SCORE,MOVES (both engines see a side behind by SCORE for MOVES moves each).
    #[arg(long)]
    resign: Option<String>,
    /// Adjudicate a draw: SCORE,MOVES,PLY (after PLY, all scores within SCORE for MOVES moves each).
    #[arg(long)]
    draw: Option<String>,
    /// No progress bar and no progress lines: only the result.
    #[arg(long, conflicts_with = "jsonl")]
    quiet: bool,
    /// One JSON object per finished game on standard output (game, A's seat, result for A,
    /// ending, plies), then the result; no progress.
    #[arg(long)]
    jsonl: bool,
}

/// Parses a comma-separated list of `n` numbers for `flag`.
fn numbers<T: std::str::FromStr>(flag: &str, text: &str, n: usize, shape: &str) -> Result<Vec<T>> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let values: Option<Vec<T>> = parts.iter().map(|p| p.parse().ok()).collect();
    match values {
        Some(v) if v.len() == n => Ok(v),
        _ => bail!("{flag} '{text}' is not {shape}"),
    }
}

/// How a match walks through a position file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Order {
    Sequential,
    Random,
}

fn parse_tc(text: &str) -> Result<Budget> {
    Budget::clock(text).map_err(|e| anyhow::anyhow!("--tc {e}"))
}

pub fn run(args: Args) -> Result<()> {
    match args.game {
        super::GameKind::Xiangqi => run_game::<XiangqiGame>(args),
        super::GameKind::Amazons => {
            // Alpha-beta looks at 24 moves a node: depth 6 already takes minutes a move.
            if args.depth.is_some_and(|d| d > 6) {
                bail!("--depth for Amazons (alpha-beta, 24 moves a node) must be at most 6");
            }
            run_game::<AmazonsGame>(args)
        }
    }
}

fn run_game<G: Game>(args: Args) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.max_plies == 0 {
        bail!("--max-plies must be at least 1");
    }
    // Two engines a game and a game a thread: a bound keeps that within a machine's memory.
    if args.hash.is_some_and(|mb| mb == 0 || mb > 4096) {
        bail!("--hash must be from 1 to 4096 MiB");
    }
    if args.games % 2 == 1 {
        eprintln!(
            "note: --games {} is odd, so the last position is played with one colour only; an even number keeps the colours balanced",
            args.games
        );
    }
    // A resumed match appends to its PGN file and rewrites its summary with every game.
    if !args.resume {
        for path in [&args.pgn, &args.json].into_iter().flatten() {
            super::check_new_file(path, args.force)?;
        }
    }
    // Openings are made up front, one per pair: the bound keeps that within memory.
    if args.games > 1_000_000 {
        bail!("--games must be at most 1000000");
    }
    let named = args.nodes.is_some() || args.depth.is_some() || args.tc.is_some();
    let budget = match (args.nodes, args.depth, &args.tc) {
        (Some(0), _, _) => bail!("--nodes must be at least 1"),
        (Some(n), _, _) => Budget::Nodes(n),
        (_, Some(0), _) => bail!("--depth must be at least 1"),
        (_, Some(d), _) => Budget::Depth(d),
        (_, _, Some(tc)) => parse_tc(tc)?,
        _ => Budget::Nodes(10_000),
    };
    let a = arena::agent::<G>(&args.a).context("player A")?;
    let b = arena::agent::<G>(&args.b).context("player B")?;
    for (agent, name) in [(&a, "A"), (&b, "B")] {
        if let Agent::Outside(spec) = agent {
            if !named {
                bail!(
                    "player {name} is an outside engine: give the match its budget with --tc, or --nodes or --depth if the engine honours them"
                );
            }
            // One start before the match, so that a wrong path or protocol is one clear error
            // rather than a match of lost games.
            arena::outside::Process::start(spec).with_context(|| format!("player {name}"))?;
        }
    }
    let positions = match &args.positions {
        Some(path) => {
            let mut boards = arena::read_positions::<G>(path)?;
            if args.order == Order::Random {
                use rand::{seq::SliceRandom, SeedableRng};
                boards.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(args.seed));
            }
            boards
        }
        None => (0..args.games.div_ceil(2))
            .map(|pair| {
                G::random_opening(
                    args.seed.wrapping_mul(1_000_003).wrapping_add(pair as u64),
                    args.random_plies,
                )
            })
            .collect(),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Each game in flight holds two tables of --hash MiB: refuse what the machine cannot hold
    // before a game starts, rather than die of it in the middle.
    if let (Some(mb), Some(available)) = (args.hash, available_mib()) {
        let needed = 2 * mb as u64 * threads.min(args.games) as u64;
        if needed > available {
            bail!(
                "--hash {mb} with --threads {threads}: {} games at once of two engines each need {needed} MiB of hash tables, and this machine has {available} MiB available; give a smaller --hash or fewer --threads",
                threads.min(args.games)
            );
        }
    }
    let sprt = match &args.sprt {
        Some(t) => {
            let v: Vec<f64> = numbers("--sprt", t, 2, "ELO0,ELO1 (e.g. 0,10)")?;
            if v.iter().any(|x| !x.is_finite()) || v[0] >= v[1] {
                bail!("--sprt '{t}': ELO0 must be below ELO1");
            }
            Some(Sprt::new(v[0], v[1]))
        }
        None => None,
    };
    let mut adjudication = Adjudication::default();
    if let Some(r) = &args.resign {
        let v: Vec<i64> = numbers("--resign", r, 2, "SCORE,MOVES (e.g. 1000,3)")?;
        if v[0] <= 0 || v[1] <= 0 {
            bail!("--resign '{r}': SCORE and MOVES must be positive");
        }
        adjudication.resign = Some((v[0].min(i32::MAX as i64) as i32, v[1] as usize));
    }
    if let Some(d) = &args.draw {
        let v: Vec<i64> = numbers("--draw", d, 3, "SCORE,MOVES,PLY (e.g. 10,8,80)")?;
        if v[0] < 0 || v[1] <= 0 || v[2] < 0 {
            bail!("--draw '{d}': SCORE and PLY must not be negative and MOVES must be positive");
        }
        adjudication.draw = Some((v[0].min(i32::MAX as i64) as i32, v[1] as usize, v[2] as usize));
    }
    let m: Match<G> = Match {
        a: Player { agent: a, budget },
        b: Player { agent: b, budget },
        positions,
        games: args.games,
        conditions: Conditions {
            max_plies: args.max_plies,
            adjudication,
            time_margin: Duration::from_millis(args.time_margin),
            tt_mb: args.hash.unwrap_or(budget.tt_mb()),
        },
        sprt,
    };

    let mut summary = Summary::new(sprt);
    let first = if args.resume {
        resumed(&args, &m, &mut summary)?
    } else {
        0
    };
    let prior = summary.tally;

    // Counted games go to the PGN file in schedule order as soon as every earlier game is
    // done (a crash loses only the games under way), and only a running summary stays in
    // memory, however long the match.
    let mut pgn_file = match &args.pgn {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .append(args.resume)
                .truncate(!args.resume)
                .open(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Some(std::io::BufWriter::new(file))
        }
        None => None,
    };
    let stop = super::interrupt::stop_flag(
        "Ctrl-C: no new games start; the games under way finish, then the result so far is shown (Ctrl-C again quits at once)".to_string(),
        "stopped at once; the games counted so far are in the --pgn file, if one was given".to_string(),
    );
    let bar = super::progress::Progress::new((args.games - first) as u64, "games", args.quiet || args.jsonl);
    let so_far: Mutex<Wdl> = Mutex::new(prior.wdl);
    // Games finished, including any an SPRT decision later drops: the throughput counts them.
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let start = Instant::now();
    let mut last_json = Instant::now();
    let mut write_failure: Option<anyhow::Error> = None;
    let kept = m.run_from(
        first,
        prior,
        threads,
        &stop,
        |p| {
            finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut w = so_far.lock().unwrap_or_else(|e| e.into_inner());
            w.add(p.a_result());
            let elo = w.elo().map_or("-".to_string(), |e| {
                format!("{:+.0}", if e.abs() < 0.5 { 0.0 } else { e })
            });
            bar.tick(&format!("W {} D {} L {}  Elo {elo}", w.wins, w.draws, w.losses));
            if args.jsonl {
                println!("{}", game_json(p));
            }
        },
        |p| {
            summary.add(&p);
            if write_failure.is_some() {
                return;
            }
            let mut written = Ok(());
            if let (Some(file), Some(path)) = (&mut pgn_file, &args.pgn) {
                use std::io::Write;
                written = file
                    .write_all(pgn_text(&args, std::slice::from_ref(&p)).as_bytes())
                    .and_then(|()| file.flush())
                    .with_context(|| format!("cannot write {}", path.display()));
            }
            // The summary so far, at most every two seconds: rewriting it after every game
            // would cost more than fast games do.
            if let Some(path) = args.json.as_ref().filter(|_| written.is_ok()) {
                if last_json.elapsed() >= Duration::from_secs(2) {
                    last_json = Instant::now();
                    written = write_json(path, &summary, &args, true);
                }
            }
            if let Err(e) = written {
                write_failure = Some(e);
            }
        },
    )?;
    bar.finish();
    if let Some(e) = write_failure {
        return Err(e);
    }
    let interrupted = stop.load(std::sync::atomic::Ordering::SeqCst);
    if kept == 0 {
        bail!("stopped before any game finished");
    }
    let kept = first + kept;
    let seconds = start.elapsed().as_secs_f64();
    let wdl = &summary.tally.wdl;

    // With --jsonl, standard output stays JSON: the words go to standard error.
    let say = |line: String| {
        if args.jsonl {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    if interrupted {
        say(format!("Interrupted: {} of {} games played", kept, args.games));
    }
    if first > 0 {
        say(format!(
            "Resumed after game {first} of {}: the score counts every game, the nodes and clock lines this session's {}",
            args.pgn.as_deref().map_or(String::new(), |p| p.display().to_string()),
            kept - first
        ));
    }
    say(format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}]  {} games",
        args.a,
        args.b,
        wdl.wins,
        wdl.losses,
        wdl.draws,
        wdl.score(),
        wdl.games()
    ));
    say(format!("{}, LOS: {:.1}%", elo_line(wdl), 100.0 * wdl.los()));
    say(format!(
        "Pairs (A's points 0, 1/2, 1, 3/2, 2): {}",
        summary
            .tally
            .pairs
            .0
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    ));
    if let Some(t) = sprt {
        let (lo, hi) = t.bounds();
        let pairs = &summary.tally.pairs;
        let verdict = match t.decide(pairs) {
            Some(SprtDecision::H1) => "H1 accepted (A is stronger)",
            Some(SprtDecision::H0) => "H0 accepted",
            None => "no decision yet",
        };
        say(format!(
            "SPRT [{}, {}]: LLR {:.2} ({lo:.2}, {hi:.2}) {verdict}",
            t.elo0,
            t.elo1,
            t.llr(pairs)
        ));
    }
    let ending_list: Vec<String> = summary.endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    say(format!("Endings: {}", ending_list.join(", ")));
    say(format!(
        "{:.1} plies/game, {} nodes, {:.1} s, {:.2} games/s on {threads} thread{}",
        summary.plies_mean(),
        summary.nodes,
        seconds,
        finished.into_inner() as f64 / seconds,
        if threads == 1 { "" } else { "s" }
    ));
    if matches!(budget, Budget::Clock { .. }) {
        say(format!(
            "Clock: {} time forfeits, {} illegal moves, {} false draw claims",
            summary.forfeits, summary.illegal, summary.false_claims
        ));
    }
    for (name, clock) in [(&args.a, &summary.clocks[0]), (&args.b, &summary.clocks[1])] {
        if let Some(line) = clock.line() {
            say(format!("{name}: {line}"));
        }
    }
    for f in summary.faults.iter().take(5) {
        say(format!("Fault: {f}"));
    }
    if let Some(path) = &args.json {
        write_json(path, &summary, &args, interrupted)?;
    }
    if args.jsonl {
        println!("{}", summary_json(&summary, &args, interrupted));
    }
    if interrupted {
        std::process::exit(super::interrupt::EXIT_INTERRUPTED);
    }
    Ok(())
}

/// One finished game for `--jsonl`: its number (1-based, schedule order), A's seat, the
/// result from A's point of view, how it ended and its length.
pub fn game_json<G: Game>(p: &arena::Played<G>) -> serde_json::Value {
    let r = p.a_result();
    let result = if r.wins == 1 {
        "win"
    } else if r.losses == 1 {
        "loss"
    } else {
        "draw"
    };
    serde_json::json!({
        "game": p.index + 1, "a_first": p.a_first, "result": result,
        "ending": p.record.ending.to_string(), "plies": p.record.plies(),
    })
}

/// What a match's counted games add up to, gathered game by game in schedule order.
struct Summary {
    /// A's games and pairs.
    tally: Tally,
    plies: usize,
    nodes: u64,
    endings: BTreeMap<String, u32>,
    forfeits: usize,
    illegal: usize,
    false_claims: usize,
    faults: Vec<String>,
    /// A's and B's depths and clock figures.
    clocks: [ClockStats; 2],
    sprt: Option<Sprt>,
}

impl Summary {
    fn new(sprt: Option<Sprt>) -> Summary {
        Summary {
            tally: Tally::default(),
            plies: 0,
            nodes: 0,
            endings: BTreeMap::new(),
            forfeits: 0,
            illegal: 0,
            false_claims: 0,
            faults: Vec::new(),
            clocks: Default::default(),
            sprt,
        }
    }

    fn add<G: Game>(&mut self, p: &arena::Played<G>) {
        let r = &p.record;
        self.count(p.a_result(), r.plies(), &r.ending.to_string(), Some(r.ending));
        self.nodes += r.nodes.iter().sum::<u64>();
        self.faults.extend(r.fault.clone());
        for (clock, player_a) in self.clocks.iter_mut().zip([true, false]) {
            let seat = if p.a_first == player_a {
                Seat::First
            } else {
                Seat::Second
            };
            clock.add(r, seat);
        }
    }

    /// Counts a game's result for A, its length and its ending (in [`Ending`]'s words, and
    /// as an `Ending` where known): what a PGN record keeps of a game, so that a resumed
    /// match counts its earlier games.
    fn count(&mut self, result: Wdl, plies: usize, ending: &str, kind: Option<Ending>) {
        self.tally.add(result);
        self.plies += plies;
        *self.endings.entry(ending.to_string()).or_default() += 1;
        self.forfeits += usize::from(kind == Some(Ending::Time));
        self.illegal += usize::from(kind == Some(Ending::IllegalMove));
        self.false_claims += usize::from(kind == Some(Ending::FalseClaim));
    }

    fn plies_mean(&self) -> f64 {
        self.plies as f64 / self.tally.wdl.games().max(1) as f64
    }
}

/// One player's depths and clock over a match's games.
#[derive(Default)]
struct ClockStats {
    depth_sum: u64,
    depths: u64,
    moves: u64,
    used_sum: Duration,
    used_max: Duration,
    planned_sum: Duration,
    planned: u64,
    least_left: Option<Duration>,
    /// Moves that came after the flag (within --time-margin, or they would have lost).
    late: usize,
    latest: Duration,
}

impl ClockStats {
    fn add<M>(&mut self, r: &qitune::game::GameRecord<M>, seat: Seat) {
        for (i, d) in r.depths.iter().enumerate() {
            if r.mover(i) == seat {
                self.depth_sum += *d as u64;
                self.depths += 1;
            }
        }
        for t in r.move_times.iter().filter(|t| t.seat == seat) {
            self.moves += 1;
            self.used_sum += t.used;
            self.used_max = self.used_max.max(t.used);
            if let Some(p) = t.planned {
                self.planned_sum += p;
                self.planned += 1;
            }
            let left = t.left.saturating_sub(t.used);
            self.least_left = Some(self.least_left.map_or(left, |l| l.min(left)));
            if t.used > t.left {
                self.late += 1;
                self.latest = self.latest.max(t.used - t.left);
            }
        }
    }

    /// The player's figures: none for a player without timed moves.
    fn figures(&self) -> Option<ClockFigures> {
        if self.moves == 0 {
            return None;
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        Some(ClockFigures {
            moves: self.moves,
            // A player without depths (UCT, or an engine that sends no info) has no mean depth.
            mean_depth: (self.depth_sum > 0).then(|| self.depth_sum as f64 / self.depths.max(1) as f64),
            mean_ms: ms(self.used_sum) / self.moves as f64,
            planned_ms: (self.planned > 0).then(|| ms(self.planned_sum) / self.planned as f64),
            longest_ms: ms(self.used_max),
            least_left_ms: ms(self.least_left.unwrap_or_default()),
            late_moves: self.late,
            latest_ms: ms(self.latest),
        })
    }

    /// The player's mean depth, mean time used a move against its planned time, longest
    /// move and the least time ever left.
    fn line(&self) -> Option<String> {
        let f = self.figures()?;
        let plan = f
            .planned_ms
            .map_or(String::new(), |p| format!(" against {p:.0} ms planned (Et)"));
        let late = match f.late_moves {
            0 => String::new(),
            n => format!(
                "; {n} move{} past the flag within the margin, by at most {:.0} ms",
                if n == 1 { "" } else { "s" },
                f.latest_ms
            ),
        };
        let depth = f
            .mean_depth
            .map_or(String::new(), |d| format!("mean depth {d:.1}; "));
        Some(format!(
            "{depth}per move {:.0} ms used on average{plan}, longest {:.0} ms; least time left after a move {:.0} ms{late}",
            f.mean_ms, f.longest_ms, f.least_left_ms,
        ))
    }
}

/// One player's depth and clock figures over the moves it made in this run's games (a
/// resumed match's earlier games, read back from PGN, have no clock records).
#[derive(serde::Serialize)]
struct ClockFigures {
    moves: u64,
    mean_depth: Option<f64>,
    mean_ms: f64,
    /// The mean expected time (Et) the engine reported planning, where it did.
    planned_ms: Option<f64>,
    longest_ms: f64,
    least_left_ms: f64,
    /// Moves that came past the flag within --time-margin.
    late_moves: usize,
    latest_ms: f64,
}

/// Reads a stopped match's games back from its --pgn file into `summary` and returns how
/// many there are, after checking that they are this match's first games: rounds 1 to N in
/// order, A and B in their seats, each from its scheduled position, each complete.
fn resumed<G: Game>(args: &Args, m: &Match<G>, summary: &mut Summary) -> Result<usize> {
    let path = args.pgn.as_deref().expect("--resume requires --pgn");
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {} to resume the match", path.display()))?;
    let games = pgn::read(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let file = path.display();
    for (i, g) in games.iter().enumerate() {
        let n = i + 1;
        if g.tag("Round") != Some(n.to_string().as_str()) {
            bail!(
                "{file}: game {n} has round {:?}: resume needs this match's games in order, from round 1",
                g.tag("Round").unwrap_or("none")
            );
        }
        if !g.complete {
            bail!("{file}: game {n} is cut short (its moves do not end with its result): remove it, then resume");
        }
        let (start, a_first) = m.schedule(i);
        let (first, second) = if a_first {
            (&args.a, &args.b)
        } else {
            (&args.b, &args.a)
        };
        if g.tag(G::SEATS[0]) != Some(first.as_str()) || g.tag(G::SEATS[1]) != Some(second.as_str()) {
            bail!(
                "{file}: game {n} was {} against {}, not {first} against {second}: resume with the match's own --a and --b",
                g.tag(G::SEATS[0]).unwrap_or("?"),
                g.tag(G::SEATS[1]).unwrap_or("?")
            );
        }
        if g.tag("FEN") != Some(G::fen(start).as_str()) {
            bail!("{file}: game {n} started from another position than this match schedules: resume with the same --positions, --order and --seed");
        }
        let result = g.tag("Result").unwrap_or("none");
        let Some(winner) = pgn::winner_of(result) else {
            bail!("{file}: game {n} has result {result:?}, not 1-0, 0-1 or 1/2-1/2");
        };
        let a_seat = if a_first { Seat::First } else { Seat::Second };
        let plies = g.tag("PlyCount").and_then(|p| p.parse().ok()).unwrap_or(0);
        let ending = g.tag("Termination").unwrap_or("unknown");
        // Only the fixed endings are counted apart (forfeits, illegal moves, false claims).
        let kind = Ending::from_words(ending, None, None);
        summary.count(arena::result_of(winner, a_seat), plies, ending, kind);
    }
    if games.len() >= args.games {
        bail!(
            "{file} already holds {} games, all of the --games {}: nothing to resume",
            games.len(),
            args.games
        );
    }
    if let Some(t) = summary.sprt {
        if t.decide(&summary.tally.pairs).is_some() && games.len() % 2 == 0 {
            bail!(
                "{file}: the SPRT already decided after its {} games: nothing to resume",
                games.len()
            );
        }
    }
    Ok(games.len())
}

/// The summary as JSON; `partial` says the match has not played all its games (still
/// running, or interrupted).
fn summary_json(s: &Summary, args: &Args, partial: bool) -> serde_json::Value {
    let (w, pairs) = (&s.tally.wdl, &s.tally.pairs);
    let sprt = s.sprt.map(|t| {
        let (lo, hi) = t.bounds();
        serde_json::json!({"elo0": t.elo0, "elo1": t.elo1, "llr": t.llr(pairs), "lower": lo,
            "upper": hi, "decision": t.decide(pairs)})
    });
    serde_json::json!({
        "a": args.a, "b": args.b, "partial": partial,
        "games": w.games(), "wins": w.wins, "draws": w.draws, "losses": w.losses,
        "score": w.score(), "elo": w.elo(), "elo_error": w.elo_error(), "los": w.los(),
        "plies_mean": s.plies_mean(), "nodes": s.nodes,
        "time_forfeits": s.forfeits, "illegal_moves": s.illegal,
        "false_draw_claims": s.false_claims, "endings": s.endings,
        "pentanomial": pairs.0, "faults": s.faults,
        "clock": {"a": s.clocks[0].figures(), "b": s.clocks[1].figures()},
        "sprt": sprt,
    })
}

/// Writes the summary as JSON, atomically.
fn write_json(path: &std::path::Path, s: &Summary, args: &Args, partial: bool) -> Result<()> {
    let text =
        serde_json::to_string_pretty(&summary_json(s, args, partial)).expect("summary serialises") + "\n";
    qitune::fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The games as PGN, each naming its players by the command line's names.
fn pgn_text<G: Game>(args: &Args, played: &[arena::Played<G>]) -> String {
    let mut text = String::new();
    for p in played {
        let (red, black) = if p.a_first {
            (&args.a, &args.b)
        } else {
            (&args.b, &args.a)
        };
        text.push_str(&pgn::game::<G>(
            &p.record,
            "qitune match",
            p.index + 1,
            red,
            black,
        ));
    }
    text
}

/// The Elo line: the difference and its 95% interval, in words where a bound is infinite
/// (every game won or lost, or an interval that reaches a score of 0 or 1).
fn elo_line(wdl: &Wdl) -> String {
    // -0.0 is shown as 0.0.
    let num = |v: f64| format!("{:.1}", if v.abs() < 0.05 { 0.0 } else { v });
    match (wdl.elo(), wdl.elo_error()) {
        (Some(e), Some(d)) => format!("Elo difference: {} +/- {} (95%)", num(e), num(d)),
        (Some(e), None) => format!(
            "Elo difference: {} (the interval is unbounded: too few games)",
            num(e)
        ),
        (None, _) if wdl.score() >= 1.0 => "Elo difference: unbounded (every game won)".to_string(),
        (None, _) => "Elo difference: unbounded (every game lost)".to_string(),
    }
}

/// The memory the system can still give, in MiB (Linux's MemAvailable), if it says.
fn available_mib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}
