//! Bad input gets a clear error and a non-zero exit, and writes nothing.

use std::process::Command;

fn listing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ch05-rayon-lanes"))
}

#[test]
fn an_unknown_flag_is_refused() {
    let out = listing().arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bogus"));
}

#[test]
fn a_malformed_child_command_says_which_argument() {
    let out = listing()
        .args(["child", "budget", "one", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("argument 0 (cpus)"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn more_cpus_than_the_process_may_use_is_an_error() {
    let out = listing()
        .args([
            "child", "budget", "100000", "-", "default", "default", "1", "10", "1",
            "1", "5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("asked for 100000 CPUs"));
}

#[test]
fn a_budget_child_reports_its_pools() {
    let out = listing()
        .args([
            "child", "budget", "1", "-", "1", "3", "4", "50", "10", "2", "5",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["available_parallelism"], 1);
    assert_eq!(report["tokio_workers"], 1);
    assert_eq!(report["rayon_threads"], 3);
}
