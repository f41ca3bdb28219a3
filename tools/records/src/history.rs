//! The history of every conclusion: when a claim's test (cells, bound, statistic, kind, `quiet`)
//! or its sentence changes, its earlier version stays in `claims.toml` as a history entry, with
//! the date, the figures that made it change and why:
//!
//! ```toml
//! [[claim]]
//! id = "ten-milliseconds-hurts"
//! says = "..."
//! ratio = ["heavy_cost/10/inline/p99", "heavy_cost/10/inline/heavy_job"]
//! at-least = 0.5
//! at-most = 2
//!
//! [[claim.history]]
//! date = "2026-11-30"
//! commit = "72bb613"
//! cause = "refuted"
//! figures = "3.54× on the remeasure of 11:29 (13.5 ms against 3.8 ms)"
//! why = "..."
//! was = { says = "...", ratio = ["heavy_cost/10/inline/p99", "heavy_cost/10/spawn_blocking/p99"], at-least = 5 }
//! ```
//!
//! `was` is the earlier version, with the keys of a claim (its `id` when it was renamed, `kind`
//! when it was a claim and is now an invariant). A claim removed for good is a `[[retired]]`
//! entry with the same keys. [`unrecorded_changes`] compares two versions of a `claims.toml`
//! and names every change without its entry: `cargo run -p book -- history` runs it on every
//! commit since the histories began, and the book renders every entry on the page "How the
//! conclusions changed".

use crate::claims::{Claim, Claims, Kind, RawClaim};
use serde::Deserialize;

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
}

impl Cause {
    const ALL: [(&'static str, Cause); 7] = [
        ("refuted", Cause::Refuted),
        ("not-shown", Cause::NotShown),
        ("busy", Cause::Busy),
        ("review", Cause::Review),
        ("invariant", Cause::Invariant),
        ("redesign", Cause::Redesign),
        ("loosened", Cause::Loosened),
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
        }
    }

    /// Whether the data contradicted the claim (the errata the page lists first).
    pub fn after_a_failure(self) -> bool {
        matches!(self, Cause::Refuted | Cause::NotShown | Cause::Busy)
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
    pub change: Change,
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
                was: raw.was,
            },
            &was,
            &written,
        )
        .map_err(|e| format!("retired `{id}`: {e}"))?;
        Ok(Retired { id, change })
    }
}

fn check_date(d: &str) -> Result<(), String> {
    let ok = d.len() == 10
        && d.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    if ok {
        Ok(())
    } else {
        Err(format!("date `{d}`: write YYYY-MM-DD"))
    }
}

/// Every change from `old` to `new` that has no history entry: a claim whose test or sentence
/// changed without a new entry (or with one whose `was` is not the old version), a claim removed
/// with no `[[retired]]` entry and no claim naming it as its earlier id, an entry removed.
pub fn unrecorded_changes(old: &Claims, new: &Claims) -> Vec<String> {
    let mut out = Vec::new();
    for o in &old.claims {
        match new.get(&o.id) {
            Some(n) => {
                if n.history.len() < o.history.len()
                    || n.history
                        .iter()
                        .zip(&o.history)
                        .any(|(a, b)| a.date != b.date || a.why != b.why)
                {
                    out.push(format!(
                        "`{}`: history entries were removed or rewritten",
                        o.id
                    ));
                }
                if o.same_definition(n) {
                    continue;
                }
                let what = differences(o, n).join(", ");
                match n.history.last() {
                    Some(last) if n.history.len() > o.history.len() => {
                        if !last.was.same_definition(o) || last.was.id != o.id {
                            out.push(format!(
                                "`{}`: its {what} changed, but its newest history entry's `was` is not the previous version",
                                o.id
                            ));
                        }
                    }
                    _ => out.push(format!(
                        "`{}`: its {what} changed with no new [[{}.history]] entry saying when, on what figures and why",
                        o.id,
                        n.kind.name()
                    )),
                }
            }
            None => {
                let retired = new
                    .retired
                    .iter()
                    .any(|r| r.id == o.id && r.change.was.same_definition(o));
                let renamed = new.claims.iter().any(|n| {
                    n.history
                        .last()
                        .is_some_and(|c| c.was.id == o.id && c.was.same_definition(o))
                });
                if !retired && !renamed {
                    out.push(format!(
                        "`{}` was removed with no [[retired]] entry, and no claim's newest history entry names it as its earlier version",
                        o.id
                    ));
                }
            }
        }
    }
    for r in &old.retired {
        if !new.retired.iter().any(|n| n.id == r.id) {
            out.push(format!("the retired entry of `{}` was removed", r.id));
        }
    }
    out
}

/// What differs between two versions of a claim, in words: "bound", "cells", "sentence".
pub fn differences(was: &Claim, now: &Claim) -> Vec<String> {
    use crate::claims::Test;
    let bound = |t: &Test| match t {
        Test::Ratio(_, _, b)
        | Test::RatioOfRatios(_, b)
        | Test::Value(_, b)
        | Test::RatioToLowest(_, _, b)
        | Test::Spread(_, b)
        | Test::Each(_, b) => Some(b.clone()),
        Test::Lowest(..) | Test::Highest(..) => None,
    };
    let mut out = Vec::new();
    if was.id != now.id {
        out.push("id".to_string());
    }
    if was.kind != now.kind {
        out.push("kind".into());
    }
    if std::mem::discriminant(&was.test) != std::mem::discriminant(&now.test) {
        out.push("test".into());
    } else {
        if was.cells() != now.cells() {
            out.push("cells".into());
        }
        if bound(&was.test) != bound(&now.test) {
            out.push("bound".into());
        }
    }
    if was.every_repetition != now.every_repetition && was.kind == now.kind {
        out.push("statistic".into());
    }
    if was.quiet != now.quiet {
        out.push("`quiet` mark".into());
    }
    if was.says != now.says {
        out.push("sentence".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = r#"
format = 2

[[claim]]
id = "stall"
says = "inline at least 2× the fix"
ratio = ["b/1/inline/p99", "b/1/fix/p99"]
at-least = 2

[[claim.history]]
date = "2026-11-30"
commit = "72bb613"
cause = "refuted"
figures = "3.54× on the remeasure of 11:29"
why = "the fix's own p99 moves a lot with 10 ms jobs"
was = { says = "inline at least 5× the fix", ratio = ["b/1/inline/p99", "b/1/fix/p99"], at-least = 5 }

[[invariant]]
id = "nothing-lost"
says = "no message lost"
value = "b/1/fix/lost"
at-most = 0

[[invariant.history]]
date = "2026-12-01"
cause = "invariant"
figures = "0 in every repetition of every record"
why = "a cancel-safe receive cannot lose a message: a check, not a finding"
was = { kind = "claim" }

[[retired]]
date = "2026-11-30"
commit = "872db87"
cause = "refuted"
figures = "1.696× against ≤ 1.5"
why = "recv_many's gain 1 → 1 depends on the batch the consumer finds"
was = { id = "recv-many-modest", says = "recv_many at most 1.5×", ratio = ["s/1/batch/m", "s/1/one/m"], at-most = 1.5 }
"#;

    const BEFORE: &str = r#"
format = 2

[[claim]]
id = "stall"
says = "inline at least 5× the fix"
ratio = ["b/1/inline/p99", "b/1/fix/p99"]
at-least = 5

[[claim]]
id = "nothing-lost"
says = "no message lost"
value = "b/1/fix/lost"
at-most = 0

[[claim]]
id = "recv-many-modest"
says = "recv_many at most 1.5×"
ratio = ["s/1/batch/m", "s/1/one/m"]
at-most = 1.5
"#;

    #[test]
    fn recorded_changes_pass_and_their_earlier_versions_parse() {
        let (old, new) = (Claims::parse(BEFORE).unwrap(), Claims::parse(NOW).unwrap());
        assert_eq!(unrecorded_changes(&old, &new), Vec::<String>::new());
        let stall = new.get("stall").unwrap();
        assert_eq!(
            differences(&stall.history[0].was, stall),
            ["bound", "sentence"]
        );
        let lost = new.get("nothing-lost").unwrap();
        assert_eq!(lost.history[0].was.kind, Kind::Conclusion);
        assert_eq!(lost.history[0].was.says, "no message lost", "inherited");
        assert_eq!(lost.history[0].was.test, lost.test, "inherited whole");
        assert_eq!(differences(&lost.history[0].was, lost), ["kind"]);
        assert_eq!(new.retired[0].id, "recv-many-modest");
    }

    #[test]
    fn a_change_without_its_entry_is_named() {
        let old = Claims::parse(BEFORE).unwrap();
        // The bound moved from 5 to 2 and the entry left out.
        let bare = NOW.split("[[claim.history]]").next().unwrap().to_string()
            + NOW
                .split_once("[[invariant]]")
                .map(|(_, r)| r)
                .map(|r| format!("[[invariant]]{r}"))
                .unwrap()
                .as_str();
        let problems = unrecorded_changes(&old, &Claims::parse(&bare).unwrap());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("`stall`: its bound, sentence changed with no new"),
            "{problems:?}"
        );
        // An entry whose `was` is not the old version.
        let wrong = NOW.replace("at-least = 5 }", "at-least = 4 }");
        let problems = unrecorded_changes(&old, &Claims::parse(&wrong).unwrap());
        assert!(
            problems[0].contains("is not the previous version"),
            "{problems:?}"
        );
        // A claim removed with no trace.
        let gone = NOW.split("[[retired]]").next().unwrap();
        let problems = unrecorded_changes(&old, &Claims::parse(gone).unwrap());
        assert!(
            problems[0].contains("`recv-many-modest` was removed"),
            "{problems:?}"
        );
        // An entry removed later.
        let problems =
            unrecorded_changes(&Claims::parse(NOW).unwrap(), &Claims::parse(&bare).unwrap());
        assert!(
            problems
                .iter()
                .any(|p| p.contains("history entries were removed")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_quiet_mark_added_after_a_busy_failure_needs_its_entry_too() {
        let old = Claims::parse(NOW).unwrap();
        let quiet = NOW.replacen("at-least = 2\n", "at-least = 2\nquiet = true\n", 1);
        let problems = unrecorded_changes(&old, &Claims::parse(&quiet).unwrap());
        assert!(problems[0].contains("`quiet` mark changed"), "{problems:?}");
    }

    #[test]
    fn malformed_entries_are_errors() {
        let bad = |from: &str, to: &str| Claims::parse(&NOW.replacen(from, to, 1)).unwrap_err();
        assert!(bad("date = \"2026-11-30\"", "date = \"30 Nov\"").contains("YYYY-MM-DD"));
        assert!(bad("cause = \"refuted\"", "cause = \"oops\"").contains("use one of"));
        assert!(bad("commit = \"72bb613\"", "commit = \"HEAD\"").contains("not a commit id"));
        assert!(bad("why = \"the fix's", "why = \"\"\nx = \"").contains("unknown field"));
    }
}
