//! Wall-clock text for logs, progress lines and pages.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The time of day (UTC) as HH:MM:SS.
pub fn clock_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    hms(Duration::from_secs(secs % 86_400))
}

/// A duration as HH:MM:SS.
pub fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
