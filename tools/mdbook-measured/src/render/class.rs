//! The Machines page (`\{{#measure class ...}}`): every machine under `data/` side by side, a
//! totals row per machine, then per chapter each claim on every machine.

use super::claims::{claim_href, claim_link, verdict_mark};
use super::provenance::record_noise;
use super::table::{MAX_TABLE_PX, TableFont};
use crate::data::{Data, list};
use crate::esc;
use measure::format::format_plain;
use measure::record::Record;
use records::judge::{Tally, judge};
use serde::Deserialize;

/// `class`: every machine under `data/` side by side, for `records=` (every chapter's unless
/// given); `columns=` and `machines=` as [`class`] says.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Class {
    pub records: Option<Vec<String>>,
    columns: Option<Columns>,
    machines: Option<Vec<String>>,
}

choice! {
    /// How the Machines page lays out each chapter's claims.
    enum Columns {
        Claims = "claims" ("the default: per claim, held on k of N machines, its figure's spread and where it did not hold"),
        Machines = "machines" ("one column per machine; machines=a,b,c chooses them"),
    }
}

impl Class {
    /// Whether this shows each claim a row, held on k of N machines (where a chapter's list
    /// links its claims to).
    pub fn by_claim(&self) -> bool {
        self.machines.is_none() && self.columns.is_none_or(|c| c == Columns::Claims)
    }
}

/// Every machine under `data/` side by side (a class's hand-in, the book's own machines): each
/// machine's totals and the chapters where a conclusion did not hold there, then under a heading
/// per chapter each claim's sentence and how it fared: by default held on k of N machines, the
/// spread of its figure across them and the machines where it did not hold, named, which stays
/// readable for a whole class; `columns=machines` (or `machines=a,b,c`, some of them) shows one
/// column per machine instead.
pub(super) fn class(data: &Data, d: &Class) -> Result<String, String> {
    let records = data.records_or_all(d.records.as_deref())?;
    // A book machine's busy twin is that machine beside a neighbour, not another machine: each
    // chapter's first screen counts it apart, and a column of its own chooses it here.
    let book_machines = data.book_machines();
    let twins: Vec<String> = book_machines
        .iter()
        .map(|m| records::chapter::busy_machine_of(m))
        .collect();
    let mut every = data.measured_machines();
    // A book machine measured only in the release matrix so far.
    for m in data.release_machines() {
        if book_machines.contains(&m) && !every.contains(&m) {
            every.push(m);
        }
    }
    let all: Vec<String> = every
        .iter()
        .filter(|m| !twins.contains(m))
        .cloned()
        .collect();
    if all.is_empty() {
        return Err("no machine folders under data/".into());
    }
    let (machines, per_machine): (Vec<String>, bool) = match (d.columns, &d.machines) {
        (None | Some(Columns::Claims), None) => (all.clone(), false),
        (Some(Columns::Claims), Some(_)) => {
            return Err(
                "machines=a,b,c shows those machines a column each: it goes with columns=machines (or alone), not with columns=claims".into(),
            );
        }
        (None | Some(Columns::Machines), Some(named)) => {
            let mut chosen = Vec::new();
            for m in named {
                if !every.iter().any(|a| a == m) {
                    return Err(format!(
                        "machines=: no machine `{m}` under data/; the machines are {}",
                        list(&every)
                    ));
                }
                chosen.push(m.to_string());
            }
            (chosen, true)
        }
        (Some(Columns::Machines), None) => (all.clone(), true),
    };
    // Every chapter's claims on every machine with its record, judged once.
    let mut chapters = Vec::new();
    for record in &records {
        let claims = data.claims(record)?;
        // An unreadable record is named by its path in the repository, not on this machine.
        let root = format!("{}/", data.root().display());
        // A book machine without the chapter's own record shows its record of the Tokio the
        // chapter pins, from the release matrix: the same listing, fewer repetitions.
        let mut from_release = Vec::new();
        let present: Vec<(String, Result<std::rc::Rc<Record>, String>)> = machines
            .iter()
            .map(|m| {
                let rec = data.record(m, record).map_err(|e| e.replace(&root, ""));
                let at_pin = match &rec {
                    Err(e) if e.starts_with("no record") && book_machines.contains(m) => {
                        data.record_at_pin(m, record)
                    }
                    _ => None,
                };
                match at_pin {
                    Some((pinned, _)) => {
                        from_release.push(m.clone());
                        (m.clone(), Ok(pinned))
                    }
                    None => (m.clone(), rec),
                }
            })
            .filter(|(_, r)| !matches!(r, Err(e) if e.starts_with("no record")))
            .collect();
        if present.is_empty() {
            continue;
        }
        let title = present
            .iter()
            .find_map(|(_, r)| r.as_ref().ok().map(|r| r.title.clone()))
            .unwrap_or_else(|| record.to_string());
        let outcomes: Vec<Vec<Option<measure::claims::Outcome>>> = claims
            .claims
            .iter()
            .map(|c| {
                present
                    .iter()
                    .map(|(machine, r)| {
                        let role = data.role(machine, record);
                        r.as_ref().ok().map(|r| judge(c, r, role).outcome)
                    })
                    .collect()
            })
            .collect();
        chapters.push(ClassChapter {
            record,
            title,
            claims,
            present,
            from_release,
            outcomes,
        });
    }
    let mut html = class_machines(data, &machines, &chapters)?;
    for ch in &chapters {
        html.push_str(&format!(
            "\n### {} {{#{}}}\n\n",
            chapter_heading(ch.record, &ch.title),
            class_anchor(ch.record)
        ));
        html.push_str(&class_chapter_summary(ch, machines.len()));
        html.push_str(&if per_machine {
            class_columns(data, ch)?
        } else {
            class_spread(data, ch)?
        });
    }
    Ok(html)
}

/// One chapter of the Machines page: its claims, the machines with its record (an unreadable
/// record kept, to be named), and each claim's outcome on each (`None`: unreadable).
struct ClassChapter<'a> {
    record: &'a str,
    title: String,
    claims: std::rc::Rc<measure::Claims>,
    present: Vec<(String, Result<std::rc::Rc<Record>, String>)>,
    /// The machines in `present` whose record is the release matrix's at the pinned Tokio.
    from_release: Vec<String>,
    outcomes: Vec<Vec<Option<measure::claims::Outcome>>>,
}

/// The least widths the class tables give their columns of sentences and names, which wrap
/// (theme/measure.css: `td.class-claim` 18em, `td.class-failed` and the machines table's
/// `td.class-machine` 12em, at 14 px).
const CLASS_CLAIM_PX: f64 = 18.0 * TableFont::PX;
const CLASS_LIST_PX: f64 = 12.0 * TableFont::PX;

/// "Chapter 1: Blocking the runtime" from `ch01-blocking` and its record's title.
pub(super) fn chapter_heading(record: &str, title: &str) -> String {
    match record
        .strip_prefix("ch")
        .and_then(|r| r.get(..2))
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(n) => format!("Chapter {n}: {title}"),
        None => title.to_string(),
    }
}

/// A claim's row on the Machines page (the by-claim view), where a chapter's list links to it.
pub(super) fn class_row_anchor(record: &str, id: &str) -> String {
    format!("machines-{}-{}", esc(record), esc(id))
}

/// The id of a chapter's heading on the Machines page.
pub(super) fn class_anchor(record: &str) -> String {
    format!("class-{}", esc(record))
}

/// A claim's figure on one machine as a number: the median of its per-repetition figures.
pub(super) fn claim_median(o: &measure::claims::Outcome) -> Option<f64> {
    if o.verdict.judged() {
        measure::verdict::median(&o.figures)
    } else {
        None
    }
}

/// The claim's sentence, with its id (linked to its entry in the chapter's list) small below,
/// whether it is an invariant or needs a quiet machine, and what it depends on.
pub(super) fn class_claim_cell(
    data: &Data,
    record: &str,
    claim: &measure::claims::Claim,
) -> String {
    let id = match claim_href(data, record, &claim.id) {
        Some(href) => format!("<a href=\"{href}\"><code>{}</code></a>", esc(&claim.id)),
        None => format!("<code>{}</code>", esc(&claim.id)),
    };
    let kind = if claim.is_invariant() {
        " · invariant"
    } else if claim.quiet {
        " · needs a quiet machine"
    } else {
        ""
    };
    let depends = claim.depends_on.as_ref().map_or(String::new(), |d| {
        format!("<span class=\"depends\">depends on {}</span>", esc(d))
    });
    format!(
        "<td class=\"class-claim\">{}<span class=\"class-id\">{id}{kind}</span>{depends}</td>",
        esc(&claim.says)
    )
}

/// A claim's outcome in a table cell: its verdict's sign and figure (a link to the claim's entry
/// in its chapter's list), its interval below, and the whole verdict in the title; "n/a" where
/// the record lacks its cells. With the figure and interval as shown, for the cell's width.
pub(super) fn outcome_cell(
    data: &Data,
    record: &str,
    claim: &measure::claims::Claim,
    o: &measure::claims::Outcome,
    on: &str,
) -> (String, String, String) {
    let title = format!("{} {on}: {}, {}", claim.id, o.word(), o.summary());
    match verdict_mark(&o.verdict) {
        Some((class, sign)) => {
            let range = o.range().unwrap_or_default();
            let shown = format!("{sign} {}", o.figure());
            let cell = format!(
                "{}<span class=\"spread\">{}</span>",
                claim_link(data, record, &claim.id, class, &title, &esc(&shown)),
                esc(&range)
            );
            (cell, shown, range)
        }
        None => (
            format!(
                "<span class=\"measure-na\" title=\"{}\">n/a</span>",
                esc(&title)
            ),
            "n/a".into(),
            String::new(),
        ),
    }
}

/// A tally's tally (`records::judge::Tally`) on one machine, counted as the Machines page reads it.
fn add(t: &mut Tally, claim: &measure::claims::Claim, o: Option<&measure::claims::Outcome>) {
    match o {
        Some(o) => t.add(claim.kind, o),
        None => t.add_unjudged(claim.kind),
    }
}

/// "1 ✗ refuted, 2 ? not shown, 1 invariant broken": what did not hold.
fn failures(t: &Tally) -> String {
    let mut parts = Vec::new();
    if t.refuted > 0 {
        parts.push(format!("{} ✗ refuted", t.refuted));
    }
    if t.not_shown > 0 {
        parts.push(format!("{} ? not shown", t.not_shown));
    }
    if t.invariants_broken > 0 {
        parts.push(format!(
            "{} {} broken",
            t.invariants_broken,
            if t.invariants_broken == 1 {
                "invariant"
            } else {
                "invariants"
            }
        ));
    }
    parts.join(", ")
}

/// The machines, one row each: what it is, its conclusions' totals over every chapter, and the
/// chapters where one did not hold there, linked to their headings.
fn class_machines(
    data: &Data,
    machines: &[String],
    chapters: &[ClassChapter],
) -> Result<String, String> {
    let headers = [
        "machine",
        "held",
        "not shown",
        "refuted",
        "not measured or not applicable",
        "chapters where a conclusion did not hold",
    ];
    let mut widths: Vec<f64> = headers.iter().map(|h| TableFont::header(h)).collect();
    widths[0] = widths[0].max(CLASS_LIST_PX);
    widths[5] = widths[5].max(CLASS_LIST_PX);
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure class-machines\"><thead><tr>",
    );
    for h in headers {
        html.push_str(&format!("<th>{h}</th>"));
    }
    html.push_str("</tr></thead><tbody>");
    for machine in machines {
        let recs: Vec<std::rc::Rc<Record>> = chapters
            .iter()
            .filter_map(|ch| {
                ch.present
                    .iter()
                    .find(|(m, _)| m == machine)
                    .and_then(|(_, r)| r.as_ref().ok().cloned())
            })
            .collect();
        let mut total = Tally::default();
        let mut affected = Vec::new();
        let mut unreadable = Vec::new();
        for ch in chapters {
            let Some(k) = ch.present.iter().position(|(m, _)| m == machine) else {
                continue;
            };
            if let Err(e) = &ch.present[k].1 {
                unreadable.push(format!(
                    "<a href=\"#{}\">{}</a>: <span class=\"measure-na\" title=\"{}\">unreadable</span>",
                    class_anchor(ch.record),
                    esc(&ch.title),
                    esc(e)
                ));
                continue;
            }
            let mut tally = Tally::default();
            for (claim, outcomes) in ch.claims.claims.iter().zip(&ch.outcomes) {
                add(&mut tally, claim, outcomes[k].as_ref());
            }
            total.merge(&tally);
            if !tally.all_held() {
                affected.push(format!(
                    "<a href=\"#{}\">{}</a>: {}",
                    class_anchor(ch.record),
                    esc(&ch.title),
                    failures(&tally)
                ));
            }
        }
        affected.extend(unreadable);
        let about = match recs.first() {
            Some(first) => {
                let noise: Vec<f64> = recs
                    .iter()
                    .filter_map(|r| record_noise(r).map(|n| n.0))
                    .collect();
                let noise = measure::Summary::of(&noise)
                    .map_or("not recorded".into(), |s| format_plain(s.median, "%"));
                let pinned = chapters
                    .iter()
                    .filter(|ch| ch.from_release.contains(machine))
                    .count();
                let pinned = if pinned == 0 {
                    String::new()
                } else {
                    format!(" ({pinned} from the release matrix at the pinned Tokio)")
                };
                format!(
                    "{}, {} CPUs; {} of {} chapters{pinned}; noise {}",
                    first.machine.cpu_model,
                    first.machine.available_parallelism,
                    recs.len(),
                    chapters.len(),
                    noise
                )
            }
            None => "no readable record".into(),
        };
        let book = if data.book_machines().contains(machine) {
            " (the book's)"
        } else {
            ""
        };
        widths[0] = widths[0].max(TableFont::code(machine));
        let unjudged = total.not_checked + total.not_applicable;
        let counts = [total.held, total.not_shown, total.refuted, unjudged];
        for (i, n) in counts.iter().enumerate() {
            widths[i + 1] = widths[i + 1].max(TableFont::text(&n.to_string()));
        }
        html.push_str(&format!(
            "<tr><td class=\"class-machine\"><code>{}</code>{book}<span class=\"spread\">{}</span></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"class-failed\">{}</td></tr>",
            esc(machine),
            esc(&about),
            total.held,
            total.not_shown,
            total.refuted,
            unjudged,
            if affected.is_empty() {
                "none".to_string()
            } else {
                affected.join("<br>")
            }
        ));
    }
    html.push_str("</tbody></table></div>\n");
    class_width(&widths, "the machines' table")?;
    Ok(html)
}

/// A chapter's line under its heading: on how many machines, and how many of its conclusions
/// held on every machine that measured them.
fn class_chapter_summary(ch: &ClassChapter, machines: usize) -> String {
    let (mut conclusions, mut everywhere) = (0, 0);
    for (claim, outcomes) in ch.claims.claims.iter().zip(&ch.outcomes) {
        if claim.is_invariant() {
            continue;
        }
        conclusions += 1;
        let judged: Vec<&measure::claims::Outcome> = outcomes
            .iter()
            .flatten()
            .filter(|o| o.verdict.judged())
            .collect();
        if !judged.is_empty() && judged.iter().all(|o| o.held()) {
            everywhere += 1;
        }
    }
    format!(
        "<p class=\"class-summary\">Records from {} of {machines} machines. Held on every machine that measured it: {everywhere} of {conclusions} conclusions.</p>\n",
        ch.present.len()
    )
}

/// The default view: per claim, held on k of N machines, the median of its figure across them
/// with their lowest and highest, and the machines where it did not hold, named.
fn class_spread(data: &Data, ch: &ClassChapter) -> Result<String, String> {
    let headers = [
        "claim",
        "held on",
        // A word joiner either side of the dash: the header wraps at its spaces only.
        "figure across machines: median (min\u{2060}–\u{2060}max), or both of two",
        "not held on",
    ];
    let mut widths: Vec<f64> = headers.iter().map(|h| TableFont::header(h)).collect();
    widths[0] = widths[0].max(CLASS_CLAIM_PX);
    widths[3] = widths[3].max(CLASS_LIST_PX);
    let mut html =
        String::from("<div class=\"measure-scroll\"><table class=\"measure class\"><thead><tr>");
    for h in headers {
        html.push_str(&format!("<th>{h}</th>"));
    }
    html.push_str("</tr></thead><tbody>");
    let n = ch.present.len();
    for (claim, outcomes) in ch.claims.claims.iter().zip(&ch.outcomes) {
        html.push_str(&format!(
            "<tr id=\"{}\">",
            class_row_anchor(ch.record, &claim.id)
        ));
        html.push_str(&class_claim_cell(data, ch.record, claim));
        widths[0] = widths[0].max(TableFont::code(&claim.id) * 0.8);
        // Held, and the rest by verdict; the figures with the record each came from.
        let (mut held, mut not_shown, mut refuted) = (0, 0, 0);
        let mut failed = Vec::new();
        let mut missing = Vec::new();
        let mut figures: Vec<(f64, std::rc::Rc<Record>)> = Vec::new();
        for ((machine, rec), o) in ch.present.iter().zip(outcomes) {
            let (Ok(rec), Some(o)) = (rec, o) else {
                missing.push(format!("<code>{}</code> (unreadable)", esc(machine)));
                continue;
            };
            if let Some(x) = claim_median(o) {
                figures.push((x, rec.clone()));
            }
            match verdict_mark(&o.verdict) {
                Some(("held", _)) => held += 1,
                Some((class, sign)) => {
                    if class == "not-shown" {
                        not_shown += 1;
                    } else {
                        refuted += 1;
                    }
                    widths[3] = widths[3].max(TableFont::code(machine));
                    failed.push(claim_link(
                        data,
                        ch.record,
                        &claim.id,
                        class,
                        &format!("{} on {machine}: {}, {}", claim.id, o.word(), o.summary()),
                        &format!("{sign} <code>{}</code> {}", esc(machine), esc(&o.figure())),
                    ));
                }
                None => missing.push(format!("<code>{}</code>", esc(machine))),
            }
        }
        // Held on k of N, and what the others came to.
        let mut rest = Vec::new();
        if not_shown > 0 {
            rest.push(format!("{not_shown} ?"));
        }
        if refuted > 0 {
            rest.push(format!(
                "{refuted} {}",
                if claim.is_invariant() {
                    "broken"
                } else {
                    "✗"
                }
            ));
        }
        if !missing.is_empty() {
            rest.push(format!("{} n/a", missing.len()));
        }
        let k_of_n = format!("{held} of {n}");
        widths[1] = widths[1].max(TableFont::text(&k_of_n));
        for r in &rest {
            widths[1] = widths[1].max(TableFont::spread(r));
        }
        let rest = rest.join("<br>");
        html.push_str(&format!(
            "<td><strong>{k_of_n}</strong>{}</td>",
            if rest.is_empty() {
                String::new()
            } else {
                format!("<span class=\"spread\">{rest}</span>")
            }
        ));
        // The figure across machines: the median of their figures, and the lowest and highest.
        let bound = outcomes
            .iter()
            .flatten()
            .find(|o| o.verdict.judged())
            .map_or_else(|| claim.bound_text(), |o| o.bound.clone());
        // "≥ 0.5× and ≤ 2×" wraps between its two limits, never inside one.
        let bound = format!(
            "claim: {}",
            bound.replace("≥ ", "≥\u{a0}").replace("≤ ", "≤\u{a0}")
        );
        figures.sort_by(|a, b| a.0.total_cmp(&b.0));
        let cell = match (figures.first(), figures.last()) {
            (Some((lo, lo_rec)), Some((hi, _))) => {
                let values: Vec<f64> = figures.iter().map(|f| f.0).collect();
                let mid = measure::verdict::median(&values).unwrap_or(*lo);
                // Every record of a chapter has its cells in the same units.
                let shown = claim.shown_on(lo_rec).unwrap_or_else(|| claim.shown(&[]));
                let (low, high) = (shown.text(*lo), shown.text(*hi));
                // Two machines have no middle one: both figures, not their mean.
                let (median, median_px) = if figures.len() == 2 && low != high {
                    (format!("{low} and {high}"), two_figures_px(&low, &high))
                } else {
                    let m = shown.text(mid);
                    let px = TableFont::text(&m);
                    (m, px)
                };
                // No spread where there is none: "30.5–30.5 ms" says nothing.
                let spread = match figures.len() {
                    1 => "one machine".to_string(),
                    n if low == high => format!("the same on all {n}"),
                    2 => "two machines".to_string(),
                    _ => shown.range(*lo, *hi),
                };
                widths[2] = widths[2].max(median_px).max(TableFont::spread(&spread));
                format!(
                    "{} <span class=\"spread\">{}</span>",
                    esc(&median),
                    esc(&spread)
                )
            }
            _ => "–".to_string(),
        };
        // The bound wraps at its spaces ("lowest of 3, in every repetition").
        let longest = bound.split(' ').map(TableFont::text).fold(0.0, f64::max);
        widths[2] = widths[2].max(longest * 0.8);
        html.push_str(&format!(
            "<td>{cell}<span class=\"spread class-bound\">{}</span></td>",
            esc(&bound)
        ));
        // Where it did not hold, named with its figure there; where it was not measured.
        let mut named = failed;
        if named.is_empty() {
            named.push("none".into());
        }
        let missing = if missing.is_empty() {
            String::new()
        } else {
            format!(
                "<span class=\"class-na\">n/a on {}</span>",
                missing.join(", ")
            )
        };
        html.push_str(&format!(
            "<td class=\"class-failed\">{}{missing}</td></tr>",
            named.join(", ")
        ));
    }
    html.push_str("</tbody></table></div>\n");
    class_width(&widths, &format!("the table of {}", ch.record))?;
    Ok(html)
}

/// One column per machine (`columns=machines`, or `machines=a,b,c`): each claim's figure and
/// verdict there, with the interval its verdict rests on, and each machine's totals.
fn class_columns(data: &Data, ch: &ClassChapter) -> Result<String, String> {
    let mut widths = vec![CLASS_CLAIM_PX];
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure class\"><caption><span class=\"spread-key\">Each cell: the claim's figure on that machine, the interval it was judged on below it (its 90% CI; min–max for an invariant or a claim about every repetition).</span></caption><thead><tr><th>claim</th>",
    );
    for (machine, _) in &ch.present {
        html.push_str(&format!("<th><code>{}</code></th>", esc(machine)));
        widths.push(TableFont::code(machine));
    }
    html.push_str("</tr></thead><tbody>");
    let mut tallies = vec![Tally::default(); ch.present.len()];
    for (claim, outcomes) in ch.claims.claims.iter().zip(&ch.outcomes) {
        html.push_str("<tr>");
        html.push_str(&class_claim_cell(data, ch.record, claim));
        for (k, ((machine, rec), o)) in ch.present.iter().zip(outcomes).enumerate() {
            let (cell, width) = match (rec, o) {
                (Err(e), _) => (
                    format!(
                        "<span class=\"measure-na\" title=\"{}\">unreadable</span>",
                        esc(e)
                    ),
                    TableFont::text("unreadable"),
                ),
                (Ok(_), Some(o)) => {
                    add(&mut tallies[k], claim, Some(o));
                    let (cell, shown, range) =
                        outcome_cell(data, ch.record, claim, o, &format!("on {machine}"));
                    (cell, TableFont::text(&shown).max(TableFont::spread(&range)))
                }
                (Ok(_), None) => ("–".into(), TableFont::text("–")),
            };
            widths[k + 1] = widths[k + 1].max(width);
            html.push_str(&format!("<td>{cell}</td>"));
        }
        html.push_str("</tr>");
    }
    html.push_str("<tr class=\"class-total\"><td class=\"class-claim\">each machine's conclusions (and invariants broken)</td>");
    for (k, t) in tallies.iter().enumerate() {
        let lines = [
            format!("{} held", t.held),
            format!("{} not shown", t.not_shown),
            format!("{} refuted", t.refuted),
            format!("{} n/a", t.not_checked + t.not_applicable),
        ];
        let mut cell = lines.join("<br>");
        if t.invariants_broken > 0 {
            cell.push_str(&format!("<br>{} broken", t.invariants_broken));
        }
        for l in &lines {
            widths[k + 1] = widths[k + 1].max(TableFont::text(l));
        }
        html.push_str(&format!("<td>{cell}</td>"));
    }
    html.push_str("</tr></tbody></table></div>\n");
    class_width(&widths, &format!("the table of {}", ch.record)).map_err(|e| {
        format!(
            "{e}; one column per machine fits a few machines: name them with machines=a,b,c, or leave out columns= for the view by claim (held on k of N)"
        )
    })?;
    Ok(html)
}

/// The width of "LOW and HIGH" in a cell that wraps after "and": its wider line's.
fn two_figures_px(low: &str, high: &str) -> f64 {
    TableFont::text(&format!("{low} and")).max(TableFont::text(high))
}

/// Refuses a class table estimated wider than the page.
fn class_width(widths: &[f64], what: &str) -> Result<(), String> {
    let total: f64 = widths.iter().map(|w| w + TableFont::PADDING).sum();
    if total > MAX_TABLE_PX {
        return Err(format!(
            "{what} would be about {total:.0} px wide, more than the {MAX_TABLE_PX:.0} px a page can show whole"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::{TableFont, two_figures_px};
    use crate::render::Kind;

    #[test]
    fn two_figures_are_as_wide_as_their_wider_line() {
        let (low, high) = ("0.274 ns", "1,234,567.8 ns");
        let px = two_figures_px(low, high);
        assert_eq!(px, TableFont::text(high));
        assert!(px < TableFont::text(&format!("{low} and {high}")));
        assert_eq!(
            two_figures_px(high, low),
            TableFont::text(&format!("{high} and"))
        );
    }

    #[test]
    fn columns_are_claims_or_machines_and_only_claims_are_linked_to() {
        let by_claim = |t: &str| match typed(t) {
            Ok(Kind::Class(c)) => c.by_claim(),
            _ => panic!("{t}"),
        };
        assert!(by_claim("{{#measure class}}"));
        assert!(by_claim("{{#measure class columns=claims records=ch01}}"));
        assert!(!by_claim("{{#measure class columns=machines}}"));
        assert!(!by_claim("{{#measure class machines=a,b}}"));
        let e = typed("{{#measure class columns=wide}}").err().unwrap();
        assert!(
            e.starts_with("columns=`wide`: use claims (the default:")
                && e.contains(" or machines (one column per machine"),
            "{e}"
        );
    }
}
