//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::Verdict;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("lanes", "64", "inline", "tick_max", "ns", &[3.948e+08, 4.071e+08, 3.924e+08, 4.013e+08, 3.846e+08, 3.927e+08, 4.045e+08, 4.092e+08, 3.982e+08, 3.838e+08]),
        ("lanes", "64", "rayon_spawn", "tick_max", "ns", &[8.831e+06, 5.009e+06, 5.009e+06, 1.668e+06, 5.98e+06, 5.075e+06, 5.014e+06, 5.374e+06, 5.997e+06, 5.218e+06]),
        ("lanes", "64", "inline", "total_ms", "ms", &[400.0, 412.3, 404.0, 406.5, 395.8, 397.6, 409.4, 417.6, 403.3, 395.1]),
        ("lanes", "64", "rayon_spawn", "total_ms", "ms", &[407.8, 407.4, 410.8, 401.3, 404.6, 402.2, 404.3, 405.4, 406.8, 400.5]),
        ("lanes", "64", "spawn_blocking", "total_ms", "ms", &[412.7, 401.8, 414.1, 414.6, 414.4, 407.2, 407.6, 407.2, 416.6, 407.7]),
        ("lanes", "64", "spawn_blocking", "tick_max", "ns", &[4.817e+06, 3.906e+06, 4.923e+06, 4.809e+06, 5.075e+06, 4.977e+06, 5.222e+06, 5.206e+06, 4.94e+06, 5.231e+06]),
        ("lanes", "64", "spawn_blocking", "threads", "count", &[8.0, 8.0, 8.0, 9.0, 8.0, 8.0, 8.0, 7.0, 8.0, 8.0]),
        ("lanes", "64", "rayon_spawn", "threads", "count", &[5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
        ("budgets", "quota_1", "host_cpus", "tick_max", "ns", &[5.007e+07, 4.466e+07, 5.263e+07, 5.004e+07, 5e+07, 5.505e+07, 5.007e+07, 4.876e+07, 5.266e+07, 5.112e+07]),
        ("budgets", "quota_1", "defaults", "tick_max", "ns", &[1.233e+06, 1.307e+06, 1.266e+06, 2.034e+06, 4.28e+06, 3.725e+06, 1.246e+06, 1.427e+06, 1.513e+06, 3.037e+06]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "total_ms", "ms", &[395.6, 400.9, 390.7, 390.0, 395.1, 396.8, 398.3, 397.3, 396.8, 404.4]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "total_ms", "ms", &[201.5, 207.7, 203.9, 221.9, 204.1, 244.6, 203.0, 209.7, 211.4, 282.3]),
        ("in_flight", "1", "rayon_spawn", "total_ms", "ms", &[404.8, 403.0, 410.9, 422.9, 417.4, 406.6, 408.5, 425.3, 429.5, 412.7, 409.5, 396.3, 426.5, 419.5, 422.3, 412.7, 430.8, 423.4, 421.2, 406.0]),
        ("in_flight", "2", "rayon_spawn", "total_ms", "ms", &[414.9, 399.5, 411.2, 410.0, 416.4, 404.6, 405.9, 406.1, 416.3, 416.3, 399.6, 423.1, 423.2, 409.4, 408.7, 407.1, 404.3, 400.8, 406.8, 419.0]),
        ("in_flight", "8", "rayon_spawn", "total_ms", "ms", &[405.6, 404.4, 398.8, 406.8, 406.8, 403.8, 400.5, 407.9, 423.0, 409.3, 402.8, 401.7, 423.0, 412.3, 405.8, 411.5, 391.3, 389.0, 407.4, 405.1]),
        ("in_flight", "64", "rayon_spawn", "total_ms", "ms", &[403.8, 405.3, 404.0, 408.0, 407.2, 393.9, 402.9, 405.6, 412.3, 409.3, 403.4, 409.2, 410.9, 403.2, 420.0, 401.9, 397.7, 405.0, 407.1, 389.8]),
        ("in_flight", "64", "rayon_spawn", "request_p50", "ns", &[4.034e+08, 4.048e+08, 4.037e+08, 3.12e+08, 3.379e+08, 3.935e+08, 4.027e+08, 4.05e+08, 4.116e+08, 4.087e+08, 3.29e+08, 4.089e+08, 4.1e+08, 4.027e+08, 4.192e+08, 4.013e+08, 3.971e+08, 4.045e+08, 4.063e+08, 3.466e+08]),
        ("in_flight", "2", "rayon_spawn", "request_p50", "ns", &[2.147e+08, 2.057e+08, 2.083e+08, 2.066e+08, 2.091e+08, 2.021e+08, 2.039e+08, 2.089e+08, 2.097e+08, 2.118e+08, 1.992e+08, 2.105e+08, 2.113e+08, 2.064e+08, 2.05e+08, 2.07e+08, 2.039e+08, 1.984e+08, 2.097e+08, 2.14e+08]),
        ("shedding", "2x", "permit_in_handler", "most_in_pool", "count", &[232.0, 258.0, 226.0, 242.0, 258.0, 250.0, 236.0, 247.0, 205.0, 244.0]),
        ("shedding", "2x", "permit_in_job", "most_in_pool", "count", &[3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]),
        ("shedding", "2x", "permit_in_handler", "busy_after_ms", "ms", &[928.5, 934.0, 957.0, 919.8, 928.6, 915.7, 930.8, 944.4, 894.4, 919.4]),
        ("shedding", "2x", "busy_at_the_door", "served", "count", &[165.0, 167.0, 161.0, 163.0, 164.0, 167.0, 164.0, 165.0, 162.0, 162.0]),
        ("shedding", "2x", "permit_in_job", "served", "count", &[15.0, 15.0, 15.0, 15.0, 14.0, 13.0, 13.0, 12.0, 15.0, 14.0]),
        ("shedding", "2x", "permit_in_handler", "served", "count", &[14.0, 12.0, 14.0, 13.0, 11.0, 14.0, 13.0, 12.0, 12.0, 13.0]),
        ("split", "16", "par_iter", "ns_per_batch", "ns", &[831.5, 860.6, 3489.0, 984.0, 904.2, 824.1, 747.8, 1222.0, 2521.0, 1001.0]),
        ("split", "16", "sequential", "ns_per_batch", "ns", &[171.6, 166.0, 228.1, 173.9, 240.8, 245.0, 173.0, 250.0, 242.4, 230.7]),
        ("split", "4096", "par_iter", "ns_per_batch", "ns", &[3.041e+04, 3.329e+04, 2.472e+04, 1.829e+04, 2.422e+04, 2.514e+04, 3.156e+04, 3.122e+04, 2.527e+04, 2.465e+04]),
        ("split", "4096", "sequential", "ns_per_batch", "ns", &[3.374e+04, 3.291e+04, 4.392e+04, 3.827e+04, 3.606e+04, 5.061e+04, 3.485e+04, 3.449e+04, 3.565e+04, 5.08e+04]),
        ("split", "threshold", "par_iter", "threshold_items", "count", &[8192.0, 4096.0, 2048.0, 1024.0, 1024.0, 1024.0, 8192.0, 1024.0, 4096.0, 2048.0]),
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
    let rec = shaped_like_the_books();
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    let rec = shaped_like_the_books();
    for c in claims().conclusions() {
        let refuted = fixtures::refuted(c, &rec).unwrap();
        let o = c.check(&refuted);
        assert_eq!(o.verdict, Verdict::Refuted, "{}: {}", c.id, o.summary());
        let not_shown = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&not_shown);
        assert_eq!(o.verdict, Verdict::NotShown, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    let rec = shaped_like_the_books();
    for c in claims().invariants() {
        let broken = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&broken);
        assert_eq!(
            (o.verdict.clone(), o.word()),
            (Verdict::Refuted, "broken"),
            "{}: {}",
            c.id,
            o.summary()
        );
    }
}
