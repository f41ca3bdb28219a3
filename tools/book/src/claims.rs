//! `book check`: every stored record is valid and fresh, and the book's claims (each listing's
//! `claims.toml`) are checked on every machine's records, with their figures. A claim that does
//! not hold on the machine the book takes a chapter's figures from fails the check; on other
//! machines (a reader's, a second machine, a run beside a busy neighbour) it is reported.

use anyhow::{Result, bail};
use measure::claims::{Claims, Verdict};
use measure::record::{self, Record};
use measure::report::{claim_noise, noise_note};
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
    for machine in sorted_entries(&data, |p| p.is_dir())? {
        let machine_name = machine
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        for file in sorted_entries(&machine, |p| p.extension().is_some_and(|e| e == "json"))? {
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
            if rec.machine.name != machine_name {
                failures.push(format!(
                    "{shown}: measured on `{}`, stored under `{machine_name}`",
                    rec.machine.name
                ));
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
                    "{shown}: stale: listings/{} changed since this record (hash {} → {h}); rerun `cargo run -p {} -- --save`, or, if you were only trying an exercise, undo your edits with `git checkout listings/{}`",
                    rec.chapter, rec.build.listing_hash, rec.chapter, rec.chapter
                )),
                Err(e) => failures.push(format!("{shown}: cannot hash listings/{}: {e}", rec.chapter)),
            }
            let claims = match Claims::load(&listing) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let the_books =
                record::reference_machine(root, &rec.chapter).is_some_and(|m| m == machine_name);
            for (line, held) in check_claims(&claims, &rec) {
                let line = format!("{shown}: {line}");
                match (held, the_books) {
                    (true, _) => println!("ok   {line}"),
                    (false, true) => failures.push(line),
                    (false, false) => println!("not  {line} (not the book's machine)"),
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

/// Each claim on `rec`: (a line with its figure, whether it held). A claim whose cells the
/// record lacks counts as not held.
pub fn check_claims(claims: &Claims, rec: &Record) -> Vec<(String, bool)> {
    claims
        .claims
        .iter()
        .map(|claim| {
            let outcome = claim.check(rec);
            let noise = match outcome.verdict {
                Verdict::NotHeld => claim_noise(claim, rec)
                    .map(|n| format!(" [{}]", noise_note(&n)))
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let status = match outcome.verdict {
                Verdict::Held => "claim held",
                Verdict::NotHeld => "claim does not hold",
                Verdict::Missing(_) => "claim cannot be checked",
            };
            (
                format!("{status}: {}: {}{noise}", claim.id, outcome.summary()),
                outcome.held(),
            )
        })
        .collect()
}

fn sorted_entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| keep(p))
        .collect();
    out.sort();
    Ok(out)
}
