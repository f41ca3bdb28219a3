//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// One worker; p99 in ns per (burst, variant), three repetitions alike.
fn record(p99: &[(&str, &str, f64)]) -> Record {
    let values: Vec<[f64; 3]> = p99.iter().map(|c| [c.2; 3]).collect();
    let cells: Vec<SketchCell> = p99
        .iter()
        .zip(&values)
        .map(|((case, variant, _), v)| ("blocking", *case, *variant, "p99", "ns", &v[..]))
        .collect();
    Record::sketch("ch01-blocking", "test", &[("workers", 1.0)], &cells)
}

const VARIANTS: [&str; 4] = ["inline", "spawn_blocking", "block_in_place", "rayon_lane"];

fn healthy() -> Vec<(&'static str, &'static str, f64)> {
    let mut cells = Vec::new();
    for v in VARIANTS {
        cells.push(("0", v, 100e3));
        cells.push(("1", v, if v == "inline" { 35e6 } else { 200e3 }));
        cells.push(("2", v, if v == "inline" { 68e6 } else { 2e6 }));
    }
    cells
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = record(&healthy());
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_stall_claim_fails_when_inline_is_only_a_few_times_the_fix() {
    let mut cells = healthy();
    for c in cells.iter_mut().filter(|c| c.0 == "1" && c.1 == "inline") {
        c.2 = 600e3; // 3× spawn_blocking's 200 µs
    }
    let rec = record(&cells);
    let o = claims()
        .get("inline-stalls-at-workers")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::NotHeld, "{}", o.summary());
    assert_eq!(o.figure, "3.00×");
}
