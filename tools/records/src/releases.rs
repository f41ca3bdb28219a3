//! The Tokio release matrix: the same listings built against other Tokio releases.
//!
//! `releases/releases.toml` names each release, why it is in the matrix, the crates it needs at
//! another version (and why), and the chapters it cannot build (and why). Each release builds from
//! a lock file of its own, `releases/tokio-<version>.lock`, in a workspace of its own: a copy of
//! the chapters it builds and the workspace crates they need, under
//! `target/releases/tokio-<version>/`, whose `Cargo.toml` is the book's with Tokio (and those
//! crates) pinned to the release. The copy holds the same files, so a listing's hash is the
//! book's; what differs is the lock file, which freshness hashes as `cargo tree` resolves it there.
//!
//! Its records live under `data/<machine>-tokio-<version>/`. One chapter's records on one machine
//! are a set, judged as one ([`set_problems`]): its releases are compared with each other, so they
//! must have been measured with the same listing and measuring code, and with that they stay
//! valid whatever the working tree has become since (the page names the commit that measured
//! them). The book's own records are judged against the working tree instead.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The matrix's file, under the repository root.
pub const FILE: &str = "releases/releases.toml";

/// Why a conclusion changed between two releases: `releases/changes.toml`.
pub const CHANGES: &str = "releases/changes.toml";

/// What marks a data folder as a release's: `<machine>-tokio-<version>`.
const MARK: &str = "-tokio-";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Matrix {
    release: Vec<Release>,
}

/// One Tokio release of the matrix.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The exact version, "1.38.2".
    pub tokio: String,
    /// Why it is in the matrix: its line, the changes on either side of it.
    pub why: String,
    /// Crates pinned to another version on this release (`name = { version, why }`).
    #[serde(default)]
    pub crates: BTreeMap<String, Pin>,
    /// Chapters this release cannot build, each with the reason.
    #[serde(default)]
    pub skip: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// A version requirement as the workspace writes it, "=0.4.2".
    pub version: String,
    pub why: String,
}

/// Why one conclusion changed between two releases measured one after the other.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    pub record: String,
    pub claim: String,
    pub from: String,
    pub to: String,
    /// Whether a change in Tokio explains it; `cause` names it (the PR), or says what was
    /// looked at and not found.
    pub found: bool,
    pub cause: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Changes {
    #[serde(default)]
    change: Vec<Explanation>,
}

/// Every explanation in `releases/changes.toml` (none when there is no such file).
pub fn explanations(root: &Path) -> Result<Vec<Explanation>, String> {
    let path = root.join(CHANGES);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let changes: Changes = toml::from_str(&text).map_err(|e| format!("{CHANGES}: {e}"))?;
    Ok(changes.change)
}

/// The matrix, in the file's order.
pub fn load(root: &Path) -> Result<Vec<Release>, String> {
    let path = root.join(FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let matrix: Matrix = toml::from_str(&text).map_err(|e| format!("{FILE}: {e}"))?;
    let chapters = chapters(root)?;
    for r in &matrix.release {
        if !is_version(&r.tokio) {
            return Err(format!(
                "{FILE}: `{}` is not an exact release (1.38.2)",
                r.tokio
            ));
        }
        if let Some(c) = r.skip.keys().find(|c| !chapters.contains(c)) {
            return Err(format!(
                "{FILE}: Tokio {} skips `{c}`, which is no listing",
                r.tokio
            ));
        }
        if matrix.release.iter().filter(|o| o.tokio == r.tokio).count() > 1 {
            return Err(format!("{FILE}: Tokio {} is listed twice", r.tokio));
        }
        if let Some((name, _)) = r.crates.iter().find(|(_, p)| !p.version.starts_with('=')) {
            return Err(format!(
                "{FILE}: Tokio {} pins `{name}` with a range; pin an exact version (\"=X.Y.Z\")",
                r.tokio
            ));
        }
    }
    // The page compares each release with the one before it.
    if let Some(w) = matrix
        .release
        .windows(2)
        .find(|w| numbers(&w[0].tokio) >= numbers(&w[1].tokio))
    {
        return Err(format!(
            "{FILE}: Tokio {} comes after {}: list the releases oldest first",
            w[1].tokio, w[0].tokio
        ));
    }
    Ok(matrix.release)
}

/// The release named `version`.
pub fn find(root: &Path, version: &str) -> Result<Release, String> {
    load(root)?
        .into_iter()
        .find(|r| r.tokio == version)
        .ok_or_else(|| format!("Tokio {version} is not in {FILE}"))
}

/// Every listing's name, sorted.
pub fn chapters(root: &Path) -> Result<Vec<String>, String> {
    let dir = root.join("listings");
    let mut out: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    out.sort();
    Ok(out)
}

impl Release {
    /// The chapters this release builds: every listing it does not skip.
    pub fn chapters(&self, root: &Path) -> Result<Vec<String>, String> {
        Ok(chapters(root)?
            .into_iter()
            .filter(|c| !self.skip.contains_key(c))
            .collect())
    }

    /// `releases/tokio-<version>.lock`.
    pub fn lock_path(&self, root: &Path) -> PathBuf {
        root.join("releases")
            .join(format!("tokio-{}.lock", self.tokio))
    }

    /// The data folder of this release's records on `machine`: `<machine>-tokio-1-38-2` (a
    /// machine's name is lowercase letters, digits and dashes).
    pub fn folder(&self, machine: &str) -> String {
        folder(machine, &self.tokio)
    }

    /// `target/releases/tokio-<version>`: its workspace (and, beneath, its target folder).
    pub fn dir(&self, root: &Path) -> PathBuf {
        root.join("target")
            .join("releases")
            .join(format!("tokio-{}", self.tokio))
    }
}

/// The data folder of Tokio `tokio`'s records on `machine` (see [`Release::folder`]).
pub fn folder(machine: &str, tokio: &str) -> String {
    format!("{machine}{MARK}{}", tokio.replace('.', "-"))
}

/// `("intel-xeon-2c", "1.38.2")` for the folder `intel-xeon-2c-tokio-1-38-2`; `None` for any
/// other folder.
pub fn split_folder(folder: &str) -> Option<(&str, String)> {
    let at = folder.rfind(MARK)?;
    let machine = &folder[..at];
    let version = folder[at + MARK.len()..].replace('-', ".");
    (!machine.is_empty() && is_version(&version)).then_some((machine, version))
}

fn numbers(v: &str) -> Vec<u64> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

fn is_version(v: &str) -> bool {
    let parts: Vec<&str> = v.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// One chapter's records on one machine, across the matrix: each release that has one, with it,
/// in the matrix's order.
pub type Set = Vec<(Release, crate::record::Record)>;

/// The set `chapter` has under `machine` (its name without a release: `intel-xeon-2c`). A record
/// that cannot be read is an error.
pub fn set(root: &Path, machine: &str, chapter: &str) -> Result<Set, String> {
    let mut out = Vec::new();
    for release in load(root)? {
        let path = crate::record::record_path(root, &release.folder(machine), chapter);
        if path.is_file() {
            let rec = crate::record::Record::load(&path).map_err(|e| e.to_string())?;
            out.push((release, rec));
        }
    }
    Ok(out)
}

/// What keeps a set from being judged as one, each named with the releases on either side:
/// - an input (`records::freshness`) that differs between its records, the lock file's aside
///   (it differs by design, each release having its own);
/// - what the harness decided and wrote into each record, outside those inputs: the parameters,
///   the repetitions, the compiler and optimisation level, the processor and its CPUs;
/// - a crate the chapter's records name at two versions, where no release of the set pins it
///   (Tokio aside): the rest of the lock file must not move between releases.
pub fn set_problems(set: &Set) -> Vec<String> {
    let Some((first, first_rec)) = set.first() else {
        return Vec::new();
    };
    let pinned: std::collections::BTreeSet<&str> = set
        .iter()
        .flat_map(|(r, _)| r.crates.keys().map(String::as_str))
        .chain(["tokio"])
        .collect();
    let mut problems = Vec::new();
    for (release, rec) in &set[1..] {
        let mut differ = crate::freshness::changed(&shaping(first_rec), &shaping(rec));
        differ.extend(
            facts(first_rec)
                .into_iter()
                .zip(facts(rec))
                .filter(|(a, b)| a != b)
                .map(|(a, _)| a.0.to_string()),
        );
        let names: std::collections::BTreeSet<&String> = first_rec
            .build
            .crates
            .keys()
            .chain(rec.build.crates.keys())
            .collect();
        differ.extend(
            names
                .into_iter()
                .filter(|n| !pinned.contains(n.as_str()))
                .filter(|n| first_rec.build.crates.get(*n) != rec.build.crates.get(*n))
                .map(|n| format!("the version of {n}")),
        );
        if !differ.is_empty() {
            problems.push(format!(
                "{} differs between its Tokio {} and {} records",
                differ.join(", "),
                first.tokio,
                release.tokio
            ));
        }
    }
    problems
}

/// A record's inputs but the lock file's.
fn shaping(rec: &crate::record::Record) -> BTreeMap<String, String> {
    let mut inputs = rec.build.inputs.clone();
    inputs.retain(|k, _| !crate::freshness::is_lock(k));
    inputs
}

/// What the harness wrote into a record about how it ran, by name, as text to compare.
fn facts(rec: &crate::record::Record) -> Vec<(&'static str, String)> {
    let m = &rec.machine;
    vec![
        ("the parameters", format!("{:?}", rec.params)),
        (
            "the repetitions",
            format!("{} {:?}", rec.reps, rec.experiment_reps),
        ),
        ("the compiler", rec.build.rustc.clone()),
        ("the optimisation level", rec.build.opt_level.clone()),
        (
            "the processor",
            format!("{} ({} CPUs)", m.cpu_model, m.available_parallelism),
        ),
    ]
}

/// The commits that measured a set, oldest run first (several when nothing that shapes the
/// chapter changed between its runs).
pub fn set_commits(set: &Set) -> Vec<String> {
    let mut runs: Vec<(&str, &str)> = set
        .iter()
        .map(|(_, rec)| (rec.created.as_str(), rec.build.commit.as_str()))
        .collect();
    runs.sort();
    let mut commits: Vec<String> = Vec::new();
    for (_, commit) in runs {
        if !commits.iter().any(|c| c == commit) {
            commits.push(commit.to_string());
        }
    }
    commits
}

/// Whether a set was measured with what the working tree would measure it with now: the same
/// inputs (the lock file's aside: a release's is hashed in its own workspace), and the chapter's
/// crates at the versions the book's lock file has now, those a release pins and Tokio aside.
pub fn set_is_current(root: &Path, set: &Set) -> Result<bool, String> {
    let Some((_, rec)) = set.first() else {
        return Ok(true);
    };
    let rule = crate::freshness::Rule::of(&rec.build.inputs);
    let mut now =
        crate::freshness::inputs_by(root, &rec.chapter, rule).map_err(|e| e.to_string())?;
    now.retain(|k, _| !crate::freshness::is_lock(k));
    if now != shaping(rec) {
        return Ok(false);
    }
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let locked = crate::lockfile::versions(&lock);
    Ok(set.iter().all(|(release, rec)| {
        rec.build.crates.iter().all(|(name, version)| {
            name == "tokio"
                || name == "measure"
                || release.crates.contains_key(name)
                || locked.get(name) == Some(version)
        })
    }))
}

/// Why a release record cannot be shown beside its set's other records, if so: what differs
/// within its set, and the command that measures the set again.
pub fn set_staleness(root: &Path, rec: &crate::record::Record) -> Result<Option<String>, String> {
    let Some((machine, _)) = split_folder(&rec.machine.name) else {
        return Err(format!("{} is not a release's record", rec.machine.name));
    };
    let problems = set_problems(&set(root, machine, &rec.chapter)?);
    Ok((!problems.is_empty()).then(|| {
        format!(
            "{}; a set is compared release with release, so measure it again whole: `cargo run -p book -- releases run --again --chapter {} --machine {machine}`",
            problems.join("; "),
            rec.chapter
        )
    }))
}

/// The crates at versions the book's lock file does not have, in the release's: `(name,
/// versions)`, sorted by name; Tokio's own and the Windows-only crates (`windows*`) aside. A crate
/// that the release's workspace no longer needs, with a chapter it does not build, is not listed.
pub fn moved_crates(root: &Path, release: &Release) -> Result<Vec<(String, String)>, String> {
    let read = |p: PathBuf| {
        std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let book = lock_versions(&read(root.join("Cargo.lock"))?)?;
    let theirs = lock_versions(&read(release.lock_path(root))?)?;
    Ok(theirs
        .into_iter()
        .filter(|(name, _)| name != "tokio" && !name.starts_with("windows"))
        .filter_map(|(name, versions)| {
            let new: Vec<String> = versions
                .into_iter()
                .filter(|v| !book.get(&name).is_some_and(|b| b.contains(v)))
                .collect();
            (!new.is_empty()).then(|| (name, new.join(", ")))
        })
        .collect())
}

/// Every registry crate's versions in a lock file.
fn lock_versions(lock: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let doc: toml::Table = lock.parse().map_err(|e| format!("a lock file: {e}"))?;
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in doc
        .get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .filter(|p| p.get("source").is_some())
    {
        let text = |k: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or_default();
        out.entry(text("name").to_string())
            .or_default()
            .push(text("version").to_string());
    }
    for v in out.values_mut() {
        v.sort();
    }
    Ok(out)
}

/// Writes (or brings up to date) the release's workspace from the book's files and its lock
/// file, downloads what the lock names, and returns the folder. Fails when the release has no
/// lock file yet ([`make_lock`] makes one).
pub fn workspace(root: &Path, release: &Release) -> Result<PathBuf, String> {
    let lock = release.lock_path(root);
    let text = std::fs::read_to_string(&lock).map_err(|e| {
        format!(
            "cannot read {} ({e}): make it with `cargo run -p book -- releases lock {}`",
            lock.display(),
            release.tokio
        )
    })?;
    let dir = write_workspace(root, release)?;
    write_if_changed(&dir.join("Cargo.lock"), text.as_bytes())?;
    fetch(&dir)?;
    Ok(dir)
}

/// Makes `releases/tokio-<version>.lock`: the book's lock file, with Tokio and the release's
/// pinned crates moved to their versions and nothing else changed that cargo can keep.
pub fn make_lock(root: &Path, release: &Release) -> Result<PathBuf, String> {
    let dir = write_workspace(root, release)?;
    let book_lock = std::fs::read(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("Cargo.lock"), book_lock).map_err(|e| e.to_string())?;
    let mut update = vec!["update", "--quiet", "-p", "tokio", "--precise"];
    update.push(&release.tokio);
    cargo(&dir, &update)?;
    let text = std::fs::read_to_string(dir.join("Cargo.lock")).map_err(|e| e.to_string())?;
    let path = release.lock_path(root);
    crate::record::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The workspace's folder with its manifest, toolchain, book.toml (which marks it as a root for
/// [`crate::record::repo_root`]) and a copy of every crate the release's chapters build.
fn write_workspace(root: &Path, release: &Release) -> Result<PathBuf, String> {
    let dir = release.dir(root);
    let members = members(root, release)?;
    let manifest = manifest(root, release, &members)?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    write_if_changed(&dir.join("Cargo.toml"), manifest.as_bytes())?;
    for file in ["rust-toolchain.toml", "book.toml"] {
        let text = std::fs::read(root.join(file)).map_err(|e| format!("{file}: {e}"))?;
        write_if_changed(&dir.join(file), &text)?;
    }
    for member in &members {
        sync_dir(&root.join(member), &dir.join(member))?;
    }
    Ok(dir)
}

/// The workspace crates (relative folders) the release's chapters build, themselves included.
fn members(root: &Path, release: &Release) -> Result<Vec<String>, String> {
    let mut out = std::collections::BTreeSet::new();
    for chapter in release.chapters(root)? {
        for dir in crate::freshness::workspace_crates(root, &chapter).map_err(|e| e.to_string())? {
            out.insert(dir);
        }
    }
    Ok(out.into_iter().collect())
}

/// The book's manifest with `members` as the workspace, Tokio and the pinned crates at the
/// release's versions, and no path dependency outside `members`. Profiles stay as they are.
fn manifest(root: &Path, release: &Release, members: &[String]) -> Result<String, String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).map_err(|e| e.to_string())?;
    let mut doc: toml::Table = text.parse().map_err(|e| format!("Cargo.toml: {e}"))?;
    let workspace = doc
        .get_mut("workspace")
        .and_then(|w| w.as_table_mut())
        .ok_or("Cargo.toml has no [workspace]")?;
    workspace.insert(
        "members".into(),
        toml::Value::Array(members.iter().cloned().map(toml::Value::String).collect()),
    );
    let deps = workspace
        .get_mut("dependencies")
        .and_then(|d| d.as_table_mut())
        .ok_or("Cargo.toml has no [workspace.dependencies]")?;
    deps.retain(|_, spec| {
        spec.get("path")
            .and_then(|p| p.as_str())
            .is_none_or(|p| members.iter().any(|m| m == p))
    });
    let mut pins: Vec<(&str, String)> = vec![("tokio", format!("={}", release.tokio))];
    pins.extend(
        release
            .crates
            .iter()
            .map(|(n, p)| (n.as_str(), p.version.clone())),
    );
    for (name, version) in pins {
        match deps.get_mut(name) {
            Some(toml::Value::Table(t)) => {
                t.insert("version".into(), toml::Value::String(version));
            }
            Some(v) => *v = toml::Value::String(version),
            None => {
                return Err(format!(
                    "{FILE}: Tokio {} pins `{name}`, which [workspace.dependencies] does not have",
                    release.tokio
                ));
            }
        }
    }
    let body = toml::to_string(&doc).map_err(|e| e.to_string())?;
    Ok(format!(
        "# Written by `cargo run -p book -- releases` from the book's Cargo.toml, for Tokio {}\n# ({FILE}). Do not edit: it is rewritten.\n\n{body}",
        release.tokio
    ))
}

/// Downloads the crates the workspace's lock names unless cargo's cache has them all already
/// (freshness runs `cargo tree --offline`, which reads them).
fn fetch(dir: &Path) -> Result<(), String> {
    let lock = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap_or_default();
    if all_downloaded(&lock) {
        return Ok(());
    }
    cargo(dir, &["fetch", "--locked", "--quiet"])
}

/// Whether every registry crate of `lock` is in cargo's download cache.
fn all_downloaded(lock: &str) -> bool {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(cache) = home.map(|h| h.join("registry").join("cache")) else {
        return false;
    };
    let registries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    let Ok(doc) = lock.parse::<toml::Table>() else {
        return false;
    };
    doc.get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
        .filter(|p| p.get("checksum").is_some())
        .all(|p| {
            let name = p.get("name").and_then(|n| n.as_str()).unwrap_or_default();
            let version = p
                .get("version")
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            let file = format!("{name}-{version}.crate");
            registries.iter().any(|r| r.join(&file).is_file())
        })
}

fn cargo(dir: &Path, args: &[&str]) -> Result<(), String> {
    let bin = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(bin)
        .current_dir(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`cargo {}` in {} failed: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Makes `to` hold exactly the files of `from` (but a `target/` folder at its top), writing only
/// those that differ, so that cargo does not rebuild what did not change. A link is refused: a
/// crate's files are plain files and folders.
fn sync_dir(from: &Path, to: &Path) -> Result<(), String> {
    sync_tree(from, to, true)
}

fn sync_tree(from: &Path, to: &Path, top: bool) -> Result<(), String> {
    let err = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
    if to.is_file() {
        std::fs::remove_file(to).map_err(|e| err(to, e))?;
    }
    std::fs::create_dir_all(to).map_err(|e| err(to, e))?;
    let mut wanted = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(from).map_err(|e| err(from, e))? {
        let entry = entry.map_err(|e| err(from, e))?;
        let name = entry.file_name();
        if top && name == "target" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().map_err(|e| err(&src, e))?;
        if kind.is_symlink() {
            return Err(format!(
                "{}: a link; a release's workspace copies plain files only",
                src.display()
            ));
        } else if kind.is_dir() {
            sync_tree(&src, &dst, false)?;
        } else {
            if dst.is_dir() {
                std::fs::remove_dir_all(&dst).map_err(|e| err(&dst, e))?;
            }
            write_if_changed(&dst, &std::fs::read(&src).map_err(|e| err(&src, e))?)?;
        }
        wanted.insert(name);
    }
    for entry in std::fs::read_dir(to).map_err(|e| err(to, e))?.flatten() {
        let name = entry.file_name();
        if (top && name == "target") || wanted.contains(&name) {
            continue;
        }
        let path = entry.path();
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        gone.map_err(|e| err(&path, e))?;
    }
    Ok(())
}

/// Writes `bytes` to `path` (atomically: a build may be reading it) unless it holds them already.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let err = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    // A copy that can be made again needs no fsync, only a rename.
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_folder_names_its_machine_and_version() {
        assert_eq!(
            split_folder("intel-xeon-2c-tokio-1-38-2"),
            Some(("intel-xeon-2c", "1.38.2".to_string()))
        );
        assert_eq!(split_folder("intel-xeon-2c"), None);
        assert_eq!(split_folder("intel-xeon-2c-busy"), None);
        assert_eq!(split_folder("-tokio-1-38-2"), None);
        assert_eq!(split_folder("m-tokio-1-38"), None);
        assert_eq!(split_folder("m-tokio-1-38-x"), None);
        let release = Release {
            tokio: "1.38.2".into(),
            why: String::new(),
            crates: BTreeMap::new(),
            skip: BTreeMap::new(),
        };
        let folder = release.folder("intel-xeon-2c");
        assert_eq!(folder, "intel-xeon-2c-tokio-1-38-2");
        assert_eq!(split_folder(&folder).map(|(_, v)| v), Some(release.tokio));
    }

    /// A root with two listings and a matrix file.
    fn root_with(matrix: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for l in ["ch01-a", "ch02-b"] {
            let p = dir.path().join("listings").join(l);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("releases")).unwrap();
        std::fs::write(dir.path().join(FILE), matrix).unwrap();
        dir
    }

    #[test]
    fn a_matrix_names_exact_releases_once_and_skips_only_listings() {
        let ok = root_with(
            "[[release]]\ntokio = \"1.38.2\"\nwhy = \"LTS\"\nskip.ch02-b = \"needs 1.41\"\n",
        );
        let releases = load(ok.path()).unwrap();
        assert_eq!(releases[0].chapters(ok.path()).unwrap(), ["ch01-a"]);
        for (bad, says) in [
            ("tokio = \"1.38\"\nwhy = \"\"", "not an exact release"),
            (
                "tokio = \"1.38.2\"\nwhy = \"\"\nskip.ch09-z = \"\"",
                "no listing",
            ),
            ("tokio = \"1.38.2\"\nwhy = \"\"\nwhat = 1", "unknown field"),
        ] {
            let root = root_with(&format!("[[release]]\n{bad}\n"));
            let err = load(root.path()).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let order = root_with(
            "[[release]]\ntokio = \"1.43.4\"\nwhy = \"\"\n[[release]]\ntokio = \"1.38.2\"\nwhy = \"\"\n",
        );
        assert!(load(order.path()).unwrap_err().contains("oldest first"));
        let range = root_with(
            "[[release]]\ntokio = \"1.38.2\"\nwhy = \"\"\ncrates.x = { version = \"0.3\", why = \"\" }\n",
        );
        assert!(load(range.path()).unwrap_err().contains("exact version"));
        let twice = root_with(
            "[[release]]\ntokio = \"1.38.2\"\nwhy = \"\"\n[[release]]\ntokio = \"1.38.2\"\nwhy = \"\"\n",
        );
        assert!(load(twice.path()).unwrap_err().contains("listed twice"));
        assert!(find(ok.path(), "1.40.0").unwrap_err().contains("not in"));
    }

    #[test]
    fn the_manifest_pins_the_release_and_keeps_the_profiles() {
        let root = tempfile::tempdir().unwrap();
        let book = "[workspace]\nmembers = [\"listings/*\", \"tools/*\"]\n\n[workspace.dependencies]\nmeasure = { path = \"tools/measure\" }\nbook = { path = \"tools/book\" }\ntokio = { version = \"=1.54.1\", features = [\"rt\"] }\ntokio-metrics = \"=0.5.2\"\n\n[profile.dev]\nopt-level = 3\n";
        std::fs::write(root.path().join("Cargo.toml"), book).unwrap();
        let mut release = Release {
            tokio: "1.38.2".into(),
            why: String::new(),
            crates: BTreeMap::from([(
                "tokio-metrics".to_string(),
                Pin {
                    version: "=0.3.1".into(),
                    why: String::new(),
                },
            )]),
            skip: BTreeMap::new(),
        };
        let members = ["listings/ch01-a".to_string(), "tools/measure".to_string()];
        let text = manifest(root.path(), &release, &members).unwrap();
        let doc: toml::Table = text.parse().unwrap();
        let deps = &doc["workspace"]["dependencies"];
        assert_eq!(deps["tokio"]["version"].as_str(), Some("=1.38.2"));
        assert_eq!(deps["tokio"]["features"][0].as_str(), Some("rt"));
        assert_eq!(deps["tokio-metrics"].as_str(), Some("=0.3.1"));
        assert!(deps.get("measure").is_some());
        assert!(
            deps.get("book").is_none(),
            "a path outside the members is left out"
        );
        assert_eq!(
            crate::freshness::profiles_hash(&text).unwrap(),
            crate::freshness::profiles_hash(book).unwrap(),
            "the profiles hash as the book's"
        );
        release.crates.insert(
            "nothing-such".into(),
            Pin {
                version: "=1".into(),
                why: String::new(),
            },
        );
        assert!(
            manifest(root.path(), &release, &members)
                .unwrap_err()
                .contains("nothing-such")
        );
    }

    #[test]
    fn a_copy_holds_exactly_the_files_but_target() {
        let (from, to) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let write = |root: &Path, p: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        };
        write(from.path(), "src/main.rs");
        write(from.path(), "src/target/mod.rs");
        write(from.path(), "examples/was_a_file/x.rs");
        write(to.path(), "examples/was_a_file");
        write(from.path(), "target/debug/big");
        write(to.path(), "src/gone.rs");
        write(to.path(), "target/kept");
        sync_dir(from.path(), to.path()).unwrap();
        assert!(to.path().join("src/main.rs").is_file());
        assert!(
            to.path().join("src/target/mod.rs").is_file(),
            "only the crate's own target/ is left out"
        );
        assert!(
            to.path().join("examples/was_a_file/x.rs").is_file(),
            "a file that became a folder"
        );
        assert!(
            !to.path().join("src/gone.rs").exists(),
            "a file deleted since is removed"
        );
        assert!(
            !to.path().join("target/debug/big").exists(),
            "target/ is not copied"
        );
        assert!(
            to.path().join("target/kept").exists(),
            "the copy's own build stays"
        );
    }
}
