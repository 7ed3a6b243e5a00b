//! `qitune match`: play two engines against each other.

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use qitune::arena::stats::{Pentanomial, Sprt, SprtDecision, Wdl};
use qitune::arena::{self, pgn, Match};
use qitune::game::{Adjudication, Budget, Ending, Player};
use qitune::game::{AmazonsGame, Game, XiangqiGame};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Play a match between two players and report W/D/L and Elo with a 95% error bar.
///
/// A player is `default` (the built-in weights), `material` (material only), `random:SEED`,
/// or a weight file.
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
    #[arg(long)]
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
    /// Sequential test ELO0,ELO1 (alpha = beta = 0.05); the match stops when it decides.
    #[arg(long)]
    sprt: Option<String>,
    /// Adjudicate a loss: SCORE,MOVES (both engines see a side behind by SCORE for MOVES moves each).
    #[arg(long)]
    resign: Option<String>,
    /// Adjudicate a draw: SCORE,MOVES,PLY (after PLY, all scores within SCORE for MOVES moves each).
    #[arg(long)]
    draw: Option<String>,
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
    let bad = || anyhow::anyhow!("--tc '{text}' is not BASE+INC in seconds (e.g. 2+0.1)");
    let (base, inc) = text.split_once('+').ok_or_else(bad)?;
    let secs = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(bad)
    };
    let (base, inc) = (secs(base)?, secs(inc)?);
    if base <= 0.0 {
        bail!("--tc '{text}': the base time must be positive");
    }
    // A day a game is already far beyond any match anyone waits for.
    if base > 86_400.0 || inc > 86_400.0 {
        bail!("--tc '{text}': base and increment are at most 86400 seconds (a day)");
    }
    Ok(Budget::Clock {
        base: Duration::from_secs_f64(base),
        increment: Duration::from_secs_f64(inc),
    })
}

pub fn run(args: Args) -> Result<()> {
    match args.game {
        super::GameKind::Xiangqi => run_game::<XiangqiGame>(args),
        super::GameKind::Amazons => {
            if args.tc.is_some() {
                bail!("Amazons matches take --nodes (UCT playouts a move) or --depth (alpha-beta), not --tc");
            }
            // Alpha-beta looks at 24 moves a node: depth 4 is already about a second a move.
            if args.depth.is_some_and(|d| d > 4) {
                bail!("--depth for Amazons (alpha-beta, 24 moves a node) must be at most 4");
            }
            run_game::<AmazonsGame>(args)
        }
    }
}

fn run_game<G: Game>(args: Args) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    // Openings are made up front, one per pair: the bound keeps that within memory.
    if args.games > 1_000_000 {
        bail!("--games must be at most 1000000");
    }
    let budget = match (args.nodes, args.depth, &args.tc) {
        (Some(0), _, _) => bail!("--nodes must be at least 1"),
        (Some(n), _, _) => Budget::Nodes(n),
        (_, Some(0), _) => bail!("--depth must be at least 1"),
        (_, Some(d), _) => Budget::Depth(d),
        (_, _, Some(tc)) => parse_tc(tc)?,
        _ => Budget::Nodes(10_000),
    };
    let a = arena::player_weights::<G>(&args.a)
        .map_err(anyhow::Error::msg)
        .context("player A")?;
    let b = arena::player_weights::<G>(&args.b)
        .map_err(anyhow::Error::msg)
        .context("player B")?;
    let positions = match &args.positions {
        Some(path) => {
            let mut boards = arena::read_positions::<G>(path).map_err(anyhow::Error::msg)?;
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
    if threads == 0 {
        bail!("--threads must be at least 1");
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
        a: Player { weights: a, budget },
        b: Player { weights: b, budget },
        positions,
        games: args.games,
        max_plies: args.max_plies,
        adjudication,
        sprt,
        tt_mb: budget.tt_mb(),
    };

    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise} eta {eta}]")
            .expect("valid template"),
    );
    let so_far = Mutex::new(Wdl::default());
    // Games finished, including any an SPRT decision later drops: the throughput counts them.
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let start = Instant::now();
    let played = m
        .run(threads, |p| {
            finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut w = so_far.lock().unwrap_or_else(|e| e.into_inner());
            let r = p.a_result();
            *w = Wdl {
                wins: w.wins + r.wins,
                draws: w.draws + r.draws,
                losses: w.losses + r.losses,
            };
            let elo = w.elo().map_or("-".to_string(), |e| format!("{e:+.0}"));
            bar.set_message(format!("W {} D {} L {}  Elo {elo}", w.wins, w.draws, w.losses));
            bar.inc(1);
        })
        .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();

    let wdl = arena::tally(&played);
    let plies: usize = played.iter().map(|p| p.record.plies()).sum();
    let nodes: u64 = played.iter().map(|p| p.record.nodes.iter().sum::<u64>()).sum();
    let mut endings: BTreeMap<String, u32> = BTreeMap::new();
    for p in &played {
        *endings.entry(p.record.ending.to_string()).or_default() += 1;
    }
    let forfeits = played.iter().filter(|p| p.record.ending == Ending::Time).count();
    let results: Vec<Wdl> = played.iter().map(|p| p.a_result()).collect();
    let penta = Pentanomial::from_pairs(&results);
    let elo = wdl.elo();
    let err = wdl.elo_error();
    let fmt = |v: Option<f64>, inf: &str| v.map_or(inf.to_string(), |v| format!("{v:.1}"));
    println!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}]  {} games",
        args.a,
        args.b,
        wdl.wins,
        wdl.losses,
        wdl.draws,
        wdl.score(),
        wdl.games()
    );
    println!(
        "Elo difference: {} +/- {} (95%), LOS: {:.1}%",
        fmt(elo, if wdl.score() >= 1.0 { "+inf" } else { "-inf" }),
        fmt(err, "inf"),
        100.0 * wdl.los()
    );
    println!(
        "Pairs (A's points 0, 1/2, 1, 3/2, 2): {}",
        penta
            .0
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let sprt_summary = sprt.map(|t| {
        let (lo, hi) = t.bounds();
        let llr = t.llr(&wdl);
        let verdict = match t.decide(&wdl) {
            Some(SprtDecision::H1) => "H1 accepted (A is stronger)",
            Some(SprtDecision::H0) => "H0 accepted",
            None => "no decision yet",
        };
        println!(
            "SPRT [{}, {}]: LLR {llr:.2} ({lo:.2}, {hi:.2}) {verdict}",
            t.elo0, t.elo1
        );
        serde_json::json!({"elo0": t.elo0, "elo1": t.elo1, "llr": llr, "lower": lo, "upper": hi,
            "decision": t.decide(&wdl)})
    });
    let ending_list: Vec<String> = endings.iter().map(|(k, v)| format!("{k} {v}")).collect();
    println!("Endings: {}", ending_list.join(", "));
    println!(
        "{:.1} plies/game, {} nodes, {:.1} s, {:.2} games/s on {threads} thread{}",
        plies as f64 / played.len() as f64,
        nodes,
        seconds,
        finished.into_inner() as f64 / seconds,
        if threads == 1 { "" } else { "s" }
    );
    let times: Vec<(Duration, Duration)> = played
        .iter()
        .flat_map(|p| p.record.move_times.iter().copied())
        .collect();
    if !times.is_empty() {
        let used: f64 = times.iter().map(|t| t.0.as_secs_f64()).sum::<f64>() / times.len() as f64;
        let budget: f64 = times.iter().map(|t| t.1.as_secs_f64()).sum::<f64>() / times.len() as f64;
        let max = times.iter().map(|t| t.0).max().unwrap_or_default();
        println!(
            "Clock: {forfeits} time forfeits; per move {:.0} ms used on average against a {:.0} ms budget (Et), longest {:.0} ms",
            used * 1000.0,
            budget * 1000.0,
            max.as_secs_f64() * 1000.0
        );
    }
    if let Some(path) = &args.pgn {
        let mut text = String::new();
        for p in &played {
            let (red, black) = if p.a_is_red {
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
        qitune::fsutil::write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &args.json {
        let summary = serde_json::json!({
            "a": args.a, "b": args.b,
            "games": wdl.games(), "wins": wdl.wins, "draws": wdl.draws, "losses": wdl.losses,
            "score": wdl.score(), "elo": elo, "elo_error": err, "los": wdl.los(),
            "plies_mean": plies as f64 / played.len() as f64, "nodes": nodes,
            "time_forfeits": forfeits, "endings": endings, "pentanomial": penta.0,
            "sprt": sprt_summary,
        });
        let text = serde_json::to_string_pretty(&summary).expect("summary serialises") + "\n";
        qitune::fsutil::write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
