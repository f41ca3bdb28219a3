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
        ("timer", "2000", "tokio_sleep", "actual_p50", "ns", &[3.148e+06, 3.16e+06, 3.146e+06, 3.166e+06, 3.123e+06, 3.125e+06, 3.174e+06, 3.185e+06, 3.17e+06, 3.144e+06, 3.172e+06, 3.146e+06, 3.166e+06, 3.16e+06, 3.148e+06, 3.166e+06, 3.15e+06, 3.172e+06, 3.138e+06, 3.133e+06]),
        ("timer", "2000", "precise_upstream", "actual_p50", "ns", &[2.014e+06, 2.013e+06, 2.018e+06, 2.012e+06, 2.014e+06, 2.012e+06, 2.014e+06, 2.017e+06, 2.018e+06, 2.019e+06, 2.021e+06, 2.018e+06, 2.013e+06, 2.017e+06, 2.014e+06, 2.013e+06, 2.016e+06, 2.016e+06, 2.014e+06, 2.012e+06]),
        ("guard_across_await", "500", "held", "wall", "ms", &[1024.0, 1022.0, 1029.0, 1034.0, 1061.0, 1056.0, 1035.0, 1041.0, 1035.0, 1038.0, 1029.0, 1033.0, 1033.0, 1023.0, 1030.0, 1029.0, 1026.0, 1029.0, 1026.0, 1028.0]),
        ("guard_across_await", "500", "scoped", "wall", "ms", &[2.948, 2.498, 2.502, 2.737, 3.335, 6.325, 3.125, 2.478, 3.238, 3.234, 3.264, 2.825, 2.801, 2.548, 2.726, 2.836, 2.557, 2.513, 2.733, 2.543]),
        ("which_mutex", "1", "tokio", "ns_per_update", "ns", &[216.2, 197.8, 225.1, 211.0, 207.4, 182.4, 200.1, 169.7, 158.3, 197.1, 162.2, 160.7, 232.0, 202.2, 216.0, 220.5, 207.8, 210.1, 162.3, 211.0]),
        ("which_mutex", "1", "std", "ns_per_update", "ns", &[22.8, 26.42, 15.41, 25.03, 22.84, 26.36, 24.26, 16.5, 16.25, 26.4, 20.64, 15.83, 15.6, 25.63, 17.06, 23.78, 27.06, 26.14, 25.43, 26.4]),
        ("which_mutex", "2", "tokio", "ns_per_update", "ns", &[507.6, 448.1, 493.2, 415.6, 428.2, 413.1, 368.7, 342.2, 424.6, 391.5, 427.8, 361.4, 381.0, 551.4, 418.6, 423.9, 426.7, 359.8, 362.0, 444.1]),
        ("which_mutex", "2", "std", "ns_per_update", "ns", &[129.4, 231.7, 137.1, 112.3, 110.6, 109.5, 185.6, 106.1, 105.2, 228.6, 73.15, 109.5, 121.2, 211.8, 106.6, 117.8, 114.1, 120.2, 109.2, 120.4]),
        ("which_mutex", "1", "tokio", "updates_per_poll", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("which_mutex", "1", "tokio_unconstrained", "ns_per_update", "ns", &[128.7, 123.8, 124.7, 129.3, 122.5, 117.5, 98.08, 111.4, 110.9, 131.1, 111.7, 112.2, 127.4, 96.98, 97.55, 127.5, 121.6, 122.2, 119.3, 127.7]),
        ("which_mutex", "1", "parking_lot", "ns_per_update", "ns", &[24.87, 25.19, 21.04, 25.12, 25.25, 19.46, 21.41, 27.19, 25.21, 20.66, 19.16, 24.93, 27.57, 18.63, 23.38, 22.98, 25.49, 18.82, 23.43, 25.28]),
        ("which_mutex", "2", "tokio_unconstrained", "ns_per_update", "ns", &[690.8, 656.1, 621.8, 477.2, 490.0, 493.1, 491.5, 428.8, 460.1, 441.9, 590.1, 500.0, 457.1, 714.3, 458.2, 510.1, 511.0, 507.2, 449.2, 503.0]),
        ("which_mutex", "2", "parking_lot", "ns_per_update", "ns", &[44.66, 157.4, 100.2, 43.95, 36.68, 31.62, 33.55, 30.99, 42.83, 91.49, 24.27, 66.91, 29.97, 158.6, 45.34, 43.11, 45.88, 32.4, 43.79, 44.99]),
        ("sharding", "1", "padded", "wall", "ms", &[263.4, 492.5, 263.9, 263.1, 245.9, 237.5, 262.1, 281.4, 239.2, 234.7, 262.2, 84.37, 90.41, 235.1, 246.0, 249.4, 247.6, 148.3, 248.5, 234.0]),
        ("sharding", "16", "padded", "wall", "ms", &[197.7, 77.62, 74.86, 76.14, 74.15, 68.97, 71.0, 74.05, 65.78, 79.12, 76.61, 80.31, 73.29, 88.01, 75.83, 76.01, 74.75, 82.0, 76.51, 77.32]),
        ("sharding", "1", "padded_cores_threads", "ns_per_increment", "ns", &[139.6, 113.8, 130.3, 141.8, 121.2, 105.9, 123.6, 130.0, 102.6, 119.2, 37.76, 53.91, 39.26, 36.3, 113.5, 128.2, 122.3, 41.55, 127.2, 158.7]),
        ("sharding", "1", "padded", "ns_per_increment", "ns", &[131.7, 246.2, 132.0, 131.6, 122.9, 118.8, 131.0, 140.7, 119.6, 117.4, 131.1, 42.18, 45.21, 117.6, 123.0, 124.7, 123.8, 74.17, 124.2, 117.0]),
        ("sharding", "1", "padded_one_thread", "ns_per_increment", "ns", &[37.64, 35.46, 42.08, 42.54, 41.84, 29.99, 45.45, 36.7, 38.1, 30.33, 39.82, 38.03, 38.32, 37.97, 41.76, 36.68, 40.98, 36.14, 38.04, 36.38]),
        ("sharding", "64", "padded_cores_threads", "ns_per_increment", "ns", &[41.49, 61.51, 34.21, 33.04, 32.58, 31.91, 33.38, 32.99, 32.79, 32.14, 37.8, 41.26, 39.37, 37.86, 40.97, 34.02, 34.51, 34.65, 35.18, 118.1]),
        ("sharding", "64", "padded_one_thread", "ns_per_increment", "ns", &[43.95, 43.19, 39.44, 41.61, 40.9, 48.46, 46.16, 37.37, 35.58, 34.83, 39.6, 41.74, 39.2, 37.88, 37.14, 38.91, 41.81, 32.19, 38.67, 47.8]),
        ("acquire_time", "1", "sampled", "acquire_p99", "ns", &[1552.0, 1583.0, 1502.0, 8279.0, 8027.0, 5963.0, 9039.0, 7475.0, 9063.0, 51.0, 6535.0, 7235.0, 7835.0, 9679.0, 9863.0, 7087.0, 7507.0, 8391.0, 4379.0, 7647.0]),
        ("acquire_time", "16", "sampled", "acquire_p99", "ns", &[210.0, 201.0, 210.0, 541.0, 410.0, 441.0, 521.0, 501.0, 541.0, 80.0, 181.0, 591.0, 491.0, 472.0, 471.0, 481.0, 480.0, 451.0, 481.0, 371.0]),
        ("acquire_time", "1", "sampled", "acquire_max", "ns", &[3.521e+06, 4.202e+06, 8.561e+06, 3.627e+06, 2.554e+06, 1.78e+06, 1.603e+06, 3.443e+06, 8.004e+06, 5.194e+06, 2.415e+06, 1.198e+07, 1.043e+07, 4.69e+06, 8.032e+06, 1.202e+07, 4.772e+06, 5.513e+06, 8.937e+06, 2.593e+06]),
        ("config", "2", "arc_swap", "reads_per_s", "reads/s", &[2.772e+08, 2.566e+08, 2.645e+08, 2.649e+08, 1.786e+08, 2.017e+08, 2.78e+08, 2.646e+08, 2.659e+08, 2.389e+08, 3.039e+08, 2.678e+08, 2.075e+08, 2.104e+08, 2.711e+08, 2.602e+08, 2.167e+08, 2.414e+08, 2.18e+08, 2.316e+08]),
        ("config", "2", "rwlock", "reads_per_s", "reads/s", &[4.454e+07, 4.537e+07, 4.879e+07, 4.925e+07, 5.381e+07, 4.644e+07, 4.572e+07, 4.914e+07, 5.189e+07, 4.739e+07, 5.39e+07, 5.903e+07, 6.996e+07, 4.838e+07, 5.506e+07, 5.275e+07, 5.615e+07, 5.858e+07, 5.671e+07, 6.14e+07]),
        ("config", "2", "watch", "reads_per_s", "reads/s", &[8.227e+07, 7.923e+07, 7.89e+07, 7.817e+07, 8.228e+07, 7.549e+07, 7.753e+07, 7.95e+07, 7.574e+07, 7.388e+07, 7.421e+07, 8.076e+07, 1.041e+08, 7.245e+07, 7.67e+07, 7.235e+07, 7.227e+07, 7.433e+07, 7.217e+07, 7.519e+07]),
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
