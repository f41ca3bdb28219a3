//! One figure in a sentence: a median (`value`), a ratio of two (`ratio`), what one cell adds to
//! another (`difference`), a parameter of the run
//! (`param`), a value it derived on its machine (`derived`), a crate's version (`version`).

use super::number;
use crate::data::{Data, Select, Which, list};
use crate::esc;
use measure::format::{format_value, seconds, sig3};
use serde::Deserialize;

/// `value`: one cell's median, or `stat=min` or `max`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Value {
    #[serde(rename = "*")]
    select: Select,
    #[serde(default)]
    stat: Stat,
}

choice! {
    /// Which of a cell's repetitions `value` shows.
    #[derive(Default)]
    enum Stat {
        #[default]
        Median = "median",
        Min = "min",
        Max = "max",
    }
}

/// `ratio`: one cell's median over another's; `over.KEY=VALUE` (at least one) chooses the
/// denominator, the other selectors the same as the numerator's. `per=repetition`: the median of
/// the repetitions' own ratios instead, as a claim's ratio is judged (cells of one experiment).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Ratio {
    #[serde(rename = "*")]
    select: Select,
    #[serde(rename = "over.")]
    over: Select<Option<String>>,
    per: Option<Per>,
}

choice! {
    /// What `ratio` divides: the cells' medians (without `per`), or each repetition's pair.
    enum Per {
        Repetition = "repetition",
    }
}

/// `difference`: what one cell adds to another, in their unit: the median over the repetitions of
/// the two cells' difference (variants of one experiment interleave within a repetition);
/// `minus.KEY=VALUE` (at least one) chooses the cell subtracted, the other selectors the same.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Difference {
    #[serde(rename = "*")]
    select: Select,
    #[serde(rename = "minus.")]
    minus: Select<Option<String>>,
}

/// `param`: one of the run's parameters (`name=workers`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Param {
    #[serde(rename = "*")]
    which: Which,
    name: String,
    format: Option<Format>,
}

/// `derived`: a value the run found on its machine (`name=`, and `key=` for one entry of a
/// table of them).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Derived {
    #[serde(rename = "*")]
    which: Which,
    name: String,
    key: Option<String>,
    format: Option<Format>,
}

choice! {
    /// How a parameter or derived value is shown, where not as it is.
    enum Format {
        Percent = "percent" ("a fraction as a percentage"),
    }
}

/// `version`: the version of one crate the record was built with (`crate=tokio`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Version {
    #[serde(rename = "*")]
    which: Which,
    #[serde(rename = "crate")]
    krate: String,
}

pub(super) fn value(data: &Data, d: &Value) -> Result<String, String> {
    let r = data.resolve(&d.select)?;
    let s = r.series(None, None, None)?;
    let v = match d.stat {
        Stat::Median => s.median,
        Stat::Min => s.min,
        Stat::Max => s.max,
    };
    Ok(format_value(v, &s.unit))
}

pub(super) fn ratio(data: &Data, d: &Ratio) -> Result<String, String> {
    let top = data.resolve(&d.select)?;
    let bottom = data.resolve(&d.select.over(&d.over))?;
    let a = top.series(None, None, None)?;
    let b = bottom
        .series(None, None, None)
        .map_err(|e| format!("denominator: {e}"))?;
    // One scale for both: seconds where both are durations, else the shared unit.
    let scale = match (seconds(1.0, &a.unit), seconds(1.0, &b.unit)) {
        (Some(x), Some(y)) => (x, y),
        _ if a.unit == b.unit => (1.0, 1.0),
        _ => return Err(format!("cannot divide {} by {}", a.unit, b.unit)),
    };
    let ratio = |x: f64, y: f64| x * scale.0 / (y * scale.1);
    let figure = match d.per {
        None if b.median == 0.0 => return Err("the denominator's median is zero".into()),
        None => ratio(a.median, b.median),
        Some(Per::Repetition) if b.values.contains(&0.0) => {
            return Err("a repetition's denominator is zero".into());
        }
        Some(Per::Repetition) => paired_median(&a.values, &b.values, "per=repetition", ratio)?,
    };
    Ok(format!("{}×", sig3(figure)))
}

pub(super) fn difference(data: &Data, d: &Difference) -> Result<String, String> {
    let a = data.resolve(&d.select)?.series(None, None, None)?.clone();
    let b = data.resolve(&d.select.over(&d.minus))?;
    let b = b
        .series(None, None, None)
        .map_err(|e| format!("the cell subtracted: {e}"))?;
    if a.unit != b.unit {
        return Err(format!("cannot subtract {} from {}", b.unit, a.unit));
    }
    let median = paired_median(&a.values, &b.values, "a difference", |x, y| x - y)?;
    Ok(format_value(median, &a.unit))
}

/// The median of `f` over two cells' repetitions, paired one by one (the variants of one
/// experiment ran side by side in each repetition): what `what` shows.
fn paired_median(
    a: &[f64],
    b: &[f64],
    what: &str,
    f: impl Fn(f64, f64) -> f64,
) -> Result<f64, String> {
    if a.len() != b.len() || a.is_empty() {
        return Err(format!(
            "the cells have {} and {} repetitions: {what} pairs them one by one",
            a.len(),
            b.len()
        ));
    }
    let each: Vec<f64> = a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect();
    measure::verdict::median(&each).ok_or_else(|| "no repetitions".into())
}

pub(super) fn param(data: &Data, d: &Param) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let name = &d.name;
    let v = r.record.params.get(name).ok_or_else(|| {
        let keys: Vec<String> = r.record.params.keys().cloned().collect();
        format!("no parameter `{name}`; available: {}", list(&keys))
    })?;
    Ok(show_setting(v, d.format))
}

/// The version of a crate the record's run was built with (`crate=tokio`): the prose names the
/// version its mechanism sentences were read from, and a rerun with other crates changes it.
pub(super) fn version(data: &Data, d: &Version) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let name = &d.krate;
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
pub(super) fn derived(data: &Data, d: &Derived) -> Result<String, String> {
    let r = data.resolve_record_only(&d.which)?;
    let name = &d.name;
    let v = r.record.derived.get(name).ok_or_else(|| {
        let keys: Vec<String> = r.record.derived.keys().cloned().collect();
        format!("no derived value `{name}`; available: {}", list(&keys))
    })?;
    let v = match (&d.key, v) {
        (None, v) => v,
        (Some(k), serde_json::Value::Object(map)) => map.get(k).ok_or_else(|| {
            let keys: Vec<String> = map.keys().cloned().collect();
            format!("`{name}` has no key `{k}`; it has {}", list(&keys))
        })?,
        (Some(_), _) => return Err(format!("`{name}` is not a table: leave out key=")),
    };
    Ok(show_setting(v, d.format))
}

/// A parameter or derived value as text: a number plainly, a list joined, `format=percent`.
fn show_setting(v: &serde_json::Value, format: Option<Format>) -> String {
    let percent = format == Some(Format::Percent);
    match v {
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
    }
}

#[cfg(test)]
mod tests {
    use super::super::typed;
    use super::{Format, Stat, paired_median};
    use crate::render::Kind;

    #[test]
    fn per_repetition_pairs_the_repetitions_not_the_medians() {
        // Medians 20 and 10 (a ratio of 2); the repetitions' own ratios 1, 4 and 4.
        let (a, b) = ([10.0, 20.0, 40.0], [10.0, 5.0, 10.0]);
        assert_eq!(paired_median(&a, &b, "r", |x, y| x / y), Ok(4.0));
        assert_eq!(paired_median(&a, &b, "d", |x, y| x - y), Ok(15.0));
        let e = paired_median(&a, &b[..2], "per=repetition", |x, y| x / y).unwrap_err();
        assert_eq!(
            e,
            "the cells have 3 and 2 repetitions: per=repetition pairs them one by one"
        );
    }

    #[test]
    fn a_ratio_takes_its_denominator_from_over_keys() {
        let Ok(Kind::Ratio(r)) = typed(
            "{{#measure ratio record=ch01 case=1 variant=inline metric=p99 over.variant=fix over.machine=published}}",
        ) else {
            panic!("a ratio")
        };
        let bottom = r.select.over(&r.over);
        assert_eq!(bottom.which.record, "ch01");
        assert_eq!(bottom.which.machine.as_deref(), Some("published"));
        assert_eq!(bottom.variant.as_deref(), Some("fix"));
        assert_eq!(bottom.case.as_deref(), Some("1"));
        let e = typed("{{#measure ratio record=ch01 metric=p99}}")
            .err()
            .unwrap();
        assert!(
            e.starts_with("missing `over.KEY=VALUE` (e.g. `{{#measure ratio "),
            "{e}"
        );
        let e = typed("{{#measure ratio record=ch01 over.colour=red}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `over.colour` for `ratio` (allowed: over.record, over.machine, over.experiment, over.case, over.variant, over.metric)"
        );
        let e = typed("{{#measure ratio record=ch01 ovre.case=1}}")
            .err()
            .unwrap();
        assert!(
            e.contains(
                "(allowed: record, machine, experiment, case, variant, metric, over.*, per)"
            ),
            "{e}"
        );
        let e = typed("{{#measure ratio record=ch01 over.case=1 per=run}}")
            .err()
            .unwrap();
        assert!(e.contains("per=`run`") && e.contains("repetition"), "{e}");
    }

    #[test]
    fn a_stat_or_format_is_one_of_those_named() {
        let Ok(Kind::Value(v)) = typed("{{#measure value record=ch01 stat=max}}") else {
            panic!("a value")
        };
        assert_eq!(v.stat, Stat::Max);
        let e = typed("{{#measure value record=ch01 stat=mean}}")
            .err()
            .unwrap();
        assert_eq!(e, "stat=`mean`: use median, min or max");
        let Ok(Kind::Derived(d)) =
            typed("{{#measure derived record=ch01 name=n key=k format=percent}}")
        else {
            panic!("a derived value")
        };
        assert_eq!(
            (d.key.as_deref(), d.format),
            (Some("k"), Some(Format::Percent))
        );
        let e = typed("{{#measure param record=ch01 name=n format=pc}}")
            .err()
            .unwrap();
        assert_eq!(e, "format=`pc`: use percent (a fraction as a percentage)");
        let e = typed("{{#measure version record=ch01 crates=tokio}}")
            .err()
            .unwrap();
        assert_eq!(
            e,
            "unknown argument `crates` for `version` (allowed: record, machine, crate)"
        );
    }
}
