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
        ("lanes", "64", "inline", "tick_max", "ns", &[3.825e+08, 3.953e+08, 3.971e+08, 3.83e+08, 3.89e+08, 3.935e+08, 4.027e+08, 3.903e+08, 4.446e+08, 3.966e+08, 3.872e+08, 3.974e+08, 4.181e+08, 3.911e+08, 3.804e+08, 3.966e+08, 3.951e+08, 3.78e+08, 3.825e+08, 3.83e+08]),
        ("lanes", "64", "rayon_spawn", "tick_max", "ns", &[4.796e+06, 4.452e+06, 4.87e+06, 4.903e+06, 5.411e+06, 4.776e+06, 4.755e+06, 6.074e+06, 5.018e+06, 5.149e+06, 5.595e+06, 5.05e+06, 4.76e+06, 5.014e+06, 4.575e+06, 1.786e+06, 4.825e+06, 5.239e+06, 7.344e+06, 5.599e+06]),
        ("lanes", "64", "inline", "total_ms", "ms", &[394.0, 406.5, 402.2, 388.1, 394.0, 404.8, 407.9, 401.5, 449.6, 401.5, 398.3, 409.2, 429.0, 396.1, 391.7, 401.8, 400.2, 383.0, 393.5, 388.1]),
        ("lanes", "64", "rayon_spawn", "total_ms", "ms", &[395.3, 394.8, 400.3, 418.0, 403.2, 394.7, 413.4, 400.8, 398.7, 400.0, 408.5, 401.1, 403.3, 400.2, 407.1, 413.9, 386.7, 388.4, 390.7, 390.7]),
        ("lanes", "64", "spawn_blocking", "total_ms", "ms", &[400.8, 429.7, 413.6, 412.2, 410.9, 405.9, 409.3, 419.8, 398.6, 407.1, 443.4, 415.1, 409.3, 403.3, 397.4, 410.9, 404.2, 408.8, 394.2, 389.2]),
        ("lanes", "64", "spawn_blocking", "tick_max", "ns", &[4.661e+06, 3.932e+06, 5.304e+06, 5.571e+06, 4.755e+06, 4.719e+06, 4.829e+06, 5.566e+06, 6.631e+06, 4.891e+06, 5.64e+06, 3.639e+06, 5.923e+06, 4.71e+06, 5.423e+06, 4.514e+06, 4.981e+06, 4.444e+06, 5.419e+06, 4.772e+06]),
        ("lanes", "64", "spawn_blocking", "threads", "count", &[12.0, 12.0, 11.0, 12.0, 12.0, 11.0, 12.0, 12.0, 12.0, 12.0, 13.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0]),
        ("lanes", "64", "rayon_spawn", "threads", "count", &[9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0, 9.0]),
        ("budgets", "quota_1", "host_cpus", "tick_max", "ns", &[5.05e+07, 5.505e+07, 5.033e+07, 5.007e+07, 5e+07, 5.004e+07, 5.007e+07, 5.01e+07, 5.004e+07, 5.502e+07, 5.004e+07, 5.043e+07, 5.505e+07, 5e+07, 4.981e+07, 5.007e+07, 5.046e+07, 5.023e+07, 5.374e+07, 4.997e+07]),
        ("budgets", "quota_1", "defaults", "tick_max", "ns", &[1.265e+06, 1.268e+06, 2.051e+06, 3.334e+06, 1.674e+06, 1.365e+06, 2.191e+06, 1.423e+06, 1.69e+06, 1.276e+06, 2.922e+06, 1.298e+06, 2.187e+06, 2.092e+06, 5.734e+06, 1.175e+06, 3.916e+06, 1.155e+06, 2.157e+06, 1.305e+06]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "total_ms", "ms", &[432.7, 375.3, 376.5, 399.3, 390.8, 384.0, 409.7, 400.8, 397.5, 403.0, 389.5, 391.1, 393.7, 397.5, 393.5, 391.0, 409.4, 390.4, 387.9, 392.7]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "total_ms", "ms", &[207.4, 198.3, 200.1, 205.8, 207.0, 209.3, 203.5, 198.8, 206.2, 204.6, 210.5, 211.7, 206.9, 204.8, 203.1, 208.3, 208.1, 205.6, 203.7, 240.6]),
        ("in_flight", "1", "rayon_spawn", "total_ms", "ms", &[409.2, 397.3, 405.0, 418.0, 407.8, 412.7, 401.6, 395.9, 405.9, 410.5, 393.4, 399.4, 407.7, 403.3, 400.9, 408.1, 397.5, 400.8, 399.4, 397.4]),
        ("in_flight", "2", "rayon_spawn", "total_ms", "ms", &[397.4, 421.2, 412.4, 434.8, 414.2, 409.9, 404.0, 413.1, 409.1, 413.5, 404.1, 414.0, 406.7, 399.0, 404.3, 417.2, 401.3, 400.0, 403.4, 399.0]),
        ("in_flight", "8", "rayon_spawn", "total_ms", "ms", &[408.6, 391.0, 398.9, 401.7, 393.0, 411.7, 388.1, 403.9, 400.1, 400.7, 389.8, 390.0, 395.3, 396.2, 402.0, 405.2, 390.6, 398.1, 394.0, 394.1]),
        ("in_flight", "64", "rayon_spawn", "total_ms", "ms", &[406.7, 393.8, 393.0, 405.5, 393.1, 399.9, 408.1, 407.8, 398.2, 401.6, 397.6, 396.4, 395.6, 399.1, 408.0, 395.5, 387.1, 384.6, 388.6, 382.3]),
        ("in_flight", "64", "rayon_spawn", "request_p50", "ns", &[4.061e+08, 3.133e+08, 3.143e+08, 4.048e+08, 3.927e+08, 3.992e+08, 4.076e+08, 4.071e+08, 3.977e+08, 4.013e+08, 3.971e+08, 3.036e+08, 3.951e+08, 3.987e+08, 4.076e+08, 3.956e+08, 3.869e+08, 3.722e+08, 2.627e+08, 3.825e+08]),
        ("in_flight", "2", "rayon_spawn", "request_p50", "ns", &[2.087e+08, 2.164e+08, 2.164e+08, 2.354e+08, 2.058e+08, 2.083e+08, 2.121e+08, 2.119e+08, 2.06e+08, 2.212e+08, 2.129e+08, 2.14e+08, 2.072e+08, 1.999e+08, 2.063e+08, 2.156e+08, 2.101e+08, 1.996e+08, 2.037e+08, 2.015e+08]),
        ("shedding", "2x", "permit_in_handler", "most_in_pool", "count", &[280.0, 285.0, 242.0, 246.0, 269.0, 287.0, 272.0, 251.0, 215.0, 281.0]),
        ("shedding", "2x", "permit_in_job", "most_in_pool", "count", &[3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]),
        ("shedding", "2x", "permit_in_handler", "busy_after_ms", "ms", &[960.0, 1010.0, 974.0, 1019.0, 1041.0, 1007.0, 965.8, 994.6, 995.9, 948.4]),
        ("shedding", "2x", "busy_at_the_door", "served_in_deadline", "count", &[110.0, 122.0, 116.0, 109.0, 105.0, 111.0, 112.0, 100.0, 128.0, 109.0]),
        ("shedding", "2x", "permit_in_job", "served_in_deadline", "count", &[13.0, 12.0, 13.0, 12.0, 11.0, 12.0, 14.0, 12.0, 13.0, 13.0]),
        ("shedding", "2x", "permit_in_handler", "served_in_deadline", "count", &[14.0, 13.0, 13.0, 12.0, 12.0, 13.0, 13.0, 12.0, 12.0, 14.0]),
        ("shedding", "2x", "permit_in_handler", "served", "count", &[14.0, 13.0, 13.0, 13.0, 12.0, 13.0, 13.0, 12.0, 12.0, 14.0]),
        ("shedding", "2x", "permit_in_job", "served", "count", &[13.0, 13.0, 13.0, 13.0, 12.0, 12.0, 15.0, 14.0, 14.0, 13.0]),
        ("split", "16", "par_iter", "ns_per_batch", "ns", &[829.6, 935.3, 974.4, 1005.0, 885.8, 1295.0, 1818.0, 1272.0, 1223.0, 373.1, 1334.0, 1263.0, 344.0, 1018.0, 648.1, 896.6, 933.7, 996.8, 897.5, 1094.0]),
        ("split", "16", "sequential", "ns_per_batch", "ns", &[218.6, 247.8, 234.4, 219.4, 234.7, 170.1, 221.2, 250.0, 192.5, 212.7, 181.5, 186.4, 214.4, 239.5, 226.4, 227.6, 238.2, 232.7, 173.0, 181.3]),
        ("split", "threshold", "par_iter", "threshold_items", "count", &[2048.0, 2048.0, 2048.0, 1024.0, 1024.0, 1024.0, 2048.0, 2048.0, 1024.0, 2048.0, 2048.0, 1024.0, 1024.0, 1024.0, 1024.0, 512.0, 1024.0, 1024.0, 8192.0, 1024.0]),
        ("lanes", "64", "rayon_spawn_niced", "tick_max", "ns", &[3.408e+06, 5.341e+06, 5.579e+06, 3.69e+06, 2.638e+06, 4.399e+06, 5.472e+06, 5.673e+06, 4.76e+06, 5.747e+06, 4.997e+06, 5.165e+06, 5.685e+06, 5.804e+06, 3.566e+06, 5.472e+06, 3.85e+06, 6.095e+06, 5.579e+06, 1.824e+06]),
        ("lanes", "64", "idle", "tick_max", "ns", &[1.928e+06, 1.705e+06, 1.994e+06, 1.84e+06, 1.924e+06, 1.854e+06, 4.698e+06, 1.908e+06, 2.032e+06, 3.09e+06, 1.886e+06, 1.791e+06, 1.772e+06, 1.871e+06, 1.827e+06, 4.26e+06, 2.011e+06, 3.09e+06, 2.025e+06, 2.468e+06]),
        ("lanes", "64", "rayon_spawn_niced", "total_ms", "ms", &[405.0, 397.3, 422.7, 432.1, 401.1, 404.0, 410.8, 419.5, 421.3, 410.8, 414.9, 429.0, 414.5, 418.2, 410.1, 406.3, 414.9, 407.0, 418.1, 386.7]),
        ("budgets", "mask_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("budgets", "quota_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("in_flight", "64", "rayon_spawn", "most_in_pool", "count", &[64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0]),
        ("panics", "8", "no_handler", "aborted", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "handler", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "catch_unwind", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("lanes", "64", "rayon_spawn_niced", "lane_nice", "count", &[19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0]),
        ("lanes", "64", "rayon_spawn_sched_idle", "lane_policy", "count", &[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
    ];
    Record::sketch(
        "ch05-rayon-lanes",
        "test",
        &[("panic_requests", 8.0), ("requests", 64.0)],
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
