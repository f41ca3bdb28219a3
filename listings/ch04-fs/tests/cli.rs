//! Bad places to put the test files: each is a clear error, a non-zero exit, and nothing left
//! behind.

use std::path::Path;
use std::process::{Command, Output};

fn run_in(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ch04-fs"))
        .args(["--quick", "--dir"])
        .arg(dir)
        .output()
        .expect("the listing starts")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_missing_directory_is_a_clear_error() {
    let out = run_in(Path::new("/nonexistent/ch04-fs"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("cannot create a directory for the test files under /nonexistent/ch04-fs")
    );
}

#[test]
fn a_read_only_directory_is_a_clear_error() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("read-only");
    std::fs::create_dir(&dir).unwrap();
    let mut perms = std::fs::metadata(&dir).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&dir, perms).unwrap();
    // Root writes through permissions; /proc is read-only for everyone.
    let target = if std::fs::write(dir.join("probe"), b"x").is_ok() {
        eprintln!("running as root: using /proc as the read-only directory");
        Path::new("/proc").to_path_buf()
    } else {
        dir.clone()
    };
    let out = run_in(&target);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot create a directory for the test files"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_full_disk_is_a_clear_error_and_leaves_nothing_behind() {
    // A file-size limit stands in for a full disk: the writes past it fail the same way.
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 256 && exec '{}' --quick --dir '{}'",
            env!("CARGO_BIN_EXE_ch04-fs"),
            dir.path().display()
        ))
        .output()
        .expect("sh starts");
    if !out.status.success() && stderr(&out).contains("ulimit") {
        eprintln!("skipped: this shell cannot set a file-size limit");
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    assert!(stderr(&out).contains("File too large"), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
