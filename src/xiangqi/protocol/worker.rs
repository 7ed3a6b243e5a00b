//! The thread that runs the session's searches, and the lines it answers with.

use super::Dialect;
use crate::xiangqi::rules::Xiangqi;
use crate::xiangqi::search::{mate_in_moves, Info, Limits, SearchResult, Signals};
use crate::xiangqi::smp::Pool;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// A search for the worker: the searcher goes there and comes back when it has answered.
pub(super) struct Job {
    pub searcher: Pool,
    pub game: Xiangqi,
    pub limits: Limits,
    pub signals: Signals,
    /// UCI forbids answering an infinite search before `stop`.
    pub infinite: bool,
    pub dialect: Dialect,
}

/// The thread that runs searches for the whole session: a thread started for every `go`
/// costs more than a short search (a tuner's games are thousands of them).
pub(super) struct Worker {
    pub jobs: mpsc::Sender<Job>,
    /// Each job's searcher once it has answered; `None` when its search panicked.
    pub done: mpsc::Receiver<Option<Pool>>,
}

impl Worker {
    pub fn start<W: Write + Send + 'static>(out: Arc<Mutex<W>>) -> Worker {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (finished, done) = mpsc::channel();
        std::thread::spawn(move || {
            for job in inbox {
                let out = &out;
                let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    let Job {
                        mut searcher,
                        game,
                        limits,
                        signals,
                        infinite,
                        dialect,
                    } = job;
                    let result = searcher.search(&game, &limits, |info| say(out, &info_line(dialect, info)));
                    while infinite && !signals.stop.load(Ordering::Relaxed) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    say(out, &bestmove_line(dialect, &result));
                    searcher
                }));
                if finished.send(answered.ok()).is_err() {
                    return;
                }
            }
        });
        Worker { jobs, done }
    }
}

pub(super) fn say<W: Write>(out: &Mutex<W>, text: &str) {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    // A closed pipe means the GUI is gone; there is no one left to tell.
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

pub(super) fn info_line(dialect: Dialect, info: &Info) -> String {
    let ms = info.elapsed.as_millis();
    let nps = (info.nodes as u128 * 1_000_000) / info.elapsed.as_micros().max(1);
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    let mut score = match (dialect, mate_in_moves(info.score)) {
        (Dialect::Uci, Some(n)) => format!("mate {n}"),
        (Dialect::Uci, None) => format!("cp {}", info.score),
        (Dialect::Ucci, _) => info.score.to_string(),
    };
    // UCCI has no word for a bound; UCI's keeps a GUI from taking a stopped iteration's
    // score for its value.
    if info.partial && dialect == Dialect::Uci {
        score.push_str(" lowerbound");
    }
    // UCCI's `info` has no selective depth; UCI GUIs show it beside the depth.
    let seldepth = match dialect {
        Dialect::Uci => format!(" seldepth {}", info.seldepth),
        Dialect::Ucci => String::new(),
    };
    format!(
        "info depth {}{seldepth} score {score} nodes {} time {ms} nps {nps} pv {}",
        info.depth,
        info.nodes,
        pv.join(" ")
    )
}

/// The answer when there is no move to give.
pub(super) fn no_move(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ucci => "nobestmove",
        Dialect::Uci => "bestmove (none)",
    }
}

pub(super) fn bestmove_line(dialect: Dialect, result: &SearchResult) -> String {
    match (result.best, dialect) {
        (None, d) => no_move(d).to_string(),
        (Some(best), _) => match result.ponder {
            Some(p) => format!("bestmove {best} ponder {p}"),
            None => format!("bestmove {best}"),
        },
    }
}
