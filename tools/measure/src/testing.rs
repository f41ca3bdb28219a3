//! For the listings' tests of runs that must stop before measuring: run a listing's binary with
//! its record going to a fresh file, and see what it printed and whether it saved anything.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty folder under the temporary directory, named for `name`, this process and a
/// counter; the caller removes it.
pub fn fresh_dir(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// Runs `exe` with `args` and the extra environment `env`, its record going to `out` (`--out`):
/// what it printed and returned, and whether it wrote the record. Without `CARGO`, as when run
/// from `target/debug`: the listing uses the sibling binaries `cargo test` built beside it
/// (`measure::child::sibling_binary`) instead of asking cargo for them, which would build the
/// package's dependencies again with its own features alone (40 s of a cold CI run).
pub fn run_listing<K: AsRef<OsStr>, V: AsRef<OsStr>>(
    exe: &Path,
    args: &[&str],
    env: &[(K, V)],
    out: &Path,
) -> (Output, bool) {
    let run = Command::new(exe)
        .args(args)
        .arg("--out")
        .arg(out)
        .env_remove("CARGO")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("the listing starts");
    (run, out.exists())
}

/// Runs `exe` with `args` and `GO` pointing at no program, its record under a fresh folder:
/// what it printed and returned, and whether it wrote the record.
pub fn run_without_go(exe: &Path, args: &[&str]) -> (Output, bool) {
    let dir = fresh_dir("without-go");
    let result = run_listing(
        exe,
        args,
        &[("GO", dir.join("no-such-go"))],
        &dir.join("record.json"),
    );
    std::fs::remove_dir_all(&dir).expect("the temporary folder goes");
    result
}

/// Asserts that a run failed: exit status 1, each of `says` in what it printed on stderr, and no
/// record written.
pub fn assert_failed_unsaved((run, saved): &(Output, bool), says: &[&str]) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    for s in says {
        assert!(stderr.contains(s), "no {s:?} in: {stderr}");
    }
    assert!(!saved, "a record was written");
}

/// Asserts that a run failed before it measured anything ([`assert_failed_unsaved`], and no
/// repetition begun).
pub fn assert_stopped_before_measuring(run: &(Output, bool), says: &[&str]) {
    assert_failed_unsaved(run, says);
    let stderr = String::from_utf8_lossy(&run.0.stderr);
    assert!(
        !stderr.contains("rep 1/"),
        "it measured before stopping: {stderr}"
    );
}

/// Asserts that a run succeeded and wrote its record.
pub fn assert_saved((run, saved): &(Output, bool)) {
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(saved, "no record was written");
}
