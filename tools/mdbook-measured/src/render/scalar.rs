//! One figure in a sentence: a median (`value`), a ratio of two (`ratio`), a parameter of the run
//! (`param`), a value it derived on its machine (`derived`), a crate's version (`version`).

use super::number;
use super::table::with_select;
use crate::data::{Data, list};
use crate::{Directive, esc};
use measure::format::{format_value, seconds, sig3};

pub(super) fn value(data: &Data, d: &Directive) -> Result<String, String> {
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

pub(super) fn ratio(data: &Data, d: &Directive) -> Result<String, String> {
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

pub(super) fn param(data: &Data, d: &Directive) -> Result<String, String> {
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
pub(super) fn version(data: &Data, d: &Directive) -> Result<String, String> {
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
pub(super) fn derived(data: &Data, d: &Directive) -> Result<String, String> {
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
