//! Tables (`table`) and the numbered tables and figures they share with charts (`ref`): the grid
//! of cases, variants and metrics a table or chart lays out, and how wide a page can show it.

use super::number;
use super::provenance::provenance_once;
use crate::data::{Data, Dim, Resolved, Select, list};
use crate::esc;
use measure::claims::resolve_case;
use measure::format::{format_plain, format_value};
use measure::noise;
use serde::Deserialize;

/// What a table and a chart share: the cells they read (a selection, and the cases, variants or
/// metrics they lay out, `cases=0,1` to choose and order them, the noise metrics only where
/// `metrics=` names them), how cases are named (`label=`, `case-unit=B`,
/// `case-names="case:name;..."`), the caption, and `id=` to number it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Grid {
    #[serde(rename = "*")]
    pub select: Select,
    pub cases: Option<Vec<String>>,
    pub variants: Option<Vec<String>>,
    pub metrics: Option<Vec<String>>,
    pub caption: Option<String>,
    pub label: Option<String>,
    pub id: Option<String>,
    pub case_unit: Option<String>,
    pub case_names: Option<CaseNames>,
}

/// `case-names="1to1_cap1:1 → 1;..."`: cases named in the reader's words, `CASE:NAME` pairs
/// separated by `;`.
#[derive(Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct CaseNames(Vec<(String, String)>);

impl TryFrom<String> for CaseNames {
    type Error = String;

    fn try_from(spec: String) -> Result<CaseNames, String> {
        spec.split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|pair| match pair.split_once(':') {
                Some((case, name)) => Ok((case.to_string(), name.to_string())),
                None => Err(format!("`{pair}` is not CASE:NAME")),
            })
            .collect::<Result<_, _>>()
            .map(CaseNames)
    }
}

impl Grid {
    /// The values of `dim` the directive lists (`cases=0,1`), if it does.
    fn listed(&self, dim: Dim) -> Option<&[String]> {
        match dim {
            Dim::Case => self.cases.as_deref(),
            Dim::Variant => self.variants.as_deref(),
            Dim::Metric => self.metrics.as_deref(),
        }
    }
}

/// `table`: rows × columns of medians (`rows=case cols=variant` unless given), with the
/// provenance line below.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Table {
    #[serde(rename = "*")]
    pub grid: Grid,
    rows: Option<Dim>,
    cols: Option<Dim>,
}

/// `ref`: a link to the table or figure with `id=`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Ref {
    id: String,
}

/// The values of `dim` to show: the directive's list (`cases=0,1`) checked, else all of them.
pub(super) fn axis(r: &Resolved, d: &Grid, dim: Dim) -> Result<Vec<String>, String> {
    let available = r.values(dim);
    let key = format!("{}s", dim.name());
    match d.listed(dim) {
        // Noise is shown where a directive asks for it, not in every metrics table.
        None if dim == Dim::Metric => Ok(available
            .into_iter()
            .filter(|m| !noise::is_noise_metric(m))
            .collect()),
        None => Ok(available),
        Some(wanted) => wanted
            .iter()
            .map(|w| {
                let w = if dim == Dim::Case {
                    resolve_case(w, &r.record)?
                } else {
                    w.clone()
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
pub(super) fn layout(
    (rows_key, rows): (&str, Dim),
    (cols_key, cols): (&str, Dim),
) -> Result<(Dim, Dim, Dim), String> {
    if rows == cols {
        return Err(format!("`{rows_key}` and `{cols_key}` must differ"));
    }
    let fixed = [Dim::Case, Dim::Variant, Dim::Metric]
        .into_iter()
        .find(|x| *x != rows && *x != cols)
        .expect("three dimensions");
    Ok((rows, cols, fixed))
}

pub(super) fn fixed_value(r: &Resolved, fixed: Dim) -> Result<String, String> {
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
pub(super) fn coordinates<'a>(
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

pub(super) fn table(data: &Data, t: &Table) -> Result<String, String> {
    let d = &t.grid;
    let r = data.resolve(&d.select)?;
    let (rows, cols, fixed) = layout(
        ("rows", t.rows.unwrap_or(Dim::Case)),
        ("cols", t.cols.unwrap_or(Dim::Variant)),
    )?;
    let caption = numbered_caption(data, d)?;
    let html = table_html(data, &r, d, rows, cols, fixed, caption.as_deref(), None)?;
    let html = match &d.id {
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
pub(super) fn numbered_caption(data: &Data, d: &Grid) -> Result<Option<String>, String> {
    let caption = d.caption.as_deref();
    Ok(match &d.id {
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
pub(super) struct TableFont;

impl TableFont {
    pub(super) const PX: f64 = 14.0;
    pub(super) const PADDING: f64 = 16.0;

    pub(super) fn text(s: &str) -> f64 {
        s.chars().count() as f64 * 0.55 * Self::PX
    }
    pub(super) fn spread(s: &str) -> f64 {
        Self::text(s) * 0.8
    }
    pub(super) fn code(s: &str) -> f64 {
        s.chars().count() as f64 * 0.6 * Self::PX * 0.875
    }
    /// A header wraps at spaces: its longest word decides its width.
    pub(super) fn header(s: &str) -> f64 {
        s.split_whitespace().map(Self::text).fold(0.0, f64::max)
    }
    /// A row or column label: variants are shown as code.
    pub(super) fn label(dim: Dim, v: &str, data: &Data) -> f64 {
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
pub(super) fn table_html(
    data: &Data,
    r: &Resolved,
    d: &Grid,
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
        .or(d.label.as_deref())
        .map_or_else(|| rows.name().to_string(), str::to_string);
    // Cases that are quantities (`case-unit=B`: byte counts) are shown in the reader's units, and
    // cases named by identifiers in the reader's words (`case-names="1to1_cap1:1 → 1;..."`).
    let case_unit = d.case_unit.as_deref();
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
    let mut html = String::new();
    let mut spreads = false;
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
                    spreads = true;
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
    // What a cell's two figures are, said where the table is: the prose's intervals are the
    // median's confidence intervals, a cell's small range is its min–max.
    let key = spreads.then_some(SPREAD_KEY);
    let caption = match (caption, key) {
        (Some(c), Some(k)) => format!(
            "<caption>{} <span class=\"spread-key\">{k}</span></caption>",
            esc(c)
        ),
        (Some(c), None) => format!("<caption>{}</caption>", esc(c)),
        (None, Some(k)) => format!("<caption><span class=\"spread-key\">{k}</span></caption>"),
        (None, None) => String::new(),
    };
    let html = format!("<table class=\"measure\">{caption}{html}");
    let total: f64 = widths.iter().map(|w| w + TableFont::PADDING).sum();
    if total > MAX_TABLE_PX {
        return Err(format!(
            "this table would be about {total:.0} px wide, more than the {MAX_TABLE_PX:.0} px a page can show whole (on screen and in print): \
             split it (fewer `metrics=` or `cases=` per table), or swap `rows` and `cols`"
        ));
    }
    Ok(html)
}

/// How a table with spreads says what its cells hold.
pub(super) const SPREAD_KEY: &str =
    "Each cell: the median over the repetitions, their min–max below it where they differ.";

/// "4.00 KiB" as "4 KiB", "64.0 KiB" as "64 KiB"; "1.50 MiB" stays.
pub(super) fn whole_number(shown: &str) -> String {
    match shown.split_once(' ') {
        Some((number, unit)) if number.parse::<f64>().is_ok_and(|v| v.fract() == 0.0) => {
            format!("{} {unit}", number.parse::<f64>().unwrap_or_default())
        }
        _ => shown.to_string(),
    }
}

/// A table's `case-names="case:name;case:name"`, each case one the table shows.
pub(super) fn case_names(
    d: &Grid,
    rows: Dim,
    row_values: &[String],
    cols: Dim,
    col_values: &[String],
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut names = std::collections::BTreeMap::new();
    let Some(CaseNames(spec)) = &d.case_names else {
        return Ok(names);
    };
    let shown: Vec<&String> = match (rows, cols) {
        (Dim::Case, _) => row_values.iter().collect(),
        (_, Dim::Case) => col_values.iter().collect(),
        _ => return Err("case-names: this table has no cases in its rows or columns".into()),
    };
    for (case, name) in spec {
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
        names.insert(case.clone(), name.clone());
    }
    Ok(names)
}

/// A link to a numbered table or figure: "Table 1.1".
pub(super) fn reference(data: &Data, d: &Ref) -> Result<String, String> {
    let id = &d.id;
    let label = data.numbered(id)?;
    Ok(format!(
        "<a href=\"{}#{}\">{}</a>",
        esc(&label.page),
        esc(&crate::data::Label::anchor(id)),
        esc(&label.name)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::{Dim, layout, whole_number};

    #[test]
    fn a_whole_case_loses_its_padding_and_a_fraction_keeps_it() {
        assert_eq!(whole_number("4.00 KiB"), "4 KiB");
        assert_eq!(whole_number("64.0 KiB"), "64 KiB");
        assert_eq!(whole_number("1.50 MiB"), "1.50 MiB");
        assert_eq!(whole_number("100 B"), "100 B");
    }

    #[test]
    fn a_table_takes_the_selectors_the_lists_and_its_layout() {
        let Ok(super::super::Kind::Table(t)) = typed(
            "{{#measure table record=ch01 experiment=e metric=p99 cases=0,$workers rows=variant cols=case id=x case-names=\"0:none;1:one\"}}",
        ) else {
            panic!("a table")
        };
        assert_eq!(t.grid.select.which.record, "ch01");
        assert_eq!(t.grid.select.metric.as_deref(), Some("p99"));
        assert_eq!(
            t.grid.cases.as_deref(),
            Some(&["0".to_string(), "$workers".to_string()][..])
        );
        assert_eq!((t.rows, t.cols), (Some(Dim::Variant), Some(Dim::Case)));
        assert_eq!(t.grid.id.as_deref(), Some("x"));
        let names = t.grid.case_names.as_ref().map(|n| n.0.clone()).unwrap();
        assert_eq!(
            names,
            [("0".into(), "none".into()), ("1".into(), "one".into())]
        );
    }

    #[test]
    fn a_bad_table_key_or_value_names_what_is_allowed() {
        let e = typed("{{#measure table record=ch01 metric=p99 colums=case}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `colums` for `table` (allowed: record, machine, experiment, case, variant, metric, cases, variants, metrics, caption, label, id, case-unit, case-names, rows, cols)"
        );
        let e = typed("{{#measure table record=ch01 rows=row}}")
            .err()
            .unwrap();
        assert_eq!(e, "rows=`row`: use case, variant or metric");
        let e = typed("{{#measure table record=ch01 case-names=\"1:one;2\"}}")
            .err()
            .unwrap();
        assert_eq!(e, "case-names=`1:one;2`: `2` is not CASE:NAME");
        let e = typed("{{#measure table metric=p99}}").err().unwrap();
        assert!(
            e.starts_with("missing `record=…` (e.g. `{{#measure table record="),
            "{e}"
        );
        assert!(layout(("rows", Dim::Case), ("cols", Dim::Case)).is_err());
        assert_eq!(
            layout(("rows", Dim::Metric), ("cols", Dim::Case)),
            Ok((Dim::Metric, Dim::Case, Dim::Variant))
        );
    }

    #[test]
    fn a_ref_needs_an_id() {
        let e = typed("{{#measure ref}}").err().unwrap();
        assert!(
            e.starts_with("missing `id=…` (e.g. `{{#measure ref id="),
            "{e}"
        );
    }
}
