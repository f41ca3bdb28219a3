//! What a run prints: the results table, the comparison with the book's figures (only where the
//! setups match), the book's claims checked on this run, and the cells that ran on a noisy machine.

use crate::claims::{Claims, Kind, Verdict};
use crate::format::{format_plain, format_value};
use crate::noise;
use crate::record::{Record, Series};

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
        let wanted = if only.is_empty() {
            !noise::is_noise_metric(&s.metric)
        } else {
            only.contains(&s.metric.as_str())
        };
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
        rows.sort_by(|a, b| {
            let (x, y) = (natural(&a.0), natural(&b.0));
            x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(a.0.cmp(&b.0))
        });
    }
    out
}

/// Sort key that orders "2" before "10" and "0.1" before "1".
fn natural(s: &str) -> (u8, f64) {
    s.parse::<f64>().map_or((1, 0.0), |n| (0, n))
}

/// One table per experiment: a row per (case, variant), a column per metric, cells from `cell`.
fn tables(
    record: &Record,
    only: &[&str],
    title: impl Fn(&str) -> Result<String, String>,
    cell: impl Fn(&str, &str, &str, &str, &str) -> String,
) -> String {
    let mut out = String::new();
    for (experiment, rows, all) in grouped(record) {
        let title = match title(&experiment) {
            Ok(t) => t,
            Err(skipped) => {
                out.push_str(&skipped);
                continue;
            }
        };
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
        out.push_str(&title);
        out.push_str(&align(&lines));
    }
    out
}

/// The results table: median with [min–max] for every metric.
pub fn render_table(record: &Record, only: &[&str]) -> String {
    let title = |experiment: &str| {
        Ok(format!(
            "\n{} — experiment `{experiment}` (median [min–max] of {} repetition(s))\n",
            record.chapter,
            record.reps_of(experiment)
        ))
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

/// Your medians divided by the book's, for every experiment whose setup matches the book's
/// (worker count, costs, windows, quick or full); the others are named with what differs.
pub fn render_comparison(mine: &Record, book: &Record, only: &[&str]) -> String {
    let header = format!(
        "\nYour machine vs the book's ({}, {} repetitions, {}): your median / book median\n",
        book.machine.name,
        book.reps,
        book.created.get(..10).unwrap_or(&book.created)
    );
    let title = |experiment: &str| {
        let differences = mine.setup_differences(book, experiment);
        if differences.is_empty() {
            Ok(format!("experiment `{experiment}`\n"))
        } else {
            Err(format!(
                "experiment `{experiment}`: not compared, the setups differ ({})\n",
                differences.join("; ")
            ))
        }
    };
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

/// The noise of one cell (median over repetitions), when the record has it.
pub fn cell_noise(
    rec: &Record,
    experiment: &str,
    case: &str,
    variant: &str,
) -> Option<noise::Noise> {
    let median = |metric| {
        rec.find(experiment, case, variant, metric)
            .map(|s| s.median)
    };
    // The listing's own servers are the system under test, not noise.
    let own = median(noise::OWN_SERVERS).unwrap_or(0.0);
    Some(noise::Noise {
        steal: median(noise::STEAL)?,
        others: (median(noise::OTHERS)? - own).max(0.0),
    })
}

/// "noisy: 23% of a core taken (steal 3%, other processes 20%)".
pub fn noise_note(n: &noise::Noise) -> String {
    format!(
        "noisy: {} of a core taken (steal {}, other processes {})",
        format_value(n.total(), "%"),
        format_value(n.steal, "%"),
        format_value(n.others, "%")
    )
}

/// The noisiest of the claim's cells on `rec`, if any of them ran on a noisy machine.
pub fn claim_noise(claim: &crate::claims::Claim, rec: &Record) -> Option<noise::Noise> {
    claim
        .resolved_cells(rec)
        .iter()
        .filter_map(|(e, c, v)| cell_noise(rec, e, c, v))
        .filter(noise::Noise::is_noisy)
        .max_by(|a, b| a.total().total_cmp(&b.total()))
}

/// The book's claims checked on this run, each with its verdict, its figure and interval here
/// and the book's figure; conclusions counted by verdict, invariants apart. Claims whose
/// experiments ran with a different setup from the book's are checked but not counted.
pub fn render_claims(claims: &Claims, mine: &Record, book: Option<&Record>) -> String {
    if claims.claims.is_empty() {
        return String::new();
    }
    let mut counted: Vec<(Kind, String)> = Vec::new();
    let mut other_setup = Vec::new();
    let mut tally = Tally::default();
    let mut invariants = Tally::default();
    for claim in &claims.claims {
        let outcome = claim.check(mine);
        let differences: Vec<String> = match book {
            Some(b) if !claim.is_invariant() => {
                let mut exps: Vec<&str> = claim
                    .cells()
                    .iter()
                    .map(|c| c.experiment.as_str())
                    .collect();
                exps.dedup();
                let mut d: Vec<String> = exps
                    .iter()
                    .flat_map(|e| mine.setup_differences(b, e))
                    .collect();
                d.dedup();
                d
            }
            _ => Vec::new(),
        };
        let status = match outcome.verdict {
            Verdict::Held => outcome.word().to_string(),
            _ => outcome.word().to_uppercase(),
        };
        let in_book = match book {
            Some(b) if differences.is_empty() && !claim.is_invariant() => {
                let o = claim.check(b);
                if o.figure.is_empty() {
                    String::new()
                } else {
                    format!("; book: {}", o.figure_with_interval())
                }
            }
            _ => String::new(),
        };
        let mut notes = Vec::new();
        if !outcome.held() && !matches!(outcome.verdict, Verdict::Missing(_)) {
            if let Some(n) = claim_noise(claim, mine) {
                notes.push(noise_note(&n));
            }
            if claim.quiet {
                notes.push("the book says this one needs a quiet machine".to_string());
            }
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  [{}]", notes.join("; "))
        };
        let line = format!(
            "  {status:<11} {}: {}{in_book}{notes}\n              {}\n",
            claim.id,
            outcome.summary(),
            claim.says
        );
        if differences.is_empty() {
            match claim.kind {
                Kind::Invariant => invariants.add(&outcome.verdict),
                Kind::Conclusion => tally.add(&outcome.verdict),
            }
            counted.push((claim.kind, line));
        } else {
            other_setup.push((line, differences));
        }
    }
    let machine = &mine.machine.name;
    let mut out = format!(
        "\nThe book's conclusions on your machine ({machine}): {}",
        tally.text()
    );
    if !other_setup.is_empty() {
        out.push_str(&format!(
            ", {} on a different setup (not counted)",
            other_setup.len()
        ));
    }
    out.push('\n');
    for (_, line) in counted.iter().filter(|(k, _)| *k == Kind::Conclusion) {
        out.push_str(line);
    }
    if !other_setup.is_empty() {
        out.push_str(
            "Checked on your run, but your setup differs from the book's, so the book's figure is not comparable:\n",
        );
        let mut shown = None;
        for (line, differences) in other_setup {
            // Claims on one experiment share their differences: name them once per run of claims.
            let differences = differences.join("; ");
            if shown.as_ref() != Some(&differences) {
                out.push_str(&format!("  ({differences})\n"));
                shown = Some(differences);
            }
            out.push_str(&line);
        }
    }
    if invariants.total() > 0 {
        out.push_str(&format!(
            "Invariants (hold by construction; a broken one is a bug): {}\n",
            invariants.invariant_text()
        ));
        for (_, line) in counted.iter().filter(|(k, _)| *k == Kind::Invariant) {
            out.push_str(line);
        }
    }
    out
}

/// Verdicts counted.
#[derive(Default)]
struct Tally {
    held: usize,
    not_shown: usize,
    refuted: usize,
    unchecked: usize,
}

impl Tally {
    fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Held => self.held += 1,
            Verdict::NotShown => self.not_shown += 1,
            Verdict::Refuted => self.refuted += 1,
            Verdict::Missing(_) => self.unchecked += 1,
        }
    }

    fn total(&self) -> usize {
        self.held + self.not_shown + self.refuted + self.unchecked
    }

    /// "15 held, 2 not shown, 0 refuted", with the unchecked when any.
    fn text(&self) -> String {
        let mut s = format!(
            "{} held, {} not shown, {} refuted",
            self.held, self.not_shown, self.refuted
        );
        if self.unchecked > 0 {
            s.push_str(&format!(", {} not checked", self.unchecked));
        }
        s
    }

    fn invariant_text(&self) -> String {
        let mut s = format!("{} of {} held", self.held, self.total() - self.unchecked);
        if self.refuted > 0 {
            s.push_str(&format!(", {} BROKEN", self.refuted));
        }
        if self.unchecked > 0 {
            s.push_str(&format!(", {} not checked", self.unchecked));
        }
        s
    }
}

/// The cells that ran on a noisy machine, noisiest first, or a line saying none did.
pub fn render_noise(rec: &Record) -> String {
    let mut cells: Vec<(String, noise::Noise)> = Vec::new();
    let mut seen = 0;
    for s in rec.series.iter().filter(|s| s.metric == noise::STEAL) {
        seen += 1;
        if let Some(n) = cell_noise(rec, &s.experiment, &s.case, &s.variant)
            && n.is_noisy()
        {
            cells.push((format!("{}/{}/{}", s.experiment, s.case, s.variant), n));
        }
    }
    if seen == 0 {
        return "\nNoise: not available on this machine (steal and other processes' CPU are read from Linux's /proc/stat).\n".into();
    }
    let limit = format_plain(noise::NOISY_PERCENT_OF_A_CORE, "%");
    if cells.is_empty() {
        return format!(
            "\nNoise: every cell ran on a quiet machine (under {limit} of a core stolen or used by other processes).\n"
        );
    }
    cells.sort_by(|a, b| b.1.total().total_cmp(&a.1.total()));
    let mut out = format!(
        "\nNoise: {} of {seen} cells ran on a noisy machine (over {limit} of a core stolen or used by other processes); compare their figures with care:\n",
        cells.len()
    );
    const SHOWN: usize = 8;
    let more = cells.len().saturating_sub(SHOWN);
    for (cell, n) in cells.into_iter().take(SHOWN) {
        out.push_str(&format!("  {cell}: {}\n", noise_note(&n)));
    }
    if more > 0 {
        out.push_str(&format!("  and {more} more\n"));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    const CLAIMS: &str = r#"
format = 2

[[claim]]
id = "stall"
says = "inline at least 10× the fix"
ratio = ["blocking/1/inline/p99", "blocking/1/fix/p99"]
at-least = 10

[[claim]]
id = "quiet-one"
says = "the fix under 100 µs"
value = "blocking/1/fix/p99"
at-most = "100 µs"
quiet = true

[[claim]]
id = "near-bound"
says = "the fix under 230 µs"
value = "blocking/1/fix/p99"
at-most = "230 µs"

[[claim]]
id = "burst-two"
says = "inline at burst 2 at least 10× the fix"
ratio = ["blocking/2/inline/p99", "blocking/2/fix/p99"]
at-least = 10

[[invariant]]
id = "nothing-lost"
says = "no request lost"
value = "blocking/1/fix/lost"
at-most = 0
"#;

    fn run(workers: f64, noise: f64) -> Record {
        crate::record::tests::sample_with(
            &[("workers", workers)],
            &[
                (
                    "blocking",
                    "1",
                    "inline",
                    "p99",
                    "ns",
                    &[30e6, 35e6, 36e6, 32e6, 34e6],
                ),
                (
                    "blocking",
                    "1",
                    "fix",
                    "p99",
                    "ns",
                    &[150e3, 200e3, 250e3, 180e3, 220e3],
                ),
                ("blocking", "1", "fix", "lost", "count", &[0.0; 5]),
                (
                    "blocking",
                    "1",
                    "fix",
                    noise::STEAL,
                    "%",
                    &[1.0, 2.0, 3.0, 2.0, 2.0],
                ),
                ("blocking", "1", "fix", noise::OTHERS, "%", &[noise; 5]),
            ],
        )
    }

    #[test]
    fn the_claims_report_counts_verdicts_and_explains_the_rest() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let book = run(1.0, 0.0);
        let text = render_claims(&claims, &run(1.0, 30.0), Some(&book));
        assert!(
            text.contains("(test-machine): 1 held, 1 not shown, 1 refuted, 1 not checked"),
            "{text}"
        );
        assert!(
            text.contains("held        stall: 175× (144–200× over 5 repetitions; claim: ≥ 10×); book: 175× (144–200× over 5 repetitions)"),
            "{text}"
        );
        assert!(
            text.contains(
                "REFUTED     quiet-one: 200 µs (150–250 µs over 5 repetitions; claim: ≤ 100 µs)"
            ),
            "{text}"
        );
        assert!(
            text.contains("NOT SHOWN   near-bound: 200 µs (150–250 µs over 5 repetitions; claim: ≤ 230 µs): most repetitions on the held side, 4 of 5 held; about"),
            "{text}"
        );
        assert!(text.contains("noisy: 32.0% of a core taken"), "{text}");
        assert!(text.contains("needs a quiet machine"), "{text}");
        assert!(text.contains("no cell blocking/2/inline/p99"), "{text}");
        assert!(
            text.contains("Invariants (hold by construction; a broken one is a bug): 1 of 1 held"),
            "{text}"
        );
    }

    #[test]
    fn claims_on_another_setup_are_checked_but_not_counted() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let text = render_claims(&claims, &run(2.0, 0.0), Some(&run(1.0, 0.0)));
        assert!(text.contains("0 held, 0 not shown, 0 refuted"), "{text}");
        assert!(text.contains("4 on a different setup"), "{text}");
        assert_eq!(
            text.matches("(workers 2 here, 1 in the book)").count(),
            1,
            "the claims share one setup, named once: {text}"
        );
        assert!(
            !text.contains("book: "),
            "no book figure beside another setup: {text}"
        );
        assert!(
            text.contains("1 of 1 held"),
            "invariants are checked on any setup: {text}"
        );
    }

    #[test]
    fn the_comparison_skips_experiments_whose_setup_differs() {
        let text = render_comparison(&run(2.0, 0.0), &run(1.0, 0.0), &[]);
        assert!(
            text.contains("experiment `blocking`: not compared, the setups differ (workers 2 here, 1 in the book)"),
            "{text}"
        );
        let same = render_comparison(&run(1.0, 0.0), &run(1.0, 0.0), &["p99"]);
        assert!(same.contains("1.00× (34.0 ms)"), "{same}");
        assert!(!same.contains("noise_"), "noise is not a result: {same}");
    }

    #[test]
    fn the_noise_report_names_noisy_cells() {
        assert!(render_noise(&run(1.0, 0.0)).contains("every cell ran on a quiet machine"));
        let noisy = render_noise(&run(1.0, 30.0));
        assert!(
            noisy.contains("1 of 1 cells ran on a noisy machine"),
            "{noisy}"
        );
        assert!(noisy.contains("blocking/1/fix: noisy: 32.0%"), "{noisy}");
        let mut none = run(1.0, 0.0);
        none.series.retain(|s| !noise::is_noise_metric(&s.metric));
        assert!(render_noise(&none).contains("not available"));
    }

    #[test]
    fn a_listings_own_server_is_not_noise() {
        let mut rec = run(1.0, 30.0);
        let mut own = rec
            .series
            .iter()
            .find(|s| s.metric == noise::OTHERS)
            .unwrap()
            .clone();
        own.metric = noise::OWN_SERVERS.into();
        own.values = vec![25.0; own.values.len()];
        own.median = 25.0;
        rec.series.push(own);
        let n = cell_noise(&rec, "blocking", "1", "fix").unwrap();
        assert_eq!(
            n.others, 5.0,
            "30% others, 25% of it the listing's own server"
        );
        assert!(render_noise(&rec).contains("every cell ran on a quiet machine"));
    }
}
