//! Rendering each kind of directive.

use crate::chart::{self, ChartKind, ChartSpec, Point};
use crate::data::{Data, Dim, Resolved, SELECTORS, Session, list};
use crate::{Directive, esc, locked_versions};
use measure::claims::{Verdict, resolve_case};
use measure::format::{format_plain, format_value, seconds, sig3};
use measure::noise;
use measure::record::Record;
use measure::report::{claim_noise, noise_note};

mod class;
mod releases;
use class::{chapter_heading, class, class_row_anchor};

pub fn render(data: &Data, d: &Directive) -> Result<String, String> {
    match d.kind.as_str() {
        "table" => table(data, d),
        "chart" => chart(data, d),
        "value" => value(data, d),
        "ratio" => ratio(data, d),
        "param" => param(data, d),
        "derived" => derived(data, d),
        "machine" => machine(data, d),
        "topology" => topology(data, d),
        "provenance" => {
            d.check_keys(&["record", "machine"])?;
            let r = data.resolve_record_only(d)?;
            Ok(provenance(data, &r.record, &r.machine, r.record.reps))
        }
        "versions" => versions(data, d),
        "version" => version(data, d),
        "claim" => claim(data, d),
        "claims" => claims_list(data, d),
        "ref" => {
            d.check_keys(&["id"])?;
            let id = d
                .get("id")
                .ok_or("missing id=NAME (a table's or chart's id)")?;
            let label = data.numbered(id)?;
            Ok(format!(
                "<a href=\"{}#{}\">{}</a>",
                esc(&label.page),
                esc(&crate::data::Label::anchor(id)),
                esc(&label.name)
            ))
        }
        "machines" => machines(data, d),
        "class" => class(data, d),
        "minutes" => minutes(data, d),
        "runtime" => runtime(data, d),
        "hints" => hints(data, d),
        "schedule" => schedule(data, d),
        "history" => history(data, d),
        "verdicts" => verdicts(data, d),
        "verdict-summary" => verdict_summary(data, d),
        "busy" => busy(data, d),
        "coverage" => coverage(d),
        "release-list" => releases::release_list(data, d),
        "releases" => releases::releases_table(data, d),
        "releases-chart" => releases::releases_chart(data, d),
        "since" => releases::since(data, d),
        other => Err(format!(
            "unknown kind `{other}` (table, chart, value, ratio, claim, claims, param, machine, topology, machines, class, minutes, runtime, hints, schedule, history, verdicts, verdict-summary, busy, coverage, provenance, versions, version, release-list, releases, releases-chart, since)"
        )),
    }
}

fn with_select(extra: &[&'static str]) -> Vec<&'static str> {
    SELECTORS
        .iter()
        .copied()
        .chain(extra.iter().copied())
        .collect()
}

/// The values of `dim` to show: the directive's list (`cases=0,1`) checked, else all of them.
fn axis(r: &Resolved, d: &Directive, dim: Dim) -> Result<Vec<String>, String> {
    let available = r.values(dim);
    let key = format!("{}s", dim.name());
    match d.get(&key) {
        // Noise is shown where a directive asks for it, not in every metrics table.
        None if dim == Dim::Metric => Ok(available
            .into_iter()
            .filter(|m| !noise::is_noise_metric(m))
            .collect()),
        None => Ok(available),
        Some(wanted) => wanted
            .split(',')
            .map(|w| {
                let w = if dim == Dim::Case {
                    resolve_case(w, &r.record)?
                } else {
                    w.to_string()
                };
                if available.contains(&w) {
                    Ok(w)
                } else {
                    Err(format!(
                        "no {} `{w}` in `{key}`; available: {}",
                        dim.name(),
                        list(&available)
                    ))
                }
            })
            .collect(),
    }
}

/// The two dimensions laid out and the one held fixed.
fn layout(
    d: &Directive,
    rows_key: &str,
    cols_key: &str,
    default_rows: Dim,
    default_cols: Dim,
) -> Result<(Dim, Dim, Dim), String> {
    let rows = d.get(rows_key).map_or(Ok(default_rows), Dim::parse)?;
    let cols = d.get(cols_key).map_or(Ok(default_cols), Dim::parse)?;
    if rows == cols {
        return Err(format!("`{rows_key}` and `{cols_key}` must differ"));
    }
    let fixed = [Dim::Case, Dim::Variant, Dim::Metric]
        .into_iter()
        .find(|x| *x != rows && *x != cols)
        .expect("three dimensions");
    Ok((rows, cols, fixed))
}

fn fixed_value(r: &Resolved, fixed: Dim) -> Result<String, String> {
    let chosen = match fixed {
        Dim::Case => &r.case,
        Dim::Variant => &r.variant,
        Dim::Metric => &r.metric,
    };
    chosen.clone().ok_or_else(|| {
        format!(
            "which {0}? add {0}=NAME; available: {1}",
            fixed.name(),
            list(&r.values(fixed))
        )
    })
}

/// (case, variant, metric) of the cell at (row value, column value).
fn coordinates<'a>(
    rows: Dim,
    row: &'a str,
    cols: Dim,
    col: &'a str,
    fixed: Dim,
    fixed_v: &'a str,
) -> (&'a str, &'a str, &'a str) {
    let pick = |dim: Dim| {
        if dim == rows {
            row
        } else if dim == cols {
            col
        } else {
            debug_assert_eq!(dim, fixed);
            fixed_v
        }
    };
    (pick(Dim::Case), pick(Dim::Variant), pick(Dim::Metric))
}

fn table(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&with_select(&[
        "rows",
        "cols",
        "cases",
        "variants",
        "metrics",
        "caption",
        "label",
        "id",
        "case-unit",
        "case-names",
    ]))?;
    let r = data.resolve(d, false)?;
    let (rows, cols, fixed) = layout(d, "rows", "cols", Dim::Case, Dim::Variant)?;
    let caption = numbered_caption(data, d)?;
    let html = table_html(data, &r, d, rows, cols, fixed, caption.as_deref(), None)?;
    let html = match d.get("id") {
        Some(id) => html.replacen(
            "<table class=\"measure\">",
            &format!(
                "<table class=\"measure\" id=\"{}\">",
                crate::data::Label::anchor(id)
            ),
            1,
        ),
        None => html,
    };
    // The wrapper scrolls sideways on a phone rather than cut the table off.
    Ok(format!(
        "<div class=\"measure-table\">{html}</div>\n{}\n",
        provenance_once(data, &r.record, &r.machine, r.record.reps_of(&r.experiment))
    ))
}

/// "Table 1.2. The caption", for a directive with an `id=`; the caption alone otherwise.
fn numbered_caption(data: &Data, d: &Directive) -> Result<Option<String>, String> {
    let caption = d.get("caption");
    Ok(match d.get("id") {
        Some(id) => {
            let name = &data.numbered(id)?.name;
            Some(match caption {
                Some(c) => format!("{name}. {c}"),
                None => name.clone(),
            })
        }
        None => caption.map(str::to_string),
    })
}

/// How wide a table may be: the narrower of the page's text column (750 px in mdBook's theme)
/// and a printed A4 page (about 700 CSS px inside Chromium's default margins), with a margin.
pub const MAX_TABLE_PX: f64 = 680.0;

/// Text widths in CSS pixels, from theme/measure.css: tables at 14 px, the min–max line at
/// 0.8 of that, cell padding 2 × 8 px, code (variant names) in the monospace font at 0.875 em.
/// An average glyph of a proportional font is taken as 0.55 em, of a monospace one 0.6 em.
struct TableFont;

impl TableFont {
    const PX: f64 = 14.0;
    const PADDING: f64 = 16.0;

    fn text(s: &str) -> f64 {
        s.chars().count() as f64 * 0.55 * Self::PX
    }
    fn spread(s: &str) -> f64 {
        Self::text(s) * 0.8
    }
    fn code(s: &str) -> f64 {
        s.chars().count() as f64 * 0.6 * Self::PX * 0.875
    }
    /// A header wraps at spaces: its longest word decides its width.
    fn header(s: &str) -> f64 {
        s.split_whitespace().map(Self::text).fold(0.0, f64::max)
    }
    /// A row or column label: variants are shown as code.
    fn label(dim: Dim, v: &str, data: &Data) -> f64 {
        match dim {
            Dim::Variant => Self::code(v),
            Dim::Metric => Self::header(data.metric_name(v)),
            Dim::Case => Self::text(v),
        }
    }
}

/// The count of samples behind a percentile cell, when the record keeps it: "over 6,250
/// samples, 62 above it" (a p99.9 of a few thousand samples rests on a handful).
fn samples_note(r: &Resolved, case: &str, variant: &str, metric: &str) -> Option<String> {
    let quantile = match metric.strip_prefix("acquire_").unwrap_or(metric) {
        "p50" => 0.5,
        "p99" => 0.99,
        "p99.9" => 0.999,
        "max" => 1.0,
        _ => return None,
    };
    let counter = if metric.starts_with("acquire_") {
        "acquire_samples"
    } else {
        "samples"
    };
    let n = r
        .series(Some(case), Some(variant), Some(counter))
        .ok()?
        .median;
    let above = ((1.0 - quantile) * n).floor();
    Some(if quantile >= 1.0 {
        format!("the largest of {} samples", number(n))
    } else {
        format!(
            "over {} samples per run: {} of them above it",
            number(n),
            number(above)
        )
    })
}

#[allow(clippy::too_many_arguments)] // one call per kind of table; a struct would only rename them
fn table_html(
    data: &Data,
    r: &Resolved,
    d: &Directive,
    rows: Dim,
    cols: Dim,
    fixed: Dim,
    caption: Option<&str>,
    corner: Option<&str>,
) -> Result<String, String> {
    let fixed_v = fixed_value(r, fixed)?;
    let row_values = axis(r, d, rows)?;
    let col_values = axis(r, d, cols)?;
    let corner = corner
        .or(d.get("label"))
        .map_or_else(|| rows.name().to_string(), str::to_string);
    // Cases that are quantities (`case-unit=B`: byte counts) are shown in the reader's units, and
    // cases named by identifiers in the reader's words (`case-names="1to1_cap1:1 → 1;..."`).
    let case_unit = d.get("case-unit");
    let case_names = case_names(d, rows, &row_values, cols, &col_values)?;
    let header = |dim: Dim, v: &str| -> Result<String, String> {
        if dim == Dim::Case
            && let Some(name) = case_names.get(v)
        {
            return Ok(esc(name));
        }
        match (dim, case_unit) {
            (Dim::Case, Some(unit)) => {
                let n: f64 = v
                    .parse()
                    .map_err(|_| format!("case-unit={unit}: case `{v}` is not a number"))?;
                // "4 KiB", not "4.00 KiB": a case is a setting, exact where it is whole.
                let shown = format_value(n, unit);
                Ok(esc(&whole_number(&shown)))
            }
            // A count is read with its thousands apart: "1,000,000", not "1000000".
            (Dim::Case, None) if v.len() > 3 && v.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(esc(&format_plain(v.parse::<f64>().unwrap_or_default(), "")))
            }
            _ => Ok(data.label(dim, v)),
        }
    };
    // Estimated widths, column by column, to refuse a table the page cannot show whole.
    let mut widths = vec![TableFont::header(&corner)];
    widths.extend(col_values.iter().map(|c| TableFont::label(cols, c, data)));
    for row in &row_values {
        widths[0] = widths[0].max(TableFont::label(rows, row, data));
    }
    let mut html = String::from("<table class=\"measure\">");
    if let Some(c) = caption {
        html.push_str(&format!("<caption>{}</caption>", esc(c)));
    }
    html.push_str(&format!("<thead><tr><th>{}</th>", esc(&corner)));
    for c in &col_values {
        html.push_str(&format!("<th>{}</th>", header(cols, c)?));
    }
    html.push_str("</tr></thead><tbody>");
    for row in &row_values {
        html.push_str(&format!("<tr><th>{}</th>", header(rows, row)?));
        for (k, col) in col_values.iter().enumerate() {
            let (case, variant, metric) = coordinates(rows, row, cols, col, fixed, &fixed_v);
            let (cell, width) = match r.series(Some(case), Some(variant), Some(metric)) {
                // A spread only where the repetitions differ as shown: "457 B–457 B" says nothing.
                Ok(s)
                    if s.values.len() > 1
                        && format_value(s.min, &s.unit) != format_value(s.max, &s.unit) =>
                {
                    let (median, spread) = (
                        format_value(s.median, &s.unit),
                        format!(
                            "{}–{}",
                            format_value(s.min, &s.unit),
                            format_value(s.max, &s.unit)
                        ),
                    );
                    let width = TableFont::text(&median).max(TableFont::spread(&spread));
                    (
                        format!("{median} <span class=\"spread\">{spread}</span>"),
                        width,
                    )
                }
                Ok(s) => {
                    let v = format_value(s.median, &s.unit);
                    let w = TableFont::text(&v);
                    (v, w)
                }
                Err(_) => ("–".into(), TableFont::text("–")),
            };
            widths[k + 1] = widths[k + 1].max(width);
            match samples_note(r, case, variant, metric) {
                Some(note) => html.push_str(&format!("<td title=\"{}\">{cell}</td>", esc(&note))),
                None => html.push_str(&format!("<td>{cell}</td>")),
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    let total: f64 = widths.iter().map(|w| w + TableFont::PADDING).sum();
    if total > MAX_TABLE_PX {
        return Err(format!(
            "this table would be about {total:.0} px wide, more than the {MAX_TABLE_PX:.0} px a page can show whole (on screen and in print): \
             split it (fewer `metrics=` or `cases=` per table), or swap `rows` and `cols`"
        ));
    }
    Ok(html)
}

/// "4.00 KiB" as "4 KiB", "64.0 KiB" as "64 KiB"; "1.50 MiB" stays.
fn whole_number(shown: &str) -> String {
    match shown.split_once(' ') {
        Some((number, unit)) if number.parse::<f64>().is_ok_and(|v| v.fract() == 0.0) => {
            format!("{} {unit}", number.parse::<f64>().unwrap_or_default())
        }
        _ => shown.to_string(),
    }
}

/// A table's `case-names="case:name;case:name"`, each case one the table shows.
fn case_names(
    d: &Directive,
    rows: Dim,
    row_values: &[String],
    cols: Dim,
    col_values: &[String],
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut names = std::collections::BTreeMap::new();
    let Some(spec) = d.get("case-names") else {
        return Ok(names);
    };
    let shown: Vec<&String> = match (rows, cols) {
        (Dim::Case, _) => row_values.iter().collect(),
        (_, Dim::Case) => col_values.iter().collect(),
        _ => return Err("case-names: this table has no cases in its rows or columns".into()),
    };
    for pair in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (case, name) = pair
            .split_once(':')
            .ok_or_else(|| format!("case-names: `{pair}` is not CASE:NAME"))?;
        if !shown.iter().any(|c| c.as_str() == case) {
            return Err(format!(
                "case-names: the table shows no case `{case}` (it shows {})",
                shown
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        names.insert(case.to_string(), name.to_string());
    }
    Ok(names)
}

fn chart(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&with_select(&[
        "x",
        "series",
        "kind",
        "log",
        "caption",
        "xlabel",
        "ylabel",
        "cases",
        "variants",
        "metrics",
        "label",
        "numbers",
        "id",
        "ref-line",
        "case-unit",
        "case-names",
    ]))?;
    let r = data.resolve(d, false)?;
    let (x, series, fixed) = layout(d, "x", "series", Dim::Case, Dim::Variant)?;
    let caption = d
        .get("caption")
        .ok_or("a chart needs caption=\"...\" (what it shows, in words)")?;
    // Bars on a log axis are drawn as dots (chart.rs): a bar from an arbitrary floor means nothing.
    let kind = match d.get("kind") {
        None if x == Dim::Case => ChartKind::Line,
        None | Some("bar") => ChartKind::Bar,
        Some("line") => ChartKind::Line,
        Some("dot") => ChartKind::Dot,
        Some(k) => {
            return Err(format!(
                "kind=`{k}`: use line (a sweep over cases), bar (linear axis) or dot (a dot plot, for a log axis)"
            ));
        }
    };
    let log = match d.get("log") {
        None | Some("auto") => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(v) => return Err(format!("log=`{v}`: use true, false or auto")),
    };
    let fixed_v = fixed_value(&r, fixed)?;
    let xs = axis(&r, d, x)?;
    let names = axis(&r, d, series)?;
    let case_names = case_names(d, x, &xs, series, &names)?;
    let mut unit = None;
    let mut lines = Vec::new();
    for name in &names {
        let mut points = Vec::new();
        for xv in &xs {
            let (case, variant, metric) = coordinates(x, xv, series, name, fixed, &fixed_v);
            points.push(match r.series(Some(case), Some(variant), Some(metric)) {
                Ok(s) => {
                    if unit.get_or_insert_with(|| s.unit.clone()) != &s.unit {
                        return Err(
                            "a chart's series must share one unit; choose one metric".into()
                        );
                    }
                    Some(Point {
                        median: s.median,
                        min: s.min,
                        max: s.max,
                    })
                }
                Err(_) => None,
            });
        }
        // Cases are bare values ("2"); the legend names them ("burst 2"), or in the reader's
        // words where the directive gives them.
        let legend = match series {
            Dim::Case => match case_names.get(name) {
                Some(named) => named.clone(),
                None => format!(
                    "{} {}",
                    d.get("label").unwrap_or("case"),
                    chart_case_label(name, d.get("case-unit"))?
                ),
            },
            Dim::Metric => data.metric_name(name).to_string(),
            Dim::Variant => name.clone(),
        };
        lines.push((legend, points));
    }
    let unit = unit.ok_or("no data to chart")?;
    let ylabel = d
        .get("ylabel")
        .map_or_else(|| data.metric_name(&fixed_v).to_string(), str::to_string);
    // The cases as numbers, so the chart can say how its categorical axis is spaced.
    let x_values = (x == Dim::Case)
        .then(|| xs.iter().map(|c| c.parse::<f64>().ok()).collect())
        .flatten();
    let x_shown = xs
        .iter()
        .map(|xv| match (x, case_names.get(xv)) {
            (Dim::Case, Some(named)) => Ok(named.clone()),
            (Dim::Case, None) => chart_case_label(xv, d.get("case-unit")),
            _ => Ok(xv.clone()),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let spec = ChartSpec {
        kind,
        log,
        title: caption.to_string(),
        x_label: d.get("xlabel").unwrap_or(x.name()).to_string(),
        y_label: ylabel,
        xs: x_shown,
        x_values,
        series: lines,
        ref_lines: ref_lines(d.get("ref-line"), &unit)?,
        unit,
    };
    let svg = chart::render(&spec);
    // The chart's own numbers, one click away, unless the same table stands just above it.
    let numbers = match d.get("numbers") {
        None | Some("true") => {
            let corner = d.get("xlabel").unwrap_or(x.name());
            let table = table_html(data, &r, d, x, series, fixed, None, Some(corner))?;
            format!(
                "<details class=\"measure-data\"><summary>The numbers behind this chart</summary>{table}</details>\n"
            )
        }
        Some("false") => String::new(),
        Some(other) => return Err(format!("numbers=`{other}`: use true or false")),
    };
    let (id_attr, shown) = match d.get("id") {
        Some(id) => (
            format!(" id=\"{}\"", crate::data::Label::anchor(id)),
            numbered_caption(data, d)?.unwrap_or_default(),
        ),
        None => (String::new(), caption.to_string()),
    };
    Ok(format!(
        "<figure class=\"measure-figure\"{id_attr}>{svg}<figcaption>{}</figcaption></figure>\n{numbers}{}\n",
        esc(&shown),
        provenance_once(data, &r.record, &r.machine, r.record.reps_of(&r.experiment))
    ))
}

/// A case on a chart's axis or legend: as recorded, or in `case-unit=` ("64 KiB").
fn chart_case_label(case: &str, case_unit: Option<&str>) -> Result<String, String> {
    let Some(unit) = case_unit else {
        return Ok(case.to_string());
    };
    let n: f64 = case
        .parse()
        .map_err(|_| format!("case-unit={unit}: case `{case}` is not a number"))?;
    Ok(whole_number(&format_value(n, unit)))
}

/// `ref-line="10:a tenth"`: dashed lines at values in the chart's unit, with their labels;
/// several are separated by `;`.
fn ref_lines(spec: Option<&str>, unit: &str) -> Result<Vec<chart::RefLine>, String> {
    let Some(spec) = spec else {
        return Ok(Vec::new());
    };
    spec.split(';')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let bad = || {
                format!(
                    "ref-line=`{line}`: use VALUE:LABEL, the value a number in the chart's unit ({unit}), e.g. ref-line=\"10:a tenth\""
                )
            };
            let (value, label) = line.split_once(':').ok_or_else(bad)?;
            let value: f64 = value.trim().parse().map_err(|_| bad())?;
            if !value.is_finite() || label.trim().is_empty() {
                return Err(bad());
            }
            Ok(chart::RefLine {
                value,
                label: label.trim().to_string(),
            })
        })
        .collect()
}

fn value(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&with_select(&["stat"]))?;
    let r = data.resolve(d, false)?;
    let s = r.series(None, None, None)?;
    let v = match d.get("stat").unwrap_or("median") {
        "median" => s.median,
        "min" => s.min,
        "max" => s.max,
        other => return Err(format!("stat=`{other}`: use median, min or max")),
    };
    Ok(format_value(v, &s.unit))
}

fn ratio(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&with_select(&["over.*"]))?;
    if !d.args.keys().any(|k| k.starts_with("over.")) {
        return Err("a ratio needs at least one over.KEY=VALUE for its denominator".into());
    }
    let top = data.resolve(d, false)?;
    let bottom = data.resolve(d, true)?;
    let a = top.series(None, None, None)?;
    let b = bottom
        .series(None, None, None)
        .map_err(|e| format!("denominator: {e}"))?;
    let (top, bottom) = match (seconds(a.median, &a.unit), seconds(b.median, &b.unit)) {
        (Some(x), Some(y)) => (x, y),
        _ if a.unit == b.unit => (a.median, b.median),
        _ => return Err(format!("cannot divide {} by {}", a.unit, b.unit)),
    };
    if bottom == 0.0 {
        return Err("the denominator's median is zero".into());
    }
    Ok(format!("{}×", sig3(top / bottom)))
}

fn param(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "name", "format"])?;
    let r = data.resolve_record_only(d)?;
    let name = d.get("name").ok_or("missing name=PARAM")?;
    let v = r.record.params.get(name).ok_or_else(|| {
        let keys: Vec<String> = r.record.params.keys().cloned().collect();
        format!("no parameter `{name}`; available: {}", list(&keys))
    })?;
    show_setting(v, d)
}

/// The version of a crate the record's run was built with (`crate=tokio`): the prose names the
/// version its mechanism sentences were read from, and a rerun with other crates changes it.
fn version(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "crate"])?;
    let r = data.resolve_record_only(d)?;
    let name = d.get("crate").ok_or("missing crate=NAME")?;
    let v = r.record.build.crates.get(name).ok_or_else(|| {
        let keys: Vec<String> = r.record.build.crates.keys().cloned().collect();
        format!(
            "the record was not built with `{name}`; it lists {}",
            list(&keys)
        )
    })?;
    Ok(esc(v))
}

/// A value the run measured on its machine before the experiments (`h.derived`): a calibration,
/// the C library's version; `key=K` picks one entry of a value that is a table (`items_per_size`).
fn derived(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "name", "key", "format"])?;
    let r = data.resolve_record_only(d)?;
    let name = d.get("name").ok_or("missing name=VALUE")?;
    let v = r.record.derived.get(name).ok_or_else(|| {
        let keys: Vec<String> = r.record.derived.keys().cloned().collect();
        format!("no derived value `{name}`; available: {}", list(&keys))
    })?;
    let v = match (d.get("key"), v) {
        (None, v) => v,
        (Some(k), serde_json::Value::Object(map)) => map.get(k).ok_or_else(|| {
            let keys: Vec<String> = map.keys().cloned().collect();
            format!("`{name}` has no key `{k}`; it has {}", list(&keys))
        })?,
        (Some(_), _) => return Err(format!("`{name}` is not a table: leave out key=")),
    };
    show_setting(v, d)
}

/// A parameter or derived value as text: a number plainly, a list joined, `format=percent`.
fn show_setting(v: &serde_json::Value, d: &Directive) -> Result<String, String> {
    let percent = match d.get("format") {
        None => false,
        Some("percent") => true,
        Some(f) => return Err(format!("format=`{f}`: use percent, or leave it out")),
    };
    Ok(match v {
        serde_json::Value::Number(n) if percent => {
            format!("{}%", number(n.as_f64().unwrap_or(0.0) * 100.0))
        }
        serde_json::Value::Number(n) => number(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => esc(s),
        serde_json::Value::Array(a) => a
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        other => esc(&other.to_string()),
    })
}

/// A whole number as such ("40", "2,500"); anything else to about three significant digits.
fn number(v: f64) -> String {
    if v.fract().abs() < 1e-9 && v.abs() < 1e15 {
        sig3(v.round())
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string()
    } else {
        sig3(v)
    }
}

fn machine(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "field"])?;
    let r = data.resolve_record_only(d)?;
    let m = &r.record.machine;
    Ok(match d.get("field").unwrap_or("summary") {
        "summary" => machine_summary(&r.record),
        "cpu" => esc(&m.cpu_model),
        "cores" => m.available_parallelism.to_string(),
        "name" => esc(&m.name),
        other => return Err(format!("field=`{other}`: use summary, cpu, cores or name")),
    })
}

/// The rows of `data/NAME/machine.toml` (written by `scripts/machine-info.sh`), in this order.
const TOPOLOGY: [(&str, &str); 14] = [
    ("cpu_model", "CPU model"),
    ("vendor", "vendor"),
    ("family_model", "family and model"),
    ("cpus", "CPUs"),
    ("topology", "topology"),
    ("thread_siblings", "thread siblings"),
    ("caches", "caches"),
    ("hypervisor", "hypervisor"),
    ("clocksource", "clock source"),
    ("kernel", "kernel"),
    ("scheduler_tick", "scheduler tick"),
    ("glibc", "C library"),
    ("mimalloc", "mimalloc"),
    ("recorded", "recorded"),
];

/// What in a machine shapes its results, from `data/NAME/machine.toml`, as a two-column table.
fn topology(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["machine"])?;
    let machine = d.get("machine").unwrap_or(data.reference());
    let path = data.root().join("data").join(machine).join("machine.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "data/{machine}/machine.toml: {e} (write it on that machine with scripts/machine-info.sh {machine})"
        )
    })?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("data/{machine}/machine.toml: {e}"))?;
    if let Some(unknown) = table
        .keys()
        .find(|k| !TOPOLOGY.iter().any(|(key, _)| key == k))
    {
        return Err(format!(
            "data/{machine}/machine.toml: unknown key `{unknown}` (scripts/machine-info.sh writes {})",
            list(&TOPOLOGY.map(|(k, _)| k.to_string()))
        ));
    }
    let mut html = format!(
        "<table class=\"measure topology\"><thead><tr><th colspan=\"2\">{}</th></tr></thead><tbody>",
        esc(machine)
    );
    for (key, label) in TOPOLOGY {
        let value = table.get(key).and_then(|v| v.as_str()).ok_or_else(|| {
            format!("data/{machine}/machine.toml: `{key}` is missing or not a string")
        })?;
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(label),
            esc(value)
        ));
    }
    html.push_str("</tbody></table>\n");
    Ok(html)
}

fn machine_summary(rec: &Record) -> String {
    let m = &rec.machine;
    if rec.source.is_some() {
        return esc(&m.cpu_model);
    }
    format!(
        "{}, {} CPUs (available_parallelism {}), {:.0} GiB, {} {}",
        esc(&m.cpu_model),
        m.cores_seen,
        m.available_parallelism,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        m.os,
        esc(&m.kernel)
    )
}

/// The line under every table: where, how often, when, from which commit, how noisy; the rest
/// (CPU, versions, seed, load) one click away.
/// `reps`: the repetitions of the experiment the table or chart shows (experiments may run more
/// than the record's default).
pub fn provenance(data: &Data, rec: &Record, machine: &str, reps: u32) -> String {
    if let Some(src) = &rec.source {
        return format!(
            "<details class=\"provenance\"><summary>Published figures: {}</summary><p>{}. Setup: {}.</p></details>",
            esc(&src.document),
            esc(&src.location),
            esc(&src.setup)
        );
    }
    let crates: Vec<String> = rec
        .build
        .crates
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    let stale = data
        .staleness(rec)
        .map(|s| format!(" · <strong class=\"stale\">stale: {}</strong>", esc(&s)))
        .unwrap_or_default();
    let (noise_short, noise_long) = match record_noise(rec) {
        Some((median, max, noisy, cells)) => (
            format!(
                " · noise {} of a core{}",
                format_plain(median, "%"),
                if noisy > 0 {
                    format!(" (<strong>{} noisy</strong>)", count_cells(noisy))
                } else {
                    String::new()
                }
            ),
            format!(
                " Noise (CPU stolen by the hypervisor or used by other processes while a cell ran): median {}, at most {} of a core over {cells} cells; {noisy} above {}.",
                format_plain(median, "%"),
                format_plain(max, "%"),
                format_plain(noise::NOISY_PERCENT_OF_A_CORE, "%")
            ),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "<details class=\"provenance\"><summary>Measured on <code>{}</code> · {} repetitions · {} · commit <code>{}</code>{noise_short}{stale}</summary><p>{}; {}, {}; median with min–max over repetitions, variants interleaved (order seed {}); load average {:.2} before, {:.2} after.{noise_long}</p></details>",
        esc(machine),
        reps,
        esc(rec.created.get(..10).unwrap_or(&rec.created)),
        esc(&rec.build.commit),
        machine_summary(rec),
        esc(&rec.build.rustc),
        esc(&crates.join(", ")),
        rec.seed,
        rec.machine.load_before[0],
        rec.machine.load_after[0],
    )
}

/// A table's or chart's provenance line, where the page has not shown the same one already (the
/// same record, machine and repetitions): a page says where its figures come from once, and again
/// only where that changes (published figures, another machine, another experiment's count).
fn provenance_once(data: &Data, rec: &Record, machine: &str, reps: u32) -> String {
    let key = format!("{machine}/{}/{}/{reps}", rec.chapter, rec.created);
    if data.first_on_page(key) {
        provenance(data, rec, machine, reps)
    } else {
        String::new()
    }
}

/// Over every cell of a record: (median, max) of steal + other processes' CPU in percent of a
/// core, how many cells were noisy, and how many cells there were.
fn record_noise(rec: &Record) -> Option<(f64, f64, usize, usize)> {
    let totals: Vec<f64> = rec
        .series
        .iter()
        .filter(|s| s.metric == noise::STEAL)
        .filter_map(|s| {
            measure::report::cell_noise(rec, &s.experiment, &s.case, &s.variant).map(|n| n.total())
        })
        .collect();
    let summary = measure::Summary::of(&totals)?;
    let noisy = totals
        .iter()
        .filter(|t| **t > noise::NOISY_PERCENT_OF_A_CORE)
        .count();
    Some((summary.median, summary.max, noisy, totals.len()))
}

/// A claim, checked where it is stated: its figure with the interval its verdict was judged on
/// (or a mark), with the claim in the hover text. On the book's own machine a conclusion that is
/// not *held*, or a broken invariant, fails the build; on another machine the verdict is shown
/// beside the figure.
fn claim(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "id", "show"])?;
    let r = data.resolve_record_only(d)?;
    let record = d.get("record").unwrap_or_default();
    let id = d
        .get("id")
        .ok_or("missing id=CLAIM (a claim's id in listings/<record>/claims.toml)")?;
    let claims = data.claims(record)?;
    let claim = claims.get(id).ok_or_else(|| {
        format!(
            "no claim `{id}` in listings/{record}/claims.toml; it has: {}",
            claims.ids().join(", ")
        )
    })?;
    let show = d.get("show").unwrap_or("figure");
    if !["figure", "short", "mark", "answer"].contains(&show) {
        return Err(format!("show=`{show}`: use figure, short, mark or answer"));
    }
    data.note_claim_used(record, id);
    let outcome = claim.check(&r.record);
    let machine = &r.machine;
    let noisy = claim_noise(claim, &r.record);
    let noise = noisy
        .as_ref()
        .map(|n| format!(" ({})", noise_note(n)))
        .unwrap_or_default();
    let title = format!(
        "Checked {}: {}. On {machine}: {}, {}{noise}.",
        claim.kind.name(),
        claim.says,
        outcome.word(),
        outcome.summary()
    );
    if data.is_reference(machine, record) {
        match &outcome.verdict {
            Verdict::Held => {}
            Verdict::Missing(why) => {
                return Err(format!(
                    "{} `{id}` cannot be checked on {machine}: {why}",
                    claim.kind.name()
                ));
            }
            _ => {
                return Err(format!(
                    "{} `{id}` is {} on {machine}, the book's machine for this chapter: {}{noise}. The sentence says: {}",
                    claim.kind.name(),
                    outcome.word(),
                    outcome.summary(),
                    claim.says
                ));
            }
        }
    }
    let Some((class, sign)) = verdict_mark(&outcome.verdict) else {
        return Ok(format!(
            "<span class=\"measure-na\" title=\"{}\">n/a</span>",
            esc(&format!(
                "Claim `{id}` not checked on {machine}: {}",
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
    let figure = claim_link(data, record, id, class, &title, &esc(&outcome.figure));
    // A checklist's magnitude: the figure alone (its interval is one link away).
    if show == "short" {
        return Ok(format!("{figure}{verdict}"));
    }
    let figure = format!(
        "{figure} <span class=\"claim-interval\">({})</span>",
        esc(&outcome.interval_text())
    );
    Ok(match show {
        // An exercise's folded answer: the claim's id and sentence beside its figure, in plain view.
        "answer" => format!(
            "<code>{}</code>: {figure} {sign}{verdict} {} ({}: {})",
            esc(id),
            esc(&claim.says),
            claim.kind.name(),
            esc(&outcome.bound)
        ),
        // A mark alone where the claim held; where it did not, the verdict itself (a link).
        "mark" if !outcome.held() => verdict.trim_start().to_string(),
        "mark" => {
            let (tag, href) = match &href {
                Some(href) => ("a", format!(" href=\"{href}\"")),
                None => ("span", String::new()),
            };
            format!(
                "<{tag} class=\"claim-mark {class}\"{href} title=\"{}\" aria-label=\"checked claim: {}\">✓</{tag}>",
                esc(&title),
                outcome.word()
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
fn claim_href(data: &Data, record: &str, id: &str) -> Option<String> {
    data.claim_list_page(record)
        .map(|page| format!("{}#{}", esc(page), claim_anchor(record, id)))
}

/// A verdict's CSS class and sign; none for a claim that could not be checked.
fn verdict_mark(v: &Verdict) -> Option<(&'static str, &'static str)> {
    match v {
        Verdict::Held => Some(("held", "✓")),
        Verdict::NotShown => Some(("not-shown", "?")),
        Verdict::Refuted => Some(("not-held", "✗")),
        Verdict::Missing(_) => None,
    }
}

/// A chapter's checked claims (`\{{#measure claims record=R}}`), for its end: each conclusion's
/// sentence, figure with its interval, bound and verdict on the page's machine, then the
/// invariants; what a reader without a mouse, and paper, sees of them. Listing a claim does not
/// state it: a claim still needs its sentence in the prose.
fn claims_list(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine"])?;
    let r = data.resolve_record_only(d)?;
    let record = d.get("record").unwrap_or_default();
    let claims = data.claims(record)?;
    let entry = |c: &measure::claims::Claim| {
        let outcome = c.check(&r.record);
        let (class, sign) = verdict_mark(&outcome.verdict).unwrap_or(("not-checked", "–"));
        let figure = match &outcome.verdict {
            Verdict::Missing(why) => esc(why),
            _ => format!(
                "{} <span class=\"claim-interval\">({})</span>; {}: {}",
                esc(&outcome.figure),
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
    let held = conclusions.iter().filter(|(h, _)| *h).count();
    let mut html = format!(
        "<div class=\"claims-list\">\n<p class=\"claims-total\">On {}: {held} of {} conclusions held.</p>\n<ol class=\"claims\">\n",
        esc(&r.machine),
        conclusions.len()
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
fn verdict_summary(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine"])?;
    let r = data.resolve_record_only(d)?;
    let record = d.get("record").unwrap_or_default();
    let claims = data.claims(record)?;
    let mut failed = Vec::new();
    let (mut held, mut judged) = (0, 0);
    for c in claims.conclusions() {
        let outcome = c.check(&r.record);
        let Some((class, sign)) = verdict_mark(&outcome.verdict) else {
            continue; // not measured there: counted by the claims list, not judged here
        };
        judged += 1;
        if outcome.held() {
            held += 1;
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
            esc(&outcome.figure),
            esc(&outcome.interval_text()),
            esc(&outcome.bound),
            notes.join("; ")
        ));
    }
    if judged == 0 {
        return Ok(String::new());
    }
    let mut html = format!(
        "<p class=\"verdict-summary\"><strong>On {}: {held} of {judged} conclusions held.</strong>",
        esc(&r.machine)
    );
    if failed.is_empty() {
        html.push_str("</p>\n");
    } else {
        html.push_str(" These did not:</p>\n<ul class=\"verdict-summary\">\n");
        html.push_str(&failed.join("\n"));
        html.push_str("\n</ul>\n");
    }
    Ok(html)
}

/// Claims on the chapter's machine, quiet and beside a busy neighbour
/// (`\{{#measure busy record=R machine=BUSY ids=a,b}}`): one row a claim, its sentence, its
/// figure and verdict on each; both columns the book's machine, in a reader's book too.
fn busy(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "ids"])?;
    let record = d.get("record").ok_or("missing record=CHAPTER")?;
    let busy = d
        .get("machine")
        .ok_or("missing machine=NAME (the busy machine's folder under data/)")?;
    let ids: Vec<&str> = d
        .get("ids")
        .ok_or("missing ids=a,b,... (the claims to compare)")?
        .split(',')
        .collect();
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
            let o = c.check(rec);
            let (class, sign) = verdict_mark(&o.verdict).unwrap_or(("not-checked", "–"));
            let figure = match &href {
                Some(h) => format!(
                    "<a class=\"claim {class}\" href=\"{h}\">{}</a>",
                    esc(&o.figure)
                ),
                None => esc(&o.figure),
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

/// "1 cell", "41 cells".
fn count_cells(n: usize) -> String {
    if n == 1 {
        "1 cell".into()
    } else {
        format!("{n} cells")
    }
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
fn coverage(d: &Directive) -> Result<String, String> {
    d.check_keys(&["reps"])?;
    let level = match d.get("reps") {
        None => measure::verdict::CONFIDENCE,
        Some(n) => {
            let n: usize = n
                .parse()
                .map_err(|_| format!("reps=`{n}`: a whole number"))?;
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

/// A record's verdicts in one sentence: "15 held, 3 not shown (`a`, `b`, `c`) and 1 refuted
/// (`d`, which needs a quiet machine) of 19 conclusions; 4 of 4 invariants held".
fn verdicts(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine"])?;
    let r = data.resolve_record_only(d)?;
    let claims = data.claims(d.get("record").unwrap_or_default())?;
    let (mut held, mut not_shown, mut refuted, mut missing) = (0, Vec::new(), Vec::new(), 0);
    for c in claims.conclusions() {
        let named = if c.quiet {
            format!("<code>{}</code> (quiet)", esc(&c.id))
        } else {
            format!("<code>{}</code>", esc(&c.id))
        };
        match c.check(&r.record).verdict {
            Verdict::Held => held += 1,
            Verdict::NotShown => not_shown.push(named),
            Verdict::Refuted => refuted.push(named),
            Verdict::Missing(_) => missing += 1,
        }
    }
    let invariants: Vec<Verdict> = claims
        .invariants()
        .map(|c| c.check(&r.record).verdict)
        .collect();
    let named = |v: &[String]| {
        if v.is_empty() {
            String::new()
        } else {
            format!(" ({})", v.join(", "))
        }
    };
    let mut text = format!(
        "{held} held, {} not shown{} and {} refuted{} of {} conclusions",
        not_shown.len(),
        named(&not_shown),
        refuted.len(),
        named(&refuted),
        held + not_shown.len() + refuted.len() + missing
    );
    if missing > 0 {
        text.push_str(&format!(" ({missing} not measured there)"));
    }
    let measured = invariants
        .iter()
        .filter(|v| !matches!(v, Verdict::Missing(_)))
        .count();
    if measured > 0 {
        let ok = invariants.iter().filter(|v| **v == Verdict::Held).count();
        text.push_str(&format!("; {ok} of {measured} invariants held"));
    }
    Ok(format!(
        "<span class=\"verdicts\" title=\"on {}\">{text}</span>",
        esc(&r.machine)
    ))
}

/// One change to one claim, for the page "How the conclusions changed".
struct Erratum<'a> {
    listing: String,
    id: &'a str,
    change: &'a measure::claims::Change,
    /// The version that replaced `change.was`; none for a claim retired for good.
    now: Option<&'a measure::claims::Claim>,
}

/// Every history entry of every listing's claims, newest first: `show=summary` (the counts),
/// `failures` (changes after the data contradicted a claim), `other` (reviews, redesigns,
/// invariants, bounds moved without a failure) or `retired`.
fn history(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["show"])?;
    let show = d.get("show").unwrap_or_default();
    if !["summary", "failures", "other", "retired"].contains(&show) {
        return Err(format!(
            "show=`{show}`: use summary, failures, other or retired"
        ));
    }
    let all: Vec<(String, std::rc::Rc<measure::Claims>)> = data
        .listings()
        .into_iter()
        .map(|l| data.claims(&l).map(|c| (l, c)))
        .collect::<Result<_, _>>()?;
    let mut rows: Vec<Erratum> = Vec::new();
    for (listing, claims) in &all {
        for claim in &claims.claims {
            for (i, change) in claim.history.iter().enumerate() {
                let now = claim.history.get(i + 1).map_or(claim, |next| &*next.was);
                rows.push(Erratum {
                    listing: listing.clone(),
                    id: &claim.id,
                    change,
                    now: Some(now),
                });
            }
        }
        for r in &claims.retired {
            for (i, change) in r.history.iter().enumerate() {
                let now = r
                    .history
                    .get(i + 1)
                    .map_or(&*r.change.was, |next| &*next.was);
                rows.push(Erratum {
                    listing: listing.clone(),
                    id: &r.id,
                    change,
                    now: Some(now),
                });
            }
            rows.push(Erratum {
                listing: listing.clone(),
                id: &r.id,
                change: &r.change,
                now: None,
            });
        }
    }
    rows.sort_by(|a, b| {
        (b.change.date.as_str(), &a.listing, a.id).cmp(&(a.change.date.as_str(), &b.listing, b.id))
    });
    if show == "summary" {
        let changed: std::collections::BTreeSet<(&str, &str)> = rows
            .iter()
            .filter(|r| r.now.is_some())
            .map(|r| (r.listing.as_str(), r.id))
            .collect();
        let changes: Vec<&Erratum> = rows.iter().filter(|r| r.now.is_some()).collect();
        let failures = changes
            .iter()
            .filter(|r| r.change.cause.after_a_failure())
            .count();
        let retired = rows.len() - changes.len();
        return Ok(format!(
            "Changes recorded: {}, to {} claims; made because the data contradicted the claim: {failures}. Claims retired for good: {retired}.",
            changes.len(),
            changed.len()
        ));
    }
    let chosen: Vec<&Erratum> = rows
        .iter()
        .filter(|r| match show {
            "failures" => r.now.is_some() && r.change.cause.after_a_failure(),
            "other" => r.now.is_some() && !r.change.cause.after_a_failure(),
            _ => r.now.is_none(),
        })
        .collect();
    if chosen.is_empty() {
        return Ok("<p>None.</p>\n".into());
    }
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure history\"><thead><tr><th>date</th><th>claim</th><th>what changed</th><th>why, and the figures</th></tr></thead><tbody>",
    );
    for r in chosen {
        let was = &r.change.was;
        let version = |c: &measure::claims::Claim| {
            format!(
                "“{}” ({}: {})",
                esc(&c.says),
                c.kind.name(),
                esc(&c.bound_text())
            )
        };
        let what = match r.now {
            Some(now) => format!(
                "{}<br>was: {}<br>now: {}",
                esc(&measure::history::differences(was, now).join(", ")),
                version(was),
                version(now)
            ),
            None => format!("retired: {}", version(was)),
        };
        let commit = r
            .change
            .commit
            .as_ref()
            .map(|c| format!(" (commit <code>{}</code>)", esc(c)))
            .unwrap_or_default();
        let renamed = if was.id != r.id {
            format!("<br>was <code>{}</code>", esc(&was.id))
        } else {
            String::new()
        };
        html.push_str(&format!(
            "<tr><td>{}{commit}</td><td><a href=\"{}.html\">{}</a>: <code>{}</code>{renamed}</td><td>{what}</td><td><strong>{}</strong>: {}<br>Figures: {}</td></tr>",
            esc(&r.change.date),
            esc(&r.listing),
            esc(&r.listing),
            esc(r.id),
            esc(r.change.cause.words()),
            esc(&r.change.why),
            esc(&r.change.figures)
        ));
    }
    html.push_str("</tbody></table></div>\n");
    Ok(html)
}

/// The title page's list: which machine each chapter's figures come from.
fn machines(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["records"])?;
    let records = data.records_or_all(d.get("records"))?;
    let mut html = String::from(
        "<table class=\"measure machines\"><thead><tr><th>chapter</th><th>machine</th><th>CPU</th><th>measured</th><th>noise (median, of a core)</th></tr></thead><tbody>",
    );
    for name in &records {
        let machine = data.machine_for(name, None);
        let rec = data.record(&machine, name)?;
        let noise = record_noise(&rec)
            .map(|(median, _, noisy, _)| {
                format!(
                    "{}{}",
                    format_plain(median, "%"),
                    if noisy > 0 {
                        format!(", {} noisy", count_cells(noisy))
                    } else {
                        String::new()
                    }
                )
            })
            .unwrap_or_else(|| "not recorded".into());
        let m = &rec.machine;
        html.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}, {} CPUs</td><td>{}, {} repetitions</td><td>{}</td></tr>",
            esc(&rec.title),
            esc(&machine),
            esc(&m.cpu_model),
            m.available_parallelism,
            esc(rec.created.get(..10).unwrap_or(&rec.created)),
            rec.reps,
            esc(&noise)
        ));
    }
    html.push_str("</tbody></table>\n");
    Ok(html)
}

/// A figure of a claim, as a link to its entry in its chapter's list (its sentence, bound and
/// verdict without a mouse) where a page lists it; `inner` is HTML.
fn claim_link(
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

/// How long a chapter's full run took on the machine its figures come from, if the record says.
struct FullRun {
    seconds: f64,
    machine: String,
    /// How long one repetition of every case measures, if the record keeps its experiments' times.
    one_rep: Option<f64>,
    /// Whether the full run fits in the chapter's demo minutes.
    live: bool,
}

fn full_run(data: &Data, session: &Session) -> Option<FullRun> {
    let machine = data.machine_for(&session.record, None);
    let rec = data.record(&machine, &session.record).ok()?;
    let seconds = rec.run_seconds?;
    Some(FullRun {
        seconds,
        one_rep: estimated_seconds(&rec, &[], Some(1)).ok(),
        live: seconds <= 60.0 * f64::from(session.demo),
        machine,
    })
}

/// How long a run of the listing measures on the record's machine: the `experiments` named (every
/// one when empty) at `reps` repetitions (the record's when `None`). What the run spends outside
/// the experiments is left out: mostly builds of child binaries, which a second run skips.
pub fn estimated_seconds(
    rec: &Record,
    experiments: &[&str],
    reps: Option<u32>,
) -> Result<f64, String> {
    if rec.experiment_seconds.is_empty() {
        return Err(format!(
            "the record of {} on {} does not keep how long its experiments took (it predates run times): rerun it with --save",
            rec.chapter, rec.machine.name
        ));
    }
    let mut chosen = 0.0;
    for (name, secs) in &rec.experiment_seconds {
        if experiments.is_empty() || experiments.contains(&name.as_str()) {
            let ran = f64::from(rec.reps_of(name));
            chosen += secs * reps.map_or(1.0, |r| f64::from(r) / ran);
        }
    }
    if let Some(unknown) = experiments
        .iter()
        .find(|e| !rec.experiment_seconds.contains_key(**e))
    {
        let known: Vec<String> = rec.experiment_seconds.keys().cloned().collect();
        return Err(format!(
            "experiment `{unknown}` is not in the record; it has {}",
            list(&known)
        ));
    }
    Ok(chosen)
}

/// A duration as a reader plans with it: seconds to the nearest five under a minute, else whole
/// minutes.
fn about(seconds: f64) -> String {
    if seconds < 7.5 {
        return "a few seconds".into();
    }
    if seconds < 57.5 {
        return format!("about {} seconds", (seconds / 5.0).round() * 5.0);
    }
    let halves = (seconds / 30.0).round() as u64;
    match (halves / 2, halves % 2) {
        (1, 0) => "about a minute".into(),
        (1, _) => "about a minute and a half".into(),
        (m, 0) => format!("about {m} minutes"),
        (m, _) => format!("about {m}½ minutes"),
    }
}

/// "about 10 to 20 seconds" for a run that measured for `lo` seconds on one machine and `hi` on
/// another: the unit said once where both ends share it.
fn about_range(lo: f64, hi: f64) -> String {
    let (from, to) = (about(lo), about(hi));
    let to = to.strip_prefix("about ").unwrap_or(&to);
    for unit in [" seconds", " minutes"] {
        if let (Some(from), Some(to)) = (from.strip_suffix(unit), to.strip_suffix(unit)) {
            return format!("{from} to {to}{unit}");
        }
    }
    format!("{from} to {to}")
}

/// Machines whose estimates differ by more than this factor are shown as a range.
const AGREE_WITHIN: f64 = 1.5;

/// How long a run measures, from each machine's record: the page's machine first.
struct RunEstimate {
    record: String,
    /// (machine, seconds), the page's machine first, then the others by name.
    machines: Vec<(String, f64)>,
}

impl RunEstimate {
    /// The page's machine's estimate, with every other machine under `data/` whose record of the
    /// chapter keeps its run times (all of them unless `machine=` names one): a reader plans with
    /// what the run took on each, not on the one machine the figures come from.
    fn of(
        data: &Data,
        record: &str,
        named: Option<&str>,
        experiments: &[&str],
        reps: Option<u32>,
        scale: f64,
    ) -> Result<RunEstimate, String> {
        let page_machine = data.machine_for(record, named);
        let rec = data.record(&page_machine, record)?;
        let mut machines = vec![(
            page_machine.clone(),
            scale * estimated_seconds(&rec, experiments, reps)?,
        )];
        if named.is_none() {
            for machine in data.measured_machines() {
                if machine == page_machine {
                    continue;
                }
                // A machine without this chapter, or whose record predates run times or lacks
                // the experiment, has nothing to say about this run.
                let Ok(rec) = data.record(&machine, record) else {
                    continue;
                };
                if let Ok(secs) = estimated_seconds(&rec, experiments, reps) {
                    machines.push((machine, scale * secs));
                }
            }
        }
        Ok(RunEstimate {
            record: record.to_string(),
            machines,
        })
    }

    /// One figure where the machines agree within [`AGREE_WITHIN`] (the page's machine's), a
    /// range where they do not.
    fn shown(&self) -> String {
        let secs = self.machines.iter().map(|(_, s)| *s);
        let lo = secs.clone().fold(f64::INFINITY, f64::min);
        let hi = secs.fold(0.0, f64::max);
        if hi <= AGREE_WITHIN * lo || about(lo) == about(hi) {
            about(self.machines[0].1)
        } else {
            about_range(lo, hi)
        }
    }

    /// Where the estimate comes from: the record on each machine, with each one's figure.
    fn title(&self) -> String {
        match self.machines.as_slice() {
            [(machine, _)] => format!(
                "estimated from the run times kept in the record of {} on {machine}",
                self.record
            ),
            all => {
                let each: Vec<String> = all
                    .iter()
                    .map(|(m, s)| format!("{m}: {}", about(*s)))
                    .collect();
                format!(
                    "estimated from the run times kept in the records of {} on {} machines ({})",
                    self.record,
                    all.len(),
                    each.join("; ")
                )
            }
        }
    }
}

/// How long a run (`experiment=a,b` for `--filter a --filter b`; `reps=N` for `--reps N`) takes,
/// estimated from the records of the chapter on every machine under `data/` that keeps its run
/// times (`machine=NAME`: that machine's alone): one figure where they agree, a range where they
/// differ, and the machines in the title. `scale=5/3` for a run the records do not have (more
/// cases, more work per case), with the factor stated in the page.
fn runtime(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "machine", "experiment", "reps", "scale"])?;
    let experiments: Vec<&str> = d
        .get("experiment")
        .map(|e| e.split(',').collect())
        .unwrap_or_default();
    let reps = d
        .get("reps")
        .map(|n| {
            n.parse::<u32>().ok().filter(|n| *n > 0).ok_or(format!(
                "reps={n}: a whole number of repetitions, 1 or more"
            ))
        })
        .transpose()?;
    let scale = match d.get("scale") {
        None => 1.0,
        Some(f) => {
            let (top, bottom) = f.split_once('/').unwrap_or((f, "1"));
            match (top.parse::<f64>(), bottom.parse::<f64>()) {
                (Ok(t), Ok(b)) if t > 0.0 && b > 0.0 => t / b,
                _ => {
                    return Err(format!(
                        "scale={f}: a positive number or fraction, e.g. 5/3"
                    ));
                }
            }
        }
    };
    let record = d
        .get("record")
        .ok_or("missing `record=<chapter>` (e.g. record=ch01-blocking)")?;
    let estimate = RunEstimate::of(data, record, d.get("machine"), &experiments, reps, scale)?;
    Ok(format!(
        "<span class=\"measure-runtime\" title=\"{}\">{}</span>",
        esc(&estimate.title()),
        esc(&estimate.shown())
    ))
}

/// A course exercise's hints, one per folded block, from its chapter's manifest (what
/// `cargo run -p course -- hint NAME` shows), with the runner's commands for it.
fn hints(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["exercise"])?;
    let name = d
        .get("exercise")
        .ok_or("missing exercise=NAME (an [[exercise]] of a chapter's chapter.toml)")?;
    let all = course::exercises(data.root()).map_err(|e| format!("{e:#}"))?;
    let exercise = course::find(&all, name).map_err(|e| format!("{e:#}"))?;
    let hints = &exercise.hints;
    if hints.is_empty() {
        return Err(format!("exercise `{name}` has no hints"));
    }
    let mut html = format!(
        "<p class=\"measure-note exercise\">In the course runner: <code>cargo run -p course -- start {0}</code> makes your own copy to work in, <code>check {0}</code> runs its test, <code>hint {0}</code> gives the hints below one at a time, <code>reset {0}</code> starts again.</p>\n",
        esc(name)
    );
    for (i, hint) in hints.iter().enumerate() {
        html.push_str(&format!(
            "<details class=\"hint\"><summary>Hint {}</summary><p>{}</p></details>\n",
            i + 1,
            code_spans(&esc(hint))
        ));
    }
    Ok(html)
}

/// `code` in backticks as `<code>`, in text already escaped.
fn code_spans(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{part}</code>"));
        } else {
            out.push_str(part);
        }
    }
    out
}

fn duration(seconds: f64) -> String {
    let m = (seconds / 60.0).floor();
    let s = (seconds - 60.0 * m).round();
    if m == 0.0 {
        format!("{s} s")
    } else {
        format!("{m} min {s:02} s")
    }
}

/// A chapter's minutes in a workshop (read again by every `schedule`), and how long its full run
/// takes, so a teacher knows whether to run it live.
fn minutes(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["record", "reading", "demo", "exercises"])?;
    let record = d.get("record").unwrap_or_default();
    let s = data.session(record)?;
    let run = match full_run(data, s) {
        Some(run) => {
            let when = if run.live {
                "short enough to run live"
            } else {
                "run it before class"
            };
            let classroom = run.one_rep.map_or(String::new(), |r| {
                format!(
                    " One repetition of every case, <code>cargo run -p {} -- --reps 1</code>, measures for {}: the classroom run (the commands below give their own times).",
                    esc(record),
                    about(r)
                )
            });
            format!(
                " A full run, <code>cargo run -p {}</code>, took {} on <code>{}</code>: {when}.{classroom}",
                esc(record),
                duration(run.seconds),
                esc(&run.machine)
            )
        }
        None => format!(
            " This record does not say how long a full run takes (<code>cargo run -p {} -- --help</code> does); the quick mode runs live.",
            esc(record)
        ),
    };
    Ok(format!(
        "<div class=\"measure-note workshop\"><strong>In a workshop:</strong> {} min reading, {} min demo, {} min exercises ({} min).{run} See <a href=\"workshop.html\">Running a workshop</a>.</div>\n",
        s.reading,
        s.demo,
        s.exercises,
        s.total()
    ))
}

/// A workshop's schedule from the chapters' own minutes, with a break (the next of `breaks`)
/// before a chapter that would take the sessions since the last one past `every` minutes; the
/// build fails when it does not fit in `length` minutes.
fn schedule(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["length", "chapters", "breaks", "every", "intro"])?;
    let number = |key: &str, default: Option<u32>| -> Result<u32, String> {
        match d.get(key) {
            Some(v) => v
                .parse()
                .map_err(|_| format!("{key}={v}: a whole number of minutes")),
            None => default.ok_or(format!("missing {key}=MINUTES")),
        }
    };
    let length = number("length", None)?;
    let every = number("every", Some(90))?;
    let intro = number("intro", Some(0))?;
    let breaks: Vec<u32> = d
        .get("breaks")
        .map(|b| {
            b.split(',')
                .map(|x| {
                    x.parse()
                        .map_err(|_| format!("breaks: `{x}` is not minutes"))
                })
                .collect()
        })
        .transpose()?
        .unwrap_or_default();
    // Without `chapters=`, every chapter whose page states its minutes; the rest are named
    // under the schedule, so that a new chapter shows up before it has a slot.
    let (chapters, unscheduled): (Vec<String>, Vec<String>) = match d.get("chapters") {
        Some(_) => (data.records_or_all(d.get("chapters"))?, Vec::new()),
        None => data
            .records_or_all(None)?
            .into_iter()
            .partition(|r| data.session(r).is_ok()),
    };
    let clock = |m: u32| format!("{}:{:02}", m / 60, m % 60);
    let mut rows = Vec::new();
    let (mut at, mut since_break, mut next_break) = (0u32, 0u32, breaks.iter());
    if intro > 0 {
        rows.push(format!(
            "<tr><td>{}</td><td>Introduction and setup</td><td>{intro}</td><td></td></tr>",
            clock(at)
        ));
        at += intro;
    }
    for record in &chapters {
        let s = data.session(record)?;
        if since_break + s.total() > every
            && let Some(b) = next_break.next()
        {
            rows.push(format!(
                "<tr class=\"break\"><td>{}</td><td><em>{}</em></td><td>{b}</td><td></td></tr>",
                clock(at),
                if *b >= 30 { "Lunch" } else { "Break" }
            ));
            at += b;
            since_break = 0;
        }
        // The run column's legend is on the workshop page: live or before class, the full run's
        // time on the chapter's machine, and one repetition of every case.
        let run = match full_run(data, s) {
            Some(run) => {
                let when = if run.live { "live" } else { "before class" };
                let classroom = run.one_rep.map_or(String::new(), |r| {
                    format!("<br><code>--reps 1</code>: {}", about(r))
                });
                format!(
                    "<strong>{when}</strong>: full run {}{classroom}",
                    duration(run.seconds).replace(' ', "\u{a0}")
                )
            }
            None => "<strong>quick mode</strong>, live".into(),
        };
        // The chapter by its name (its exercises' page is titled after it), and what the slot's
        // exercises are: the fix-it exercise and the predict-then-measure question.
        let machine = data.machine_for(record, None);
        let rec = data.record(&machine, record).ok();
        let title = rec
            .as_ref()
            .map_or(s.title.clone(), |r| chapter_heading(record, &r.title));
        rows.push(format!(
            "<tr><td>{}</td><td><a href=\"{}\">{}</a><br><small>{} reading · {} demo · {} exercises</small>{}</td><td>{}</td><td>{}</td></tr>",
            clock(at),
            esc(&s.page),
            esc(&title),
            s.reading,
            s.demo,
            s.exercises,
            slot_exercises(data, record, rec.as_deref())?,
            s.total(),
            run
        ));
        at += s.total();
        since_break += s.total();
    }
    if at > length {
        return Err(format!(
            "this schedule takes {at} min, more than its length={length}: drop a chapter or shorten the chapters' minutes"
        ));
    }
    let waiting = if unscheduled.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = unscheduled
            .iter()
            .map(|r| {
                let title = data
                    .chapters()
                    .iter()
                    .find(|m| m.name == *r)
                    .map_or(r.clone(), |m| chapter_heading(r, &m.title));
                esc(&title)
            })
            .collect();
        format!(
            "<p class=\"schedule-waiting\">Not in a schedule yet, since its page states no workshop minutes: {}.</p>\n",
            names.join("; ")
        )
    };
    Ok(format!(
        "<table class=\"measure schedule\"><thead><tr><th>at</th><th>session and its exercises</th><th>min</th><th>run: the full run (live or before class), and one repetition</th></tr></thead><tbody>{}</tbody></table>\n<p class=\"schedule-total\">{at} of {length} minutes.</p>\n{waiting}",
        rows.join("")
    ))
}

/// A schedule slot's exercises, from the chapter's manifest: its fix-it exercise (its
/// name, what the course runner calls it) and its predict-then-measure question, with the run
/// that answers it and how long that measures. A chapter without either, or a question whose
/// experiment the chapter's record lacks, fails the build.
fn slot_exercises(data: &Data, record: &str, rec: Option<&Record>) -> Result<String, String> {
    let fixes = course::exercises(data.root()).map_err(|e| format!("{e:#}"))?;
    let fixes: Vec<&course::Exercise> = fixes.iter().filter(|e| e.chapter == record).collect();
    let predicts = course::predictions(data.root()).map_err(|e| format!("{e:#}"))?;
    let predicts: Vec<&course::Predict> = predicts.iter().filter(|p| p.chapter == record).collect();
    if fixes.is_empty() || predicts.is_empty() {
        return Err(format!(
            "listings/{record}/chapter.toml has no {}: a chapter in a workshop's schedule needs both, its fix-it exercise ([[exercise]]) and its predict-then-measure question ([predict])",
            if fixes.is_empty() {
                "[[exercise]]"
            } else {
                "[predict]"
            }
        ));
    }
    let mut items = Vec::new();
    for e in fixes {
        items.push(format!(
            "<li>fix it: <code>{}</code> ({})</li>",
            esc(&e.name),
            code_spans(&esc(&e.title))
        ));
    }
    for p in predicts {
        let time = match rec {
            Some(rec) => {
                if !rec.series.iter().any(|s| s.experiment == p.experiment) {
                    let mut known: Vec<String> =
                        rec.series.iter().map(|s| s.experiment.clone()).collect();
                    known.sort();
                    known.dedup();
                    return Err(format!(
                        "listings/{record}/chapter.toml: the predict-then-measure question runs experiment `{}`, which its record does not have; it has {}",
                        p.experiment,
                        list(&known)
                    ));
                }
                // As the chapter's own predict item says it: from every machine's record.
                RunEstimate::of(data, record, None, &[p.experiment.as_str()], Some(1), 1.0)
                    .map_or(String::new(), |estimate| format!(", {}", estimate.shown()))
            }
            None => String::new(),
        };
        items.push(format!(
            "<li>predict, then measure: {} <small>(<code>--filter {} --reps 1</code>{time})</small></li>",
            code_spans(&esc(&p.question)),
            esc(&p.experiment)
        ));
    }
    Ok(format!(
        "<ul class=\"schedule-items\">{}</ul>",
        items.join("")
    ))
}

fn versions(data: &Data, d: &Directive) -> Result<String, String> {
    d.check_keys(&["crates"])?;
    let locked = locked_versions(data.root())?;
    let toolchain = std::fs::read_to_string(data.root().join("rust-toolchain.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| {
            t.get("toolchain")?
                .get("channel")?
                .as_str()
                .map(str::to_string)
        })
        .ok_or("rust-toolchain.toml has no [toolchain] channel")?;
    // The book's own renderer, then each chapter's crates as its manifest lists them.
    let mut wanted: Vec<&str> = vec!["mdbook-driver"];
    match d.get("crates") {
        Some(c) => wanted = c.split(',').collect(),
        None => {
            for m in data.chapters() {
                for c in &m.crates {
                    if !wanted.contains(&c.as_str()) {
                        wanted.push(c);
                    }
                }
            }
        }
    }
    let mut html = format!(
        "<table class=\"measure versions\"><thead><tr><th>component</th><th>version</th></tr></thead><tbody><tr><td>Rust toolchain</td><td>{}</td></tr>",
        esc(&toolchain)
    );
    for name in wanted {
        match locked.get(name) {
            Some(v) => html.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td></tr>",
                esc(name),
                esc(v)
            )),
            None => return Err(format!("`{name}` is not in Cargo.lock")),
        }
    }
    html.push_str("</tbody></table>\n");
    Ok(html)
}

#[cfg(test)]
mod tests {
    use super::{RunEstimate, about_range, whole_number};

    fn estimate(machines: &[(&str, f64)]) -> RunEstimate {
        RunEstimate {
            record: "ch99-demo".into(),
            machines: machines.iter().map(|(m, s)| (m.to_string(), *s)).collect(),
        }
    }

    #[test]
    fn machines_that_agree_give_one_figure_and_others_a_range() {
        // One machine: its figure, and its name in the title.
        let one = estimate(&[("quiet", 42.0)]);
        assert_eq!(one.shown(), "about 40 seconds");
        assert_eq!(
            one.title(),
            "estimated from the run times kept in the record of ch99-demo on quiet"
        );
        // Within 1.5×: the page's machine's figure; the title names both, each with its own.
        let agree = estimate(&[("quiet", 42.0), ("busy", 55.0)]);
        assert_eq!(agree.shown(), "about 40 seconds");
        assert_eq!(
            agree.title(),
            "estimated from the run times kept in the records of ch99-demo on 2 machines (quiet: about 40 seconds; busy: about 55 seconds)"
        );
        // Further apart: a range from the fastest to the slowest, whichever is the page's.
        assert_eq!(
            estimate(&[("busy", 87.0), ("quiet", 42.0)]).shown(),
            "about 40 seconds to a minute and a half"
        );
        assert_eq!(
            estimate(&[("a", 10.0), ("b", 20.0), ("c", 14.0)]).shown(),
            "about 10 to 20 seconds"
        );
        // Apart by more than 1.5× but the same when rounded: one figure.
        assert_eq!(estimate(&[("a", 2.0), ("b", 7.0)]).shown(), "a few seconds");
    }

    #[test]
    fn a_range_says_its_unit_once_where_both_ends_share_it() {
        assert_eq!(about_range(10.0, 20.0), "about 10 to 20 seconds");
        assert_eq!(about_range(3.0, 20.0), "a few to 20 seconds");
        assert_eq!(about_range(120.0, 210.0), "about 2 to 3½ minutes");
        assert_eq!(
            about_range(42.0, 87.0),
            "about 40 seconds to a minute and a half"
        );
        assert_eq!(about_range(40.0, 120.0), "about 40 seconds to 2 minutes");
        assert_eq!(about_range(60.0, 180.0), "about a minute to 3 minutes");
    }

    #[test]
    fn a_whole_case_loses_its_padding_and_a_fraction_keeps_it() {
        assert_eq!(whole_number("4.00 KiB"), "4 KiB");
        assert_eq!(whole_number("64.0 KiB"), "64 KiB");
        assert_eq!(whole_number("1.50 MiB"), "1.50 MiB");
        assert_eq!(whole_number("100 B"), "100 B");
    }
}
