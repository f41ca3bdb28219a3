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
        ("lanes", "64", "inline", "tick_max", "ns", &[3.848e+08, 3.775e+08, 3.977e+08, 3.814e+08, 3.84e+08, 3.89e+08, 3.911e+08, 3.911e+08, 3.924e+08, 3.945e+08, 4.003e+08, 4.126e+08, 4.121e+08, 3.861e+08, 3.895e+08, 3.982e+08, 3.94e+08, 3.948e+08, 3.932e+08, 3.998e+08]),
        ("lanes", "64", "rayon_spawn", "tick_max", "ns", &[5.095e+06, 5.157e+06, 5.71e+06, 4.694e+06, 4.6e+06, 5.599e+06, 5.796e+06, 6.779e+06, 4.62e+06, 5.083e+06, 5.128e+06, 6.504e+06, 5.145e+06, 5.161e+06, 5.849e+06, 6.033e+06, 4.702e+06, 5.14e+06, 6.738e+06, 2.982e+06]),
        ("lanes", "64", "inline", "total_ms", "ms", &[396.3, 388.7, 409.0, 392.6, 395.3, 394.0, 396.3, 396.2, 403.9, 399.8, 405.3, 423.7, 417.2, 397.5, 400.8, 403.3, 399.1, 399.7, 398.1, 405.1]),
        ("lanes", "64", "rayon_spawn", "total_ms", "ms", &[398.1, 432.6, 401.5, 482.7, 387.8, 396.1, 396.9, 398.6, 502.0, 403.5, 403.4, 399.9, 402.5, 403.8, 411.0, 398.6, 403.1, 410.6, 408.9, 411.8]),
        ("lanes", "64", "spawn_blocking", "total_ms", "ms", &[396.6, 395.2, 400.8, 678.2, 393.9, 407.9, 397.4, 404.1, 404.3, 417.5, 406.8, 407.4, 405.9, 420.4, 410.6, 410.2, 405.1, 404.8, 427.2, 407.2]),
        ("lanes", "64", "spawn_blocking", "tick_max", "ns", &[4.747e+06, 5.546e+06, 4.252e+06, 5.1e+06, 5.444e+06, 5.501e+06, 4.915e+06, 4.534e+06, 4.854e+06, 4.731e+06, 5.132e+06, 8.045e+06, 2.392e+06, 4.997e+06, 6.857e+06, 4.997e+06, 4.616e+06, 5.984e+06, 4.768e+06, 5.353e+06]),
        ("lanes", "64", "spawn_blocking", "threads", "count", &[8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 9.0, 7.0, 8.0, 9.0, 8.0, 8.0, 8.0, 9.0, 8.0, 8.0, 8.0, 8.0, 8.0]),
        ("lanes", "64", "rayon_spawn", "threads", "count", &[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
        ("budgets", "quota_1", "host_cpus", "tick_max", "ns", &[5.004e+07, 5.004e+07, 5.027e+07, 5e+07, 5e+07, 5.007e+07, 5.004e+07, 5.082e+07, 5.498e+07, 5.964e+07]),
        ("budgets", "quota_1", "defaults", "tick_max", "ns", &[1.382e+06, 1.933e+06, 1.471e+06, 2.511e+06, 1.389e+06, 1.356e+06, 2.3e+06, 1.349e+06, 1.215e+06, 1.248e+06]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "total_ms", "ms", &[395.4, 397.9, 386.6, 394.9, 396.3, 398.8, 396.5, 394.0, 391.4, 392.9]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "total_ms", "ms", &[198.6, 209.6, 208.7, 202.2, 200.4, 202.1, 204.3, 196.9, 202.8, 206.5]),
        ("in_flight", "1", "rayon_spawn", "total_ms", "ms", &[402.7, 384.5, 390.8, 392.1, 384.9, 388.7, 409.9, 403.1, 397.9, 405.9, 407.1, 397.8, 411.8, 402.0, 405.8, 416.5, 400.5, 404.5, 399.3, 408.9]),
        ("in_flight", "2", "rayon_spawn", "total_ms", "ms", &[394.3, 385.7, 384.9, 382.7, 384.9, 390.9, 399.0, 412.1, 399.9, 399.7, 401.5, 400.2, 403.7, 393.7, 397.9, 405.2, 390.5, 397.7, 397.5, 409.0]),
        ("in_flight", "8", "rayon_spawn", "total_ms", "ms", &[390.2, 388.9, 391.1, 380.7, 383.0, 385.6, 391.1, 401.1, 404.2, 401.0, 397.0, 386.8, 396.2, 396.1, 403.0, 402.8, 392.4, 393.6, 407.9, 396.6]),
        ("in_flight", "64", "rayon_spawn", "total_ms", "ms", &[398.8, 383.8, 385.1, 382.5, 381.4, 375.6, 387.2, 391.1, 398.6, 395.0, 400.8, 387.1, 391.6, 397.2, 394.5, 392.2, 387.3, 397.9, 394.8, 402.0]),
        ("in_flight", "64", "rayon_spawn", "request_p50", "ns", &[3.985e+08, 3.833e+08, 3.851e+08, 3.827e+08, 2.209e+08, 3.757e+08, 3.872e+08, 3.909e+08, 3.982e+08, 3.948e+08, 4.006e+08, 3.321e+08, 3.911e+08, 2.975e+08, 3.94e+08, 3.919e+08, 2.902e+08, 3.977e+08, 3.948e+08, 2.154e+08]),
        ("in_flight", "2", "rayon_spawn", "request_p50", "ns", &[1.995e+08, 1.988e+08, 1.91e+08, 1.948e+08, 1.916e+08, 2.034e+08, 2.066e+08, 2.06e+08, 2.058e+08, 2.051e+08, 2.016e+08, 1.987e+08, 2.084e+08, 1.977e+08, 2.051e+08, 2.113e+08, 1.954e+08, 2.045e+08, 2.062e+08, 2.06e+08]),
        ("shedding", "2x", "permit_in_handler", "most_in_pool", "count", &[267.0, 285.0, 262.0, 278.0, 250.0, 259.0, 258.0, 244.0, 248.0, 274.0]),
        ("shedding", "2x", "permit_in_job", "most_in_pool", "count", &[3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]),
        ("shedding", "2x", "permit_in_handler", "busy_after_ms", "ms", &[1049.0, 1044.0, 993.7, 965.4, 925.6, 987.5, 995.0, 958.9, 941.1, 1021.0]),
        ("shedding", "2x", "busy_at_the_door", "served_in_deadline", "count", &[105.0, 102.0, 106.0, 134.0, 128.0, 136.0, 115.0, 123.0, 121.0, 115.0]),
        ("shedding", "2x", "permit_in_job", "served_in_deadline", "count", &[13.0, 13.0, 14.0, 14.0, 14.0, 11.0, 13.0, 13.0, 13.0, 13.0]),
        ("shedding", "2x", "permit_in_handler", "served_in_deadline", "count", &[13.0, 13.0, 13.0, 14.0, 13.0, 13.0, 13.0, 12.0, 14.0, 13.0]),
        ("shedding", "2x", "permit_in_handler", "served", "count", &[13.0, 13.0, 13.0, 14.0, 13.0, 13.0, 13.0, 12.0, 14.0, 13.0]),
        ("shedding", "2x", "permit_in_job", "served", "count", &[14.0, 13.0, 17.0, 14.0, 18.0, 12.0, 13.0, 13.0, 14.0, 14.0]),
        ("split", "16", "par_iter", "ns_per_batch", "ns", &[1072.0, 1868.0, 1896.0, 985.2, 524.6, 512.5, 1182.0, 555.9, 1189.0, 583.5]),
        ("split", "16", "sequential", "ns_per_batch", "ns", &[227.4, 227.9, 213.6, 224.7, 238.6, 172.6, 243.4, 249.1, 245.6, 248.9]),
        ("split", "threshold", "par_iter", "threshold_items", "count", &[512.0, 1024.0, 2048.0, 512.0, 2048.0, 2048.0, 2048.0, 2048.0, 2048.0, 1024.0]),
        ("budgets", "mask_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("budgets", "quota_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("in_flight", "64", "rayon_spawn", "most_in_pool", "count", &[64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0, 64.0]),
        ("panics", "8", "no_handler", "aborted", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "handler", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("panics", "8", "catch_unwind", "failed", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
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
