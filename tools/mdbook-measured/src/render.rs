//! Rendering each kind of directive: one module per family of kinds, each with its tests.

use crate::Directive;
use crate::data::Data;
use measure::format::sig3;

mod chart;
mod claims;
mod class;
mod errata;
mod provenance;
mod releases;
mod scalar;
mod table;
mod workshop;

pub fn render(data: &Data, d: &Directive) -> Result<String, String> {
    match d.kind.as_str() {
        "table" => table::table(data, d),
        "chart" => chart::chart(data, d),
        "value" => scalar::value(data, d),
        "ratio" => scalar::ratio(data, d),
        "param" => scalar::param(data, d),
        "derived" => scalar::derived(data, d),
        "machine" => provenance::machine(data, d),
        "topology" => provenance::topology(data, d),
        "provenance" => provenance::provenance_line(data, d),
        "versions" => provenance::versions(data, d),
        "version" => scalar::version(data, d),
        "claim" => claims::claim(data, d),
        "claims" => claims::claims_list(data, d),
        "ref" => table::reference(data, d),
        "machines" => provenance::machines(data, d),
        "class" => class::class(data, d),
        "minutes" => workshop::minutes(data, d),
        "runtime" => workshop::runtime(data, d),
        "hints" => workshop::hints(data, d),
        "schedule" => workshop::schedule(data, d),
        "history" => errata::history(data, d),
        "verdicts" => claims::verdicts(data, d),
        "verdict-summary" => claims::verdict_summary(data, d),
        "busy" => claims::busy(data, d),
        "coverage" => claims::coverage(d),
        "release-list" => releases::release_list(data, d),
        "releases" => releases::releases_table(data, d),
        "releases-chart" => releases::releases_chart(data, d),
        "since" => releases::since(data, d),
        other => Err(format!(
            "unknown kind `{other}` (table, chart, value, ratio, claim, claims, param, machine, topology, machines, class, minutes, runtime, hints, schedule, history, verdicts, verdict-summary, busy, coverage, provenance, versions, version, release-list, releases, releases-chart, since)"
        )),
    }
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

/// "1 cell", "41 cells".
fn count_cells(n: usize) -> String {
    if n == 1 {
        "1 cell".into()
    } else {
        format!("{n} cells")
    }
}
