//! Claims: the book's conclusions about a chapter's record, defined once in
//! `listings/<chapter>/claims.toml` and checked in three places: the book build (on the reference
//! machine's record, where a conclusion that is not *held* fails the build), `cargo run -p book --
//! check` (every machine's records) and the end of every listing run (on the reader's machine).
//!
//! A claim names cells of the record as `experiment/case/variant/metric` and states a direction
//! and a rough size about them:
//!
//! ```toml
//! format = 2
//!
//! [[claim]]
//! id = "inline-stalls"
//! says = "with a burst as large as the worker count, inline work takes the p99 to at least 10× spawn_blocking's"
//! ratio = ["blocking/$workers/inline/p99", "blocking/$workers/spawn_blocking/p99"]
//! at-least = 10
//! ```
//!
//! | test | figure (per repetition) | holds when |
//! |---|---|---|
//! | `ratio = [a, b]` | a ÷ b | within `at-least` / `at-most` |
//! | `ratio-of-ratios = [[a, b], [c, d]]` | (a ÷ b) ÷ (c ÷ d) | within `at-least` / `at-most`: one change's effect against another setting's |
//! | `value = a` | a | within `at-least` / `at-most` (a number in a's unit, or "1 ms") |
//! | `lowest = a`, `among = [...]` | the lowest of `among` ÷ a | at least 1: a is at or below every cell of `among` |
//! | `highest = a`, `among = [...]` | a ÷ the highest of `among` | at least 1 |
//! | `ratio-to-lowest = a`, `among = [...]` | a ÷ the lowest of `among` | within `at-least` / `at-most` |
//! | `spread = [...]` | largest ÷ smallest | within `at-most` |
//! | `each = [...]` | the worst cell: the largest under `at-most`, the smallest under `at-least` | within the one bound |
//!
//! The figure is computed in each repetition from that repetition's values (variants of one
//! experiment interleave within a repetition, so they were measured side by side), and the
//! verdict comes from those figures ([`crate::verdict`]): *held*, *not shown* or *refuted*.
//! `stat = "every-repetition"` asks more of a conclusion: it is held only when the figure holds in
//! every repetition. A case may be written `$param` or `N*$param` to follow the run's parameters
//! (`$workers`, `2*$workers`). `quiet = true` marks a conclusion that needs a quiet machine:
//! beside a busy neighbour it may be refuted without failing the book's check.
//!
//! In the lists of `each`, `spread` and `among`, a cell may be a pattern: `*` in place of the
//! experiment, the case or the variant stands for every one the judged record has
//! (`"*/*/*/storage_bytes"`, `"small_files/$small_files/*/us_per_file"`). `*` is a whole part,
//! never part of a name, and the metric is always named. A pattern is resolved on each record
//! ([`Claim::cells_on`]) into the cells it matches there, in the record's order; one that matches
//! no cell the claim does not already read leaves the claim not checked on that record, never
//! held. In `among`, a pattern leaves out the claim's own cell. Where a claim is judged, its
//! bound counts the cells it read there ("≤ 1 MiB in each of 31"); without a record, it shows
//! the patterns as written.
//!
//! An `[[invariant]]` takes the same keys but holds by construction (no message lost, two read
//! calls per file, a quota that shrinks `available_parallelism` to 1): it must hold in every
//! repetition of every run, and a run where one does not is a bug, so the run saves nothing. The
//! reports count invariants apart from the conclusions.
//!
//! When a claim's test or sentence changes, its earlier version stays beside it as a
//! `[[claim.history]]` entry ([`crate::history`]); a claim removed for good becomes a
//! `[[retired]]` entry.

use crate::format::{
    format_metric, format_plain, format_range, format_value, plain, seconds, sig2, sig3,
};
use crate::record::{Record, Series};
use crate::verdict::{self, Interval, Limits};
use serde::Deserialize;

pub use crate::verdict::Verdict;

/// Records on which a claim fails, for the claims test on the book's records
/// (`tools/records/tests/chapters.rs`).
pub mod fixtures;

/// `only-where`: a conclusion judged only where a machine fact has one value.
pub mod condition;

use condition::{Applies, Condition, RawCondition};

/// The only `format` this parser reads: structured histories, invariants apart.
pub const FORMAT: i64 = 2;

/// Every claim of one chapter.
#[derive(Debug, Clone)]
pub struct Claims {
    /// Conclusions and invariants, in the file's order (conclusions first).
    pub claims: Vec<Claim>,
    pub retired: Vec<Retired>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A finding: what the experiment shows, judged held / not shown / refuted.
    Conclusion,
    /// Holds by construction; a run where it does not is a bug.
    Invariant,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Conclusion => "claim",
            Kind::Invariant => "invariant",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Claim {
    pub id: String,
    /// The claim in words, as the book's sentence makes it.
    pub says: String,
    pub test: Test,
    pub every_repetition: bool,
    /// Needs a quiet machine; a busy neighbour may refute it (the chapter says so).
    pub quiet: bool,
    pub kind: Kind,
    /// When the claim was written, if it says (`added`).
    pub added: Option<String>,
    /// What in the machine the conclusion depends on, from its mechanism (`depends-on`): shown
    /// beside it on the Machines page, where other machines' verdicts are.
    pub depends_on: Option<String>,
    /// Where it applies (`only-where`): a machine fact the judge checks in each record before
    /// judging the figures ([`condition`]).
    pub condition: Option<Condition>,
    /// Earlier versions of this claim, oldest first.
    pub history: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    Ratio(CellRef, CellRef, Bound),
    RatioOfRatios([CellRef; 4], Bound),
    Value(CellRef, Bound),
    Lowest(CellRef, Vec<CellRef>),
    Highest(CellRef, Vec<CellRef>),
    /// a ÷ the lowest of the others ("per-item spawning within 20% of the best chunking").
    RatioToLowest(CellRef, Vec<CellRef>, Bound),
    Spread(Vec<CellRef>, Bound),
    /// Every cell within the bound ("no errors in any scenario").
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
    format: Option<i64>,
    #[serde(default)]
    claim: Vec<RawClaim>,
    #[serde(default)]
    invariant: Vec<RawClaim>,
    #[serde(default)]
    retired: Vec<RawRetired>,
}

/// A claim as written; also the `was` of a history entry, where `id` and `says` may be left out.
#[derive(Deserialize, Clone, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct RawClaim {
    pub(crate) id: Option<String>,
    pub(crate) says: Option<String>,
    /// Only in a history entry's `was`: "claim" or "invariant" when the kind changed.
    pub(crate) kind: Option<String>,
    pub(crate) ratio: Option<[String; 2]>,
    pub(crate) ratio_of_ratios: Option<[[String; 2]; 2]>,
    pub(crate) value: Option<String>,
    pub(crate) lowest: Option<String>,
    pub(crate) highest: Option<String>,
    pub(crate) ratio_to_lowest: Option<String>,
    pub(crate) among: Option<Vec<String>>,
    pub(crate) spread: Option<Vec<String>>,
    pub(crate) each: Option<Vec<String>>,
    pub(crate) at_least: Option<toml::Value>,
    pub(crate) at_most: Option<toml::Value>,
    pub(crate) stat: Option<String>,
    pub(crate) quiet: Option<bool>,
    /// When the claim was written ("2026-12-01T11:35Z"): the book's machine must judge it on a
    /// record made after that (as it must a restated claim after its newest history entry).
    pub(crate) added: Option<String>,
    /// What in the machine it depends on ("two CPUs that run two threads at once").
    pub(crate) depends_on: Option<String>,
    /// The machine fact it holds on: `{ fact = "vendor", is = "AuthenticAMD" }`.
    pub(crate) only_where: Option<RawCondition>,
    #[serde(default)]
    pub(crate) history: Vec<RawChange>,
}

impl RawClaim {
    fn has_test(&self) -> bool {
        self.ratio.is_some()
            || self.ratio_of_ratios.is_some()
            || self.value.is_some()
            || self.lowest.is_some()
            || self.highest.is_some()
            || self.ratio_to_lowest.is_some()
            || self.spread.is_some()
            || self.each.is_some()
            || self.only_where.is_some()
    }

    /// A history entry's `was` over the claim it belongs to: the keys `was` leaves out are as
    /// they are now; its test (the cells and bounds) is taken whole from one or the other.
    pub(crate) fn under(&self, owner: &RawClaim) -> RawClaim {
        let test = if self.has_test() { self } else { owner };
        RawClaim {
            id: self.id.clone().or_else(|| owner.id.clone()),
            says: self.says.clone().or_else(|| owner.says.clone()),
            kind: self.kind.clone(),
            ratio: test.ratio.clone(),
            ratio_of_ratios: test.ratio_of_ratios.clone(),
            value: test.value.clone(),
            lowest: test.lowest.clone(),
            highest: test.highest.clone(),
            ratio_to_lowest: test.ratio_to_lowest.clone(),
            among: test.among.clone(),
            spread: test.spread.clone(),
            each: test.each.clone(),
            at_least: test.at_least.clone(),
            at_most: test.at_most.clone(),
            stat: self.stat.clone().or_else(|| owner.stat.clone()),
            quiet: self.quiet.or(owner.quiet),
            added: None,
            depends_on: None,
            only_where: test.only_where.clone(),
            history: Vec::new(),
        }
    }
}

impl Claims {
    /// Parses a chapter's `claims.toml`; every mistake is an error naming the claim.
    pub fn parse(text: &str) -> Result<Claims, String> {
        let file: File = toml::from_str(text).map_err(|e| format!("claims.toml: {e}"))?;
        if file.format != Some(FORMAT) {
            return Err(format!(
                "claims.toml: write `format = {FORMAT}` at the top (claims with structured histories and invariants apart)"
            ));
        }
        let mut claims = Vec::new();
        let raws = (file.claim.into_iter().map(|r| (r, Kind::Conclusion)))
            .chain(file.invariant.into_iter().map(|r| (r, Kind::Invariant)));
        for (raw, kind) in raws {
            let id = raw.id.clone().unwrap_or_default();
            let claim = Claim::from_raw(raw, kind, false)
                .map_err(|e| format!("{} `{id}`: {e}", kind.name()))?;
            if claims.iter().any(|c: &Claim| c.id == claim.id) {
                return Err(format!("claim `{id}` is defined twice"));
            }
            claims.push(claim);
        }
        let mut retired = Vec::new();
        for raw in file.retired {
            let r = Retired::from_raw(raw)?;
            if claims.iter().any(|c| c.id == r.id) {
                return Err(format!("retired claim `{}` is still defined", r.id));
            }
            retired.push(r);
        }
        Ok(Claims { claims, retired })
    }

    /// Reads `claims.toml` in a listing's folder; a listing without one has no claims.
    pub fn load(listing_dir: &std::path::Path) -> Result<Claims, String> {
        let path = listing_dir.join("claims.toml");
        match std::fs::read_to_string(&path) {
            Ok(text) => Claims::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Claims {
                claims: vec![],
                retired: vec![],
            }),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Claim> {
        self.claims.iter().find(|c| c.id == id)
    }

    pub fn ids(&self) -> Vec<&str> {
        self.claims.iter().map(|c| c.id.as_str()).collect()
    }

    pub fn conclusions(&self) -> impl Iterator<Item = &Claim> {
        self.claims.iter().filter(|c| c.kind == Kind::Conclusion)
    }

    pub fn invariants(&self) -> impl Iterator<Item = &Claim> {
        self.claims.iter().filter(|c| c.kind == Kind::Invariant)
    }
}

impl Claim {
    /// `is_was`: the earlier version in a history entry (already merged over its claim), which
    /// may name the `kind` it had.
    pub(crate) fn from_raw(raw: RawClaim, kind: Kind, is_was: bool) -> Result<Claim, String> {
        let Some(id) = raw.id.clone() else {
            return Err("needs an `id`".into());
        };
        let Some(says) = raw.says.clone() else {
            return Err("needs `says`, the claim in words".into());
        };
        let base = raw.clone();
        let kind = match raw.kind.as_deref() {
            None => kind,
            Some(_) if !is_was => {
                return Err("`kind` belongs in a history entry's `was`; write [[invariant]] for an invariant".into());
            }
            Some("claim") => Kind::Conclusion,
            Some("invariant") => Kind::Invariant,
            Some(other) => return Err(format!("kind = \"{other}\": use claim or invariant")),
        };
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
        // One cell is named; a list (`each`, `spread`, `among`) may hold patterns.
        let cell = |s: &str| {
            let c = CellRef::parse(s)?;
            if c.is_pattern() {
                return Err(format!(
                    "cell `{s}`: a pattern (`*`) stands only in the lists of `each`, `spread` and `among`; name the one cell"
                ));
            }
            Ok(c)
        };
        let cells = |v: &[String]| {
            v.iter()
                .map(|s| CellRef::parse(s))
                .collect::<Result<Vec<_>, _>>()
        };
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
            let v = cells(v)?;
            // A pattern's cells are counted on each record (`Claim::cells_on`).
            if v.len() < 2 && !v.iter().any(CellRef::is_pattern) {
                return Err("`spread` needs two or more cells".into());
            }
            tests.push(Test::Spread(v, bound.clone()));
        }
        if let Some(v) = &raw.each {
            if v.is_empty() {
                return Err("`each` needs one or more cells".into());
            }
            tests.push(Test::Each(cells(v)?, bound.clone()));
        }
        if tests.len() != 1 {
            return Err(
                "give exactly one of ratio, ratio-of-ratios, value, lowest, highest, ratio-to-lowest, spread, each (see tools/records/src/claims.rs)"
                    .into(),
            );
        }
        let test = tests.pop().expect("one test");
        let bounded = !matches!(test, Test::Lowest(..) | Test::Highest(..));
        if bounded && bound == Bound::default() {
            return Err("needs `at-least` or `at-most`".into());
        }
        if !bounded && bound != Bound::default() {
            return Err("`lowest` and `highest` take no bounds".into());
        }
        if matches!(test, Test::Spread(..)) && bound.at_least.is_some() {
            return Err("a spread takes `at-most` only".into());
        }
        if matches!(test, Test::Each(..)) && bound.at_least.is_some() && bound.at_most.is_some() {
            return Err("`each` takes one bound, `at-least` or `at-most`".into());
        }
        let unitless = matches!(
            test,
            Test::Ratio(..) | Test::RatioOfRatios(..) | Test::RatioToLowest(..) | Test::Spread(..)
        );
        if unitless && bound.in_seconds {
            return Err(
                "a ratio or spread has no unit: give its bound as a number (10, not \"10 ms\")"
                    .into(),
            );
        }
        let every_repetition = match raw.stat.as_deref() {
            None | Some("median") => false,
            Some("every-repetition") if kind == Kind::Invariant => {
                return Err(
                    "an invariant holds in every repetition already: leave out `stat`".into(),
                );
            }
            Some("every-repetition") => true,
            Some(s) => return Err(format!("stat = \"{s}\": use median or every-repetition")),
        };
        let quiet = raw.quiet.unwrap_or(false);
        if kind == Kind::Invariant && quiet {
            return Err("an invariant holds on any machine: it cannot be `quiet`".into());
        }
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err("ids use lowercase letters, digits and '-'".into());
        }
        if let Some(t) = &raw.added {
            check_date(t).map_err(|e| format!("added: {e}"))?;
        }
        match raw.depends_on.as_deref() {
            Some(_) if kind == Kind::Invariant => {
                return Err("an invariant holds on any machine: leave out `depends-on`".into());
            }
            Some(d) if d.trim().is_empty() => {
                return Err("`depends-on` says what in the machine, or is left out".into());
            }
            _ => {}
        }
        let condition = match &raw.only_where {
            Some(_) if kind == Kind::Invariant => {
                return Err("an invariant holds on any machine: leave out `only-where`".into());
            }
            Some(_) if raw.depends_on.is_none() && !is_was => {
                return Err(
                    "`only-where` needs `depends-on`, which says why the claim holds only there"
                        .into(),
                );
            }
            Some(c) => Some(Condition::parse(c)?),
            None => None,
        };
        let mut claim = Claim {
            id,
            says,
            test,
            every_repetition: every_repetition || kind == Kind::Invariant,
            quiet,
            kind,
            added: if is_was { None } else { raw.added.clone() },
            depends_on: if is_was { None } else { raw.depends_on.clone() },
            condition,
            history: Vec::new(),
        };
        for change in raw.history {
            claim.history.push(Change::from_raw(change, &claim, &base)?);
        }
        if claim.history.windows(2).any(|w| w[0].date > w[1].date) {
            return Err("history entries go oldest first".into());
        }
        Ok(claim)
    }

    /// Whether two versions of a claim state and test the same thing (the id aside).
    pub fn same_definition(&self, other: &Claim) -> bool {
        self.says == other.says
            && self.test == other.test
            && self.every_repetition == other.every_repetition
            && self.quiet == other.quiet
            && self.kind == other.kind
            && self.condition == other.condition
    }

    pub fn is_invariant(&self) -> bool {
        self.kind == Kind::Invariant
    }

    /// When the claim took its present form: its newest history entry, else when it was added.
    /// A record made before that cannot test it (the restatement saw that record).
    pub fn since(&self) -> Option<&str> {
        self.history
            .last()
            .map(|c| c.date.as_str())
            .or(self.added.as_deref())
    }

    /// The cells the claim names, as written: a case may be `$param`, a cell of a list a pattern
    /// ([`Claim::cells_on`] gives the cells it reads on a record).
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

    /// The cells the claim reads on `rec`, in [`Claim::cells`]'s order: every case resolved
    /// (`$workers` becomes `2`), every pattern replaced by the cells of `rec` it matches, in the
    /// record's order, less those the claim already reads (in `among`, its own cell). An error
    /// names a case the record cannot resolve, or a pattern that adds no cell there: a claim
    /// about nothing is not checked, never held.
    pub fn cells_on(&self, rec: &Record) -> Result<Vec<CellRef>, String> {
        let mut out: Vec<CellRef> = Vec::new();
        for c in self.cells() {
            if !c.is_pattern() {
                out.push(c.resolved(rec)?);
                continue;
            }
            let matched = c.matches_in(rec)?;
            if matched.is_empty() {
                return Err(format!(
                    "the pattern {c} matches no cell of the run (a filtered or --quick run measures fewer cells)"
                ));
            }
            let new: Vec<CellRef> = matched.into_iter().filter(|m| !out.contains(m)).collect();
            if new.is_empty() {
                return Err(format!(
                    "the pattern {c} matches no cell of the run that the claim does not already read"
                ));
            }
            out.extend(new);
        }
        if matches!(self.test, Test::Spread(..)) && out.len() < 2 {
            return Err(format!(
                "a spread needs two or more cells, and its cells match {} on this run",
                out.len()
            ));
        }
        Ok(out)
    }

    /// The experiments the claim reads on `rec`, each once, in the order its cells name them (a
    /// pattern's `*` stands for the experiments of its matches there).
    pub fn experiments_on(&self, rec: &Record) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in self.cells() {
            let named = if c.experiment == "*" {
                c.matches_in(rec)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|m| m.experiment)
                    .collect()
            } else {
                vec![c.experiment.clone()]
            };
            for e in named {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        out
    }

    /// Evaluates the claim on a record: its figure in every repetition, and the verdict on them.
    pub fn check(&self, rec: &Record) -> Outcome {
        let unjudged = |verdict: Verdict| Outcome {
            verdict,
            kind: self.kind,
            median: None,
            interval: None,
            shown: self.shown(&[]),
            bound: self.bound_text(),
            figures: Vec::new(),
            fewest: 0,
            held_in: 0,
            margin: None,
            to_decide: None,
        };
        let missing = |why: String| unjudged(Verdict::Missing(why));
        if let Some(condition) = &self.condition
            && let Applies::No(why) = condition.on(rec)
        {
            return unjudged(Verdict::DoesNotApply(why));
        }
        let cells = match self.cells_on(rec) {
            Ok(cells) => cells,
            Err(why) => return missing(why),
        };
        let mut series: Vec<&Series> = Vec::new();
        for c in &cells {
            match c.find(rec) {
                Ok(s) => series.push(s),
                Err(why) => return missing(why),
            }
        }
        let units: Vec<&str> = series.iter().map(|s| s.unit.as_str()).collect();
        let bound = self.bound_text_in(units[0], Some(cells.len()));
        // Repetition i of every cell was measured side by side only within one experiment. `each`
        // judges every cell on its own, so its cells may come from several, each with its count.
        let each = matches!(self.test, Test::Each(..));
        let mut experiments: Vec<&str> = cells.iter().map(|c| c.experiment.as_str()).collect();
        experiments.sort();
        experiments.dedup();
        if experiments.len() > 1 && !each {
            return missing(format!(
                "its cells come from {} experiments, whose repetitions were not measured side by side: compare cells of one experiment",
                experiments.len()
            ));
        }
        let lengths = series.iter().map(|s| s.values.len());
        let fewest = lengths.clone().min().unwrap_or(0);
        let n = if each {
            lengths.max().unwrap_or(0)
        } else {
            fewest
        };
        if n == 0 {
            return missing("the cells have no values".into());
        }
        let mut figures = Vec::with_capacity(n);
        for i in 0..n {
            let (values, units_i): (Vec<f64>, Vec<&str>) = series
                .iter()
                .zip(&units)
                .filter_map(|(s, u)| s.values.get(i).map(|v| (*v, *u)))
                .unzip();
            match self.figure(&values, &units_i) {
                Ok(x) => figures.push(x),
                Err(why) => return missing(format!("repetition {}: {why}", i + 1)),
            }
        }
        let limits = self.limits();
        let held_in = figures.iter().filter(|x| limits.holds(**x)).count();
        let all = verdict::range(&figures);
        let median = verdict::median(&figures);
        let (verdict, interval) = match self.kind {
            // A check, and a claim about every repetition: one repetition that misses refutes it.
            Kind::Invariant | Kind::Conclusion if self.every_repetition => {
                let v = if held_in < n {
                    Verdict::Refuted
                } else if self.kind == Kind::Invariant || n >= verdict::MIN_REPETITIONS {
                    Verdict::Held
                } else {
                    Verdict::NotShown
                };
                (v, all)
            }
            _ => match verdict::median_interval(&figures) {
                None => (Verdict::NotShown, all),
                Some(i) => (limits.judge(&i), Some(i)),
            },
        };
        let margin = interval.as_ref().and_then(|i| limits.margin(i));
        let to_decide = (verdict == Verdict::NotShown)
            .then(|| verdict::repetitions_to_decide(&figures, &limits));
        Outcome {
            verdict,
            kind: self.kind,
            median,
            interval,
            shown: self.shown(&units),
            bound,
            figures,
            fewest,
            held_in,
            margin,
            to_decide,
        }
    }

    /// The claim's figure for one repetition's values, in `cells()` order, in the unit its
    /// bounds are given in (seconds for a bound like "1 ms").
    fn figure(&self, v: &[f64], units: &[&str]) -> Result<f64, String> {
        let in_seconds = |i: usize| seconds(v[i], units[i]).unwrap_or(v[i]);
        let same_kind = units
            .iter()
            .all(|u| seconds(1.0, u).is_some() == seconds(1.0, units[0]).is_some());
        if !same_kind {
            return Err(format!("cells in different units ({})", units.join(", ")));
        }
        // A zero denominator says the record cannot tell (a monitor that saw nothing), not that
        // the ratio is infinite.
        let ratio = |a: f64, b: f64, what: &str| -> Result<f64, String> {
            if b == 0.0 {
                return Err(format!(
                    "{what}: a denominator of zero, so the record cannot say"
                ));
            }
            Ok(a / b)
        };
        // A value test compares in seconds when its bound has a time unit, else in the metric's unit.
        let judged = |i: usize, b: &Bound| -> Result<f64, String> {
            if b.in_seconds {
                seconds(v[i], units[i])
                    .ok_or_else(|| format!("a bound with a time unit on a metric in {}", units[i]))
            } else {
                Ok(v[i])
            }
        };
        match &self.test {
            Test::Ratio(..) => ratio(in_seconds(0), in_seconds(1), "the ratio"),
            Test::RatioOfRatios(..) => {
                let ab = ratio(in_seconds(0), in_seconds(1), "the first ratio")?;
                let cd = ratio(in_seconds(2), in_seconds(3), "the second ratio")?;
                ratio(ab, cd, "the ratio of ratios")
            }
            Test::Value(_, b) => judged(0, b),
            // A cell of zero is the lowest of positive others by as far as a ratio can say.
            Test::Lowest(..) => {
                let others = (1..v.len()).map(in_seconds).fold(f64::INFINITY, f64::min);
                match (others, in_seconds(0)) {
                    (o, a) if a == 0.0 && o > 0.0 => Ok(f64::INFINITY),
                    (o, a) => ratio(o, a, "the lowest of the others over the cell"),
                }
            }
            Test::Highest(..) => {
                let others = (1..v.len())
                    .map(in_seconds)
                    .fold(f64::NEG_INFINITY, f64::max);
                match (in_seconds(0), others) {
                    (a, o) if o == 0.0 && a > 0.0 => Ok(f64::INFINITY),
                    (a, o) => ratio(a, o, "the cell over the highest of the others"),
                }
            }
            Test::RatioToLowest(..) => {
                let lowest = (1..v.len()).map(in_seconds).fold(f64::INFINITY, f64::min);
                if lowest <= 0.0 {
                    return Err("the lowest of `among` is at or below zero".into());
                }
                Ok(in_seconds(0) / lowest)
            }
            Test::Spread(..) => {
                let all: Vec<f64> = (0..v.len()).map(in_seconds).collect();
                let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if lo <= 0.0 {
                    return Err("a spread over a cell at or below zero".into());
                }
                Ok(hi / lo)
            }
            Test::Each(_, b) => {
                let all = (0..v.len())
                    .map(|i| judged(i, b))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(if b.at_most.is_some() {
                    all.into_iter().fold(f64::NEG_INFINITY, f64::max)
                } else {
                    all.into_iter().fold(f64::INFINITY, f64::min)
                })
            }
        }
    }

    /// How a conclusion that did not hold failed, in the reader's words; `None` where it held or
    /// could not be checked. A miss by a hundredth and a reversal read differently.
    pub fn failure(&self, o: &Outcome) -> Option<Failure> {
        match o.verdict {
            Verdict::NotShown => Some(Failure::Straddles),
            Verdict::Refuted => {
                let median = verdict::median(&o.figures)?;
                let reversed = match &self.test {
                    Test::Lowest(..) | Test::Highest(..) => true,
                    Test::Ratio(.., b) | Test::RatioOfRatios(_, b) | Test::RatioToLowest(.., b) => {
                        // A claim that one side is larger (≥ b > 1) whose figure came out below 1.
                        b.at_least.is_some_and(|lo| lo > 1.0 && median < 1.0)
                            || b.at_most.is_some_and(|hi| hi < 1.0 && median > 1.0)
                    }
                    _ => false,
                };
                if reversed {
                    return Some(Failure::Reversed);
                }
                let bound = self.limits().nearest(median)?;
                let miss = if bound == 0.0 {
                    f64::INFINITY
                } else {
                    ((median - bound) / bound).abs()
                };
                Some(Failure::Missed(miss))
            }
            _ => None,
        }
    }

    /// The bounds on [`Claim::figure`].
    pub fn limits(&self) -> Limits {
        match &self.test {
            Test::Lowest(..) | Test::Highest(..) => Limits {
                at_least: Some(1.0),
                at_most: None,
            },
            Test::Ratio(_, _, b)
            | Test::RatioOfRatios(_, b)
            | Test::Value(_, b)
            | Test::RatioToLowest(_, _, b)
            | Test::Spread(_, b)
            | Test::Each(_, b) => Limits {
                at_least: b.at_least,
                at_most: b.at_most,
            },
        }
    }

    /// How its figures read, given the units of its cells (in `cells()` order; none where the
    /// record lacks them).
    pub fn shown(&self, units: &[&str]) -> Shown {
        match &self.test {
            Test::Value(_, b) | Test::Each(_, b) if b.in_seconds => Shown::Seconds,
            Test::Value(..) | Test::Each(..) => Shown::Metric {
                unit: units.first().unwrap_or(&"").to_string(),
                metric: self.cells()[0].metric.clone(),
            },
            _ => Shown::Ratio,
        }
    }

    /// How its figures read on `rec`, whose cells give the unit; `None` where `rec` lacks them.
    pub fn shown_on(&self, rec: &Record) -> Option<Shown> {
        let cells = self.cells_on(rec).ok()?;
        let unit = cells.first()?.find(rec).ok()?.unit.clone();
        Some(self.shown(&[unit.as_str()]))
    }

    /// What the claim requires, in a few symbols: "≥ 10×", "lowest of 4", "≤ 3×", "≤ 10%"; a
    /// list with a pattern, which only a record can count, as written ("≤ 0 in each of
    /// */*/*/errors").
    pub fn bound_text(&self) -> String {
        self.bound_text_in("", None)
    }

    /// The same, with a value test's bounds shown in the metric's unit, and the cells counted as
    /// `read` on a record ([`Claim::cells_on`]), when given.
    fn bound_text_in(&self, unit: &str, read: Option<usize>) -> String {
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
        let each = if self.every_repetition && self.kind == Kind::Conclusion {
            ", in every repetition"
        } else {
            ""
        };
        // How many cells a list stands for (`besides`: the claim's own cell, read beside it): on
        // a record, those it read; without one, its length, or its patterns as written.
        let count = |list: &[CellRef], besides: usize| match read {
            Some(n) => n.saturating_sub(besides).to_string(),
            None if list.iter().any(CellRef::is_pattern) => list
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            None => list.len().to_string(),
        };
        // `lowest of 4` counts the claim's own cell; `lowest of x/1/*/p99` already matches it.
        let of_all = |list: &[CellRef]| match read {
            None if !list.iter().any(CellRef::is_pattern) => (list.len() + 1).to_string(),
            _ => count(list, 0),
        };
        let core = match &self.test {
            Test::Ratio(_, _, b) | Test::RatioOfRatios(_, b) | Test::Spread(_, b) => times(b),
            Test::RatioToLowest(_, among, b) => {
                format!("{} the lowest of {}", times(b), count(among, 1))
            }
            Test::Value(_, b) => unit_of_value(b),
            Test::Each(cells, b) => format!("{} in each of {}", unit_of_value(b), count(cells, 0)),
            Test::Lowest(_, among) => format!("lowest of {}", of_all(among)),
            Test::Highest(_, among) => format!("highest of {}", of_all(among)),
        };
        format!("{core}{each}")
    }

    /// Whether any experiment the claim reads ran in `rec` (a `--filter` run leaves some out).
    pub fn ran_in(&self, rec: &Record) -> bool {
        self.cells().iter().any(|c| {
            rec.series
                .iter()
                .any(|s| c.experiment == "*" || s.experiment == c.experiment)
        })
    }

    /// The claim's cells with their case resolved and their patterns matched on `rec`, as far as
    /// they resolve there (for noise lookups).
    pub fn resolved_cells(&self, rec: &Record) -> Vec<(String, String, String)> {
        self.cells()
            .iter()
            .flat_map(|c| {
                if c.is_pattern() {
                    c.matches_in(rec).unwrap_or_default()
                } else {
                    c.resolved(rec).into_iter().collect()
                }
            })
            .map(|c| (c.experiment, c.case, c.variant))
            .collect()
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
        // `*` alone is a pattern; in a case, `N*$param` multiplies a parameter.
        let partial = |p: &str| p.contains('*') && p != "*";
        if partial(experiment) || partial(variant) || partial(case) && !case.contains('$') {
            return Err(format!(
                "cell `{s}`: `*` stands for a whole part (experiment, case or variant), not part of a name"
            ));
        }
        if metric == "*" {
            return Err(format!(
                "cell `{s}`: name the metric; a pattern ranges over experiments, cases and variants"
            ));
        }
        Ok(CellRef {
            experiment: experiment.into(),
            case: case.into(),
            variant: variant.into(),
            metric: metric.into(),
        })
    }

    /// Whether `*` stands for the experiment, the case or the variant.
    pub fn is_pattern(&self) -> bool {
        [&self.experiment, &self.case, &self.variant]
            .iter()
            .any(|p| *p == "*")
    }

    /// The case on this record: literal, or `$param` / `N*$param` from the record's parameters.
    pub fn case_in(&self, rec: &Record) -> Result<String, String> {
        resolve_case(&self.case, rec)
    }

    /// This cell with its case resolved on `rec` (`$workers` becomes `2`).
    pub fn resolved(&self, rec: &Record) -> Result<CellRef, String> {
        Ok(CellRef {
            case: self.case_in(rec)?,
            ..self.clone()
        })
    }

    /// The cells of `rec` this one names: every series whose parts equal its parts, `*` equal to
    /// any, in the record's order, its case resolved first. A cell without `*` matches itself,
    /// if the record has it.
    pub fn matches_in(&self, rec: &Record) -> Result<Vec<CellRef>, String> {
        let case = match self.case.as_str() {
            "*" => None,
            _ => Some(self.case_in(rec)?),
        };
        let part = |pattern: &str, name: &str| pattern == "*" || pattern == name;
        let mut out: Vec<CellRef> = Vec::new();
        for s in &rec.series {
            let cell = CellRef {
                experiment: s.experiment.clone(),
                case: s.case.clone(),
                variant: s.variant.clone(),
                metric: s.metric.clone(),
            };
            if part(&self.experiment, &s.experiment)
                && case.as_deref().is_none_or(|c| c == s.case)
                && part(&self.variant, &s.variant)
                && self.metric == s.metric
                && !out.contains(&cell)
            {
                out.push(cell);
            }
        }
        Ok(out)
    }

    pub fn find<'r>(&self, rec: &'r Record) -> Result<&'r Series, String> {
        if self.is_pattern() {
            return Err(format!(
                "{self} is a pattern, not one cell: resolve it with Claim::cells_on"
            ));
        }
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

/// `7` stays `7`; `$workers` becomes the record's `workers`; `2*$workers` twice that. `$cpus`,
/// where the record has no such parameter, is its machine's CPUs (`available_parallelism`).
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
        .or_else(|| (name == "cpus").then_some(f64::from(rec.machine.available_parallelism)))
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

// History entries: what a claim was before each change (compared across versions in
// `crate::history`).

/// Why a claim changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// It failed on a record of the reference machine.
    Refuted,
    /// Its interval straddled the bound on the reference record: the data could not tell.
    NotShown,
    /// It failed beside the busy neighbour (and was marked `quiet`, or restated).
    Busy,
    /// A review found the test weaker than the sentence, or the sentence wrong, with no failure.
    Review,
    /// It holds by construction: it became an invariant.
    Invariant,
    /// The experiment behind it changed.
    Redesign,
    /// The bound moved toward the data without a failure.
    Loosened,
    /// It failed on another of the book's machines (another processor), quiet there.
    OtherMachine,
}

impl Cause {
    const ALL: [(&'static str, Cause); 8] = [
        ("refuted", Cause::Refuted),
        ("not-shown", Cause::NotShown),
        ("busy", Cause::Busy),
        ("review", Cause::Review),
        ("invariant", Cause::Invariant),
        ("redesign", Cause::Redesign),
        ("loosened", Cause::Loosened),
        ("other-machine", Cause::OtherMachine),
    ];

    fn parse(s: &str) -> Result<Cause, String> {
        Cause::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                let names: Vec<&str> = Cause::ALL.iter().map(|(n, _)| *n).collect();
                format!("cause = \"{s}\": use one of {}", names.join(", "))
            })
    }

    /// As the page says it.
    pub fn words(self) -> &'static str {
        match self {
            Cause::Refuted => "refuted on the book's machine",
            Cause::NotShown => "not shown on the book's machine",
            Cause::Busy => "refuted beside the busy neighbour",
            Cause::Review => "a review",
            Cause::Invariant => "holds by construction",
            Cause::Redesign => "the experiment changed",
            Cause::Loosened => "bound moved without a failure",
            Cause::OtherMachine => "refuted on another machine",
        }
    }

    /// Whether the data contradicted the claim (the errata the page lists first).
    pub fn after_a_failure(self) -> bool {
        matches!(
            self,
            Cause::Refuted | Cause::NotShown | Cause::Busy | Cause::OtherMachine
        )
    }
}

/// One earlier version of a claim.
#[derive(Debug, Clone)]
pub struct Change {
    pub date: String,
    pub commit: Option<String>,
    pub cause: Cause,
    /// The claim as it was before this change.
    pub was: Box<Claim>,
    pub figures: String,
    pub why: String,
}

/// A claim removed for good.
#[derive(Debug, Clone)]
pub struct Retired {
    pub id: String,
    /// Its removal: when, why, and the claim as it last stood (`change.was`).
    pub change: Change,
    /// The changes it went through before, oldest first.
    pub history: Vec<Change>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawChange {
    date: String,
    commit: Option<String>,
    cause: String,
    figures: String,
    why: String,
    was: RawClaim,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRetired {
    date: String,
    commit: Option<String>,
    cause: String,
    figures: String,
    why: String,
    was: RawClaim,
    #[serde(default)]
    history: Vec<RawChange>,
}

impl Change {
    /// `owner`: the claim the entry belongs to, as parsed and as written.
    pub(crate) fn from_raw(
        raw: RawChange,
        owner: &Claim,
        written: &RawClaim,
    ) -> Result<Change, String> {
        let what = format!("the history entry of {}", raw.date);
        check_date(&raw.date).map_err(|e| format!("{what}: {e}"))?;
        if let Some(c) = &raw.commit
            && (c.len() < 7 || !c.chars().all(|ch| ch.is_ascii_hexdigit()))
        {
            return Err(format!("{what}: commit `{c}` is not a commit id"));
        }
        if raw.why.trim().is_empty() || raw.figures.trim().is_empty() {
            return Err(format!(
                "{what}: say the figures that made it change and why"
            ));
        }
        if !raw.was.history.is_empty() {
            return Err(format!("{what}: a `was` has no history of its own"));
        }
        let was = Claim::from_raw(raw.was.under(written), owner.kind, true)
            .map_err(|e| format!("{what}: was: {e}"))?;
        Ok(Change {
            date: raw.date,
            commit: raw.commit,
            cause: Cause::parse(&raw.cause).map_err(|e| format!("{what}: {e}"))?,
            was: Box::new(was),
            figures: raw.figures,
            why: raw.why,
        })
    }
}

impl Retired {
    pub(crate) fn from_raw(raw: RawRetired) -> Result<Retired, String> {
        let Some(id) = raw.was.id.clone() else {
            return Err(format!(
                "the retired entry of {}: its `was` needs the claim's id",
                raw.date
            ));
        };
        let kind = match raw.was.kind.as_deref() {
            Some("invariant") => Kind::Invariant,
            _ => Kind::Conclusion,
        };
        // The claim it retires is its own `was`, complete.
        let written = RawClaim {
            kind: None,
            ..raw.was.clone()
        };
        let was = Claim::from_raw(written.clone(), kind, false)
            .map_err(|e| format!("retired `{id}`: {e}"))?;
        let change = Change::from_raw(
            RawChange {
                date: raw.date,
                commit: raw.commit,
                cause: raw.cause,
                figures: raw.figures,
                why: raw.why,
                was: raw.was.clone(),
            },
            &was,
            &written,
        )
        .map_err(|e| format!("retired `{id}`: {e}"))?;
        let history = raw
            .history
            .into_iter()
            .map(|h| Change::from_raw(h, &was, &written))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("retired `{id}`: {e}"))?;
        Ok(Retired {
            id,
            change,
            history,
        })
    }
}

/// "2026-12-01", or with the time of day, "2026-12-01T11:35Z" (UTC).
fn check_date(d: &str) -> Result<(), String> {
    let (day, time) = d.split_at(d.len().min(10));
    let day_ok = day.len() == 10
        && day.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    let time_ok = time.is_empty()
        || (time.len() == 7
            && time.starts_with('T')
            && time.ends_with('Z')
            && time[1..6]
                .char_indices()
                .all(|(i, c)| if i == 2 { c == ':' } else { c.is_ascii_digit() }));
    if day_ok && time_ok {
        Ok(())
    } else {
        Err(format!(
            "date `{d}`: write YYYY-MM-DD, or YYYY-MM-DDTHH:MMZ in UTC"
        ))
    }
}

/// How a conclusion failed where it did ([`Claim::failure`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Failure {
    /// Not shown: the interval straddles the bound.
    Straddles,
    /// Refuted, the median this share of the bound away from it (0.05: missed by 5 %).
    Missed(f64),
    /// Refuted the other way: the effect's direction flipped (or another case came out lowest).
    Reversed,
}

impl Failure {
    /// Within a tenth of the bound: a near miss, not a different result.
    pub const MARGINAL: f64 = 0.1;

    /// "marginal: the interval straddles the bound", "missed the bound by 40%", "reversed: ...".
    pub fn text(self) -> String {
        match self {
            Failure::Straddles => "marginal: its interval straddles the bound".into(),
            Failure::Missed(m) if m <= Self::MARGINAL => {
                format!(
                    "marginal: its median missed the bound by {}",
                    format_plain(m * 100.0, "%")
                )
            }
            Failure::Missed(m) if m.is_finite() => {
                format!("missed the bound by {}", format_plain(m * 100.0, "%"))
            }
            Failure::Missed(_) => "missed the bound".into(),
            Failure::Reversed => "reversed: the effect went the other way".into(),
        }
    }
}

/// What a claim came to on one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub kind: Kind,
    /// The median of the per-repetition figures, in the claim's unit; `None` when missing.
    pub median: Option<f64>,
    /// The interval the verdict was judged on: the median's confidence interval, or for an
    /// invariant or an every-repetition claim the whole range.
    pub interval: Option<Interval>,
    /// How its figures read.
    pub shown: Shown,
    /// What the claim requires ("≥ 10×").
    pub bound: String,
    /// The claim's figure in each repetition, in the order they ran.
    pub figures: Vec<f64>,
    /// The fewest repetitions one of its cells had: fewer than `figures` only for `each` over
    /// cells of experiments with different repetition counts (a figure is then the worst of the
    /// cells that ran that repetition).
    pub fewest: usize,
    /// In how many repetitions the figure alone satisfies the bound.
    pub held_in: usize,
    /// How far the interval stays inside the bound, as a share of the bound (negative: crosses it).
    pub margin: Option<f64>,
    /// For a claim not shown: about how many repetitions would decide it, or why none can say.
    pub to_decide: Option<Result<usize, String>>,
}

impl Outcome {
    pub fn held(&self) -> bool {
        self.verdict == Verdict::Held
    }

    /// "held", "not shown", "refuted", an invariant's "broken", or "not checked".
    pub fn word(&self) -> &'static str {
        match (&self.verdict, self.kind) {
            (Verdict::Held, _) => "held",
            (Verdict::NotShown, _) => "not shown",
            (Verdict::Refuted, Kind::Invariant) => "broken",
            (Verdict::Refuted, Kind::Conclusion) => "refuted",
            (Verdict::Missing(_), _) => "not checked",
            (Verdict::DoesNotApply(_), _) => "does not apply",
        }
    }

    /// The median as the reader reads it ("151×", "35.5 ms", "230×" where the interval spans a
    /// factor of two or more); empty when missing.
    pub fn figure(&self) -> String {
        self.median.map_or(String::new(), |m| match self.coarse() {
            true => format!("{}×", sig2(m)),
            false => self.shown.text(m),
        })
    }

    /// A ratio whose interval spans a factor of two or more: its figures get two significant
    /// digits, since a third would claim more than the repetitions know; unless two digits would
    /// print the median as one of the interval's ends ("1,100× (510–1,100×)" for a median of
    /// 1,054 and an end of 1,122), which reads as an error.
    fn coarse(&self) -> bool {
        let Some(i) = self.interval.filter(|i| i.lo > 0.0 && i.hi.is_finite()) else {
            return false;
        };
        let looks_like_an_end = |m: f64| {
            let m2 = sig2(m);
            (m != i.lo && m2 == sig2(i.lo)) || (m != i.hi && m2 == sig2(i.hi))
        };
        self.shown == Shown::Ratio
            && i.hi / i.lo >= 2.0
            && !self.median.is_some_and(looks_like_an_end)
    }

    /// The interval's ends as one range ("1.60–3.44×", "58–290×"), if there is one.
    pub fn range(&self) -> Option<String> {
        self.interval.as_ref().map(|i| match self.coarse() {
            true => format!("{}–{}×", sig2(i.lo), sig2(i.hi)),
            false => self.shown.range(i.lo, i.hi),
        })
    }

    /// The interval's ends with its name, for a table cell: "90% CI 1.60–3.44×", "min–max 0–3".
    pub fn named_range(&self) -> Option<String> {
        let range = self.range()?;
        Some(match self.interval.is_some_and(|i| i.of_median) {
            true => format!("{}% CI {range}", plain(verdict::CONFIDENCE * 100.0)),
            false => format!("min–max {range}"),
        })
    }

    /// What the interval is, named: "90% CI 1.60–3.44×" for the median's confidence interval,
    /// "min–max 0–3 over 5 repetitions" for the whole range (an invariant, an every-repetition
    /// claim, too few repetitions), "0 in each of 5 repetitions" where every repetition gave that
    /// figure, "in its one repetition".
    /// An `each` over cells that ran 5 to 20 times: "0 in every repetition, 5–20 a cell".
    pub fn interval_text(&self) -> String {
        let n = self.figures.len();
        let all_alike = self.figures.windows(2).all(|w| w[0] == w[1]);
        let mixed = self.fewest > 0 && self.fewest < n;
        let ci = format!("{}% CI", plain(verdict::CONFIDENCE * 100.0));
        let ends = self
            .interval
            .as_ref()
            .map(|i| (self.shown.text(i.lo), self.shown.text(i.hi), i.of_median));
        match ends {
            _ if n == 1 => "in its one repetition".into(),
            Some((lo, hi, _)) if lo == hi && all_alike && mixed => {
                format!("{lo} in every repetition, {}–{n} a cell", self.fewest)
            }
            Some((lo, hi, _)) if lo == hi && all_alike => {
                format!("{lo} in each of {n} repetitions")
            }
            Some((lo, hi, true)) if lo == hi => format!("{lo} at both ends of its {ci}"),
            Some((_, _, true)) => self.named_range().unwrap_or_default(),
            Some(_) if mixed => format!(
                "{} over {}–{n} repetitions a cell",
                self.named_range().unwrap_or_default(),
                self.fewest
            ),
            Some(_) => format!(
                "{} over {n} repetitions",
                self.named_range().unwrap_or_default()
            ),
            None => format!("over {n} repetitions"),
        }
    }

    /// "2.41× (90% CI 1.60–3.44×)": the figure as the pages show it.
    pub fn figure_with_interval(&self) -> String {
        if self.median.is_none() {
            return String::new();
        }
        format!("{} ({})", self.figure(), self.interval_text())
    }

    /// "2.41× (90% CI 1.60–3.44×; claim: ≥ 1.5×)", with what would decide a claim
    /// that is not shown.
    pub fn summary(&self) -> String {
        match &self.verdict {
            Verdict::Missing(why) | Verdict::DoesNotApply(why) => why.clone(),
            verdict => {
                let mut s = format!(
                    "{} ({}; {}: {})",
                    self.figure(),
                    self.interval_text(),
                    self.kind.name(),
                    self.bound
                );
                if *verdict == Verdict::NotShown {
                    s.push_str(&format!(": {}", self.decide_text()));
                }
                s
            }
        }
    }

    /// Why a claim is not shown, and what would decide it.
    pub fn decide_text(&self) -> String {
        let n = self.figures.len();
        let few = n < verdict::MIN_REPETITIONS;
        let side = if n == 1 && self.held_in == 1 {
            "it lies on the held side".to_string()
        } else if n == 1 {
            "it lies on the refuted side".to_string()
        } else {
            let most = if self.held_in * 2 > n {
                "most repetitions on the held side"
            } else if self.held_in * 2 < n {
                "most repetitions on the refuted side"
            } else {
                "the repetitions split"
            };
            format!("{most}, {} of {n} held", self.held_in)
        };
        match &self.to_decide {
            _ if few => format!(
                "{} cannot decide at {}% confidence ({side}); run at least {}",
                if n == 1 {
                    "one repetition".to_string()
                } else {
                    format!("{n} repetitions")
                },
                plain(verdict::CONFIDENCE * 100.0),
                verdict::MIN_REPETITIONS
            ),
            Some(Ok(reps)) => format!(
                "{side}; about {reps} repetitions would decide it if the median stayed where it is"
            ),
            Some(Err(why)) => format!("{side}; {why}"),
            None => side,
        }
    }

    /// "+25%", "−3.8%", or "exact" for a bound of zero.
    pub fn margin_text(&self) -> String {
        match self.margin {
            Some(m) if m.is_infinite() => "∞".into(),
            Some(m) => {
                let pct = format_plain(m * 100.0, "%");
                if m >= 0.0 {
                    format!("+{pct}")
                } else {
                    pct.replace('-', "−")
                }
            }
            None => "exact".into(),
        }
    }
}

/// How a claim's figures read: as a ratio ("151×"), as a time, its bound having a time unit
/// ("35.5 ms"), or in its metric's unit ("4.00 KiB"; "never (≤ 8,192)" where a search found
/// nothing). The one place a claim's numbers become words.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Ratio,
    Seconds,
    Metric { unit: String, metric: String },
}

impl Shown {
    /// "151×", "35.5 ms", "0", "∞".
    pub fn text(&self, x: f64) -> String {
        if x.is_infinite() {
            return "∞".into();
        }
        match self {
            Shown::Ratio => format!("{}×", sig3(x)),
            Shown::Seconds => format_value(x, "s"),
            // A search that found nothing is no size (see `format_metric`).
            Shown::Metric { unit, metric } => format_metric(x, unit, metric),
        }
    }

    /// "1.60–3.44×", "30.1–40.2 ms", "900 µs–1.20 ms": the unit once where both ends share it.
    pub fn range(&self, lo: f64, hi: f64) -> String {
        let found = |x: f64, metric: &str| {
            x.is_finite() && crate::format::never_found_up_to(metric, x).is_none()
        };
        let unit = match self {
            _ if !lo.is_finite() || !hi.is_finite() => None,
            Shown::Ratio => Some("×"),
            Shown::Seconds => Some("s"),
            Shown::Metric { unit, metric } if found(lo, metric) && found(hi, metric) => {
                Some(unit.as_str())
            }
            Shown::Metric { .. } => None,
        };
        match unit {
            Some(u) => format_range(lo, hi, u),
            None => format!("{}–{}", self.text(lo), self.text(hi)),
        }
    }

    /// The unit its figures are in, as a chart's axis names it: "×", "s", the metric's unit.
    pub fn unit(&self) -> &str {
        match self {
            Shown::Ratio => "×",
            Shown::Seconds => "s",
            Shown::Metric { unit, .. } => unit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample_with;

    const CLAIMS: &str = r#"
format = 2

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

[[invariant]]
id = "nothing-lost"
says = "no request is lost"
value = "blocking/1/fix/lost"
at-most = 0
"#;

    const IDLE_INLINE: [f64; 5] = [90e3, 100e3, 110e3, 95e3, 105e3];
    const IDLE_FIX: [f64; 5] = [80e3, 95e3, 100e3, 90e3, 85e3];

    /// workers = 1; inline and fix p99 (ns) at bursts 0 and 1, five repetitions each.
    fn record(inline1: [f64; 5], fix1: [f64; 5], lost: [f64; 5]) -> Record {
        sample_with(
            &[("workers", 1.0)],
            &[
                ("blocking", "0", "inline", "p99", "ns", &IDLE_INLINE),
                ("blocking", "0", "fix", "p99", "ns", &IDLE_FIX),
                ("blocking", "1", "inline", "p99", "ns", &inline1),
                ("blocking", "1", "fix", "p99", "ns", &fix1),
                ("blocking", "1", "fix", "lost", "count", &lost),
            ],
        )
    }

    fn held() -> Record {
        record(
            [30e6, 35e6, 36e6, 32e6, 34e6],
            [100e3, 150e3, 200e3, 120e3, 180e3],
            [0.0; 5],
        )
    }

    fn claim(id: &str) -> Claim {
        let claims = Claims::parse(CLAIMS).unwrap();
        claims.claims.into_iter().find(|c| c.id == id).unwrap()
    }

    #[test]
    fn a_failure_says_whether_it_was_a_near_miss_or_a_reversal() {
        let stall = claim("stall"); // at least 10×
        let fix = [100e3; 5];
        // 9.5×: refuted in every repetition, but within a tenth of the bound.
        let near = stall.check(&record([950e3; 5], fix, [0.0; 5]));
        assert_eq!(near.verdict, Verdict::Refuted);
        assert_eq!(stall.failure(&near), Some(Failure::Missed(0.05)));
        assert_eq!(
            stall.failure(&near).unwrap().text(),
            "marginal: its median missed the bound by 5%"
        );
        // 4×: a real miss, not marginal.
        let short = stall.check(&record([400e3; 5], fix, [0.0; 5]));
        assert_eq!(
            stall.failure(&short).unwrap().text(),
            "missed the bound by 60%"
        );
        // 0.5×: the fix slower than inline, the other way round.
        let reversed = stall.check(&record([50e3; 5], fix, [0.0; 5]));
        assert_eq!(stall.failure(&reversed), Some(Failure::Reversed));
        // Straddling the bound: not shown, marginal.
        let mixed = stall.check(&record([500e3, 2e6, 500e3, 2e6, 2e6], fix, [0.0; 5]));
        assert_eq!(mixed.verdict, Verdict::NotShown);
        assert_eq!(stall.failure(&mixed), Some(Failure::Straddles));
        // Held: no failure. A `lowest` claim that fails has another case lowest: reversed.
        assert_eq!(stall.failure(&stall.check(&held())), None);
        let lowest = claim("fix-lowest");
        let o = lowest.check(&record([50e3; 5], fix, [0.0; 5]));
        assert_eq!(lowest.failure(&o), Some(Failure::Reversed));
    }

    #[test]
    fn every_kind_of_claim_holds_on_data_that_supports_it() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let rec = held();
        for c in &claims.claims {
            let o = c.check(&rec);
            assert!(o.held(), "{}: {o:?}", c.id);
        }
        // Per repetition: 300×, 233×, 180×, 267×, 189×; the median 233×, the range the interval.
        let stall = claims.get("stall").unwrap().check(&rec);
        assert_eq!(stall.figure(), "233×");
        assert_eq!(stall.summary(), "233× (90% CI 180–300×; claim: ≥ 10×)");
        assert_eq!(stall.margin_text(), "+1,700%");
        let lowest = claims.get("fix-lowest").unwrap().check(&rec);
        assert_eq!(lowest.held_in, 5);
        assert_eq!(
            claims.get("fix-fast").unwrap().check(&rec).figure(),
            "150 µs"
        );
        let each = claims.get("fix-under-1ms-everywhere").unwrap().check(&rec);
        assert_eq!(
            each.figure(),
            "150 µs",
            "the worst cell, repetition by repetition"
        );
        assert_eq!(each.bound, "≤ 1 ms in each of 2, in every repetition");
        let lost = claims.get("nothing-lost").unwrap().check(&rec);
        assert_eq!(
            lost.summary(),
            "0 (0 in each of 5 repetitions; invariant: ≤ 0)"
        );
        assert_eq!(claims.conclusions().count(), 7);
        assert_eq!(claims.invariants().count(), 1);
    }

    #[test]
    fn an_each_over_experiments_of_different_lengths_counts_a_cell_s_repetitions() {
        let claims = Claims::parse(
            r#"
format = 2

[[invariant]]
id = "none-lost"
says = "no request is lost in either experiment"
each = ["blocking/1/fix/lost", "drain/1/fix/lost"]
at-most = 0
"#,
        )
        .unwrap();
        let rec = |drained: [f64; 3]| {
            sample_with(
                &[],
                &[
                    ("blocking", "1", "fix", "lost", "count", &[0.0; 5]),
                    ("drain", "1", "fix", "lost", "count", &drained),
                ],
            )
        };
        let none = claims.get("none-lost").unwrap().check(&rec([0.0; 3]));
        assert_eq!((none.figures.len(), none.fewest), (5, 3));
        assert_eq!(
            none.summary(),
            "0 (0 in every repetition, 3–5 a cell; invariant: ≤ 0 in each of 2)"
        );
        let one = claims
            .get("none-lost")
            .unwrap()
            .check(&rec([0.0, 1.0, 0.0]));
        assert_eq!(one.verdict, Verdict::Refuted);
        assert_eq!(
            one.interval_text(),
            "min–max 0–1 over 3–5 repetitions a cell"
        );
    }

    #[test]
    fn figures_pair_the_repetitions_that_ran_side_by_side() {
        let claims = Claims::parse(CLAIMS).unwrap();
        // The medians (35 ms ÷ 150 µs = 233×) hide that in the slowest repetition of the fix
        // inline ran fast too: that repetition's own figure is 3.5×, the interval reaches it.
        let rec = record(
            [30e6, 35e6, 0.7e6, 32e6, 34e6],
            [100e3, 150e3, 200e3, 120e3, 180e3],
            [0.0; 5],
        );
        let o = claims.get("stall").unwrap().check(&rec);
        assert_eq!(o.verdict, Verdict::NotShown, "{}", o.summary());
        assert_eq!(o.held_in, 4);
        assert!(o.summary().contains("90% CI 3.5–300×"), "{}", o.summary());
        assert!(
            o.summary()
                .contains("most repetitions on the held side, 4 of 5 held"),
            "{}",
            o.summary()
        );
    }

    #[test]
    fn a_confidence_interval_and_a_range_are_named_apart() {
        let o = |figures: Vec<f64>, every: bool| {
            let interval = if every {
                verdict::range(&figures)
            } else {
                verdict::median_interval(&figures)
            };
            Outcome {
                verdict: Verdict::Held,
                kind: Kind::Conclusion,
                median: verdict::median(&figures),
                interval,
                shown: Shown::Ratio,
                bound: "≥ 1×".into(),
                held_in: figures.len(),
                fewest: figures.len(),
                figures,
                margin: None,
                to_decide: None,
            }
        };
        let five = vec![1.6, 2.0, 2.4, 2.8, 3.0];
        assert_eq!(
            o(five.clone(), false).figure_with_interval(),
            "2.40× (90% CI 1.60–3.00×)"
        );
        assert_eq!(
            o(five, true).figure_with_interval(),
            "2.40× (min–max 1.60–3.00× over 5 repetitions)"
        );
        // An interval that spans a factor of two or more: two significant digits.
        assert_eq!(
            o(vec![58.3, 150.0, 231.0, 260.0, 288.0], false).figure_with_interval(),
            "230× (90% CI 58–290×)"
        );
        // Unless two digits would print the median as an end of its interval.
        assert_eq!(
            o(vec![511.0, 673.0, 1054.0, 1083.0, 1122.0], false).figure_with_interval(),
            "1,054× (90% CI 511–1,122×)"
        );
    }

    #[test]
    fn claims_are_refuted_where_every_repetition_contradicts_them() {
        let claims = Claims::parse(CLAIMS).unwrap();
        // Inline only about 4× the fix, the fix over 1 ms, and slower than inline in one repetition.
        let rec = record(
            [6e6, 7e6, 1.5e6, 6.5e6, 5e6],
            [1.2e6, 1.4e6, 2e6, 1.3e6, 1.5e6],
            [0.0, 0.0, 1.0, 0.0, 0.0],
        );
        let o = claims.get("stall").unwrap().check(&rec);
        assert_eq!(
            (o.verdict.clone(), o.figure().as_str()),
            (Verdict::Refuted, "5.0×")
        );
        assert!(o.margin.unwrap() < 0.0);
        assert_eq!(o.word(), "refuted");
        let fast = claims.get("fix-fast").unwrap().check(&rec);
        assert_eq!(fast.verdict, Verdict::Refuted);
        // The fix is lowest in four repetitions of five: a claim about every repetition that one
        // repetition contradicts is refuted.
        let lowest = claims.get("fix-lowest").unwrap().check(&rec);
        assert_eq!(
            (lowest.verdict.clone(), lowest.held_in),
            (Verdict::Refuted, 4)
        );
        let each = claims.get("fix-under-1ms-everywhere").unwrap().check(&rec);
        assert_eq!((each.verdict.clone(), each.held_in), (Verdict::Refuted, 0));
        // One lost request in one repetition breaks the invariant.
        let lost = claims.get("nothing-lost").unwrap().check(&rec);
        assert_eq!(
            (lost.verdict.clone(), lost.word()),
            (Verdict::Refuted, "broken")
        );
    }

    #[test]
    fn fewer_than_five_repetitions_show_nothing_either_way() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let mut rec = held();
        for s in &mut rec.series {
            s.values.truncate(1);
            (s.median, s.min, s.max) = (s.values[0], s.values[0], s.values[0]);
        }
        rec.reps = 1;
        let o = claims.get("stall").unwrap().check(&rec);
        assert_eq!(o.verdict, Verdict::NotShown);
        assert_eq!(
            o.summary(),
            "300× (in its one repetition; claim: ≥ 10×): one repetition cannot decide at 90% confidence (it lies on the held side); run at least 5"
        );
        // An invariant is checked on any run, however short.
        assert!(claims.get("nothing-lost").unwrap().check(&rec).held());
    }

    #[test]
    fn a_missing_cell_or_parameter_is_reported_not_guessed() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let mut rec = held();
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
    fn a_search_that_found_nothing_is_no_size_in_a_figure() {
        let claims = Claims::parse(
            "format = 2\n[[claim]]\nid = \"t\"\nsays = \"s\"\n\
             value = \"split/threshold/par_iter/threshold_items\"\nat-most = 8192\n",
        )
        .unwrap();
        let rec = sample_with(
            &[],
            &[(
                "split",
                "threshold",
                "par_iter",
                "threshold_items",
                "count",
                &[16384.0, 16384.0, 1024.0, 16384.0, 16384.0],
            )],
        );
        let o = claims.get("t").unwrap().check(&rec);
        assert_eq!(o.figure(), "never (≤ 8,192)");
        assert!(
            o.figure_with_interval().contains("1,024–never (≤ 8,192)"),
            "{}",
            o.figure_with_interval()
        );
    }

    #[test]
    fn a_claim_knows_whether_its_experiments_ran() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let stall = claims.get("stall").unwrap();
        let mut rec = held();
        assert!(stall.ran_in(&rec));
        rec.series.retain(|s| s.variant != "fix");
        assert!(stall.ran_in(&rec), "its experiment ran, with fewer cells");
        rec.series.retain(|s| s.experiment != "blocking");
        assert!(!stall.ran_in(&rec));
    }

    #[test]
    fn cases_follow_parameters() {
        let rec = sample_with(&[("workers", 4.0)], &[]);
        assert_eq!(resolve_case("7", &rec).unwrap(), "7");
        assert_eq!(resolve_case("$workers", &rec).unwrap(), "4");
        assert_eq!(resolve_case("2*$workers", &rec).unwrap(), "8");
        assert!(resolve_case("2$workers", &rec).is_err());
        assert!(resolve_case("$cores", &rec).is_err());
        // `$cpus`: the parameter where the record has one, else the machine's CPUs.
        let cpus = rec.machine.available_parallelism;
        assert_eq!(
            resolve_case("16*$cpus", &rec).unwrap(),
            (16 * cpus).to_string()
        );
        let rec = sample_with(&[("workers", 4.0), ("cpus", 3.0)], &[]);
        assert_eq!(resolve_case("$cpus", &rec).unwrap(), "3");
    }

    /// One claim of `body` (after `id` and `says`), parsed.
    fn one(body: &str) -> Claim {
        let text = format!("format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\n{body}");
        Claims::parse(&text).unwrap().claims.remove(0)
    }

    /// The cells a claim reads on `rec`, as `experiment/case/variant/metric`.
    fn read(c: &Claim, rec: &Record) -> Vec<String> {
        c.cells_on(rec)
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_pattern_reads_every_cell_it_matches_on_the_record() {
        let rec = held();
        // `*` for a case, and for a variant beside a `$param` case; in the record's order.
        let fix = one("each = [\"blocking/*/fix/p99\"]\nat-most = \"1 ms\"");
        assert_eq!(
            read(&fix, &rec),
            ["blocking/0/fix/p99", "blocking/1/fix/p99"]
        );
        let at_workers = one("each = [\"blocking/$workers/*/p99\"]\nat-most = \"1 s\"");
        assert_eq!(
            read(&at_workers, &rec),
            ["blocking/1/inline/p99", "blocking/1/fix/p99"]
        );
        let every = one("each = [\"*/*/*/p99\"]\nat-most = \"1 s\"");
        assert_eq!(read(&every, &rec).len(), 4);
        // Judged on every cell it matched, and counted where it was judged.
        let o = fix.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}", o.summary());
        assert_eq!(o.bound, "≤ 1 ms in each of 2");
        assert_eq!(
            o.figure(),
            "150 µs",
            "the median of each repetition's worst cell"
        );
        // A cell the pattern matches breaks it as a listed cell would.
        let mut slow = held();
        slow.series[1].values = vec![5e6; 5]; // blocking/0/fix/p99
        assert_eq!(fix.check(&slow).verdict, Verdict::Refuted);
        // Without a record, the pattern as written; literal cells are counted as before.
        assert_eq!(fix.bound_text(), "≤ 1 ms in each of blocking/*/fix/p99");
        let listed =
            one("each = [\"blocking/0/fix/p99\", \"blocking/1/fix/p99\"]\nat-most = \"1 ms\"");
        assert_eq!(listed.bound_text(), "≤ 1 ms in each of 2");
        assert_eq!(
            listed.check(&rec).figures,
            o.figures,
            "the same cells, listed"
        );
        // A pattern in `each` may span experiments, each cell judged on its own.
        let mut two = held();
        let mut other = two.series[4].clone();
        other.experiment = "after".into();
        two.series.push(other);
        let lost = one("each = [\"*/1/fix/lost\"]\nat-most = 0");
        assert_eq!(
            read(&lost, &two),
            ["blocking/1/fix/lost", "after/1/fix/lost"]
        );
        assert!(lost.check(&two).held());
        assert_eq!(lost.experiments_on(&two), ["blocking", "after"]);
        assert!(lost.ran_in(&two));
    }

    #[test]
    fn a_conditional_claim_is_judged_only_where_its_fact_holds() {
        let parse = |extra: &str| {
            Claims::parse(&format!(
                "format = 2\n[[claim]]\nid = \"stall\"\nsays = \"s\"\nratio = [\"blocking/1/inline/p99\", \"blocking/1/fix/p99\"]\nat-least = 10\n{extra}"
            ))
        };
        let amd = "only-where = { fact = \"vendor\", is = \"AuthenticAMD\" }\n";
        let e = parse(amd).err().unwrap();
        assert!(e.contains("`only-where` needs `depends-on`"), "{e}");
        let e = parse("depends-on = \"d\"\nonly-where = { fact = \"vendr\", is = \"x\" }\n")
            .err()
            .unwrap();
        assert!(e.contains("no machine fact `vendr`"), "{e}");
        let claims = parse(&format!("depends-on = \"the processor\"\n{amd}")).unwrap();
        let stall = &claims.claims[0];
        let mut rec = held();
        // No facts: the condition cannot be read, and the claim is judged.
        assert_eq!(stall.check(&rec).verdict, Verdict::Held);
        rec.machine.facts = Some(crate::record::Facts {
            vendor: "GenuineIntel".into(),
            ..Default::default()
        });
        let o = stall.check(&rec);
        assert_eq!(o.word(), "does not apply");
        assert!(!o.verdict.judged());
        assert!(
            o.summary().contains("vendor is AuthenticAMD"),
            "{}",
            o.summary()
        );
        rec.machine.facts.as_mut().unwrap().vendor = "AuthenticAMD".into();
        assert_eq!(stall.check(&rec).verdict, Verdict::Held);
        let e = Claims::parse("format = 2\n[[invariant]]\nid = \"i\"\nsays = \"s\"\nvalue = \"blocking/1/fix/lost\"\nat-most = 0\nonly-where = { fact = \"vendor\", is = \"x\" }\n")
            .err()
            .unwrap();
        assert!(e.contains("leave out `only-where`"), "{e}");
    }

    #[test]
    fn a_pattern_that_matches_nothing_leaves_the_claim_not_checked() {
        let rec = held();
        let missing = |c: &Claim, rec: &Record| match c.check(rec).verdict {
            Verdict::Missing(why) => why,
            v => panic!("{v:?}"),
        };
        let nothing = one("each = [\"blocking/*/fix/latency\"]\nat-most = 0");
        assert!(
            missing(&nothing, &rec).contains("the pattern blocking/*/fix/latency matches no cell"),
            "{}",
            missing(&nothing, &rec)
        );
        // One pattern that matches beside one that does not: still not checked.
        let half = one("each = [\"blocking/*/fix/p99\", \"other/*/*/p99\"]\nat-most = \"1 ms\"");
        assert!(missing(&half, &rec).contains("other/*/*/p99"));
        // A `$param` the record lacks is named, as for a listed cell.
        let no_param = one("each = [\"blocking/$cores/*/p99\"]\nat-most = \"1 s\"");
        assert!(missing(&no_param, &rec).contains("no numeric parameter `cores`"));
        // A filtered run: none of its cells.
        let mut filtered = held();
        filtered.series.retain(|s| s.variant != "fix");
        let fix = one("each = [\"blocking/*/fix/p99\"]\nat-most = \"1 ms\"");
        assert!(missing(&fix, &filtered).contains("matches no cell"));
        assert!(fix.cells_on(&filtered).is_err());
    }

    #[test]
    fn a_pattern_in_among_leaves_out_the_claims_own_cell() {
        let rec = held();
        let lowest = one("lowest = \"blocking/1/fix/p99\"\namong = [\"blocking/1/*/p99\"]");
        assert_eq!(
            read(&lowest, &rec),
            ["blocking/1/fix/p99", "blocking/1/inline/p99"]
        );
        let o = lowest.check(&rec);
        assert_eq!(
            (o.verdict.clone(), o.bound.as_str()),
            (Verdict::Held, "lowest of 2")
        );
        assert_eq!(lowest.bound_text(), "lowest of blocking/1/*/p99");
        // Inline is not lowest: its own cell left out, the fix is lower.
        let inline = one("lowest = \"blocking/1/inline/p99\"\namong = [\"blocking/1/*/p99\"]");
        assert_eq!(inline.check(&rec).verdict, Verdict::Refuted);
        // A pattern that matches only the claim's own cell compares it with nothing.
        let mut alone = held();
        alone
            .series
            .retain(|s| !(s.case == "1" && s.variant == "inline"));
        assert!(matches!(
            lowest.check(&alone).verdict,
            Verdict::Missing(why) if why.contains("does not already read")
        ));
        // `ratio-to-lowest`: the cell ÷ the lowest of the others.
        let near = one(
            "ratio-to-lowest = \"blocking/0/inline/p99\"\namong = [\"blocking/*/fix/p99\"]\nat-most = 1.3",
        );
        assert_eq!(near.check(&rec).bound, "≤ 1.3× the lowest of 2");
        assert_eq!(
            near.check(&rec).figures,
            claim("inline-near-best").check(&rec).figures
        );
    }

    #[test]
    fn a_spread_over_a_pattern_needs_two_cells_on_the_record() {
        let rec = held();
        let alike = one("spread = [\"blocking/0/*/p99\"]\nat-most = 2");
        assert_eq!(
            alike.check(&rec).figures,
            claim("idle-alike").check(&rec).figures
        );
        let single = one("spread = [\"blocking/*/fix/lost\"]\nat-most = 2");
        assert!(matches!(
            single.check(&rec).verdict,
            Verdict::Missing(why) if why.contains("two or more cells")
        ));
    }

    #[test]
    fn a_pattern_stands_only_in_a_list_and_for_a_whole_part() {
        let bad = |body: &str| {
            Claims::parse(&format!(
                "format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\n{body}"
            ))
            .unwrap_err()
        };
        assert!(bad("value = \"a/*/c/d\"\nat-most = 1").contains("only in the lists"));
        assert!(
            bad("ratio = [\"a/b/*/d\", \"a/b/c/d\"]\nat-least = 1").contains("only in the lists")
        );
        assert!(bad("lowest = \"a/*/c/d\"\namong = [\"a/b/c/d\"]").contains("only in the lists"));
        assert!(bad("each = [\"a/b/bounded_*/d\"]\nat-most = 1").contains("a whole part"));
        assert!(bad("each = [\"a/b*/c/d\"]\nat-most = 1").contains("a whole part"));
        assert!(bad("each = [\"a/b/c/*\"]\nat-most = 1").contains("name the metric"));
        assert!(bad("spread = [\"a/b/c/d\"]\nat-most = 2").contains("two or more"));
        // `N*$param` is a case, not a pattern.
        let twice = one("value = \"blocking/2*$workers/fix/p99\"\nat-most = 1");
        assert!(!twice.cells()[0].is_pattern());
        assert_eq!(
            read(&twice, &sample_with(&[("workers", 2.0)], &[])),
            ["blocking/4/fix/p99"]
        );
    }

    #[test]
    fn ranges_share_their_unit() {
        assert_eq!(Shown::Ratio.range(1.6, 3.44), "1.60–3.44×");
        assert_eq!(Shown::Seconds.range(0.0301, 0.0402), "30.1–40.2 ms");
        assert_eq!(Shown::Seconds.range(900e-6, 1.2e-3), "900 µs–1.20 ms");
    }

    #[test]
    fn malformed_claims_are_errors_naming_the_claim() {
        let bad = |body: &str| {
            Claims::parse(&format!(
                "format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\n{body}"
            ))
            .unwrap_err()
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
        assert!(
            bad("ratio = [\"a/b/c/d\", \"a/b/c/e\"]\nat-least = \"1 ms\"").contains("has no unit")
        );
        assert!(bad("each = [\"a/b/c/d\"]\nat-least = 1\nat-most = 2").contains("one bound"));
        assert!(
            bad("value = \"a/b/c/d\"\nat-most = 1\nkind = \"invariant\"").contains("[[invariant]]")
        );
        let invariant = |body: &str| {
            Claims::parse(&format!("format = 2\n[[invariant]]\nid = \"x\"\nsays = \"s\"\nvalue = \"a/b/c/d\"\nat-most = 0\n{body}")).unwrap_err()
        };
        assert!(invariant("quiet = true").contains("cannot be `quiet`"));
        assert!(invariant("stat = \"every-repetition\"").contains("leave out `stat`"));
        assert!(invariant("depends-on = \"two CPUs\"").contains("leave out `depends-on`"));
        assert!(
            bad("value = \"a/b/c/d\"\nat-most = 1\ndepends-on = \" \"")
                .contains("what in the machine")
        );
        let depends = Claims::parse("format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\nvalue = \"a/b/c/d\"\nat-most = 1\ndepends-on = \"two CPUs\"\n").unwrap();
        assert_eq!(depends.claims[0].depends_on.as_deref(), Some("two CPUs"));
        let twice = "[[claim]]\nid = \"x\"\nsays = \"s\"\nvalue = \"a/b/c/d\"\nat-most = 1\n";
        assert!(
            Claims::parse(&format!("format = 2\n{twice}{twice}"))
                .unwrap_err()
                .contains("twice")
        );
        assert!(Claims::parse(twice).unwrap_err().contains("format = 2"));
    }
}
