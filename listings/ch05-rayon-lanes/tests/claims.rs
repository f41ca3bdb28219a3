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
        ("lanes", "64", "inline", "tick_max", "ns", &[3.911e+08, 4.084e+08, 3.888e+08, 3.764e+08, 3.798e+08, 4.074e+08, 4e+08, 4.892e+08, 3.833e+08, 3.814e+08, 3.825e+08, 3.804e+08, 3.84e+08, 3.785e+08, 3.772e+08, 3.964e+08, 3.783e+08, 3.877e+08, 3.822e+08, 4.076e+08]),
        ("lanes", "64", "rayon_spawn", "tick_max", "ns", &[5.677e+06, 4.94e+06, 5.374e+06, 5.976e+06, 4.944e+06, 4.334e+06, 4.887e+06, 5.1e+06, 5.575e+06, 5.951e+06, 4.616e+06, 5.73e+06, 5.345e+06, 5.386e+06, 6.042e+06, 5.972e+06, 4.489e+06, 5.186e+06, 5.648e+06, 4.069e+06]),
        ("lanes", "64", "inline", "total_ms", "ms", &[396.2, 418.7, 393.8, 381.4, 390.8, 419.0, 405.1, 505.9, 394.4, 392.7, 394.3, 391.6, 395.3, 389.8, 388.3, 407.8, 389.3, 392.7, 393.2, 418.7]),
        ("lanes", "64", "rayon_spawn", "total_ms", "ms", &[397.6, 396.9, 409.4, 397.0, 433.5, 406.4, 401.3, 387.2, 402.9, 401.0, 395.9, 454.7, 408.8, 392.0, 389.1, 523.7, 421.2, 402.7, 388.1, 398.6]),
        ("lanes", "64", "spawn_blocking", "total_ms", "ms", &[396.7, 398.9, 405.4, 378.8, 394.6, 412.9, 398.5, 410.2, 409.8, 407.9, 398.0, 397.4, 397.6, 396.4, 398.9, 414.3, 393.1, 394.5, 393.4, 415.7]),
        ("lanes", "64", "spawn_blocking", "tick_max", "ns", &[4.997e+06, 3.193e+06, 5.96e+06, 2.47e+06, 4.604e+06, 4.657e+06, 4.669e+06, 5.829e+06, 6.017e+06, 5.685e+06, 5.988e+06, 2.666e+06, 2.527e+06, 4.903e+06, 5.169e+06, 4.87e+06, 5.968e+06, 5.669e+06, 5.513e+06, 5.558e+06]),
        ("lanes", "64", "spawn_blocking", "threads", "count", &[10.0, 11.0, 11.0, 10.0, 11.0, 11.0, 11.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 11.0, 10.0, 10.0]),
        ("lanes", "64", "rayon_spawn", "threads", "count", &[7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0]),
        ("budgets", "quota_1", "host_cpus", "tick_max", "ns", &[4.997e+07, 5.04e+07, 5.02e+07, 5.131e+07, 5e+07, 4.561e+07, 5.01e+07, 5.131e+07, 5.01e+07, 5e+07, 5.004e+07, 5e+07, 5.004e+07, 5e+07, 4.997e+07, 5e+07, 5e+07, 5.197e+07, 5e+07, 5.502e+07]),
        ("budgets", "quota_1", "defaults", "tick_max", "ns", &[2.091e+06, 1.607e+06, 1.239e+06, 4.567e+06, 2.585e+06, 1.322e+06, 1.393e+06, 4.854e+06, 1.975e+06, 4.024e+06, 2.053e+06, 1.179e+06, 4.706e+06, 1.467e+06, 4.436e+06, 1.923e+06, 1.426e+06, 1.229e+06, 1.319e+06, 1.334e+06]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "total_ms", "ms", &[390.7, 387.2, 392.9, 394.4, 394.4, 382.4, 391.5, 390.9, 382.0, 389.7, 391.0, 393.9, 397.5, 400.4, 390.5, 397.2, 396.3, 387.1, 396.7, 396.0]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "total_ms", "ms", &[209.5, 222.4, 198.8, 209.6, 202.8, 204.0, 198.4, 205.5, 203.6, 223.7, 201.0, 204.7, 209.8, 205.4, 291.2, 218.6, 201.7, 232.9, 203.4, 200.7]),
        ("in_flight", "1", "rayon_spawn", "total_ms", "ms", &[405.3, 408.3, 405.2, 402.8, 395.7, 402.1, 401.0, 541.7, 403.2, 394.8, 415.8, 428.2, 421.9, 393.9, 388.9, 409.1, 392.7, 396.2, 392.0, 411.6]),
        ("in_flight", "2", "rayon_spawn", "total_ms", "ms", &[405.0, 404.7, 396.9, 395.6, 402.3, 393.7, 398.7, 416.3, 393.1, 408.4, 403.2, 397.9, 408.1, 418.1, 391.4, 392.0, 385.2, 382.0, 385.0, 381.1]),
        ("in_flight", "8", "rayon_spawn", "total_ms", "ms", &[416.9, 395.2, 392.6, 397.5, 399.2, 388.0, 388.5, 381.8, 397.5, 394.4, 408.1, 406.7, 403.7, 397.2, 377.8, 397.3, 383.1, 387.7, 388.0, 391.6]),
        ("in_flight", "64", "rayon_spawn", "total_ms", "ms", &[394.4, 394.6, 398.5, 394.4, 392.6, 389.7, 384.3, 411.4, 388.8, 391.5, 397.8, 400.4, 403.3, 414.2, 378.9, 385.8, 389.1, 386.4, 378.7, 395.0]),
        ("in_flight", "64", "rayon_spawn", "request_p50", "ns", &[3.94e+08, 3.945e+08, 3.979e+08, 3.943e+08, 3.924e+08, 3.893e+08, 3.843e+08, 4.108e+08, 3.888e+08, 3.914e+08, 3.974e+08, 3.998e+08, 4.032e+08, 3.974e+08, 3.785e+08, 3.856e+08, 3.89e+08, 3.864e+08, 3.785e+08, 3.943e+08]),
        ("in_flight", "2", "rayon_spawn", "request_p50", "ns", &[2.097e+08, 2.092e+08, 1.983e+08, 1.973e+08, 2.026e+08, 1.97e+08, 2.032e+08, 2.197e+08, 2.015e+08, 2.14e+08, 2.028e+08, 2.074e+08, 2.112e+08, 2.092e+08, 1.992e+08, 1.977e+08, 2.012e+08, 1.961e+08, 1.996e+08, 1.885e+08]),
        ("shedding", "2x", "permit_in_handler", "most_in_pool", "count", &[243.0, 265.0, 271.0, 280.0, 270.0, 269.0, 264.0, 276.0, 256.0, 253.0]),
        ("shedding", "2x", "permit_in_job", "most_in_pool", "count", &[3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]),
        ("shedding", "2x", "permit_in_handler", "busy_after_ms", "ms", &[880.1, 906.5, 914.8, 953.9, 908.5, 935.6, 976.4, 993.9, 947.9, 933.1]),
        ("shedding", "2x", "busy_at_the_door", "served_in_deadline", "count", &[131.0, 116.0, 144.0, 144.0, 118.0, 121.0, 120.0, 118.0, 135.0, 128.0]),
        ("shedding", "2x", "permit_in_job", "served_in_deadline", "count", &[14.0, 15.0, 13.0, 13.0, 10.0, 14.0, 13.0, 13.0, 13.0, 13.0]),
        ("shedding", "2x", "permit_in_handler", "served_in_deadline", "count", &[14.0, 14.0, 13.0, 14.0, 12.0, 15.0, 13.0, 12.0, 14.0, 10.0]),
        ("shedding", "2x", "permit_in_handler", "served", "count", &[14.0, 14.0, 13.0, 16.0, 12.0, 15.0, 13.0, 13.0, 14.0, 10.0]),
        ("shedding", "2x", "permit_in_job", "served", "count", &[15.0, 15.0, 14.0, 16.0, 11.0, 14.0, 13.0, 13.0, 14.0, 13.0]),
        ("split", "16", "par_iter", "ns_per_batch", "ns", &[1140.0, 851.1, 856.5, 932.6, 608.5, 1016.0, 586.4, 835.7, 1239.0, 397.4, 984.3, 1002.0, 1046.0, 894.2, 1105.0, 355.6, 1164.0, 919.9, 379.2, 536.6]),
        ("split", "16", "sequential", "ns_per_batch", "ns", &[221.6, 209.0, 167.4, 223.7, 173.6, 180.3, 178.8, 183.0, 222.0, 225.0, 234.1, 221.4, 205.4, 228.4, 227.4, 231.9, 177.4, 176.8, 224.9, 229.9]),
        ("split", "threshold", "par_iter", "threshold_items", "count", &[2048.0, 4096.0, 4096.0, 1024.0, 1024.0, 2048.0, 2048.0, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0, 1024.0, 2048.0, 512.0, 1024.0, 2048.0]),
        ("lanes", "64", "rayon_spawn_niced", "tick_max", "ns", &[4.26e+06, 4.825e+06, 4.297e+06, 5.382e+06, 6.058e+06, 4.207e+06, 3.99e+06, 5.206e+06, 7.107e+06, 4.551e+06, 3.181e+06, 3.035e+06, 4.887e+06, 3.607e+06, 5.005e+06, 3.015e+06, 2.392e+06, 5.05e+06, 4.469e+06, 4.399e+06]),
        ("lanes", "64", "rayon_spawn_niced", "total_ms", "ms", &[431.1, 405.8, 411.7, 440.7, 415.5, 398.2, 431.0, 428.1, 422.1, 420.1, 513.2, 463.5, 506.4, 391.7, 395.6, 407.8, 416.8, 427.0, 591.3, 428.7]),
        ("budgets", "mask_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("budgets", "quota_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("in_flight", "64", "rayon_spawn", "most_in_pool", "count", &[64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0]),
        ("panics", "8", "no_handler", "aborted", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "handler", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "catch_unwind", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("lanes", "64", "rayon_spawn_niced", "lane_nice", "count", &[19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0, 19.0]),
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
