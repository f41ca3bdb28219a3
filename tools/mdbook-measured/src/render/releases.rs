//! The page "Across Tokio releases": every conclusion on every release of the matrix
//! (`releases/releases.toml`), its records under `data/<machine>-tokio-<version>/`.
//!
//! - `release-list`: the releases, why each is there, what each needs and cannot build;
//! - `releases record=R`: a chapter's conclusions, a column per release, then every change of a
//!   figure beyond its interval (the two intervals apart) between two releases measured one
//!   after the other, each with the change in Tokio that explains it (`releases/changes.toml`), or the
//!   statement that none was found; the build fails on a change without one;
//! - `releases-chart record=R claim=ID`: one conclusion's figure over the releases;
//! - `since record=R claim=ID`: in a chapter, on which releases a conclusion held.

use super::claims::verdict_mark;
use super::class::{claim_median, class_claim_cell, outcome_cell};
use super::table::MAX_TABLE_PX;
use crate::chart::{self, ChartKind, ChartSpec};
use crate::data::{Data, list};
use crate::esc;
use measure::claims::{Claim, Outcome};
use measure::record::Record;
use records::judge::{Role, judge};
use records::releases::{self, Explanation, Release};
use serde::Deserialize;
use std::rc::Rc;

/// `release-list`: the releases of the matrix, a row each (chapters counted on any machine with
/// release records, or on `machine=`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ReleaseList {
    machine: Option<String>,
}

/// `releases`: a chapter's conclusions on every release (`record=`; without it, every chapter
/// the page has not shown yet), as `machine=` measured them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Releases {
    record: Option<String>,
    machine: Option<String>,
}

/// One conclusion (`claim=`) of a chapter (`record=`) over the releases, as `machine=` measured
/// them: `since`, and what `releases-chart` draws.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Since {
    record: String,
    claim: String,
    machine: Option<String>,
}

/// `releases-chart`: one conclusion's figure on each release, with `title=`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ReleasesChart {
    #[serde(rename = "*")]
    claim: Since,
    title: Option<String>,
}

/// A chapter on one release: measured, not yet measured, or not built (with the reason).
enum OnRelease {
    Measured(Rc<Record>),
    NotMeasured,
    Skipped(String),
}

/// The matrix as one machine measured it.
struct Matrix {
    machine: String,
    releases: Vec<Release>,
}

impl Matrix {
    /// The releases as the machine `choose_machine` picks for `record` measured them: each
    /// chapter's matrix is measured on one machine, and chapters may differ in it.
    fn load(data: &Data, named: Option<&str>, record: Option<&str>) -> Result<Matrix, String> {
        let releases = releases::load(data.root())?;
        let machines = data.release_machines();
        let with_record: Vec<String> = match record {
            Some(record) => machines
                .iter()
                .filter(|m| {
                    releases
                        .iter()
                        .any(|r| data.has_record(&r.folder(m), record))
                })
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        let machine = choose_machine(named, record, &with_record, &machines)?;
        Ok(Matrix { machine, releases })
    }

    fn on(&self, data: &Data, release: &Release, record: &str) -> Result<OnRelease, String> {
        if let Some(why) = release.skip.get(record) {
            return Ok(OnRelease::Skipped(why.clone()));
        }
        match data.record(&release.folder(&self.machine), record) {
            Ok(rec) => Ok(OnRelease::Measured(rec)),
            Err(e) if e.starts_with("no record") => Ok(OnRelease::NotMeasured),
            Err(e) => Err(e),
        }
    }

    /// The claim's outcome on each release that measured the chapter, in the matrix's order.
    fn outcomes(
        &self,
        data: &Data,
        record: &str,
        claim: &Claim,
    ) -> Result<Vec<(&Release, Outcome)>, String> {
        let mut out = Vec::new();
        for r in &self.releases {
            if let OnRelease::Measured(rec) = self.on(data, r, record)? {
                out.push((r, judge(claim, &rec, Role::Other).outcome));
            }
        }
        Ok(out)
    }
}

/// The machine a matrix directive shows: the one `machine=` names, else the one with release
/// records of the chapter, else the one with any release records; a chapter measured nowhere
/// is "not measured" on whichever machine is named.
fn choose_machine(
    named: Option<&str>,
    record: Option<&str>,
    with_record: &[String],
    machines: &[String],
) -> Result<String, String> {
    match (named, with_record, machines) {
        (Some(m), _, _) if machines.iter().any(|x| x == m) => Ok(m.to_string()),
        (Some(m), _, _) => Err(format!(
            "machine={m}: no release records of it under data/ (machines with some: {})",
            list(machines)
        )),
        (None, [one], _) | (None, [], [one]) => Ok(one.clone()),
        (None, [], []) => Err(
            "no release records under data/ (<machine>-tokio-<version>/): run `cargo run -p book -- releases run`".into(),
        ),
        (None, [], [first, ..]) if record.is_some() => Ok(first.clone()),
        (None, several, _) => Err(format!(
            "several machines have release records{} ({}): name one with machine=",
            record.map(|r| format!(" of {r}")).unwrap_or_default(),
            list(if several.is_empty() { machines } else { several })
        )),
    }
}

/// The releases, a row each.
pub(super) fn release_list(data: &Data, d: &ReleaseList) -> Result<String, String> {
    let in_matrix = releases::load(data.root())?;
    // Chapters may have been measured on different machines: a chapter counts on any (or on
    // the one `machine=` names).
    let machines = match &d.machine {
        Some(one) => vec![one.to_string()],
        None => data.release_machines(),
    };
    let chapters = data.listings();
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure release-list\"><thead><tr><th>Tokio</th><th>why it is here</th><th>crates at versions the book's lock lacks</th><th>chapters measured</th></tr></thead><tbody>",
    );
    for r in &in_matrix {
        let moved: Vec<String> = releases::moved_crates(data.root(), r)?
            .into_iter()
            .map(|(name, versions)| match r.crates.get(&name) {
                Some(pin) => format!(
                    "<code>{} {}</code> (pinned: {})",
                    esc(&name),
                    esc(&versions),
                    esc(&pin.why)
                ),
                None => format!("<code>{} {}</code>", esc(&name), esc(&versions)),
            })
            .collect();
        let measured = chapters
            .iter()
            .filter(|c| {
                !r.skip.contains_key(c.as_str())
                    && machines
                        .iter()
                        .any(|mach| data.has_record(&r.folder(mach), c))
            })
            .count();
        let built = chapters.len() - r.skip.len();
        html.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{measured} of the {built} it builds</td></tr>",
            esc(&r.tokio),
            inline_markdown(&r.why),
            if moved.is_empty() {
                "none".to_string()
            } else {
                moved.join(", ")
            },
        ));
    }
    html.push_str("</tbody></table></div>\n");
    Ok(html)
}

/// One chapter's conclusions on every release, then the changes between releases; without
/// `record=`, a section for each chapter the page has not shown yet, so that a new chapter
/// appears on the page before anyone writes about it there.
pub(super) fn releases_table(data: &Data, d: &Releases) -> Result<String, String> {
    let machine = d.machine.as_deref();
    let Some(record) = d.record.as_deref() else {
        let mut md = String::new();
        for m in data.chapters() {
            if data.show_releases(&m.name) {
                md.push_str(&format!(
                    "\n\n## Chapter {}: {} {{#releases-{}}}\n\n",
                    m.number().unwrap_or_default(),
                    m.title,
                    m.name
                ));
                md.push_str(&chapter_releases(data, machine, &m.name)?);
            }
        }
        return Ok(md);
    };
    if !data.show_releases(record) {
        return Err(format!(
            "the releases of `{record}` are on this page already"
        ));
    }
    chapter_releases(data, machine, record)
}

fn chapter_releases(data: &Data, machine: Option<&str>, record: &str) -> Result<String, String> {
    let m = Matrix::load(data, machine, Some(record))?;
    let claims = data.claims(record)?;
    let states: Vec<OnRelease> = m
        .releases
        .iter()
        .map(|r| m.on(data, r, record))
        .collect::<Result<_, _>>()?;
    if !states.iter().any(|s| matches!(s, OnRelease::Measured(_))) {
        let built: Vec<&str> = m
            .releases
            .iter()
            .zip(&states)
            .filter(|(_, s)| !matches!(s, OnRelease::Skipped(_)))
            .map(|(r, _)| r.tokio.as_str())
            .collect();
        let mut html = if built.is_empty() {
            "<p class=\"releases-none\">No release of the matrix builds it.</p>\n".to_string()
        } else {
            format!(
                "<p class=\"releases-none\">Not measured on any release yet; it builds on {}.</p>\n",
                esc(&built.join(", "))
            )
        };
        html.push_str(&skipped_html(&m, &states));
        return Ok(html);
    }
    // Each conclusion's sentence on a row of its own, across the table, and its figures on the
    // row below, a column per release; where the releases do not fit the page side by side,
    // they are split over tables that each do, oldest first.
    let conclusions: Vec<&Claim> = claims.conclusions().collect();
    let cells: Vec<Vec<(String, f64)>> = conclusions
        .iter()
        .map(|claim| {
            m.releases
                .iter()
                .zip(&states)
                .map(|(r, state)| cell(data, record, claim, r, state))
                .collect()
        })
        .collect();
    let widths: Vec<f64> = m
        .releases
        .iter()
        .enumerate()
        .map(|(k, r)| {
            cells
                .iter()
                .map(|row| row[k].1)
                .fold(cell_px(&r.tokio, ""), f64::max)
                + CELL_PADDING_PX
        })
        .collect();
    let mut html = String::new();
    for group in sharing_a_column(fitting_groups(&widths, MAX_TABLE_PX), &widths, MAX_TABLE_PX) {
        html.push_str(
            "<div class=\"measure-scroll\"><table class=\"measure releases\"><thead><tr>",
        );
        for k in group.clone() {
            html.push_str(&format!("<th>{}</th>", esc(&m.releases[k].tokio)));
        }
        html.push_str("</tr></thead><tbody>");
        for (claim, row) in conclusions.iter().zip(&cells) {
            html.push_str(&format!(
                "<tr class=\"releases-claim\">{}</tr><tr>",
                class_claim_cell(data, record, claim).replacen(
                    "<td class=\"class-claim\">",
                    &format!("<td class=\"class-claim\" colspan=\"{}\">", group.len()),
                    1
                )
            ));
            for (cell_html, _) in &row[group.clone()] {
                html.push_str(&format!("<td>{cell_html}</td>"));
            }
            html.push_str("</tr>");
        }
        html.push_str("</tbody></table></div>\n");
    }
    html.push_str(&skipped_html(&m, &states));
    html.push_str(&changes_html(data, &m, record, &claims)?);
    let measured: Vec<&Release> = m
        .releases
        .iter()
        .zip(&states)
        .filter(|(_, s)| matches!(s, OnRelease::Measured(_)))
        .map(|(r, _)| r)
        .collect();
    if let Some(first) = m.releases.iter().zip(&states).find_map(|(r, s)| match s {
        OnRelease::Measured(rec) => Some((r, rec.clone())),
        _ => None,
    }) {
        let (_, rec) = first;
        html.push_str(&format!(
            "<p class=\"releases-provenance\">Measured on <code>{}</code> ({}, {} CPUs), {} repetitions a release, on {} of the {} releases, {}</p>\n",
            esc(&m.machine),
            esc(&rec.machine.cpu_model),
            rec.machine.available_parallelism,
            rec.reps,
            measured.len(),
            m.releases.len(),
            set_provenance(data, &m.machine, record)?
        ));
    }
    Ok(html)
}

/// Which code measured a chapter's set of releases, from its records.
fn set_provenance(data: &Data, machine: &str, record: &str) -> Result<String, String> {
    let set = releases::set(data.root(), machine, record)?;
    Ok(measured_with(
        &releases::set_commits(&set),
        releases::set_is_current(data.root(), &set)?,
    ))
}

/// "at commit `X`." (or several commits with the same code), and whether the working tree would
/// measure the set with other code now.
fn measured_with(commits: &[String], current: bool) -> String {
    let code: Vec<String> = commits
        .iter()
        .map(|c| format!("<code>{}</code>", esc(c)))
        .collect();
    let at = match &code[..] {
        [] => return String::new(),
        [one] => format!("at commit {one}"),
        [rest @ .., last] => format!(
            "at commits {} and {last}, with the same listing and measuring code",
            rest.join(", ")
        ),
    };
    let since = if current {
        ""
    } else {
        " The chapter's code or crates have changed since: its releases stay comparable with one another, all measured alike, but not with the chapter's own figures."
    };
    format!("{at}.{since}")
}

/// The font of a table across releases (theme/measure.css, `table.measure.releases`): 13 px,
/// the interval at 0.8 of that, 2 × 5 px of padding; an average glyph is 0.55 em.
const CELL_FONT_PX: f64 = 13.0;
const CELL_PADDING_PX: f64 = 10.0;

/// How wide a cell of `shown` over the interval `range` is, in CSS pixels.
fn cell_px(shown: &str, range: &str) -> f64 {
    let text = |s: &str| s.chars().count() as f64 * 0.55 * CELL_FONT_PX;
    text(shown).max(0.8 * text(range))
}

/// Consecutive columns of `widths` in as few groups no wider than `max` as greedy filling needs,
/// their sizes as even as fits (eight columns in two tables: four and four, not seven and one);
/// a column wider than `max` alone makes a group of its own.
pub(crate) fn fitting_groups(widths: &[f64], max: f64) -> Vec<std::ops::Range<usize>> {
    let greedy = |per: usize| {
        let mut groups = Vec::new();
        let (mut start, mut used) = (0, 0.0);
        for (k, w) in widths.iter().enumerate() {
            if k > start && (used + w > max || k - start == per) {
                groups.push(start..k);
                (start, used) = (k, 0.0);
            }
            used += w;
        }
        if start < widths.len() {
            groups.push(start..widths.len());
        }
        groups
    };
    let fewest = greedy(usize::MAX);
    let even = greedy(widths.len().div_ceil(fewest.len().max(1)));
    if even.len() == fewest.len() {
        even
    } else {
        fewest
    }
}

/// `groups` with each table after the first starting one column earlier, where that still fits
/// in `max`: the release at a split then shows in both tables, so that each pair of neighbouring
/// releases, and a change between them, is in one table.
pub(crate) fn sharing_a_column(
    mut groups: Vec<std::ops::Range<usize>>,
    widths: &[f64],
    max: f64,
) -> Vec<std::ops::Range<usize>> {
    for g in groups.iter_mut().skip(1) {
        if widths[g.start - 1..g.end].iter().sum::<f64>() <= max {
            g.start -= 1;
        }
    }
    groups
}

/// A claim on one release: its verdict, figure and interval; "–" where the release does not
/// build the chapter, "not yet" where it is not measured. With its width in CSS pixels.
fn cell(data: &Data, record: &str, claim: &Claim, r: &Release, state: &OnRelease) -> (String, f64) {
    match state {
        OnRelease::Skipped(why) => (
            format!(
                "<span class=\"measure-na\" title=\"not built on Tokio {}: {}\">–</span>",
                esc(&r.tokio),
                esc(why)
            ),
            cell_px("–", ""),
        ),
        OnRelease::NotMeasured => (
            "<span class=\"measure-na\">not yet</span>".into(),
            cell_px("not yet", ""),
        ),
        OnRelease::Measured(rec) => {
            let o = judge(claim, rec, Role::Other).outcome;
            let (cell, shown, range) =
                outcome_cell(data, record, claim, &o, &format!("on Tokio {}", r.tokio));
            (cell, cell_px(&shown, &range))
        }
    }
}

/// The releases that do not build the chapter, each with the reason.
fn skipped_html(m: &Matrix, states: &[OnRelease]) -> String {
    let skipped: Vec<String> = m
        .releases
        .iter()
        .zip(states)
        .filter_map(|(r, s)| match s {
            OnRelease::Skipped(why) => Some(format!("Tokio {}: {}", r.tokio, esc(why))),
            _ => None,
        })
        .collect();
    if skipped.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"releases-skipped\">Not built (–): {}.</p>\n",
            skipped.join("; ")
        )
    }
}

/// A change of one conclusion between two releases measured one after the other.
struct Change<'a> {
    claim: &'a Claim,
    from: (&'a Release, Outcome),
    to: (&'a Release, Outcome),
}

impl Change<'_> {
    fn key(&self) -> (&str, &str, &str) {
        (&self.claim.id, &self.from.0.tokio, &self.to.0.tokio)
    }
}

/// Whether `b` differs from `a` beyond its interval: the two intervals do not overlap. A
/// verdict that goes from held to refuted (or back) always does; one that goes to or from "not
/// shown" with overlapping intervals is what five repetitions of the same thing also do.
pub(crate) fn changed(a: &Outcome, b: &Outcome) -> bool {
    if !a.verdict.judged() || !b.verdict.judged() {
        return false;
    }
    match (&a.interval, &b.interval) {
        (Some(x), Some(y)) => x.hi < y.lo || y.hi < x.lo,
        _ => false,
    }
}

fn changes<'a>(
    data: &Data,
    m: &'a Matrix,
    record: &str,
    claims: &'a measure::Claims,
) -> Result<Vec<Change<'a>>, String> {
    let mut out = Vec::new();
    for claim in claims.conclusions() {
        let outcomes = m.outcomes(data, record, claim)?;
        let mut it = outcomes.into_iter();
        let Some(mut prev) = it.next() else { continue };
        for next in it {
            if changed(&prev.1, &next.1) {
                out.push(Change {
                    claim,
                    from: (prev.0, prev.1.clone()),
                    to: (next.0, next.1.clone()),
                });
            }
            prev = next;
        }
    }
    Ok(out)
}

/// The changes of a chapter's conclusions between releases, each with its explanation.
fn changes_html(
    data: &Data,
    m: &Matrix,
    record: &str,
    claims: &measure::Claims,
) -> Result<String, String> {
    let found = changes(data, m, record, claims)?;
    let explained: Vec<Explanation> = releases::explanations(data.root())?
        .into_iter()
        .filter(|e| e.record == record)
        .collect();
    let mut missing = Vec::new();
    let mut items = Vec::new();
    for c in &found {
        let (id, from, to) = c.key();
        let Some(e) = explained
            .iter()
            .find(|e| e.claim == id && e.from == from && e.to == to)
        else {
            missing.push(format!(
                "[[change]] record = \"{record}\", claim = \"{id}\", from = \"{from}\", to = \"{to}\" ({} → {}, {} → {})",
                c.from.1.word(),
                c.to.1.word(),
                c.from.1.figure(),
                c.to.1.figure()
            ));
            continue;
        };
        let said = |o: &Outcome| {
            let range = o.range().map(|r| format!(" [{r}]")).unwrap_or_default();
            format!("{} {}{range}", o.word(), o.figure())
        };
        // A cause with nothing found says so itself ("None found. ...").
        let cause = if e.found {
            format!("The change in Tokio: {}", inline_markdown(&e.cause))
        } else {
            inline_markdown(&e.cause)
        };
        items.push(format!(
            "<li><code>{}</code>, Tokio {} → {}: {} → {}. {cause}</li>",
            esc(id),
            esc(from),
            esc(to),
            esc(&said(&c.from.1)),
            esc(&said(&c.to.1)),
        ));
    }
    if !missing.is_empty() {
        return Err(format!(
            "{record}: {} change(s) between releases with no explanation in {}; add, with the change in Tokio (found = true) or what was looked at (found = false): {}",
            missing.len(),
            releases::CHANGES,
            missing.join("; ")
        ));
    }
    if let Some(stale) = explained.iter().find(|e| {
        !found
            .iter()
            .any(|c| c.key() == (e.claim.as_str(), e.from.as_str(), e.to.as_str()))
    }) {
        return Err(format!(
            "{}: the explanation of {} in {record}, Tokio {} → {}, explains no change the records show (the releases measured between them, or the figures, differ now): remove it or move it",
            releases::CHANGES,
            stale.claim,
            stale.from,
            stale.to
        ));
    }
    if items.is_empty() {
        let measured = m
            .releases
            .iter()
            .filter(|r| matches!(m.on(data, r, record), Ok(OnRelease::Measured(_))))
            .count();
        return Ok(if measured > 1 {
            "<p class=\"releases-changes\">No conclusion's figure moved beyond its interval between two releases measured one after the other.</p>\n".into()
        } else {
            String::new()
        });
    }
    Ok(format!(
        "<p class=\"releases-changes\">Changes between releases measured one after the other (a figure beyond its interval):</p><ul class=\"releases-changes\">{}</ul>\n",
        items.join("")
    ))
}

/// `code` and [links](url) in an explanation; the rest escaped.
fn inline_markdown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`')
            && let Some(end) = after.find('`')
        {
            out.push_str(&format!("<code>{}</code>", esc(&after[..end])));
            rest = &after[end + 1..];
            continue;
        }
        if let Some(after) = rest.strip_prefix('[')
            && let Some(close) = after.find("](")
            && let Some(end) = after[close + 2..].find(')')
        {
            let (label, url) = (&after[..close], &after[close + 2..close + 2 + end]);
            out.push_str(&format!(
                "<a href=\"{}\">{}</a>",
                esc(url),
                inline_markdown(label)
            ));
            rest = &after[close + 3 + end..];
            continue;
        }
        let ch = rest.chars().next().unwrap_or_default();
        out.push_str(&esc(&ch.to_string()));
        rest = &rest[ch.len_utf8()..];
    }
    out
}

/// A directive's `record=`, the matrix, the record's claims and the index among them of the
/// one `claim=` names.
fn directive_claim<'d>(
    data: &Data,
    d: &'d Since,
) -> Result<(&'d str, Matrix, Rc<measure::Claims>, usize), String> {
    let record = d.record.as_str();
    let id = d.claim.as_str();
    let claims = data.claims(record)?;
    let at = claims
        .claims
        .iter()
        .position(|c| c.id == id)
        .ok_or_else(|| format!("{record} has no claim `{id}`"))?;
    Ok((
        record,
        Matrix::load(data, d.machine.as_deref(), Some(record))?,
        claims,
        at,
    ))
}

/// One conclusion's figure over the releases, with its interval, and its bound as a line.
pub(super) fn releases_chart(data: &Data, d: &ReleasesChart) -> Result<String, String> {
    let (record, m, claims, at) = directive_claim(data, &d.claim)?;
    let claim = &claims.claims[at];
    let mut points = Vec::new();
    let mut unit_of = None;
    for r in &m.releases {
        let point = match m.on(data, r, record)? {
            OnRelease::Measured(rec) => {
                let o = judge(claim, &rec, Role::Other).outcome;
                unit_of.get_or_insert_with(|| rec.clone());
                claim_median(&o).map(|median| {
                    let (min, max) = o
                        .interval
                        .as_ref()
                        .map(|i| (i.lo, i.hi))
                        .unwrap_or((median, median));
                    chart::Point { median, min, max }
                })
            }
            _ => None,
        };
        points.push(point);
    }
    let Some(rec) = unit_of else {
        return Err(format!("{record}: no release has a record of it yet"));
    };
    // The unit the claim's figures are in ("×", "s", its metric's), and how they read.
    let shown = claim
        .shown_on(&rec)
        .ok_or_else(|| format!("{record}: no record measures the cells of `{}`", claim.id))?;
    let unit = match shown.unit() {
        "count" => String::new(),
        u => u.to_string(),
    };
    let bound = claim_bound(claim);
    let title = d.title.as_deref().map_or_else(
        || format!("{}, on each Tokio release", claim.id),
        str::to_string,
    );
    let spec = ChartSpec {
        kind: ChartKind::Dot,
        log: Some(false),
        title: title.clone(),
        x_label: "Tokio release".into(),
        y_label: if unit.is_empty() {
            claim.id.clone()
        } else {
            format!("{} ({unit})", claim.id)
        },
        xs: m.releases.iter().map(|r| r.tokio.clone()).collect(),
        x_values: None,
        series: vec![(claim.id.clone(), points)],
        ref_lines: bound
            .map(|b| {
                vec![chart::RefLine {
                    value: b,
                    label: format!("bound: {}", shown.text(b)),
                }]
            })
            .unwrap_or_default(),
        unit,
    };
    Ok(format!(
        "<figure class=\"measure-figure\">{}<figcaption>{}: the median of the claim's per-repetition figures on each release, and the interval its verdict is judged on; a release with no point did not build or has not been measured.</figcaption></figure>\n",
        chart::render(&spec),
        esc(&title)
    ))
}

/// The claim's bound in its figure's unit, where it has one side only.
fn claim_bound(claim: &Claim) -> Option<f64> {
    use measure::claims::Test;
    let b = match &claim.test {
        Test::Ratio(_, _, b)
        | Test::RatioOfRatios(_, b)
        | Test::Value(_, b)
        | Test::RatioToLowest(_, _, b)
        | Test::Spread(_, b)
        | Test::Each(_, b) => b,
        Test::Lowest(..) | Test::Highest(..) => return None,
    };
    match (b.at_least, b.at_most) {
        (Some(x), None) | (None, Some(x)) => Some(x),
        _ => None,
    }
}

/// In a chapter: the releases on which a conclusion held, linked to its chapter's section of
/// the page "Across Tokio releases".
pub(super) fn since(data: &Data, d: &Since) -> Result<String, String> {
    let (record, m, claims, at) = directive_claim(data, d)?;
    let claim = &claims.claims[at];
    let id = &claim.id;
    let outcomes: Vec<(&Release, &'static str)> = m
        .outcomes(data, record, claim)?
        .into_iter()
        .filter_map(|(r, o)| verdict_mark(&o.verdict).map(|_| (r, o.word())))
        .collect();
    let text = verdicts_by_release(&outcomes, m.releases.len()).ok_or_else(|| {
        format!("{record}: no release has measured `{id}` yet, so `since` has nothing to say")
    })?;
    Ok(format!(
        "<a class=\"releases-since\" href=\"releases.html#{}\">{}</a>",
        esc(&releases_anchor(record)),
        esc(&text)
    ))
}

/// The releases measured, by verdict, each verdict's releases as runs of neighbours in the
/// matrix's order: "held on Tokio 1.38.2 to 1.47.5 and 1.51.6 to 1.54.1, refuted on 1.51.0 (8 of
/// the 8 releases measured)". Only measured releases are named, nothing is said of the others.
/// `None` when nothing was measured.
pub(crate) fn verdicts_by_release(
    outcomes: &[(&Release, &'static str)],
    in_matrix: usize,
) -> Option<String> {
    let first = outcomes.first()?;
    // Runs of one verdict over releases measured one after the other.
    let mut runs: Vec<(&str, &str, &str)> = vec![(first.1, &first.0.tokio, &first.0.tokio)];
    for (r, word) in &outcomes[1..] {
        match runs.last_mut() {
            Some(run) if run.0 == *word => run.2 = &r.tokio,
            _ => runs.push((word, &r.tokio, &r.tokio)),
        }
    }
    let mut words: Vec<&str> = Vec::new();
    for (word, ..) in &runs {
        if !words.contains(word) {
            words.push(word);
        }
    }
    let parts: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let spans: Vec<String> = runs
                .iter()
                .filter(|(w, ..)| w == word)
                .map(|(_, a, b)| {
                    if a == b {
                        a.to_string()
                    } else {
                        format!("{a} to {b}")
                    }
                })
                .collect();
            let tokio = if i == 0 { "Tokio " } else { "" };
            format!("{word} on {tokio}{}", and_list(&spans))
        })
        .collect();
    let measured = if outcomes.len() == in_matrix {
        format!("all {in_matrix} releases of the matrix measured")
    } else {
        format!(
            "{} of the {in_matrix} releases of the matrix measured",
            outcomes.len()
        )
    };
    Some(format!("{} ({measured})", parts.join(", ")))
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The anchor of a chapter's section on the page "Across Tokio releases".
pub(crate) fn releases_anchor(record: &str) -> String {
    format!("releases-{record}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::typed;
    use measure::claims::{Kind, Verdict};
    use measure::verdict::Interval;

    fn release(v: &str) -> Release {
        Release {
            tokio: v.into(),
            why: String::new(),
            crates: Default::default(),
            skip: Default::default(),
        }
    }

    fn outcome(verdict: Verdict, lo: f64, hi: f64) -> Outcome {
        Outcome {
            verdict,
            kind: Kind::Conclusion,
            median: Some((lo + hi) / 2.0),
            interval: Some(Interval {
                lo,
                hi,
                n: 5,
                coverage: 0.9375,
                of_median: true,
            }),
            shown: measure::claims::Shown::Ratio,
            bound: String::new(),
            figures: vec![lo, hi],
            fewest: 2,
            held_in: 0,
            margin: None,
            to_decide: None,
        }
    }

    #[test]
    fn a_set_names_the_commits_that_measured_it_and_whether_its_code_changed_since() {
        let one = measured_with(&["abc".into()], true);
        assert_eq!(one, "at commit <code>abc</code>.");
        let two = measured_with(&["abc".into(), "def".into()], false);
        assert!(
            two.starts_with("at commits <code>abc</code> and <code>def</code>, with the same listing and measuring code.")
                && two.contains("changed since"),
            "{two}"
        );
        assert_eq!(measured_with(&[], true), "");
    }

    #[test]
    fn the_books_release_sets_name_their_commits() {
        let root = records::record::repo_root();
        let data = Data::new(&root, "amd-epyc-2c");
        let line = set_provenance(&data, "intel-xeon-2c", "ch03-spawns").unwrap();
        assert!(line.starts_with("at commit <code>"), "{line}");
    }

    #[test]
    fn a_change_is_intervals_apart() {
        let held = |lo, hi| outcome(Verdict::Held, lo, hi);
        assert!(!changed(&held(1.0, 2.0), &held(1.5, 3.0)), "overlapping");
        assert!(changed(&held(1.0, 2.0), &held(2.5, 3.0)), "apart, above");
        assert!(changed(&held(2.5, 3.0), &held(1.0, 2.0)), "apart, below");
        assert!(
            !changed(&held(1.0, 2.0), &outcome(Verdict::NotShown, 0.5, 1.5)),
            "held, then not shown, within each other's interval: noise"
        );
        assert!(changed(
            &held(1.0, 2.0),
            &outcome(Verdict::Refuted, 0.2, 0.5)
        ));
        let missing = outcome(Verdict::Missing("filtered".into()), 9.0, 9.0);
        assert!(!changed(&held(1.0, 2.0), &missing), "nothing to compare");
    }

    #[test]
    fn the_releases_a_conclusion_held_on_name_only_what_was_measured() {
        let rs: Vec<Release> = ["1.38.2", "1.43.4", "1.44.2", "1.47.5", "1.51.0"]
            .into_iter()
            .map(release)
            .collect();
        let said = |words: &[&'static str], in_matrix| {
            let o: Vec<(&Release, &'static str)> = rs.iter().zip(words.iter().copied()).collect();
            verdicts_by_release(&o, in_matrix).unwrap()
        };
        assert_eq!(
            said(&["held"; 5], 5),
            "held on Tokio 1.38.2 to 1.51.0 (all 5 releases of the matrix measured)"
        );
        assert_eq!(
            said(&["held", "held", "refuted", "held", "held"], 6),
            "held on Tokio 1.38.2 to 1.43.4 and 1.47.5 to 1.51.0, refuted on 1.44.2 (5 of the 6 releases of the matrix measured)"
        );
        assert_eq!(
            said(&["refuted", "refuted", "not shown", "held", "held"], 5),
            "refuted on Tokio 1.38.2 to 1.43.4, not shown on 1.44.2, held on 1.47.5 to 1.51.0 (all 5 releases of the matrix measured)"
        );
        assert_eq!(
            said(&["held"], 5),
            "held on Tokio 1.38.2 (1 of the 5 releases of the matrix measured)"
        );
        assert_eq!(verdicts_by_release(&[], 5), None);
    }

    #[test]
    fn each_chapter_shows_the_machine_that_measured_it() {
        let ms = |v: &[&str]| v.iter().map(|m| m.to_string()).collect::<Vec<_>>();
        let both = ms(&["amd", "intel"]);
        let pick = |named, record, with: &[&str]| choose_machine(named, record, &ms(with), &both);
        assert_eq!(pick(None, Some("ch08"), &["amd"]), Ok("amd".into()));
        assert_eq!(pick(None, Some("ch01"), &["intel"]), Ok("intel".into()));
        assert_eq!(
            pick(Some("intel"), Some("ch08"), &["amd"]),
            Ok("intel".into())
        );
        assert_eq!(
            pick(None, Some("ch07"), &[]),
            Ok("amd".into()),
            "measured nowhere"
        );
        assert!(
            pick(None, Some("ch01"), &["amd", "intel"])
                .unwrap_err()
                .contains("of ch01")
        );
        assert!(
            pick(Some("arm"), None, &[])
                .unwrap_err()
                .contains("machine=arm")
        );
        assert!(
            pick(None, None, &[])
                .unwrap_err()
                .contains("name one with machine=")
        );
        assert_eq!(
            choose_machine(None, None, &[], &ms(&["intel"])),
            Ok("intel".into())
        );
    }

    #[test]
    fn releases_too_wide_for_one_table_split_into_tables_that_fit() {
        assert_eq!(fitting_groups(&[100.0; 6], 680.0), vec![0..6]);
        assert_eq!(fitting_groups(&[100.0; 8], 680.0), vec![0..4, 4..8]);
        assert_eq!(fitting_groups(&[100.0; 7], 680.0), vec![0..4, 4..7]);
        assert_eq!(fitting_groups(&[700.0, 10.0], 680.0), vec![0..1, 1..2]);
        assert!(fitting_groups(&[], 680.0).is_empty());
    }

    #[test]
    fn a_split_repeats_the_release_before_it_where_that_fits() {
        let split = |w: &[f64]| sharing_a_column(fitting_groups(w, 680.0), w, 680.0);
        assert_eq!(split(&[100.0; 8]), vec![0..4, 3..8]);
        assert_eq!(split(&[100.0; 6]), vec![0..6]);
        assert_eq!(split(&[200.0; 4]), vec![0..2, 1..4]);
        assert_eq!(split(&[170.0; 8]), vec![0..4, 4..8]);
        assert_eq!(split(&[700.0, 10.0]), vec![0..1, 1..2]);
    }

    #[test]
    fn explanations_keep_code_and_links_and_escape_the_rest() {
        assert_eq!(
            inline_markdown(
                "`select!` is <budget-aware> ([#7164](https://github.com/tokio-rs/tokio/pull/7164))"
            ),
            "<code>select!</code> is &lt;budget-aware&gt; (<a href=\"https://github.com/tokio-rs/tokio/pull/7164\">#7164</a>)"
        );
        assert_eq!(inline_markdown("a [b c"), "a [b c");
    }

    #[test]
    fn a_release_chart_is_a_claim_on_the_releases_with_a_title() {
        let Ok(crate::render::Kind::ReleasesChart(c)) =
            typed("{{#measure releases-chart record=ch01 claim=x title=t}}")
        else {
            panic!("a releases chart")
        };
        assert_eq!(
            (c.claim.record.as_str(), c.claim.claim.as_str()),
            ("ch01", "x")
        );
        let e = typed("{{#measure releases-chart record=ch01 claim=x colour=red}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `colour` for `releases-chart` (allowed: record, claim, machine, title)"
        );
        let e = typed("{{#measure since record=ch01 claim=x title=t}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `title` for `since` (allowed: record, claim, machine)"
        );
        assert!(typed("{{#measure releases}}").is_ok());
    }
}
