//! The machine under qitune: file writing that survives a crash at any moment, reading with a
//! bound, and the memory there is to plan with.

use std::fs;
use std::io::Write;
use std::path::Path;

/// The largest JSON file qitune reads (a configuration, a weight file, a run's state):
/// far above any real one, so that a device or a huge file is refused rather than read
/// until memory runs out.
pub const MAX_JSON_BYTES: u64 = 64 << 20;
/// The largest position file qitune reads (about two million positions).
pub const MAX_POSITION_BYTES: u64 = 256 << 20;

/// Reads a text file of at most `limit` bytes; a larger one (or an endless device such as
/// /dev/zero) is an error, not a wait.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    fs::File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("the file is larger than {} MiB", limit >> 20),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is not UTF-8 text"))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder is written and
/// synced, then renamed over `path`, so readers see the old file or the new one, never half.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path has no file name"))?;
    let tmp = dir.join(format!(
        ".{}{TEMPORARY}{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // Persist the rename itself; not every platform lets a folder be opened for this.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Checks that files can be written in `dir` the way [`write_atomic`] writes them, so that a
/// long job refuses a read-only folder before it starts rather than after its first step.
pub fn check_writable(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".write-probe{TEMPORARY}{}", std::process::id()));
    write_atomic(&probe, b"")?;
    fs::remove_file(&probe)
}

/// What marks the name of [`write_atomic`]'s temporary files.
const TEMPORARY: &str = ".tmp-";

/// Removes the temporary files that writers killed mid-write left in `dir`. Only for a
/// folder no other process is writing to.
pub fn remove_temporaries(dir: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.contains(TEMPORARY) && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// The memory the system can still give, in bytes (Linux's MemAvailable), if it says.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_takes_no_files_is_found_out() {
        let dir = std::env::temp_dir().join(format!("qitune-probe-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        check_writable(&dir).unwrap();
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0, "the probe is removed");
        assert!(check_writable(&dir.join("missing")).is_err());
        // Not even root may create files in /proc.
        #[cfg(target_os = "linux")]
        assert!(check_writable(Path::new("/proc")).is_err());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("qitune-fsutil-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporaries_of_a_killed_writer_are_removed_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("qitune-fsutil-stale-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(".gen-0003.json.tmp-4242"), "half a fi").unwrap();
        fs::write(dir.join("gen-0002.json"), "{}").unwrap();
        fs::write(dir.join(".keep"), "").unwrap();
        remove_temporaries(&dir).unwrap();
        let mut names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [".keep", "gen-0002.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
