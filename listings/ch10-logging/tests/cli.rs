//! Bad input to the listing and to its service: a clear error and a non-zero exit.

use std::process::Command;

#[test]
fn an_unknown_experiment_is_named_with_the_ones_there_are() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch10-logging"))
        .args(["--quick", "--filter", "no_such_experiment"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("writers"), "{stderr}");
}

fn service(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ch10-service"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SERVE: &str = r#"{"writer":"WRITER","filter":"FILTER","workers":1,"rate_per_s":100.0,"requests":5,"rounds":10,"tick_us":1000}"#;

#[test]
fn the_service_refuses_an_unknown_writer_naming_the_ones_there_are() {
    let config = SERVE.replace("WRITER", "syslog").replace("FILTER", "info");
    let (code, stderr) = service(&["serve", &config]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("no variant `syslog`"), "{stderr}");
    assert!(stderr.contains("non_blocking_lossy"), "{stderr}");
}

#[test]
fn the_service_refuses_a_filter_that_is_not_a_level() {
    let config = SERVE
        .replace("WRITER", "fmt_on_the_worker")
        .replace("FILTER", "verbose");
    let (code, stderr) = service(&["serve", &config]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a level"), "{stderr}");
}

#[test]
fn the_service_refuses_a_malformed_config_and_an_unknown_command() {
    let (code, stderr) = service(&["serve", "{\"writer\":"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("bad CONFIG"), "{stderr}");
    let (code, stderr) = service(&["replay", "{}"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("usage: ch10-service"), "{stderr}");
}
