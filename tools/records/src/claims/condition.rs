//! A conclusion that holds only where a machine fact has one value: its mechanism depends on
//! something in the machine that the record can name, so the judge checks that fact in the record
//! before it judges the figures.
//!
//! ```toml
//! [[claim]]
//! id = "kanal-beats-mpsc-1to1"
//! says = "on the AMD EPYC guests, ..."
//! depends-on = "..."
//! only-where = { fact = "vendor", is = "AuthenticAMD" }
//! ```
//!
//! `fact` names a field of the record's machine facts ([`Facts`]: `vendor`, `family_model`,
//! `cpuidle`, `libc`, ...; `scheduler.NAME` for one scheduler setting, `timer.resolution_ns` for a
//! nested one), and `is` or `is-not` the value as the facts write it (`is-not` also asks that the
//! fact be set). On a record whose facts
//! give another value the claim *does not apply* ([`Verdict::DoesNotApply`]), and the reports and
//! pages say so with the value they found; on a record made before records carried facts, the
//! condition cannot be read, and the claim is judged as if it had none.

use crate::record::{Facts, Record};
use serde::Deserialize;

/// `only-where` as written.
#[derive(Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawCondition {
    pub fact: String,
    pub is: Option<String>,
    pub is_not: Option<String>,
}

/// Where a conclusion applies.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// A path into the record's facts: `vendor`, `scheduler.sched_vcpu_pack`.
    pub fact: String,
    pub wanted: Wanted,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Wanted {
    Is(String),
    IsNot(String),
}

/// Whether a condition holds on one record.
#[derive(Clone, Debug, PartialEq)]
pub enum Applies {
    Yes,
    /// It does not: why, with the value the record's facts give.
    No(String),
    /// The record carries no facts (made before they were recorded).
    Unknown,
}

/// The top-level fields of [`Facts`] a condition may name; a test checks the list against the
/// fields themselves, so a fact added there must be added here.
const FACTS: &[&str] = &[
    "vendor",
    "family_model",
    "mhz",
    "cpus_online",
    "sockets",
    "cores",
    "threads_per_core",
    "thread_siblings",
    "caches",
    "hypervisor",
    "clocksource",
    "clocksources",
    "timer",
    "spin_loop_ns",
    "line_handoff_ns",
    "tick_hz",
    "preemption",
    "scheduler",
    "base_slice_ns",
    "cpuidle",
    "vulnerabilities",
    "cmdline",
    "cpu_max",
    "thp",
    "libc",
    "procs_running",
];

/// Facts that hold several values: no condition compares them.
const LISTS: &[&str] = &["thread_siblings", "caches", "clocksources"];

/// Facts that group named values: a condition names one (`scheduler.sched_vcpu_pack`).
const GROUPS: &[&str] = &["scheduler", "vulnerabilities", "timer"];

impl Condition {
    pub fn parse(raw: &RawCondition) -> Result<Condition, String> {
        let wanted = match (&raw.is, &raw.is_not) {
            (Some(v), None) => Wanted::Is(v.clone()),
            (None, Some(v)) => Wanted::IsNot(v.clone()),
            _ => {
                return Err(
                    "`only-where` takes `fact` and one of `is` or `is-not`: { fact = \"vendor\", is = \"AuthenticAMD\" }".into(),
                );
            }
        };
        let (top, inner) = match raw.fact.split_once('.') {
            Some((top, inner)) => (top, Some(inner)),
            None => (raw.fact.as_str(), None),
        };
        if !FACTS.contains(&top) {
            return Err(format!(
                "only-where: no machine fact `{}` (one of {}; `scheduler.NAME` for one scheduler setting)",
                raw.fact,
                FACTS.join(", ")
            ));
        }
        // A condition compares one value: a list has none, and a group names one of its fields.
        if LISTS.contains(&top) {
            return Err(format!(
                "only-where: `{top}` is a list, not one value a condition can compare"
            ));
        }
        if GROUPS.contains(&top) != inner.is_some() {
            return Err(format!(
                "only-where: `{}`: name one of {}'s fields (`{}.NAME`)",
                raw.fact,
                GROUPS.join(", "),
                GROUPS.join(".NAME`, `")
            ));
        }
        Ok(Condition {
            fact: raw.fact.clone(),
            wanted,
        })
    }

    /// "where the CPU vendor is AuthenticAMD", "where THP's mode is not never".
    pub fn text(&self) -> String {
        let fact = fact_name(&self.fact);
        match &self.wanted {
            Wanted::Is(v) => format!("where {fact} is {v}"),
            Wanted::IsNot(v) => format!("where {fact} is not {v}"),
        }
    }

    /// "judged only on machines where vendor is AuthenticAMD": what a page says beside the claim.
    pub fn judged_only(&self) -> String {
        format!("judged only on machines {}", self.text())
    }

    /// Whether it holds on `rec`, from the facts the record carries.
    pub fn on(&self, rec: &Record) -> Applies {
        let Some(facts) = &rec.machine.facts else {
            return Applies::Unknown;
        };
        let value = fact_value(facts, &self.fact);
        let holds = match &self.wanted {
            Wanted::Is(v) => value.as_deref() == Some(v.as_str()),
            // Set, and to something else: a claim applies only where the fact is known.
            Wanted::IsNot(v) => value.as_deref().is_some_and(|x| x != v),
        };
        if holds {
            Applies::Yes
        } else {
            Applies::No(format!(
                "does not apply here: the claim holds {}, and here it is {}",
                self.text(),
                value.unwrap_or_else(|| "not set".into())
            ))
        }
    }
}

/// A fact as a sentence names it; a fact without a name here reads as its path.
fn fact_name(path: &str) -> &str {
    match path {
        "vendor" => "the CPU vendor",
        "thp" => "THP's mode",
        "libc" => "the C library",
        "clocksource" => "the clock source",
        other => other,
    }
}

/// The fact at `path` as text ("AuthenticAMD", "15", "24.36"); `None` where the facts leave it
/// unset.
fn fact_value(facts: &Facts, path: &str) -> Option<String> {
    let json = serde_json::to_value(facts).ok()?;
    let mut v = &json;
    for part in path.split('.') {
        v = v.get(part)?;
    }
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(fact: &str, is: Option<&str>, is_not: Option<&str>) -> RawCondition {
        RawCondition {
            fact: fact.into(),
            is: is.map(String::from),
            is_not: is_not.map(String::from),
        }
    }

    #[test]
    fn the_list_of_facts_is_every_field_of_facts() {
        let every = Facts {
            spin_loop_ns: Some(1.0),
            line_handoff_ns: Some(1.0),
            ..Facts::default()
        };
        let json = serde_json::to_value(every).unwrap();
        let mut fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed = FACTS.to_vec();
        fields.sort();
        listed.sort();
        assert_eq!(fields, listed);
    }

    #[test]
    fn a_condition_names_a_fact_and_one_value() {
        assert!(Condition::parse(&raw("vendor", Some("AuthenticAMD"), None)).is_ok());
        assert!(Condition::parse(&raw("scheduler.sched_vcpu_pack", None, Some("0"))).is_ok());
        let e = Condition::parse(&raw("vendr", Some("x"), None)).unwrap_err();
        assert!(e.contains("no machine fact `vendr`"), "{e}");
        let e = Condition::parse(&raw("vendor", Some("a"), Some("b"))).unwrap_err();
        assert!(e.contains("one of `is` or `is-not`"), "{e}");
        let e = Condition::parse(&raw("vendor", None, None)).unwrap_err();
        assert!(e.contains("one of `is` or `is-not`"), "{e}");
        let e = Condition::parse(&raw("caches", Some("x"), None)).unwrap_err();
        assert!(e.contains("is a list"), "{e}");
        let e = Condition::parse(&raw("scheduler", Some("x"), None)).unwrap_err();
        assert!(e.contains("name one of"), "{e}");
        let e = Condition::parse(&raw("vendor.x", Some("x"), None)).unwrap_err();
        assert!(e.contains("name one of"), "{e}");
        assert!(Condition::parse(&raw("timer.resolution_ns", Some("20"), None)).is_ok());
    }

    #[test]
    fn the_facts_decide_and_a_record_without_them_cannot() {
        let mut rec = crate::record::tests::sample_with(&[], &[]);
        rec.machine.facts = Some(Facts::default());
        let amd = Condition::parse(&raw("vendor", Some("AuthenticAMD"), None)).unwrap();
        let packed = Condition::parse(&raw("scheduler.sched_vcpu_pack", None, Some("0"))).unwrap();
        let facts = rec.machine.facts.as_mut().unwrap();
        facts.vendor = "AuthenticAMD".into();
        facts
            .scheduler
            .insert("sched_vcpu_pack".into(), "15".into());
        assert_eq!(amd.on(&rec), Applies::Yes);
        assert_eq!(packed.on(&rec), Applies::Yes);
        let facts = rec.machine.facts.as_mut().unwrap();
        facts.vendor = "GenuineIntel".into();
        facts.scheduler.clear();
        match amd.on(&rec) {
            Applies::No(why) => assert!(
                why.contains("where the CPU vendor is AuthenticAMD")
                    && why.contains("GenuineIntel"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        // An unset setting is unknown, not the excluded value: the claim does not apply.
        assert!(matches!(packed.on(&rec), Applies::No(why) if why.contains("not set")));
        rec.machine.facts = None;
        assert_eq!(amd.on(&rec), Applies::Unknown);
    }
}
