//! `qitune engine` driven through its standard input and output, as a GUI drives it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qitune"))
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines until one starts with `prefix` (inclusive); panics after `within`.
    fn until(&mut self, prefix: &str, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {within:?}; saw {seen:?}"),
            }
        }
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success());
    }
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn uci_session_with_a_clock() {
    let mut e = Session::start(&[]);
    e.send("uci");
    let hello = e.until("uciok", 5 * SECOND);
    assert!(hello.iter().any(|l| l.starts_with("id name qitune")));
    e.send("isready");
    e.until("readyok", 5 * SECOND);
    e.send("ucinewgame");
    e.send("position startpos moves h2e2 h9g7");
    let start = Instant::now();
    e.send("go wtime 2000 btime 2000 winc 100 binc 100");
    let answer = e.until("bestmove", 5 * SECOND);
    let used = start.elapsed();
    // 2 s + 0.1 s: the budget is about 0.18 s; answering anywhere near the clock would lose.
    assert!(used < Duration::from_millis(1500), "took {used:?}");
    assert!(answer.iter().any(|l| l.starts_with("info depth")), "{answer:?}");
    let best = answer.last().unwrap();
    assert!(best.split_whitespace().nth(1).unwrap().len() == 4, "{best}");
    e.quit();
}

#[test]
fn infinite_search_waits_for_stop() {
    let mut e = Session::start(&[]);
    e.send("uci");
    e.until("uciok", 5 * SECOND);
    const FEN: &str = "3k5/R8/9/9/9/9/9/9/1R7/4K4 w";
    e.send(&format!("position fen {FEN}"));
    e.send("go infinite");
    // Even a mate in one is not announced before `stop`.
    let early = e.until("info depth", 5 * SECOND);
    assert!(!early.iter().any(|l| l.starts_with("bestmove")));
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let ready = e.until("readyok", 5 * SECOND);
    assert!(!ready.iter().any(|l| l.starts_with("bestmove")), "{ready:?}");
    e.send("stop");
    let answer = e.until("bestmove", 5 * SECOND);
    // The black king cannot move already: the rook checks on rank 9 and the d-file mate, and
    // most quiet moves stalemate, which loses too. Whichever it chose, Black has no reply.
    let best = answer.last().unwrap();
    let mut board = qitune::xiangqi::Board::from_fen(FEN).unwrap();
    let mv = best
        .strip_prefix("bestmove ")
        .and_then(|m| board.parse_move(m).ok());
    board.make(mv.unwrap_or_else(|| panic!("{best}")));
    assert!(board.legal_moves().is_empty(), "{best}");
    e.quit();
}

#[test]
fn ucci_session_ponder_and_ponderhit() {
    let mut e = Session::start(&[]);
    e.send("ucci");
    e.until("ucciok", 5 * SECOND);
    e.send("setoption usemillisec true");
    e.send("position startpos moves h2e2");
    e.send("go ponder time 3000 increment 0");
    // While pondering no answer comes, however long it takes (the budget is ~0.12 s).
    std::thread::sleep(Duration::from_millis(500));
    e.send("isready");
    let meanwhile = e.until("readyok", 5 * SECOND);
    assert!(
        !meanwhile.iter().any(|l| l.starts_with("bestmove")),
        "{meanwhile:?}"
    );
    e.send("ponderhit");
    let start = Instant::now();
    let answer = e.until("bestmove", 5 * SECOND);
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    assert!(answer.last().unwrap().starts_with("bestmove "));
    e.send("quit");
    e.until("bye", 5 * SECOND);
}

#[test]
fn stop_answers_at_once_and_garbage_is_survived() {
    let mut e = Session::start(&[]);
    e.send("ucci");
    e.until("ucciok", 5 * SECOND);
    e.send("flibbertigibbet");
    e.until("info string error: unknown command", 5 * SECOND);
    e.send("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w");
    e.until("info string error: position:", 5 * SECOND);
    e.send("position startpos moves h2e2 e2e3");
    e.until("info string error: position: illegal move e2e3", 5 * SECOND);
    e.send("go depth ten");
    e.until("info string error: go:", 5 * SECOND);
    e.send("position startpos");
    e.send("go depth 60");
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    e.send("stop");
    e.until("bestmove", 5 * SECOND);
    assert!(start.elapsed() < SECOND);
    e.send("isready");
    e.until("readyok", 5 * SECOND);
    // Clocks too long for any Duration are taken as very long, not a crash.
    e.send("go time 1e300 increment 1e300");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    e.until("bestmove", 5 * SECOND);
    e.send("isready");
    e.until("readyok", 5 * SECOND);
    e.quit();
}

#[test]
fn bad_weight_files_are_named() {
    let dir = std::env::temp_dir().join(format!("qitune-engine-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"game":"xiangqi","format":1,"params":{"rook":5000}}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_qitune"))
        .args(["engine", "--weights", bad.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: ") && err.contains("'rook' = 5000 is out of range"),
        "{err}"
    );
    let good = dir.join("good.json");
    std::fs::write(&good, r#"{"game":"xiangqi","format":1,"params":{"rook":1000}}"#).unwrap();
    let mut e = Session::start(&["--weights", good.to_str().unwrap()]);
    e.send("uci");
    e.until("uciok", 5 * SECOND);
    e.send(&format!("setoption name WeightsFile value {}", bad.display()));
    e.until("info string error:", 5 * SECOND);
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}
