//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("throughput", "1to1_cap1024", "kanal", "messages_per_s", "/s", &[9.889e+06, 1.746e+07, 2.392e+07, 9.693e+06, 1.654e+07, 1.615e+07, 1.714e+07, 1.592e+07, 1.814e+07, 1.985e+07]),
        ("throughput", "1to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[5.59e+06, 8.357e+06, 8.906e+06, 7.365e+06, 7.142e+06, 5.304e+06, 5.268e+06, 7.204e+06, 9.499e+06, 9.848e+06]),
        ("throughput", "1to1_cap1", "tokio_mpsc", "messages_per_s", "/s", &[1.603e+06, 1.393e+06, 1.498e+06, 1.382e+06, 1.52e+06, 1.94e+06, 1.317e+06, 1.385e+06, 1.404e+06, 1.715e+06]),
        ("throughput", "4to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[2.688e+06, 5.697e+06, 5.522e+06, 5.995e+06, 6.371e+06, 7.034e+06, 5.431e+06, 5.6e+06, 5.236e+06, 5.778e+06]),
        ("ping_pong", "cap1", "kanal", "rtt_p50", "ns", &[200.0, 280.0, 261.0, 251.0, 261.0, 251.0, 241.0, 270.0, 261.0, 261.0, 270.0, 251.0, 261.0, 250.0, 270.0, 200.0, 260.0, 271.0, 270.0, 200.0]),
        ("ping_pong", "cap1", "tokio_mpsc", "rtt_p50", "ns", &[431.0, 441.0, 431.0, 441.0, 311.0, 410.0, 451.0, 431.0, 451.0, 331.0, 301.0, 311.0, 421.0, 421.0, 301.0, 410.0, 291.0, 411.0, 421.0, 411.0]),
        ("select", "cap1024", "tokio_batch", "messages_per_s", "/s", &[1.857e+07, 1.557e+07, 1.658e+07, 1.765e+07, 1.644e+07, 1.766e+07, 1.777e+07, 1.571e+07, 1.748e+07, 1.792e+07]),
        ("select", "cap1024", "tokio_mpsc", "messages_per_s", "/s", &[8.435e+06, 5.265e+06, 9.255e+06, 9.316e+06, 9.421e+06, 8.564e+06, 8.408e+06, 8.72e+06, 7.567e+06, 6.781e+06]),
        ("cancel", "cap1", "kanal", "lost", "count", &[3.33e+04, 3.319e+04, 3.326e+04, 3.319e+04, 3.364e+04, 3.338e+04, 3.348e+04, 3.351e+04, 3.332e+04, 3.342e+04, 3.338e+04, 3.348e+04, 3.344e+04, 3.336e+04, 3.346e+04, 3.354e+04, 3.329e+04, 3.346e+04, 3.318e+04, 3.345e+04]),
        ("threads", "1", "tokio_mpsc", "messages_per_s", "/s", &[9.578e+06, 9.482e+06, 1.403e+07, 1.379e+07, 9.822e+06, 9.105e+06, 1.394e+07, 1.381e+07, 9.803e+06, 9.15e+06, 9.181e+06, 9.262e+06, 8.938e+06, 9.195e+06, 8.965e+06, 8.922e+06, 8.944e+06, 9.199e+06, 9.546e+06, 9.463e+06]),
        ("threads", "2", "tokio_mpsc", "messages_per_s", "/s", &[7.197e+06, 8.873e+06, 8.489e+06, 9.256e+06, 7.587e+06, 7.863e+06, 7.181e+06, 7.322e+06, 7.249e+06, 7.312e+06, 7.456e+06, 6.982e+06, 7.358e+06, 7.143e+06, 7.342e+06, 5.886e+06, 9.258e+06, 7.233e+06, 7.167e+06, 7.295e+06]),
        ("queue_depth", "200", "unbounded", "depth", "count", &[4136.0, 4374.0, 4123.0, 4125.0, 4044.0, 4045.0, 4047.0, 4265.0, 4027.0, 4051.0]),
        ("queue_depth", "50", "unbounded", "depth", "count", &[1019.0, 1034.0, 1064.0, 1023.0, 1010.0, 1214.0, 1009.0, 1009.0, 1010.0, 1021.0]),
        ("cancel", "cap1", "tokio_mpsc", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "async_channel", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "flume", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("queue_depth", "200", "bounded", "depth", "count", &[65.0, 64.0, 65.0, 65.0, 65.0, 64.0, 65.0, 64.0, 65.0, 64.0]),
    ];
    Record::sketch("ch06-channels", "test", &[], cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    fixtures::assert_every_claim_held(&claims(), &shaped_like_the_books());
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    fixtures::assert_every_conclusion_can_fail(&claims(), &shaped_like_the_books());
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    fixtures::assert_every_invariant_breaks(&claims(), &shaped_like_the_books());
}
