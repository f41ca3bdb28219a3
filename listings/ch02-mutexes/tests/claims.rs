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

// Measured values, some of which happen to lie near mathematical constants.
#[allow(clippy::approx_constant)]
fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("timer", "2000", "tokio_sleep", "actual_p50", "ns", &[3.185e+06, 3.133e+06, 3.129e+06, 3.148e+06, 3.129e+06, 3.152e+06, 3.146e+06, 3.201e+06, 3.152e+06, 3.152e+06, 3.148e+06, 3.178e+06, 3.156e+06, 3.133e+06, 3.146e+06, 3.133e+06, 3.166e+06, 3.176e+06, 3.138e+06, 3.16e+06]),
        ("timer", "2000", "precise_upstream", "actual_p50", "ns", &[2.021e+06, 2.014e+06, 2.014e+06, 2.016e+06, 2.015e+06, 2.014e+06, 2.017e+06, 2.019e+06, 2.016e+06, 2.015e+06, 2.016e+06, 2.015e+06, 2.018e+06, 2.015e+06, 2.014e+06, 2.014e+06, 2.019e+06, 2.017e+06, 2.016e+06, 2.016e+06]),
        ("guard_across_await", "500", "held", "wall", "ms", &[1032.0, 1034.0, 1030.0, 1028.0, 1021.0, 1028.0, 1041.0, 1032.0, 1043.0, 1032.0, 1031.0, 1036.0, 1040.0, 1036.0, 1042.0, 1040.0, 1041.0, 1042.0, 1031.0, 1036.0]),
        ("guard_across_await", "500", "scoped", "wall", "ms", &[2.454, 2.358, 2.73, 3.334, 2.593, 2.764, 2.724, 2.553, 2.525, 2.557, 2.834, 2.808, 2.844, 2.824, 2.834, 3.142, 2.554, 2.8, 3.193, 2.628]),
        ("which_mutex", "1", "tokio", "ns_per_update", "ns", &[163.1, 229.7, 229.9, 221.9, 192.3, 169.2, 207.2, 220.7, 160.7, 219.9, 166.7, 164.4, 175.9, 249.6, 172.1, 218.5, 215.9, 188.2, 225.8, 161.7]),
        ("which_mutex", "1", "std", "ns_per_update", "ns", &[16.98, 25.17, 27.85, 26.13, 26.24, 16.18, 27.49, 24.98, 26.83, 30.14, 24.6, 25.66, 16.41, 28.11, 15.97, 25.91, 24.83, 27.02, 25.01, 16.84]),
        ("which_mutex", "2", "tokio", "ns_per_update", "ns", &[393.5, 393.7, 580.4, 367.9, 425.2, 420.8, 440.7, 397.6, 420.9, 508.6, 455.6, 353.5, 400.7, 390.6, 365.3, 352.6, 410.6, 526.7, 413.3, 303.4]),
        ("which_mutex", "2", "std", "ns_per_update", "ns", &[103.3, 109.3, 88.63, 99.93, 110.6, 121.9, 116.7, 117.7, 101.7, 252.4, 112.2, 107.5, 120.6, 118.7, 68.58, 101.7, 109.6, 96.97, 105.6, 101.4]),
        ("which_mutex", "1", "tokio", "updates_per_poll", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("which_mutex", "1", "tokio_unconstrained", "ns_per_update", "ns", &[122.5, 133.6, 136.4, 128.5, 124.5, 126.3, 134.8, 127.8, 119.2, 106.7, 118.4, 126.1, 126.5, 100.3, 93.58, 124.9, 109.7, 132.7, 123.5, 107.3]),
        ("which_mutex", "1", "parking_lot", "ns_per_update", "ns", &[23.7, 24.63, 20.08, 18.85, 24.09, 26.65, 19.22, 24.65, 25.75, 21.2, 20.43, 25.08, 25.8, 19.2, 19.1, 24.38, 25.89, 25.1, 19.16, 18.3]),
        ("which_mutex", "2", "tokio_unconstrained", "ns_per_update", "ns", &[449.6, 483.5, 353.8, 467.0, 531.4, 399.1, 535.3, 473.4, 473.8, 756.1, 482.4, 450.6, 491.3, 502.9, 463.8, 477.1, 636.6, 474.9, 420.8, 446.0]),
        ("which_mutex", "2", "parking_lot", "ns_per_update", "ns", &[28.26, 42.28, 37.56, 42.45, 32.28, 24.65, 39.34, 45.35, 37.23, 139.6, 113.5, 40.49, 33.75, 47.3, 33.84, 44.35, 58.39, 148.0, 33.86, 33.27]),
        ("sharding", "1", "padded", "wall", "ms", &[227.1, 239.3, 268.5, 242.9, 256.8, 231.9, 219.8, 203.1, 280.6, 221.6, 242.4, 240.0, 220.9, 548.1, 230.9, 276.7, 268.6, 240.0, 230.1, 245.1]),
        ("sharding", "16", "padded", "wall", "ms", &[70.76, 75.17, 70.82, 74.19, 74.94, 76.79, 63.66, 71.91, 80.16, 60.39, 76.03, 74.02, 71.19, 74.59, 74.6, 74.8, 75.61, 68.03, 63.43, 75.24]),
        ("sharding", "1", "padded_cores_threads", "ns_per_increment", "ns", &[132.1, 102.7, 103.6, 136.4, 101.0, 125.3, 125.1, 111.3, 136.8, 102.8, 137.0, 115.3, 120.9, 122.8, 130.9, 132.2, 134.2, 109.4, 103.7, 124.8]),
        ("sharding", "1", "padded", "ns_per_increment", "ns", &[113.6, 119.7, 134.3, 121.5, 128.4, 115.9, 109.9, 101.5, 140.3, 110.8, 121.2, 120.0, 110.5, 274.0, 115.5, 138.4, 134.3, 120.0, 115.0, 122.5]),
        ("sharding", "1", "padded_one_thread", "ns_per_increment", "ns", &[30.31, 40.45, 40.0, 40.59, 38.5, 39.31, 29.1, 43.18, 40.75, 29.73, 38.67, 36.8, 35.57, 38.5, 41.12, 41.46, 40.75, 38.94, 28.19, 41.84]),
        ("sharding", "64", "padded_cores_threads", "ns_per_increment", "ns", &[31.82, 33.69, 31.37, 35.02, 31.94, 34.61, 34.58, 29.36, 31.75, 32.82, 34.21, 32.47, 33.26, 33.25, 34.23, 33.23, 34.18, 32.89, 32.39, 33.59]),
        ("sharding", "64", "padded_one_thread", "ns_per_increment", "ns", &[43.04, 41.36, 41.24, 43.07, 39.33, 45.72, 32.98, 27.94, 28.94, 34.11, 32.38, 34.32, 38.92, 42.78, 42.77, 41.89, 44.98, 42.77, 28.76, 41.82]),
        ("acquire_time", "1", "sampled", "acquire_p99", "ns", &[1713.0, 1483.0, 1693.0, 1252.0, 1543.0, 1583.0, 1202.0, 1323.0, 1262.0, 1292.0, 6283.0, 6535.0, 8663.0, 9735.0, 8367.0, 1.022e+04, 9871.0, 8167.0, 7575.0, 1693.0]),
        ("acquire_time", "16", "sampled", "acquire_p99", "ns", &[210.0, 191.0, 181.0, 190.0, 181.0, 161.0, 160.0, 171.0, 191.0, 161.0, 661.0, 662.0, 642.0, 651.0, 671.0, 671.0, 692.0, 701.0, 631.0, 200.0]),
        ("acquire_time", "1", "sampled", "acquire_max", "ns", &[5.706e+06, 4.407e+06, 6.398e+06, 4.051e+06, 2.863e+06, 3.91e+06, 4.899e+06, 5.247e+06, 7.967e+06, 1.198e+07, 2.12e+06, 2.4e+06, 2.58e+06, 5.706e+06, 7.999e+06, 9.003e+06, 4.063e+06, 4.284e+06, 3.701e+06, 6.005e+06]),
        ("config", "2", "arc_swap", "reads_per_s", "reads/s", &[2.371e+08, 2.785e+08, 2.817e+08, 2.249e+08, 3.033e+08, 2.628e+08, 2.596e+08, 1.882e+08, 2.038e+08, 2.657e+08, 2.903e+08, 2.856e+08, 2.677e+08, 2.501e+08, 2.61e+08, 2.998e+08, 2.24e+08, 3.123e+08, 2.735e+08, 3.027e+08]),
        ("config", "2", "rwlock", "reads_per_s", "reads/s", &[2.347e+07, 2.274e+07, 2.462e+07, 2.205e+07, 3.799e+07, 2.277e+07, 2.714e+07, 2.761e+07, 2.028e+07, 2.011e+07, 2.185e+07, 3.391e+07, 4.822e+07, 4.315e+07, 4.421e+07, 4.695e+07, 4.792e+07, 4.733e+07, 2.312e+07, 2.122e+07]),
        ("config", "2", "watch", "reads_per_s", "reads/s", &[2.088e+07, 2.351e+07, 2.302e+07, 2.217e+07, 4.974e+07, 2.313e+07, 2.263e+07, 2.953e+07, 1.968e+07, 2.191e+07, 2.208e+07, 4.953e+07, 4.837e+07, 4.793e+07, 4.351e+07, 4.652e+07, 3.922e+07, 4.301e+07, 3.002e+07, 2.469e+07]),
    ];
    Record::sketch(
        "ch02-mutexes",
        "test",
        &[
            ("config_readers", 2.0),
            ("held_calls", 500.0),
            ("workers", 2.0),
        ],
        cells,
    )
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
