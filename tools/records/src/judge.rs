//! One judge: a claim on a record, with the rules of the record's role. Every place that shows a
//! verdict calls [`judge`] and shows what it returns, and none has rules of its own: the build's
//! directives (`claim`, `busy`, `claims`, `verdicts`, `verdict-summary`, the Machines page, the
//! releases page), `book check`, the claims test on the real records, the harness's broken
//! invariants and the end-of-run report. Every count of verdicts is a [`Tally`]. The build fails
//! where a page states a claim (`claim`, `busy`) that breaks the rules of its record's role, and
//! `book check` wherever one does.
//!
//! The rules, by the record's [`Role`]:
//! - on the book's machine for the chapter (its manifest's `machine`), every conclusion is held
//!   and every cell its claims read was measured; and a conclusion written or restated after the
//!   record was made (its `added` time or newest history entry) is not tested by that record:
//!   the restatement saw it, so only a later record tests it;
//! - beside the busy neighbour (`<machine>-busy`), no conclusion that is not marked `quiet` is
//!   refuted;
//! - anywhere, no invariant is broken (a run with one saves nothing, so a stored one was made by
//!   other means).
//!
//! What the verdict and figures are is [`Claim::check`]'s; this module adds only the rules.

use crate::claims::{Claim, Claims, Kind, Outcome, Verdict};
use crate::record::Record;
use std::path::Path;

/// What a record is to its chapter, which decides the rules its claims are judged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The machine the book takes the chapter's figures from.
    Reference,
    /// That machine beside a busy neighbour.
    Busy,
    /// Any other machine: a reader's, a Tokio release's.
    Other,
}

impl Role {
    /// The role of `rec` in `root`'s book: from its chapter's manifest.
    pub fn of(root: &Path, rec: &Record) -> Role {
        Role::for_machine(root, &rec.chapter, &rec.machine.name)
    }

    /// The role of `machine`'s record of `chapter`.
    pub fn for_machine(root: &Path, chapter: &str, machine: &str) -> Role {
        match crate::chapter::load(root, chapter) {
            Ok(m) if m.machine == machine => Role::Reference,
            Ok(m) if m.busy_machine() == machine => Role::Busy,
            _ => Role::Other,
        }
    }

    /// "the book's machine", "beside the busy neighbour", "another machine".
    pub fn words(self) -> &'static str {
        match self {
            Role::Reference => "the book's machine",
            Role::Busy => "beside the busy neighbour",
            Role::Other => "another machine",
        }
    }
}

/// Why a claim's outcome fails the rules of its record's role.
#[derive(Clone, Debug, PartialEq)]
pub enum Breach {
    /// A conclusion written or restated after the record was made.
    Restated {
        since: String,
        created: String,
    },
    BrokenInvariant,
    /// A cell the claim reads is missing from the book's own record.
    Unmeasured,
    /// The claim's `only-where` condition does not hold on the book's own machine.
    NotApplicable,
    NotHeld,
    RefutedBesideNeighbour,
}

impl Breach {
    pub fn text(&self) -> String {
        match self {
            Breach::Restated { since, created } => format!(
                "written or restated at {since}, after this record was made ({created}): a claim is judged on a record made after it, so rerun the chapter"
            ),
            Breach::BrokenInvariant => {
                "a broken invariant: a bug in the experiment, not a finding".into()
            }
            Breach::Unmeasured => {
                "the book's machine must measure every cell its claims read".into()
            }
            Breach::NotApplicable => {
                "its `only-where` condition does not hold on the book's machine, which must judge every conclusion the book states".into()
            }
            Breach::NotHeld => "every conclusion must be held on the book's machine".into(),
            Breach::RefutedBesideNeighbour => {
                "refuted beside the busy neighbour, and not marked `quiet`".into()
            }
        }
    }
}

/// A claim judged on one record.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub outcome: Outcome,
    /// What breaks the rules of the record's role; `None` when nothing does.
    pub breach: Option<Breach>,
}

/// The claim on the record, with the rules of `role`.
pub fn judge(claim: &Claim, rec: &Record, role: Role) -> Judgement {
    let outcome = claim.check(rec);
    let breach = breach(claim, &outcome, &rec.created, role);
    Judgement { outcome, breach }
}

fn breach(claim: &Claim, o: &Outcome, created: &str, role: Role) -> Option<Breach> {
    if let Some(since) = claim.since()
        && role == Role::Reference
        && claim.kind == Kind::Conclusion
        && moment(since, true) > moment(created, false)
    {
        return Some(Breach::Restated {
            since: since.to_string(),
            created: created.to_string(),
        });
    }
    match (&o.verdict, claim.kind, role) {
        (Verdict::Held, ..) => None,
        (Verdict::Refuted, Kind::Invariant, _) => Some(Breach::BrokenInvariant),
        (Verdict::Missing(_), _, Role::Reference) => Some(Breach::Unmeasured),
        (Verdict::DoesNotApply(_), _, Role::Reference) => Some(Breach::NotApplicable),
        (_, Kind::Conclusion, Role::Reference) => Some(Breach::NotHeld),
        (Verdict::Refuted, Kind::Conclusion, Role::Busy) if !claim.quiet => {
            Some(Breach::RefutedBesideNeighbour)
        }
        _ => None,
    }
}

/// A time as `(year, month, day, hour, minute, second)`: a claim's dates are `YYYY-MM-DD` or
/// `YYYY-MM-DDTHH:MMZ`, a record's `created` `YYYY-MM-DDTHH:MM:SSZ`, all UTC. A minute a claim
/// was restated in runs to its last second (`late`): `T16:44Z` comes after `T16:44:30Z`, which
/// as text it would not. A date alone is the start of its day, as it has always been read: the
/// entries written before times were asked for carry one, and `book history` asks every new one
/// for its time.
fn moment(text: &str, late: bool) -> (u32, u32, u32, u32, u32, u32) {
    let number = |from: usize, len: usize| -> u32 {
        text.get(from..from + len)
            .and_then(|t| t.parse().ok())
            .unwrap_or(0)
    };
    let (y, mo, d) = (number(0, 4), number(5, 2), number(8, 2));
    if text.len() <= 10 {
        return (y, mo, d, 0, 0, 0);
    }
    let seconds = if text.as_bytes().get(16) == Some(&b':') {
        number(17, 2)
    } else if late {
        59
    } else {
        0
    };
    (y, mo, d, number(11, 2), number(14, 2), seconds)
}

/// Verdicts counted, conclusions and invariants apart: the one tally every page and report shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub held: usize,
    pub not_shown: usize,
    pub refuted: usize,
    /// Conclusions whose cells the record lacks.
    pub not_checked: usize,
    /// Conclusions whose `only-where` condition the record's machine does not meet.
    pub not_applicable: usize,
    pub invariants: usize,
    pub invariants_held: usize,
    pub invariants_broken: usize,
}

impl Tally {
    /// Every claim of `claims` on `rec`.
    pub fn of(claims: &Claims, rec: &Record) -> Tally {
        let mut t = Tally::default();
        for c in &claims.claims {
            t.add(c.kind, &c.check(rec));
        }
        t
    }

    pub fn add(&mut self, kind: Kind, o: &Outcome) {
        match kind {
            Kind::Invariant => {
                self.invariants += 1;
                match o.verdict {
                    Verdict::Held => self.invariants_held += 1,
                    Verdict::Refuted => self.invariants_broken += 1,
                    _ => {}
                }
            }
            Kind::Conclusion => match o.verdict {
                Verdict::Held => self.held += 1,
                Verdict::NotShown => self.not_shown += 1,
                Verdict::Refuted => self.refuted += 1,
                Verdict::Missing(_) => self.not_checked += 1,
                Verdict::DoesNotApply(_) => self.not_applicable += 1,
            },
        }
    }

    /// A claim that no outcome could be had for (its record unreadable): a conclusion not checked.
    pub fn add_unjudged(&mut self, kind: Kind) {
        match kind {
            Kind::Invariant => self.invariants += 1,
            Kind::Conclusion => self.not_checked += 1,
        }
    }

    /// Another tally's counts added to this one's.
    pub fn merge(&mut self, other: &Tally) {
        self.held += other.held;
        self.not_shown += other.not_shown;
        self.refuted += other.refuted;
        self.not_checked += other.not_checked;
        self.not_applicable += other.not_applicable;
        self.invariants += other.invariants;
        self.invariants_held += other.invariants_held;
        self.invariants_broken += other.invariants_broken;
    }

    /// Whether every conclusion it could judge held and no invariant broke.
    pub fn all_held(&self) -> bool {
        self.not_shown + self.refuted + self.invariants_broken == 0
    }

    /// Conclusions counted, the unchecked and those that do not apply included.
    pub fn conclusions(&self) -> usize {
        self.held + self.not_shown + self.refuted + self.not_checked + self.not_applicable
    }

    /// Conclusions the record could judge.
    pub fn judged(&self) -> usize {
        self.held + self.not_shown + self.refuted
    }

    /// "15 held, 2 not shown, 0 refuted", with the unchecked when any.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{} held, {} not shown, {} refuted",
            self.held, self.not_shown, self.refuted
        );
        if self.not_checked > 0 {
            s.push_str(&format!(", {} not checked", self.not_checked));
        }
        if self.not_applicable > 0 {
            s.push_str(&format!(", {} not applicable here", self.not_applicable));
        }
        s
    }

    /// "3 of 3 held", with the broken and the unchecked when any.
    pub fn invariant_text(&self) -> String {
        let unchecked = self.invariants - self.invariants_held - self.invariants_broken;
        let mut s = format!(
            "{} of {} held",
            self.invariants_held,
            self.invariants - unchecked
        );
        if self.invariants_broken > 0 {
            s.push_str(&format!(", {} BROKEN", self.invariants_broken));
        }
        if unchecked > 0 {
            s.push_str(&format!(", {unchecked} not checked"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    const CLAIMS: &str = "format = 2\n\n[[claim]]\nid = \"stall\"\nsays = \"s\"\nratio = [\"e/1/inline/p99\", \"e/1/fix/p99\"]\nat-least = 10\nadded = \"2026-12-02T10:00Z\"\n\n[[claim]]\nid = \"quiet-one\"\nsays = \"q\"\nvalue = \"e/1/fix/p99\"\nat-most = 100\nquiet = true\n\n[[invariant]]\nid = \"none-lost\"\nsays = \"l\"\nvalue = \"e/1/fix/lost\"\nat-most = 0\n";

    fn record(inline: f64, fix: f64, lost: f64, created: &str) -> Record {
        let mut r = Record::sketch(
            "ch99-demo",
            "m",
            &[],
            &[
                ("e", "1", "inline", "p99", "ns", &[inline; 5]),
                ("e", "1", "fix", "p99", "ns", &[fix; 5]),
                (
                    "e",
                    "1",
                    "fix",
                    "lost",
                    "count",
                    &[0.0, 0.0, lost, 0.0, 0.0],
                ),
            ],
        );
        r.created = created.into();
        r
    }

    fn claims() -> Claims {
        Claims::parse(CLAIMS).unwrap()
    }

    fn breach_of(id: &str, rec: &Record, role: Role) -> Option<Breach> {
        judge(claims().get(id).unwrap(), rec, role).breach
    }

    #[test]
    fn a_claim_written_after_the_record_waits_for_a_new_one_on_the_books_machine_only() {
        let before = record(2000.0, 50.0, 0.0, "2026-12-01T00:00:00Z");
        assert!(matches!(
            breach_of("stall", &before, Role::Reference),
            Some(Breach::Restated { .. })
        ));
        assert_eq!(breach_of("stall", &before, Role::Other), None);
        let after = record(2000.0, 50.0, 0.0, "2026-12-03T00:00:00Z");
        assert_eq!(breach_of("stall", &after, Role::Reference), None);
    }

    #[test]
    fn times_compare_as_times_not_as_text() {
        let m = |t: &str| moment(t, true);
        assert!(m("2026-12-01") < moment("2026-12-01T18:03:00Z", false));
        assert!(m("2026-12-02") > moment("2026-12-01T18:03:00Z", false));
        assert!(m("2026-12-01T16:44Z") < moment("2026-12-01T16:45:00Z", false));
        assert!(m("2026-12-01T16:44Z") > moment("2026-12-01T16:44:30Z", false));
        assert!(m("2026-11-30") < moment("2026-12-01T00:00:00Z", false));
    }

    #[test]
    fn each_role_has_its_rules() {
        let rec = record(200.0, 500.0, 0.0, "2026-12-03T00:00:00Z");
        // 0.4× against ≥ 10×: refuted; the fix at 500 against ≤ 100, refuted but quiet.
        assert_eq!(
            breach_of("stall", &rec, Role::Reference),
            Some(Breach::NotHeld)
        );
        assert_eq!(
            breach_of("stall", &rec, Role::Busy),
            Some(Breach::RefutedBesideNeighbour)
        );
        assert_eq!(breach_of("quiet-one", &rec, Role::Busy), None);
        assert_eq!(breach_of("stall", &rec, Role::Other), None);
        let broken = record(2000.0, 50.0, 3.0, "2026-12-03T00:00:00Z");
        for role in [Role::Reference, Role::Busy, Role::Other] {
            assert_eq!(
                breach_of("none-lost", &broken, role),
                Some(Breach::BrokenInvariant)
            );
        }
    }

    #[test]
    fn one_tally_counts_conclusions_and_invariants_apart() {
        let rec = record(200.0, 500.0, 3.0, "2026-12-03T00:00:00Z");
        let t = Tally::of(&claims(), &rec);
        assert_eq!(
            (t.held, t.not_shown, t.refuted, t.not_checked),
            (0, 0, 2, 0)
        );
        assert_eq!(
            (t.invariants, t.invariants_held, t.invariants_broken),
            (1, 0, 1)
        );
        assert_eq!(t.text(), "0 held, 0 not shown, 2 refuted");
        assert_eq!(t.invariant_text(), "0 of 1 held, 1 BROKEN");
    }
}
