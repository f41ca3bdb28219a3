//! Bad input gets a clear error and a non-zero exit.

use std::process::Command;

fn listing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ch07-axum"))
}

#[test]
fn an_unknown_flag_is_refused() {
    let out = listing().arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn serve_refuses_an_unknown_counter() {
    let out = listing()
        .args(["serve", "--counters", "abacus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one-mutex or sharded"));
}

#[test]
fn serve_says_what_it_does() {
    let out = listing().args(["serve", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("127.0.0.1"));
}

#[test]
fn the_mimalloc_server_wants_serve() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch07-mimalloc"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage"));
}

#[test]
fn a_taken_port_is_an_error_not_a_hang() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = listing()
        .args(["serve", "--port", &port, "--internal-port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("serve:"));
}
