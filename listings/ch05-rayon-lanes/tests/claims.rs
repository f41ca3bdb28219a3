//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold
//! where the numbers support them and fail where they do not. The measured records
//! are checked by `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// A burst of 64 requests, 8 panic requests, three repetitions;
/// `offloaded_tick_max` is the worst tick lag (ns) with rayon::spawn, and
/// `no_handler_aborted` whether the no-handler child ended in Rayon's abort (1) or
/// not (0).
fn shaped_like_the_books(
    offloaded_tick_max: [f64; 3],
    no_handler_aborted: f64,
) -> Record {
    let ms = 1e6;
    let aborted = [no_handler_aborted; 3];
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("lanes", "64", "inline", "tick_max", "ns", &[319.0 * ms, 316.0 * ms, 322.0 * ms]),
        ("lanes", "64", "rayon_spawn", "tick_max", "ns", &offloaded_tick_max),
        ("lanes", "64", "spawn_blocking", "tick_max", "ns", &[3.6 * ms, 1.9 * ms, 5.2 * ms]),
        ("lanes", "64", "inline", "total_ms", "ms", &[324.0, 321.0, 327.0]),
        ("lanes", "64", "rayon_spawn", "total_ms", "ms", &[325.0, 324.0, 325.0]),
        ("lanes", "64", "spawn_blocking", "total_ms", "ms", &[326.0, 322.0, 331.0]),
        ("lanes", "64", "rayon_spawn", "threads", "count", &[5.0, 5.0, 5.0]),
        ("lanes", "64", "spawn_blocking", "threads", "count", &[8.0, 9.0, 8.0]),
        ("budgets", "mask_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "tick_max", "ns", &[4.7 * ms, 4.4 * ms, 4.9 * ms]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "tick_max", "ns", &[1.8 * ms, 1.6 * ms, 2.4 * ms]),
        ("budgets", "quota_1", "defaults", "available_parallelism", "count", &[1.0, 1.0, 1.0]),
        ("budgets", "quota_1", "defaults", "tick_max", "ns", &[1.6 * ms, 1.7 * ms, 1.6 * ms]),
        ("budgets", "quota_1", "host_cpus", "tick_max", "ns", &[49.0 * ms, 51.0 * ms, 47.0 * ms]),
        ("budgets", "mask_2", "rayon_all_tokio_1", "total_ms", "ms", &[163.0, 165.0, 161.0]),
        ("budgets", "mask_2", "rayon_less_one_tokio_1", "total_ms", "ms", &[318.0, 316.0, 321.0]),
        ("in_flight", "1", "rayon_spawn", "total_ms", "ms", &[322.0, 320.0, 324.0]),
        ("in_flight", "2", "rayon_spawn", "total_ms", "ms", &[329.0, 324.0, 335.0]),
        ("in_flight", "8", "rayon_spawn", "total_ms", "ms", &[318.0, 320.0, 316.0]),
        ("in_flight", "64", "rayon_spawn", "total_ms", "ms", &[319.0, 319.0, 320.0]),
        ("in_flight", "2", "rayon_spawn", "request_p50", "ns", &[163.0 * ms, 165.0 * ms, 161.0 * ms]),
        ("in_flight", "64", "rayon_spawn", "request_p50", "ns", &[319.0 * ms, 319.0 * ms, 318.0 * ms]),
        ("in_flight", "64", "rayon_spawn", "most_in_pool", "count", &[64.0, 64.0, 64.0]),
        ("shedding", "2x", "permit_in_handler", "most_in_pool", "count", &[338.0, 332.0, 345.0]),
        ("shedding", "2x", "permit_in_job", "most_in_pool", "count", &[3.0, 3.0, 3.0]),
        ("shedding", "2x", "permit_in_handler", "busy_after_ms", "ms", &[1027.0, 1033.0, 1020.0]),
        ("shedding", "2x", "permit_in_job", "served", "count", &[17.0, 16.0, 17.0]),
        ("shedding", "2x", "permit_in_handler", "served", "count", &[18.0, 16.0, 17.0]),
        ("shedding", "2x", "busy_at_the_door", "served", "count", &[205.0, 203.0, 206.0]),
        ("panics", "8", "no_handler", "aborted", "count", &aborted),
        ("panics", "8", "handler", "failed", "count", &[1.0, 1.0, 1.0]),
        ("panics", "8", "catch_unwind", "failed", "count", &[1.0, 1.0, 1.0]),
        ("split", "16", "sequential", "ns_per_batch", "ns", &[177.0, 162.0, 187.0]),
        ("split", "16", "par_iter", "ns_per_batch", "ns", &[731.0, 663.0, 1410.0]),
        ("split", "4096", "sequential", "ns_per_batch", "ns", &[37800.0, 33800.0, 39700.0]),
        ("split", "4096", "par_iter", "ns_per_batch", "ns", &[19000.0, 16600.0, 32800.0]),
        ("split", "threshold", "par_iter", "threshold_items", "count", &[1024.0, 512.0, 1024.0]),
    ];
    let params = [("requests", 64.0), ("panic_requests", 8.0)];
    Record::sketch("ch05-rayon-lanes", "test", &params, cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books([4.9e6, 4.7e6, 5.1e6], 1.0);
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_ticker_claim_fails_when_offloading_leaves_the_ticker_as_late() {
    let rec = shaped_like_the_books([300e6, 290e6, 310e6], 1.0);
    let o = claims().get("inline-freezes-ticker").unwrap().check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
}

#[test]
fn the_abort_claim_fails_when_the_child_does_not_abort() {
    let rec = shaped_like_the_books([4.9e6, 4.7e6, 5.1e6], 0.0);
    let o = claims().get("no-handler-aborts").unwrap().check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
}
