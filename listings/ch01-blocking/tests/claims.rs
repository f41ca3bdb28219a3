//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// One cell: (experiment, case, variant, metric, unit, value of every repetition).
type Cell = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    f64,
);

/// A record shaped like the book's (one worker, bursts 0 to 2), in ns, ms, counts and %.
fn shaped_like_the_books() -> Vec<Cell> {
    let mut cells = Vec::new();
    for (variant, p99_at) in [
        ("inline", [90e3, 36e6, 67e6]),
        ("spawn_blocking", [100e3, 450e3, 2.9e6]),
        ("block_in_place", [110e3, 1.4e6, 2.8e6]),
        ("rayon_lane", [100e3, 200e3, 230e3]),
    ] {
        for (case, p99) in ["0", "1", "2"].into_iter().zip(p99_at) {
            cells.push(("blocking", case, variant, "p99", "ns", p99));
        }
    }
    for (variant, heavy_at) in [
        ("inline", [33.5, 51.5]),
        ("spawn_blocking", [31.0, 40.5]),
        ("block_in_place", [41.7, 42.3]),
        ("rayon_lane", [31.1, 48.0]),
    ] {
        for (case, ms) in ["1", "2"].into_iter().zip(heavy_at) {
            cells.push(("blocking", case, variant, "heavy_job", "ms", ms));
        }
    }
    cells.extend([
        ("blocking", "1", "block_in_place", "burn_wall", "ms", 38.5),
        ("blocking", "1", "block_in_place", "burn_cpu", "ms", 31.5),
        ("blocking", "1", "inline", "tick_lag_max", "ns", 40e6),
        (
            "blocking",
            "1",
            "spawn_blocking",
            "tick_lag_max",
            "ns",
            1.3e6,
        ),
        (
            "blocking",
            "1",
            "inline",
            "light_first_poll_delay",
            "ns",
            5.8e6,
        ),
        (
            "blocking",
            "1",
            "spawn_blocking",
            "light_first_poll_delay",
            "ns",
            25e3,
        ),
        (
            "blocking",
            "1",
            "block_in_place",
            "heavy_slow_polls",
            "count",
            21.0,
        ),
        ("blocking", "1", "inline", "gen_share_of_p99", "%", 4.6),
        (
            "blocking",
            "2",
            "spawn_blocking",
            "gen_share_of_p99",
            "%",
            64.0,
        ),
    ]);
    for (case, inline, fix, job) in [
        ("0.1", 390e3, 300e3, 0.15),
        ("1", 1.08e6, 820e3, 1.4),
        ("3", 4.1e6, 2.6e6, 4.3),
        ("10", 13.7e6, 1.5e6, 14.2),
        ("30", 37e6, 180e3, 33.8),
    ] {
        cells.push(("heavy_cost", case, "inline", "p99", "ns", inline));
        cells.push(("heavy_cost", case, "spawn_blocking", "p99", "ns", fix));
        cells.push(("heavy_cost", case, "inline", "heavy_job", "ms", job));
    }
    for (case, inline, fix) in [("injection", 36.4e6, 180e3), ("accept_loop", 36.9e6, 110e3)] {
        cells.push(("spawn_path", case, "inline", "p99", "ns", inline));
        cells.push(("spawn_path", case, "spawn_blocking", "p99", "ns", fix));
    }
    cells
}

/// Three repetitions of each value.
fn record(cells: &[Cell]) -> Record {
    let values: Vec<[f64; 3]> = cells.iter().map(|c| [c.5; 3]).collect();
    let cells: Vec<SketchCell> = cells
        .iter()
        .zip(&values)
        .map(|((e, c, v, m, u, _), vals)| (*e, *c, *v, *m, *u, &vals[..]))
        .collect();
    Record::sketch("ch01-blocking", "test", &[("workers", 1.0)], &cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = record(&shaped_like_the_books());
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_stall_claim_fails_when_inline_is_only_a_few_times_the_fix() {
    let mut cells = shaped_like_the_books();
    for c in cells
        .iter_mut()
        .filter(|c| c.0 == "blocking" && c.1 == "1" && c.2 == "inline" && c.3 == "p99")
    {
        c.5 = 1.35e6; // 3× spawn_blocking's 450 µs
    }
    let rec = record(&cells);
    let o = claims()
        .get("inline-stalls-at-workers")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
    assert_eq!(o.figure, "3.00×");
}
