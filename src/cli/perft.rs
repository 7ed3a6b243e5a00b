//! `qitune perft`: count the leaves of the legal move tree.

use anyhow::{Context, Result};
use qitune::xiangqi::perft::{divide, perft, perft_full};
use qitune::xiangqi::{Board, START_FEN};
use std::time::Instant;

/// Count the leaves of the legal move tree (the move generator's correctness check).
///
/// The last line of standard output is the leaf count alone; timing goes to standard error.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum, default_value = "xiangqi")]
    game: super::GameKind,
    /// Start from this position instead of the standard one.
    #[arg(long)]
    fen: Option<String>,
    /// Moves (ICCS, e.g. "h2e2 h9g7") to play from the position first.
    #[arg(long)]
    moves: Option<String>,
    /// Plies to search.
    #[arg(long)]
    depth: u32,
    /// Print the count below each legal move first.
    #[arg(long)]
    divide: bool,
    /// Make and unmake every leaf move instead of counting the last ply in bulk (Xiangqi).
    #[arg(long)]
    no_bulk: bool,
}

pub fn run(args: Args) -> Result<()> {
    super::quiet_on_closed_pipe();
    if args.game == super::GameKind::Amazons {
        return run_amazons(&args);
    }
    let fen = args.fen.as_deref().unwrap_or(START_FEN);
    let mut board = Board::from_fen(fen).with_context(|| format!("invalid FEN '{fen}'"))?;
    for text in args.moves.iter().flat_map(|m| m.split_whitespace()) {
        let mv = board
            .parse_move(text)
            .map_err(|e| anyhow::anyhow!("{e} (in position {})", board.fen()))?;
        board.make(mv);
    }
    let start = Instant::now();
    let nodes = if args.divide && args.depth > 0 {
        let split = divide(&mut board, args.depth);
        for (mv, n) in &split {
            println!("{mv}: {n}");
        }
        println!();
        split.iter().map(|(_, n)| n).sum()
    } else if args.no_bulk {
        perft_full(&mut board, args.depth)
    } else {
        perft(&mut board, args.depth)
    };
    report(args.depth, nodes, start);
    Ok(())
}

fn run_amazons(args: &Args) -> Result<()> {
    use qitune::amazons;
    let fen = args.fen.as_deref().unwrap_or(amazons::START_FEN);
    let mut board = amazons::Board::from_fen(fen).with_context(|| format!("invalid Amazons FEN '{fen}'"))?;
    for text in args.moves.iter().flat_map(|m| m.split_whitespace()) {
        let mv = board
            .parse_move(text)
            .map_err(|e| anyhow::anyhow!("{e} (in position {})", board.fen()))?;
        board.play(mv);
    }
    let start = Instant::now();
    let nodes = if args.divide && args.depth > 0 {
        let mut total = 0;
        for mv in board.legal_moves() {
            board.play(mv);
            let n = amazons::perft(&mut board, args.depth - 1);
            board.unplay(mv);
            println!("{mv}: {n}");
            total += n;
        }
        println!();
        total
    } else {
        amazons::perft(&mut board, args.depth)
    };
    report(args.depth, nodes, start);
    Ok(())
}

/// Prints the speed to standard error and the count, alone, as the last line of output.
fn report(depth: u32, nodes: u64, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "perft {}: {nodes} leaves in {secs:.3} s ({:.1} M leaves/s)",
        depth,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    println!("{nodes}");
}
