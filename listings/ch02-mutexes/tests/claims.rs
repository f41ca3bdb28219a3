//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// Two workers, 500 held calls, three repetitions.
fn shaped_like_the_books(tokio_at_2: [f64; 3]) -> Record {
    let cells: &[SketchCell] = &[
        (
            "guard_across_await",
            "500",
            "held",
            "wall",
            "ms",
            &[1010.0, 1020.0, 1015.0],
        ),
        (
            "guard_across_await",
            "500",
            "scoped",
            "wall",
            "ms",
            &[2.4, 2.5, 2.6],
        ),
        (
            "which_mutex",
            "1",
            "tokio",
            "ns_per_update",
            "ns",
            &[130.0, 125.0, 140.0],
        ),
        (
            "which_mutex",
            "1",
            "std",
            "ns_per_update",
            "ns",
            &[19.0, 18.0, 25.0],
        ),
        (
            "which_mutex",
            "2",
            "tokio",
            "ns_per_update",
            "ns",
            &tokio_at_2,
        ),
        (
            "which_mutex",
            "2",
            "std",
            "ns_per_update",
            "ns",
            &[60.0, 45.0, 75.0],
        ),
    ];
    let params = [("workers", 2.0), ("held_calls", 500.0)];
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
    assert_eq!(o.verdict, Verdict::NotHeld, "{}", o.summary());
    assert_eq!(o.repetitions, Some((2, 3)));
}
