//! Bad input to the listing and to its upstream: a clear error and a non-zero exit.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn an_unknown_experiment_is_named_with_the_ones_there_are() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch09-connections"))
        .args(["--quick", "--filter", "no_such_experiment"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("client_reuse"), "{stderr}");
}

#[test]
fn the_upstream_refuses_an_unknown_certificate_kind() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch09-upstream"))
        .arg("self-signed-by-nobody")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown certificate kind"), "{stderr}");
}

#[test]
fn the_upstream_answers_counts_and_refuses_an_unknown_command() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ch09-upstream"))
        .arg("good")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    writeln!(input, "counts").unwrap();
    writeln!(input, "reboot").unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].contains("\"plain\":\"127.0.0.1:"), "{}", lines[0]);
    assert!(lines[1].contains("\"connections\":0"), "{}", lines[1]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unknown command \"reboot\""), "{stderr}");
}
