//! `book check`: every stored record is valid and fresh, and the book's claims (each listing's
//! `claims.toml`) are judged on every machine's records, conclusions and invariants apart.
//!
//! Each claim is judged by `records::judge`, with the rules of its record's role there (the book's
//! machine, beside the busy neighbour, any other); a claim that breaks them fails the check.
//!
//! Each conclusion's margin (how far its interval stays from its bound) is printed, and those
//! under [`CLOSE`] on the book's machine are listed at the end.

use anyhow::{Result, bail};
use measure::claims::{Claims, Kind, Outcome, Verdict};
use measure::freshness;
use measure::record::Record;
use measure::report::{claim_noise, noise_note};
use records::judge::{Role, Tally, judge};
use std::path::{Path, PathBuf};

/// Margins under this share of the bound are listed: one noisy rerun could cross them.
pub const CLOSE: f64 = 0.10;

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

/// One chapter's verdicts on one record, for the closing table.
struct Counted {
    shown: String,
    role: Role,
    tally: Tally,
}

/// Checks every record under data/.
pub fn check_all(root: &Path) -> Result<()> {
    let data = root.join("data");
    let mut failures = Vec::new();
    let mut close = Vec::new();
    let mut counted = Vec::new();
    let mut checked = 0;
    let fresh = freshness_of_all(root, &data)?;
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
            if let Some((_, version)) = records::releases::split_folder(&machine_name) {
                let built = rec.build.crates.get("tokio").map_or("none", String::as_str);
                if built != version.as_str() {
                    failures.push(format!(
                        "{shown}: a record of Tokio {version} built with Tokio {built}"
                    ));
                }
            }
            if rec.quick {
                failures.push(format!(
                    "{shown}: a quick run; the book shows full runs only"
                ));
            }
            match fresh.get(&file).cloned().unwrap_or(Ok(None)) {
                Ok(None) if records::releases::split_folder(&machine_name).is_some() => {
                    println!("ok   {shown}: its set's records were measured with the same code")
                }
                Ok(None) if freshness::is_snapshot(root, &machine_name).unwrap_or(false) => {
                    println!(
                        "ok   {shown}: a snapshot of commit {} (not one of the book's machines){}",
                        rec.build.commit,
                        match freshness::stale_inputs(root, &rec) {
                            Ok(c) if !c.is_empty() => format!("; changed since: {}", c.join(", ")),
                            _ => String::new(),
                        }
                    )
                }
                Ok(None) => println!(
                    "ok   {shown}: fresh (inputs hash {})",
                    rec.build.listing_hash
                ),
                Ok(Some(why)) => failures.push(format!("{shown}: stale: {why}")),
                Err(e) => failures.push(format!("{shown}: {e}")),
            }
            let listing = root.join("listings").join(&rec.chapter);
            let claims = match Claims::load(&listing) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let role = Role::for_machine(root, &rec.chapter, &machine_name);
            let mut tally = Tally::default();
            for claim in &claims.claims {
                let judgement = judge(claim, &rec, role);
                let outcome = &judgement.outcome;
                tally.add(claim.kind, outcome);
                let line = format!("{shown}: {}", line(claim, outcome, &rec));
                match &judgement.breach {
                    None => println!("{:<5}{line}", status(outcome)),
                    Some(why) => failures.push(format!("{line} [{}]", why.text())),
                }
                if role == Role::Reference
                    && claim.kind == Kind::Conclusion
                    && outcome.held()
                    && outcome.margin.is_some_and(|m| m < CLOSE)
                {
                    close.push(format!("{shown}: {} {}", claim.id, outcome.margin_text()));
                }
            }
            counted.push(Counted { shown, role, tally });
        }
    }
    if checked == 0 {
        bail!("no records under {}", data.display());
    }
    println!("\nPer record: conclusions held / not shown / refuted, invariants held");
    for c in &counted {
        let t = &c.tally;
        println!(
            "  {}: {}; invariants {} of {} ({})",
            c.shown,
            t.text(),
            t.invariants_held,
            t.invariants,
            c.role.words()
        );
    }
    if close.is_empty() {
        println!(
            "\nEvery conclusion on the book's machines holds with at least {} to spare.",
            pct(CLOSE)
        );
    } else {
        println!(
            "\nConclusions on the book's machines whose interval stays within {} of their bound:",
            pct(CLOSE)
        );
        for c in &close {
            println!("  {c}");
        }
    }
    failures.extend(headlines(root)?);
    if !failures.is_empty() {
        println!();
        for f in &failures {
            println!("FAIL {f}");
        }
        bail!("{} problem(s) in data/", failures.len());
    }
    Ok(())
}

/// The headline gate ([`crate::headline`]) on every machine a chapter's figures come from.
fn headlines(root: &Path) -> Result<Vec<String>> {
    let gate = crate::headline::failures(root)?;
    for pending in &gate.pending {
        println!("PENDING {pending}");
    }
    if gate.failures.is_empty() {
        println!(
            "\nNo claim a chapter's box, rule or the checklist states is refuted on the book's machines{}.",
            match gate.pending.len() {
                0 => String::new(),
                n => format!(" that have its record ({n} pending above)"),
            }
        );
    }
    Ok(gate.failures)
}

fn status(o: &Outcome) -> &'static str {
    match o.verdict {
        Verdict::Held => "ok",
        Verdict::NotShown => "?",
        Verdict::Refuted => "not",
        Verdict::Missing(_) | Verdict::DoesNotApply(_) => "n/a",
    }
}

/// "claim held: stall: 233× (180–300× over 5 repetitions; claim: ≥ 10×), margin +1,700%".
fn line(claim: &measure::claims::Claim, o: &Outcome, rec: &Record) -> String {
    let noise = match o.verdict {
        Verdict::NotShown | Verdict::Refuted => claim_noise(claim, rec)
            .map(|n| format!(" [{}]", noise_note(&n)))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let margin = match (&o.verdict, claim.kind) {
        (Verdict::Held, Kind::Conclusion) => format!(", margin {}", o.margin_text()),
        _ => String::new(),
    };
    let quiet = if claim.quiet { " (quiet)" } else { "" };
    // Where it did not hold, each repetition's own figure: which ones crossed the bound.
    let each = match o.verdict {
        Verdict::NotShown | Verdict::Refuted => format!(
            "; per repetition: {}",
            o.figures
                .iter()
                .map(|x| measure::format::sig3(*x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => String::new(),
    };
    format!(
        "{} {}: {}{quiet}: {}{margin}{each}{noise}",
        claim.kind.name(),
        o.word(),
        claim.id,
        o.summary()
    )
}

fn pct(x: f64) -> String {
    format!("{}%", measure::format::plain(x * 100.0))
}

/// Each measured record's staleness (`freshness::staleness`), two records at a time: each of the
/// book's machines' runs `cargo tree`, a process that keeps one CPU busy.
fn freshness_of_all(
    root: &Path,
    data: &Path,
) -> Result<std::collections::BTreeMap<PathBuf, Result<Option<String>, String>>> {
    let mut records = Vec::new();
    for machine in sorted_entries(data, |p| p.is_dir())? {
        for file in sorted_entries(&machine, |p| p.extension().is_some_and(|e| e == "json"))? {
            if let Ok(rec) = Record::load(&file)
                && rec.source.is_none()
            {
                records.push((file, rec));
            }
        }
    }
    let results = crate::parallel(&records, 2, |(_, rec)| freshness::staleness(root, rec));
    Ok(records.into_iter().map(|(f, _)| f).zip(results).collect())
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
