//! Bad input to the listing and to its services: a clear error and a non-zero exit.

use std::process::Command;

#[test]
fn an_unknown_experiment_is_named_with_the_ones_there_are() {
    let out = Command::new(env!("CARGO_BIN_EXE_ch11-memory"))
        .args(["--quick", "--filter", "no_such_experiment"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("retention"), "{stderr}");
}

/// The `work` of the small run's CONFIG.
const WORK: ch11_memory::service::Work = ch11_memory::service::Work {
    body_bytes: 1024,
    record_bytes: 64,
    hold_ms: 1,
    blocking_us: 10,
    keep_every: 10,
    cache_entries: 5,
};

fn service(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ch11-system"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_service_refuses_a_malformed_config_and_an_unknown_command() {
    let (code, stderr) = service(&["bursts", "{\"workers\":"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("bad CONFIG"), "{stderr}");
    let (code, stderr) = service(&["bursts", r#"{"workers":2}"#]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("missing field"), "{stderr}");
    let (code, stderr) = service(&["leak", "{}"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("usage: ch11-system"), "{stderr}");
}

#[test]
fn a_small_run_reports_every_reading_and_a_full_cache() {
    let config = r#"{"workers":2,"rate_per_s":2000.0,"requests":40,"bursts":2,"idle_ms":5,
        "work":{"body_bytes":1024,"record_bytes":64,"hold_ms":1,"blocking_us":10,
        "keep_every":10,"cache_entries":5}}"#;
    let (code, stderr) = service(&["bursts", config]);
    assert_eq!(code, Some(0), "{stderr}");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("ch11-report "))
        .unwrap();
    let r: ch11_memory::report::Report = serde_json::from_str(line).unwrap();
    assert_eq!(r.after_idle.len(), 2);
    assert_eq!(r.cache_entries, 5);
    let arenas = r.figures.iter().find(|f| f.name == "arenas");
    assert!(arenas.expect("the system allocator here is glibc's").value >= 1.0);
    let expected = (0..80).fold(0u64, |sum, id| {
        sum.wrapping_add(ch11_memory::service::expected_digest(id, &WORK))
    });
    assert_eq!(r.digest_sum, expected);
}
