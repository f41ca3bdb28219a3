//! The workshop runner's pieces: the exercises (each chapter's manifest,
//! `listings/<chapter>/chapter.toml`, `[[exercise]]` and `[predict]`), the student's copy
//! of a listing (under `course-work/`, which git ignores), and the progress kept beside it.
//!
//! A copy is the whole listing crate made into a workspace of its own: its `Cargo.toml` has every
//! `workspace = true` replaced by the version the book pins, paths made absolute, and the book's
//! `Cargo.lock` beside it, so the student's build uses exactly the book's crates while the
//! repository's files stay as they are.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod rustlings;

/// One "fix it" exercise: a chapter manifest's `[[exercise]]`, its keys kebab-case like the rest
/// of the manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Exercise {
    pub name: String,
    /// The chapter: `ch07-axum` (the manifest's, not written in it).
    #[serde(skip)]
    pub chapter: String,
    /// The crate the exercise lives in, relative to the repository (default: the chapter's listing).
    #[serde(default)]
    pub dir: Option<String>,
    pub title: String,
    /// The file the student edits, relative to the listing.
    pub edit: String,
    /// The integration test that checks it, run with `--features start`.
    pub test: String,
    /// The solution: a file of the crate (`src/exercise/solution.rs`), left out of the student's
    /// copy, or an anchored part of one (`src/lanes.rs#permit_in_job`) when the solution is also
    /// one of the chapter's measured variants.
    pub solution: String,
    /// The part of `edit` the exercise is about, by its anchor, when the file holds more.
    #[serde(default)]
    pub start_anchor: Option<String>,
    /// The test the rustlings exercise runs, when `test` reaches the exercise's function through
    /// more of the listing than one file can hold (default: `test`).
    #[serde(default)]
    pub rustlings_test: Option<String>,
    pub hints: Vec<String>,
}

/// A chapter's "predict, then measure" item: a question about the unmodified experiment that
/// the student answers on paper first, then with one repetition of it
/// (`cargo run -p CHAPTER -- --filter EXPERIMENT --reps 1`). The chapter's page asks it in full;
/// the workshop's schedules name it by `question`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Predict {
    /// The chapter: `ch07-axum` (the manifest's, not written in it).
    #[serde(skip)]
    pub chapter: String,
    /// The experiment the run keeps (`--filter`).
    pub experiment: String,
    /// The question, in a line.
    pub question: String,
}

/// Every chapter's exercises and question, from the chapters' manifests, in chapter order.
fn load(root: &Path) -> Result<(Vec<Exercise>, Vec<Predict>)> {
    let (mut exercises, mut predictions) = (Vec::new(), Vec::new());
    for m in records::chapter::all(root).map_err(anyhow::Error::msg)? {
        let path = records::chapter::manifest_path(root, &m.name);
        let within = |what: &str| format!("{}: {what}", path.display());
        for table in &m.exercise {
            let mut e: Exercise = table
                .clone()
                .try_into()
                .with_context(|| within("[[exercise]]"))?;
            e.chapter = m.name.clone();
            if !e.crate_dir(root).join(&e.edit).is_file() {
                bail!(
                    "{}",
                    within(&format!(
                        "exercise `{}` edits {}, which does not exist",
                        e.name, e.edit
                    ))
                );
            }
            exercises.push(e);
        }
        if let Some(table) = &m.predict {
            let mut p: Predict = table
                .clone()
                .try_into()
                .with_context(|| within("[predict]"))?;
            p.chapter = m.name.clone();
            predictions.push(p);
        }
    }
    Ok((exercises, predictions))
}

/// Each chapter's "predict, then measure" item, in order.
pub fn predictions(root: &Path) -> Result<Vec<Predict>> {
    Ok(load(root)?.1)
}

/// The exercises, in order.
pub fn exercises(root: &Path) -> Result<Vec<Exercise>> {
    Ok(load(root)?.0)
}

impl Exercise {
    /// The crate the exercise lives in: its own under `course/crates/`, or the chapter's listing.
    pub fn crate_dir(&self, root: &Path) -> PathBuf {
        match &self.dir {
            Some(dir) => root.join(dir),
            None => root.join("listings").join(&self.chapter),
        }
    }

    /// The package's name, as Rust code names it (`ch04_fs`).
    pub fn crate_ident(&self, root: &Path) -> Result<String> {
        let path = self.crate_dir(root).join("Cargo.toml");
        let text = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        let m: toml::Table = toml::from_str(&text).with_context(|| path.display().to_string())?;
        let name = m
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str());
        Ok(name.context("no [package] name")?.replace('-', "_"))
    }

    fn read(&self, root: &Path, file: &str) -> Result<String> {
        let path = self.crate_dir(root).join(file);
        std::fs::read_to_string(&path).with_context(|| path.display().to_string())
    }

    /// The solution's file and anchor: `("src/lanes.rs", Some("permit_in_job"))`.
    fn solution_parts(&self) -> (&str, Option<&str>) {
        match self.solution.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (&self.solution, None),
        }
    }

    /// The file holding the solution, when the whole file is the solution (left out of copies).
    pub fn solution_file(&self) -> Option<&str> {
        match self.solution_parts() {
            (file, None) => Some(file),
            _ => None,
        }
    }

    /// The code the student starts from: `edit`, or its anchored part.
    pub fn start_code(&self, root: &Path) -> Result<String> {
        let text = self.read(root, &self.edit)?;
        match &self.start_anchor {
            Some(anchor) => anchored(&text, anchor).with_context(|| self.edit.clone()),
            None => Ok(text),
        }
    }

    /// The solution's code, its function named as the start's (an anchored solution is a
    /// variant of the chapter with a name of its own).
    pub fn solution_code(&self, root: &Path) -> Result<String> {
        let (file, anchor) = self.solution_parts();
        let text = self.read(root, file)?;
        let Some(anchor) = anchor else {
            return Ok(text);
        };
        let code = anchored(&text, anchor).with_context(|| file.to_string())?;
        let start = self.start_code(root)?;
        let (from, to) = (public_fns(&code), public_fns(&start));
        let (Some(from), Some(to)) = (from.first(), to.first()) else {
            bail!("{}: no `pub fn` in the start or the solution", self.name);
        };
        Ok(code.replacen(&format!("fn {from}"), &format!("fn {to}"), 1))
    }

    /// The edited file as solved: the solution in place of the start.
    pub fn solved_file(&self, root: &Path) -> Result<String> {
        let solution = self.solution_code(root)?;
        match &self.start_anchor {
            Some(_) => {
                let text = self.read(root, &self.edit)?;
                Ok(text.replacen(&self.start_code(root)?, &solution, 1))
            }
            None => Ok(solution),
        }
    }
}

/// The lines between `// ANCHOR: name` and `// ANCHOR_END: name`.
pub fn anchored(text: &str, name: &str) -> Result<String> {
    let start = format!("// ANCHOR: {name}");
    let end = format!("// ANCHOR_END: {name}");
    let mut lines = text.lines().skip_while(|l| l.trim() != start);
    if lines.next().is_none() {
        bail!("no `{start}`");
    }
    let mut out = String::new();
    for line in lines {
        if line.trim() == end {
            return Ok(out);
        }
        out.push_str(line);
        out.push('\n');
    }
    bail!("no `{end}`")
}

/// The names of the public functions a piece of code defines at its top level.
pub fn public_fns(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("pub async fn ")
                .or(l.strip_prefix("pub fn "))?;
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            Some(rest[..end].to_string())
        })
        .collect()
}

/// The exercise called `name`, or an error that lists the names there are.
pub fn find<'a>(all: &'a [Exercise], name: &str) -> Result<&'a Exercise> {
    all.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
        anyhow::anyhow!(
            "no exercise `{name}`; the exercises are: {}",
            names.join(", ")
        )
    })
}

/// Where a student's copies live: `$COURSE_WORK`, else `course-work/` in the repository.
pub fn work_dir(root: &Path) -> PathBuf {
    std::env::var_os("COURSE_WORK").map_or_else(|| root.join("course-work"), PathBuf::from)
}

/// Where the copies are built: beside them, so that two folders of copies never share a build
/// (cargo names a copy's artifacts alike wherever the copy is, so a build from another folder's
/// copy of the same exercise could pass for this one's).
pub fn target_dir(root: &Path) -> PathBuf {
    work_dir(root).join("target")
}

/// The student's copy of an exercise's listing.
pub fn copy_dir(root: &Path, e: &Exercise) -> PathBuf {
    work_dir(root).join(&e.name)
}

/// The file the student edits, in their copy.
pub fn edited_file(root: &Path, e: &Exercise) -> PathBuf {
    copy_dir(root, e).join(&e.edit)
}

/// (Re)creates the student's copy from the listing: every file but build output and the
/// solution, the manifest made standalone, `start` on by default. Whatever the copy held is
/// replaced.
pub fn make_copy(root: &Path, e: &Exercise) -> Result<PathBuf> {
    let from = e.crate_dir(root);
    let to = copy_dir(root, e);
    if to.exists() {
        std::fs::remove_dir_all(&to).with_context(|| to.display().to_string())?;
    }
    copy_tree(&from, &to)?;
    if let Some(solution) = e.solution_file() {
        leave_out_solution(&to, solution)?;
    }
    let manifest = std::fs::read_to_string(from.join("Cargo.toml"))?;
    let workspace = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let mut standalone = standalone_manifest(&manifest, &workspace, root)?;
    start_by_default(&mut standalone);
    std::fs::write(to.join("Cargo.toml"), toml::to_string(&standalone)?)?;
    for shared in ["Cargo.lock", "rust-toolchain.toml"] {
        if root.join(shared).is_file() {
            std::fs::copy(root.join(shared), to.join(shared))?;
        }
    }
    Ok(to)
}

/// Deletes the copy's solution file and builds its module only without `start`, which the copy
/// always has: `pub mod solution;` in the module above it.
fn leave_out_solution(copy: &Path, solution: &str) -> Result<()> {
    let file = copy.join(solution);
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .context("solution file name")?;
    let dir = file.parent().context("solution's folder")?;
    let parents = match dir.file_name().and_then(|n| n.to_str()) {
        Some("src") => vec![dir.join("lib.rs")],
        Some(module) => vec![
            dir.join("mod.rs"),
            dir.with_file_name(format!("{module}.rs")),
        ],
        None => bail!("{solution}: not under src/"),
    };
    let declaration = format!("pub mod {stem};");
    for parent in parents.iter().filter(|p| p.is_file()) {
        let text = std::fs::read_to_string(parent)?;
        if text.lines().any(|l| l == declaration) {
            let gated = format!(
                "// Your copy holds the start only: the solution is in the book.\n#[cfg(not(feature = \"start\"))]\n{declaration}"
            );
            std::fs::write(parent, text.replacen(&declaration, &gated, 1))?;
            std::fs::remove_file(&file).with_context(|| file.display().to_string())?;
            return Ok(());
        }
    }
    bail!("no `{declaration}` beside {solution} to leave the solution out of the copy")
}

/// The copy builds the start without being asked (`cargo test` in it tests what you edit).
fn start_by_default(manifest: &mut toml::Table) {
    let features = manifest
        .entry("features")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let Some(features) = features.as_table_mut() {
        features.insert("default".into(), toml::Value::Array(vec!["start".into()]));
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&src, &dst)?;
            }
        } else {
            std::fs::copy(&src, &dst).with_context(|| src.display().to_string())?;
        }
    }
    Ok(())
}

/// A listing's manifest with the workspace's settings written in: `x.workspace = true` becomes
/// the workspace's value (features merged), a path dependency an absolute path, and an empty
/// `[workspace]` makes the copy its own workspace.
pub fn standalone_manifest(listing: &str, workspace: &str, root: &Path) -> Result<toml::Table> {
    let mut m: toml::Table = toml::from_str(listing).context("the listing's Cargo.toml")?;
    let ws: toml::Table = toml::from_str(workspace).context("the workspace's Cargo.toml")?;
    let ws = ws
        .get("workspace")
        .and_then(|w| w.as_table())
        .context("no [workspace]")?;
    let package_defaults = ws.get("package").and_then(|p| p.as_table());
    let deps = ws.get("dependencies").and_then(|d| d.as_table());
    if let Some(package) = m.get_mut("package").and_then(|p| p.as_table_mut()) {
        for (key, value) in package.iter_mut() {
            if inherits(value) {
                *value = package_defaults
                    .and_then(|d| d.get(key))
                    .cloned()
                    .with_context(|| format!("[workspace.package] has no `{key}`"))?;
            }
        }
    }
    // Every dependency table: the package's own and each `[target.'cfg(...)'.*]` one.
    let mut targets = m.remove("target");
    let platforms = targets.as_mut().and_then(|t| t.as_table_mut());
    let target_tables = platforms.into_iter().flat_map(|t| t.iter_mut());
    let target_tables = target_tables.filter_map(|(_, p)| p.as_table_mut());
    let mut tables = dependency_tables(&mut m);
    for platform in target_tables {
        tables.extend(dependency_tables(platform));
    }
    for table in tables {
        for (name, spec) in table.iter_mut() {
            if inherits(spec) {
                let pinned = deps
                    .and_then(|d| d.get(name))
                    .with_context(|| format!("[workspace.dependencies] has no `{name}`"))?;
                *spec = merged(pinned, spec, root);
            }
        }
    }
    if let Some(targets) = targets {
        m.insert("target".into(), targets);
    }
    if let Some(lints) = m.get("lints")
        && inherits(lints)
    {
        bail!("`[lints] workspace = true` is not written in yet: give the copy its lints");
    }
    m.insert("workspace".into(), toml::Value::Table(toml::Table::new()));
    Ok(m)
}

const DEPENDENCY_TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// The `[dependencies]`, `[dev-dependencies]` and `[build-dependencies]` of a manifest or of one
/// of its `[target.'cfg(...)']` tables.
fn dependency_tables(t: &mut toml::Table) -> Vec<&mut toml::Table> {
    t.iter_mut()
        .filter(|(k, _)| DEPENDENCY_TABLES.contains(&k.as_str()))
        .filter_map(|(_, v)| v.as_table_mut())
        .collect()
}

fn inherits(v: &toml::Value) -> bool {
    match v {
        toml::Value::Table(t) => t.get("workspace").and_then(|w| w.as_bool()) == Some(true),
        _ => false,
    }
}

/// The workspace's spec for a dependency, with the member's own keys (features, optional) added.
fn merged(pinned: &toml::Value, member: &toml::Value, root: &Path) -> toml::Value {
    let mut out = match pinned {
        toml::Value::String(version) => {
            let mut t = toml::Table::new();
            t.insert("version".into(), toml::Value::String(version.clone()));
            t
        }
        toml::Value::Table(t) => t.clone(),
        other => return other.clone(),
    };
    if let Some(toml::Value::String(path)) = out.get("path") {
        let absolute = root.join(path).to_string_lossy().into_owned();
        out.insert("path".into(), toml::Value::String(absolute));
    }
    let member = member.as_table().cloned().unwrap_or_default();
    for (key, value) in member {
        match (key.as_str(), value) {
            ("workspace", _) => {}
            ("features", toml::Value::Array(extra)) => {
                let mut features = out
                    .get("features")
                    .and_then(|f| f.as_array())
                    .cloned()
                    .unwrap_or_default();
                features.extend(
                    extra
                        .into_iter()
                        .filter(|f| !features.contains(f))
                        .collect::<Vec<_>>(),
                );
                out.insert("features".into(), toml::Value::Array(features));
            }
            (_, value) => {
                out.insert(key, value);
            }
        }
    }
    toml::Value::Table(out)
}

/// Where an exercise stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    NotStarted,
    /// Edited since the last check (or never checked).
    Changed,
    /// The copy's code has a compile error.
    DoesNotCompile,
    /// Cargo could not build the copy for another reason (its manifest, a dependency).
    CouldNotBuild,
    Failing,
    Passing,
}

impl Status {
    pub fn text(self) -> &'static str {
        match self {
            Status::NotStarted => "not started",
            Status::Changed => "changed, not checked",
            Status::DoesNotCompile => "does not compile",
            Status::CouldNotBuild => "could not build",
            Status::Failing => "failing",
            Status::Passing => "passing",
        }
    }
}

/// What the runner remembers per exercise: the last check and the hints shown.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Progress {
    pub checked: BTreeMap<String, Checked>,
    pub hints_shown: BTreeMap<String, usize>,
}

/// The outcome of a check and the edited file it was made on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checked {
    pub passed: bool,
    pub file: String,
    /// Why the test did not run, when it did not (progress files of older runners lack it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_built: Option<Status>,
}

impl Progress {
    fn path(root: &Path) -> PathBuf {
        work_dir(root).join("progress.json")
    }

    pub fn load(root: &Path) -> Result<Progress> {
        let path = Progress::path(root);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is corrupt: delete it to start over", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Progress::default()),
            Err(e) => Err(e).with_context(|| path.display().to_string()),
        }
    }

    /// Written atomically: a temporary file renamed over the old one.
    pub fn save(&self, root: &Path) -> Result<()> {
        let path = Progress::path(root);
        std::fs::create_dir_all(work_dir(root))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self)?)?;
        std::fs::rename(&tmp, &path)?;
        Ok(())
    }

    /// The status of `e`, from the copy's file and the last check.
    pub fn status(&self, root: &Path, e: &Exercise) -> Result<Status> {
        let Ok(now) = std::fs::read_to_string(edited_file(root, e)) else {
            return Ok(Status::NotStarted);
        };
        let start = std::fs::read_to_string(e.crate_dir(root).join(&e.edit))?;
        Ok(match self.checked.get(&e.name) {
            Some(c) if c.file == now => match (c.passed, c.not_built) {
                (true, _) => Status::Passing,
                (false, Some(why)) => why,
                (false, None) => Status::Failing,
            },
            _ if now == start => Status::NotStarted,
            _ => Status::Changed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chapter_with_an_exercise_has_one_predict_then_measure_question() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let predicts = predictions(&root).unwrap();
        for e in exercises(&root).unwrap() {
            let n = predicts.iter().filter(|p| p.chapter == e.chapter).count();
            assert_eq!(n, 1, "{}: {n} predict-then-measure questions", e.chapter);
        }
        assert!(
            predicts
                .iter()
                .all(|p| !p.experiment.is_empty() && p.question.ends_with('?'))
        );
    }

    #[test]
    fn a_member_manifest_gets_the_workspace_settings_written_in() {
        let workspace = r#"
[workspace]
members = ["listings/*"]
[workspace.package]
version = "0.1.0"
edition = "2024"
[workspace.dependencies]
measure = { path = "tools/measure" }
tokio = { version = "=1.54.1", features = ["rt", "time"] }
serde_json = "=1.0.154"
"#;
        let member = r#"
[package]
name = "ch99"
version.workspace = true
edition.workspace = true
[features]
start = []
[dependencies]
measure = { workspace = true, features = ["runtime"] }
serde_json.workspace = true
[dev-dependencies]
tokio = { workspace = true, features = ["test-util"] }
"#;
        let m = standalone_manifest(member, workspace, Path::new("/repo")).unwrap();
        let out = toml::to_string(&m).unwrap();
        assert_eq!(m["package"]["edition"].as_str(), Some("2024"));
        assert_eq!(
            m["dependencies"]["measure"]["path"].as_str(),
            Some("/repo/tools/measure")
        );
        assert_eq!(
            m["dependencies"]["measure"]["features"][0].as_str(),
            Some("runtime")
        );
        assert_eq!(
            m["dependencies"]["serde_json"]["version"].as_str(),
            Some("=1.0.154")
        );
        let features = m["dev-dependencies"]["tokio"]["features"]
            .as_array()
            .unwrap();
        assert_eq!(features.len(), 3, "{features:?}");
        assert!(m.contains_key("workspace") && m.contains_key("features"));
        assert!(!out.contains("workspace = true"), "{out}");
    }

    #[test]
    fn a_target_specific_dependency_table_gets_the_workspace_settings_too() {
        let workspace =
            "[workspace]\n[workspace.dependencies]\nio-uring = \"=0.7.11\"\nlibc = \"=0.2.180\"\n";
        let member = r#"
[package]
name = "ch99"
[target.'cfg(target_os = "linux")'.dependencies]
io-uring.workspace = true
[target.'cfg(unix)'.dev-dependencies]
libc = { workspace = true, features = ["extra_traits"] }
"#;
        let m = standalone_manifest(member, workspace, Path::new("/repo")).unwrap();
        let out = toml::to_string(&m).unwrap();
        assert!(!out.contains("workspace = true"), "{out}");
        let linux = &m["target"]["cfg(target_os = \"linux\")"]["dependencies"];
        assert_eq!(linux["io-uring"]["version"].as_str(), Some("=0.7.11"));
        let unix = &m["target"]["cfg(unix)"]["dev-dependencies"];
        assert_eq!(unix["libc"]["version"].as_str(), Some("=0.2.180"));
        assert_eq!(unix["libc"]["features"][0].as_str(), Some("extra_traits"));
    }

    #[test]
    fn every_listing_with_an_exercise_makes_a_standalone_manifest() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        for e in exercises(&root).unwrap() {
            let listing = std::fs::read_to_string(e.crate_dir(&root).join("Cargo.toml")).unwrap();
            let m = standalone_manifest(&listing, &workspace, &root)
                .unwrap_or_else(|err| panic!("{}: {err:#}", e.name));
            let out = toml::to_string(&m).unwrap();
            assert!(!out.contains("workspace = true"), "{}: {out}", e.name);
        }
    }

    #[test]
    fn a_missing_workspace_dependency_is_named() {
        let e = standalone_manifest(
            "[dependencies]\nkanal.workspace = true\n",
            "[workspace]\n[workspace.dependencies]\n",
            Path::new("/"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("`kanal`"), "{e}");
    }
}
