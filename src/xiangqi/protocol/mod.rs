//! The engine protocols: UCCI (seed 002) and the UCI dialect of Pikafish.
//!
//! The first command chooses the dialect (`ucci` or `uci`; UCI if neither comes first).
//! Searches run on a worker thread so that `stop` and `ponderhit` are heard while thinking.
//! A malformed or illegal line gets `info string error: ...` and the engine carries on.

use super::eval::Weights;
use super::game::XiangqiGame;
use super::rules::Xiangqi;
use super::search::{Limits, Signals};
use super::smp::{Pool, MAX_THREADS};
use super::time::TimeControl;
use super::Move;
use crate::game::Game as _;
use crate::params::{Params, WeightFileError};
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use worker::{no_move, say, Job, Worker};

#[cfg(test)]
mod tests;
mod worker;

/// Which protocol the GUI speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ucci,
    Uci,
}

const NAME: &str = concat!("qitune ", env!("CARGO_PKG_VERSION"));
const DEFAULT_HASH_MB: usize = 16;

/// An engine session: reads commands, answers on `out`.
pub struct Engine<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    dialect: Dialect,
    /// `None` after a rejected `position`, until a good one.
    game: Option<Xiangqi>,
    /// The words of the position in `game` (`startpos` or `fen ...`, `moves`, its moves): a
    /// command that only adds moves to it, as a GUI's or an arena's next one does, plays just
    /// those instead of the whole game again.
    position_words: Vec<String>,
    banned: Vec<Move>,
    hash_mb: usize,
    /// `None` while the worker holds it.
    searcher: Option<Pool>,
    /// The thread that runs the searches, started at the first `go`; it holds the searcher
    /// while a search is under way.
    worker: Option<Worker>,
    threads: usize,
    signals: Signals,
    /// UCCI times are in seconds unless `setoption usemillisec true`.
    millis: bool,
    /// The weight file in use, shown in `id name` (`None`: the built-in weights).
    weights_file: Option<String>,
    /// Every tunable parameter's current value: each is a spin option, so that a tuner or a
    /// GUI can set any of them without a weight file.
    params: Params,
    /// Parameters were set since the searcher's weights were built: they are rebuilt once,
    /// before the next search, rather than once per `setoption`.
    params_changed: bool,
}

impl<W: Write + Send + 'static> Engine<W> {
    /// A new session with the given evaluation and search parameters (another game's set
    /// is refused).
    pub fn new(out: W, params: Params) -> Result<Engine<W>, WeightFileError> {
        let weights = Weights::new(&params)?;
        Ok(Engine {
            out: Arc::new(Mutex::new(out)),
            dialect: Dialect::Uci,
            game: Some(Xiangqi::new()),
            position_words: vec!["startpos".to_string(), "moves".to_string()],
            banned: Vec::new(),
            hash_mb: DEFAULT_HASH_MB,
            searcher: Some(Pool::new(weights, DEFAULT_HASH_MB)),
            worker: None,
            threads: 1,
            signals: Signals::default(),
            millis: false,
            weights_file: None,
            params,
            params_changed: false,
        })
    }

    /// The weights of the session's parameters: this game's set, as [`Engine::new`] checked
    /// and `setoption` and `weights` keep it.
    fn weights(&self) -> Weights {
        Weights::new(&self.params).unwrap_or_default()
    }

    /// Names the weight file the engine was started with, for its `id name`.
    pub fn with_weights_file(mut self, path: &str) -> Engine<W> {
        self.weights_file = Some(path.to_string());
        self
    }

    /// `id name`: the version, and the weights when they are not the built-in ones.
    fn id_name(&self) -> String {
        match &self.weights_file {
            Some(f) => format!("id name {NAME} (weights {f})"),
            None => format!("id name {NAME}"),
        }
    }

    /// Reads commands until `quit` or the end of input. Bytes that are not UTF-8 (a GBK path
    /// from a Chinese GUI) do not end the session: such a line is read with replacement
    /// characters and answered like any other.
    pub fn run(&mut self, mut input: impl BufRead) {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if !self.handle(&String::from_utf8_lossy(&buf)) {
                        return;
                    }
                }
            }
        }
        self.finish_search();
    }

    fn say(&self, text: &str) {
        say(&self.out, text);
    }

    fn error(&self, text: &str) {
        self.say(&format!("info string error: {text}"));
    }

    /// Handles one line; returns false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return true;
        };
        match command {
            "ucci" => {
                self.dialect = Dialect::Ucci;
                self.say(&self.id_name());
                self.say("id author the qitune developers");
                self.say(&format!(
                    "option hashsize type spin min 1 max 65536 default {DEFAULT_HASH_MB}"
                ));
                self.say(&format!(
                    "option threads type spin min 1 max {MAX_THREADS} default 1"
                ));
                self.say("option usemillisec type check default false");
                self.say("option ponder type check default true");
                self.say("option newgame type button");
                self.say("option weightsfile type string default <empty>");
                self.say_parameters();
                self.say("ucciok");
            }
            "uci" => {
                self.dialect = Dialect::Uci;
                self.say(&self.id_name());
                self.say("id author the qitune developers");
                self.say(&format!(
                    "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max 65536"
                ));
                self.say(&format!(
                    "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
                ));
                self.say("option name Ponder type check default true");
                self.say("option name WeightsFile type string default <empty>");
                self.say_parameters();
                self.say("uciok");
            }
            "isready" => {
                // Never stops a search (a GUI asks while pondering): new values wait for `go`.
                self.apply_params();
                self.say("readyok");
            }
            "ucinewgame" => self.new_game(),
            "setoption" => self.set_option(args),
            "position" => self.position(args),
            "banmoves" => self.ban(args),
            "go" => self.go(args),
            "stop" => self.finish_search(),
            "ponderhit" => self.signals.ponder.store(false, Ordering::Relaxed),
            "quit" => {
                self.finish_search();
                if self.dialect == Dialect::Ucci {
                    self.say("bye");
                }
                return false;
            }
            "probe" | "d" => match &self.game {
                Some(g) => self.say(&format!("{}", g.board())),
                None => self.error("no position (the last 'position' was rejected)"),
            },
            other => self.error(&format!("unknown command '{other}'")),
        }
        true
    }

    /// One spin option per parameter, its current value the default.
    fn say_parameters(&self) {
        for (spec, value) in self.params.specs().iter().zip(self.params.values()) {
            let (name, min, max) = (&spec.name, spec.min, spec.max);
            self.say(&match self.dialect {
                Dialect::Ucci => format!("option {name} type spin min {min} max {max} default {value}"),
                Dialect::Uci => format!("option name {name} type spin default {value} min {min} max {max}"),
            });
        }
    }

    /// Builds the searcher's weights from the parameters if any was set since.
    fn apply_params(&mut self) {
        if !self.params_changed {
            return;
        }
        let weights = self.weights();
        if let Some(s) = &mut self.searcher {
            s.set_weights(weights);
            self.params_changed = false;
        }
    }

    fn new_game(&mut self) {
        self.finish_search();
        if let Some(s) = &mut self.searcher {
            s.clear();
        }
    }

    fn set_option(&mut self, args: &[&str]) {
        // UCI: setoption name <name> value <value>; UCCI: setoption <name> <value>.
        let (name, value) = if args.first() == Some(&"name") {
            let rest = &args[1..];
            let split = rest.iter().position(|w| *w == "value").unwrap_or(rest.len());
            (
                rest[..split].join(" "),
                rest.get(split + 1..).map(|v| v.join(" ")).unwrap_or_default(),
            )
        } else {
            (
                args.first().copied().unwrap_or("").to_string(),
                args.get(1..).map(|v| v.join(" ")).unwrap_or_default(),
            )
        };
        self.finish_search();
        match name.to_ascii_lowercase().as_str() {
            "hash" | "hashsize" => match value.parse::<usize>() {
                Ok(mb) if (1..=65536).contains(&mb) => {
                    let resized = match &mut self.searcher {
                        Some(s) => s.resize_tt(mb),
                        None => Ok(()),
                    };
                    match resized {
                        Ok(()) => self.hash_mb = mb,
                        Err(e) => self.error(&e.to_string()),
                    }
                }
                _ => self.error(&format!(
                    "hash size '{value}' is not a whole number of MiB from 1 to 65536"
                )),
            },
            "usemillisec" => self.millis = value.eq_ignore_ascii_case("true"),
            "threads" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_THREADS).contains(&n) => {
                    if let Some(s) = &mut self.searcher {
                        s.set_threads(n);
                    }
                    self.threads = n;
                }
                _ => self.error(&format!(
                    "threads '{value}' is not a whole number from 1 to {MAX_THREADS}"
                )),
            },
            "ponder" | "idle" | "batch" | "debug" | "usebook" | "bookfiles" | "multipv" => {}
            "newgame" => self.new_game(),
            "weightsfile" | "weights" => {
                match Params::load(
                    Path::new(value.trim()),
                    XiangqiGame::NAME,
                    &XiangqiGame::specs(),
                    XiangqiGame::RETIRED,
                ) {
                    Ok(params) => {
                        self.params = params;
                        let weights = self.weights();
                        if let Some(s) = &mut self.searcher {
                            s.set_weights(weights);
                            s.clear();
                        }
                        self.params_changed = false;
                        self.weights_file = Some(value.trim().to_string());
                    }
                    Err(e) => self.error(&e.to_string()),
                }
            }
            "" => self.error("setoption needs an option name"),
            other => match self.params.index_of(other) {
                Some(i) => {
                    let spec = self.params.specs()[i].clone();
                    match value
                        .trim()
                        .parse::<i64>()
                        .map(|v| self.params.set(&spec.name, v))
                    {
                        Ok(Ok(())) => self.params_changed = true,
                        _ => self.error(&format!(
                            "option {}: '{value}' is not a whole number from {} to {}",
                            spec.name, spec.min, spec.max
                        )),
                    }
                }
                None => self.error(&format!("unknown option '{other}'")),
            },
        }
    }

    fn position(&mut self, args: &[&str]) {
        let moves_at = args.iter().position(|w| *w == "moves").unwrap_or(args.len());
        let (setup, moves) = (&args[..moves_at], args.get(moves_at + 1..).unwrap_or(&[]));
        self.finish_search();
        self.banned.clear();
        // The command's words as `position_words` keeps them: the start, "moves", the moves.
        let words: Vec<String> = setup
            .iter()
            .chain(&["moves"])
            .chain(moves)
            .map(|w| w.to_string())
            .collect();
        // The same start and the moves already played, then more: only those are played.
        let (game, from) = match self.game.take() {
            Some(game) if words.starts_with(&self.position_words) => (Ok(game), self.position_words.len()),
            _ => {
                let game = match setup.first() {
                    Some(&"startpos") if setup.len() == 1 => Ok(Xiangqi::new()),
                    Some(&"fen") if setup.len() > 1 => {
                        Xiangqi::from_fen(&setup[1..].join(" ")).map_err(|e| e.to_string())
                    }
                    _ => Err("position needs 'startpos' or 'fen <FEN>'".to_string()),
                };
                (game, setup.len() + 1)
            }
        };
        // A rejected position leaves none: a GUI must never get a move for another position.
        self.position_words.clear();
        let mut game = match game {
            Ok(g) => g,
            Err(e) => return self.error(&format!("position: {e}")),
        };
        for text in &words[from..] {
            if let Err(e) = game.play_iccs(text) {
                return self.error(&format!("position: {e}"));
            }
        }
        self.game = Some(game);
        self.position_words = words;
    }

    fn ban(&mut self, args: &[&str]) {
        let Some(game) = &self.game else {
            return self.error("banmoves: no position (the last 'position' was rejected)");
        };
        let mut banned = Vec::new();
        for text in args {
            match game.board().parse_move(text) {
                Ok(m) => banned.push(m),
                Err(e) => return self.error(&format!("banmoves: {e}")),
            }
        }
        self.banned = banned;
    }

    fn go(&mut self, args: &[&str]) {
        // A search under way answers first, so that answers come in the order of the `go`s.
        self.finish_search();
        self.apply_params();
        // Every `go` is answered, so that a GUI never waits: an error line, then no move.
        let Some(game) = self.game.clone() else {
            self.error("go: no position to search (the last 'position' was rejected)");
            return self.say(no_move(self.dialect));
        };
        let (limits, ponder, infinite) = match self.parse_go(&game, args) {
            Ok(x) => x,
            Err(e) => {
                self.error(&format!("go: {e}"));
                return self.say(no_move(self.dialect));
            }
        };
        let Some(mut searcher) = self.searcher.take() else {
            return self.error("go: the engine is busy");
        };
        let signals = Signals::default();
        signals.ponder.store(ponder, Ordering::Relaxed);
        searcher.set_signals(signals.clone());
        self.signals = signals.clone();
        let worker = self
            .worker
            .get_or_insert_with(|| Worker::start(Arc::clone(&self.out)));
        let job = Job {
            searcher,
            game,
            limits,
            signals,
            infinite,
            dialect: self.dialect,
        };
        if let Err(mpsc::SendError(job)) = worker.jobs.send(job) {
            // The worker is gone: a new one next time; this search gets no move.
            self.searcher = Some(job.searcher);
            self.worker = None;
            self.error("go: the search thread is gone");
            self.say(no_move(self.dialect));
        }
    }

    /// Parses `go` arguments: the limits, whether to ponder, whether to wait for `stop`.
    fn parse_go(&self, game: &Xiangqi, args: &[&str]) -> Result<(Limits, bool, bool), String> {
        let mut limits = Limits {
            banned: self.banned.clone(),
            ..Limits::default()
        };
        let (mut ponder, mut infinite) = (false, false);
        let (mut left, mut inc, mut movestogo, mut movetime) = (None, Duration::ZERO, None, None);
        let red = game.board().turn() == super::Color::Red;
        let mut i = 0;
        let number = |i: usize| -> Result<f64, String> {
            let word = args
                .get(i + 1)
                .ok_or_else(|| format!("'{}' needs a value", args[i]))?;
            word.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| format!("'{word}' is not a valid value for '{}'", args[i]))
        };
        // Absurdly long clocks are taken as 30 years rather than overflowing a Duration.
        let secs = |v: f64| Duration::from_secs_f64(v.min(1e9));
        let ucci_time = |v: f64| if self.millis { secs(v / 1000.0) } else { secs(v) };
        let ms = |v: f64| secs(v / 1000.0);
        while i < args.len() {
            let takes_value = match args[i] {
                "ponder" => {
                    ponder = true;
                    false
                }
                "infinite" => {
                    infinite = true;
                    false
                }
                "draw" => false,
                "depth" => {
                    limits.depth = Some((number(i)? as u32).max(1));
                    true
                }
                "nodes" => {
                    limits.nodes = Some((number(i)? as u64).max(1));
                    true
                }
                "movetime" => {
                    movetime = Some(ms(number(i)?));
                    true
                }
                "time" => {
                    left = Some(ucci_time(number(i)?));
                    true
                }
                "increment" => {
                    inc = ucci_time(number(i)?);
                    true
                }
                "opptime" | "oppincrement" | "mate" => {
                    number(i)?;
                    true
                }
                "movestogo" => {
                    movestogo = Some(number(i)? as u32);
                    true
                }
                "wtime" | "btime" => {
                    let v = ms(number(i)?);
                    if (args[i] == "wtime") == red {
                        left = Some(v);
                    }
                    true
                }
                "winc" | "binc" => {
                    let v = ms(number(i)?);
                    if (args[i] == "winc") == red {
                        inc = v;
                    }
                    true
                }
                other => return Err(format!("unknown parameter '{other}'")),
            };
            i += 1 + takes_value as usize;
        }
        limits.time = match (movetime, left) {
            (Some(t), _) => Some(TimeControl::MoveTime(t)),
            (None, Some(left)) => Some(TimeControl::Clock {
                left,
                increment: inc,
                moves_to_go: movestogo,
            }),
            (None, None) => None,
        };
        Ok((limits, ponder, infinite))
    }

    /// Stops a running search and waits for its answer.
    fn finish_search(&mut self) {
        if self.searcher.is_some() {
            return;
        }
        self.signals.stop.store(true, Ordering::Relaxed);
        self.signals.ponder.store(false, Ordering::Relaxed);
        match self.worker.as_ref().and_then(|w| w.done.recv().ok().flatten()) {
            Some(s) => self.searcher = Some(s),
            None => {
                self.error("the search failed; starting afresh");
                self.worker = None;
                let mut fresh = Pool::new(self.weights(), self.hash_mb);
                fresh.set_threads(self.threads);
                self.searcher = Some(fresh);
            }
        }
    }
}
