//! A run whose folder fills up stops with one message and its last complete step intact, and
//! resumes to the files of a run that never lacked room once there is room again.
//!
//! The folder is a small tmpfs, so the test needs root (as CI has); elsewhere it says so and
//! checks nothing.

mod common;

use common::{config, contents, files, scratch, start};
use std::path::Path;
use std::process::Command;

/// Mounts a tmpfs of `kib` KiB at `at`; false where this process may not.
fn mount_tmpfs(at: &Path, kib: u64) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
        .arg(at)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Bytes a folder's files take.
fn size(dir: &Path) -> u64 {
    files(dir).iter().map(|f| f.metadata().unwrap().len()).sum()
}

#[test]
fn a_run_out_of_room_stops_whole_and_resumes_once_there_is_room() {
    let dir = scratch("full-disk");
    let config = config(&dir, "ga");
    let whole = start(&config, &dir.join("whole")).wait_with_output().unwrap();
    assert!(
        whole.status.success(),
        "{}",
        String::from_utf8_lossy(&whole.stderr)
    );
    let needed = size(&dir.join("whole/run"));
    let disk = dir.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    // Room for twice the whole run, then a filler leaves about half of the run's size free.
    let kib = 2 * needed / 1024 + 64;
    if !mount_tmpfs(&disk, kib) {
        println!("skipped: a tmpfs cannot be mounted here (the test needs root)");
        return;
    }
    let unmount = || {
        let _ = Command::new("umount").arg(&disk).status();
    };
    let filler = disk.join("filler");
    let free = needed / 2;
    std::fs::write(&filler, vec![0u8; (kib * 1024).saturating_sub(free) as usize]).ok();
    let runs = disk.join("runs");
    let full = start(&config, &runs).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&full.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let outcome = (|| {
        if full.status.code() != Some(1) {
            return Err(format!("exit {:?} on a full disk: {stderr}", full.status.code()));
        }
        if lines.len() != 1 || !lines[0].starts_with("error: ") || !stderr.contains("No space left") {
            return Err(format!("not one message naming the cause: {stderr}"));
        }
        if !runs.join("run/state.json").exists() {
            return Err(format!("the run never began, the disk is too small: {stderr}"));
        }
        // Room again: the resume checks the folder against its state and goes on.
        std::fs::remove_file(&filler).unwrap();
        let resumed = start(&config, &runs).wait_with_output().unwrap();
        if !resumed.status.success() {
            return Err(format!(
                "the resume failed: {}",
                String::from_utf8_lossy(&resumed.stderr)
            ));
        }
        let (a, b) = (contents(&dir.join("whole/run")), contents(&runs.join("run")));
        if a != b {
            return Err("the resumed run's files differ from the run that had room".into());
        }
        Ok(a.len())
    })();
    unmount();
    match outcome {
        Ok(files) => println!(
            "stopped with: {}; resumed to the {files} files of the run that had room",
            lines[0]
        ),
        Err(why) => panic!("{why}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
