//! Records on which a claim fails, made from one on which it holds, for the chapters' claims
//! test (`tools/records/tests/chapters.rs`): a claim that no record can refute says nothing.
//! That test judges every chapter's claims on the chapter's record from the book's machine, as
//! measured (`data/<machine>/<chapter>.json`), and on records derived from it here; a new claim
//! needs no test of its own.
//!
//! [`refuted`] moves one cell's value in every repetition until the claim's figure lies past its
//! bound there; [`not_shown`] does the same in as few repetitions as it takes for the verdict's
//! interval to cross the bound, leaving the others as they were. [`not_held`],
//! [`conclusions_that_cannot_fail`] and [`invariants_that_cannot_break`] are the test's three
//! parts, each a line per claim that falls short, naming it.

use crate::claims::{Claim, Claims, Verdict};
use crate::record::Record;
use crate::summary::Summary;
use crate::verdict;

/// `rec` with the claim's figure moved past its bound in every repetition.
pub fn refuted(claim: &Claim, rec: &Record) -> Result<Record, String> {
    let n = repetitions(claim, rec)?;
    push_past(claim, rec, &(0..n).collect::<Vec<_>>())
}

/// `rec` with the claim's figure moved past its bound in just enough repetitions that the
/// interval its verdict is judged on crosses the bound: one for an invariant (which it breaks),
/// else as many as the interval leaves out at each end, plus one. A claim about every repetition
/// is not shown only on a run too short to judge: the record cut to four repetitions.
pub fn not_shown(claim: &Claim, rec: &Record) -> Result<Record, String> {
    let n = repetitions(claim, rec)?;
    // A claim about every repetition cannot be left not shown by a repetition that misses (that
    // refutes it): only a run too short to judge leaves it not shown.
    if claim.every_repetition && claim.kind == crate::claims::Kind::Conclusion {
        let mut short = rec.clone();
        let keep = (verdict::MIN_REPETITIONS - 1).min(n);
        short.reps = keep as u32;
        short.experiment_reps.clear();
        for s in &mut short.series {
            s.values.truncate(keep);
            if let Some(sum) = Summary::of(&s.values) {
                (s.median, s.min, s.max) = (sum.median, sum.min, sum.max);
            }
        }
        return Ok(short);
    }
    // An invariant breaks on one repetition; a conclusion's interval leaves out k − 1 at each end.
    let k = if claim.is_invariant() {
        1
    } else {
        verdict::interval_rank(n).ok_or_else(|| {
            format!(
                "{n} repetitions give no interval: make the record with at least {}",
                verdict::MIN_REPETITIONS
            )
        })?
    };
    push_past(claim, rec, &(0..k).collect::<Vec<_>>())
}

fn repetitions(claim: &Claim, rec: &Record) -> Result<usize, String> {
    let o = claim.check(rec);
    if let Verdict::Missing(why) = o.verdict {
        return Err(format!("{}: {why}", claim.id));
    }
    Ok(o.figures.len())
}

/// Replaces one cell's value in each of `reps` so that the claim's figure there breaks its bound,
/// trying the smallest change first, the same cell and change in every repetition where it works.
fn push_past(claim: &Claim, rec: &Record, reps: &[usize]) -> Result<Record, String> {
    let mut out = rec.clone();
    let limits = claim.limits();
    let cells: Vec<(usize, usize)> = claim
        .cells_on(rec)
        .map_err(|why| format!("{}: {why}", claim.id))?
        .iter()
        .enumerate()
        .map(|(position, c)| {
            let index = rec
                .series
                .iter()
                .position(|s| {
                    s.experiment == c.experiment
                        && s.case == c.case
                        && s.variant == c.variant
                        && s.metric == c.metric
                })
                .ok_or_else(|| format!("{}: no cell {c}", claim.id))?;
            Ok((position, index))
        })
        .collect::<Result<_, String>>()?;
    // One repetition alone, as the claim reads it: the figure with cell `at` replaced by `x`.
    // Which side of its bound a repetition's figure lands on with cell `at` replaced by `x`:
    // `Some(true)` above the upper bound, `Some(false)` below the lower, `None` within.
    let lands = |rec: &Record, rep: usize, at: usize, x: f64| {
        let mut trial = rec.clone();
        trial.series[at].values[rep] = x;
        let f = *claim.check(&one_repetition(&trial, rep)).figures.first()?;
        if limits.at_most.is_some_and(|b| f > b) {
            Some(true)
        } else if limits.at_least.is_some_and(|b| f < b) {
            Some(false)
        } else {
            None
        }
    };
    // Every repetition crosses the same side of a two-sided bound as the first one did, and the
    // change that moved the first is tried first in the others.
    let mut preferred: Option<(usize, Change)> = None;
    let mut side: Option<bool> = None;
    for &rep in reps {
        let tries = preferred.into_iter().chain(
            CHANGES
                .iter()
                .flat_map(|&c| cells.iter().map(move |&(_, index)| (index, c))),
        );
        let mut done = false;
        for (index, change) in tries {
            let v = out.series[index].values[rep];
            let x = change.apply(v);
            let landed = if x == v {
                None
            } else {
                lands(&out, rep, index, x)
            };
            if landed.is_some() && side.is_none_or(|s| Some(s) == landed) {
                out.series[index].values[rep] = x;
                (preferred, side) = (Some((index, change)), landed);
                done = true;
                break;
            }
        }
        if !done {
            return Err(format!(
                "{}: no change to one cell moves repetition {} past the bound: can this claim fail at all?",
                claim.id,
                rep + 1
            ));
        }
    }
    for s in &mut out.series {
        if let Some(sum) = Summary::of(&s.values) {
            (s.median, s.min, s.max) = (sum.median, sum.min, sum.max);
        }
    }
    Ok(out)
}

/// The record cut down to repetition `rep` of every series.
fn one_repetition(rec: &Record, rep: usize) -> Record {
    let mut one = rec.clone();
    one.reps = 1;
    for s in &mut one.series {
        let v = s.values.get(rep).copied().unwrap_or(f64::NAN);
        s.values = vec![v];
        (s.median, s.min, s.max) = (v, v, v);
    }
    one
}

#[derive(Clone, Copy)]
enum Change {
    Times(f64),
    To(f64),
}

impl Change {
    fn apply(self, v: f64) -> f64 {
        match self {
            Change::Times(f) => v * f,
            Change::To(x) => x,
        }
    }
}

/// Smallest first: a figure that fails only with a change of a million times is still shown to fail.
const CHANGES: [Change; 22] = [
    Change::Times(1.5),
    Change::Times(1.0 / 1.5),
    Change::Times(2.0),
    Change::Times(0.5),
    Change::Times(4.0),
    Change::Times(0.25),
    Change::Times(10.0),
    Change::Times(0.1),
    Change::Times(100.0),
    Change::Times(0.01),
    Change::Times(1e4),
    Change::Times(1e-4),
    Change::Times(1e6),
    Change::Times(1e-6),
    Change::To(0.0),
    Change::To(1.0),
    Change::To(2.0),
    Change::To(10.0),
    Change::To(1e3),
    Change::To(1e6),
    Change::To(1e9),
    Change::To(-1.0),
];

/// The claims test, part one: every claim, conclusion or invariant, held on `rec` (the record
/// from the book's machine). One line for each that is not, naming it, with what it came to.
pub fn not_held(claims: &Claims, rec: &Record) -> Vec<String> {
    // Judged as the book judges its own machine's record (`crate::judge`), its rules included.
    claims
        .claims
        .iter()
        .filter_map(|c| {
            let j = crate::judge::judge(c, rec, crate::judge::Role::Reference);
            j.breach.map(|why| {
                format!(
                    "{} `{}` is {} on the record it is judged on: {} [{}]",
                    c.kind.name(),
                    c.id,
                    j.outcome.word(),
                    j.outcome.summary(),
                    why.text()
                )
            })
        })
        .collect()
}

/// Part two: every conclusion is refuted on a record made from `rec` by moving its figures
/// ([`refuted`]), and left not shown on another ([`not_shown`]). One line for each that is not.
pub fn conclusions_that_cannot_fail(claims: &Claims, rec: &Record) -> Vec<String> {
    let mut out = Vec::new();
    for c in claims.conclusions() {
        for (want, made) in [
            (Verdict::Refuted, refuted(c, rec)),
            (Verdict::NotShown, not_shown(c, rec)),
        ] {
            match made {
                Err(why) => out.push(format!(
                    "claim `{}`: no record left it {}: {}",
                    c.id,
                    word(&want),
                    without_id(c, &why)
                )),
                Ok(r) => {
                    let o = c.check(&r);
                    if o.verdict != want {
                        out.push(format!(
                            "claim `{}`: a record made to leave it {} left it {}: {}",
                            c.id,
                            word(&want),
                            o.word(),
                            o.summary()
                        ));
                    }
                }
            }
        }
    }
    out
}

/// Part three: every invariant breaks on one bad repetition of a record made from `rec`
/// ([`not_shown`]). One line for each that does not.
pub fn invariants_that_cannot_break(claims: &Claims, rec: &Record) -> Vec<String> {
    let mut out = Vec::new();
    for c in claims.invariants() {
        match not_shown(c, rec) {
            Err(why) => out.push(format!(
                "invariant `{}`: no record broke it: {}",
                c.id,
                without_id(c, &why)
            )),
            Ok(r) => {
                let o = c.check(&r);
                if (&o.verdict, o.word()) != (&Verdict::Refuted, "broken") {
                    out.push(format!(
                        "invariant `{}`: one bad repetition left it {}: {}",
                        c.id,
                        o.word(),
                        o.summary()
                    ));
                }
            }
        }
    }
    out
}

/// `why` without the claim's id in front, where the line names it already.
fn without_id<'a>(c: &Claim, why: &'a str) -> &'a str {
    why.strip_prefix(c.id.as_str())
        .and_then(|w| w.strip_prefix(": "))
        .unwrap_or(why)
}

fn word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Held => "held",
        Verdict::NotShown => "not shown",
        Verdict::Refuted => "refuted",
        Verdict::Missing(_) => "not checked",
        Verdict::DoesNotApply(_) => "does not apply",
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
says = "inline at least 10× the fix"
ratio = ["b/1/inline/p99", "b/1/fix/p99"]
at-least = 10

[[claim]]
id = "alike"
says = "within 1.5× of each other"
spread = ["b/1/fix/p99", "b/0/fix/p99"]
at-most = 1.5

[[claim]]
id = "every-time"
says = "the fix under 1 ms in every repetition"
value = "b/1/fix/p99"
at-most = "1 ms"
stat = "every-repetition"

[[claim]]
id = "fix-fast-at-every-burst"
says = "the fix under 1 ms at every burst"
each = ["b/*/fix/p99"]
at-most = "1 ms"

[[invariant]]
id = "nothing-lost"
says = "no message lost"
value = "b/1/fix/lost"
at-most = 0

[[invariant]]
id = "nothing-lost-anywhere"
says = "no message lost in any cell"
each = ["*/*/*/lost"]
at-most = 0
"#;

    fn record(reps: usize) -> Record {
        let take = |v: [f64; 10]| v[..reps].to_vec();
        let inline = take([30e6, 32e6, 35e6, 36e6, 31e6, 33e6, 34e6, 30e6, 35e6, 32e6]);
        let fix = take([
            150e3, 160e3, 170e3, 200e3, 180e3, 150e3, 165e3, 175e3, 190e3, 155e3,
        ]);
        let idle = take([
            140e3, 150e3, 160e3, 170e3, 150e3, 140e3, 160e3, 150e3, 170e3, 145e3,
        ]);
        let lost = vec![0.0; reps];
        sample_with(
            &[],
            &[
                ("b", "1", "inline", "p99", "ns", &inline),
                ("b", "1", "fix", "p99", "ns", &fix),
                ("b", "0", "fix", "p99", "ns", &idle),
                ("b", "1", "fix", "lost", "count", &lost),
            ],
        )
    }

    #[test]
    fn every_claim_is_refuted_and_left_not_shown_by_moving_its_figures() {
        let claims = Claims::parse(CLAIMS).unwrap();
        for reps in [5, 10] {
            let rec = record(reps);
            for c in &claims.claims {
                assert_eq!(c.check(&rec).verdict, Verdict::Held, "{}", c.id);
                let r = refuted(c, &rec).unwrap();
                r.validate().unwrap();
                assert_eq!(
                    c.check(&r).verdict,
                    Verdict::Refuted,
                    "{}: {}",
                    c.id,
                    c.check(&r).summary()
                );
                let ns = not_shown(c, &rec).unwrap();
                let expected = if c.is_invariant() {
                    Verdict::Refuted
                } else {
                    Verdict::NotShown
                };
                assert_eq!(
                    c.check(&ns).verdict,
                    expected,
                    "{}: {}",
                    c.id,
                    c.check(&ns).summary()
                );
            }
        }
    }

    #[test]
    fn the_three_parts_name_each_claim_that_falls_short() {
        let claims = Claims::parse(CLAIMS).unwrap();
        let rec = record(10);
        assert_eq!(not_held(&claims, &rec), Vec::<String>::new());
        assert_eq!(
            conclusions_that_cannot_fail(&claims, &rec),
            Vec::<String>::new()
        );
        assert_eq!(
            invariants_that_cannot_break(&claims, &rec),
            Vec::<String>::new()
        );
        // Inline no slower than the fix: `stall` refuted, and named.
        let mut slow_fix = rec.clone();
        slow_fix.series[0].values = slow_fix.series[1].values.clone();
        let lines = not_held(&claims, &slow_fix);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("claim `stall` is refuted on the record it is judged on: 1.00×"),
            "{lines:?}"
        );
        // Bounds no figure can cross.
        let hollow = Claims::parse(
            "format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\nvalue = \"b/1/fix/lost\"\nat-least = -1e300\n\
             [[invariant]]\nid = \"y\"\nsays = \"s\"\neach = [\"*/*/*/lost\"]\nat-least = -1e300\n",
        )
        .unwrap();
        let lines = conclusions_that_cannot_fail(&hollow, &rec);
        assert_eq!(lines.len(), 2, "refuted and not shown: {lines:?}");
        assert!(
            lines[0].starts_with("claim `x`: no record left it refuted: no change to one cell"),
            "{lines:?}"
        );
        let lines = invariants_that_cannot_break(&hollow, &rec);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("invariant `y`: no record broke it: no change to one cell"),
            "{lines:?}"
        );
        // A claim whose cells the record lacks is not held, and cannot be failed either.
        let mut short = rec.clone();
        short.series.retain(|s| s.metric != "lost");
        let lines = not_held(&claims, &short);
        assert!(
            lines.iter().any(
                |l| l.starts_with("invariant `nothing-lost-anywhere` is not checked")
                    && l.contains("*/*/*/lost matches no cell")
            ),
            "{lines:?}"
        );
        assert_eq!(invariants_that_cannot_break(&claims, &short).len(), 2);
    }

    #[test]
    fn a_claim_no_change_can_break_is_reported() {
        let claims = Claims::parse(
            "format = 2\n[[claim]]\nid = \"x\"\nsays = \"s\"\nvalue = \"b/1/fix/lost\"\nat-least = -1e300\n",
        )
        .unwrap();
        let e = refuted(&claims.claims[0], &record(5)).unwrap_err();
        assert!(e.contains("can this claim fail at all"), "{e}");
    }
}
