//! Ctrl-C for long commands: say what has been kept and how to go on, never a bare death.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

/// What a command returns when Ctrl-C stopped it after it said what it kept: `main` ends
/// with [`EXIT_INTERRUPTED`] and says nothing more.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// Ends the process at the first Ctrl-C, after printing `message` (for work whose saved state
/// is always consistent, such as a tuning run's folder) and adding it to `log`; `lock` (a
/// run's lock file) is removed and the report of run folder `report` rewritten, so that
/// neither says the run still goes. The returned [`Turn`] is held while the command writes
/// its own lines, so that the message is always the log's last line. A later call replaces
/// what an earlier one set (each stage of a run in stages names its own folder).
pub fn exit_with(
    message: String,
    log: Option<std::path::PathBuf>,
    lock: Option<std::path::PathBuf>,
    report: Option<std::path::PathBuf>,
) -> Turn {
    let turn = Turn::default();
    *EXIT.lock().unwrap_or_else(PoisonError::into_inner) = Some(Exit {
        message,
        log,
        lock,
        report,
        turn: turn.clone(),
    });
    // A second handler cannot be installed; the first one reads what the latest call set.
    let _ = ctrlc::set_handler(|| {
        let exit = EXIT.lock().unwrap_or_else(PoisonError::into_inner).take();
        let Some(exit) = exit else {
            std::process::exit(EXIT_INTERRUPTED);
        };
        // Kept until the process ends: the command writes nothing after the message.
        let _writing = exit.turn.take();
        let message = &exit.message;
        eprintln!("\n{message}");
        if let Some(path) = &exit.log {
            use std::io::Write;
            if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) {
                let _ = writeln!(file, "[{}] {message}", qitune::clock::clock_now());
            }
        }
        if let Some(path) = &exit.lock {
            let _ = std::fs::remove_file(path);
        }
        if let Some(dir) = &exit.report {
            if dir.join("report.html").exists() {
                let _ = qitune::report::write(dir, None);
            }
        }
        std::process::exit(EXIT_INTERRUPTED);
    });
    turn
}

/// What the Ctrl-C handler does, as the latest [`exit_with`] set it.
struct Exit {
    message: String,
    log: Option<std::path::PathBuf>,
    lock: Option<std::path::PathBuf>,
    report: Option<std::path::PathBuf>,
    turn: Turn,
}

static EXIT: Mutex<Option<Exit>> = Mutex::new(None);

/// Turns at writing a log between a command and its Ctrl-C handler.
#[derive(Clone, Default)]
pub struct Turn(Arc<Mutex<()>>);

impl Turn {
    /// Waits for the turn; the other side writes nothing while the guard lives.
    pub fn take(&self) -> MutexGuard<'_, ()> {
        // A panic while writing poisons nothing worth refusing the turn for.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The first Ctrl-C sets the returned flag (the work stops starting new units and reports
/// what it finished) after printing `message`; a second one ends the process at once.
pub fn stop_flag(message: String, at_once: String) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let presses = AtomicUsize::new(0);
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            flag.store(true, Ordering::SeqCst);
            eprintln!("\n{message}");
        } else {
            eprintln!("\n{at_once}");
            std::process::exit(EXIT_INTERRUPTED);
        }
    });
    stop
}
