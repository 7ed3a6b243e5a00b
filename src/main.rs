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
        Err(err) if err.is::<cli::interrupt::Interrupted>() => {
            ExitCode::from(cli::interrupt::EXIT_INTERRUPTED as u8)
        }
        Err(err) => {
            eprintln!("error: {}", message(&err));
            ExitCode::from(1)
        }
    }
}

/// The error and its causes on one line, each cause once: library errors end their own
/// message with their cause (they are shown alone too, in engine sessions and warnings), so a
/// cause the text already ends with is not said again.
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let cause = cause.to_string();
        if !text.ends_with(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text
}
