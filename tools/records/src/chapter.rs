//! Each chapter's manifest, `listings/<chapter>/chapter.toml`: the one place that says what the
//! book's lists say of a chapter. Every list of "all chapters" (the title page, the Machines page,
//! the releases page, the workshop, the course's exercises, the quick runs in CI, the outside
//! programs to install) is derived from [`all`]; the lists that cannot be derived (`SUMMARY.md`,
//! `tools/book-deps`, the workspace's dependencies, the README's table, the release lock files)
//! are checked against it by `cargo run -p book -- build`.
//!
//! ```toml
//! title = "File I/O"                          # as the record and SUMMARY.md give it
//! pages = ["ch04-fs.md", "ch04-fs-exercises.md"]
//! machine = "amd-epyc-2c"                     # its figures' machine; beside the busy
//!                                             # neighbour, "<machine>-busy"
//! crates = ["tokio", "futures-util", "io-uring"]  # whose versions its records keep
//!
//! [[needs]]                                   # a program outside Rust it runs
//! program = "strace"
//! debian = "strace"                           # the package that has it, or
//!                                             # install = "a command" where Debian has none
//! without = "Chapter 4's system-call output is skipped"
//! # optional = true                           # the chapter runs without it: scripts/test.sh
//!                                             # does not run its `install` command
//!
//! [[quick-skips]]                             # an experiment `--quick` leaves out
//! experiment = "profile"
//! why = "builds the service twice more with LTO: minutes"
//!
//! [metric-names]                              # how tables, legends and axes name its metrics
//! us_per_file = "per file"
//!
//! [[exercise]]                                # its "fix it" exercise: name, title, edit,
//!                                             # test, solution, hints, and where needed dir,
//!                                             # start-anchor, rustlings-test (course::Exercise)
//! [predict]                                   # its predict-then-measure question:
//!                                             # experiment, question (course::Predict)
//! ```
//!
//! The manifest shapes no measured value: it is not among a record's inputs
//! ([`crate::freshness`]), so a display name or an exercise's hint changes nothing measured.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name in a listing's folder.
pub const FILE: &str = "chapter.toml";

/// One chapter's manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Manifest {
    /// The listing's name, `ch04-fs` (its folder's: not written in the file).
    #[serde(skip)]
    pub name: String,
    pub title: String,
    /// Its pages under `src/`, the chapter's first, its part two (notes and exercises) last.
    pub pages: Vec<String>,
    /// The machine its figures come from.
    pub machine: String,
    /// The crates whose versions its records keep, and the title page lists.
    pub crates: Vec<String>,
    #[serde(default)]
    pub needs: Vec<Need>,
    #[serde(default)]
    pub quick_skips: Vec<QuickSkip>,
    #[serde(default)]
    pub metric_names: BTreeMap<String, String>,
    /// Its exercises, as `tools/course` reads them (`course::Exercise`).
    #[serde(default)]
    pub exercise: Vec<toml::Table>,
    /// Its predict-then-measure question, as `tools/course` reads it (`course::Predict`).
    #[serde(default)]
    pub predict: Option<toml::Table>,
    /// The book's machines it has no record on yet, each with the reason: the headline gate
    /// lists them as pending instead of failing, and judges the headlines there once a record
    /// exists (`tools/book/src/headline.rs`). The verdict summary in the chapter's box says
    /// "not measured yet" for each.
    #[serde(default)]
    pub unmeasured: Vec<Unmeasured>,
}

/// A book machine a chapter has not been measured on yet.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Unmeasured {
    pub machine: String,
    /// Why not yet: "measured in a session on the AMD EPYC guest; the Intel Xeon's is to come".
    pub why: String,
}

/// A program outside Rust that a chapter runs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Need {
    /// The command, looked up on the PATH and in `also-in`.
    pub program: String,
    /// Folders it may be in off the PATH (`/usr/lib/postgresql/*/bin`), as shell globs.
    #[serde(default)]
    pub also_in: Vec<String>,
    /// Debian's package that has it, if Debian has one.
    #[serde(default)]
    pub debian: Option<String>,
    /// How to install it otherwise: a command.
    #[serde(default)]
    pub install: Option<String>,
    /// The chapter runs without it (less is shown): `scripts/test.sh` leaves it uninstalled
    /// rather than run its `install` command.
    #[serde(default)]
    pub optional: bool,
    /// What happens without it.
    pub without: String,
}

/// An experiment that `--quick` leaves out, and why.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuickSkip {
    pub experiment: String,
    pub why: String,
}

impl Manifest {
    /// The chapter's number, from its name: 4 for `ch04-fs`.
    pub fn number(&self) -> Option<u32> {
        self.name.strip_prefix("ch")?.get(..2)?.parse().ok()
    }

    /// The machine its busy-neighbour record comes from.
    pub fn busy_machine(&self) -> String {
        busy_machine_of(&self.machine)
    }

    /// Its first page, the chapter's own.
    pub fn page(&self) -> &str {
        self.pages.first().map_or("", String::as_str)
    }

    /// The pages a reader reads through: all but its part two.
    pub fn main_pages(&self) -> &[String] {
        match self.pages.len() {
            0 | 1 => &self.pages,
            n => &self.pages[..n - 1],
        }
    }
}

/// The book's machines: each chapter's machine, once each, in chapter order. Their records (and
/// their busy twins') are kept fresh against the working tree; any other machine's are snapshots
/// (see [`crate::freshness::is_snapshot`]).
pub fn book_machines(manifests: &[Manifest]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in manifests {
        if !out.contains(&m.machine) {
            out.push(m.machine.clone());
        }
    }
    out
}

/// The name of `machine` beside a busy neighbour: `amd-epyc-2c-busy`.
pub fn busy_machine_of(machine: &str) -> String {
    format!("{machine}-busy")
}

/// Reads and checks one listing's manifest, its pages included.
pub fn load(root: &Path, name: &str) -> Result<Manifest, String> {
    let path = manifest_path(root, name);
    let m = read(&path, name).map_err(|e| format!("{}: {e}", shown(root, &path)))?;
    for page in &m.pages {
        if !root.join("src").join(page).is_file() {
            return Err(format!(
                "{}: the page src/{page} does not exist",
                shown(root, &path)
            ));
        }
    }
    Ok(m)
}

/// Reads the manifest at `path` of the listing `name`, checking what it says of itself (a
/// listing's harness reads it where the book's pages may not be, in a release's workspace).
pub fn read(path: &Path, name: &str) -> Result<Manifest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{e} (every listing has a manifest, {FILE}: see src/contributing.md, \"Add a chapter\")"
        )
    })?;
    let mut m: Manifest = toml::from_str(&text).map_err(|e| e.to_string())?;
    m.name = name.to_string();
    if m.number().is_none() {
        return Err(format!(
            "the listing `{name}` is not named chNN-name, so it has no chapter number"
        ));
    }
    if m.pages.is_empty() {
        return Err("`pages` names no page".into());
    }
    if m.machine.is_empty() || m.crates.is_empty() {
        return Err("`machine` and `crates` must not be empty".into());
    }
    if let Some(n) = m
        .needs
        .iter()
        .find(|n| n.debian.is_none() && n.install.is_none())
    {
        return Err(format!(
            "[[needs]] `{}` says neither its Debian package (`debian`) nor how to install it (`install`)",
            n.program
        ));
    }
    Ok(m)
}

/// Every chapter's manifest, in chapter order: one for every folder under `listings/` that has
/// one, and a listing (a folder with a `Cargo.toml`) without one is an error; none in a book
/// without `listings/`.
pub fn all(root: &Path) -> Result<Vec<Manifest>, String> {
    let dir = root.join("listings");
    if !dir.exists() {
        return Ok(Vec::new()); // a book of prose only
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .flatten()
        .filter(|e| e.path().join(FILE).is_file() || e.path().join("Cargo.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        out.push(load(root, &name)?);
    }
    if let Some(w) = out.windows(2).find(|w| w[0].number() == w[1].number()) {
        return Err(format!(
            "{} and {} have the same chapter number",
            w[0].name, w[1].name
        ));
    }
    Ok(out)
}

/// Every chapter's metric display names, merged; two chapters that name one metric two ways are
/// an error (a metric is one concept, with one name).
pub fn metric_names(manifests: &[Manifest]) -> Result<BTreeMap<String, String>, String> {
    let mut names: BTreeMap<String, (String, &str)> = BTreeMap::new();
    for m in manifests {
        for (metric, name) in &m.metric_names {
            match names.get(metric) {
                Some((other, by)) if other != name => {
                    return Err(format!(
                        "the metric `{metric}` is \"{other}\" in {by}'s {FILE} and \"{name}\" in {}'s: one metric, one name",
                        m.name
                    ));
                }
                _ => {
                    names.insert(metric.clone(), (name.clone(), &m.name));
                }
            }
        }
    }
    Ok(names.into_iter().map(|(k, (v, _))| (k, v)).collect())
}

/// `listings/<name>/chapter.toml`.
pub fn manifest_path(root: &Path, name: &str) -> PathBuf {
    root.join("listings").join(name).join(FILE)
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(manifests: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("src/ch01-a.md", "# A");
        for (name, text) in manifests {
            write(&format!("listings/{name}/Cargo.toml"), "[package]");
            if !text.is_empty() {
                write(&format!("listings/{name}/{FILE}"), text);
            }
        }
        dir
    }

    const GOOD: &str = "title = \"A\"\npages = [\"ch01-a.md\"]\nmachine = \"m\"\ncrates = [\"tokio\"]\n\n[metric-names]\np999 = \"p99.9\"\n";

    #[test]
    fn a_manifest_reads_with_its_defaults() {
        let dir = book(&[("ch01-a", GOOD)]);
        let all = all(dir.path()).unwrap();
        assert_eq!(all.len(), 1);
        let m = &all[0];
        assert_eq!((m.name.as_str(), m.number()), ("ch01-a", Some(1)));
        assert_eq!(m.busy_machine(), "m-busy");
        assert_eq!(m.page(), "ch01-a.md");
        assert!(m.needs.is_empty() && m.quick_skips.is_empty() && m.exercise.is_empty());
    }

    #[test]
    fn a_bad_manifest_is_named_with_what_is_wrong() {
        let missing = book(&[("ch01-a", "")]);
        let e = all(missing.path()).unwrap_err();
        assert!(
            e.contains("listings/ch01-a/chapter.toml") && e.contains("Add a chapter"),
            "{e}"
        );
        let typo = book(&[("ch01-a", &GOOD.replace("machine", "machin"))]);
        let e = all(typo.path()).unwrap_err();
        assert!(e.contains("machin") && e.contains("machine"), "{e}");
        let no_page = book(&[("ch01-a", &GOOD.replace("ch01-a.md", "ch01-b.md"))]);
        assert!(all(no_page.path()).unwrap_err().contains("src/ch01-b.md"));
        let unnumbered = book(&[("intro", GOOD)]);
        assert!(all(unnumbered.path()).unwrap_err().contains("chNN-name"));
        let twice = book(&[("ch01-a", GOOD), ("ch01-b", GOOD)]);
        assert!(
            all(twice.path())
                .unwrap_err()
                .contains("same chapter number")
        );
    }

    #[test]
    fn one_metric_has_one_name_across_chapters() {
        let dir = book(&[("ch01-a", GOOD), ("ch02-b", GOOD)]);
        let both = all(dir.path()).unwrap();
        assert_eq!(metric_names(&both).unwrap()["p999"], "p99.9");
        let other = book(&[
            ("ch01-a", GOOD),
            ("ch02-b", &GOOD.replace("\"p99.9\"", "\"three nines\"")),
        ]);
        let e = metric_names(&all(other.path()).unwrap()).unwrap_err();
        assert!(
            e.contains("p999") && e.contains("ch01-a") && e.contains("ch02-b"),
            "{e}"
        );
    }
}
