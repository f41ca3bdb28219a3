//! `book rehash`: re-derives the hashes of the records of the book's machines after the measuring
//! code moved without changing, and refuses unless it can prove that it did not change.
//!
//! On 2026-12-04 the code that runs while a cell is measured moved out of `tools/measure` into a
//! crate of its own, `tools/measure-core`, so that freshness follows what can change a measured
//! value (`records::freshness`). The move changes no measuring code, but it changes the name and
//! hash of that input in every record. [`prove_core_moved_unchanged`] proves the move: every file
//! of the core is its file in `tools/measure` at [`BEFORE_MOVE`], byte for byte, but for lines
//! removed from the runner (the `--filter` selection, which picks cells before any runs, now in
//! the harness, and its test); the core's `runtime` is the old one, byte for byte; and the core's
//! dependencies are the old crate's, with the same versions and features. [`rehash`] then
//! rewrites that input in every record measured with the code before the move, and nothing else
//! in it: the book's records, which must be fresh in every other input, and the Tokio release
//! matrix's, whose sets are judged release against release
//! (`records::releases::set_problems`) and move alike.

use anyhow::{Context, Result, bail};
use measure::freshness;
use measure::record::Record;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The last commit with the measuring code in `tools/measure`.
pub const BEFORE_MOVE: &str = "fcadc0022a5823e72df6e7a2911229267834932b";
/// The input's name before the move and after it.
const OLD_INPUT: &str = "tools/measure";
const NEW_INPUT: &str = "tools/measure-core";

/// The files that moved whole, by their name under `src/`.
const MOVED_WHOLE: [&str; 6] = [
    "affinity.rs",
    "checksum.rs",
    "child.rs",
    "loadgen.rs",
    "noise.rs",
    "stats.rs",
];

/// The beginning of each item removed from `runner.rs` when it moved: the `--filter` selection
/// (it takes the command line, which stays in the harness) and its test.
const REMOVED_FROM_RUNNER: [&str; 2] = [
    "    /// Keeps only the cells that `--filter` selects",
    "    #[test]\n    fn filter_keeps_the_selected_cells_and_an_empty_runner_runs_nothing()",
];

/// The beginning of the one item of the old `lib.rs` that moved into the core's: `runtime`.
const RUNTIME: &str = "/// A fresh multi-thread Tokio runtime";

/// Proves that the measuring core is the code of `tools/measure` at [`BEFORE_MOVE`], unchanged:
/// `old(path)` reads a file at that commit, `new(path)` in the tree as it is.
pub fn prove_core_moved_unchanged(
    old: impl Fn(&str) -> Result<String>,
    new: impl Fn(&str) -> Result<String>,
) -> Result<()> {
    let mut problems = Vec::new();
    for file in MOVED_WHOLE {
        if old(&format!("{OLD_INPUT}/src/{file}"))? != new(&format!("{NEW_INPUT}/src/{file}"))? {
            problems.push(format!(
                "{NEW_INPUT}/src/{file} is not {OLD_INPUT}/src/{file}"
            ));
        }
    }
    let runner = (
        old(&format!("{OLD_INPUT}/src/runner.rs"))?,
        new(&format!("{NEW_INPUT}/src/runner.rs"))?,
    );
    match without_items(&runner.0, &REMOVED_FROM_RUNNER) {
        Ok(old) if old == runner.1 => {}
        Ok(_) => problems.push(format!(
            "{NEW_INPUT}/src/runner.rs is not {OLD_INPUT}/src/runner.rs without its `--filter` selection"
        )),
        Err(e) => problems.push(format!("{OLD_INPUT}/src/runner.rs: {e}")),
    }
    let lib = new(&format!("{NEW_INPUT}/src/lib.rs"))?;
    let old_runtime = item(&old(&format!("{OLD_INPUT}/src/lib.rs"))?, RUNTIME).map(str::to_string);
    match &old_runtime {
        Some(r) if item(&lib, RUNTIME) == Some(r.as_str()) => {
            if let Some(line) = not_declarations(&lib.replacen(r.as_str(), "", 1)) {
                problems.push(format!(
                    "{NEW_INPUT}/src/lib.rs holds more than its modules, re-exports and `runtime`: `{line}`"
                ));
            }
        }
        _ => problems.push(format!(
            "`runtime` in {NEW_INPUT}/src/lib.rs is not the old one"
        )),
    }
    if let Err(e) = same_dependencies(
        &old(&format!("{OLD_INPUT}/Cargo.toml"))?,
        &new(&format!("{NEW_INPUT}/Cargo.toml"))?,
    ) {
        problems.push(format!("{NEW_INPUT}/Cargo.toml: {e}"));
    }
    let files = new_files(&new, "src/")?;
    for f in files.iter().filter(|f| !is_accounted_for(f)) {
        problems.push(format!(
            "{NEW_INPUT}/src/{f} is not in the proof: a file added to the core is new measuring code"
        ));
    }
    for f in new_files(&new, "")?
        .iter()
        .filter(|f| !["Cargo.toml", "src"].contains(&f.as_str()))
    {
        problems.push(format!(
            "{NEW_INPUT}/{f} is not in the proof: the core holds its manifest and sources only"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        bail!(
            "the measuring core is not the code of {OLD_INPUT} at {BEFORE_MOVE}:\n  {}",
            problems.join("\n  ")
        )
    }
}

fn is_accounted_for(file: &str) -> bool {
    MOVED_WHOLE.contains(&file) || file == "runner.rs" || file == "lib.rs"
}

/// The first line of `lib` that is not a module declaration, a re-export, a `cfg` attribute, a
/// comment or blank: where the core's `lib.rs` would hold code of its own.
fn not_declarations(lib: &str) -> Option<String> {
    let mut lines = lib.lines().map(str::trim);
    let mut in_use = false;
    lines.find_map(|l| {
        let declaration = in_use
            || l.is_empty()
            || l.starts_with("//")
            || l.starts_with("pub mod ") && l.ends_with(';') && !l.contains('{')
            || l.starts_with("pub use ")
            || l == "#[cfg(feature = \"runtime\")]";
        // A re-export may run over several lines, to its `;`.
        in_use = (in_use || l.starts_with("pub use ")) && !l.ends_with(';');
        (!declaration).then(|| l.to_string())
    })
}

/// The names in a folder of the core, as `new` lists them (`new("tools/measure-core/src/")` gives
/// one per line).
fn new_files(new: &impl Fn(&str) -> Result<String>, folder: &str) -> Result<Vec<String>> {
    Ok(new(&format!("{NEW_INPUT}/{folder}"))?
        .lines()
        .map(str::to_string)
        .collect())
}

/// `old` without the items that begin with each of `items`: each up to the closing brace at its
/// first line's indentation, with the blank line after it.
fn without_items(old: &str, items: &[&str]) -> Result<String, String> {
    let mut text = old.to_string();
    for start in items {
        let from = text
            .find(start)
            .ok_or_else(|| format!("no item begins with `{}`", first_line(start)))?;
        let indent = &start[..start.len() - start.trim_start().len()];
        let close = format!("\n{indent}}}\n\n");
        let len = text[from..]
            .find(&close)
            .ok_or_else(|| format!("the item `{}` does not close", first_line(start)))?;
        text.replace_range(from..from + len + close.len(), "");
    }
    Ok(text)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s).trim()
}

/// The item of `text` that starts at the line beginning with `start`, up to its closing `}` at
/// column 0.
fn item<'a>(text: &'a str, start: &str) -> Option<&'a str> {
    let from = text.find(start)?;
    let len = text[from..].find("\n}\n")? + 2;
    Some(&text[from..from + len])
}

/// The core's manifest is the old crate's but for its name and description, and for the
/// dependencies it no longer needs: every dependency and feature of `new` is in `old`, written the
/// same way, and it has no table, key or package setting `old` lacks (an edition, lints, a build
/// script, target-specific dependencies).
fn same_dependencies(old: &str, new: &str) -> Result<(), String> {
    let parse = |t: &str| t.parse::<toml::Table>().map_err(|e| e.to_string());
    let (old, new) = (parse(old)?, parse(new)?);
    for (table, value) in &new {
        let Some(ours) = old.get(table) else {
            return Err(format!("[{table}] is new"));
        };
        let (Some(theirs), Some(ours)) = (value.as_table(), ours.as_table()) else {
            return Err(format!("`{table}` is not the old crate's"));
        };
        for (key, spec) in theirs {
            let renamed = table == "package" && (key == "name" || key == "description");
            if !renamed && ours.get(key) != Some(spec) {
                return Err(format!("[{table}] {key} = {spec} is not the old crate's"));
            }
        }
    }
    Ok(())
}

/// `git show COMMIT:PATH` in `root`.
fn at_commit(root: &Path, commit: &str, path: &str) -> Result<String> {
    crate::git(root, &["show", &format!("{commit}:{path}")])
        .context("a shallow clone lacks the commit: fetch the history")
}

/// A file of the working tree, or the names of a folder's files, one per line.
fn in_tree(root: &Path, path: &str) -> Result<String> {
    let p = root.join(path);
    if p.is_dir() {
        let mut names: Vec<String> = std::fs::read_dir(&p)?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        return Ok(names.join("\n"));
    }
    std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))
}

/// The proof on this repository: the core as the commit that made it has it (the tree as it is,
/// before that commit exists), against [`BEFORE_MOVE`]. Later changes to the core are measuring
/// code changed on purpose, which stales the records they shape; they are not the move's.
pub fn prove(root: &Path) -> Result<()> {
    prove_core_moved_unchanged(|p| at_commit(root, BEFORE_MOVE, p), moved(root)?)
}

/// Reads a path as the commit that made the core has it, or in the tree before there is one.
fn moved(root: &Path) -> Result<impl Fn(&str) -> Result<String> + '_> {
    let lib = format!("{NEW_INPUT}/src/lib.rs");
    let made = crate::git(root, &["log", "--diff-filter=A", "--format=%H", "--", &lib])?
        .lines()
        .last()
        .map(str::to_string);
    Ok(move |p: &str| match &made {
        Some(commit) if p.ends_with('/') => {
            let names = crate::git(root, &["ls-tree", "--name-only", commit, p])?;
            Ok(names
                .lines()
                .map(|n| n.rsplit('/').next().unwrap_or(n))
                .collect::<Vec<_>>()
                .join("\n"))
        }
        Some(commit) => at_commit(root, commit, p),
        None => in_tree(root, p),
    })
}

/// The hash `tools/measure` had at [`BEFORE_MOVE`], by the rule that hashed it then (its
/// manifest, build script and sources), from git's copy of that commit.
fn hash_before_move(root: &Path) -> Result<String> {
    let dir = tempfile::tempdir()?;
    let archive = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["archive", "--format=tar", BEFORE_MOVE, OLD_INPUT])
        .output()
        .context("running git archive")?;
    if !archive.status.success() {
        bail!(
            "git archive {BEFORE_MOVE}: {}",
            String::from_utf8_lossy(&archive.stderr).trim()
        );
    }
    let mut tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .context("running tar")?;
    std::io::Write::write_all(tar.stdin.as_mut().context("tar's stdin")?, &archive.stdout)?;
    drop(tar.stdin.take());
    if !tar.wait()?.success() {
        bail!("tar could not unpack git's archive of {OLD_INPUT}");
    }
    Ok(freshness::hash_crate(&dir.path().join(OLD_INPUT))?)
}

/// `book rehash`: after proving the move, every record of ours whose `tools/measure` input is the
/// hash of that crate before the move gets the core's input in its place, and the combined hash
/// that goes with it; nothing else in the file changes. A record of the book's machines must
/// also hash as the working tree does in every other input (it was fresh before the move); a
/// release's is judged with its set, whose records all move alike. Any other record is refused.
pub fn rehash(root: &Path) -> Result<()> {
    prove(root)?;
    let before = hash_before_move(root)?;
    let core = freshness::hash_crate(&root.join(NEW_INPUT))?;
    let moved = moved(root)?;
    if moved(&format!("{NEW_INPUT}/src/"))? != in_tree(root, &format!("{NEW_INPUT}/src/"))?
        || new_files(&moved, "src/")?
            .iter()
            .chain(["Cargo.toml".to_string()].iter())
            .any(|f| {
                let path = if f == "Cargo.toml" {
                    format!("{NEW_INPUT}/{f}")
                } else {
                    format!("{NEW_INPUT}/src/{f}")
                };
                moved(&path).ok() != in_tree(root, &path).ok()
            })
    {
        bail!(
            "{NEW_INPUT} has changed since the commit that moved it: its records are measured again, not rehashed"
        );
    }
    let mut refused = Vec::new();
    let mut now_by_chapter: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for path in measured_records(root)? {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let rec = Record::load(&path)?;
        match rec.build.inputs.get(OLD_INPUT) {
            Some(h) if *h == before => {}
            None if rec.build.inputs.get(NEW_INPUT) == Some(&core) => {
                println!("same {shown}");
                continue;
            }
            _ => {
                refused.push(format!(
                    "{shown}: not measured with the code before the move"
                ));
                continue;
            }
        }
        let mut moved = rec.build.inputs.clone();
        moved.remove(OLD_INPUT);
        moved.insert(NEW_INPUT.into(), core.clone());
        if records::releases::split_folder(&rec.machine.name).is_none() {
            if !now_by_chapter.contains_key(&rec.chapter) {
                let now = freshness::inputs_by(root, &rec.chapter, freshness::Rule::of(&moved))?;
                now_by_chapter.insert(rec.chapter.clone(), now);
            }
            let now = &now_by_chapter[&rec.chapter];
            if moved != *now {
                refused.push(format!(
                    "{shown}: {} changed",
                    freshness::changed(&moved, now).join(", ")
                ));
                continue;
            }
        }
        // The hashes are replaced in the file's text: a record read and written again could
        // move a raw value by its last digit.
        let mut text = std::fs::read_to_string(&path)?;
        let replacements = [
            (
                format!("\"{OLD_INPUT}\": \"{before}\""),
                format!("\"{NEW_INPUT}\": \"{core}\""),
            ),
            (
                format!("\"listing_hash\": \"{}\"", rec.build.listing_hash),
                format!("\"listing_hash\": \"{}\"", freshness::combined(&moved)),
            ),
        ];
        for (old, new) in &replacements {
            if text.matches(old.as_str()).count() != 1 {
                bail!("{shown}: {old} is not in the file exactly once");
            }
            text = text.replace(old.as_str(), new);
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, &text)?;
        std::fs::rename(&tmp, &path)?;
        if Record::load(&path)?.build.inputs != moved {
            bail!("{shown}: rehashed, yet its inputs read back otherwise");
        }
        println!("rehashed {shown}");
    }
    if !refused.is_empty() {
        bail!(
            "left as they were (each needs a run of its chapter):\n  {}",
            refused.join("\n  ")
        );
    }
    Ok(())
}

/// Every record of ours under data/ (published figures left out).
fn measured_records(root: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for machine in std::fs::read_dir(root.join("data"))?.flatten() {
        for file in std::fs::read_dir(machine.path())?.flatten() {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "json")
                && Record::load(&path).is_ok_and(|r| r.source.is_none())
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        measure::record::repo_root()
    }

    #[test]
    fn the_measuring_core_is_the_old_code_moved() {
        prove(&root()).unwrap();
    }

    #[test]
    fn a_changed_line_of_the_core_breaks_the_proof() {
        let root = root();
        let edited = |target: &'static str, from: &'static str, to: &'static str| {
            let moved = moved(&root).unwrap();
            move |p: &str| -> Result<String> {
                let text = moved(p)?;
                Ok(if p.ends_with(target) {
                    assert!(text.contains(from), "{p} has no `{from}`");
                    text.replacen(from, to, 1)
                } else {
                    text
                })
            }
        };
        let old = |p: &str| at_commit(&root, BEFORE_MOVE, p);
        for (file, from, to) in [
            (
                "runner.rs",
                "crate::noise::begin();",
                "std::thread::yield_now();",
            ),
            (
                "runner.rs",
                "for rep in 0..self.reps {",
                "for rep in 1..self.reps {",
            ),
            ("stats.rs", "Histogram", "Histogram "),
            ("lib.rs", ".enable_all()", ".enable_time()"),
            (
                "lib.rs",
                "pub use runner::",
                "pub fn mix() {}\npub use runner::",
            ),
            (
                "Cargo.toml",
                "[features]",
                "[lints.rust]\nunsafe_code = \"forbid\"\n\n[features]",
            ),
            (
                "Cargo.toml",
                "fastrand.workspace = true",
                "fastrand = \"2\"",
            ),
        ] {
            let e = prove_core_moved_unchanged(old, edited(file, from, to))
                .expect_err(file)
                .to_string();
            assert!(e.contains(file), "{file}: {e}");
        }
    }

    #[test]
    fn only_the_named_items_are_removed() {
        let old = "fn a() {\n    1\n}\n\n    #[test]\n    fn t() {\n    }\n\n    #[test]\n    fn u() {\n    }\n\nfn b() {}\n";
        assert_eq!(
            without_items(old, &["    #[test]\n    fn t()"]).unwrap(),
            "fn a() {\n    1\n}\n\n    #[test]\n    fn u() {\n    }\n\nfn b() {}\n"
        );
        assert_eq!(
            without_items(old, &["fn a()"]).unwrap(),
            "    #[test]\n    fn t() {\n    }\n\n    #[test]\n    fn u() {\n    }\n\nfn b() {}\n"
        );
        assert!(
            without_items(old, &["fn c()"])
                .unwrap_err()
                .contains("fn c()")
        );
        assert!(
            without_items("fn a() {\n", &["fn a()"])
                .unwrap_err()
                .contains("does not close")
        );
    }
}
