//! Faults in the log's path: the collector that dies (its pipe closes) and a full disk
//! (`/dev/full`: every write fails with ENOSPC). The service must keep serving every request; the
//! lines are lost, and fmt says so on standard error.

use ch10_logging::report::{REPORT_PREFIX, Report, Serve};
use ch10_logging::service::expected_digest;
use std::process::{Command, Output, Stdio};

const REQUESTS: usize = 200;
const ROUNDS: u32 = 60;

fn serve_into(writer: &str, stdout: Stdio) -> Output {
    let config = Serve {
        writer: writer.into(),
        filter: "info".into(),
        workers: 2,
        rate_per_s: 2000.0,
        requests: REQUESTS,
        rounds: ROUNDS,
        tick_us: 1000,
        console: false,
        queue_lines: None,
    };
    Command::new(env!("CARGO_BIN_EXE_ch10-service"))
        .args(["serve", &serde_json::to_string(&config).unwrap()])
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// The service's report, once it exited cleanly and served every request.
fn served_every_request(out: &Output) -> Report {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(REPORT_PREFIX))
        .unwrap_or_else(|| panic!("no report: {stderr}"));
    let report: Report = serde_json::from_str(line).unwrap();
    let expected = (0..REQUESTS as u64).fold(0u64, |sum, id| {
        sum.wrapping_add(expected_digest(id, ROUNDS))
    });
    assert_eq!(report.digest_sum, expected, "every request answered");
    report
}

fn write_errors(out: &Output) -> usize {
    String::from_utf8_lossy(&out.stderr)
        .matches("Unable to write an event")
        .count()
}

/// A pipe whose reading end is already closed: the collector died before the service started.
fn dead_collector() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer.into()
}

fn full_disk() -> Stdio {
    std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap()
        .into()
}

#[test]
fn a_dead_collector_loses_the_lines_not_the_requests() {
    // The worker's own write fails with EPIPE (Rust ignores SIGPIPE), and fmt reports each one.
    let out = serve_into("fmt_on_the_worker", dead_collector());
    let r = served_every_request(&out);
    assert_eq!(write_errors(&out) as u64, r.lines_emitted);
    // The appender's thread gets the same errors and drops them without a word.
    let out = serve_into("non_blocking_lossless", dead_collector());
    served_every_request(&out);
    assert_eq!(write_errors(&out), 0);
}

#[test]
fn a_full_disk_loses_the_lines_not_the_requests() {
    let out = serve_into("fmt_on_the_worker", full_disk());
    let r = served_every_request(&out);
    assert_eq!(write_errors(&out) as u64, r.lines_emitted);
    let out = serve_into("non_blocking_lossy", full_disk());
    served_every_request(&out);
    assert_eq!(write_errors(&out), 0);
}
