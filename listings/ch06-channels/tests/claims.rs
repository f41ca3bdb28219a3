//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold
//! where the numbers support them and fail where they do not. The measured records
//! are checked by `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// Three repetitions; `mpsc_lost` is how many messages Tokio's mpsc lost to
/// cancelled receives.
fn shaped_like_the_books(mpsc_lost: f64) -> Record {
    let m = 1e6;
    let lost = [mpsc_lost; 3];
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("throughput", "1to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[12.7 * m, 9.3 * m, 12.3 * m]),
        ("throughput", "1to1_cap1024", "kanal", "messages_per_s", "/s", &[48.9 * m, 45.8 * m, 53.1 * m]),
        ("throughput", "1to1_cap1", "tokio_mpsc", "messages_per_s", "/s", &[4.2 * m, 4.2 * m, 3.4 * m]),
        ("throughput", "1to1_cap1", "tokio_mpsc_mimalloc", "messages_per_s", "/s", &[4.0 * m, 4.4 * m, 4.2 * m]),
        ("throughput", "4to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[8.5 * m, 7.4 * m, 9.2 * m]),
        ("ping_pong", "cap1", "tokio_mpsc", "rtt_p50", "ns", &[201.0, 200.0, 210.0]),
        ("ping_pong", "cap1", "kanal", "rtt_p50", "ns", &[130.0, 130.0, 130.0]),
        ("select", "cap1024", "tokio_mpsc", "messages_per_s", "/s", &[11.3 * m, 9.0 * m, 8.7 * m]),
        ("select", "cap1024", "tokio_batch", "messages_per_s", "/s", &[22.0 * m, 21.1 * m, 22.9 * m]),
        ("cancel", "cap1", "tokio_mpsc", "lost", "count", &lost),
        ("cancel", "cap1", "async_channel", "lost", "count", &[0.0, 0.0, 0.0]),
        ("cancel", "cap1", "flume", "lost", "count", &[0.0, 0.0, 0.0]),
        ("cancel", "cap1", "kanal", "lost", "count", &[33405.0, 33224.0, 33578.0]),
        ("threads", "1", "tokio_mpsc", "messages_per_s", "/s", &[18.6 * m, 18.4 * m, 18.5 * m]),
        ("threads", "2", "tokio_mpsc", "messages_per_s", "/s", &[9.4 * m, 9.7 * m, 13.2 * m]),
        ("queue_depth", "50", "unbounded", "depth", "count", &[1041.0, 1010.0, 1133.0]),
        ("queue_depth", "200", "unbounded", "depth", "count", &[4122.0, 4053.0, 4137.0]),
        ("queue_depth", "200", "bounded", "depth", "count", &[65.0, 64.0, 65.0]),
    ];
    Record::sketch("ch06-channels", "test", &[], cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books(0.0);
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_mpsc_claim_fails_when_a_cancelled_receive_loses_a_message() {
    let rec = shaped_like_the_books(1.0);
    let o = claims().get("mpsc-loses-nothing").unwrap().check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
}
