//! `qitune label`: a mentor's scores of a position file, for fitting the evaluation on them.

use super::interrupt;
use super::progress::Progress;
use anyhow::{bail, Context, Result};
use qitune::arena::label::{label, Label, Unlabelled};
use qitune::arena::outside::Engines;
use qitune::arena::{self, Agent};
use qitune::game::{Game, Limit};
use qitune::games::{with_game, WithGame};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Score positions with a mentor (the built-in engine, a weight file or an outside UCCI/UCI
/// engine) searching each to a fixed depth or node count; writes one CSV row a position
/// (`fen,score,depth,fault`: the score for the side to move, in the mentor's units), as it
/// goes, so that a stopped labelling goes on with --resume.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// The positions to score (one FEN a line).
    #[arg(long)]
    positions: PathBuf,
    /// Who scores them: `default`, a weight file, `ucci:COMMAND`, `uci:COMMAND` or an
    /// engine description file.
    #[arg(long)]
    mentor: String,
    /// Search depth a position.
    #[arg(long, value_parser = super::positive::<u32>, conflicts_with = "nodes", required_unless_present = "nodes")]
    depth: Option<u32>,
    /// Search nodes a position.
    #[arg(long, value_parser = super::positive::<u64>)]
    nodes: Option<u64>,
    /// Where the labels go (CSV).
    #[arg(long)]
    out: PathBuf,
    /// Goes on with the labels already in --out (made from the same positions).
    #[arg(long)]
    resume: bool,
    /// Worker threads, one mentor each (default: all cores).
    #[arg(long, value_parser = super::threads_count)]
    threads: Option<usize>,
    /// Hash table of the built-in engine, MiB (a fresh one for each position).
    #[arg(long, default_value_t = 16, value_parser = super::in_range::<1, 4096>)]
    hash: usize,
}

/// One row of a label file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    fen: String,
    /// For the side to move; empty where the position has no label.
    score: Option<i32>,
    depth: Option<u32>,
    /// Why a position has no label (the game is over, the mentor failed on it twice).
    fault: String,
}

impl Row {
    fn new(fen: &str, label: Result<Label, Unlabelled>) -> Row {
        let (score, depth, fault) = match label {
            Ok(l) => (Some(l.score), Some(l.depth), String::new()),
            Err(e) => (None, None, e.to_string()),
        };
        Row {
            fen: fen.to_string(),
            score,
            depth,
            fault,
        }
    }
}

/// Positions labelled between two appends to the file: what a Ctrl-C can lose at most.
const CHUNK_PER_THREAD: usize = 8;

pub fn run(args: Args) -> Result<()> {
    struct Label(Args);
    impl WithGame for Label {
        type Output = Result<()>;
        fn call<G: Game>(self) -> Result<()> {
            run_game::<G>(self.0)
        }
    }
    with_game(args.game.name(), Label(args))?
}

fn run_game<G: Game>(args: Args) -> Result<()> {
    let boards = arena::read_positions::<G>(&args.positions)?;
    if boards.is_empty() {
        bail!("{}: no positions", args.positions.display());
    }
    let fens: Vec<String> = boards.iter().map(G::fen).collect();
    let mentor = arena::agent::<G>(&args.mentor).with_context(|| format!("--mentor {}", args.mentor))?;
    let limit = match (args.depth, args.nodes) {
        (Some(d), _) => Limit::Depth(d),
        (None, Some(n)) => Limit::Nodes(n),
        (None, None) => unreachable!("clap requires --depth or --nodes"),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let engines = Engines::new(threads);
    // An outside mentor that cannot start or answer its handshake fails here, before any
    // row is written, rather than on every position.
    if let Agent::Outside(spec) = &mentor {
        engines.give(
            engines
                .take(spec)
                .with_context(|| format!("--mentor {}", args.mentor))?,
        );
    }
    let done = start_file(&args, &fens)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start threads")?;
    let again = format!("{} label {} --resume", super::me(), again_args(&args));
    let turn = interrupt::exit_with(
        format!(
            "stopped: the labels so far are in {}; go on with: {again}",
            args.out.display()
        ),
        None,
        None,
        None,
    );
    let progress = Progress::new((boards.len() - done) as u64, "positions", false);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let mut faults = 0;
    for start in (done..boards.len()).step_by(threads * CHUNK_PER_THREAD) {
        let end = (start + threads * CHUNK_PER_THREAD).min(boards.len());
        let labels: Vec<_> = pool.install(|| {
            use rayon::prelude::*;
            (start..end)
                .into_par_iter()
                .map(|i| {
                    let l = label::<G>(&mentor, &boards[i], limit, args.hash, &engines);
                    progress.tick("");
                    l
                })
                .collect()
        });
        let mut out = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        for (i, l) in (start..end).zip(labels) {
            faults += usize::from(l.as_ref().is_err_and(Unlabelled::is_fault));
            out.serialize(Row::new(&fens[i], l))
                .context("cannot write a label")?;
        }
        let bytes = out.into_inner().context("cannot write a label")?;
        // One write of whole rows under the turn: a Ctrl-C waits for it.
        let _writing = turn.take();
        file.write_all(&bytes)
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", args.out.display()))?;
    }
    progress.finish();
    let mentor_name = match &mentor {
        Agent::Weights(_) => args.mentor.clone(),
        Agent::Outside(e) => e.name.clone(),
    };
    let limit = match limit {
        Limit::Depth(d) => format!("depth {d}"),
        Limit::Nodes(n) => format!("{n} nodes"),
        Limit::Clock { .. } => unreachable!("labels have a depth or a node count"),
    };
    let failed = match faults {
        0 => String::new(),
        n => format!("; the mentor failed on {n} of this session's (see their fault column)"),
    };
    super::out(format!(
        "{} positions labelled by {mentor_name} at {limit} in {}{failed}",
        boards.len(),
        args.out.display()
    ));
    Ok(())
}

/// The rows already in `--out` with `--resume`, else a new file holding the header alone:
/// how many positions are done.
fn start_file(args: &Args, fens: &[String]) -> Result<usize> {
    if args.resume {
        return resume(&args.out, fens);
    }
    super::check_new_file(&args.out, false)
        .map_err(|e| anyhow::anyhow!("{e} (--resume goes on with its labels)"))?;
    std::fs::write(&args.out, "fen,score,depth,fault\n")
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(0)
}

/// The rows already in `path`, checked against the positions they must be the first of; a
/// row cut short by a crash is dropped. Returns how many there are.
fn resume(path: &Path, fens: &[String]) -> Result<usize> {
    let name = path.display();
    let text = qitune::fsutil::read_text(path, 1 << 34).with_context(|| format!("cannot read {name}"))?;
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    if !whole.starts_with("fen,score,depth,fault\n") {
        bail!("{name} is not a label file (its first line is not fen,score,depth,fault)");
    }
    let mut rows = 0;
    for (i, row) in csv::Reader::from_reader(whole.as_bytes())
        .deserialize::<Row>()
        .enumerate()
    {
        let row = row.with_context(|| format!("{name}, line {}", i + 2))?;
        match fens.get(i) {
            Some(fen) if *fen == row.fen => rows += 1,
            Some(fen) => bail!(
                "{name}, line {}: labels {} where the positions have {fen}; it was made from other positions",
                i + 2,
                row.fen
            ),
            None => bail!("{name} has more rows than the positions have lines"),
        }
    }
    if whole.len() < text.len() {
        qitune::fsutil::write_atomic(path, whole.as_bytes())
            .with_context(|| format!("cannot write {name}"))?;
    }
    Ok(rows)
}

/// The arguments that say what to label, for the line that resumes it.
fn again_args(args: &Args) -> String {
    let mut words = vec![
        format!("--positions {}", args.positions.display()),
        format!("--mentor {}", args.mentor),
        format!("--out {}", args.out.display()),
    ];
    match (args.depth, args.nodes) {
        (Some(d), _) => words.push(format!("--depth {d}")),
        (None, Some(n)) => words.push(format!("--nodes {n}")),
        (None, None) => {}
    }
    if args.game != super::GameKind::Xiangqi {
        words.insert(0, format!("--game {}", args.game.name()));
    }
    if args.hash != 16 {
        words.push(format!("--hash {}", args.hash));
    }
    words.join(" ")
}
