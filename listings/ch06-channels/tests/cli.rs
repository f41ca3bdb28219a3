//! Bad input gets a clear error and a non-zero exit; a child checks what arrived.

use std::process::Command;

fn listing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ch06-channels"))
}

#[test]
fn an_unknown_flag_is_refused() {
    let out = listing().arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unknown_channel_is_named() {
    let out = listing()
        .args([
            "child",
            "throughput",
            "carrier_pigeon",
            "1",
            "1",
            "8",
            "100",
            "1",
            "0",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("carrier_pigeon"));
}

#[test]
fn tokio_mpsc_has_no_second_receiver() {
    let out = listing()
        .args([
            "child",
            "throughput",
            "tokio_mpsc",
            "4",
            "4",
            "8",
            "100",
            "1",
            "0",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one receiver"));
}

#[test]
fn every_channel_delivers_every_message() {
    for imp in [
        "tokio_mpsc",
        "tokio_batch",
        "kanal",
        "async_channel",
        "flume",
        "crossbeam",
    ] {
        let out = listing()
            .args([
                "child",
                "throughput",
                imp,
                "2",
                "1",
                "4",
                "10000",
                "2",
                "0",
                "0",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{imp}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["messages"], 10000, "{imp}");
    }
}

#[test]
fn a_cell_repeats_its_pass_until_it_has_timed_enough() {
    let out = listing()
        .args(["child", "pingpong", "kanal", "1000", "1", "0", "30"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trips = report["messages"].as_u64().unwrap();
    assert!(
        trips > 1000 && trips.is_multiple_of(1000),
        "{trips} round trips"
    );
    assert!(report["seconds"].as_f64().unwrap() >= 0.03, "{report}");
}

#[test]
fn a_missing_least_time_is_refused() {
    let out = listing()
        .args(["child", "select", "kanal", "8", "100", "1", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("least timed ms"));
}
