//! The guides' quick transcripts run as written: each ```console block of the pages below
//! (perft and its errors, bench, params, a small match)
//! is played against the real binary, and an output that has gone stale fails here. (`[..]`
//! in a transcript stands for what varies, such as a speed; `...` for lines left out.) Long
//! outputs, tuning runs and matches, stay ```text and are replayed by
//! `scripts/readme-outputs.sh`.

#[test]
fn the_guides_console_transcripts_hold() {
    trycmd::TestCases::new()
        .case("docs/commands.md")
        .case("docs/engine.md");
}
