//! Charts (`chart`): an inline SVG of a table's cells, with its caption and its numbers.

use super::provenance::provenance_once;
use super::table::{
    Grid, axis, case_names, coordinates, fixed_value, layout, numbered_caption, table_html,
    whole_number,
};
use crate::chart::{self, ChartKind, ChartSpec, Point};
use crate::data::{Data, Dim};
use crate::esc;
use measure::format::format_value;
use serde::Deserialize;

/// `chart`: the cells of a table as an inline SVG (lines over cases, bars otherwise, or
/// `kind=dot`; `x=` and `series=` lay them out as a table's `rows=` and `cols=`), its caption,
/// and the table of its numbers below (`numbers=false` where the same table stands above).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Chart {
    #[serde(rename = "*")]
    pub grid: Grid,
    x: Option<Dim>,
    series: Option<Dim>,
    kind: Option<ChartKind>,
    #[serde(default)]
    log: Log,
    xlabel: Option<String>,
    ylabel: Option<String>,
    #[serde(default = "yes")]
    numbers: bool,
    ref_line: Option<String>,
}

fn yes() -> bool {
    true
}

choice! {
    /// `log=`: a logarithmic value axis, a linear one, or the chart's choice.
    #[derive(Default)]
    enum Log {
        True = "true",
        False = "false",
        #[default]
        Auto = "auto",
    }
}

pub(super) fn chart(data: &Data, c: &Chart) -> Result<String, String> {
    let d = &c.grid;
    let r = data.resolve(&d.select)?;
    let (x, series, fixed) = layout(
        ("x", c.x.unwrap_or(Dim::Case)),
        ("series", c.series.unwrap_or(Dim::Variant)),
    )?;
    let caption = d
        .caption
        .as_deref()
        .ok_or("a chart needs caption=\"...\" (what it shows, in words)")?;
    // Bars on a log axis are drawn as dots (chart.rs): a bar from an arbitrary floor means nothing.
    let kind = match c.kind {
        None if x == Dim::Case => ChartKind::Line,
        None => ChartKind::Bar,
        Some(kind) => kind,
    };
    let log = match c.log {
        Log::Auto => None,
        Log::True => Some(true),
        Log::False => Some(false),
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
                    d.label.as_deref().unwrap_or("case"),
                    chart_case_label(name, d.case_unit.as_deref())?
                ),
            },
            Dim::Metric => data.metric_name(name).to_string(),
            Dim::Variant => name.clone(),
        };
        lines.push((legend, points));
    }
    let unit = unit.ok_or("no data to chart")?;
    let ylabel = c
        .ylabel
        .as_deref()
        .map_or_else(|| data.metric_name(&fixed_v).to_string(), str::to_string);
    // The cases as numbers, so the chart can say how its categorical axis is spaced.
    let x_values = (x == Dim::Case)
        .then(|| xs.iter().map(|c| c.parse::<f64>().ok()).collect())
        .flatten();
    let x_shown = xs
        .iter()
        .map(|xv| match (x, case_names.get(xv)) {
            (Dim::Case, Some(named)) => Ok(named.clone()),
            (Dim::Case, None) => chart_case_label(xv, d.case_unit.as_deref()),
            _ => Ok(xv.clone()),
        })
        .collect::<Result<Vec<_>, String>>()?;
    let spec = ChartSpec {
        kind,
        log,
        title: caption.to_string(),
        x_label: c.xlabel.as_deref().unwrap_or(x.name()).to_string(),
        y_label: ylabel,
        xs: x_shown,
        x_values,
        series: lines,
        ref_lines: ref_lines(c.ref_line.as_deref(), &unit)?,
        unit,
    };
    let svg = chart::render(&spec);
    // The chart's own numbers, one click away, unless the same table stands just above it.
    let numbers = match c.numbers {
        true => {
            let corner = c.xlabel.as_deref().unwrap_or(x.name());
            let table = table_html(data, &r, d, x, series, fixed, None, Some(corner))?;
            format!(
                "<details class=\"measure-data\"><summary>The numbers behind this chart</summary>{table}</details>\n"
            )
        }
        false => String::new(),
    };
    let (id_attr, shown) = match &d.id {
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
pub(super) fn ref_lines(spec: Option<&str>, unit: &str) -> Result<Vec<chart::RefLine>, String> {
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

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::{ChartKind, Log};
    use crate::render::Kind;

    #[test]
    fn a_chart_reads_its_kind_axis_and_numbers() {
        let Ok(Kind::Chart(c)) = typed(
            "{{#measure chart record=ch01 metric=p99 kind=dot log=true numbers=false x=variant series=case caption=\"c\"}}",
        ) else {
            panic!("a chart")
        };
        assert_eq!(
            (c.kind, c.log, c.numbers),
            (Some(ChartKind::Dot), Log::True, false)
        );
        let Ok(Kind::Chart(c)) = typed("{{#measure chart record=ch01 caption=c}}") else {
            panic!("a chart")
        };
        assert_eq!((c.kind, c.log, c.numbers), (None, Log::Auto, true));
    }

    #[test]
    fn a_bad_chart_value_names_the_allowed_ones() {
        let e = |t: &str| typed(t).err().unwrap();
        assert_eq!(
            e("{{#measure chart record=ch01 kind=pie}}"),
            "kind=`pie`: use line (a sweep over cases), bar (linear axis) or dot (a dot plot, for a log axis)"
        );
        assert_eq!(
            e("{{#measure chart record=ch01 log=maybe}}"),
            "log=`maybe`: use true, false or auto"
        );
        assert_eq!(
            e("{{#measure chart record=ch01 numbers=no}}"),
            "numbers=`no`: use true or false"
        );
        let unknown = e("{{#measure chart record=ch01 legend=no}}");
        assert!(
            unknown.starts_with("unknown argument `legend` for `chart` (allowed: record, machine,")
                && unknown.ends_with("x, series, kind, log, xlabel, ylabel, numbers, ref-line)"),
            "{unknown}"
        );
    }
}
