//! Claims: the book's conclusions about a chapter's record, defined once in
//! `listings/<chapter>/claims.toml` and checked in three places: the book build (on the reference
//! machine's record, where a claim that does not hold fails the build), `cargo run -p book --
//! check` (every machine's records) and the end of every listing run (on the reader's machine).
//!
//! A claim names cells of the record as `experiment/case/variant/metric` and states a direction
//! and a rough size about them:
//!
//! ```toml
//! [[claim]]
//! id = "inline-stalls"
//! says = "with a burst as large as the worker count, inline work takes the p99 to at least 10× spawn_blocking's"
//! ratio = ["blocking/$workers/inline/p99", "blocking/$workers/spawn_blocking/p99"]
//! at-least = 10
//! ```
//!
//! | test | figure | holds when |
//! |---|---|---|
//! | `ratio = [a, b]` | a ÷ b | within `at-least` / `at-most` |
//! | `ratio-of-ratios = [[a, b], [c, d]]` | (a ÷ b) ÷ (c ÷ d) | within `at-least` / `at-most`: one change's effect against another setting's |
//! | `value = a` | a | within `at-least` / `at-most` (a number in a's unit, or "1 ms") |
//! | `lowest = a`, `among = [...]` | a | a is at or below every cell of `among` |
//! | `highest = a`, `among = [...]` | a | a is at or above every cell of `among` |
//! | `ratio-to-lowest = a`, `among = [...]` | a ÷ the lowest of `among` | within `at-least` / `at-most` |
//! | `spread = [...]` | largest ÷ smallest | within `at-most` |
//! | `each = [...]` | the largest (or, with `at-least` only, the smallest) | every cell within the bounds |
//!
//! `stat = "median"` (the default) tests the medians; `stat = "every-repetition"` tests each
//! repetition's values, paired by repetition (variants of one experiment interleave within a
//! repetition, so a repetition's values were measured side by side). A case may be written
//! `$param` or `N*$param` to follow the run's parameters (`$workers`, `2*$workers`).
//! `quiet = true` marks a claim that holds on a quiet machine only; the reports say so beside it.

use crate::record::{Record, Series};
use crate::report::{format_plain, format_value, plain, seconds, sig3};
use serde::Deserialize;

/// Every claim of one chapter.
#[derive(Debug, Clone)]
pub struct Claims {
    pub claims: Vec<Claim>,
}

#[derive(Debug, Clone)]
pub struct Claim {
    pub id: String,
    /// The claim in words, as the book's sentence makes it.
    pub says: String,
    pub test: Test,
    pub every_repetition: bool,
    /// Holds on a quiet machine; a busy neighbour may break it (the chapter says so).
    pub quiet: bool,
}

#[derive(Debug, Clone)]
pub enum Test {
    Ratio(CellRef, CellRef, Bound),
    RatioOfRatios([CellRef; 4], Bound),
    Value(CellRef, Bound),
    Lowest(CellRef, Vec<CellRef>),
    Highest(CellRef, Vec<CellRef>),
    /// a ÷ the lowest of the others ("per-item spawning within 20% of the best chunking").
    RatioToLowest(CellRef, Vec<CellRef>, Bound),
    Spread(Vec<CellRef>, Bound),
    /// Every cell within the bounds ("no errors in any scenario").
    Each(Vec<CellRef>, Bound),
}

/// `at-least` and `at-most`, in the figure's unit (× for ratios and spreads).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bound {
    pub at_least: Option<f64>,
    pub at_most: Option<f64>,
    /// Given with a time unit ("1 ms"): the bounds are in seconds.
    pub in_seconds: bool,
}

/// One cell of a record: `experiment/case/variant/metric`, with a case that may follow a
/// parameter (`$workers`, `2*$workers`).
#[derive(Debug, Clone, PartialEq)]
pub struct CellRef {
    pub experiment: String,
    pub case: String,
    pub variant: String,
    pub metric: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    claim: Vec<RawClaim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawClaim {
    id: String,
    says: String,
    ratio: Option<[String; 2]>,
    ratio_of_ratios: Option<[[String; 2]; 2]>,
    value: Option<String>,
    lowest: Option<String>,
    highest: Option<String>,
    ratio_to_lowest: Option<String>,
    among: Option<Vec<String>>,
    spread: Option<Vec<String>>,
    each: Option<Vec<String>>,
    at_least: Option<toml::Value>,
    at_most: Option<toml::Value>,
    stat: Option<String>,
    #[serde(default)]
    quiet: bool,
}

impl Claims {
    /// Parses a chapter's `claims.toml`; every mistake is an error naming the claim.
    pub fn parse(text: &str) -> Result<Claims, String> {
        let file: File = toml::from_str(text).map_err(|e| format!("claims.toml: {e}"))?;
        let mut claims = Vec::new();
        for raw in file.claim {
            let id = raw.id.clone();
            let claim = Claim::from_raw(raw).map_err(|e| format!("claim `{id}`: {e}"))?;
            if claims.iter().any(|c: &Claim| c.id == claim.id) {
                return Err(format!("claim `{id}` is defined twice"));
            }
            claims.push(claim);
        }
        Ok(Claims { claims })
    }

    /// Reads `claims.toml` in a listing's folder; a listing without one has no claims.
    pub fn load(listing_dir: &std::path::Path) -> Result<Claims, String> {
        let path = listing_dir.join("claims.toml");
        match std::fs::read_to_string(&path) {
            Ok(text) => Claims::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Claims { claims: vec![] }),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.id == id)
    }

    pub fn ids(&self) -> Vec<&str> {
        self.claims.iter().map(|c| c.id.as_str()).collect()
    }
}

impl Claim {
    fn from_raw(raw: RawClaim) -> Result<Claim, String> {
        let timed = |v: &Option<toml::Value>| matches!(v, Some(toml::Value::String(_)));
        let bound = Bound {
            at_least: raw.at_least.as_ref().map(bound_value).transpose()?,
            at_most: raw.at_most.as_ref().map(bound_value).transpose()?,
            in_seconds: timed(&raw.at_least) || timed(&raw.at_most),
        };
        if bound.in_seconds && !(timed(&raw.at_least) || raw.at_least.is_none())
            || bound.in_seconds && !(timed(&raw.at_most) || raw.at_most.is_none())
        {
            return Err("give both bounds with a time unit, or neither".into());
        }
        let cell = |s: &str| CellRef::parse(s);
        let cells = |v: &[String]| v.iter().map(|s| cell(s)).collect::<Result<Vec<_>, _>>();
        let among = || -> Result<Vec<CellRef>, String> {
            match &raw.among {
                Some(v) if !v.is_empty() => cells(v),
                _ => Err("`lowest`, `highest` and `ratio-to-lowest` need `among = [...]`".into()),
            }
        };
        let mut tests = Vec::new();
        if let Some([a, b]) = &raw.ratio {
            tests.push(Test::Ratio(cell(a)?, cell(b)?, bound.clone()));
        }
        if let Some([[a, b], [c, d]]) = &raw.ratio_of_ratios {
            let cells = [cell(a)?, cell(b)?, cell(c)?, cell(d)?];
            tests.push(Test::RatioOfRatios(cells, bound.clone()));
        }
        if let Some(a) = &raw.value {
            tests.push(Test::Value(cell(a)?, bound.clone()));
        }
        if let Some(a) = &raw.lowest {
            tests.push(Test::Lowest(cell(a)?, among()?));
        }
        if let Some(a) = &raw.highest {
            tests.push(Test::Highest(cell(a)?, among()?));
        }
        if let Some(a) = &raw.ratio_to_lowest {
            tests.push(Test::RatioToLowest(cell(a)?, among()?, bound.clone()));
        }
        if let Some(v) = &raw.spread {
            if v.len() < 2 {
                return Err("`spread` needs two or more cells".into());
            }
            tests.push(Test::Spread(cells(v)?, bound.clone()));
        }
        if let Some(v) = &raw.each {
            if v.is_empty() {
                return Err("`each` needs one or more cells".into());
            }
            tests.push(Test::Each(cells(v)?, bound.clone()));
        }
        if tests.len() != 1 {
            return Err(
                "give exactly one of ratio, ratio-of-ratios, value, lowest, highest, ratio-to-lowest, spread, each (see tools/measure/src/claims.rs)"
                    .into(),
            );
        }
        let test = tests.pop().expect("one test");
        let bounded = matches!(
            test,
            Test::Ratio(..)
                | Test::RatioOfRatios(..)
                | Test::Value(..)
                | Test::Spread(..)
                | Test::RatioToLowest(..)
                | Test::Each(..)
        );
        if bounded && bound == Bound::default() {
            return Err("needs `at-least` or `at-most`".into());
        }
        if !bounded && bound != Bound::default() {
            return Err("`lowest` and `highest` take no bounds".into());
        }
        if matches!(test, Test::Spread(..)) && bound.at_least.is_some() {
            return Err("a spread takes `at-most` only".into());
        }
        let every_repetition = match raw.stat.as_deref() {
            None | Some("median") => false,
            Some("every-repetition") => true,
            Some(s) => return Err(format!("stat = \"{s}\": use median or every-repetition")),
        };
        if raw.id.is_empty()
            || !raw
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err("ids use lowercase letters, digits and '-'".into());
        }
        Ok(Claim {
            id: raw.id,
            says: raw.says,
            test,
            every_repetition,
            quiet: raw.quiet,
        })
    }

    /// The cells the claim reads.
    pub fn cells(&self) -> Vec<&CellRef> {
        match &self.test {
            Test::Ratio(a, b, _) => vec![a, b],
            Test::RatioOfRatios(cells, _) => cells.iter().collect(),
            Test::Value(a, _) => vec![a],
            Test::Lowest(a, among) | Test::Highest(a, among) | Test::RatioToLowest(a, among, _) => {
                std::iter::once(a).chain(among).collect()
            }
            Test::Spread(cells, _) | Test::Each(cells, _) => cells.iter().collect(),
        }
    }

    /// Evaluates the claim on a record.
    pub fn check(&self, rec: &Record) -> Outcome {
        let missing = |why| Outcome {
            verdict: Verdict::Missing(why),
            figure: String::new(),
            bound: self.bound_text(),
            repetitions: None,
        };
        let mut series = Vec::new();
        for c in self.cells() {
            match c.find(rec) {
                Ok(s) => series.push(s),
                Err(why) => return missing(why),
            }
        }
        let median: Vec<f64> = series.iter().map(|s| s.median).collect();
        let units: Vec<&str> = series.iter().map(|s| s.unit.as_str()).collect();
        let bound = self.bound_text_in(units[0]);
        let (figure, held_on_medians) = match self.evaluate(&median, &units) {
            Ok(x) => x,
            Err(why) => return missing(why),
        };
        let mut outcome = Outcome {
            verdict: if held_on_medians {
                Verdict::Held
            } else {
                Verdict::NotHeld
            },
            figure,
            bound,
            repetitions: None,
        };
        if self.every_repetition {
            let n = series.iter().map(|s| s.values.len()).min().unwrap_or(0);
            let held = (0..n)
                .filter(|&i| {
                    let values: Vec<f64> = series.iter().map(|s| s.values[i]).collect();
                    matches!(self.evaluate(&values, &units), Ok((_, true)))
                })
                .count();
            outcome.repetitions = Some((held, n));
            outcome.verdict = if held == n && n > 0 {
                Verdict::Held
            } else {
                Verdict::NotHeld
            };
        }
        outcome
    }

    /// (the figure as text, whether the test holds) for one set of values, in `cells()` order.
    fn evaluate(&self, v: &[f64], units: &[&str]) -> Result<(String, bool), String> {
        let in_seconds = |i: usize| seconds(v[i], units[i]).unwrap_or(v[i]);
        let same_kind = units
            .iter()
            .all(|u| seconds(1.0, u).is_some() == seconds(1.0, units[0]).is_some());
        if !same_kind {
            return Err(format!("cells in different units ({})", units.join(", ")));
        }
        Ok(match &self.test {
            Test::Ratio(_, _, bound) => {
                let (a, b) = (in_seconds(0), in_seconds(1));
                if b == 0.0 {
                    return Err("the denominator is zero".into());
                }
                let r = a / b;
                (format!("{}×", sig3(r)), bound.holds(r))
            }
            Test::RatioOfRatios(_, bound) => {
                let (a, b, c, d) = (in_seconds(0), in_seconds(1), in_seconds(2), in_seconds(3));
                if b == 0.0 || c == 0.0 || d == 0.0 {
                    return Err("a denominator is zero".into());
                }
                let r = (a / b) / (c / d);
                (format!("{}×", sig3(r)), bound.holds(r))
            }
            Test::Value(_, bound) => {
                let x = v[0];
                if bound.in_seconds && seconds(x, units[0]).is_none() {
                    return Err(format!(
                        "a bound with a time unit on a metric in {}",
                        units[0]
                    ));
                }
                (format_value(x, units[0]), bound.holds_in(x, units[0]))
            }
            Test::Lowest(..) => {
                let a = in_seconds(0);
                let ok = (1..v.len()).all(|i| a <= in_seconds(i));
                (format_value(v[0], units[0]), ok)
            }
            Test::Highest(..) => {
                let a = in_seconds(0);
                let ok = (1..v.len()).all(|i| a >= in_seconds(i));
                (format_value(v[0], units[0]), ok)
            }
            Test::RatioToLowest(_, _, bound) => {
                let lowest = (1..v.len()).map(in_seconds).fold(f64::INFINITY, f64::min);
                if lowest <= 0.0 {
                    return Err("the lowest of `among` is at or below zero".into());
                }
                let r = in_seconds(0) / lowest;
                (format!("{}×", sig3(r)), bound.holds(r))
            }
            Test::Spread(_, bound) => {
                let all: Vec<f64> = (0..v.len()).map(in_seconds).collect();
                let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if lo <= 0.0 {
                    return Err("a spread over a cell at or below zero".into());
                }
                let r = hi / lo;
                (format!("{}×", sig3(r)), bound.holds(r))
            }
            Test::Each(_, bound) => {
                let worst = if bound.at_most.is_some() {
                    (0..v.len()).max_by(|&i, &j| in_seconds(i).total_cmp(&in_seconds(j)))
                } else {
                    (0..v.len()).min_by(|&i, &j| in_seconds(i).total_cmp(&in_seconds(j)))
                };
                let worst = worst.expect("one or more cells");
                let ok = (0..v.len()).all(|i| bound.holds_in(v[i], units[i]));
                (format_value(v[worst], units[worst]), ok)
            }
        })
    }

    /// What the claim requires, in a few symbols: "≥ 10×", "lowest of 4", "≤ 3×", "≤ 10%".
    pub fn bound_text(&self) -> String {
        self.bound_text_in("")
    }

    /// The same, with a value test's bounds shown in the metric's unit.
    fn bound_text_in(&self, unit: &str) -> String {
        let unit_of_value = |b: &Bound| {
            let show = |x: f64| {
                if b.in_seconds {
                    format_plain(x, "s")
                } else if unit.is_empty() {
                    plain(x)
                } else {
                    format_plain(x, unit)
                }
            };
            let part = |sym: &str, x: Option<f64>| x.map(|x| format!("{sym} {}", show(x)));
            [part("≥", b.at_least), part("≤", b.at_most)]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" and ")
        };
        let times = |b: &Bound| {
            let part = |sym: &str, x: Option<f64>| x.map(|x| format!("{sym} {}×", plain(x)));
            [part("≥", b.at_least), part("≤", b.at_most)]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" and ")
        };
        let each = if self.every_repetition {
            ", in every repetition"
        } else {
            ""
        };
        let core = match &self.test {
            Test::Ratio(_, _, b) | Test::RatioOfRatios(_, b) | Test::Spread(_, b) => times(b),
            Test::RatioToLowest(_, among, b) => {
                format!("{} the lowest of {}", times(b), among.len())
            }
            Test::Value(_, b) => unit_of_value(b),
            Test::Each(cells, b) => format!("{} in each of {}", unit_of_value(b), cells.len()),
            Test::Lowest(_, among) => format!("lowest of {}", among.len() + 1),
            Test::Highest(_, among) => format!("highest of {}", among.len() + 1),
        };
        format!("{core}{each}")
    }

    /// The claim's cells with their case resolved on `rec` (for noise lookups).
    pub fn resolved_cells(&self, rec: &Record) -> Vec<(String, String, String)> {
        self.cells()
            .iter()
            .filter_map(|c| {
                Some((
                    c.experiment.clone(),
                    c.case_in(rec).ok()?,
                    c.variant.clone(),
                ))
            })
            .collect()
    }
}

impl Bound {
    fn holds(&self, x: f64) -> bool {
        self.at_least.is_none_or(|lo| x >= lo) && self.at_most.is_none_or(|hi| x <= hi)
    }

    /// Bounds given with a time unit ("1 ms") are kept in seconds; compare in seconds then.
    fn holds_in(&self, x: f64, unit: &str) -> bool {
        match seconds(x, unit) {
            Some(s) if self.in_seconds => self.holds(s),
            _ => self.holds(x),
        }
    }
}

/// A bound: a number, or a string with a time unit ("1 ms") kept in seconds.
fn bound_value(v: &toml::Value) -> Result<f64, String> {
    match v {
        toml::Value::Integer(i) => Ok(*i as f64),
        toml::Value::Float(f) => Ok(*f),
        toml::Value::String(s) => {
            let (num, unit) = s
                .trim()
                .split_once(' ')
                .ok_or_else(|| format!("bound \"{s}\": write a number and a unit, \"1 ms\""))?;
            let n: f64 = num
                .parse()
                .map_err(|_| format!("bound \"{s}\": not a number"))?;
            seconds(n, unit).ok_or_else(|| format!("bound \"{s}\": unit {unit} is not a time"))
        }
        other => Err(format!(
            "bound {other}: use a number or a string like \"1 ms\""
        )),
    }
}

impl CellRef {
    pub fn parse(s: &str) -> Result<CellRef, String> {
        let parts: Vec<&str> = s.split('/').collect();
        let [experiment, case, variant, metric] = parts[..] else {
            return Err(format!(
                "cell `{s}`: write experiment/case/variant/metric (e.g. blocking/$workers/inline/p99)"
            ));
        };
        if parts.iter().any(|p| p.is_empty()) {
            return Err(format!("cell `{s}`: an empty part"));
        }
        Ok(CellRef {
            experiment: experiment.into(),
            case: case.into(),
            variant: variant.into(),
            metric: metric.into(),
        })
    }

    /// The case on this record: literal, or `$param` / `N*$param` from the record's parameters.
    pub fn case_in(&self, rec: &Record) -> Result<String, String> {
        resolve_case(&self.case, rec)
    }

    pub fn find<'r>(&self, rec: &'r Record) -> Result<&'r Series, String> {
        let case = self.case_in(rec)?;
        rec.find(&self.experiment, &case, &self.variant, &self.metric)
            .ok_or_else(|| {
                format!(
                    "the run has no cell {}/{case}/{}/{} (a filtered or --quick run measures fewer cells)",
                    self.experiment, self.variant, self.metric
                )
            })
    }
}

impl std::fmt::Display for CellRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}",
            self.experiment, self.case, self.variant, self.metric
        )
    }
}

/// `7` stays `7`; `$workers` becomes the record's `workers`; `2*$workers` twice that.
pub fn resolve_case(case: &str, rec: &Record) -> Result<String, String> {
    let Some(at) = case.find('$') else {
        return Ok(case.to_string());
    };
    let factor = match case[..at].strip_suffix('*') {
        Some(f) => f
            .parse::<f64>()
            .map_err(|_| format!("case `{case}`: write N*$param"))?,
        None if at == 0 => 1.0,
        None => return Err(format!("case `{case}`: write $param or N*$param")),
    };
    let name = &case[at + 1..];
    let value = rec
        .param(name)
        .and_then(|v| v.as_f64())
        .ok_or_else(|| format!("case `{case}`: the record has no numeric parameter `{name}`"))?;
    Ok(sig3_plain(factor * value))
}

/// A case value as the listings write it: `2`, `0.5`.
fn sig3_plain(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// What a claim came to on one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The figure the claim is about, formatted ("151×", "35.5 ms"); empty when missing.
    pub figure: String,
    /// What the claim requires ("≥ 10×").
    pub bound: String,
    /// With `stat = "every-repetition"`: in how many repetitions it held, of how many.
    pub repetitions: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Held,
    NotHeld,
    /// The record lacks a cell the claim reads (a filtered or quick run), or cannot be compared.
    Missing(String),
}

impl Outcome {
    pub fn held(&self) -> bool {
        self.verdict == Verdict::Held
    }

    /// "151× (claim: ≥ 10×)", with the repetitions when counted.
    pub fn summary(&self) -> String {
        match &self.verdict {
            Verdict::Missing(why) => why.clone(),
            _ => {
                let reps = self
                    .repetitions
                    .map(|(k, n)| format!(", held in {k} of {n} repetitions"))
                    .unwrap_or_default();
                format!("{} (claim: {}{reps})", self.figure, self.bound)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample_with;

    const CLAIMS: &str = r#"
[[claim]]
id = "stall"
says = "inline at least 10× the fix at burst = workers"
ratio = ["blocking/$workers/inline/p99", "blocking/$workers/fix/p99"]
at-least = 10

[[claim]]
id = "fix-fast"
says = "the fix's p99 stays under 1 ms"
value = "blocking/$workers/fix/p99"
at-most = "1 ms"

[[claim]]
id = "fix-lowest"
says = "the fix is lowest"
lowest = "blocking/1/fix/p99"
among = ["blocking/1/inline/p99"]
stat = "every-repetition"

[[claim]]
id = "inline-near-best"
says = "with no heavy jobs, inline within 1.3× of the lowest of the others"
ratio-to-lowest = "blocking/0/inline/p99"
among = ["blocking/0/fix/p99", "blocking/1/fix/p99"]
at-most = 1.3

[[claim]]
id = "idle-alike"
says = "with no heavy jobs, both within 2× of each other"
spread = ["blocking/0/inline/p99", "blocking/0/fix/p99"]
at-most = 2

[[claim]]
id = "burst-hurts-inline-more"
says = "the burst raises inline's p99 at least 10× as much as the fix's"
ratio-of-ratios = [["blocking/1/inline/p99", "blocking/0/inline/p99"], ["blocking/1/fix/p99", "blocking/0/fix/p99"]]
at-least = 10

[[claim]]
id = "fix-under-1ms-everywhere"
says = "the fix's p99 stays under 1 ms at every burst, in every repetition"
each = ["blocking/0/fix/p99", "blocking/1/fix/p99"]
at-most = "1 ms"
stat = "every-repetition"
"#;

    /// workers = 1; inline and fix p99 (ns) at bursts 0 and 1, three repetitions each.
    fn record(inline1: [f64; 3], fix1: [f64; 3]) -> Record {
        sample_with(
            &[("workers", 1.0)],
            &[
                (
                    "blocking",
                    "0",
                    "inline",
                    "p99",
                    "ns",
                    &[90e3, 100e3, 110e3],
                ),
                ("blocking", "0", "fix", "p99", "ns", &[80e3, 95e3, 100e3]),
                ("blocking", "1", "inline", "p99", "ns", &inline1),
                ("blocking", "1", "fix", "p99", "ns", &fix1),
            ],
        )
    }

    #[test]
    fn every_kind_of_claim_holds_on_data_that_supports_it() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let rec = record([30e6, 35e6, 36e6], [100e3, 150e3, 200e3]);
        for c in &claims.claims {
            let o = c.check(&rec);
            assert!(o.held(), "{}: {o:?}", c.id);
        }
        let stall = claims.get("stall").unwrap().check(&rec);
        assert_eq!(stall.figure, "233×");
        assert_eq!(stall.summary(), "233× (claim: ≥ 10×)");
        let lowest = claims.get("fix-lowest").unwrap().check(&rec);
        assert_eq!(lowest.repetitions, Some((3, 3)));
        assert_eq!(claims.get("fix-fast").unwrap().check(&rec).figure, "150 µs");
        let near = claims.get("inline-near-best").unwrap().check(&rec);
        assert_eq!(near.summary(), "1.05× (claim: ≤ 1.3× the lowest of 2)");
        let each = claims.get("fix-under-1ms-everywhere").unwrap().check(&rec);
        assert_eq!(each.figure, "150 µs", "the worst cell's median");
        assert_eq!(each.bound, "≤ 1 ms in each of 2, in every repetition");
        // (35 ms ÷ 100 µs) ÷ (150 µs ÷ 95 µs)
        let rr = claims.get("burst-hurts-inline-more").unwrap().check(&rec);
        assert_eq!(rr.summary(), "222× (claim: ≥ 10×)");
    }

    #[test]
    fn claims_fail_on_data_that_contradicts_them() {
        let claims = Claims::parse(CLAIMS).unwrap();
        // Inline only about 4× the fix, the fix over 1 ms, and slower than inline in one repetition.
        let rec = record([6e6, 7e6, 1.5e6], [1.2e6, 1.4e6, 2e6]);
        let o = claims.get("stall").unwrap().check(&rec);
        assert_eq!(o.verdict, Verdict::NotHeld);
        assert_eq!(o.figure, "4.29×");
        // (6 ms ÷ 100 µs) ÷ (1.4 ms ÷ 95 µs): the fix suffered from the burst too.
        let rr = claims.get("burst-hurts-inline-more").unwrap().check(&rec);
        assert_eq!(
            (rr.verdict, rr.figure.as_str()),
            (Verdict::NotHeld, "4.07×")
        );
        assert_eq!(
            claims.get("fix-fast").unwrap().check(&rec).verdict,
            Verdict::NotHeld
        );
        let lowest = claims.get("fix-lowest").unwrap().check(&rec);
        assert_eq!(lowest.repetitions, Some((2, 3)));
        let each = claims.get("fix-under-1ms-everywhere").unwrap().check(&rec);
        assert_eq!(each.verdict, Verdict::NotHeld);
        assert_eq!(each.repetitions, Some((0, 3)));
        assert_eq!(lowest.verdict, Verdict::NotHeld);
        // The fix's p99 at burst 1 is now 1.4 ms, the lowest of the two still 95 µs at burst 0.
        let near = claims.get("inline-near-best").unwrap().check(&rec);
        assert_eq!(near.figure, "1.05×");
        let mut slower = rec.clone();
        for s in slower
            .series
            .iter_mut()
            .filter(|s| s.case == "0" && s.variant == "inline")
        {
            s.median *= 2.0;
        }
        let near = claims.get("inline-near-best").unwrap().check(&slower);
        assert_eq!(
            (near.verdict, near.figure),
            (Verdict::NotHeld, "2.11×".to_string())
        );
    }

    #[test]
    fn a_missing_cell_or_parameter_is_reported_not_guessed() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let mut rec = record([30e6; 3], [100e3; 3]);
        rec.series.retain(|s| s.case != "1");
        let o = claims.get("stall").unwrap().check(&rec);
        assert!(
            matches!(&o.verdict, Verdict::Missing(w) if w.contains("blocking/1/inline/p99")),
            "{o:?}"
        );
        rec.params.clear();
        let o = claims.get("stall").unwrap().check(&rec);
        assert!(
            matches!(&o.verdict, Verdict::Missing(w) if w.contains("no numeric parameter `workers`")),
            "{o:?}"
        );
    }

    #[test]
    fn cases_follow_parameters() {
        let rec = sample_with(&[("workers", 4.0)], &[]);
        assert_eq!(resolve_case("7", &rec).unwrap(), "7");
        assert_eq!(resolve_case("$workers", &rec).unwrap(), "4");
        assert_eq!(resolve_case("2*$workers", &rec).unwrap(), "8");
        assert!(resolve_case("2$workers", &rec).is_err());
        assert!(resolve_case("$cores", &rec).is_err());
    }

    #[test]
    fn malformed_claims_are_errors_naming_the_claim() {
        let bad = |body: &str| {
            Claims::parse(&format!("[[claim]]\nid = \"x\"\nsays = \"s\"\n{body}")).unwrap_err()
        };
        assert!(bad("ratio = [\"a/b/c/d\", \"a/b/c/e\"]").contains("at-least"));
        assert!(bad("value = \"a/b/c\"\nat-most = 1").contains("experiment/case/variant/metric"));
        assert!(bad("lowest = \"a/b/c/d\"").contains("among"));
        assert!(bad("ratio-to-lowest = \"a/b/c/d\"\nat-most = 2").contains("among"));
        assert!(bad("ratio-to-lowest = \"a/b/c/d\"\namong = [\"a/b/c/e\"]").contains("at-least"));
        assert!(
            bad("value = \"a/b/c/d\"\nspread = [\"a/b/c/d\", \"a/b/c/e\"]\nat-most = 2")
                .contains("exactly one")
        );
        assert!(bad("value = \"a/b/c/d\"\nat-most = \"1 parsec\"").contains("not a time"));
        assert!(
            bad("value = \"a/b/c/d\"\nat-most = 1\nstat = \"mean\"").contains("every-repetition")
        );
        assert!(bad("value = \"a/b/c/d\"\nat-most = 1\ncolour = 1").contains("colour"));
        let twice = "[[claim]]\nid = \"x\"\nsays = \"s\"\nvalue = \"a/b/c/d\"\nat-most = 1\n";
        assert!(
            Claims::parse(&format!("{twice}{twice}"))
                .unwrap_err()
                .contains("twice")
        );
    }
}
