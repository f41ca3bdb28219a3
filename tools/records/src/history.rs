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
//! The entries are parsed with the claims (`claims::Change`, `claims::Retired`); this module
//! compares versions. `was` is the earlier version, with the keys of a claim (its `id` when it was renamed, `kind`
//! when it was a claim and is now an invariant). A claim removed for good is a `[[retired]]`
//! entry with the same keys. [`unrecorded_changes`] compares two versions of a `claims.toml`
//! and names every change without its entry: `cargo run -p book -- history` runs it on every
//! commit since the histories began, and the book renders every entry on the page "How the
//! conclusions changed".

use crate::claims::{Change, Claim, Claims};

/// Every change from `old` to `new` that has no history entry: a claim whose test or sentence
/// changed without a new entry (or with one whose `was` is not the old version), a claim removed
/// with no `[[retired]]` entry and no claim naming it as its earlier id, an entry removed.
pub fn unrecorded_changes(old: &Claims, new: &Claims) -> Vec<String> {
    let mut out = Vec::new();
    for o in &old.claims {
        match new.get(&o.id) {
            Some(n) => {
                // Entries stay (an older one may be added where it was missing).
                let kept =
                    |e: &Change| n.history.iter().any(|k| k.date == e.date && k.why == e.why);
                if !o.history.iter().all(kept) {
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

/// What `new` adds without its time: a claim that `old` lacks (and that is not an old claim
/// renamed) without its `added` time, and a history entry `old` lacks whose date has no time of
/// day. A claim is judged on a record made after it, and only these times say when it was
/// written or restated, to the minute.
pub fn untimed(old: &Claims, new: &Claims) -> Vec<String> {
    let timed = |d: &str| d.contains('T');
    let mut out = Vec::new();
    for n in &new.claims {
        let before = old
            .get(&n.id)
            .or_else(|| n.history.last().and_then(|c| old.get(&c.was.id)));
        match before {
            None if !n.added.as_deref().is_some_and(timed) => out.push(format!(
                "`{}` is new without its `added` time (`added = \"YYYY-MM-DDTHH:MMZ\"`, UTC): a claim is judged on a record made after it",
                n.id
            )),
            Some(o) => {
                for e in n.history.iter().skip(o.history.len()) {
                    if !timed(&e.date) {
                        out.push(format!(
                            "`{}`: its history entry of {} has no time of day (`date = \"{}THH:MMZ\"`, UTC)",
                            n.id, e.date, e.date
                        ));
                    }
                }
            }
            None => {}
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
    if was.condition != now.condition {
        out.push("condition".into());
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_new_claim_and_a_new_entry_need_their_time() {
        let old = Claims::parse("format = 2\n").unwrap();
        let claim = "format = 2\n\n[[claim]]\nid = \"new-one\"\nsays = \"s\"\nvalue = \"e/1/v/m\"\nat-most = 1\n";
        let problems = untimed(&old, &Claims::parse(claim).unwrap());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("`new-one` is new without its `added` time"));
        let day = claim.replace("at-most = 1\n", "at-most = 1\nadded = \"2026-12-04\"\n");
        assert_eq!(untimed(&old, &Claims::parse(&day).unwrap()).len(), 1);
        let timed = claim.replace(
            "at-most = 1\n",
            "at-most = 1\nadded = \"2026-12-04T10:00Z\"\n",
        );
        assert!(untimed(&old, &Claims::parse(&timed).unwrap()).is_empty());
        let same = Claims::parse(claim).unwrap();
        assert!(untimed(&same, &same).is_empty());
        let restated = claim.replace("at-most = 1\n", "at-most = 2\n\n[[claim.history]]\ndate = \"2026-12-04\"\ncause = \"review\"\nfigures = \"f\"\nwhy = \"w\"\nwas = { at-most = 1 }\n");
        let problems = untimed(&same, &Claims::parse(&restated).unwrap());
        assert!(
            problems.len() == 1 && problems[0].contains("no time of day"),
            "{problems:?}"
        );
    }
    use super::*;
    use crate::claims::Kind;

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
