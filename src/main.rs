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
            eprintln!("error: {}", message(&err));
            ExitCode::from(1)
        }
    }
}

/// The error and its causes on one line, each cause once: library errors already name
/// their cause in their own message, and saying it twice reads like a stutter.
fn message(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&cause);
        }
    }
    text
}
