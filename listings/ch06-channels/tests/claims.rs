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
        ("throughput", "1to1_cap1024", "kanal", "messages_per_s", "/s", &[1.739e+07, 1.411e+07, 1.541e+07, 1.333e+07, 1.43e+07, 1.841e+07, 1.645e+07, 1.922e+07, 1.327e+07, 1.335e+07]),
        ("throughput", "1to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[7.016e+06, 6.646e+06, 7.077e+06, 5.807e+06, 7.218e+06, 7.258e+06, 7.198e+06, 9.252e+06, 5.21e+06, 7.101e+06]),
        ("throughput", "1to1_cap1", "tokio_mpsc", "messages_per_s", "/s", &[1.465e+06, 1.405e+06, 1.347e+06, 1.451e+06, 1.386e+06, 1.412e+06, 1.603e+06, 1.705e+06, 1.488e+06, 1.745e+06]),
        ("throughput", "4to1_cap1024", "tokio_mpsc", "messages_per_s", "/s", &[2.839e+06, 6.706e+06, 6.075e+06, 6.727e+06, 5.533e+06, 5.452e+06, 3.187e+06, 5.052e+06, 5.339e+06, 5.608e+06]),
        ("ping_pong", "cap1", "kanal", "rtt_p50", "ns", &[291.0, 250.0, 270.0, 271.0, 290.0, 271.0, 280.0, 290.0, 221.0, 270.0, 251.0, 200.0, 280.0, 211.0, 281.0, 280.0, 211.0, 261.0, 280.0, 251.0]),
        ("ping_pong", "cap1", "tokio_mpsc", "rtt_p50", "ns", &[541.0, 460.0, 450.0, 441.0, 441.0, 421.0, 541.0, 541.0, 481.0, 481.0, 431.0, 452.0, 441.0, 321.0, 521.0, 461.0, 431.0, 371.0, 471.0, 450.0]),
        ("select", "cap1024", "tokio_batch", "messages_per_s", "/s", &[1.786e+07, 1.401e+07, 1.396e+07, 1.43e+07, 8.627e+06, 1.366e+07, 1.363e+07, 9.647e+06, 1.627e+07, 1.427e+07, 1.318e+07, 1.583e+07, 9.379e+06, 1.387e+07, 1.65e+07, 1.407e+07, 1.626e+07, 1.545e+07, 1.906e+07, 1.481e+07]),
        ("select", "cap1024", "tokio_mpsc", "messages_per_s", "/s", &[5.906e+06, 7.431e+06, 4.545e+06, 5.954e+06, 6.131e+06, 4.466e+06, 6.006e+06, 4.545e+06, 4.047e+06, 6.944e+06, 5.999e+06, 6.412e+06, 6.202e+06, 6.308e+06, 6.425e+06, 6.209e+06, 6.61e+06, 6.247e+06, 5.553e+06, 6.465e+06]),
        ("cancel", "cap1", "kanal", "lost", "count", &[3.338e+04, 3.339e+04, 3.356e+04, 3.345e+04, 3.331e+04, 3.314e+04, 3.34e+04, 3.315e+04, 3.343e+04, 3.332e+04, 3.359e+04, 3.322e+04, 3.342e+04, 3.336e+04, 3.349e+04, 3.359e+04, 3.332e+04, 3.34e+04, 3.328e+04, 3.351e+04]),
        ("threads", "1", "tokio_mpsc", "messages_per_s", "/s", &[8.702e+06, 1.226e+07, 8.375e+06, 1.328e+07, 1.286e+07, 8.311e+06, 8.834e+06, 1.113e+07, 1.077e+07, 8.303e+06, 8.498e+06, 8.664e+06, 9.428e+06, 9.288e+06, 8.605e+06, 9.238e+06, 9.182e+06, 1.082e+07, 1.228e+07, 1.034e+07]),
        ("threads", "2", "tokio_mpsc", "messages_per_s", "/s", &[5.323e+06, 6.511e+06, 6.895e+06, 7.215e+06, 6.259e+06, 6.809e+06, 6.839e+06, 6.964e+06, 6.827e+06, 6.867e+06, 7.008e+06, 7.91e+06, 4.327e+06, 8.46e+06, 6.595e+06, 6.254e+06, 8.984e+06, 7.799e+06, 7.291e+06, 7.235e+06]),
        ("queue_depth", "200", "unbounded", "depth", "count", &[4105.0, 4095.0, 4090.0, 4086.0, 4220.0, 4139.0, 4096.0, 4147.0, 4180.0, 4148.0]),
        ("queue_depth", "50", "unbounded", "depth", "count", &[1028.0, 1093.0, 1037.0, 1026.0, 1020.0, 1066.0, 1024.0, 1019.0, 1028.0, 1014.0]),
        ("cancel_send", "cap1", "send_in_select", "lost", "count", &[7.304e+04, 7.451e+04, 7.32e+04, 7.439e+04, 7.276e+04, 7.201e+04, 7.32e+04, 7.372e+04, 7.62e+04, 7.323e+04, 7.367e+04, 7.184e+04, 7.319e+04, 7.288e+04, 7.557e+04, 7.392e+04, 7.325e+04, 7.596e+04, 7.582e+04, 7.558e+04]),
        ("blocking_recv", "2", "blocking_recv", "tick_max", "ns", &[4.952e+08, 4.952e+08, 4.955e+08, 4.952e+08, 4.952e+08, 4.957e+08, 4.952e+08, 4.955e+08, 4.952e+08, 4.952e+08]),
        ("blocking_recv", "2", "async_recv", "tick_max", "ns", &[1.067e+06, 3e+06, 1.896e+06, 3.33e+06, 3.029e+06, 7.04e+05, 1.631e+06, 3.672e+06, 1.959e+06, 2.13e+06]),
        ("blocking_recv", "2", "blocking_recv", "ticks", "count", &[2.0, 2.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
        ("blocking_recv", "2", "async_recv", "ticks", "count", &[100.0, 100.0, 100.0, 100.0, 100.0, 101.0, 100.0, 100.0, 100.0, 100.0]),
        ("queue_depth", "200", "bounded_send", "producer_ms", "ms", &[441.1, 445.0, 467.1, 434.6, 434.6, 435.6, 434.6, 430.6, 429.7, 445.2]),
        ("queue_depth", "200", "unbounded", "producer_ms", "ms", &[200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0]),
        ("cancel", "cap1", "tokio_mpsc", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "async_channel", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("cancel", "cap1", "flume", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("queue_depth", "200", "bounded", "depth", "count", &[64.0, 65.0, 65.0, 64.0, 65.0, 65.0, 65.0, 64.0, 65.0, 65.0]),
        ("cancel_send", "cap1", "send_in_select", "cancelled", "count", &[7.304e+04, 7.451e+04, 7.32e+04, 7.439e+04, 7.276e+04, 7.201e+04, 7.32e+04, 7.372e+04, 7.62e+04, 7.323e+04, 7.367e+04, 7.184e+04, 7.319e+04, 7.288e+04, 7.557e+04, 7.392e+04, 7.325e+04, 7.596e+04, 7.582e+04, 7.558e+04]),
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
