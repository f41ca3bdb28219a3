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
        ("timer", "2000", "tokio_sleep", "actual_p50", "ns", &[3.181e+06, 3.156e+06, 3.158e+06, 3.166e+06, 3.138e+06, 3.146e+06, 3.142e+06, 3.162e+06, 3.135e+06, 3.146e+06, 3.156e+06, 3.166e+06, 3.174e+06, 3.172e+06, 3.154e+06, 3.158e+06, 3.148e+06, 3.15e+06, 3.164e+06, 3.127e+06]),
        ("timer", "2000", "precise_upstream", "actual_p50", "ns", &[2.017e+06, 2.016e+06, 2.019e+06, 2.015e+06, 2.014e+06, 2.013e+06, 2.015e+06, 2.014e+06, 2.03e+06, 2.019e+06, 2.017e+06, 2.02e+06, 2.02e+06, 2.021e+06, 2.02e+06, 2.02e+06, 2.014e+06, 2.014e+06, 2.02e+06, 2.014e+06]),
        ("guard_across_await", "500", "held", "wall", "ms", &[1028.0, 1032.0, 1024.0, 1028.0, 1031.0, 1038.0, 1033.0, 1034.0, 1043.0, 1030.0, 1029.0, 1026.0, 1029.0, 1031.0, 1036.0, 1035.0, 1043.0, 1025.0, 1030.0, 1031.0]),
        ("guard_across_await", "500", "scoped", "wall", "ms", &[2.653, 2.772, 3.003, 2.758, 3.581, 3.217, 2.973, 3.229, 2.462, 2.913, 2.578, 2.467, 2.666, 2.917, 3.141, 2.575, 2.798, 2.506, 2.611, 2.662]),
        ("which_mutex", "1", "tokio", "ns_per_update", "ns", &[220.0, 155.6, 166.9, 156.1, 226.8, 177.9, 175.7, 219.1, 192.1, 167.8, 235.3, 170.5, 162.2, 214.9, 239.5, 216.3, 151.2, 180.9, 233.7, 153.9]),
        ("which_mutex", "1", "std", "ns_per_update", "ns", &[26.4, 25.91, 25.94, 23.34, 26.97, 16.32, 18.99, 26.66, 23.26, 26.26, 31.88, 17.21, 16.37, 28.05, 28.07, 28.59, 27.91, 16.69, 27.6, 25.46]),
        ("which_mutex", "2", "tokio", "ns_per_update", "ns", &[456.1, 351.2, 434.5, 385.6, 447.7, 375.9, 386.0, 463.9, 402.1, 462.0, 455.4, 440.3, 396.7, 464.8, 457.0, 466.2, 418.8, 421.7, 436.8, 404.4]),
        ("which_mutex", "2", "std", "ns_per_update", "ns", &[119.6, 118.1, 104.6, 109.7, 115.7, 104.9, 102.5, 117.6, 109.6, 105.2, 115.1, 110.7, 98.89, 120.3, 130.4, 104.5, 108.9, 70.18, 106.8, 105.6]),
        ("which_mutex", "1", "tokio", "updates_per_poll", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("which_mutex", "1", "tokio_unconstrained", "ns_per_update", "ns", &[131.3, 128.9, 128.5, 129.6, 116.8, 102.8, 112.5, 129.6, 126.3, 99.76, 129.2, 124.4, 97.63, 131.1, 127.7, 133.4, 130.4, 111.4, 129.1, 128.6]),
        ("which_mutex", "1", "parking_lot", "ns_per_update", "ns", &[25.04, 26.15, 19.53, 24.82, 18.96, 19.23, 20.84, 24.5, 19.39, 23.83, 28.4, 20.26, 18.84, 25.97, 27.21, 26.88, 19.93, 19.76, 25.3, 25.26]),
        ("which_mutex", "2", "tokio_unconstrained", "ns_per_update", "ns", &[522.6, 479.9, 504.7, 526.6, 498.8, 463.2, 483.2, 520.1, 455.0, 503.1, 479.5, 480.0, 482.4, 575.6, 540.2, 542.8, 525.3, 418.1, 523.4, 547.8]),
        ("which_mutex", "2", "parking_lot", "ns_per_update", "ns", &[45.38, 46.23, 32.67, 45.53, 32.67, 24.27, 31.75, 42.21, 44.86, 46.72, 45.2, 45.95, 43.32, 45.47, 42.31, 47.07, 25.84, 25.6, 43.52, 44.68]),
        ("sharding", "1", "padded", "wall", "ms", &[223.7, 236.9, 211.7, 216.4, 230.9, 101.9, 260.4, 233.1, 296.0, 231.2, 263.0, 263.3, 266.8, 267.2, 446.9, 348.5, 323.1, 414.7, 375.5, 397.3]),
        ("sharding", "16", "padded", "wall", "ms", &[77.45, 77.52, 65.41, 64.92, 62.81, 66.79, 78.65, 66.88, 72.53, 69.55, 74.5, 74.22, 74.0, 193.1, 203.3, 170.9, 171.0, 182.4, 176.5, 182.4]),
        ("sharding", "4", "packed", "wall", "ms", &[106.2, 100.1, 94.44, 107.1, 97.12, 114.6, 95.17, 102.4, 112.6, 108.5, 115.6, 105.4, 126.7, 274.9, 360.9, 229.9, 306.5, 407.0, 347.3, 273.9]),
        ("sharding", "4", "padded", "wall", "ms", &[101.4, 85.83, 86.94, 84.26, 94.39, 88.06, 85.07, 91.37, 92.32, 94.16, 87.74, 92.41, 104.4, 217.6, 259.9, 229.4, 218.7, 204.4, 190.9, 214.2]),
        ("acquire_time", "1", "sampled", "acquire_p99", "ns", &[8559.0, 6843.0, 8255.0, 1703.0, 1684.0, 1713.0, 1794.0, 1774.0, 1823.0, 1593.0, 1523.0, 1543.0, 1373.0, 1353.0, 1693.0, 1693.0, 1543.0, 1643.0, 1513.0, 1253.0]),
        ("acquire_time", "16", "sampled", "acquire_p99", "ns", &[471.0, 470.0, 451.0, 200.0, 200.0, 210.0, 200.0, 200.0, 191.0, 190.0, 181.0, 181.0, 181.0, 180.0, 180.0, 130.0, 181.0, 160.0, 190.0, 180.0]),
        ("acquire_time", "1", "sampled", "acquire_max", "ns", &[4.915e+06, 3.879e+06, 1.202e+07, 4.035e+06, 4.035e+06, 4.194e+06, 5.165e+06, 3.371e+06, 4.293e+06, 3.019e+06, 4.903e+06, 3.666e+06, 4.065e+06, 4.035e+06, 3.809e+06, 5.603e+06, 7.938e+06, 8.004e+06, 2.681e+06, 4.026e+06]),
        ("config", "2", "arc_swap", "reads_per_s", "reads/s", &[2.74e+08, 2.545e+08, 2.255e+08, 2.521e+08, 2.735e+08, 3.436e+08, 2.911e+08, 2.545e+08, 2.979e+08, 2.199e+08, 2.686e+08, 3.212e+08, 2.353e+08, 2.625e+08, 2.22e+08, 1.93e+08, 2.738e+08, 2.59e+08, 2.251e+08, 2.32e+08]),
        ("config", "2", "rwlock", "reads_per_s", "reads/s", &[2.329e+07, 2.073e+07, 2.275e+07, 2.192e+07, 2.258e+07, 2.202e+07, 2.34e+07, 5.564e+07, 5.545e+07, 5.609e+07, 5.534e+07, 5.96e+07, 5.809e+07, 5.871e+07, 5.874e+07, 5.797e+07, 5.609e+07, 5.73e+07, 5.565e+07, 5.669e+07]),
        ("config", "2", "watch", "reads_per_s", "reads/s", &[2.573e+07, 2.786e+07, 2.031e+07, 2.701e+07, 2.193e+07, 2.21e+07, 2.74e+07, 2.189e+07, 4.266e+07, 4.114e+07, 4.359e+07, 4.667e+07, 4.576e+07, 4.142e+07, 4.905e+07, 3.974e+07, 4.283e+07, 4.08e+07, 4.136e+07, 3.971e+07]),
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
