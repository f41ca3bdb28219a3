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
        ("throughput", "1to1_cap1024", "kanal", "messages_per_s", "/s", &[1.52e+07, 1.543e+07, 1.928e+07, 1.784e+07, 1.68e+07, 1.66e+07, 1.513e+07, 1.825e+07, 1.482e+07, 1.701e+07]),
        ("throughput", "1to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[5.472e+06, 7.117e+06, 6.943e+06, 7.683e+06, 6.654e+06, 7.081e+06, 8.666e+06, 7.825e+06, 6.808e+06, 8.346e+06]),
        ("throughput", "1to1_cap1", "tokio_mpsc", "messages_per_s", "/s", &[1.412e+06, 1.36e+06, 1.474e+06, 1.342e+06, 1.614e+06, 1.626e+06, 1.373e+06, 1.414e+06, 1.317e+06, 1.715e+06]),
        ("throughput", "4to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[5.244e+06, 5.154e+06, 5.16e+06, 4.923e+06, 2.588e+06, 5.414e+06, 5.272e+06, 6.89e+06, 5.176e+06, 5.524e+06]),
        ("ping_pong", "cap1", "kanal", "rtt_p50", "ns", &[281.0, 251.0, 210.0, 260.0, 261.0, 281.0, 241.0, 270.0, 250.0, 210.0, 280.0, 240.0, 270.0, 241.0, 271.0, 271.0, 241.0, 240.0, 200.0, 281.0]),
        ("ping_pong", "cap1", "tokio_mpsc", "rtt_p50", "ns", &[330.0, 451.0, 301.0, 470.0, 461.0, 481.0, 400.0, 430.0, 411.0, 461.0, 431.0, 441.0, 400.0, 321.0, 451.0, 431.0, 430.0, 401.0, 451.0, 431.0]),
        ("select", "cap1024", "tokio_batch", "messages_per_s", "/s", &[9.218e+06, 9.143e+06, 8.904e+06, 1.725e+07, 1.838e+07, 9.156e+06, 8.722e+06, 1.434e+07, 7.577e+06, 1.577e+07, 1.7e+07, 1.853e+07, 1.385e+07, 1.645e+07, 1.067e+07, 9.025e+06, 1.684e+07, 1.546e+07, 1.387e+07, 1.425e+07]),
        ("select", "cap1024", "tokio_mpsc", "messages_per_s", "/s", &[4.434e+06, 5.549e+06, 6.233e+06, 8.635e+06, 7.53e+06, 5.649e+06, 8.82e+06, 5.458e+06, 5.75e+06, 3.661e+06, 8.815e+06, 6.168e+06, 5.077e+06, 7.588e+06, 5.895e+06, 3.985e+06, 8.59e+06, 8.724e+06, 6.207e+06, 5.884e+06]),
        ("cancel", "cap1", "kanal", "lost", "count", &[3.342e+04, 3.354e+04, 3.337e+04, 3.346e+04, 3.315e+04, 3.35e+04, 3.336e+04, 3.319e+04, 3.327e+04, 3.342e+04, 3.34e+04, 3.344e+04, 3.347e+04, 3.344e+04, 3.333e+04, 3.318e+04, 3.338e+04, 3.329e+04, 3.333e+04, 3.35e+04]),
        ("threads", "1", "tokio_mpsc", "messages_per_s", "/s", &[9.168e+06, 9.159e+06, 9.07e+06, 1.353e+07, 1.348e+07, 1.393e+07, 9.767e+06, 1.246e+07, 9.511e+06, 1.075e+07, 8.51e+06, 1.385e+07, 1.38e+07, 1.345e+07, 9.462e+06, 9.308e+06, 8.169e+06, 8.275e+06, 8.458e+06, 8.509e+06]),
        ("threads", "2", "tokio_mpsc", "messages_per_s", "/s", &[7.027e+06, 7.539e+06, 7.149e+06, 9.308e+06, 8.973e+06, 7.332e+06, 9.44e+06, 9.343e+06, 7.454e+06, 8.904e+06, 9.315e+06, 9.686e+06, 9.505e+06, 9.467e+06, 7.205e+06, 7.528e+06, 7.072e+06, 7.07e+06, 7.237e+06, 7.009e+06]),
        ("queue_depth", "200", "unbounded", "depth", "count", &[4149.0, 4265.0, 4074.0, 4210.0, 4111.0, 4089.0, 4131.0, 4124.0, 4345.0, 4100.0]),
        ("queue_depth", "50", "unbounded", "depth", "count", &[1013.0, 962.0, 1009.0, 1016.0, 1022.0, 1009.0, 1034.0, 1033.0, 1164.0, 1031.0]),
        ("cancel_send", "cap1", "send_in_select", "lost", "count", &[6.887e+04, 7.054e+04, 7.45e+04, 6.91e+04, 6.985e+04, 7.465e+04, 7.234e+04, 7.227e+04, 7.419e+04, 6.79e+04, 7.278e+04, 7.399e+04, 7.337e+04, 7.28e+04, 7.65e+04, 7.146e+04, 7.256e+04, 7.127e+04, 7.183e+04, 7.219e+04]),
        ("blocking_recv", "2", "blocking_recv", "tick_max", "ns", &[4.952e+08, 4.949e+08, 4.952e+08, 4.952e+08, 4.952e+08, 4.952e+08, 4.952e+08, 4.952e+08, 4.952e+08, 4.952e+08]),
        ("blocking_recv", "2", "async_recv", "tick_max", "ns", &[1.61e+06, 1.365e+06, 1.331e+06, 1.244e+06, 1.621e+06, 1.474e+06, 1.149e+06, 1.373e+06, 1.561e+06, 1.408e+06]),
        ("blocking_recv", "2", "blocking_recv", "ticks", "count", &[2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
        ("blocking_recv", "2", "async_recv", "ticks", "count", &[100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0]),
        ("queue_depth", "200", "bounded_send", "producer_ms", "ms", &[434.7, 432.1, 435.5, 439.3, 428.0, 420.6, 460.5, 434.0, 449.0, 451.0]),
        ("queue_depth", "200", "unbounded", "producer_ms", "ms", &[200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0]),
        ("cancel", "cap1", "tokio_mpsc", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "async_channel", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "flume", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("queue_depth", "200", "bounded", "depth", "count", &[65.0, 65.0, 65.0, 64.0, 65.0, 65.0, 64.0, 64.0, 65.0, 64.0]),
        ("cancel_send", "cap1", "send_in_select", "cancelled", "count", &[6.887e+04, 7.054e+04, 7.45e+04, 6.91e+04, 6.985e+04, 7.465e+04, 7.234e+04, 7.227e+04, 7.419e+04, 6.79e+04, 7.278e+04, 7.399e+04, 7.337e+04, 7.28e+04, 7.65e+04, 7.146e+04, 7.256e+04, 7.127e+04, 7.183e+04, 7.219e+04]),
        ("cancel_send", "cap1", "reserve_in_select", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ];
    Record::sketch("ch06-channels", "test", &[("workers", 2.0)], cells)
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
