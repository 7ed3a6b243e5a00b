//! `qitune runs`: every run of a runs folder on one line each.

use anyhow::{Context, Result};
use qitune::tune::runs::{list, RunSummary};
use std::path::PathBuf;

/// List the runs of a runs folder: name, method, game, steps done of planned, tuning games,
/// best validated Elo with its interval, state (running, stopped, done) and last write.
#[derive(clap::Args)]
pub struct Args {
    /// Folder holding the runs.
    #[arg(long, default_value = "runs")]
    runs: PathBuf,
    /// One JSON object per run instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    if !args.runs.is_dir() {
        anyhow::bail!("{} is not a folder of runs", args.runs.display());
    }
    let runs = list(&args.runs).with_context(|| format!("reading {}", args.runs.display()))?;
    if args.json {
        for r in &runs {
            println!("{}", serde_json::to_string(r).expect("a summary serialises"));
        }
        return Ok(());
    }
    if runs.is_empty() {
        println!("no runs in {}", args.runs.display());
        return Ok(());
    }
    let rows: Vec<[String; 8]> = runs.iter().map(row).collect();
    let header = [
        "run",
        "method",
        "game",
        "steps",
        "games",
        "best validated Elo (95%)",
        "state",
        "last write (UTC)",
    ]
    .map(str::to_string);
    let widths: Vec<usize> = (0..8)
        .map(|c| {
            rows.iter()
                .chain([&header])
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in [&header].into_iter().chain(&rows) {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
    Ok(())
}

fn row(r: &RunSummary) -> [String; 8] {
    let best = r
        .best
        .as_ref()
        .map_or("-".to_string(), |v| match (v.elo, v.elo_low, v.elo_high) {
            (Some(e), Some(lo), Some(hi)) => format!("{e:+.1} ({lo:+.1} to {hi:+.1}) at {}", v.step),
            (Some(e), _, _) => format!("{e:+.1} at {}", v.step),
            _ => format!("score {:.3} at {}", v.score, v.step),
        });
    let state = match r.state {
        qitune::tune::runs::RunState::Running => "running",
        qitune::tune::runs::RunState::Stopped => "stopped",
        qitune::tune::runs::RunState::Done => "done",
    };
    [
        r.name.clone(),
        r.method.clone(),
        r.game.clone(),
        // A run extended past its plan (`--resume --generations`) says so instead of N/M, N > M.
        if r.done > r.planned {
            format!("{} (plan {})", r.done, r.planned)
        } else {
            format!("{}/{}", r.done, r.planned)
        },
        r.games.to_string(),
        best,
        state.to_string(),
        r.last_write.map_or("-".to_string(), date_time),
    ]
}

/// Seconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS` (UTC).
fn date_time(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {}",
        qitune::clock::hms(std::time::Duration::from_secs(secs % 86_400))
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates_are_civil() {
        assert_eq!(super::date_time(0), "1970-01-01 00:00:00");
        assert_eq!(super::date_time(1_795_000_000), "2026-11-18 11:06:40");
        assert_eq!(super::date_time(951_782_400), "2000-02-29 00:00:00");
    }
}
