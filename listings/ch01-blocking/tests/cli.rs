//! Bad input gets a clear message and exit status 2, never a panic or a run.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ch01-blocking"))
        .args(args)
        .output()
        .expect("the listing runs");
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn bad_flags_and_values_exit_with_status_2() {
    for (args, says) in [
        (&["--reps", "0"][..], "--reps"),
        (&["--reps", "many"][..], "invalid value"),
        (&["--frobnicate"][..], "unexpected argument"),
        (&["--workers", "0"][..], "--workers"),
        (&["--machine", "../etc"][..], "lowercase letters"),
    ] {
        let (code, text) = run(args);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
}

#[test]
fn a_filter_that_matches_nothing_is_an_error_before_any_run() {
    let (code, text) = run(&["--quick", "--filter", "no-such-variant"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("matched no case or variant"), "{text}");
}

#[test]
fn help_lists_every_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch01-blocking"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--reps",
        "--quick",
        "--save",
        "--out",
        "--filter",
        "--workers",
        "--seed",
        "--machine",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn save_refuses_quick_runs_and_keeps_the_stored_record() {
    // --save with --quick is refused before anything runs, without touching data/.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/test-refusal/ch01-blocking.json");
    let (code, text) = run(&[
        "--quick",
        "--save",
        "--machine",
        "test-refusal",
        "--filter",
        "0/inline",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--save stores full runs only"), "{text}");
    assert!(!path.exists());
}

#[test]
fn an_interrupted_run_leaves_the_stored_record_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ch01-blocking.json");
    let previous = measure::Record::sketch(
        "ch01-blocking",
        "test",
        &[("workers", 1.0)],
        &[("blocking", "1", "inline", "p99", "ns", &[35e6, 36e6])],
    );
    previous.save_atomic(&out).unwrap();
    let before = std::fs::read(&out).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ch01-blocking"));
    command
        .args(["--quick", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    // A shell without job control starts background jobs with SIGINT ignored, and children
    // inherit that; give the listing the default, as a terminal would.
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    // Ctrl-C while it measures: the record is written only after the last run, atomically.
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(std::fs::read(&out).unwrap(), before, "byte for byte");
    assert_eq!(measure::Record::load(&out).unwrap(), previous);
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary file left behind");
}
