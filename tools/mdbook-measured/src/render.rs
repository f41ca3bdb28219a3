//! Rendering each kind of directive: one module per family of kinds, each with its tests.

use crate::data::Data;
use crate::{Directive, args};
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

/// The list of kinds: for each, its variant of [`Kind`] with the struct of its arguments, the
/// function that renders it, its name and an example.
macro_rules! kinds {
    ($($variant:ident($args:ty) => $render:path, $name:literal, $example:literal;)+) => {
        /// A directive, typed: its kind, with its arguments.
        pub enum Kind {
            $($variant($args)),+
        }

        impl Kind {
            /// Every kind's name and example, in the order of the runbook's table.
            pub const ALL: &'static [(&'static str, &'static str)] = &[$(($name, $example)),+];

            /// The directive's kind and arguments; an unknown kind, key or value fails with
            /// what is allowed.
            pub fn parse(d: &Directive) -> Result<Kind, String> {
                match d.kind.as_str() {
                    $($name => args::from($name, $example, &d.args).map(Kind::$variant),)+
                    other => Err(format!("unknown kind `{other}` ({})", Kind::names())),
                }
            }

            fn render(&self, data: &Data) -> Result<String, String> {
                match self {
                    $(Kind::$variant(args) => $render(data, args),)+
                }
            }
        }
    };
}

kinds! {
    Table(table::Table) => table::table, "table",
        "{{#measure table record=ch01-blocking metric=p99}}";
    Chart(chart::Chart) => chart::chart, "chart",
        "{{#measure chart record=ch01-blocking metric=p99 caption=\"...\"}}";
    Value(scalar::Value) => scalar::value, "value",
        "{{#measure value record=ch01-blocking case=1 variant=inline metric=p99}}";
    Ratio(scalar::Ratio) => scalar::ratio, "ratio",
        "{{#measure ratio record=ch01-blocking metric=p99 case=1 variant=inline over.variant=spawn_blocking}}";
    Difference(scalar::Difference) => scalar::difference, "difference",
        "{{#measure difference record=ch09-connections experiment=keep_alive case=https variant=new_connection metric=upstream_cpu_per_call minus.variant=keep_alive}}";
    Param(scalar::Param) => scalar::param, "param",
        "{{#measure param record=ch01-blocking name=workers}}";
    Derived(scalar::Derived) => scalar::derived, "derived",
        "{{#measure derived record=ch03-spawns name=system_allocator}}";
    Machine(provenance::Machine) => provenance::machine, "machine",
        "{{#measure machine record=ch01-blocking field=cores}}";
    Topology(provenance::Topology) => provenance::topology, "topology",
        "{{#measure topology machines=amd-epyc-2c,intel-xeon-2c}}";
    Claim(claims::Claim) => claims::claim, "claim",
        "{{#measure claim record=ch01-blocking id=inline-stalls-at-workers}}";
    Claims(claims::Claims) => claims::claims_list, "claims",
        "{{#measure claims record=ch01-blocking}}";
    Verdicts(claims::Verdicts) => claims::verdicts, "verdicts",
        "{{#measure verdicts record=ch01-blocking machine=amd-epyc-2c-busy}}";
    VerdictSummary(claims::VerdictSummary) => claims::verdict_summary, "verdict-summary",
        "{{#measure verdict-summary record=ch01-blocking}}";
    Busy(claims::Busy) => claims::busy, "busy",
        "{{#measure busy record=ch01-blocking machine=amd-epyc-2c-busy ids=a,b}}";
    Coverage(claims::Coverage) => claims::coverage, "coverage",
        "{{#measure coverage reps=5}}";
    History(errata::History) => errata::history, "history",
        "{{#measure history show=failures}}";
    Machines(provenance::Machines) => provenance::machines, "machines",
        "{{#measure machines records=ch01-blocking,ch02-mutexes}}";
    Ref(table::Ref) => table::reference, "ref",
        "{{#measure ref id=p99-by-burst}}";
    Provenance(provenance::Provenance) => provenance::provenance_line, "provenance",
        "{{#measure provenance record=ch01-blocking}}";
    Versions(provenance::Versions) => provenance::versions, "versions",
        "{{#measure versions}}";
    Edition(provenance::Edition) => provenance::edition, "edition",
        "{{#measure edition}}";
    Version(scalar::Version) => scalar::version, "version",
        "{{#measure version record=R crate=tokio}}";
    Runtime(workshop::Runtime) => workshop::runtime, "runtime",
        "{{#measure runtime record=ch01-blocking experiment=blocking reps=1}}";
    Minutes(workshop::Minutes) => workshop::minutes, "minutes",
        "{{#measure minutes record=ch01-blocking reading=15 demo=10 exercises=20}}";
    Schedule(workshop::Schedule) => workshop::schedule, "schedule",
        "{{#measure schedule length=210 chapters=ch01-blocking,ch02-mutexes breaks=15}}";
    Hints(workshop::Hints) => workshop::hints, "hints",
        "{{#measure hints exercise=bounded-reads}}";
    ReleaseList(releases::ReleaseList) => releases::release_list, "release-list",
        "{{#measure release-list}}";
    Releases(releases::Releases) => releases::releases_table, "releases",
        "{{#measure releases record=ch01-blocking}}";
    ReleasesChart(releases::ReleasesChart) => releases::releases_chart, "releases-chart",
        "{{#measure releases-chart record=ch01-blocking claim=ID}}";
    Since(releases::Since) => releases::since, "since",
        "{{#measure since record=ch01-blocking claim=ID}}";
    Class(class::Class) => class::class, "class",
        "{{#measure class records=ch01-blocking,ch02-mutexes}}";
}

impl Kind {
    /// Every kind's name: "table, chart, value, ...".
    pub fn names() -> String {
        let names: Vec<&str> = Kind::ALL.iter().map(|(name, _)| *name).collect();
        names.join(", ")
    }
}

/// Renders a directive: its kind, with its arguments checked, then its data.
pub fn render(data: &Data, d: &Directive) -> Result<String, String> {
    Kind::parse(d)?.render(data)
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

/// A directive's text, typed (for the modules' tests).
#[cfg(test)]
fn typed(text: &str) -> Result<Kind, String> {
    Kind::parse(&Directive::parse(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The error for `text`, as the build reports it.
    fn error(text: &str) -> String {
        let data = Data::new(Path::new("/nonexistent"), "m");
        crate::expand(&data, text).unwrap_err()
    }

    /// The keys of an example: `record` of `record=ch01-blocking`.
    fn keys(example: &str) -> Vec<String> {
        let d = Directive::parse(example).unwrap();
        d.args.keys().cloned().collect()
    }

    #[test]
    fn every_example_is_a_directive_of_its_kind() {
        for (name, example) in Kind::ALL {
            let d = Directive::parse(example).unwrap();
            assert_eq!(d.kind, *name);
            if let Err(e) = Kind::parse(&d) {
                panic!("{example}: {e}");
            }
        }
    }

    #[test]
    fn an_unknown_kind_names_every_kind() {
        let e = error("{{#measure histogram record=ch01-blocking}}");
        assert!(
            e.ends_with(&format!("unknown kind `histogram` ({})", Kind::names())),
            "{e}"
        );
        let named = Kind::names();
        assert_eq!(named.split(", ").count(), Kind::ALL.len(), "{named}");
        assert!(named.starts_with("table, chart, value, ratio, difference, param, derived"));
        let e = Directive::parse("{{#measure }}").unwrap_err();
        assert_eq!(e, format!("missing the kind ({})", Kind::names()));
    }

    #[test]
    fn a_misspelled_key_fails_the_build_naming_the_allowed_keys_for_every_kind() {
        for (name, example) in Kind::ALL {
            let allowed = |e: &str| {
                let at = e
                    .find(&format!("for `{name}` (allowed: "))
                    .unwrap_or_else(|| panic!("{example}: {e}"));
                e[at..].to_string()
            };
            // A key no kind has.
            let text = example.replace("}}", " colour=red}}");
            let e = error(&text);
            assert!(
                e.starts_with(&format!("directive `{text}`: unknown argument `colour`")),
                "{e}"
            );
            let listed = allowed(&e);
            for key in keys(example) {
                let key = match key.split_once('.') {
                    Some((group, _)) => format!("{group}.*"),
                    None => key,
                };
                assert!(listed.contains(&key), "{name}: `{key}` not named in {e}");
            }
            // Each key of the example, misspelled.
            for key in keys(example) {
                let typo = format!("{key}x");
                let text = example.replace(&format!(" {key}="), &format!(" {typo}="));
                let e = error(&text);
                assert!(e.contains(&format!("unknown argument `{typo}`")), "{e}");
                assert!(allowed(&e).contains(key.split('.').next().unwrap()), "{e}");
            }
        }
    }

    #[test]
    fn the_runbooks_table_of_directives_is_the_list_of_kinds() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/contributing.md");
        let runbook = std::fs::read_to_string(&path).unwrap();
        let section = runbook
            .split("\n## Directives\n")
            .nth(1)
            .expect("src/contributing.md has a section \"## Directives\"");
        let section = section.split("\n## ").next().unwrap_or(section);
        let rows: Vec<(String, String)> = section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<&str> = l.split(" | ").collect();
                let cell = |i: usize| cells[i].trim_matches(|c| c == '|' || c == ' ' || c == '`');
                (cell(0).to_string(), cell(1).replace("\\{{", "{{"))
            })
            .collect();
        let in_table: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
        let kinds: Vec<&str> = Kind::ALL.iter().map(|(k, _)| *k).collect();
        let missing: Vec<&&str> = kinds.iter().filter(|k| !in_table.contains(k)).collect();
        let unknown: Vec<&&str> = in_table.iter().filter(|k| !kinds.contains(k)).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "src/contributing.md's table of directives lacks {missing:?} and names {unknown:?}, which are no kinds (render::Kind)"
        );
        assert_eq!(
            in_table, kinds,
            "the table's rows are in the order of render::Kind"
        );
        for ((name, shown), (_, example)) in rows.iter().zip(Kind::ALL) {
            assert_eq!(
                shown, example,
                "`{name}`: the table's example is render::Kind's"
            );
        }
    }
}
