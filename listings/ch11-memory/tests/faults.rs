//! A memory limit the test sets itself on the service (`RLIMIT_AS`, the address space): every
//! allocator refuses a fallible allocation cleanly (`try_reserve`: an error the program can
//! count) below the limit, and an infallible one aborts the process with Rust's message.

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

const LIMIT_MIB: u64 = 768;

/// Runs `program limit` under an address-space limit of `LIMIT_MIB`.
fn at_the_limit(program: &str) -> (std::process::ExitStatus, String) {
    let mut command = Command::new(program);
    command.args(["limit", r#"{"chunk_mib":16,"max_chunks":1000}"#]);
    command.env("RUST_BACKTRACE", "0");
    ch11_memory::child::limit_address_space(&mut command, LIMIT_MIB << 20);
    let out = command.output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn held_mib(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ch11-report "))
        .unwrap_or_else(|| panic!("no report: {stderr}"));
    let report: serde_json::Value = serde_json::from_str(line).unwrap();
    report["held_mib"].as_u64().unwrap()
}

fn refuses_then_aborts(program: &str) {
    let (status, stderr) = at_the_limit(program);
    let held = held_mib(&stderr);
    assert!(
        held > 0 && held < LIMIT_MIB,
        "{program} held {held} MiB: {stderr}"
    );
    assert_eq!(
        status.signal(),
        Some(libc::SIGABRT),
        "{program}: {status}, {stderr}"
    );
    assert!(
        stderr.contains("memory allocation of 16777216 bytes failed"),
        "{program}: {stderr}"
    );
}

#[test]
fn glibc_refuses_below_the_limit_then_aborts() {
    refuses_then_aborts(env!("CARGO_BIN_EXE_ch11-system"));
}

#[test]
fn mimalloc_refuses_below_the_limit_then_aborts() {
    refuses_then_aborts(env!("CARGO_BIN_EXE_ch11-mimalloc"));
}

#[test]
fn jemalloc_refuses_below_the_limit_then_aborts() {
    refuses_then_aborts(env!("CARGO_BIN_EXE_ch11-jemalloc"));
}
