//! Claims where the prose states them (`claim`), a chapter's list of them (`claims`), its verdicts
//! in a sentence (`verdicts`) and for its first screen (`verdict-summary`), beside a busy
//! neighbour (`busy`), and the confidence the verdicts ask for (`coverage`).

use super::class::class_row_anchor;
use super::count_cells;
use crate::data::{Data, Which};
use crate::esc;
use measure::claims::Verdict;
use measure::format::format_plain;
use measure::record::Record;
use measure::report::{claim_noise, noise_note};
use records::judge::{Tally, judge};
use serde::Deserialize;

/// `claim`: a claim of the listing's claims.toml (`id=`), judged where the prose states it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Claim {
    #[serde(rename = "*")]
    which: Which,
    id: String,
    #[serde(default)]
    show: Show,
}

choice! {
    /// How `claim` shows a claim.
    #[derive(Default)]
    enum Show {
        #[default]
        Figure = "figure",
        Short = "short",
        Mark = "mark",
        Answer = "answer",
    }
}

/// `claims`: a chapter's checked claims, for its end.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Claims {
    #[serde(rename = "*")]
    pub which: Which,
}

/// `verdicts`: a record's verdicts in one sentence.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Verdicts {
    #[serde(rename = "*")]
    which: Which,
}

/// `verdict-summary`: a chapter's verdicts for its first screen.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct VerdictSummary {
    #[serde(rename = "*")]
    which: Which,
}

/// `busy`: claims on the chapter's machine quiet and beside a busy neighbour (`machine=`, the
/// busy machine's folder under data/), one row each of `ids=`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Busy {
    record: String,
    machine: String,
    ids: Vec<String>,
}

/// `coverage`: the confidence the verdicts ask for, or what an interval over `reps=`
/// repetitions covers.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Coverage {
    reps: Option<usize>,
}

/// A claim, checked where it is stated: its figure with the interval its verdict was judged on
/// (or a mark), with the claim in the hover text. On the book's own machine a conclusion that is
/// not *held*, or a broken invariant, fails the build; on another machine the verdict is shown
/// beside the figure.
pub(super) fn claim(data: &Data, d: &Claim) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let record = d.which.record.as_str();
    let id = d.id.as_str();
    let claims = data.claims(record)?;
    let claim = claims.get(id).ok_or_else(|| {
        format!(
            "no claim `{id}` in listings/{record}/claims.toml; it has: {}",
            claims.ids().join(", ")
        )
    })?;
    let show = d.show;
    data.note_claim_used(record, id);
    let machine = &r.machine;
    let judgement = judge(claim, &r.record, data.role(machine, record));
    let outcome = judgement.outcome;
    let noisy = claim_noise(claim, &r.record);
    let noise = noisy
        .as_ref()
        .map(|n| format!(" ({})", noise_note(n)))
        .unwrap_or_default();
    // A conditional claim prints its condition wherever it is stated, in a headline too: inside
    // the figure's parentheses or beside its mark, so that a sentence reads on around it.
    let condition = claim.condition.as_ref().map(|c| {
        format!(
            "<span class=\"claim-condition\">on machines {}</span>",
            esc(&c.text())
        )
    });
    let title = format!(
        "Checked {}: {}{}. On {machine}: {}, {}{noise}.",
        claim.kind.name(),
        claim.says,
        claim
            .condition
            .as_ref()
            .map(|c| format!(" ({})", c.judged_only()))
            .unwrap_or_default(),
        outcome.word(),
        outcome.summary()
    );
    // The build holds the book to the same rules as `book check` (`records::judge`).
    if let Some(why) = &judgement.breach {
        return Err(format!(
            "{} `{id}` is {} on {machine}, {}: {}{noise} [{}]. The sentence says: {}",
            claim.kind.name(),
            outcome.word(),
            data.role(machine, record).words(),
            outcome.summary(),
            why.text(),
            claim.says
        ));
    }
    let Some((class, sign)) = verdict_mark(&outcome.verdict) else {
        return Ok(format!(
            "<span class=\"measure-na\" title=\"{}\">n/a</span>",
            esc(&format!(
                "Claim `{id}` {} on {machine}: {}",
                outcome.word(),
                outcome.summary()
            ))
        ));
    };
    // The figure links to the claim's entry in its chapter's list: its verdict without a mouse.
    let href = claim_href(data, record, id);
    // Beside a verdict other than held: what it was, on which machine, against which bound, and
    // how it failed (a near miss reads differently from a reversal); a link to its entry.
    let verdict = if outcome.held() {
        String::new()
    } else {
        let how = claim
            .failure(&outcome)
            .map(|f| format!("; {}", f.text()))
            .unwrap_or_default();
        let (tag, attr) = match &href {
            Some(href) => ("a", format!(" href=\"{href}\"")),
            None => ("span", String::new()),
        };
        // A verdict on another machine than the page's (the busy rerun): the sentence around it
        // is not marked as failing here.
        let elsewhere = if *machine != data.page_machine(record) {
            " elsewhere"
        } else {
            ""
        };
        format!(
            " <{tag} class=\"claim-verdict {class}{elsewhere}\"{attr}>{sign} {} on {} (claim: {}{how}){}</{tag}>",
            outcome.word(),
            esc(machine),
            esc(&outcome.bound),
            // Said only where the run was noisy: on a quiet machine the excuse does not apply.
            if claim.quiet && noisy.is_some() {
                " (a claim for a quiet machine, on a noisy run)"
            } else {
                ""
            }
        )
    };
    let figure = claim_link(data, record, id, class, &title, &esc(&outcome.figure()));
    // A checklist's magnitude: the figure alone (its interval is one link away).
    if show == Show::Short {
        let condition = condition.map(|c| format!(" ({c})")).unwrap_or_default();
        return Ok(format!("{figure}{condition}{verdict}"));
    }
    let figure = format!(
        "{figure} <span class=\"claim-interval\">({}{})</span>",
        esc(&outcome.interval_text()),
        condition
            .as_ref()
            .map(|c| format!("; {c}"))
            .unwrap_or_default()
    );
    Ok(match show {
        // An exercise's folded answer: the claim's id and sentence beside its figure, in plain view.
        Show::Answer => format!(
            "<code>{}</code>: {figure} {sign}{verdict} {} ({}: {})",
            esc(id),
            esc(&claim.says),
            claim.kind.name(),
            esc(&outcome.bound)
        ),
        // A mark alone where the claim held; where it did not, the verdict itself (a link).
        Show::Mark if !outcome.held() => verdict.trim_start().to_string(),
        Show::Mark => {
            let (tag, href) = match &href {
                Some(href) => ("a", format!(" href=\"{href}\"")),
                None => ("span", String::new()),
            };
            format!(
                "<{tag} class=\"claim-mark {class}\"{href} title=\"{}\" aria-label=\"checked claim: {}\">✓</{tag}>{}",
                esc(&title),
                outcome.word(),
                condition.map(|c| format!(" {c}")).unwrap_or_default()
            )
        }
        _ => format!("{figure}{verdict}"),
    })
}

/// The anchor of a claim's entry in its chapter's list, unique across the book (print.html holds
/// every chapter).
fn claim_anchor(record: &str, id: &str) -> String {
    format!("claim-{}-{}", esc(record), esc(id))
}

/// Where a claim's entry is, if a page lists its chapter's claims.
pub(super) fn claim_href(data: &Data, record: &str, id: &str) -> Option<String> {
    data.claim_list_page(record)
        .map(|page| format!("{}#{}", esc(page), claim_anchor(record, id)))
}

/// A verdict's CSS class and sign; none for a claim that could not be checked.
pub(super) fn verdict_mark(v: &Verdict) -> Option<(&'static str, &'static str)> {
    match v {
        Verdict::Held => Some(("held", "✓")),
        Verdict::NotShown => Some(("not-shown", "?")),
        Verdict::Refuted => Some(("not-held", "✗")),
        Verdict::Missing(_) | Verdict::DoesNotApply(_) => None,
    }
}

/// A chapter's checked claims (`\{{#measure claims record=R}}`), for its end: each conclusion's
/// sentence, figure with its interval, bound and verdict on the page's machine, then the
/// invariants; what a reader without a mouse, and paper, sees of them. Listing a claim does not
/// state it: a claim still needs its sentence in the prose.
pub(super) fn claims_list(data: &Data, d: &Claims) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let record = d.which.record.as_str();
    let claims = data.claims(record)?;
    let entry = |c: &measure::claims::Claim| {
        let outcome = judge(c, &r.record, data.role(&r.machine, record)).outcome;
        let (class, sign) = verdict_mark(&outcome.verdict).unwrap_or(("not-checked", "–"));
        let figure = match &outcome.verdict {
            Verdict::Missing(why) | Verdict::DoesNotApply(why) => esc(why),
            _ => format!(
                "{} <span class=\"claim-interval\">({})</span>; {}: {}",
                esc(&outcome.figure()),
                esc(&outcome.interval_text()),
                c.kind.name(),
                esc(&outcome.bound)
            ),
        };
        let notes = claim_notes(data, record, c, &outcome, &r.record);
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("<span class=\"depends\">{}</span>", notes.join("; "))
        };
        (
            outcome.held(),
            format!(
                "<li id=\"{}\"><span class=\"claims-verdict {class}\">{sign} {}</span> <code>{}</code>: {}. <span class=\"claims-figure\">{figure}</span>{notes}</li>",
                claim_anchor(record, &c.id),
                outcome.word(),
                esc(&c.id),
                esc(&c.says)
            ),
        )
    };
    let conclusions: Vec<(bool, String)> = claims.conclusions().map(entry).collect();
    let invariants: Vec<(bool, String)> = claims.invariants().map(entry).collect();
    let mut html = format!(
        "<div class=\"claims-list\">\n<p class=\"claims-total\">On {}: {}.</p>\n<ol class=\"claims\">\n",
        esc(&r.machine),
        held_of(&Tally::of(&claims, &r.record))
    );
    for (_, li) in &conclusions {
        html.push_str(li);
        html.push('\n');
    }
    html.push_str("</ol>\n");
    if !invariants.is_empty() {
        let ok = invariants.iter().filter(|(h, _)| *h).count();
        html.push_str(&format!(
            "<p class=\"claims-total\">Sanity checks (invariants: a run that breaks one saves nothing): {ok} of {} held.</p>\n<ol class=\"claims invariants\">\n",
            invariants.len()
        ));
        for (_, li) in &invariants {
            html.push_str(li);
            html.push('\n');
        }
        html.push_str("</ol>\n");
    }
    html.push_str("</div>\n");
    Ok(html)
}

/// What a claim's entry says beside its figure: how it failed where it did (the interval against
/// the bound, what would decide it, the command that reruns it), whether it needs a quiet machine
/// and whether this run was one, what it depends on, and a link to it on every machine.
fn claim_notes(
    data: &Data,
    record: &str,
    c: &measure::claims::Claim,
    outcome: &measure::claims::Outcome,
    rec: &Record,
) -> Vec<String> {
    let mut notes = Vec::new();
    // A pattern's cells differ from record to record: the pattern as written, and how many
    // cells it read on this one (the bound counts them too: "in each of 31").
    let patterns: Vec<String> = c
        .cells()
        .iter()
        .filter(|cell| cell.is_pattern())
        .map(|cell| format!("<code>{}</code>", esc(&cell.to_string())))
        .collect();
    if !patterns.is_empty() {
        let read = match c.cells_on(rec) {
            Ok(cells) => format!(", {} on this run", count_cells(cells.len())),
            Err(_) => String::new(),
        };
        notes.push(format!(
            "cells: every one matching {}{read}",
            patterns.join(", ")
        ));
    }
    let how = c
        .failure(outcome)
        .map(|f| esc(&f.text()))
        .unwrap_or_default();
    let rerun = format!(
        "rerun: <code>{}</code>",
        esc(&rerun_command(record, c, rec))
    );
    match outcome.verdict {
        Verdict::NotShown => {
            notes.push(format!("{how} ({}); {rerun}", esc(&outcome.decide_text())))
        }
        Verdict::Refuted => notes.push(format!(
            "{how}; the whole interval lies on the wrong side of the bound; {rerun}"
        )),
        _ => {}
    }
    if c.quiet {
        notes.push(match claim_noise(c, rec) {
            _ if outcome.held() => "needs a quiet machine".to_string(),
            Some(n) => format!(
                "needs a quiet machine, and this run was {}",
                esc(&noise_note(&n))
            ),
            None => "needs a quiet machine (this run was not noisy)".to_string(),
        });
    }
    if let Some(condition) = &c.condition {
        notes.push(esc(&condition.judged_only()));
    }
    if let Some(on) = &c.depends_on {
        notes.push(format!("depends on {}", esc(on)));
    }
    if let Some(page) = data.class_page(record) {
        notes.push(format!(
            "<a href=\"{}#{}\">on every machine</a>",
            esc(page),
            class_row_anchor(record, &c.id)
        ));
    }
    notes
}

/// A chapter's verdicts for its first screen (`\{{#measure verdict-summary record=R}}`): "On
/// MACHINE: N of M conclusions held", and for each one that did not hold there its sentence,
/// figure, bound, how it failed, what it depends on, the command that reruns it and a link to
/// its entry in the chapter's list.
pub(super) fn verdict_summary(data: &Data, d: &VerdictSummary) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let record = d.which.record.as_str();
    let claims = data.claims(record)?;
    let mut failed = Vec::new();
    let mut tally = Tally::default();
    for c in claims.conclusions() {
        let outcome = judge(c, &r.record, data.role(&r.machine, record)).outcome;
        tally.add(c.kind, &outcome);
        // Not measured there: counted by the claims list, not judged here.
        let Some((class, sign)) = verdict_mark(&outcome.verdict) else {
            continue;
        };
        if outcome.held() {
            continue;
        }
        let notes = claim_notes(data, record, c, &outcome, &r.record);
        let entry = match claim_href(data, record, &c.id) {
            Some(href) => format!(" <a href=\"{href}\">its entry</a>"),
            None => String::new(),
        };
        failed.push(format!(
            "<li><span class=\"claims-verdict {class}\">{sign} {}</span> {}: <strong>{}</strong> ({}; claim: {}).{entry}<span class=\"depends\">{}</span></li>",
            outcome.word(),
            esc(&c.says),
            esc(&outcome.figure()),
            esc(&outcome.interval_text()),
            esc(&outcome.bound),
            notes.join("; ")
        ));
    }
    if tally.judged() == 0 {
        return Ok(String::new());
    }
    // A claim's ratio is the median of its per-repetition ratios (records::claims): said once,
    // so that a reader who divides two medians on the page is not left with a discrepancy.
    let spread_note = spread_note(&claims);
    let mut html = format!(
        "<p class=\"verdict-summary\"><strong>On {}: {}.</strong> <span class=\"ratio-note\">A ratio here is the median of the ratios in each repetition, so it can differ from the ratio of two medians shown beside it.{spread_note}</span>",
        esc(&r.machine),
        held_of(&tally)
    );
    if failed.is_empty() {
        html.push_str("</p>\n");
    } else {
        html.push_str(" These did not:</p>\n<ul class=\"verdict-summary\">\n");
        html.push_str(&failed.join("\n"));
        html.push_str("\n</ul>\n");
    }
    html.push_str(&elsewhere(data, record, &r.machine, &claims));
    Ok(html)
}

/// A spread has no direction: said where a chapter has one, so that "within 1.08×" beside two
/// nearly equal medians reads as the spread it is.
fn spread_note(claims: &records::claims::Claims) -> &'static str {
    if claims
        .conclusions()
        .any(|c| matches!(c.test, records::claims::Test::Spread(..)))
    {
        " A spread is the larger of two figures over the smaller in each repetition, whichever it was."
    } else {
        ""
    }
}

/// The same conclusions on the book's other machines and beside the busy neighbour, each
/// counted apart, with every one refuted there named and its figure: a headline that holds on
/// one machine only says so on the first screen. A machine without the chapter's own record is
/// judged on its record of the Tokio release the chapter pins (the release matrix's, with fewer
/// repetitions, as the sentence says). Not in a reader's book, whose machine is the one shown.
fn elsewhere(data: &Data, record: &str, shown: &str, claims: &measure::claims::Claims) -> String {
    if data.reader().is_some() {
        return String::new();
    }
    let busy = records::chapter::busy_machine_of(data.reference_for(record));
    let mut machines = data.book_machines();
    machines.push(busy.clone());
    let mut lines = Vec::new();
    for machine in machines.iter().filter(|m| *m != shown) {
        let place = |which: &str| match (*machine == busy, which) {
            (true, "") => "Beside a busy neighbour".to_string(),
            (true, _) => format!("Beside a busy neighbour ({}, {which})", esc(machine)),
            (false, "") => format!("On {}", esc(machine)),
            (false, _) => format!("On {} ({which})", esc(machine)),
        };
        let Some((rec, folder)) = data.record_at_pin(machine, record) else {
            lines.push(format!("{}: not measured yet.", place("")));
            continue;
        };
        let mut tally = Tally::default();
        let mut refuted = Vec::new();
        let mut all_quiet = true;
        for c in claims.conclusions() {
            let outcome = judge(c, &rec, data.role(&folder, record)).outcome;
            tally.add(c.kind, &outcome);
            if outcome.verdict == Verdict::Refuted {
                all_quiet &= c.quiet;
                let quiet = if c.quiet {
                    " (needs a quiet machine)"
                } else {
                    ""
                };
                // The claim's sentence, not its id: a reader learns what failed, not its name.
                let figure = format!("{}{quiet}", esc(&outcome.figure()));
                refuted.push(match claim_href(data, record, &c.id) {
                    Some(href) => format!("“<a href=\"{href}\">{}</a>” ({figure})", esc(&c.says)),
                    None => format!("“{}” ({figure})", esc(&c.says)),
                });
            }
        }
        let which = if folder == *machine {
            format!("{} repetitions", rec.reps)
        } else {
            format!(
                "Tokio {} in the release matrix, {} repetitions",
                esc(rec.build.crates.get("tokio").map_or("?", String::as_str)),
                rec.reps
            )
        };
        let mut line = format!("{}: {}", place(&which), held_of(&tally));
        // Beside the busy neighbour a claim marked as needing a quiet machine is expected to
        // fail: counted, and named on the Machines page, not listed on the first screen.
        if tally.refuted > 0 && *machine == busy && all_quiet {
            // Named as the refuted ones: the not shown beside it may be any claim.
            line.push_str(if tally.refuted == 1 {
                " (marked as needing a quiet machine)"
            } else {
                " (each marked as needing a quiet machine)"
            });
        } else if tally.refuted > 0 {
            line.push_str(&format!("; refuted there: {}", refuted.join("; ")));
        }
        lines.push(line + ".");
    }
    if lines.is_empty() {
        return String::new();
    }
    let every = data.class_page(record).map_or(String::new(), |page| {
        format!(
            " <a href=\"{}#{}\">Every claim on every machine</a>.",
            esc(page),
            super::class::class_anchor(record)
        )
    });
    // One machine a paragraph; the link closes the last.
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let link = if i == last { every.as_str() } else { "" };
            format!("<p class=\"verdict-summary elsewhere\">{line}{link}</p>\n")
        })
        .collect()
}

/// Claims on the chapter's machine, quiet and beside a busy neighbour
/// (`\{{#measure busy record=R machine=BUSY ids=a,b}}`): one row a claim, its sentence, its
/// figure and verdict on each; both columns the book's machine, in a reader's book too.
pub(super) fn busy(data: &Data, d: &Busy) -> Result<String, String> {
    let record = d.record.as_str();
    let busy = d.machine.as_str();
    let ids: Vec<&str> = d.ids.iter().map(String::as_str).collect();
    let quiet = data.reference_for(record).to_string();
    let claims = data.claims(record)?;
    let records = [data.record(&quiet, record)?, data.record(busy, record)?];
    let mut rows = String::new();
    for id in &ids {
        let c = claims.get(id).ok_or_else(|| {
            format!(
                "no claim `{id}` in listings/{record}/claims.toml; it has: {}",
                claims.ids().join(", ")
            )
        })?;
        data.note_claim_used(record, id);
        let href = claim_href(data, record, id);
        let mut cells = String::new();
        for rec in &records {
            // Judged by the rules of each record's role, as `book check` judges them.
            let judgement = judge(c, rec, data.role(&rec.machine.name, record));
            if let Some(why) = &judgement.breach {
                return Err(format!(
                    "{} `{id}` on {}: {} [{}]",
                    c.kind.name(),
                    rec.machine.name,
                    judgement.outcome.summary(),
                    why.text()
                ));
            }
            let o = judgement.outcome;
            let (class, sign) = verdict_mark(&o.verdict).unwrap_or(("not-checked", "–"));
            let figure = match &href {
                Some(h) => format!(
                    "<a class=\"claim {class}\" href=\"{h}\">{}</a>",
                    esc(&o.figure())
                ),
                None => esc(&o.figure()),
            };
            cells.push_str(&format!(
                "<td>{figure} <span class=\"claims-verdict {class}\">{sign} {}</span></td>",
                o.word()
            ));
        }
        let quiet_mark = if c.quiet {
            " <em>(needs a quiet machine)</em>"
        } else {
            ""
        };
        rows.push_str(&format!(
            "<tr><td>{}{quiet_mark}</td>{cells}</tr>\n",
            esc(&c.says)
        ));
    }
    Ok(format!(
        "<div class=\"measure-table\"><table class=\"measure busy\"><thead><tr><th>claim</th><th>quiet: {}</th><th>beside a busy neighbour: {}</th></tr></thead>\n<tbody>\n{rows}</tbody></table></div>\n",
        esc(&quiet),
        esc(busy)
    ))
}

/// The command that reruns the experiments a claim reads on `rec`; its report judges the claim
/// again (no `--save`: a filtered run would replace the machine's whole record).
fn rerun_command(record: &str, c: &measure::claims::Claim, rec: &Record) -> String {
    let mut experiments = c.experiments_on(rec);
    experiments.sort_unstable();
    experiments.dedup();
    let filters: String = experiments
        .iter()
        .map(|e| format!(" --filter {e}"))
        .collect();
    format!("cargo run -p {record} --{filters}")
}

/// The confidence the verdicts ask for (`\{{#measure coverage}}`: "90%"), or what the interval
/// from `reps` repetitions actually covers (`reps=5`: "93.8%"), from `measure::verdict`.
pub(super) fn coverage(_: &Data, d: &Coverage) -> Result<String, String> {
    let level = match d.reps {
        None => measure::verdict::CONFIDENCE,
        Some(n) => {
            let figures: Vec<f64> = (0..n).map(|i| i as f64).collect();
            measure::verdict::median_interval(&figures)
                .ok_or_else(|| {
                    format!(
                        "reps={n}: fewer than {} repetitions give no interval",
                        measure::verdict::MIN_REPETITIONS
                    )
                })?
                .coverage
        }
    };
    Ok(format_plain(level * 100.0, "%"))
}

/// A record's verdicts in plain words: "all 22 conclusions and both invariants held", or "15 of 19
/// conclusions held; 3 were not shown (`a`, `b`, `c`) and 1 was refuted (`d` (quiet)); all 4
/// invariants held" ([`verdicts_text`]).
pub(super) fn verdicts(data: &Data, d: &Verdicts) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let record = d.which.record.as_str();
    let claims = data.claims(record)?;
    let (mut tally, mut not_shown, mut refuted) = (Tally::default(), Vec::new(), Vec::new());
    for c in &claims.claims {
        let outcome = judge(c, &r.record, data.role(&r.machine, record)).outcome;
        tally.add(c.kind, &outcome);
        // Each name links to the claim's entry, where its sentence, figure and bound are.
        let code = format!("<code>{}</code>", esc(&c.id));
        let mut named = match claim_href(data, record, &c.id) {
            Some(href) => format!("<a href=\"{href}\" title=\"{}\">{code}</a>", esc(&c.says)),
            None => code,
        };
        if c.quiet {
            named.push_str(" (quiet)");
        }
        match (c.is_invariant(), outcome.verdict) {
            (false, Verdict::NotShown) => not_shown.push(named),
            (false, Verdict::Refuted) => refuted.push(named),
            _ => {}
        }
    }
    Ok(format!(
        "<span class=\"verdicts\" title=\"on {}\">{}</span>",
        esc(&r.machine),
        verdicts_text(&tally, &not_shown, &refuted)
    ))
}

/// The words of [`verdicts`]: the conclusions that held, those that did not by verdict with
/// their names (HTML), those the record could not judge, and the invariants.
fn verdicts_text(t: &Tally, not_shown: &[String], refuted: &[String]) -> String {
    if t.judged() == 0 {
        return format!(
            "none of its {} conclusions could be judged there",
            t.conclusions()
        );
    }
    let invariants = t.invariants_held + t.invariants_broken;
    let all_held = t.held == t.judged();
    let unjudged = unjudged_text(t);
    // The short form where nothing needs a clause of its own.
    if all_held && unjudged.is_empty() && invariants > 0 && t.invariants_broken == 0 {
        return format!(
            "{} and {} held",
            all_of(t.held, "conclusion", "conclusions"),
            all_of(invariants, "invariant", "invariants")
        );
    }
    let mut text = if all_held {
        format!(
            "{} held{unjudged}",
            all_of(t.held, "conclusion", "conclusions")
        )
    } else {
        let mut parts = Vec::new();
        for (n, names, verdict) in [
            (t.not_shown, not_shown, "not shown"),
            (t.refuted, refuted, "refuted"),
        ] {
            if n > 0 {
                let verb = if n == 1 { "was" } else { "were" };
                parts.push(format!("{n} {verb} {verdict} ({})", names.join(", ")));
            }
        }
        format!(
            "{} of {} conclusions held{unjudged}; {}",
            t.held,
            t.judged(),
            parts.join(" and ")
        )
    };
    if invariants > 0 && t.invariants_broken == 0 {
        text.push_str(&format!(
            "; {} held",
            all_of(invariants, "invariant", "invariants")
        ));
    } else if invariants > 0 {
        text.push_str(&format!(
            "; {} of {invariants} invariants held, {} broken",
            t.invariants_held, t.invariants_broken
        ));
    }
    text
}

/// "the one conclusion", "both conclusions", "all 22 conclusions".
fn all_of(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("the one {one}"),
        2 => format!("both {many}"),
        n => format!("all {n} {many}"),
    }
}

/// "15 of 17 conclusions held", with those the record could not judge: what a chapter's first
/// screen and its list of claims both say.
/// "27 of 27 conclusions held", "16 of 24 conclusions held, 8 not shown, none refuted": where
/// some did not hold, how many were not shown and how many refuted, so that "not held" is not
/// read as "refuted".
fn held_of(t: &Tally) -> String {
    let rest = if t.held == t.judged() {
        String::new()
    } else {
        let refuted = match t.refuted {
            0 => "none refuted".to_string(),
            n => format!("{n} refuted"),
        };
        format!(", {} not shown, {refuted}", t.not_shown)
    };
    format!(
        "{} of {} conclusions held{rest}{}",
        t.held,
        t.judged(),
        unjudged_text(t)
    )
}

/// " (2 not measured there; 1 does not apply there)": the conclusions a record did not judge.
fn unjudged_text(t: &Tally) -> String {
    let mut parts = Vec::new();
    if t.not_checked > 0 {
        parts.push(format!("{} not measured there", t.not_checked));
    }
    if t.not_applicable > 0 {
        let verb = if t.not_applicable == 1 { "does" } else { "do" };
        parts.push(format!("{} {verb} not apply there", t.not_applicable));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

/// A figure of a claim, as a link to its entry in its chapter's list (its sentence, bound and
/// verdict without a mouse) where a page lists it; `inner` is HTML.
pub(super) fn claim_link(
    data: &Data,
    record: &str,
    id: &str,
    class: &str,
    title: &str,
    inner: &str,
) -> String {
    match claim_href(data, record, id) {
        Some(href) => format!(
            "<a class=\"claim {class}\" href=\"{href}\" title=\"{}\">{inner}</a>",
            esc(title)
        ),
        None => format!(
            "<span class=\"claim {class}\" title=\"{}\">{inner}</span>",
            esc(title)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::{Show, Tally, verdicts_text};
    use crate::render::Kind;

    #[test]
    fn verdicts_are_plain_words_naming_what_did_not_hold() {
        let tally = |held, not_shown, refuted, invariants_held, invariants_broken| Tally {
            held,
            not_shown,
            refuted,
            invariants: invariants_held + invariants_broken,
            invariants_held,
            invariants_broken,
            ..Tally::default()
        };
        let text = |t: &Tally, n: &[&str], r: &[&str]| {
            let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            verdicts_text(t, &names(n), &names(r))
        };
        assert_eq!(
            text(&tally(22, 0, 0, 2, 0), &[], &[]),
            "all 22 conclusions and both invariants held"
        );
        assert_eq!(
            text(&tally(1, 0, 0, 0, 0), &[], &[]),
            "the one conclusion held"
        );
        assert_eq!(
            text(&tally(19, 1, 2, 4, 0), &["x"], &["a", "b"]),
            "19 of 22 conclusions held; 1 was not shown (x) and 2 were refuted (a, b); all 4 invariants held"
        );
        assert_eq!(
            text(&tally(3, 0, 1, 0, 1), &[], &["d"]),
            "3 of 4 conclusions held; 1 was refuted (d); 0 of 1 invariants held, 1 broken"
        );
        let mut unjudged = tally(5, 0, 0, 1, 0);
        unjudged.not_checked = 2;
        assert_eq!(
            text(&unjudged, &[], &[]),
            "all 5 conclusions held (2 not measured there); the one invariant held"
        );
        let mut none = tally(0, 0, 0, 0, 0);
        none.not_checked = 3;
        assert_eq!(
            text(&none, &[], &[]),
            "none of its 3 conclusions could be judged there"
        );
    }

    #[test]
    fn a_claim_needs_its_id_and_shows_one_of_four_ways() {
        let Ok(Kind::Claim(c)) = typed("{{#measure claim record=ch01 id=x show=mark}}") else {
            panic!("a claim")
        };
        assert_eq!(
            (c.which.record.as_str(), c.id.as_str(), c.show),
            ("ch01", "x", Show::Mark)
        );
        let e = typed("{{#measure claim record=ch01 id=x show=loud}}")
            .err()
            .unwrap();
        assert_eq!(e, "show=`loud`: use figure, short, mark or answer");
        let e = typed("{{#measure claim record=ch01}}").err().unwrap();
        assert!(
            e.starts_with("missing `id=…` (e.g. `{{#measure claim record="),
            "{e}"
        );
        let e = typed("{{#measure claim record=ch01 claim=x}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `claim` for `claim` (allowed: record, machine, id, show)"
        );
    }

    #[test]
    fn the_ratio_note_explains_a_spread_only_where_a_chapter_has_one() {
        let claims = |test: &str| {
            records::claims::Claims::parse(&format!(
                "format = 2\n[[claim]]\nid = \"x\"\nsays = \"x\"\n{test}\nat-most = 2\n"
            ))
            .unwrap()
        };
        let spread = claims("spread = [\"e/c/a/p99\", \"e/c/b/p99\"]");
        assert!(super::spread_note(&spread).contains("larger of two figures over the smaller"));
        let ratio = claims("ratio = [\"e/c/a/p99\", \"e/c/b/p99\"]");
        assert_eq!(super::spread_note(&ratio), "");
    }

    #[test]
    fn busy_compares_the_ids_it_lists_and_coverage_counts_repetitions() {
        let Ok(Kind::Busy(b)) = typed("{{#measure busy record=ch01 machine=m ids=a,b}}") else {
            panic!("busy")
        };
        assert_eq!(b.ids, ["a", "b"]);
        let e = typed("{{#measure busy record=ch01 machine=m}}")
            .err()
            .unwrap();
        assert!(e.starts_with("missing `ids=…`"), "{e}");
        let e = typed("{{#measure coverage reps=five}}").err().unwrap();
        assert_eq!(e, "reps=`five`: a whole number");
        for kind in ["claims", "verdicts", "verdict-summary"] {
            let e = typed(&format!("{{{{#measure {kind} record=ch01 id=x}}}}"))
                .err()
                .unwrap();
            assert_eq!(
                e,
                format!("unknown argument `id` for `{kind}` (allowed: record, machine)")
            );
        }
    }
}
