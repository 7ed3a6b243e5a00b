use super::worker::info_line;
use super::*;
use crate::xiangqi::search::Info;

/// Collects what the engine says.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Plays a script as a GUI would: after a finite `go`, waits for the answer.
fn session(script: &str) -> String {
    session_with(Params::defaults(&XiangqiGame::specs()), script)
}

/// [`session`] for an engine started with `params`.
fn session_with(params: Params, script: &str) -> String {
    let sink = Sink::default();
    let text = |s: &Sink| String::from_utf8(s.0.lock().unwrap().clone()).unwrap();
    let answers = |s: &Sink| text(s).lines().filter(|l| l.contains("bestmove")).count();
    let mut engine = Engine::new(sink.clone(), params).unwrap();
    for line in script.lines() {
        let before = answers(&sink);
        if !engine.handle(line) {
            break;
        }
        if line.starts_with("go")
            && !line.contains("infinite")
            && !line.contains("ponder")
            && !line.contains(" x")
        {
            while answers(&sink) == before {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    text(&sink)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Lines of protocol words, numbers out of every range and stray moves: the engine
    /// answers each without a panic and is still ready at the end.
    #[test]
    fn random_lines_never_break_the_engine(
        lines in proptest::collection::vec(proptest::collection::vec(0usize..WORDS.len(), 0..8), 1..10),
        uci in proptest::bool::ANY,
    ) {
        let sink = Sink::default();
        let mut engine = Engine::new(sink.clone(), Params::defaults(&XiangqiGame::specs())).unwrap();
        engine.handle(if uci { "uci" } else { "ucci" });
        for words in &lines {
            let line: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
            engine.handle(&line.join(" "));
            engine.handle("stop");
        }
        engine.handle("isready");
        let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        proptest::prop_assert!(out.lines().any(|l| l == "readyok"), "{}", out);
        proptest::prop_assert!(!out.contains("the search failed"), "{}", out);
    }
}

const WORDS: &[&str] = &[
    "position",
    "fen",
    "startpos",
    "moves",
    "go",
    "depth",
    "nodes",
    "time",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "increment",
    "opptime",
    "ponder",
    "draw",
    "infinite",
    "ponderhit",
    "stop",
    "isready",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "usemillisec",
    "true",
    "banmoves",
    "newgame",
    "-1",
    "0",
    "1",
    "3",
    "1e9",
    "1e300",
    "nan",
    "inf",
    "18446744073709551616",
    "h2e2",
    "h9g7",
    "a0a9",
    "z9z9",
    "w",
    "b",
    "-",
    "9/9/9",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
    "4k4/9/9/9/9/9/9/9/9/3K5",
];

#[test]
fn a_rejected_position_leaves_nothing_to_search() {
    let out = session("ucci\nposition startpos moves b2e2 zz99\ngo depth 2\nisready\n");
    assert!(out.contains("info string error: position"), "{out}");
    assert!(out.contains("info string error: go: no position"), "{out}");
    assert!(out.lines().any(|l| l == "nobestmove"), "{out}");
    assert!(!out.contains("bestmove b"), "a move for the old position: {out}");
    // A good position afterwards is searched again.
    let out = session("uci\nposition fen bad\nposition startpos\ngo depth 1\n");
    assert!(
        out.lines()
            .any(|l| l.starts_with("bestmove ") && l != "bestmove (none)"),
        "{out}"
    );
}

#[test]
fn a_bad_go_is_still_answered() {
    let out = session("uci\nposition startpos\ngo nodes -7\n");
    assert!(out.contains("info string error: go"), "{out}");
    assert!(out.lines().any(|l| l == "bestmove (none)"), "{out}");
}

#[test]
fn bytes_that_are_not_utf8_do_not_end_the_session() {
    let sink = Sink::default();
    let mut engine = Engine::new(sink.clone(), Params::defaults(&XiangqiGame::specs())).unwrap();
    engine.run(&b"ucci\nsetoption weightsfile \xc6\xe5.json\n\xff\nisready\nquit\n"[..]);
    let out = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    assert!(out.contains("readyok") && out.contains("bye"), "{out}");
    assert!(out.contains("info string error"), "{out}");
}

#[test]
fn a_stopped_iterations_score_is_a_lower_bound_where_the_protocol_has_one() {
    let pv = [Move::parse_iccs("b0c2").unwrap()];
    let info = |partial| Info {
        depth: 9,
        seldepth: 13,
        score: 31,
        nodes: 1000,
        elapsed: Duration::from_millis(10),
        pv: &pv,
        partial,
    };
    assert!(info_line(Dialect::Uci, &info(true)).contains(" score cp 31 lowerbound nodes "));
    assert!(info_line(Dialect::Uci, &info(false)).starts_with("info depth 9 seldepth 13 score cp 31 nodes "));
    assert!(info_line(Dialect::Ucci, &info(true)).contains(" score 31 nodes "));
}

#[test]
fn ucci_handshake_search_and_bye() {
    let out = session("ucci\nisready\nposition startpos moves h2e2 h9g7\ngo depth 3\nquit\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"ucciok"));
    assert!(lines.contains(&"readyok"));
    assert!(lines.iter().any(|l| l.starts_with("info depth 3 score ")));
    assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
    assert_eq!(lines.last(), Some(&"bye"));
}

#[test]
fn every_parameter_is_a_spin_option_that_sets_it() {
    let specs = XiangqiGame::specs();
    let rook = specs.iter().find(|s| s.name == "rook").expect("a rook weight");
    for (hello, line) in [
        (
            "uci",
            format!(
                "option name rook type spin default {} min {} max {}",
                rook.default, rook.min, rook.max
            ),
        ),
        (
            "ucci",
            format!(
                "option rook type spin min {} max {} default {}",
                rook.min, rook.max, rook.default
            ),
        ),
    ] {
        let out = session(&format!("{hello}\nquit\n"));
        assert!(out.lines().any(|l| l == line), "{hello}: no '{line}' in\n{out}");
        let spins = out.lines().filter(|l| l.contains(" type spin ")).count();
        // Hash and Threads besides the parameters.
        assert_eq!(spins, specs.len() + 2, "{hello}");
    }
    // Set by option, the search is the one of an engine started with those values.
    let search = "position startpos moves h2e2 h9g7\ngo depth 5\nquit\n";
    let mut params = Params::defaults(&specs);
    params.set("rook", i64::from(rook.min)).unwrap();
    params.set("cannon", 800).unwrap();
    // The search's lines without their timings.
    let scores = |out: String| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
            .map(|l| {
                let words: Vec<&str> = l.split(' ').collect();
                let timed = |i: usize| i > 0 && matches!(words[i - 1], "time" | "nps");
                (0..words.len())
                    .filter(|&i| !timed(i) && !matches!(words[i], "time" | "nps"))
                    .map(|i| words[i])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let started = scores(session_with(params.clone(), &format!("uci\n{search}")));
    let set = scores(session(&format!(
        "uci\nsetoption name rook value {}\nsetoption name Cannon value 800\nucinewgame\n{search}",
        rook.min
    )));
    let default = scores(session(&format!("uci\n{search}")));
    assert_eq!(set, started);
    assert_ne!(set, default, "the options changed nothing");
    // UCCI's form, and values out of range refused by name with the value kept.
    let out = session(&format!(
        "ucci\nsetoption rook {}\nsetoption rook 99999\nsetoption rook x\n{search}",
        rook.min
    ));
    let refusal = format!(
        "info string error: option rook: '99999' is not a whole number from {} to {}",
        rook.min, rook.max
    );
    assert!(out.contains(&refusal), "{out}");
    assert!(out.contains("option rook: 'x' is not"), "{out}");
}

#[test]
fn threads_search_together_and_answer() {
    let out = session(
        "uci\nsetoption name Threads value 2\nposition startpos\ngo depth 6\nsetoption name Threads value 1\ngo depth 2\nquit\n",
    );
    assert!(
        out.contains("option name Threads type spin default 1 min 1 max 256"),
        "{out}"
    );
    let answers = out.lines().filter(|l| l.starts_with("bestmove ")).count();
    assert_eq!(answers, 2, "{out}");
    assert!(!out.contains("error"), "{out}");
}

#[test]
fn bad_lines_get_an_error_and_the_engine_goes_on() {
    let out = session(
        "uci\nfoo\nposition fen 9/9/9 w\nposition startpos moves h2h8\nposition startpos\ngo depth x\nsetoption name Hash value 0\nsetoption name Threads value 0\ngo depth 1\nquit\n",
    );
    let errors = out
        .lines()
        .filter(|l| l.starts_with("info string error:"))
        .count();
    assert_eq!(errors, 6, "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("bestmove ") && l != "bestmove (none)"),
        "{out}"
    );
}

#[test]
fn no_move_answers() {
    let stalemated = "position fen 3k5/R8/9/9/9/9/9/9/9/4K4 b\ngo depth 2\n";
    assert!(session(&format!("uci\n{stalemated}quit\n")).contains("bestmove (none)"));
    assert!(session(&format!("ucci\n{stalemated}quit\n")).contains("nobestmove"));
}

#[test]
fn banmoves_are_respected() {
    let out = session("ucci\nposition fen 3k5/R8/9/9/9/9/9/9/1R7/4K4 w\nbanmoves b1b9\ngo depth 3\nquit\n");
    let best = out.lines().find(|l| l.starts_with("bestmove")).unwrap();
    assert!(!best.contains("b1b9"), "{best}");
}
