//! Outside engines as players: a UCCI or UCI engine process driven over its pipes, with the
//! arena keeping the clock and judging every answer.
//!
//! A process plays one game at a time; between games it waits in the runner's pool
//! ([`Engines`]) for the next. A crashed or hung engine costs its game and nothing more: it
//! is never reused, and the next game starts a fresh one.

use crate::game::{Ending, Game, Limit, Seat, Thought};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long an engine may take to start, to answer `isready`, and to answer `stop` once its
/// clock has run out.
const HANDSHAKE: Duration = Duration::from_secs(10);
const STOP_GRACE: Duration = Duration::from_secs(1);
/// Without a clock (depth or node limits) an engine that has not answered by then hangs.
const UNTIMED_LIMIT: Duration = Duration::from_secs(600);

/// An outside engine: how to start it and talk to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutsideEngine {
    /// The name in records; defaults to the command.
    #[serde(default)]
    pub name: String,
    /// The program.
    pub path: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// The folder it runs in (relative paths in `args` are read from there); in a
    /// description file or a run configuration, relative to that file's folder. Default:
    /// qitune's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    pub protocol: Protocol,
    /// Options set after the handshake (`setoption`), e.g. `{"Hash": 16}`.
    #[serde(default)]
    pub options: std::collections::BTreeMap<String, serde_json::Value>,
    /// Where the description came from (`qitune export` of a tuning run), for people: the
    /// arena does not read it.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub provenance: serde_json::Value,
}

/// The text protocols of outside engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Ucci,
    Uci,
}

/// Why an outside engine lost its game, with what it did.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{engine}: {what}")]
pub struct Fault {
    pub engine: String,
    pub ending: Ending,
    pub what: String,
}

/// Errors reading an engine description.
#[derive(Debug, thiserror::Error)]
pub enum DescriptionError {
    #[error("cannot read engine description {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("engine description {path}: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("'{spec}': no program is named after '{protocol}:'")]
    NoProgram { spec: String, protocol: &'static str },
    #[error("'{0}' is no engine: an engine is ucci:COMMAND, uci:COMMAND or an engine description (JSON with path and protocol)")]
    NotEngine(String),
}

/// Reads an outside engine: `ucci:COMMAND`, `uci:COMMAND` or an engine description file.
pub fn engine(spec: &str) -> Result<OutsideEngine, DescriptionError> {
    from_command(spec)
        .or_else(|| from_file(Path::new(spec)))
        .unwrap_or_else(|| Err(DescriptionError::NotEngine(spec.to_string())))
}

/// Reads `ucci:COMMAND` or `uci:COMMAND` (a program and its arguments, split at spaces).
pub fn from_command(spec: &str) -> Option<Result<OutsideEngine, DescriptionError>> {
    let (protocol, name, rest) = if let Some(rest) = spec.strip_prefix("ucci:") {
        (Protocol::Ucci, "ucci", rest)
    } else if let Some(rest) = spec.strip_prefix("uci:") {
        (Protocol::Uci, "uci", rest)
    } else {
        return None;
    };
    let mut words = rest.split_whitespace();
    let Some(path) = words.next() else {
        return Some(Err(DescriptionError::NoProgram {
            spec: spec.to_string(),
            protocol: name,
        }));
    };
    Some(Ok(OutsideEngine {
        name: spec.to_string(),
        path: PathBuf::from(path),
        args: words.map(str::to_string).collect(),
        dir: None,
        protocol,
        options: Default::default(),
        provenance: Default::default(),
    }))
}

/// Reads an engine description file (JSON: name, path, args, protocol, options), or `None`
/// when the file is JSON of another kind (a weight file) or not JSON at all.
pub fn from_file(path: &Path) -> Option<Result<OutsideEngine, DescriptionError>> {
    let text = crate::fsutil::read_text(path, crate::fsutil::MAX_JSON_BYTES).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("protocol")?;
    Some(
        serde_json::from_value::<OutsideEngine>(value)
            .map(|mut e| {
                if e.name.is_empty() {
                    e.name = path.display().to_string();
                }
                // A relative program path and folder are read from the description's folder.
                if let Some(dir) = path.parent() {
                    if e.path.is_relative() && e.path.components().count() > 1 {
                        e.path = dir.join(&e.path);
                    }
                    e.dir = e.dir.as_ref().map(|d| dir.join(d));
                }
                e
            })
            .map_err(|source| DescriptionError::Parse {
                path: path.to_path_buf(),
                source,
            }),
    )
}

/// An option an engine offers in its handshake (`option ... type ...`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EngineOption {
    pub name: String,
    #[serde(flatten)]
    pub kind: OptionKind,
}

/// An option's type and what the engine says of its values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Combo { default: String, values: Vec<String> },
    Button,
    String { default: String },
}

impl EngineOption {
    /// Reads an `option` line of either protocol: UCI's `option name N type spin default D
    /// min A max B` (a name may hold spaces) or UCCI's `option N type spin min A max B
    /// default D`, keywords in any order. `None` for a line that is no option or one whose
    /// type or numbers cannot be read.
    pub fn parse(line: &str) -> Option<EngineOption> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"option") {
            return None;
        }
        let at = |key: &str| words.iter().position(|w| *w == key);
        let kind_at = at("type")?;
        let name = match words.get(1) {
            Some(&"name") => words[2..kind_at].join(" "),
            _ => words[1..kind_at].join(" "),
        };
        if name.is_empty() {
            return None;
        }
        const KEYS: [&str; 5] = ["type", "default", "min", "max", "var"];
        // A keyword's value: the words up to the next keyword (a string default may hold spaces).
        let value = |key: &str| -> Option<String> {
            let i = at(key)?;
            let end = (i + 1..words.len())
                .find(|&j| KEYS.contains(&words[j]))
                .unwrap_or(words.len());
            Some(words[i + 1..end].join(" "))
        };
        let number = |key: &str| value(key)?.parse::<i64>().ok();
        let kind = match words.get(kind_at + 1)?.to_ascii_lowercase().as_str() {
            "spin" => {
                let (min, max) = (number("min")?, number("max")?);
                let default = match value("default") {
                    Some(v) => v.parse::<i64>().ok()?,
                    None => min,
                };
                if !(min <= default && default <= max) {
                    return None;
                }
                OptionKind::Spin { default, min, max }
            }
            "check" => OptionKind::Check {
                default: value("default").is_some_and(|v| v.eq_ignore_ascii_case("true")),
            },
            "combo" => OptionKind::Combo {
                default: value("default").unwrap_or_default(),
                values: (0..words.len())
                    .filter(|&i| words[i] == "var")
                    .filter_map(|i| words.get(i + 1).map(|v| v.to_string()))
                    .collect(),
            },
            "button" => OptionKind::Button,
            "string" | "label" => OptionKind::String {
                default: value("default").unwrap_or_default(),
            },
            _ => return None,
        };
        Some(EngineOption { name, kind })
    }
}

/// A running outside engine.
pub struct Process {
    child: Child,
    stdin: ChildStdin,
    output: Output,
    /// UCCI times go in milliseconds (the engine offered `usemillisec`), else in seconds.
    millis: bool,
    /// What the engine offered in its handshake.
    offered: Vec<EngineOption>,
    /// The description it runs under now (its name in faults, its protocol, its options as
    /// last set).
    current: OutsideEngine,
}

/// Idle engine processes kept between games, so that a game does not pay a process start:
/// a game takes one of the same program and option names, sets the options that differ and
/// starts a new game in it (`ucinewgame`, UCCI's `setoption newgame`), or starts a fresh
/// process; a process that faulted is never given back. At most `limit` wait at a time.
pub struct Engines {
    idle: std::sync::Mutex<Vec<Process>>,
    limit: usize,
}

impl Engines {
    /// A pool that keeps at most `limit` idle processes (two a game at a time suffice).
    pub fn new(limit: usize) -> Engines {
        Engines {
            idle: std::sync::Mutex::new(Vec::new()),
            limit,
        }
    }

    /// A process for a game as `spec`: an idle one renewed, else a fresh one.
    pub fn take(&self, spec: &OutsideEngine) -> Result<Process, Fault> {
        let found = {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            let i = idle.iter().position(|p| p.fits(spec));
            i.map(|i| idle.swap_remove(i))
        };
        if let Some(mut process) = found {
            // A process that cannot be renewed is let go; the game gets a fresh one.
            if process.renew(spec).is_ok() {
                return Ok(process);
            }
        }
        Process::start(spec)
    }

    /// Keeps a healthy process, idle after its game, for a later game.
    pub fn give(&self, process: Process) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < self.limit {
            idle.push(process);
        }
    }
}

/// What an engine said about its search, from its `info` lines.
#[derive(Default)]
struct Heard {
    depth: u32,
    score: i32,
    nodes: u64,
}

/// The longest line an engine may write: far beyond any protocol line (a long PV is a few
/// KB); a longer one is a fault of that engine, so that an endless line cannot fill memory.
pub const MAX_LINE: usize = 64 << 10;

/// An engine's output, read on the thread that plays its game: waiting on the pipe itself
/// (poll) costs one wake-up per write of the engine, where a reader thread and a queue cost
/// two, and a game's moves are thousands of such waits. At most a line (and one read) is
/// held at a time, however much the engine writes.
struct Output {
    pipe: ChildStdout,
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    start: usize,
    closed: bool,
}

/// What reading an engine's output gave.
enum Got {
    /// A line without its newline, trimmed (bytes that are not UTF-8 replaced: engines may
    /// write GBK paths).
    Line(String),
    /// A line longer than [`MAX_LINE`].
    TooLong,
    /// Nothing by the deadline.
    Silent,
    /// The output is closed and everything before it was read.
    Closed,
}

impl Output {
    fn new(pipe: ChildStdout) -> Output {
        Output {
            pipe,
            buf: Vec::new(),
            start: 0,
            closed: false,
        }
    }

    /// The next line, waiting until `deadline` at most.
    fn next(&mut self, deadline: Instant) -> Got {
        loop {
            let unread = &self.buf[self.start..];
            // A line ends at its newline, or the last one where the output closes.
            let end = match unread.iter().position(|&b| b == b'\n') {
                Some(i) => Some((i, i + 1)),
                None if self.closed && (1..=MAX_LINE).contains(&unread.len()) => {
                    Some((unread.len(), unread.len()))
                }
                None => None,
            };
            if let Some((length, taken)) = end {
                let line = String::from_utf8_lossy(&unread[..length]).trim().to_string();
                self.start += taken;
                return Got::Line(line);
            }
            if unread.len() > MAX_LINE {
                return Got::TooLong;
            }
            if self.closed {
                return Got::Closed;
            }
            self.buf.drain(..self.start);
            self.start = 0;
            match self.wait(deadline) {
                Ok(true) => {
                    let mut chunk = [0u8; 16 << 10];
                    match self.pipe.read(&mut chunk) {
                        Ok(0) | Err(_) => self.closed = true,
                        Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                    }
                }
                Ok(false) => return Got::Silent,
                Err(_) => self.closed = true,
            }
        }
    }

    /// Waits until the pipe can be read (or is closed): false when `deadline` came first.
    fn wait(&self, deadline: Instant) -> std::io::Result<bool> {
        use std::os::unix::io::AsRawFd;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            let mut fd = libc::pollfd {
                fd: self.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            match unsafe { libc::poll(&mut fd, 1, ms) } {
                0 if Instant::now() >= deadline => return Ok(false),
                0 => continue,
                n if n > 0 => return Ok(true),
                _ => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
            }
        }
    }
}

impl Process {
    /// Starts the engine, says hello in its protocol, sets its options and waits until it
    /// is ready.
    pub fn start(spec: &OutsideEngine) -> Result<Process, Fault> {
        let fault = |what: String| Fault {
            engine: spec.name.clone(),
            ending: Ending::Crash,
            what,
        };
        // The child starts in `dir`, where a relative program path (one with a folder in it;
        // a bare name is looked up on PATH) would be read from: read it from here instead.
        let program = match &spec.dir {
            Some(_) if spec.path.is_relative() && spec.path.components().count() > 1 => {
                std::path::absolute(&spec.path).unwrap_or_else(|_| spec.path.clone())
            }
            _ => spec.path.clone(),
        };
        let mut command = Command::new(program);
        if let Some(dir) = &spec.dir {
            command.current_dir(dir);
        }
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // Its own process group: Ctrl-C at the terminal stops the match, which ends its
        // games and engines itself, rather than killing engines in the middle of a game.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| fault(format!("cannot start {}: {e}", spec.path.display())))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut p = Process {
            child,
            stdin,
            output: Output::new(stdout),
            millis: false,
            offered: Vec::new(),
            current: spec.clone(),
        };
        let (hello, ok) = match spec.protocol {
            Protocol::Ucci => ("ucci", "ucciok"),
            Protocol::Uci => ("uci", "uciok"),
        };
        p.send(hello)?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            let line = p.next_line(deadline, hello)?;
            if line == ok {
                break;
            }
            if let Some(option) = EngineOption::parse(&line) {
                if spec.protocol == Protocol::Ucci && option.name == "usemillisec" {
                    p.millis = true;
                }
                p.offered.push(option);
            }
        }
        if p.millis {
            p.send("setoption usemillisec true")?;
        }
        for (name, value) in &spec.options {
            p.set_option(name, value)?;
        }
        if spec.protocol == Protocol::Uci {
            p.send("ucinewgame")?;
        }
        p.ready()?;
        Ok(p)
    }

    /// The options the engine offered in its handshake, in its order.
    pub fn options(&self) -> &[EngineOption] {
        &self.offered
    }

    /// Whether this process can play a new game as `spec`: the same program, protocol and
    /// option names, and a protocol way to start a new game (UCI always; UCCI when the
    /// engine offers `newgame`).
    fn fits(&self, spec: &OutsideEngine) -> bool {
        let c = &self.current;
        c.path == spec.path
            && c.args == spec.args
            && c.dir == spec.dir
            && c.protocol == spec.protocol
            && c.options.keys().eq(spec.options.keys())
            && (spec.protocol == Protocol::Uci || self.offered.iter().any(|o| o.name == "newgame"))
    }

    /// Brings the process to `spec`'s option values and starts a new game in it.
    fn renew(&mut self, spec: &OutsideEngine) -> Result<(), Fault> {
        for (name, value) in &spec.options {
            if self.current.options.get(name) != Some(value) {
                self.set_option(name, value)?;
            }
        }
        self.current = spec.clone();
        self.send(match spec.protocol {
            Protocol::Ucci => "setoption newgame",
            Protocol::Uci => "ucinewgame",
        })?;
        self.ready()
    }

    /// Sends `setoption` in the protocol's form.
    fn set_option(&mut self, name: &str, value: &serde_json::Value) -> Result<(), Fault> {
        let value = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.send(&match self.current.protocol {
            Protocol::Ucci => format!("setoption {name} {value}"),
            Protocol::Uci => format!("setoption name {name} value {value}"),
        })
    }

    fn fault(&self, ending: Ending, what: String) -> Fault {
        Fault {
            engine: self.current.name.clone(),
            ending,
            what,
        }
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| self.fault(Ending::Crash, format!("cannot send '{line}': {e}")))
    }

    /// The next line before `deadline`; a closed pipe is a crash, silence a hang, a line
    /// beyond [`MAX_LINE`] a crash.
    fn next_line(&mut self, deadline: Instant, after: &str) -> Result<String, Fault> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.output.next(deadline) {
            Got::Line(line) => Ok(line),
            Got::TooLong => Err(self.fault(
                Ending::Crash,
                format!("wrote a line longer than {} KB after '{after}'", MAX_LINE >> 10),
            )),
            Got::Silent => Err(self.fault(
                Ending::Hang,
                format!("no answer to '{after}' within {:.1} s", wait.as_secs_f64()),
            )),
            Got::Closed => {
                // The pipe closed; the process has most likely exited, or will soon.
                let until = Instant::now() + Duration::from_millis(200);
                let mut status = "closed its output".to_string();
                while Instant::now() < until {
                    if let Ok(Some(s)) = self.child.try_wait() {
                        status = format!("exited ({s})");
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(self.fault(Ending::Crash, format!("{status} after '{after}'")))
            }
        }
    }

    fn ready(&mut self) -> Result<(), Fault> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        while self.next_line(deadline, "isready")? != "readyok" {}
        Ok(())
    }

    /// Asks for a move in the game that started from `start_fen` and went `moves`, now at
    /// `state` with `seat` to move; the arena's clocks stand at `clocks` with `increments`.
    /// An answer later than the clock plus `margin` loses on time.
    #[allow(clippy::too_many_arguments)]
    pub fn think<G: Game>(
        &mut self,
        start_fen: &str,
        moves: &[G::Move],
        state: &G::State,
        seat: Seat,
        limit: Limit,
        clocks: [Duration; 2],
        increments: [Duration; 2],
        margin: Duration,
    ) -> Result<Thought<G::Move>, Fault> {
        let mut position = format!("position fen {start_fen}");
        if !moves.is_empty() {
            position.push_str(" moves");
            for m in moves {
                position.push(' ');
                position.push_str(&m.to_string());
            }
        }
        let go = self.go(seat, limit, clocks, increments);
        let started = Instant::now();
        // One write for both lines: one wake-up of the engine rather than two.
        self.send(&format!("{position}\n{go}"))?;
        let allowed = match limit {
            Limit::Clock { left, .. } => left + margin,
            _ => UNTIMED_LIMIT,
        };
        let mut heard = Heard::default();
        let mut stopped = false;
        loop {
            let deadline = started + allowed + if stopped { STOP_GRACE } else { Duration::ZERO };
            let line = match self.next_line(deadline, &go) {
                Err(f) if f.ending == Ending::Hang && !stopped => {
                    // Out of time: ask for the move it has, to tell a late engine from a dead one.
                    self.send("stop")?;
                    stopped = true;
                    continue;
                }
                other => other?,
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => heard.read(self.current.protocol, words),
                Some("nobestmove") => {
                    // With moves on the board, no move is a draw claim: the arena judges it.
                    return Err(self.fault(Ending::FalseClaim, "answered nobestmove".to_string()));
                }
                Some("bestmove") => {
                    let used = started.elapsed();
                    if stopped || used > allowed {
                        return Err(self.fault(
                            Ending::Time,
                            format!(
                                "answered after {} ms with {} ms allowed",
                                used.as_millis(),
                                allowed.as_millis()
                            ),
                        ));
                    }
                    let text = words.next().unwrap_or("");
                    if words.any(|w| w == "resign") {
                        return Err(self.fault(Ending::Resigned, "resigned".to_string()));
                    }
                    let Some(mv) = G::parse_move(state, text) else {
                        return Err(self.fault(
                            Ending::IllegalMove,
                            format!("played '{text}', illegal in {}", G::fen(G::board(state))),
                        ));
                    };
                    return Ok(Thought {
                        best: Some(mv),
                        score: heard.score,
                        nodes: heard.nodes,
                        depth: heard.depth,
                        planned: None,
                    });
                }
                _ => {}
            }
        }
    }

    /// The `go` line for this limit; times in the protocol's units.
    fn go(&self, seat: Seat, limit: Limit, clocks: [Duration; 2], increments: [Duration; 2]) -> String {
        match limit {
            Limit::Nodes(n) => format!("go nodes {n}"),
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::Clock { .. } => {
                let (us, them) = (seat.index(), seat.flip().index());
                match self.current.protocol {
                    Protocol::Ucci => {
                        let t = |d: Duration| {
                            if self.millis {
                                d.as_millis().to_string()
                            } else {
                                // Whole seconds, never 0 while time is left.
                                (d.as_secs().max(u64::from(!d.is_zero()))).to_string()
                            }
                        };
                        format!(
                            "go time {} increment {} opptime {} oppincrement {}",
                            t(clocks[us]),
                            t(increments[us]),
                            t(clocks[them]),
                            t(increments[them])
                        )
                    }
                    Protocol::Uci => format!(
                        "go wtime {} btime {} winc {} binc {}",
                        clocks[0].as_millis(),
                        clocks[1].as_millis(),
                        increments[0].as_millis(),
                        increments[1].as_millis()
                    ),
                }
            }
        }
    }
}

impl Heard {
    /// Takes depth, score and nodes from an `info` line (UCCI `score N`, UCI `score cp N` or
    /// `score mate N`).
    fn read<'a>(&mut self, protocol: Protocol, words: impl Iterator<Item = &'a str>) {
        let words: Vec<&str> = words.collect();
        let mut i = 0;
        while i + 1 < words.len() {
            let next = words[i + 1];
            match words[i] {
                "depth" => self.depth = next.parse().unwrap_or(self.depth),
                "nodes" => self.nodes = next.parse().unwrap_or(self.nodes),
                "score" if protocol == Protocol::Ucci => self.score = next.parse().unwrap_or(self.score),
                "score" => {
                    if let Some(v) = words.get(i + 2).and_then(|v| v.parse::<i32>().ok()) {
                        self.score = match next {
                            "cp" => v,
                            "mate" if v > 0 => 30_000 - 2 * v,
                            "mate" => -30_000 - 2 * v,
                            _ => self.score,
                        };
                    }
                    i += 1;
                }
                "pv" => break,
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        let until = Instant::now() + Duration::from_millis(300);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_info_lines_are_read() {
        let e = from_command("ucci:/bin/eleeye --quiet").unwrap().unwrap();
        assert_eq!(e.path, PathBuf::from("/bin/eleeye"));
        assert_eq!(e.args, vec!["--quiet".to_string()]);
        assert_eq!(e.protocol, Protocol::Ucci);
        assert!(from_command("uci:").unwrap().is_err());
        assert!(from_command("default").is_none());
        let mut h = Heard::default();
        h.read(
            Protocol::Uci,
            "depth 7 seldepth 9 score cp -35 nodes 1234 pv h2e2".split(' '),
        );
        assert_eq!((h.depth, h.score, h.nodes), (7, -35, 1234));
        h.read(Protocol::Uci, "depth 9 score mate -2 pv a0a1".split(' '));
        assert_eq!((h.depth, h.score), (9, -29_996));
        h.read(Protocol::Ucci, "depth 5 score 123 pv b0c2".split(' '));
        assert_eq!((h.depth, h.score), (5, 123));
    }

    #[test]
    fn option_lines_of_both_protocols_are_read() {
        let spin = |name: &str, default, min, max| EngineOption {
            name: name.to_string(),
            kind: OptionKind::Spin { default, min, max },
        };
        let read = EngineOption::parse;
        assert_eq!(
            read("option name Hash type spin default 16 min 1 max 33554432"),
            Some(spin("Hash", 16, 1, 33_554_432))
        );
        // UCCI order, odd spacing, a name with spaces, a negative range.
        assert_eq!(
            read("option hashsize type spin min 0 max 1024 default 0"),
            Some(spin("hashsize", 0, 0, 1024))
        );
        assert_eq!(
            read("option   name  Razor Margin\ttype spin  min -50 max 900   default 200 "),
            Some(spin("Razor Margin", 200, -50, 900))
        );
        assert_eq!(
            read("option name Ponder type check default false").map(|o| o.kind),
            Some(OptionKind::Check { default: false })
        );
        assert_eq!(
            read("option name Style type combo default Normal var Solid var Normal var Risky")
                .map(|o| o.kind),
            Some(OptionKind::Combo {
                default: "Normal".into(),
                values: vec!["Solid".into(), "Normal".into(), "Risky".into()]
            })
        );
        assert_eq!(
            read("option name EvalFile type string default pikafish.nnue").map(|o| o.kind),
            Some(OptionKind::String {
                default: "pikafish.nnue".into()
            })
        );
        assert_eq!(
            read("option name Clear Hash type button").map(|o| o.name),
            Some("Clear Hash".into())
        );
        for bad in [
            "id name x",
            "option name X type spin default 5 min 1",
            "option name X type spin default 9 min 1 max 5",
            "option name X type spin default five min 1 max 9",
            "option name type spin min 1 max 9",
            "option name X type dial",
            "option name X",
        ] {
            assert_eq!(read(bad), None, "{bad}");
        }
    }
}
