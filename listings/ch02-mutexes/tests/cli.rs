//! The shared command line behaves here as in every listing: bad input is exit status 2.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ch02-mutexes"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn bad_input_is_a_usage_error() {
    for args in [
        &["--reps", "0"][..],
        &["--workers", "x"][..],
        &["--nope"][..],
        &["--quick", "--save"][..],
    ] {
        let (code, text) = run(args);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
}

#[test]
fn a_filter_that_matches_nothing_runs_nothing() {
    let (code, text) = run(&["--quick", "--filter", "no-such-lock"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("matched no case or variant"), "{text}");
}

#[test]
fn a_record_that_cannot_be_written_stops_the_run_before_it_measures() {
    let (code, text) = run(&["--out", "/proc/nope/record.json"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("cannot write the record to /proc/nope/record.json")
            && text.contains("nothing was measured"),
        "{text}"
    );
    // The progress line names the experiment it runs: none did.
    assert!(
        !text.contains("timer"),
        "nothing ran before the refusal: {text}"
    );
}
