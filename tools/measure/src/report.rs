//! A run from start to finish: the header, the record, the terminal table, the comparison with
//! the book's stored figures, and the atomic save.

use crate::cli::Cli;
use crate::record::{self, Build, Machine, Record, SCHEMA_VERSION, Series};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One run of one listing.
pub struct Session {
    pub cli: Cli,
    pub chapter: String,
    pub title: String,
    pub listing_dir: PathBuf,
    pub root: PathBuf,
    pub machine: Machine,
    pub seed: u64,
    pub reps: u32,
    crates: Vec<&'static str>,
    headline: Vec<&'static str>,
}

impl Session {
    /// Prints what is about to run and on what. `crates` are the versions the record keeps.
    pub fn start(
        cli: Cli,
        chapter: &str,
        title: &str,
        listing_dir: &Path,
        full_reps: u32,
        crates: &[&'static str],
    ) -> Session {
        if cli.save && cli.quick {
            eprintln!("error: --save stores full runs only; drop --quick (or use --out PATH)");
            std::process::exit(2);
        }
        let machine = Machine::here(cli.machine.clone());
        let seed = cli.seed();
        let reps = cli.reps_or(full_reps);
        eprintln!(
            "{chapter}: {} mode, {reps} repetition(s), order seed {seed} (rerun with --seed {seed})",
            if cli.quick { "quick" } else { "full" }
        );
        eprintln!(
            "machine {}: {}, {} CPUs online, available_parallelism {}, load {:.2}",
            machine.name,
            machine.cpu_model,
            machine.cores_seen,
            machine.available_parallelism,
            machine.load_before[0]
        );
        Session {
            cli,
            chapter: chapter.into(),
            title: title.into(),
            listing_dir: listing_dir.into(),
            root: record::repo_root(),
            machine,
            seed,
            reps,
            crates: crates.to_vec(),
            headline: Vec::new(),
        }
    }

    /// The metrics the terminal tables show (all of them are stored); default: all.
    pub fn show(&mut self, metrics: &[&'static str]) {
        self.headline = metrics.to_vec();
    }

    /// Builds the record, prints it beside the book's figures, and saves it where asked.
    pub fn finish(
        mut self,
        params: BTreeMap<String, serde_json::Value>,
        series: Vec<Series>,
    ) -> Result<Record, String> {
        self.machine.finish();
        let listing_hash = record::listing_hash(&self.listing_dir).map_err(|e| {
            format!(
                "cannot hash the listing's sources in {}: {e}",
                self.listing_dir.display()
            )
        })?;
        let mut crates = record::locked_versions(&self.crates);
        crates.insert("measure".into(), env!("CARGO_PKG_VERSION").into());
        let record = Record {
            schema: SCHEMA_VERSION,
            chapter: self.chapter.clone(),
            title: self.title.clone(),
            created: record::now_rfc3339(),
            quick: self.cli.quick,
            reps: self.reps,
            seed: self.seed,
            machine: self.machine.clone(),
            build: Build {
                rustc: env!("MEASURE_RUSTC").into(),
                opt_level: env!("MEASURE_OPT_LEVEL").into(),
                crates,
                commit: record::git_commit(&self.root, &self.listing_dir),
                listing_hash,
            },
            params,
            source: None,
            series,
        };
        record
            .validate()
            .map_err(|e| format!("the run produced an inconsistent record: {e}"))?;

        print!("{}", render_table(&record, &self.headline));
        let reference = record::reference_machine(&self.root)
            .map(|m| record::record_path(&self.root, &m, &self.chapter));
        match reference.as_deref().map(Record::load) {
            Some(Ok(book)) => print!("{}", render_comparison(&record, &book, &self.headline)),
            Some(Err(e)) => println!("\n(no comparison with the book's figures: {e})"),
            None => println!("\n(no comparison: book.toml names no reference machine)"),
        }

        if self.cli.save {
            if self.cli.quick {
                return Err(
                    "--save stores full runs only; drop --quick (or use --out PATH)".into(),
                );
            }
            let path = record::record_path(&self.root, &record.machine.name, &self.chapter);
            save(&record, &path)?;
        }
        if let Some(path) = &self.cli.out {
            save(&record, path)?;
        }
        Ok(record)
    }
}

fn save(record: &Record, path: &Path) -> Result<(), String> {
    record.save_atomic(path).map_err(|e| {
        format!(
            "could not write {}: {e} (nothing was overwritten)",
            path.display()
        )
    })?;
    eprintln!("saved {}", path.display());
    Ok(())
}

/// The metrics of an experiment in the order they first appear, limited to `only` when the
/// experiment has any of those.
fn metrics_of<'a>(series: &[&'a Series], only: &[&str]) -> Vec<(&'a str, &'a str)> {
    let only = if series.iter().any(|s| only.contains(&s.metric.as_str())) {
        only
    } else {
        &[]
    };
    let mut out: Vec<(&str, &str)> = Vec::new();
    for s in series {
        let wanted = only.is_empty() || only.contains(&s.metric.as_str());
        if wanted && !out.iter().any(|(m, _)| *m == s.metric) {
            out.push((&s.metric, &s.unit));
        }
    }
    out
}

/// One experiment's name, its (case, variant) rows and its series.
type Group<'a> = (String, Vec<(String, String)>, Vec<&'a Series>);

/// Groups series by experiment, then by (case, variant) in first-seen order.
fn grouped(record: &Record) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    for s in &record.series {
        let idx = match out.iter().position(|(e, _, _)| *e == s.experiment) {
            Some(i) => i,
            None => {
                out.push((s.experiment.clone(), Vec::new(), Vec::new()));
                out.len() - 1
            }
        };
        let (_, rows, all) = &mut out[idx];
        let key = (s.case.clone(), s.variant.clone());
        if !rows.contains(&key) {
            rows.push(key);
        }
        all.push(s);
    }
    for (_, rows, _) in &mut out {
        rows.sort_by(|a, b| natural(&a.0).cmp(&natural(&b.0)).then(a.0.cmp(&b.0)));
    }
    out
}

/// Sort key that orders "2" before "10".
fn natural(s: &str) -> (u8, u64) {
    s.parse::<u64>().map_or((1, 0), |n| (0, n))
}

/// One table per experiment: a row per (case, variant), a column per metric, cells from `cell`.
fn tables(
    record: &Record,
    only: &[&str],
    title: impl Fn(&str) -> String,
    cell: impl Fn(&str, &str, &str, &str, &str) -> String,
) -> String {
    let mut out = String::new();
    for (experiment, rows, all) in grouped(record) {
        let metrics = metrics_of(&all, only);
        let mut header = vec!["case".to_string(), "variant".to_string()];
        header.extend(metrics.iter().map(|(m, _)| m.to_string()));
        let mut lines = vec![header];
        for (case, variant) in &rows {
            let mut line = vec![case.clone(), variant.clone()];
            line.extend(
                metrics
                    .iter()
                    .map(|(metric, unit)| cell(&experiment, case, variant, metric, unit)),
            );
            lines.push(line);
        }
        out.push_str(&title(&experiment));
        out.push_str(&align(&lines));
    }
    out
}

/// The results table: median with [min–max] for every metric.
pub fn render_table(record: &Record, only: &[&str]) -> String {
    let title = |experiment: &str| {
        format!(
            "\n{} — experiment `{experiment}` (median [min–max] of {} repetition(s))\n",
            record.chapter, record.reps
        )
    };
    tables(
        record,
        only,
        title,
        |experiment, case, variant, metric, unit| match record
            .find(experiment, case, variant, metric)
        {
            Some(s) if s.values.len() > 1 => format!(
                "{} [{}–{}]",
                format_value(s.median, unit),
                format_value(s.min, unit),
                format_value(s.max, unit)
            ),
            Some(s) => format_value(s.median, unit),
            None => String::new(),
        },
    )
}

/// Your medians divided by the book's, for every cell both records have.
pub fn render_comparison(mine: &Record, book: &Record, only: &[&str]) -> String {
    let header = format!(
        "\nYour machine vs the book's ({}, {} repetitions, {}): your median / book median\n",
        book.machine.name, book.reps, book.created
    );
    let title = |experiment: &str| format!("experiment `{experiment}`\n");
    header
        + &tables(
            mine,
            only,
            title,
            |experiment, case, variant, metric, unit| match (
                mine.find(experiment, case, variant, metric),
                book.find(experiment, case, variant, metric),
            ) {
                (Some(a), Some(b)) if b.median != 0.0 => format!(
                    "{:.2}× ({})",
                    a.median / b.median,
                    format_value(b.median, unit)
                ),
                _ => "–".into(),
            },
        )
}

fn align(lines: &[Vec<String>]) -> String {
    let cols = lines.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            lines
                .iter()
                .filter_map(|l| l.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(c, s)| format!("{s:<w$}", w = width[c]))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(
                &width
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  "),
            );
            out.push('\n');
        }
    }
    out
}

/// Formats a value for a human: times scale to ns, µs, ms or s; sizes to B, KiB, MiB; rates get
/// thousands separators; about three significant digits.
pub fn format_value(value: f64, unit: &str) -> String {
    if let Some(s) = seconds(value, unit) {
        let a = s.abs();
        let (v, u) = if a == 0.0 {
            (0.0, "µs")
        } else if a < 1e-6 {
            (s * 1e9, "ns")
        } else if a < 1e-3 {
            (s * 1e6, "µs")
        } else if a < 1.0 {
            (s * 1e3, "ms")
        } else {
            (s, "s")
        };
        return format!("{} {u}", sig3(v));
    }
    match unit {
        "B" => {
            let (v, u) = if value.abs() >= 1024.0 * 1024.0 {
                (value / (1024.0 * 1024.0), "MiB")
            } else if value.abs() >= 1024.0 {
                (value / 1024.0, "KiB")
            } else {
                (value, "B")
            };
            format!("{} {u}", sig3(v))
        }
        "MiB" => format!("{} MiB", sig3(value)),
        "%" => format!("{}%", sig3(value)),
        "x" | "×" => format!("{}×", sig3(value)),
        "" | "count" => sig3(value),
        other => format!("{} {other}", sig3(value)),
    }
}

/// A time in seconds, if `unit` is a unit of time.
pub fn seconds(value: f64, unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(value * 1e-9),
        "us" | "µs" => Some(value * 1e-6),
        "ms" => Some(value * 1e-3),
        "s" => Some(value),
        _ => None,
    }
}

/// About three significant digits, with thousands separators and no needless decimals.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    let decimals = if a == 0.0 || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else if a >= 0.1 {
        3
    } else {
        4
    };
    let s = format!("{v:.decimals$}");
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_with_their_natural_unit() {
        assert_eq!(format_value(35_300_000.0, "ns"), "35.3 ms");
        assert_eq!(format_value(78.7, "us"), "78.7 µs");
        assert_eq!(format_value(1006.6, "ms"), "1.01 s");
        assert_eq!(format_value(166.1, "ns"), "166 ns");
        assert_eq!(format_value(0.0, "ms"), "0 µs");
    }

    #[test]
    fn formats_other_units() {
        assert_eq!(format_value(1_234_567.0, "msg/s"), "1,234,567 msg/s");
        assert_eq!(format_value(13.9, "%"), "13.9%");
        assert_eq!(format_value(448.2, "x"), "448×");
        assert_eq!(format_value(3.0 * 1024.0 * 1024.0, "B"), "3.00 MiB");
        assert_eq!(sig3(-1234.0), "-1,234");
        assert_eq!(sig3(0.01234), "0.0123");
    }
}
