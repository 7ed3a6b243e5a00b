//! `qitune match`: play two engines against each other.

mod resume;
mod summary;

use super::interrupt::Interrupted;
use anyhow::{bail, Context, Result};
use qitune::arena::stats::{Sprt, Wdl};
use qitune::arena::{self, pgn, Conditions, Match};
use qitune::arena::{Agent, Player};
use qitune::game::{Adjudication, Budget, DrawRule, Game, Resign};
use qitune::games::{with_game, WithGame};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use summary::Summary;

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
    #[arg(long, default_value_t = 100, value_parser = super::in_range::<1, 1_000_000>)]
    games: usize,
    /// Nodes per move.
    #[arg(long, conflicts_with_all = ["depth", "tc"], value_parser = super::positive::<u64>)]
    nodes: Option<u64>,
    /// Depth per move.
    #[arg(long, conflicts_with = "tc", value_parser = super::positive::<u32>)]
    depth: Option<u32>,
    /// Clock per game, BASE+INC in seconds (e.g. 2+0.1).
    #[arg(long, value_parser = Budget::clock)]
    tc: Option<Budget>,
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
    #[arg(long, default_value_t = arena::DEFAULT_MAX_PLIES, value_parser = super::positive::<usize>)]
    max_plies: usize,
    /// Write the summary as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write every game as Xiangqi PGN (ICCS moves) to this file.
    #[arg(long)]
    pgn: Option<PathBuf>,
    /// Hash table of each embedded engine, MiB, at most 4096 (default: by the budget, 1 to 64).
    #[arg(long, value_parser = super::in_range::<1, 4096>)]
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
    #[arg(long, value_parser = sprt_bounds)]
    sprt: Option<Sprt>,
    /// Adjudicate a loss: SCORE,MOVES (both engines see a side behind by SCORE for MOVES moves each).
    #[arg(long, value_parser = resign_rule)]
    resign: Option<Resign>,
    /// Adjudicate a draw: SCORE,MOVES,PLY (after PLY, all scores within SCORE for MOVES moves each).
    #[arg(long, value_parser = draw_rule)]
    draw: Option<DrawRule>,
    /// No progress bar and no progress lines: only the result.
    #[arg(long, conflicts_with = "jsonl")]
    quiet: bool,
    /// One JSON object per finished game on standard output (game, A's seat, result for A,
    /// ending, plies), then the result; no progress.
    #[arg(long)]
    jsonl: bool,
}

/// `--sprt ELO0,ELO1`.
fn sprt_bounds(text: &str) -> Result<Sprt, String> {
    match numbers::<f64>(text, 2).as_deref() {
        Some(&[elo0, elo1]) if elo0.is_finite() && elo1.is_finite() && elo0 < elo1 => {
            Ok(Sprt::new(elo0, elo1))
        }
        Some(_) => Err("ELO0 must be below ELO1".to_string()),
        None => Err(format!("'{text}' is not ELO0,ELO1 (e.g. 0,10)")),
    }
}

/// `--resign SCORE,MOVES`.
fn resign_rule(text: &str) -> Result<Resign, String> {
    match numbers::<i64>(text, 2).as_deref() {
        Some(&[score, moves]) if score > 0 && moves > 0 => Ok(Resign {
            score: score.min(i32::MAX as i64) as i32,
            moves: moves as usize,
        }),
        Some(_) => Err("SCORE and MOVES must be positive".to_string()),
        None => Err(format!("'{text}' is not SCORE,MOVES (e.g. 1000,3)")),
    }
}

/// `--draw SCORE,MOVES,PLY`.
fn draw_rule(text: &str) -> Result<DrawRule, String> {
    match numbers::<i64>(text, 3).as_deref() {
        Some(&[score, moves, after]) if score >= 0 && moves > 0 && after >= 0 => Ok(DrawRule {
            score: score.min(i32::MAX as i64) as i32,
            moves: moves as usize,
            after: after as usize,
        }),
        Some(_) => Err("SCORE and PLY must not be negative and MOVES must be positive".to_string()),
        None => Err(format!("'{text}' is not SCORE,MOVES,PLY (e.g. 10,8,80)")),
    }
}

/// `n` comma-separated numbers, if that is what `text` is.
fn numbers<T: std::str::FromStr>(text: &str, n: usize) -> Option<Vec<T>> {
    let values: Vec<T> = text
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    (values.len() == n).then_some(values)
}

/// How a match walks through a position file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Order {
    Sequential,
    Random,
}

pub fn run(args: Args) -> Result<()> {
    struct Play(Args);
    impl WithGame for Play {
        type Output = Result<()>;
        fn call<G: Game>(self) -> Result<()> {
            run_game::<G>(self.0)
        }
    }
    with_game(args.game.name(), Play(args))?
}

/// What one session of a match played.
pub struct Session {
    /// Games read back from the --pgn file of a resumed match.
    pub first: usize,
    /// Games counted, the resumed ones included.
    pub kept: usize,
    /// Games this session finished, those an SPRT decision dropped included.
    pub finished: usize,
    pub seconds: f64,
    pub threads: usize,
    pub interrupted: bool,
}

fn run_game<G: Game>(args: Args) -> Result<()> {
    let (m, threads) = prepare::<G>(&args)?;
    let mut summary = Summary::new(m.sprt);
    let first = if args.resume {
        resume::resumed(&args, &m, &mut summary)?
    } else {
        0
    };
    let session = play(&args, &m, threads, first, &mut summary)?;
    summary::print(&args, &summary, &session, m.a.budget);
    if let Some(path) = &args.json {
        summary::write_json(path, &summary, &args, session.interrupted)?;
    }
    if args.jsonl {
        super::out(summary::summary_json(&summary, &args, session.interrupted));
    }
    if session.interrupted {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// The match the arguments describe, and the threads to play it on, once everything that
/// can be checked before a game starts has been.
fn prepare<G: Game>(args: &Args) -> Result<(Match<G>, usize)> {
    if args.depth.is_some_and(|d| d > G::MAX_DEPTH) {
        bail!("--depth for {} must be at most {}", G::NAME, G::MAX_DEPTH);
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
    let named = args.nodes.is_some() || args.depth.is_some() || args.tc.is_some();
    let budget = match (args.nodes, args.depth, args.tc) {
        (Some(n), _, _) => Budget::Nodes(n),
        (_, Some(d), _) => Budget::Depth(d),
        (_, _, Some(tc)) => tc,
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
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Each game in flight holds two tables of --hash MiB: refuse what the machine cannot hold
    // before a game starts, rather than die of it in the middle.
    if let (Some(mb), Some(available)) = (args.hash, qitune::fsutil::available_memory().map(|b| b >> 20)) {
        let needed = 2 * mb as u64 * threads.min(args.games) as u64;
        if needed > available {
            bail!(
                "--hash {mb} with --threads {threads}: {} games at once of two engines each need {needed} MiB of hash tables, and this machine has {available} MiB available; give a smaller --hash or fewer --threads",
                threads.min(args.games)
            );
        }
    }
    let m = Match {
        a: Player { agent: a, budget },
        b: Player { agent: b, budget },
        positions: openings::<G>(args)?,
        games: args.games,
        conditions: Conditions {
            max_plies: args.max_plies,
            adjudication: Adjudication {
                resign: args.resign,
                draw: args.draw,
            },
            time_margin: Duration::from_millis(args.time_margin),
            tt_mb: args.hash.unwrap_or(budget.tt_mb()),
        },
        sprt: args.sprt,
    };
    Ok((m, threads))
}

/// The start positions: the --positions file in its --order, or one seeded random opening
/// a pair.
fn openings<G: Game>(args: &Args) -> Result<Vec<G::Board>> {
    Ok(match &args.positions {
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
    })
}

/// Plays the match's games from game `first` on, each counted game into `summary` and the
/// --pgn file as soon as every earlier game is done (a crash loses only the games under
/// way), so that only a running summary stays in memory however long the match.
fn play<G: Game>(
    args: &Args,
    m: &Match<G>,
    threads: usize,
    first: usize,
    summary: &mut Summary,
) -> Result<Session> {
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
    let prior = summary.tally;
    let so_far: Mutex<Wdl> = Mutex::new(prior.wdl);
    let finished = AtomicUsize::new(0);
    let start = Instant::now();
    let mut last_json = Instant::now();
    let mut write_failure: Option<anyhow::Error> = None;
    let kept = m.run_from(
        first,
        prior,
        threads,
        &stop,
        |p| {
            finished.fetch_add(1, Ordering::Relaxed);
            let mut w = so_far.lock().unwrap_or_else(|e| e.into_inner());
            w.add(p.a_result());
            let elo = w.elo().map_or("-".to_string(), |e| {
                format!("{:+.0}", if e.abs() < 0.5 { 0.0 } else { e })
            });
            bar.tick(&format!("W {} D {} L {}  Elo {elo}", w.wins, w.draws, w.losses));
            if args.jsonl {
                super::out(game_json(p));
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
                    .write_all(pgn_text(args, std::slice::from_ref(&p)).as_bytes())
                    .and_then(|()| file.flush())
                    .with_context(|| format!("cannot write {}", path.display()));
            }
            // The summary so far, at most every two seconds: rewriting it after every game
            // would cost more than fast games do.
            if let Some(path) = args.json.as_ref().filter(|_| written.is_ok()) {
                if last_json.elapsed() >= Duration::from_secs(2) {
                    last_json = Instant::now();
                    written = summary::write_json(path, summary, args, true);
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
    if kept == 0 {
        bail!("stopped before any game finished");
    }
    Ok(Session {
        first,
        kept: first + kept,
        finished: finished.into_inner(),
        seconds: start.elapsed().as_secs_f64(),
        threads,
        interrupted: stop.load(Ordering::SeqCst),
    })
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
