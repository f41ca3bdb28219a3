//! The headline gate of `book check`: a claim that a chapter states on its first screen (the
//! "What we found" box), in its rule or in the checklist must not be refuted on any of the book's
//! machines. Each is judged on each machine's record of the chapter: its full record, else its
//! record at the Tokio the book pins (the release matrix), as the chapter's verdict summary reads
//! them. A claim that holds on one processor only belongs in the chapter's body, where it can
//! say so, not in a headline a reader takes as true everywhere; or it names the machine fact it
//! holds on (`only-where`), which the `claim` directive prints beside its figure wherever it is
//! stated, and is judged only on the records whose facts meet it.

use measure::claims::{Claims, Verdict};
use measure::record::Record;
use records::judge::{Role, judge};
use std::collections::BTreeSet;
use std::path::Path;

/// Where on a page a headline claim stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Box,
    Rule,
    Checklist,
}

impl Place {
    fn words(self) -> &'static str {
        match self {
            Place::Box => "its \"What we found\" box",
            Place::Rule => "its rule",
            Place::Checklist => "the checklist",
        }
    }
}

/// Every claim of `chapter` a headline states, with where: `(place, id)`.
pub fn headline_claims(page: &str, checklist: &str, chapter: &str) -> BTreeSet<(Place, String)> {
    let mut out = BTreeSet::new();
    for (place, text) in [
        (Place::Box, first_box(page)),
        (Place::Rule, rule_section(page)),
        (Place::Checklist, checklist),
    ] {
        for id in claim_ids(text, chapter) {
            out.insert((place, id));
        }
    }
    out
}

/// The page's "What we found" box: from `<div class="found">` to the next `</div>`.
fn first_box(page: &str) -> &str {
    let Some(start) = page.find("<div class=\"found\">") else {
        return "";
    };
    let rest = &page[start..];
    &rest[..rest.find("</div>").unwrap_or(rest.len())]
}

/// The page's `## The rule` section, to the next heading of the same level.
fn rule_section(page: &str) -> &str {
    let Some(start) = page.find("\n## The rule") else {
        return "";
    };
    let rest = &page[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    &rest[..end]
}

/// The ids of the `claim` directives in `text` that state `chapter`'s claim on the book's own
/// machine (a directive naming another machine quotes that machine, and says so).
fn claim_ids(text: &str, chapter: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{#measure claim ") {
        let after = &rest[at + "{{#measure claim ".len()..];
        let Some(end) = after.find("}}") else { break };
        let keys: Vec<(&str, &str)> = after[..end]
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .collect();
        let get = |k: &str| keys.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        let own_machine = get("machine").is_none_or(|m| m == "reference");
        if get("record") == Some(chapter)
            && own_machine
            && let Some(id) = get("id")
        {
            out.push(id.to_string());
        }
        rest = &after[end..];
    }
    out
}

/// What the gate found.
#[derive(Debug, Default)]
pub struct Gate {
    /// Every headline claim refuted on one of the book's machines, or with no record there to
    /// judge it on: one line each, naming the claim, where the page states it, the machine and
    /// the figure.
    pub failures: Vec<String>,
    /// The machines a chapter declares it has not been measured on yet (`[[unmeasured]]` in its
    /// manifest): its headlines wait for a record there.
    pub pending: Vec<String>,
}

/// The headline gate on every chapter. Each machine's record is the one the chapter's verdict
/// summary reads ([`mdbook_measured::Data::record_at_pin`]).
pub fn failures(root: &Path) -> anyhow::Result<Gate> {
    let mut gate = Gate::default();
    let Ok(manifests) = records::chapter::all(root) else {
        return Ok(gate); // a data folder without chapters: nothing states a headline
    };
    let data = mdbook_measured::Data::new(root, "")
        .with_chapters(manifests.clone())
        .map_err(anyhow::Error::msg)?;
    let checklist =
        std::fs::read_to_string(root.join("src/appendix-checklist.md")).unwrap_or_default();
    for manifest in &manifests {
        let chapter = &manifest.name;
        let Ok(page) = std::fs::read_to_string(root.join("src").join(manifest.page())) else {
            continue; // the build names a manifest's missing page
        };
        let stated = headline_claims(&page, &checklist, chapter);
        if stated.is_empty() {
            continue;
        }
        let claims =
            Claims::load(&root.join("listings").join(chapter)).map_err(anyhow::Error::msg)?;
        for machine in data.book_machines() {
            let record = data.record_at_pin(&machine, chapter);
            match without_record(manifest, &machine, record.is_some()) {
                Some(Ok(pending)) => gate.pending.push(pending),
                Some(Err(failure)) => gate.failures.push(failure),
                None => {}
            }
            if let Some((rec, _)) = record {
                gate.failures
                    .extend(refuted(&stated, &claims, &rec, chapter));
            }
        }
    }
    Ok(gate)
}

/// What a machine's missing (or present) record means for a chapter's headlines there: pending
/// where the manifest declares the machine unmeasured, a failure where it does not, and a
/// failure too where it declares unmeasured a machine that has a record (one place for each
/// fact). `None`: a record to judge, as expected.
fn without_record(
    manifest: &records::chapter::Manifest,
    machine: &str,
    has_record: bool,
) -> Option<Result<String, String>> {
    let chapter = &manifest.name;
    let declared = manifest.unmeasured.iter().find(|u| u.machine == machine);
    match (has_record, declared) {
        (true, None) => None,
        (true, Some(_)) => Some(Err(format!(
            "{chapter}: chapter.toml says it is not measured on {machine} yet, and data/ has its record there: remove the [[unmeasured]] entry"
        ))),
        (false, Some(u)) => Some(Ok(format!(
            "{chapter}: not measured on {machine} yet ({}); its headlines are judged there once a record exists",
            u.why
        ))),
        (false, None) => Some(Err(format!(
            "{chapter}: no record on {machine}, full or at the pinned Tokio, to judge its headlines on (measure it there, or declare it under [[unmeasured]] in its chapter.toml with the reason)"
        ))),
    }
}

/// The headline claims of `stated` that `rec` refutes, one line each.
fn refuted(
    stated: &BTreeSet<(Place, String)>,
    claims: &Claims,
    rec: &Record,
    chapter: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    for (place, id) in stated {
        let Some(claim) = claims.claims.iter().find(|c| &c.id == id) else {
            continue; // the build names a directive with an unknown id
        };
        let outcome = judge(claim, rec, Role::Other).outcome;
        if outcome.verdict == Verdict::Refuted {
            out.push(format!(
                "{chapter}: {} states `{id}`, refuted on {} ({}; claim: {}): take it out of the headline, or restate it so that it holds on both processors",
                place.words(),
                rec.machine.name,
                outcome.figure_with_interval(),
                outcome.bound
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# T\n\n<div class=\"found\">\n\n**What we found.** {{#measure claim record=ch09-x id=in-box}} and elsewhere {{#measure claim record=ch09-x id=quoted machine=other-2c}}.\n\n</div>\n\n## Body\n\n{{#measure claim record=ch09-x id=in-body}}\n\n## The rule\n\n> {{#measure claim record=ch09-x id=in-rule show=short}}\n\n## Next\n\n{{#measure claim record=ch09-x id=after-rule}}\n";

    #[test]
    fn the_box_the_rule_and_the_checklist_are_headlines_and_the_body_is_not() {
        let checklist = "- {{#measure claim record=ch09-x id=in-list show=mark}} {{#measure claim record=ch08-y id=other-chapter}}";
        let got: Vec<(Place, String)> = headline_claims(PAGE, checklist, "ch09-x")
            .into_iter()
            .collect();
        assert_eq!(
            got,
            vec![
                (Place::Box, "in-box".to_string()),
                (Place::Rule, "in-rule".to_string()),
                (Place::Checklist, "in-list".to_string()),
            ]
        );
    }

    #[test]
    fn a_headline_refuted_on_a_machine_fails_and_one_not_shown_does_not() {
        let claims = Claims::parse(
            "format = 2\n[[claim]]\nid = \"fast\"\nsays = \"a is at least 2× b\"\nratio = [\"e/c/a/m\", \"e/c/b/m\"]\nat-least = 2\n",
        )
        .unwrap();
        let stated: BTreeSet<(Place, String)> = [(Place::Box, "fast".to_string())].into();
        let rec = |a: &'static [f64]| {
            Record::sketch(
                "ch09-x",
                "other-2c",
                &[],
                &[
                    ("e", "c", "a", "m", "1/s", a),
                    ("e", "c", "b", "m", "1/s", &[1.0; 5]),
                ],
            )
        };
        let reversed = refuted(&stated, &claims, &rec(&[0.5, 0.6, 0.5, 0.7, 0.6]), "ch09-x");
        assert_eq!(reversed.len(), 1, "{reversed:?}");
        assert!(
            reversed[0].contains("`fast`, refuted on other-2c"),
            "{}",
            reversed[0]
        );
        assert!(refuted(&stated, &claims, &rec(&[3.0, 2.5, 4.0, 3.5, 3.0]), "ch09-x").is_empty());
        // Straddling the bound is not shown: the gate leaves it to more repetitions.
        assert!(refuted(&stated, &claims, &rec(&[1.5, 2.5, 1.8, 2.2, 2.1]), "ch09-x").is_empty());
    }

    #[test]
    fn a_conditional_headline_is_judged_only_where_its_fact_holds() {
        let claims = Claims::parse(
            "format = 2\n[[claim]]\nid = \"fast\"\nsays = \"on AMD, a is at least 2× b\"\ndepends-on = \"the processor\"\nonly-where = { fact = \"vendor\", is = \"AuthenticAMD\" }\nratio = [\"e/c/a/m\", \"e/c/b/m\"]\nat-least = 2\n",
        )
        .unwrap();
        let stated: BTreeSet<(Place, String)> = [(Place::Box, "fast".to_string())].into();
        let reversed_on = |vendor: Option<&str>| {
            let mut rec = Record::sketch(
                "ch09-x",
                "other-2c",
                &[],
                &[
                    ("e", "c", "a", "m", "1/s", &[0.5, 0.6, 0.5, 0.7, 0.6]),
                    ("e", "c", "b", "m", "1/s", &[1.0; 5]),
                ],
            );
            rec.machine.facts = vendor.map(|v| measure::record::Facts {
                vendor: v.into(),
                ..Default::default()
            });
            refuted(&stated, &claims, &rec, "ch09-x")
        };
        // Reversed where it does not claim to hold: no failure.
        assert!(reversed_on(Some("GenuineIntel")).is_empty());
        // Reversed where it does, or where the record cannot say: a failure.
        assert_eq!(reversed_on(Some("AuthenticAMD")).len(), 1);
        assert_eq!(reversed_on(None).len(), 1);
    }

    #[test]
    fn a_machine_without_a_record_is_pending_only_where_the_manifest_says_so() {
        let mut manifest: records::chapter::Manifest = toml::from_str(
            "title = \"T\"\npages = [\"ch09-x.md\"]\nmachine = \"one-2c\"\ncrates = []\n[[unmeasured]]\nmachine = \"other-2c\"\nwhy = \"a later session\"\n",
        )
        .unwrap();
        manifest.name = "ch09-x".into();
        assert!(without_record(&manifest, "one-2c", true).is_none());
        let pending = without_record(&manifest, "other-2c", false)
            .unwrap()
            .unwrap();
        assert!(
            pending.contains("not measured on other-2c yet (a later session)"),
            "{pending}"
        );
        let stale = without_record(&manifest, "other-2c", true)
            .unwrap()
            .unwrap_err();
        assert!(stale.contains("remove the [[unmeasured]] entry"), "{stale}");
        let missing = without_record(&manifest, "one-2c", false)
            .unwrap()
            .unwrap_err();
        assert!(missing.contains("no record on one-2c"), "{missing}");
    }

    #[test]
    fn a_page_without_a_box_or_rule_states_nothing() {
        assert!(headline_claims("# T\n\ntext", "", "ch09-x").is_empty());
    }
}
