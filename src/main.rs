//! The `qitune` command: parses arguments, dispatches, and reports errors once.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A bug must still reach the user as one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: internal error ({info}); please report this with the command you ran");
    }));
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}
