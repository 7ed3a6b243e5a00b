//! The run report: written by `tune` and by `qitune report`, self-contained, and rendered by a
//! real browser.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn qitune() -> Command {
    Command::cargo_bin("qitune").unwrap()
}

/// A tiny run (3 generations, material, mobility and the horse's piece-square values, with
/// validation and a round robin) in a fresh folder; returns the run folder.
fn tiny_run(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qitune-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let config = dir.join("tiny.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"name":"tiny","seed":3,"population":6,"groups":2,"generations":3,
               "evolve":["rook","horse","cannon","mobility_*","pst_horse_*"],
               "environments":[{{"from_generation":1,"positions":"{a}","nodes":300}}],
               "validation":{{"every":1,"games":4,"positions":"{h}"}}}}"#,
            a = path_of("positions/xiangqi-train-a.epd"),
            h = path_of("positions/xiangqi-holdout.epd"),
        ),
    )
    .unwrap();
    let runs = dir.join("runs");
    let out = qitune()
        .args([
            "tune",
            "--config",
            config.to_str().unwrap(),
            "--runs",
            runs.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("report: "));
    let run = runs.join("tiny");
    qitune()
        .args([
            "roundrobin",
            "--run",
            run.to_str().unwrap(),
            "--gens",
            "1-3",
            "--games-per-pair",
            "2",
        ])
        .assert()
        .success();
    run
}

#[test]
fn tune_and_report_write_a_self_contained_page_of_the_run() {
    let run = tiny_run("content");
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    for needle in [
        "qitune run <code>tiny</code>",
        "Fitness (wins - losses)",
        "Diversity",
        "Champion against the anchor",
        "Evolved parameters",
        "mobility_rook",
        "horse: base",
        "horse: evolved",
        "Final champion against the base",
    ] {
        assert!(page.contains(needle), "the report lacks '{needle}'");
    }
    // Nothing is fetched: no scripts, no links out.
    for outside in ["<script", "<link", "src=\"http", "href=\"http", "url(http"] {
        assert!(
            !page.contains(outside),
            "the report loads something ('{outside}')"
        );
    }
    assert!(page.matches("<svg").count() >= 10);
    // The round robin played after the run appears once the report is made again.
    assert!(!page.contains("Round robin"));
    let out = run.join("again.html");
    let report = [
        "report",
        "--run",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    qitune().args(report).assert().success();
    let again = std::fs::read_to_string(&out).unwrap();
    assert!(again.contains("Round robin") && again.contains("Round-robin ratings"));
    // An existing page is not replaced without --force; a folder that is no run is named.
    qitune()
        .args(report)
        .assert()
        .failure()
        .stderr(predicates::str::contains("already exists"));
    qitune()
        .args(["report", "--run", "positions"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("positions is not a run folder"));
    std::fs::remove_dir_all(run.parent().unwrap().parent().unwrap()).unwrap();
}

/// The browser, or `None` outside CI when it is not installed (`.ci/run` installs it).
fn chromium() -> Option<&'static str> {
    let found = std::process::Command::new("chromium")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing; .ci/run installs it"
        );
        eprintln!("chromium is not installed: the rendering check is skipped");
        return None;
    }
    Some("chromium")
}

/// The share of a PNG's pixels that are not white.
fn inked_share(png: &Path) -> f64 {
    let decoder = png::Decoder::new(std::fs::File::open(png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks(channels);
    let total = pixels.len();
    let inked = pixels.filter(|p| p.iter().take(3).any(|&c| c < 245)).count();
    inked as f64 / total as f64
}

#[test]
fn the_report_renders_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        return;
    };
    let run = tiny_run("render");
    render(browser, &run.join("report.html"), &run.join("shot.png"));
    std::fs::remove_dir_all(run.parent().unwrap().parent().unwrap()).unwrap();
}

/// Writes a lock file saying that process `pid` runs the run in `run`.
fn hold(run: &Path, pid: u32) {
    std::fs::write(run.join("run.lock"), format!("{pid}\n")).unwrap();
}

/// Renders `page` in the browser and checks the picture is not blank; returns the PNG.
fn render(browser: &str, page: &Path, shot: &Path) {
    let url = format!("file://{}", std::fs::canonicalize(page).unwrap().display());
    let out = std::process::Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args([
            "--window-size=1400,1400",
            &format!("--screenshot={}", shot.display()),
            &url,
        ])
        .output()
        .unwrap();
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let inked = inked_share(shot);
    assert!(
        inked > 0.03,
        "{} renders nearly blank ({:.1}%)",
        page.display(),
        100.0 * inked
    );
}

/// A run under way has a report that says so and reloads itself; once the run is over, the
/// page is plain. A comparison of runs draws their curves on one chart, as a page or as an
/// SVG image. Both pages render.
#[test]
fn a_live_report_and_a_comparison_of_runs() {
    let run = tiny_run("live");
    let report = run.join("report.html");
    let page = |p: &Path| std::fs::read_to_string(p).unwrap();
    assert!(
        !page(&report).contains("http-equiv=\"refresh\""),
        "a finished run's page is plain"
    );
    // This test's own process stands for a live run.
    hold(&run, std::process::id());
    qitune()
        .args(["report", "--run", run.to_str().unwrap()])
        .assert()
        .success();
    let live = page(&report);
    assert!(live.contains("http-equiv=\"refresh\" content=\"60\"") && live.contains("under way"));
    // A lock left by a process that is gone does not make a run live.
    hold(&run, u32::MAX - 1);
    qitune()
        .args(["report", "--run", run.to_str().unwrap()])
        .assert()
        .success();
    assert!(!page(&report).contains("refresh"));
    std::fs::remove_file(run.join("run.lock")).unwrap();
    let compare = run.join("compare.html");
    qitune()
        .args([
            "report",
            "--compare",
            run.to_str().unwrap(),
            run.to_str().unwrap(),
        ])
        .args(["--out", compare.to_str().unwrap()])
        .assert()
        .success();
    let text = page(&compare);
    assert_eq!(
        text.matches("<svg").count(),
        2,
        "Elo against games and against hours"
    );
    assert!(text.contains("Validation Elo against tuning games") && text.contains("best validated"));
    assert!(!text.contains("<td>-</td><td>-</td>"), "{text}");
    // Within one tuning game no validation has happened: no best or last champion.
    let within = run.join("within.html");
    let dir = run.to_str().unwrap();
    qitune()
        .args(["report", "--compare", dir, "--games", "1", "--out"])
        .arg(&within)
        .assert()
        .success();
    assert!(page(&within).contains("<td>-</td><td>-</td>"));
    for bad in [["--compare", dir, "--games", "0"], ["--run", dir, "--games", "5"]] {
        let out = qitune().arg("report").args(bad).output().unwrap();
        assert!(!out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    // An .svg --out is the games chart alone, an image a README can show.
    let chart = run.join("methods.svg");
    qitune()
        .args(["report", "--compare", run.to_str().unwrap(), "--out"])
        .arg(&chart)
        .assert()
        .success();
    let svg = page(&chart);
    assert!(svg.starts_with("<svg") && svg.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.contains("Validation Elo against tuning games") && !svg.contains("<table"));
    if let Some(browser) = chromium() {
        hold(&run, std::process::id());
        qitune()
            .args(["report", "--run", run.to_str().unwrap()])
            .assert()
            .success();
        render(browser, &report, &run.join("live.png"));
        render(browser, &compare, &run.join("compare.png"));
    }
    std::fs::remove_dir_all(run.parent().unwrap().parent().unwrap()).unwrap();
}

/// `qitune runs` tells a running, a stopped and a finished run apart.
#[test]
fn runs_lists_each_run_with_its_state() {
    let done = tiny_run("list");
    let runs = done.parent().unwrap().to_path_buf();
    for (name, state) in [("stopped", None), ("running", Some(std::process::id()))] {
        let copy = runs.join(name);
        std::fs::create_dir_all(copy.join("champions")).unwrap();
        for entry in std::fs::read_dir(&done).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
            }
        }
        // Planned for more generations than it has done.
        let config = copy.join("config.json");
        let text = std::fs::read_to_string(&config)
            .unwrap()
            .replace("\"generations\": 3", "\"generations\": 9");
        std::fs::write(&config, text).unwrap();
        if let Some(pid) = state {
            hold(&copy, pid);
        }
    }
    let out = qitune()
        .args(["runs", "--runs", runs.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{text}"))
    };
    assert!(
        line("tiny").contains("3/3") && line("tiny").contains("done"),
        "{text}"
    );
    assert!(
        line("stopped").contains("3/9") && line("stopped").contains("stopped"),
        "{text}"
    );
    assert!(line("running").contains("running"), "{text}");
    assert!(line("tiny").contains(" at "), "the best validated Elo: {text}");
    let json = qitune()
        .args(["runs", "--json", "--runs", runs.to_str().unwrap()])
        .output()
        .unwrap();
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&json.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["state"], "running");
    std::fs::remove_dir_all(runs.parent().unwrap()).unwrap();
}

/// An archived run may keep only some of its champions: its report joins those it has and
/// says so, it still resumes (a step needs only the last champion), and an export of a
/// champion thinned out names what is missing.
#[test]
fn a_run_with_thinned_champions_reports_and_resumes() {
    let run = tiny_run("thinned");
    for g in [1, 2] {
        std::fs::remove_file(run.join(format!("champions/step-{g:04}.json"))).unwrap();
    }
    qitune()
        .args(["report", "--run", run.to_str().unwrap()])
        .assert()
        .success();
    let page = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        page.contains("keeps the champions of 1 of its 3 generations"),
        "the report does not say that champions were thinned"
    );
    let out = qitune()
        .args(["export", "--run", run.to_str().unwrap(), "--gen", "2", "--out"])
        .arg(run.join("two.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no champion of step 2"));
    let config = run.parent().unwrap().parent().unwrap().join("tiny.json");
    qitune()
        .args(["tune", "--config", config.to_str().unwrap(), "--runs"])
        .arg(run.parent().unwrap())
        .args(["--resume", "--generations", "4", "--quiet"])
        .assert()
        .success();
    assert!(run.join("champions/step-0004.json").exists());
    std::fs::remove_dir_all(run.parent().unwrap().parent().unwrap()).unwrap();
}

/// A run in stages is compared whole: its curve begins with its earlier stages' validations
/// when they measure against the same named anchor, and not when each stage measures against
/// its own start. (The runs start from the built-in weights, which name no base weights for
/// the later stage to be checked with before it begins.)
#[test]
fn a_comparison_draws_a_run_in_stages_from_its_first_stage() {
    let dir = std::env::temp_dir().join(format!("qitune-report-stages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path_of = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
    let marks = |anchor: &str| {
        let name = if anchor.is_empty() { "own" } else { "shared" };
        let config = dir.join(format!("{name}.json"));
        std::fs::write(
            &config,
            format!(
                r#"{{"name":"{name}","seed":5,"method":"spsa","generations":2,"evolve":["rook","horse"],
                   "init":"defaults","spsa":{{"iterations":2}},
                   "environments":[{{"from_generation":1,"positions":"{a}","nodes":100}}],
                   "validation":{{"every":1,"games":2,"positions":"{h}"{anchor}}},
                   "stages":[{{}},{{}}]}}"#,
                a = path_of("positions/xiangqi-train-a.epd"),
                h = path_of("positions/xiangqi-holdout.epd"),
            ),
        )
        .unwrap();
        let runs = dir.join("runs");
        qitune()
            .args(["tune", "--quiet", "--config", config.to_str().unwrap(), "--runs"])
            .arg(&runs)
            .assert()
            .success();
        let svg = dir.join(format!("{name}.svg"));
        qitune()
            .args(["report", "--compare"])
            .arg(runs.join(name))
            .arg("--out")
            .arg(&svg)
            .assert()
            .success();
        std::fs::read_to_string(&svg).unwrap().matches("<circle").count()
    };
    let anchor = format!(r#","anchor":"{}""#, path_of("examples/xiangqi-hand-set.json"));
    let (shared, own) = (marks(&anchor), marks(""));
    assert_eq!(shared, own + 2, "the first stage's two validations are drawn");
    std::fs::remove_dir_all(&dir).unwrap();
}
