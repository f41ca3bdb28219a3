//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// Two workers, 500 held calls, two config readers, three repetitions.
fn shaped_like_the_books(tokio_at_2: [f64; 3]) -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("timer", "2000", "tokio_sleep", "actual_p50", "ns", &[3.11e6, 3.10e6, 3.14e6]),
        ("timer", "2000", "precise_upstream", "actual_p50", "ns", &[2.01e6; 3]),
        ("guard_across_await", "500", "held", "wall", "ms", &[1010.0, 1020.0, 1015.0]),
        ("guard_across_await", "500", "scoped", "wall", "ms", &[2.4, 2.5, 2.6]),
        ("which_mutex", "1", "tokio", "ns_per_update", "ns", &[130.0, 125.0, 140.0]),
        ("which_mutex", "1", "tokio_unconstrained", "ns_per_update", "ns", &[74.0, 73.0, 77.0]),
        ("which_mutex", "1", "std", "ns_per_update", "ns", &[12.1, 12.1, 12.3]),
        ("which_mutex", "1", "parking_lot", "ns_per_update", "ns", &[15.4, 15.3, 15.6]),
        ("which_mutex", "2", "tokio_unconstrained", "ns_per_update", "ns", &[225.0, 211.0, 241.0]),
        ("which_mutex", "2", "tokio", "ns_per_update", "ns", &tokio_at_2),
        ("which_mutex", "2", "std", "ns_per_update", "ns", &[60.0, 45.0, 75.0]),
        ("which_mutex", "2", "parking_lot", "ns_per_update", "ns", &[26.6, 25.4, 26.8]),
        ("sharding", "1", "padded", "wall", "ms", &[125.0, 119.0, 168.0]),
        ("sharding", "16", "padded", "wall", "ms", &[47.2, 46.7, 50.0]),
        ("sharding", "4", "padded", "wall", "ms", &[64.0, 61.7, 68.0]),
        ("sharding", "4", "packed", "wall", "ms", &[79.7, 76.6, 80.6]),
        ("acquire_time", "1", "sampled", "acquire_p50", "ns", &[250.0, 221.0, 260.0]),
        ("acquire_time", "16", "sampled", "acquire_p50", "ns", &[30.0, 30.0, 50.0]),
        ("acquire_time", "1", "sampled", "acquire_max", "ns", &[4.3e6, 4.1e6, 8.0e6]),
        ("config", "2", "arc_swap", "reads_per_s", "reads/s", &[419e6, 351e6, 434e6]),
        ("config", "2", "rwlock", "reads_per_s", "reads/s", &[41.9e6, 37.9e6, 51.1e6]),
        ("config", "2", "watch", "reads_per_s", "reads/s", &[47.6e6, 41.9e6, 80.3e6]),
    ];
    let params = [
        ("workers", 2.0),
        ("held_calls", 500.0),
        ("config_readers", 2.0),
    ];
    Record::sketch("ch02-mutexes", "test", &params, cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books([200.0, 210.0, 190.0]);
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_contended_claim_fails_when_one_repetition_goes_the_other_way() {
    // The medians still favour std (200 vs 60 ns), but in the third repetition tokio was faster.
    let rec = shaped_like_the_books([200.0, 210.0, 70.0]);
    let o = claims()
        .get("tokio-mutex-costs-more-contended")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
    assert_eq!(o.held_in, 2);
}
