//! Memory limits the test sets itself on the service. Under an address-space limit (`RLIMIT_AS`)
//! every allocator refuses a fallible allocation cleanly (`try_reserve`: an error the program can
//! count) below the limit, and an infallible one aborts the process with Rust's message. Under a
//! container's limit (a memory cgroup) nothing is refused: the kernel kills the process.

use ch11_memory::report::{HELD_PREFIX, Held, REPORT_PREFIX};
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
        .find_map(|l| l.strip_prefix(REPORT_PREFIX))
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

/// A container's limit (a memory cgroup of 64 MiB, made by the test where it can be: as root,
/// with a memory controller mounted): the
/// allocator is never refused, and the kernel's OOM killer ends the process, with no message,
/// once the pages it wrote reach the limit.
fn killed_in_a_cgroup(program: &str) {
    const CGROUP_MIB: usize = 64;
    let cgroup = match ch11_memory::cgroup::MemoryCgroup::create((CGROUP_MIB as u64) << 20) {
        Ok(cgroup) => cgroup,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let mut command = Command::new(program);
    command.args(["limit", r#"{"chunk_mib":4,"max_chunks":100}"#]);
    cgroup.enter_on_exec(&mut command);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGKILL),
        "{program}: {stderr}"
    );
    assert_eq!(cgroup.oom_kills().unwrap(), 1, "{program}: {stderr}");
    assert!(cgroup.limit_reached().unwrap(), "{program}: {stderr}");
    assert!(
        !stderr.contains(REPORT_PREFIX),
        "{program} was refused: {stderr}"
    );
    let held = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(HELD_PREFIX))
        .next_back()
        .map_or(0, |l| serde_json::from_str::<Held>(l).unwrap().held_mib);
    assert!(
        (CGROUP_MIB / 2..CGROUP_MIB).contains(&held),
        "{program} held {held} MiB: {stderr}"
    );
}

#[test]
fn glibc_is_killed_not_refused_in_a_cgroup() {
    killed_in_a_cgroup(env!("CARGO_BIN_EXE_ch11-system"));
}

#[test]
fn mimalloc_is_killed_not_refused_in_a_cgroup() {
    killed_in_a_cgroup(env!("CARGO_BIN_EXE_ch11-mimalloc"));
}

#[test]
fn jemalloc_is_killed_not_refused_in_a_cgroup() {
    killed_in_a_cgroup(env!("CARGO_BIN_EXE_ch11-jemalloc"));
}
