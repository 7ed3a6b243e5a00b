//! Progress of long work: a bar on a terminal; on a pipe or in a log, a plain line with a
//! timestamp and an ETA every so often, on standard error (standard output keeps the results).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A progress report over `len` units of work.
pub struct Progress {
    bar: ProgressBar,
    /// On a pipe: a line every `every` units.
    every: Option<u64>,
    unit: &'static str,
    done: AtomicU64,
    started: Instant,
}

impl Progress {
    /// A report over `len` units named `unit` ("games"); plain lines come about 20 times.
    /// `quiet`: no report at all.
    pub fn new(len: u64, unit: &'static str, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal && !quiet {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template(&format!(
                    "{{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  [{{elapsed_precise}} eta {{eta}}]"
                ))
                .expect("valid template"),
            );
            bar
        } else {
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden())
        };
        Progress {
            bar,
            every: (!terminal && !quiet).then_some((len / 20).max(1)),
            unit,
            done: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// One more unit done; `message` says how things stand.
    pub fn tick(&self, message: &str) {
        self.bar.set_message(message.to_string());
        self.bar.inc(1);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let len = self.bar.length().unwrap_or(done).max(done);
        if let Some(every) = self.every {
            if done % every == 0 || done == len {
                let elapsed = self.started.elapsed();
                let eta = elapsed.mul_f64((len - done) as f64 / done as f64);
                let message = if message.is_empty() {
                    String::new()
                } else {
                    format!("  {message}")
                };
                eprintln!(
                    "[{}] {done}/{len} {}{message}  eta {}",
                    clock_now(),
                    self.unit,
                    hms(eta)
                );
            }
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

pub use qitune::clock::{clock_now, hms};
