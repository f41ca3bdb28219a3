//! What a run prints: the results table, the comparison with the book's figures (only where the
//! setups match), the book's claims checked on this run, and the cells that ran on a noisy machine.

use crate::claims::{Claim, Claims, Kind, Outcome, Verdict};
use crate::format::{format_metric, format_plain, format_value, never_found_up_to};
use crate::judge::{Role, Tally, judge};
use crate::record::{self, Record, Series};
use crate::{freshness, noise};

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

/// The widest line the comparison prints: a terminal of 100 columns shows it whole.
pub const MAX_WIDTH: usize = 100;

/// One table per experiment: a row per (case, variant), a column per metric, cells from `cell`;
/// a table wider than `max_width` is split in several (see [`split_wide`]).
fn tables(
    record: &Record,
    only: &[&str],
    max_width: Option<usize>,
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
        for part in split_wide(lines, max_width.unwrap_or(usize::MAX)) {
            out.push_str(&align(&part));
        }
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
        Some(MAX_WIDTH),
        title,
        |experiment, case, variant, metric, unit| match record
            .find(experiment, case, variant, metric)
        {
            Some(s) if s.values.len() > 1 => format!(
                "{} [{}–{}]",
                format_metric(s.median, unit, metric),
                format_metric(s.min, unit, metric),
                format_metric(s.max, unit, metric)
            ),
            Some(s) => format_metric(s.median, unit, metric),
            None => String::new(),
        },
    )
}

/// Your medians divided by the book's, for every experiment whose setup matches the book's
/// (worker count, costs, windows, quick or full); the others are named with what differs. Each
/// cell is a ratio alone (see [`ratio_cell`]), and a table wider than [`MAX_WIDTH`] is split, so
/// that a terminal shows it whole; the book's own medians are in its record, named once above.
pub fn render_comparison(mine: &Record, book: &Record, only: &[&str]) -> String {
    let mut out = String::from("\n");
    if let Some(files) = edited_files(mine, book) {
        out.push_str(&wrap(
            &format!(
                "Your listing differs from the one the book measured: {files}. The ratios below \
                 compare your version with the book's."
            ),
            MAX_WIDTH,
        ));
    }
    out.push_str(&wrap(
        &format!(
            "Your machine vs the book's ({}, {} repetitions, {}): your median / book median",
            book.machine.name,
            book.reps,
            book.created.get(..10).unwrap_or(&book.created),
        ),
        MAX_WIDTH,
    ));
    out.push_str(&wrap(
        &format!(
            "(~: within the noise, –: no ratio; the book's medians: data/{}/{}.json)",
            book.machine.name, book.chapter
        ),
        MAX_WIDTH,
    ));
    let title = |experiment: &str| {
        let differences = mine.setup_differences(book, experiment);
        if differences.is_empty() {
            Ok(format!("experiment `{experiment}`\n"))
        } else {
            Err(wrap(
                &format!(
                    "experiment `{experiment}`: not compared, the setups differ ({})",
                    differences.join("; ")
                ),
                MAX_WIDTH,
            ))
        }
    };
    out + &tables(
        mine,
        only,
        Some(MAX_WIDTH),
        title,
        |experiment, case, variant, metric, _| {
            ratio_cell(
                mine.find(experiment, case, variant, metric),
                book.find(experiment, case, variant, metric),
            )
        },
    )
}

/// Your median over the book's, or why there is none: "–" where either record lacks the cell or
/// the book's median is zero; "never here", "never in book" or "never" where a search found
/// nothing (see [`crate::format::format_metric`]); "~" where the ratio is within the noise.
///
/// A ratio of medians says something only where the medians stand above their repetitions'
/// spread. A cell whose repetitions range over more than its median (max − min > |median|) is
/// set by rare events, a preemption or a stolen time slice, more than by the code under test:
/// its median moves by its own size from run to run. Where either record's cell is that wide and
/// the two records' ranges overlap, the ratio is noise and reads "~"; where they do not overlap,
/// every repetition here differs from every one in the book, and the ratio is shown however
/// wide the cells. A run of one repetition has no range of its own: the book's range decides.
fn ratio_cell(mine: Option<&Series>, book: Option<&Series>) -> String {
    let (Some(a), Some(b)) = (mine, book) else {
        return "–".into();
    };
    let never = |s: &Series| never_found_up_to(&s.metric, s.median).is_some();
    match (never(a), never(b)) {
        (true, true) => "never".into(),
        (true, false) => "never here".into(),
        (false, true) => "never in book".into(),
        _ if b.median == 0.0 => "–".into(),
        _ if within_noise(a, b) => "~".into(),
        _ => format_value(a.median / b.median, "×"),
    }
}

/// Either cell ranges over more than its median, and the two ranges overlap (see [`ratio_cell`]).
fn within_noise(a: &Series, b: &Series) -> bool {
    let wide = |s: &Series| s.max - s.min > s.median.abs();
    let overlap = a.min <= b.max && b.min <= a.max;
    (wide(a) || wide(b)) && overlap
}

/// The files of your build that differ from the book's, where an input that shaped the run (the
/// listing, tools/measure-core, profiles, lock file, toolchain) has another hash in the two records:
/// "listings/ch01-blocking/src/main.rs", or the input's name where git cannot tell. `None` when
/// nothing differs, or a record predates per-input hashes.
pub fn edited_files(mine: &Record, book: &Record) -> Option<String> {
    let inputs = freshness::differing_inputs(mine, book);
    if inputs.is_empty() {
        return None;
    }
    let root = record::repo_root();
    let files: Vec<String> = inputs
        .iter()
        .flat_map(|input| freshness::changed_files(&root, input))
        .collect();
    Some(files.join(", "))
}

/// `text` in lines of at most `width` columns, broken between words.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
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
    Some(noise_less_own(
        median(noise::STEAL)?,
        median(noise::OTHERS)?,
        median(noise::OWN_SERVERS).unwrap_or(0.0),
    ))
}

/// The noise of each repetition of one cell, when the record has it.
pub fn repetition_noise(
    rec: &Record,
    experiment: &str,
    case: &str,
    variant: &str,
) -> Option<Vec<noise::Noise>> {
    let values = |metric| {
        rec.find(experiment, case, variant, metric)
            .map(|s| &s.values)
    };
    let own = values(noise::OWN_SERVERS);
    let (steal, others) = (values(noise::STEAL)?, values(noise::OTHERS)?);
    Some(
        steal
            .iter()
            .zip(others)
            .enumerate()
            .map(|(i, (s, o))| {
                let own = own.and_then(|v| v.get(i)).copied().unwrap_or(0.0);
                noise_less_own(*s, *o, own)
            })
            .collect(),
    )
}

/// The listing's own servers are the system under test, not noise.
fn noise_less_own(steal: f64, others: f64, own: f64) -> noise::Noise {
    noise::Noise {
        steal,
        others: (others - own).max(0.0),
    }
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
pub fn claim_noise(claim: &Claim, rec: &Record) -> Option<noise::Noise> {
    claim
        .resolved_cells(rec)
        .iter()
        .filter_map(|(e, c, v)| cell_noise(rec, e, c, v))
        .filter(noise::Noise::is_noisy)
        .max_by(|a, b| a.total().total_cmp(&b.total()))
}

/// The book's claims checked on this run, each with its verdict, its figure and interval here
/// and the book's figure; conclusions counted by verdict, invariants apart. Claims whose
/// experiments ran with a different setup from the book's are checked but not counted. Claims
/// whose experiments did not run (a `--filter` run) are counted as not checked and named in one
/// line at the end, after every claim the run did check; a full run has none.
pub fn render_claims(claims: &Claims, mine: &Record, book: Option<&Record>) -> String {
    if claims.claims.is_empty() {
        return String::new();
    }
    let edited = book.and_then(|b| edited_files(mine, b));
    let mut counted: Vec<(Kind, String)> = Vec::new();
    let mut other_setup = Vec::new();
    let mut not_run: Vec<&Claim> = Vec::new();
    let mut tally = Tally::default();
    for claim in &claims.claims {
        // A reader's run is judged as any machine's: its verdicts, no gate.
        let outcome = judge(claim, mine, Role::Other).outcome;
        if !claim.ran_in(mine) {
            tally.add(claim.kind, &outcome);
            not_run.push(claim);
            continue;
        }
        let differences = claim_setup_differences(claim, mine, book);
        let line = claim_line(
            claim,
            &outcome,
            book.filter(|_| differences.is_empty()),
            failure_notes(claim, &outcome, mine, edited.is_some()),
        );
        if differences.is_empty() {
            tally.add(claim.kind, &outcome);
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
    if let Some(files) = &edited {
        out.push_str(&format!(
            "  (your listing differs from the one the book measured: {files}; the verdicts are about your version)\n"
        ));
    }
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
    let invariants_not_run = not_run.iter().filter(|c| c.is_invariant()).count();
    if tally.invariants > invariants_not_run {
        out.push_str(&format!(
            "Invariants (hold by construction; a broken one is a bug): {}\n",
            tally.invariant_text()
        ));
        for (_, line) in counted.iter().filter(|(k, _)| *k == Kind::Invariant) {
            out.push_str(line);
        }
    }
    out.push_str(&not_run_line(&not_run));
    out
}

/// How the run's setup differs from the book's for the claim's experiments; none for an
/// invariant, which holds on any setup, or without the book's record.
fn claim_setup_differences(claim: &Claim, mine: &Record, book: Option<&Record>) -> Vec<String> {
    let Some(book) = book.filter(|_| !claim.is_invariant()) else {
        return Vec::new();
    };
    let mut differences: Vec<String> = claim
        .experiments_on(mine)
        .iter()
        .flat_map(|e| mine.setup_differences(book, e))
        .collect();
    differences.dedup();
    differences
}

/// A claim's two lines: verdict, id, figure and interval here (and in `book`, when comparable)
/// with `notes`; then its sentence.
fn claim_line(
    claim: &Claim,
    outcome: &Outcome,
    book: Option<&Record>,
    notes: Vec<String>,
) -> String {
    let status = match outcome.verdict {
        Verdict::Held => outcome.word().to_string(),
        _ => outcome.word().to_uppercase(),
    };
    let in_book = match book {
        Some(b) if !claim.is_invariant() => {
            let o = claim.check(b);
            if o.median.is_none() {
                String::new()
            } else {
                format!("; book: {}", o.figure_with_interval())
            }
        }
        _ => String::new(),
    };
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("  [{}]", notes.join("; "))
    };
    format!(
        "  {status:<11} {}: {}{in_book}{notes}\n              {}\n",
        claim.id,
        outcome.summary(),
        claim.says
    )
}

/// Why a claim that was checked and did not hold may have failed: an edited listing, which the
/// book's figures cannot speak for; else the noise of the machine, and whether the book says the
/// claim needs a quiet one.
fn failure_notes(claim: &Claim, outcome: &Outcome, mine: &Record, edited: bool) -> Vec<String> {
    if outcome.held() || !outcome.verdict.judged() {
        return Vec::new();
    }
    if edited {
        return vec!["your listing differs from the one the book measured".to_string()];
    }
    let mut notes = Vec::new();
    if let Some(n) = claim_noise(claim, mine) {
        notes.push(noise_note(&n));
    }
    if claim.quiet {
        notes.push("the book says this one needs a quiet machine".to_string());
    }
    notes
}

/// One line for every claim whose experiments did not run, counted by experiment in the claims'
/// order: "18 claims not checked: ...: heavy_cost 9, lifo 5"; empty when there are none.
fn not_run_line(claims: &[&Claim]) -> String {
    if claims.is_empty() {
        return String::new();
    }
    let mut by_experiment: Vec<(&str, usize)> = Vec::new();
    for claim in claims {
        let experiment = claim.cells()[0].experiment.as_str();
        match by_experiment.iter_mut().find(|(e, _)| *e == experiment) {
            Some((_, n)) => *n += 1,
            None => by_experiment.push((experiment, 1)),
        }
    }
    let counts: Vec<String> = by_experiment
        .iter()
        .map(|(e, n)| format!("{e} {n}"))
        .collect();
    let invariants = claims.iter().filter(|c| c.is_invariant()).count();
    let conclusions = claims.len() - invariants;
    let mut what = Vec::new();
    if conclusions > 0 {
        what.push(count(conclusions, "claim", "claims"));
    }
    if invariants > 0 {
        what.push(count(invariants, "invariant", "invariants"));
    }
    let their = if claims.len() == 1 { "its" } else { "their" };
    format!(
        "Of the not checked above, {}: {their} experiments did not run (`--filter`): {}\n",
        what.join(" and "),
        counts.join(", ")
    )
}

/// "1 claim", "18 claims".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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

/// A table wider than `max_width` as several, each with the rows' names (case and variant) and
/// an even share of the other columns: the fewest tables that fit, or one column each.
fn split_wide(lines: Vec<Vec<String>>, max_width: usize) -> Vec<Vec<Vec<String>>> {
    const NAMES: usize = 2;
    let widths = column_widths(&lines);
    if widths.len() <= NAMES + 1 || table_width(&widths) <= max_width {
        return vec![lines];
    }
    let (names, metrics) = widths.split_at(NAMES);
    let fits = |share: &[usize]| table_width(&[names, share].concat()) <= max_width;
    let share = (1..=metrics.len())
        .map(|tables| metrics.len().div_ceil(tables))
        .find(|&n| metrics.chunks(n).all(fits))
        .unwrap_or(1);
    (NAMES..widths.len())
        .step_by(share)
        .map(|from| {
            let to = (from + share).min(widths.len());
            lines
                .iter()
                .map(|l| l[..NAMES].iter().chain(&l[from..to]).cloned().collect())
                .collect()
        })
        .collect()
}

/// The width of each column: its widest cell.
fn column_widths(lines: &[Vec<String>]) -> Vec<usize> {
    let cols = lines.iter().map(Vec::len).max().unwrap_or(0);
    (0..cols)
        .map(|c| {
            lines
                .iter()
                .filter_map(|l| l.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The width [`align`] prints columns of these widths in: two spaces between them.
fn table_width(widths: &[usize]) -> usize {
    widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)
}

fn align(lines: &[Vec<String>]) -> String {
    let width = column_widths(lines);
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
            text.contains("held        stall: 175× (90% CI 144–200×; claim: ≥ 10×); book: 175× (90% CI 144–200×)"),
            "{text}"
        );
        assert!(
            text.contains("REFUTED     quiet-one: 200 µs (90% CI 150–250 µs; claim: ≤ 100 µs)"),
            "{text}"
        );
        assert!(
            text.contains("NOT SHOWN   near-bound: 200 µs (90% CI 150–250 µs; claim: ≤ 230 µs): most repetitions on the held side, 4 of 5 held; about"),
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
        assert!(same.contains("fix      1.00×\n"), "{same}");
        assert!(
            same.contains("the book's medians: data/test-machine/ch00-test.json"),
            "{same}"
        );
        assert!(!same.contains("noise_"), "noise is not a result: {same}");
    }

    const LIFO_CLAIMS: &str = r#"
[[claim]]
id = "lifo-strands"
says = "the woken task waits"
value = "lifo/5/wake_one/wait"
at-least = "1 ms"

[[claim]]
id = "second-wake-frees"
says = "the first waits less"
ratio = ["lifo/5/wake_two/wait", "lifo/5/wake_one/wait"]
at-most = 0.5

[[invariant]]
id = "lifo-burns"
says = "every burn ran"
value = "lifo/5/wake_one/burns"
at-least = 1
"#;

    #[test]
    fn a_filtered_run_lists_the_claims_it_checked_and_folds_the_rest() {
        let claims = Claims::parse(&format!("{CLAIMS}{LIFO_CLAIMS}")).unwrap();
        let book = run(1.0, 0.0);
        let text = render_claims(&claims, &run(1.0, 30.0), Some(&book));
        assert!(
            text.contains("1 held, 1 not shown, 1 refuted, 3 not checked"),
            "{text}"
        );
        let folded = "Of the not checked above, 2 claims and 1 invariant: their experiments did not run (`--filter`): lifo 3\n";
        assert!(text.ends_with(folded), "after every claim checked: {text}");
        assert_eq!(text.matches("lifo").count(), 1, "one line for all: {text}");
        assert!(
            text.contains("no cell blocking/2/inline/p99"),
            "a claim on an experiment that ran keeps its line: {text}"
        );
        let mut full = run(1.0, 30.0);
        full.series.extend(
            crate::record::tests::sample_with(
                &[],
                &[
                    ("lifo", "5", "wake_one", "wait", "ms", &[5.0; 5]),
                    ("lifo", "5", "wake_two", "wait", "ms", &[0.1; 5]),
                    ("lifo", "5", "wake_one", "burns", "count", &[1.0; 5]),
                ],
            )
            .series,
        );
        let text = render_claims(&claims, &full, Some(&book));
        assert!(!text.contains("did not run"), "{text}");
        assert!(text.contains("second-wake-frees"), "{text}");
    }

    /// Hashes of a record's inputs, with the listing's own as given.
    fn inputs(listing: &str) -> std::collections::BTreeMap<String, String> {
        [
            ("listings/ch00-test", listing),
            ("tools/measure-core", "m"),
            (freshness::LOCK, "l"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    #[test]
    fn an_edited_listing_is_named_and_its_failures_not_blamed_on_noise() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let mut book = run(1.0, 0.0);
        let mut mine = run(1.0, 30.0);
        book.build.inputs = inputs("book");
        mine.build.inputs = inputs("edited");
        // The sketch's commit is no commit git knows: the input's name stands for its files.
        let said = "your listing differs from the one the book measured: listings/ch00-test";
        let comparison = render_comparison(&mine, &book, &[]);
        assert!(
            comparison.starts_with(&format!("\nY{}.", &said[1..])),
            "{comparison}"
        );
        let text = render_claims(&claims, &mine, Some(&book));
        assert!(text.contains(said), "{text}");
        assert!(
            text.contains("REFUTED     quiet-one") && !text.contains("noisy"),
            "{text}"
        );
        assert!(!text.contains("needs a quiet machine"), "{text}");
        assert_eq!(
            text.matches("[your listing differs from the one the book measured]")
                .count(),
            2,
            "the refuted and the not shown: {text}"
        );
        // A record from before per-input hashes cannot tell: nothing is said.
        book.build.inputs.clear();
        assert!(!render_claims(&claims, &mine, Some(&book)).contains("differs"));
        assert!(!render_comparison(&mine, &book, &[]).contains("differs"));
        book.build.inputs = inputs("edited");
        assert!(!render_claims(&claims, &mine, Some(&book)).contains("differs"));
    }

    /// One cell of `values` in a record of its own.
    fn cell(metric: &str, values: &[f64]) -> Record {
        crate::record::tests::sample_with(&[], &[("e", "1", "v", metric, "count", values)])
    }

    #[test]
    fn a_ratio_within_the_noise_reads_as_noise() {
        let ratio =
            |mine: &Record, book: &Record| ratio_cell(mine.series.first(), book.series.first());
        let steady = cell("p99", &[100.0, 110.0, 120.0]);
        assert_eq!(
            ratio(&cell("p99", &[200.0, 220.0, 240.0]), &steady),
            "2.00×"
        );
        // Repetitions that range over more than their median, overlapping the book's: noise.
        let wild = cell("p99", &[10.0, 100.0, 1000.0]);
        assert_eq!(ratio(&wild, &steady), "~");
        assert_eq!(ratio(&steady, &wild), "~");
        assert_eq!(ratio(&cell("p99", &[105.0]), &wild), "~", "one repetition");
        // As wide, but every repetition above the book's: the difference stands out.
        assert_eq!(
            ratio(&cell("p99", &[2000.0, 9000.0, 20000.0]), &steady),
            "81.8×"
        );
        assert_eq!(ratio(&steady, &cell("p99", &[0.0, 0.0, 0.0])), "–");
        assert_eq!(ratio_cell(None, steady.series.first()), "–");
        let never = cell("threshold_items", &[16384.0; 3]);
        let found = cell("threshold_items", &[1024.0; 3]);
        assert_eq!(ratio(&never, &found), "never here");
        assert_eq!(ratio(&found, &never), "never in book");
        assert_eq!(ratio(&never, &never), "never");
    }

    #[test]
    fn a_search_that_found_nothing_is_not_printed_as_a_size() {
        let rec = cell("threshold_items", &[16384.0, 1024.0, 16384.0]);
        let table = render_table(&rec, &[]);
        assert!(
            table.contains("never (≤ 8,192) [1,024–never (≤ 8,192)]"),
            "{table}"
        );
        assert!(!table.contains("16,384"), "{table}");
    }

    /// Each stored record with the busy neighbour's twin as "yours": every chapter's widest case.
    fn stored_pairs() -> Vec<(Record, Record)> {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
        let mut pairs = Vec::new();
        for machine in ["amd-epyc-2c", "intel-xeon-2c"] {
            let mut files: Vec<_> = std::fs::read_dir(data.join(machine))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            for book in files {
                let busy = data
                    .join(format!("{machine}-busy"))
                    .join(book.file_name().unwrap());
                if busy.is_file() {
                    pairs.push((Record::load(&busy).unwrap(), Record::load(&book).unwrap()));
                }
            }
        }
        pairs
    }

    #[test]
    fn every_chapters_comparison_fits_a_terminal() {
        let pairs = stored_pairs();
        assert!(!pairs.is_empty(), "the stored records and their busy twins");
        for (mine, book) in &pairs {
            // Every metric, not only a chapter's headline: the widest the table can be.
            let text = render_comparison(mine, book, &[]);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= MAX_WIDTH,
                    "{}: {} columns: {line}",
                    book.chapter,
                    line.chars().count()
                );
            }
            assert!(!text.contains("16,384"), "{text}");
        }
    }

    #[test]
    fn a_split_table_keeps_the_rows_names_in_each_part() {
        let header: Vec<String> = ["case", "variant", "aaaa", "bbbb", "cccc"]
            .map(String::from)
            .to_vec();
        let row: Vec<String> = ["1", "inline", "1.00×", "2.00×", "3.00×"]
            .map(String::from)
            .to_vec();
        let parts = split_wide(vec![header.clone(), row.clone()], 30);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(parts[0][0], ["case", "variant", "aaaa", "bbbb"]);
        assert_eq!(parts[1][1], ["1", "inline", "3.00×"]);
        assert_eq!(split_wide(vec![header, row], 100).len(), 1);
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
        // Repetition by repetition, the same subtraction.
        let reps = repetition_noise(&rec, "blocking", "1", "fix").unwrap();
        assert!(!reps.is_empty());
        assert!(reps.iter().all(|n| n.others == 5.0), "{reps:?}");
    }
}
