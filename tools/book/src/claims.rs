//! `book check`: every stored record is valid and fresh, and each chapter's claim holds on it,
//! in direction and rough size, with generous margins. Timing is checked here, on measured
//! data, never in unit tests.

use anyhow::{Result, bail};
use measure::record::{self, Record};
use measure::report::format_value;
use std::path::{Path, PathBuf};

/// Only checks that each file is a valid record (used on quick runs in CI).
pub fn validate_files(files: &[PathBuf]) -> Result<()> {
    for f in files {
        let rec = Record::load(f)?;
        println!(
            "ok   {}: valid record of {} ({} series, {} repetition(s))",
            f.display(),
            rec.chapter,
            rec.series.len(),
            rec.reps
        );
    }
    Ok(())
}

/// Checks every record under data/.
pub fn check_all(root: &Path) -> Result<()> {
    let data = root.join("data");
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut machines: Vec<PathBuf> = std::fs::read_dir(&data)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    machines.sort();
    for machine in machines {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&machine)?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for file in files {
            checked += 1;
            let shown = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            let rec = match Record::load(&file) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(e.to_string());
                    continue;
                }
            };
            if rec.source.is_some() {
                println!(
                    "ok   {shown}: published figures ({} series)",
                    rec.series.len()
                );
                continue;
            }
            if rec.quick {
                failures.push(format!(
                    "{shown}: a quick run; the book shows full runs only"
                ));
            }
            let listing = root.join("listings").join(&rec.chapter);
            match record::listing_hash(&listing) {
                Ok(h) if h == rec.build.listing_hash => println!("ok   {shown}: fresh (listing hash {h})"),
                Ok(h) => failures.push(format!(
                    "{shown}: stale: listings/{} changed since this record (hash {} → {h}); rerun `cargo run -p {} -- --save`",
                    rec.chapter, rec.build.listing_hash, rec.chapter
                )),
                Err(e) => failures.push(format!("{shown}: cannot hash listings/{}: {e}", rec.chapter)),
            }
            for claim in claims_of(&rec) {
                match claim {
                    Ok(line) => println!("ok   {shown}: {line}"),
                    Err(line) => failures.push(format!("{shown}: claim does not hold: {line}")),
                }
            }
        }
    }
    if checked == 0 {
        bail!("no records under {}", data.display());
    }
    if !failures.is_empty() {
        for f in &failures {
            println!("FAIL {f}");
        }
        bail!("{} problem(s) in data/", failures.len());
    }
    Ok(())
}

/// The claims a chapter's prose makes about its record, each as Ok(what held) or Err(what not).
pub fn claims_of(rec: &Record) -> Vec<Result<String, String>> {
    match rec.chapter.as_str() {
        "ch01-blocking" => ch01(rec),
        "ch02-mutexes" => ch02(rec),
        _ => Vec::new(),
    }
}

fn median(rec: &Record, experiment: &str, case: &str, variant: &str, metric: &str) -> Option<f64> {
    rec.find(experiment, case, variant, metric)
        .map(|s| s.median)
}

/// Chapter 1: once as many heavy jobs arrive together as there are workers, inline CPU work
/// takes the light requests' p99 to at least 10× the best fix's; with no heavy jobs, every
/// variant's p99 is within 10× of the others (they run the same code).
fn ch01(rec: &Record) -> Vec<Result<String, String>> {
    let workers = rec
        .params
        .get("workers")
        .and_then(|v| v.as_u64())
        .unwrap_or(1);
    let fixes = ["spawn_blocking", "block_in_place", "rayon_lane"];
    let mut out = Vec::new();
    let mut cases: Vec<u64> = rec
        .series
        .iter()
        .filter(|s| s.experiment == "blocking")
        .filter_map(|s| s.case.parse().ok())
        .collect();
    cases.sort();
    cases.dedup();
    for burst in cases.iter().filter(|b| **b >= workers) {
        let case = burst.to_string();
        let inline = median(rec, "blocking", &case, "inline", "p99");
        let best = fixes
            .iter()
            .filter_map(|f| median(rec, "blocking", &case, f, "p99").map(|v| (v, *f)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        out.push(match (inline, best) {
            (Some(i), Some((b, name))) => {
                let line = format!(
                    "burst {burst} (workers {workers}): inline p99 {} vs best fix ({name}) {}: {:.0}× (claim: ≥ 10×)",
                    format_value(i, "ns"),
                    format_value(b, "ns"),
                    i / b
                );
                if i >= 10.0 * b { Ok(line) } else { Err(line) }
            }
            _ => Err(format!("burst {burst}: the record lacks inline or fix p99")),
        });
    }
    let at_workers = workers.to_string();
    if let (Some(i), Some(sb)) = (
        median(rec, "blocking", &at_workers, "inline", "p99"),
        median(rec, "blocking", &at_workers, "spawn_blocking", "p99"),
    ) {
        let line = format!(
            "burst = workers = {workers}: inline p99 {} vs spawn_blocking {}: {:.0}× (claim: ≥ 10×)",
            format_value(i, "ns"),
            format_value(sb, "ns"),
            i / sb
        );
        out.push(if i >= 10.0 * sb { Ok(line) } else { Err(line) });
    }
    let idle: Vec<f64> = ["inline"]
        .iter()
        .chain(fixes.iter())
        .filter_map(|v| median(rec, "blocking", "0", v, "p99"))
        .collect();
    if let (Some(lo), Some(hi)) = (
        idle.iter().copied().reduce(f64::min),
        idle.iter().copied().reduce(f64::max),
    ) {
        let line = format!(
            "burst 0: p99 of every variant between {} and {} (claim: within 10×)",
            format_value(lo, "ns"),
            format_value(hi, "ns")
        );
        out.push(if hi <= 10.0 * lo { Ok(line) } else { Err(line) });
    }
    if out.is_empty() {
        out.push(Err(
            "no case with a burst at or above the worker count".into()
        ));
    }
    out
}

/// Chapter 2: a guard held across the upstream call makes the calls at least 50× slower in
/// all than the scoped guard; and with no `.await` under the lock, `tokio::sync::Mutex` costs
/// more per update than `std::sync::Mutex` at every worker count, in every repetition.
fn ch02(rec: &Record) -> Vec<Result<String, String>> {
    let mut out = Vec::new();
    let calls = rec
        .params
        .get("held_calls")
        .map(|v| v.to_string())
        .unwrap_or_default();
    match (
        median(rec, "guard_across_await", &calls, "held", "wall"),
        median(rec, "guard_across_await", &calls, "scoped", "wall"),
    ) {
        (Some(held), Some(scoped)) => {
            let line = format!(
                "{calls} calls: guard held {} vs scoped {}: {:.0}× (claim: ≥ 50×)",
                format_value(held, "ms"),
                format_value(scoped, "ms"),
                held / scoped
            );
            out.push(if held >= 50.0 * scoped {
                Ok(line)
            } else {
                Err(line)
            });
        }
        _ => out.push(Err("the record lacks the held or scoped wall time".into())),
    }
    let mut workers: Vec<&str> = rec
        .series
        .iter()
        .filter(|s| s.experiment == "which_mutex")
        .map(|s| s.case.as_str())
        .collect();
    workers.dedup();
    for w in workers {
        let tokio = rec.find("which_mutex", w, "tokio", "ns_per_update");
        let std = rec.find("which_mutex", w, "std", "ns_per_update");
        out.push(match (tokio, std) {
            (Some(t), Some(s)) => {
                let line = format!(
                    "{w} worker(s): tokio::sync::Mutex {}–{} vs std::sync::Mutex {}–{} per update (claim: tokio slower in every repetition)",
                    format_value(t.min, "ns"),
                    format_value(t.max, "ns"),
                    format_value(s.min, "ns"),
                    format_value(s.max, "ns")
                );
                if t.min > s.max { Ok(line) } else { Err(line) }
            }
            _ => Err(format!("{w} worker(s): the record lacks the tokio or std mutex")),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::record::{Build, Machine, SCHEMA_VERSION, Series};
    use std::collections::BTreeMap;

    fn record(inline_p99: f64, fix_p99: f64) -> Record {
        let s = |case: &str, variant: &str, v: f64| Series {
            experiment: "blocking".into(),
            case: case.into(),
            variant: variant.into(),
            metric: "p99".into(),
            unit: "ns".into(),
            median: v,
            min: v,
            max: v,
            values: vec![v],
        };
        Record {
            schema: SCHEMA_VERSION,
            chapter: "ch01-blocking".into(),
            title: String::new(),
            created: String::new(),
            quick: false,
            reps: 1,
            seed: 0,
            machine: Machine::here(Some("t".into())),
            build: Build {
                rustc: String::new(),
                opt_level: "3".into(),
                crates: BTreeMap::new(),
                commit: String::new(),
                listing_hash: String::new(),
            },
            params: BTreeMap::from([("workers".to_string(), serde_json::json!(1))]),
            source: None,
            series: vec![
                s("0", "inline", 100_000.0),
                s("0", "spawn_blocking", 100_000.0),
                s("1", "inline", inline_p99),
                s("1", "spawn_blocking", fix_p99),
                s("1", "rayon_lane", fix_p99 * 2.0),
            ],
        }
    }

    #[test]
    fn chapter_one_claim_holds_and_fails_on_the_numbers() {
        assert!(
            claims_of(&record(30_000_000.0, 100_000.0))
                .iter()
                .all(Result::is_ok)
        );
        let failed = claims_of(&record(500_000.0, 100_000.0));
        assert!(
            failed
                .iter()
                .any(|c| c.as_ref().is_err_and(|e| e.contains("5×"))),
            "{failed:?}"
        );
    }
}
