//! Freshness: a record is stale when anything that can change its measured values has changed
//! since it was measured. What can, each hashed on its own so that a stale record can say what
//! changed:
//!
//! | input | what is hashed |
//! |---|---|
//! | `listings/<chapter>` | its `Cargo.toml`, `build.rs` and every file under `src/`, `examples/`, `benches/`, and `go/` (a listing's Go program, built with the Go release `tools/measure-go` pins) |
//! | `tools/measure-core` | the same for the measuring core: the code that runs while a cell is measured (the runner and its interleaving, statistics, load generator, noise sampler, checksums, child processes, the runtime) |
//! | `Cargo.toml [profile] [workspace.package]` | the workspace manifest's profiles (how every listing is compiled; Chapter 7 compares two of them) and package settings (the edition every crate inherits) |
//! | `Cargo.lock, with features` | name, version, source and enabled features of every registry crate `cargo run -p <chapter>` builds, as `cargo tree` resolves them from the lock file: that build's normal and build dependencies, whichever manifest turned a feature on |
//! | `rust-toolchain.toml` | the pinned toolchain |
//!
//! Records made before 2026-12-04 keep `Cargo.toml [profile]` and `Cargo.lock` (versions and
//! sources, no features, no edition) and are judged by that rule ([`Rule`]).
//!
//! The boundary is a crate boundary. Two workspace crates every listing builds are outside it
//! ([`OUTSIDE`]): `measure` (the command line, the harness, provenance: what it decides, the
//! repetitions, the seed, the parameters, the cells that run, is written into the record, and
//! what it prints shapes no figure; the one exception, the noise sampler's first mark, is
//! named where the harness makes it) and `records` (it reads, judges and prints records once
//! their values are final; the medians it keeps beside the raw values are checked against them
//! whenever a record is read). So a change to help text, report wording, a verdict or the book's display
//! names leaves every record fresh, and a change to the timing loop stales every record it shaped.
//! Any other workspace crate a chapter builds is hashed like `tools/measure-core`.
//!
//! The lock file's own graph is the union over the whole workspace: a crate that one chapter adds
//! turns on features of shared crates (`futures-util`'s `io`, say), which adds their optional
//! dependencies to every package's graph there, though no other chapter builds them. So the lock
//! input is what `cargo tree -p <chapter>` resolves for that package alone, as `cargo run -p`
//! builds it (the workspace's resolver 3); it reads the lock without changing it (`--locked`).
//!
//! A record of the book's machines is fresh against the working tree. A record of the Tokio
//! release matrix is judged with the other records of its set instead (see
//! `crate::releases::set_problems`). Any other machine's record (a larger machine lent for one
//! session, a reader's or a student's run saved into `data/`) is a snapshot ([`is_snapshot`]):
//! nobody can measure it again when the listing moves on, so it stays valid as measured at its
//! commit, which must be clean, in the book's history and hold the code the record hashed, and
//! the pages that show it name what changed since ([`stale_inputs`]). The `-dirty` mark on a record's commit is computed over the
//! same paths as the hashes ([`shaping_paths`]).

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// The workspace crates that every listing builds and that cannot change a measured value: the
/// harness around the measuring core, and the judging crate (see the module's documentation).
pub const OUTSIDE: [&str; 2] = ["measure", "records"];
pub const TOOLCHAIN: &str = "rust-toolchain.toml";
/// The workspace manifest's build settings: its profiles, and (by [`Rule::WithFeatures`]) its
/// `[workspace.package]`, whose edition every crate inherits.
pub const PROFILES: &str = "Cargo.toml [profile]";
pub const SETTINGS: &str = "Cargo.toml [profile] [workspace.package]";
/// The registry crates the chapter builds: their versions, and (by [`Rule::WithFeatures`]) the
/// features each is built with, whichever manifest turned them on.
pub const LOCK: &str = "Cargo.lock";
pub const LOCK_FEATURES: &str = "Cargo.lock, with features";

/// How a record's inputs were hashed. Records made before 2026-12-04 hashed the crates' versions
/// and the profiles only ([`Rule::VersionsOnly`]), and are judged by that rule, as strictly as when
/// they were made; every record made since hashes the features and the edition too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    VersionsOnly,
    WithFeatures,
}

impl Rule {
    /// The rule a record's inputs were hashed by.
    pub fn of(inputs: &BTreeMap<String, String>) -> Rule {
        if inputs.contains_key(PROFILES) || inputs.contains_key(LOCK) {
            Rule::VersionsOnly
        } else {
            Rule::WithFeatures
        }
    }
}

/// Whether `input` is the lock file's, by either rule: it differs by design between the records
/// of a release set.
pub fn is_lock(input: &str) -> bool {
    input == LOCK || input == LOCK_FEATURES
}

/// Each input that shapes `chapter`'s runs, with its hash (see the module's table), as a record
/// made now keeps them.
pub fn inputs(root: &Path, chapter: &str) -> io::Result<BTreeMap<String, String>> {
    inputs_by(root, chapter, Rule::WithFeatures)
}

/// The inputs of `chapter` hashed by `rule`: what a record made by that rule is compared with.
pub fn inputs_by(root: &Path, chapter: &str, rule: Rule) -> io::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let listing = root.join("listings").join(chapter);
    if !listing.join("Cargo.toml").is_file() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no listing {}", listing.display()),
        ));
    }
    for dir in crate_dirs(root, chapter)? {
        let key = relative(root, &dir);
        out.insert(key, hash_crate(&dir)?);
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    let features = rule == Rule::WithFeatures;
    let built = registry_crates_built(root, &lock, chapter, features).map_err(io::Error::other)?;
    let built = short(built.join("\n").as_bytes());
    match rule {
        Rule::VersionsOnly => {
            out.insert(PROFILES.into(), profiles_hash(&manifest)?);
            out.insert(LOCK.into(), built);
        }
        Rule::WithFeatures => {
            out.insert(SETTINGS.into(), settings_hash(&manifest)?);
            out.insert(LOCK_FEATURES.into(), built);
        }
    }
    let toolchain = std::fs::read(root.join(TOOLCHAIN)).unwrap_or_default();
    out.insert(TOOLCHAIN.into(), short(&toolchain));
    Ok(out)
}

/// One hash over every input: what a record keeps as `build.listing_hash`.
pub fn combined(inputs: &BTreeMap<String, String>) -> String {
    let mut h = Sha256::new();
    for (k, v) in inputs {
        h.update(k.as_bytes());
        h.update([0]);
        h.update(v.as_bytes());
        h.update([0]);
    }
    hex(&h.finalize()[..8])
}

/// The inputs that differ between a record's and the tree's, by name ("tools/measure-core"):
/// every input when the record keeps none.
pub fn changed(recorded: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> Vec<String> {
    let keys: BTreeSet<&String> = recorded.keys().chain(now.keys()).collect();
    keys.into_iter()
        .filter(|k| recorded.get(*k) != now.get(*k))
        .cloned()
        .collect()
}

/// The inputs that shaped `mine` and differ from those that shaped `book` ("listings/ch01-blocking",
/// "tools/measure-core"), by name; empty when they match or either record predates per-input hashes
/// (then nothing can be said).
pub fn differing_inputs(mine: &crate::record::Record, book: &crate::record::Record) -> Vec<String> {
    let (mine, book) = (&mine.build.inputs, &book.build.inputs);
    if mine.is_empty() || book.is_empty() {
        return Vec::new();
    }
    if Rule::of(mine) != Rule::of(book) {
        // Hashed by two rules: only the inputs both keep can be compared.
        let common = |a: &BTreeMap<String, String>, b: &BTreeMap<String, String>| {
            a.iter()
                .filter(|(k, _)| b.contains_key(*k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<BTreeMap<_, _>>()
        };
        return changed(&common(book, mine), &common(mine, book));
    }
    changed(book, mine)
}

/// The files of `input` edited in `root`'s working tree, as `git diff --name-only HEAD` lists
/// them: the book's records are fresh at HEAD (its build checks that), so these are the edits
/// that made a run differ from the book's. The input's own name where git cannot tell (no git,
/// an edit already committed). Never fails.
pub fn changed_files(root: &Path, input: &str) -> Vec<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["diff", "--name-only", "HEAD", "--"])
        .args(input_paths(input))
        .output();
    let files: Vec<String> = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if files.is_empty() {
        vec![input.to_string()]
    } else {
        files
    }
}

/// The paths an input hashes ([`inputs`]): a crate's files that shape it, or one file.
fn input_paths(input: &str) -> Vec<String> {
    match input {
        PROFILES | SETTINGS => vec!["Cargo.toml".into()],
        LOCK | LOCK_FEATURES => vec![LOCK.into()],
        TOOLCHAIN => vec![input.into()],
        dir => CRATE_FILES.iter().map(|f| format!("{dir}/{f}")).collect(),
    }
}

/// Why a record is stale, with what to do about it; `None` when it is fresh or holds published
/// figures. A record of the book's machines is judged against the working tree
/// ([`stale_inputs`]), a release's with the other records of its set
/// (`crate::releases::set_staleness`). `Err` when the inputs cannot be hashed.
pub fn staleness(root: &Path, rec: &crate::record::Record) -> Result<Option<String>, String> {
    if rec.source.is_some() {
        return Ok(None);
    }
    if crate::releases::split_folder(&rec.machine.name).is_some() {
        return crate::releases::set_staleness(root, rec);
    }
    if is_snapshot(root, &rec.machine.name)? {
        return snapshot_problem(root, rec);
    }
    let changed = stale_inputs(root, rec)?;
    Ok((!changed.is_empty()).then(|| stale_advice(&rec.chapter, &changed)))
}

/// Whether `machine`'s records are snapshots: it is neither one of the book's machines (a
/// chapter's, or its busy twin) nor a release's folder. `Err` when the chapters' manifests cannot
/// be read.
pub fn is_snapshot(root: &Path, machine: &str) -> Result<bool, String> {
    if crate::releases::split_folder(machine).is_some() {
        return Ok(false);
    }
    let manifests = crate::chapter::all(root)?;
    Ok(!crate::chapter::book_machines(&manifests)
        .iter()
        .any(|m| m == machine || crate::chapter::busy_machine_of(m) == machine))
}

/// Why a snapshot cannot stand, or `None`: its commit must be clean (a run of edited code cannot
/// be rerun from the history), in the history of the book's `HEAD` (where a reader can check it
/// out), and hold the code the record says it measured ([`differs_from_commit`]). A tree without
/// git history has nothing to check against.
fn snapshot_problem(root: &Path, rec: &crate::record::Record) -> Result<Option<String>, String> {
    let commit = rec.build.commit.as_str();
    if commit.ends_with("-dirty") {
        return Ok(Some(format!(
            "a snapshot (not one of the book's machines) measured at {commit}, with uncommitted changes: nobody can rerun it from the history, so measure it again from a clean commit"
        )));
    }
    let git = |args: &[&str]| git_output(root, args).is_ok();
    if !git(&["rev-parse", "--git-dir"]) {
        return Ok(None);
    }
    if !git(&["merge-base", "--is-ancestor", commit, "HEAD"]) {
        return Ok(Some(format!(
            "a snapshot (not one of the book's machines) measured at commit {commit}, which is not in this book's history: fetch that commit, or measure it again"
        )));
    }
    let differ = differs_from_commit(root, rec)?;
    Ok((!differ.is_empty()).then(|| {
        format!(
            "a snapshot (not one of the book's machines) whose hashes of {} are not those of its commit {commit}: it was measured with other code than it names, so measure it again",
            differ.join(", ")
        )
    }))
}

/// The inputs a snapshot hashed that its commit's files do not give: each workspace crate, the
/// workspace manifest's settings and the toolchain, read from the commit with git. (The lock
/// input would need cargo to resolve that commit's workspace; it is left out.)
fn differs_from_commit(root: &Path, rec: &crate::record::Record) -> Result<Vec<String>, String> {
    let commit = rec.build.commit.as_str();
    let show = |path: &str| git_output(root, &["show", &format!("{commit}:{path}")]);
    let mut differ = Vec::new();
    for (key, recorded) in rec.build.inputs.iter().filter(|(k, _)| !is_lock(k)) {
        let then = match key.as_str() {
            PROFILES => profiles_hash(&String::from_utf8_lossy(&show("Cargo.toml")?)),
            SETTINGS => settings_hash(&String::from_utf8_lossy(&show("Cargo.toml")?)),
            TOOLCHAIN => Ok(short(&show(TOOLCHAIN).unwrap_or_default())),
            dir => Ok(hash_crate_at(root, commit, dir)?),
        }
        .map_err(|e| format!("{key} at {commit}: {e}"))?;
        if *recorded != then {
            differ.push(key.clone());
        }
    }
    Ok(differ)
}

/// [`hash_crate`] of the folder `dir` as the commit holds it.
fn hash_crate_at(root: &Path, commit: &str, dir: &str) -> Result<String, String> {
    let mut args = vec!["ls-tree", "-r", "--name-only", commit, "--"];
    let paths: Vec<String> = CRATE_FILES.iter().map(|f| format!("{dir}/{f}")).collect();
    args.extend(paths.iter().map(String::as_str));
    let listed = git_output(root, &args)?;
    let mut files = Vec::new();
    for path in String::from_utf8_lossy(&listed).lines() {
        let bytes = git_output(root, &["show", &format!("{commit}:{path}")])?;
        files.push((
            Path::new(path)
                .strip_prefix(dir)
                .unwrap_or(Path::new(path))
                .to_path_buf(),
            bytes,
        ));
    }
    Ok(hash_files(files))
}

/// What `git` prints on stdout, or its error.
fn git_output(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The inputs that changed in the working tree since a record of the book's machines, or a
/// snapshot, was measured (empty when it is fresh, or holds published figures). `Err` when the inputs cannot be
/// hashed, or for a release's record, which is judged with its set instead.
pub fn stale_inputs(root: &Path, rec: &crate::record::Record) -> Result<Vec<String>, String> {
    if rec.source.is_some() {
        return Ok(Vec::new());
    }
    if crate::releases::split_folder(&rec.machine.name).is_some() {
        return Err(format!(
            "{} is a release's record: it is judged with its set, not against the working tree",
            rec.machine.name
        ));
    }
    let now = inputs_by(root, &rec.chapter, Rule::of(&rec.build.inputs))
        .map_err(|e| format!("cannot hash what shapes {}: {e}", rec.chapter))?;
    if combined(&now) == rec.build.listing_hash {
        return Ok(Vec::new());
    }
    Ok(changed(&rec.build.inputs, &now))
}

/// What to do about a stale record of `chapter` whose `changed` inputs moved: remeasure, or undo
/// the edits (named by path) if they were only an experiment.
pub fn stale_advice(chapter: &str, changed: &[String]) -> String {
    let mut paths: Vec<&str> = changed
        .iter()
        .map(|c| match c.as_str() {
            PROFILES | SETTINGS => "Cargo.toml",
            LOCK_FEATURES => LOCK,
            other => other,
        })
        .collect();
    paths.dedup();
    let undo = if paths.is_empty() {
        String::new()
    } else {
        format!(
            ", or, if you were only trying something, undo your edits with `git checkout {}` (the course runner's copies under course-work/ leave the listings alone)",
            paths.join(" ")
        )
    };
    let what = format!("{} changed since this record was made", changed.join(", "));
    format!("{what}; rerun `cargo run -p {chapter} -- --save`{undo}")
}

/// The paths, relative to `root`, whose uncommitted changes make a run of `chapter` dirty: the
/// files [`inputs`] hashes, and no others (a listing's claims or tests shape no run).
pub fn shaping_paths(root: &Path, chapter: &str) -> Vec<String> {
    let dirs =
        crate_dirs(root, chapter).unwrap_or_else(|_| vec![root.join("listings").join(chapter)]);
    let mut paths = Vec::new();
    for dir in dirs {
        let dir = relative(root, &dir);
        paths.extend(CRATE_FILES.iter().map(|f| format!("{dir}/{f}")));
    }
    paths.extend(["Cargo.toml", LOCK, TOOLCHAIN].map(String::from));
    paths
}

/// What of a crate shapes what it compiles to: its manifest, build script and sources, and the
/// Go program a listing builds beside them (`go/`, measured in the same runs). A crate without one
/// of these hashes as before: a missing path adds nothing.
const CRATE_FILES: [&str; 6] = ["Cargo.toml", "build.rs", "src", "examples", "benches", "go"];

/// The folders of the workspace crates `chapter` builds: the listing itself, then every other
/// workspace package in its dependency graph but those [`OUTSIDE`] the boundary.
fn crate_dirs(root: &Path, chapter: &str) -> io::Result<Vec<PathBuf>> {
    let mut dirs = vec![root.join("listings").join(chapter)];
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    let packages = parse_lock(&lock).map_err(io::Error::other)?;
    let members = workspace_members(root)?;
    for name in closure(&packages, chapter).map_err(io::Error::other)? {
        let p = &packages[name];
        if p.source.is_none() && p.name != chapter && !OUTSIDE.contains(&p.name.as_str()) {
            match members.get(&p.name) {
                Some(dir) => dirs.push(dir.clone()),
                None => {
                    return Err(io::Error::other(format!(
                        "Cargo.lock names the workspace crate {} but no member folder has it",
                        p.name
                    )));
                }
            }
        }
    }
    dirs.sort();
    dirs.dedup();
    Ok(dirs)
}

/// The folders, relative to `root`, of every workspace crate `chapter` builds, itself and the
/// crates outside the boundary included: what a workspace must hold to build it (see [`crate::releases`]).
pub fn workspace_crates(root: &Path, chapter: &str) -> io::Result<Vec<String>> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    let packages = parse_lock(&lock).map_err(io::Error::other)?;
    let members = workspace_members(root)?;
    let mut dirs = Vec::new();
    for name in closure(&packages, chapter).map_err(io::Error::other)? {
        let p = &packages[name];
        if p.source.is_none() {
            let dir = members.get(&p.name).ok_or_else(|| {
                io::Error::other(format!("no workspace member is the crate {}", p.name))
            })?;
            dirs.push(relative(root, dir));
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// The files of a crate that shape what it compiles to.
pub fn hash_crate(dir: &Path) -> io::Result<String> {
    let mut paths = Vec::new();
    for f in CRATE_FILES {
        let path = dir.join(f);
        if path.is_file() {
            paths.push(path);
        } else {
            collect_files(&path, &mut paths)?;
        }
    }
    let mut files = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path)?;
        files.push((path.strip_prefix(dir).unwrap_or(&path).to_path_buf(), bytes));
    }
    Ok(hash_files(files))
}

/// One hash over files given by their paths relative to a crate's folder, in path order.
fn hash_files(mut files: Vec<(PathBuf, Vec<u8>)>) -> String {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    for (path, bytes) in &files {
        h.update(path.to_string_lossy().replace('\\', "/").as_bytes());
        h.update([0]);
        h.update(bytes);
        h.update([0]);
    }
    hex(&h.finalize()[..8])
}

/// The hash the `Cargo.toml [profile]` input gets from a manifest's text ([`Rule::VersionsOnly`]).
pub fn profiles_hash(manifest: &str) -> io::Result<String> {
    Ok(short(tables(manifest, &[&["profile"]])?.as_bytes()))
}

/// The hash of the build settings ([`SETTINGS`]): the profiles and `[workspace.package]`.
pub fn settings_hash(manifest: &str) -> io::Result<String> {
    Ok(short(
        tables(manifest, &[&["profile"], &["workspace", "package"]])?.as_bytes(),
    ))
}

/// Tables of a workspace manifest, each written out the same way whatever its layout or
/// comments; the profiles alone are written as they always were.
fn tables(manifest: &str, paths: &[&[&str]]) -> io::Result<String> {
    let doc: toml::Table = manifest
        .parse()
        .map_err(|e| io::Error::other(format!("Cargo.toml: {e}")))?;
    let mut out = String::new();
    for path in paths {
        let mut value = toml::Value::Table(doc.clone());
        for key in *path {
            value = value
                .get(key)
                .cloned()
                .unwrap_or(toml::Value::Table(Default::default()));
        }
        if !out.is_empty() {
            out.push_str(&format!("\n[{}]\n", path.join(".")));
        }
        out.push_str(&toml::to_string(&value).map_err(io::Error::other)?);
    }
    Ok(out)
}

/// A package of Cargo.lock.
#[derive(Debug)]
struct Package {
    name: String,
    version: String,
    source: Option<String>,
    dependencies: Vec<String>,
}

/// Packages keyed by "name version".
fn parse_lock(lock: &str) -> Result<BTreeMap<String, Package>, String> {
    let doc: toml::Table = lock.parse().map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut out = BTreeMap::new();
    for p in doc
        .get("package")
        .and_then(|p| p.as_array())
        .into_iter()
        .flatten()
    {
        let text = |k: &str| p.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let (Some(name), Some(version)) = (text("name"), text("version")) else {
            return Err("Cargo.lock: a package without name or version".into());
        };
        let dependencies = p
            .get("dependencies")
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_str().map(str::to_string))
            .collect();
        out.insert(
            format!("{name} {version}"),
            Package {
                name,
                version,
                source: text("source"),
                dependencies,
            },
        );
    }
    Ok(out)
}

/// "name version" of every package `root_package` builds, itself included.
fn closure<'p>(
    packages: &'p BTreeMap<String, Package>,
    root_package: &str,
) -> Result<Vec<&'p String>, String> {
    let resolve = |dep: &str| -> Result<&'p String, String> {
        // "name", "name version" or "name version (source)".
        let mut parts = dep.split(' ');
        let name = parts.next().unwrap_or_default();
        let version = parts.next();
        let matching: Vec<&String> = packages
            .iter()
            .filter(|(_, p)| p.name == name && version.is_none_or(|v| p.version == v))
            .map(|(k, _)| k)
            .collect();
        match matching[..] {
            [one] => Ok(one),
            [] => Err(format!("Cargo.lock: no package for dependency `{dep}`")),
            _ => Err(format!("Cargo.lock: dependency `{dep}` is ambiguous")),
        }
    };
    let start = resolve(root_package)?;
    let mut seen: BTreeSet<&String> = BTreeSet::from([start]);
    let mut todo = vec![start];
    while let Some(key) = todo.pop() {
        for dep in &packages[key].dependencies {
            let k = resolve(dep)?;
            if seen.insert(k) {
                todo.push(k);
            }
        }
    }
    Ok(seen.into_iter().collect())
}

/// "name version source" of every registry crate `cargo run -p <chapter>` builds, sorted: the
/// packages `cargo tree` lists for its normal and build dependencies, with their sources from the
/// lock file; with `features`, each followed by the features it is built with ("[default,fs]").
fn registry_crates_built(
    root: &Path,
    lock: &str,
    chapter: &str,
    features: bool,
) -> Result<Vec<String>, String> {
    let packages = parse_lock(lock)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--locked", "--offline", "--quiet", "-p", chapter])
        .args(["-e", "normal,build", "--prefix", "none", "-f", "{p} [{f}]"])
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo tree -p {chapter}` failed (build the workspace once, so that every crate is downloaded): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let mut built = BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // "name v1.2.3", then " (path)", " (proc-macro)" or " (*)" for one listed already.
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let version = version.strip_prefix('v').unwrap_or(version);
        let enabled = line
            .rfind('[')
            .and_then(|at| line[at..].find(']').map(|end| &line[at..at + end + 1]))
            .unwrap_or("[]");
        match packages.get(&format!("{name} {version}")) {
            Some(p) => {
                if let Some(source) = &p.source {
                    built.insert(if features {
                        format!("{} {} {source} {enabled}", p.name, p.version)
                    } else {
                        format!("{} {} {source}", p.name, p.version)
                    });
                }
            }
            None => {
                return Err(format!(
                    "cargo tree lists {name} {version}, which Cargo.lock does not"
                ));
            }
        }
    }
    Ok(built.into_iter().collect())
}

/// Package name → folder, for every workspace member.
fn workspace_members(root: &Path) -> io::Result<BTreeMap<String, PathBuf>> {
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))?
        .parse()
        .map_err(|e| io::Error::other(format!("Cargo.toml: {e}")))?;
    let patterns: Vec<String> = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    let mut out = BTreeMap::new();
    for pattern in patterns {
        // Members are folders or `folder/*`.
        let dirs: Vec<PathBuf> = match pattern.strip_suffix("/*") {
            Some(parent) => match std::fs::read_dir(root.join(parent)) {
                Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
                Err(_) => continue,
            },
            None => vec![root.join(&pattern)],
        };
        for dir in dirs {
            let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
                continue;
            };
            let name = text
                .parse::<toml::Table>()
                .ok()
                .and_then(|t| t.get("package")?.get("name")?.as_str().map(str::to_string));
            if let Some(name) = name {
                out.insert(name, dir);
            }
        }
    }
    Ok(out)
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn relative(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn short(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes)[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A workspace shaped like the book's, which cargo can resolve offline: a listing that builds
    /// the measurement library (the harness over the measuring core) and two registry crates, the
    /// judging crate beside them, another
    /// member that turns on a feature of a crate the listing also builds, a lock file, profiles
    /// and a toolchain. The registry crates are ones the book's own workspace has downloaded.
    pub(crate) fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        let package = |name: &str, deps: &str| {
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\n{deps}"
            )
        };
        write(
            "Cargo.toml",
            "[workspace]\nresolver = \"3\"\nmembers = [\"listings/*\", \"tools/*\"]\n\n[workspace.package]\nedition = \"2024\"\n\n# how listings build\n[profile.dev]\nopt-level = 3\n",
        );
        write("rust-toolchain.toml", "[toolchain]\nchannel = \"1.95.0\"\n");
        write(
            "listings/ch99-demo/Cargo.toml",
            &package(
                "ch99-demo",
                "measure = { path = \"../../tools/measure\" }\npin-project-lite = \"0.2\"\n\
                 futures-util = { version = \"=0.3.34\", default-features = false }\n",
            ),
        );
        write("listings/ch99-demo/src/main.rs", "fn main() {}");
        write("listings/ch99-demo/claims.toml", "");
        write(
            "tools/measure/Cargo.toml",
            &package(
                "measure",
                "measure-core = { path = \"../measure-core\" }\nrecords = { path = \"../records\" }\n",
            ),
        );
        write(
            "tools/measure/src/lib.rs",
            "/// Runs the chapter.\npub fn harness() {}",
        );
        write(
            "tools/measure-core/Cargo.toml",
            &package("measure-core", "records = { path = \"../records\" }\n"),
        );
        write("tools/measure-core/src/lib.rs", "pub fn run() {}");
        write("tools/records/Cargo.toml", &package("records", ""));
        write("tools/records/src/lib.rs", "pub fn judge() {}");
        write(
            "tools/other/Cargo.toml",
            &package(
                "other",
                "futures-util = { version = \"=0.3.34\", default-features = false, features = [\"io\"] }\n",
            ),
        );
        write("tools/other/src/lib.rs", "");
        cargo(root, &["generate-lockfile", "--offline"]);
        dir
    }

    /// Runs cargo in `root`, offline; panics with its output if it fails.
    pub(crate) fn cargo(root: &Path, args: &[&str]) {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cargo = std::process::Command::new(cargo);
        succeeded(cargo.current_dir(root).args(args), "cargo", args);
    }

    /// Runs `cmd` and returns its output; panics with its stderr if it fails.
    fn succeeded(cmd: &mut std::process::Command, what: &str, args: &[&str]) -> String {
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{what} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn edit(root: &Path, path: &str, from: &str, to: &str) {
        let p = root.join(path);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{path} has no `{from}`");
        std::fs::write(p, text.replace(from, to)).unwrap();
    }

    #[test]
    fn every_input_that_shapes_a_run_makes_its_record_stale() {
        let ws = workspace();
        let root = ws.path();
        let before = inputs(root, "ch99-demo").unwrap();
        assert_eq!(
            before.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                LOCK_FEATURES,
                SETTINGS,
                "listings/ch99-demo",
                TOOLCHAIN,
                "tools/measure-core"
            ]
        );
        let cases = [
            (
                "listings/ch99-demo/src/main.rs",
                "fn main() {}",
                "fn main() { loop {} }",
                "listings/ch99-demo",
            ),
            (
                "tools/measure-core/src/lib.rs",
                "run",
                "run_faster",
                "tools/measure-core",
            ),
            ("Cargo.toml", "opt-level = 3", "opt-level = 2", SETTINGS),
            (
                "Cargo.toml",
                "edition = \"2024\"",
                "edition = \"2021\"",
                SETTINGS,
            ),
            ("rust-toolchain.toml", "1.95.0", "1.96.0", TOOLCHAIN),
        ];
        for (path, from, to, input) in cases {
            edit(root, path, from, to);
            let now = inputs(root, "ch99-demo").unwrap();
            assert_ne!(combined(&before), combined(&now), "{path}");
            assert_eq!(changed(&before, &now), vec![input.to_string()], "{path}");
            edit(root, path, to, from);
            assert_eq!(
                combined(&before),
                combined(&inputs(root, "ch99-demo").unwrap())
            );
        }
        // A Go program beside the listing (`go/`), measured in the same runs: adding or editing
        // it stales the record; removed, the record is fresh again.
        let go = root.join("listings/ch99-demo/go/main.go");
        std::fs::create_dir_all(go.parent().unwrap()).unwrap();
        std::fs::write(&go, "package main\n\nfunc main() {}\n").unwrap();
        let now = inputs(root, "ch99-demo").unwrap();
        assert_eq!(
            changed(&before, &now),
            vec!["listings/ch99-demo".to_string()]
        );
        std::fs::write(&go, "package main\n\nfunc main() { for {} }\n").unwrap();
        assert_ne!(
            now,
            inputs(root, "ch99-demo").unwrap(),
            "an edit to the Go program"
        );
        std::fs::remove_dir_all(go.parent().unwrap()).unwrap();
        assert_eq!(before, inputs(root, "ch99-demo").unwrap());
        // A feature of a crate the listing builds, turned on by a manifest outside the boundary
        // (the harness's): that crate is built otherwise, so the record must say so.
        edit(
            root,
            "tools/measure/Cargo.toml",
            "records = { path = \"../records\" }\n",
            "records = { path = \"../records\" }\nfutures-util = { version = \"=0.3.34\", default-features = false, features = [\"io\"] }\n",
        );
        cargo(root, &["update", "--workspace", "--offline"]);
        let now = inputs(root, "ch99-demo").unwrap();
        assert_eq!(changed(&before, &now), vec![LOCK_FEATURES.to_string()]);
        // Undone, the record is fresh again.
        edit(
            root,
            "tools/measure/Cargo.toml",
            "futures-util = { version = \"=0.3.34\", default-features = false, features = [\"io\"] }\n",
            "",
        );
        cargo(root, &["update", "--workspace", "--offline"]);
        assert_eq!(before, inputs(root, "ch99-demo").unwrap());
        // Another version of a crate the listing builds, in the lock file only.
        let lock = std::fs::read_to_string(root.join(LOCK)).unwrap();
        let other = if lock.contains("pin-project-lite\"\nversion = \"0.2.18\"") {
            "0.2.17"
        } else {
            "0.2.18"
        };
        cargo(
            root,
            &[
                "update",
                "--offline",
                "-p",
                "pin-project-lite",
                "--precise",
                other,
            ],
        );
        // A fresh machine may not have that version yet: `cargo tree` runs offline.
        cargo(root, &["fetch"]);
        let now = inputs(root, "ch99-demo").unwrap();
        assert_eq!(changed(&before, &now), vec![LOCK_FEATURES.to_string()]);
    }

    #[test]
    fn a_record_made_by_the_older_rule_is_judged_by_it() {
        let ws = workspace();
        let root = ws.path();
        let old = inputs_by(root, "ch99-demo", Rule::VersionsOnly).unwrap();
        assert_eq!(Rule::of(&old), Rule::VersionsOnly);
        assert!(old.contains_key(LOCK) && old.contains_key(PROFILES));
        assert_eq!(
            Rule::of(&inputs(root, "ch99-demo").unwrap()),
            Rule::WithFeatures
        );
        // The edition is not among the old rule's inputs; the profiles are.
        edit(
            root,
            "Cargo.toml",
            "edition = \"2024\"",
            "edition = \"2021\"",
        );
        assert_eq!(
            old,
            inputs_by(root, "ch99-demo", Rule::VersionsOnly).unwrap()
        );
        edit(root, "Cargo.toml", "opt-level = 3", "opt-level = 2");
        assert_eq!(
            changed(
                &old,
                &inputs_by(root, "ch99-demo", Rule::VersionsOnly).unwrap()
            ),
            vec![PROFILES.to_string()]
        );
    }

    #[test]
    fn a_feature_another_member_turns_on_leaves_the_record_fresh() {
        let ws = workspace();
        let root = ws.path();
        let before = inputs(root, "ch99-demo").unwrap();
        // `other` turns on futures-util's `sink`: the lock file's graph of futures-util gains
        // futures-sink, which the listing does not build.
        edit(
            root,
            "tools/other/Cargo.toml",
            "features = [\"io\"]",
            "features = [\"io\", \"sink\"]",
        );
        cargo(root, &["generate-lockfile", "--offline"]);
        let lock = std::fs::read_to_string(root.join(LOCK)).unwrap();
        assert!(
            lock.contains("futures-sink"),
            "the lock file gained futures-sink"
        );
        assert_eq!(before, inputs(root, "ch99-demo").unwrap());
    }

    #[test]
    fn what_does_not_shape_a_run_leaves_its_record_fresh() {
        let ws = workspace();
        let root = ws.path();
        let before = combined(&inputs(root, "ch99-demo").unwrap());
        // The judging crate, the harness's help text, the claims, a comment in the manifest.
        edit(root, "tools/records/src/lib.rs", "judge", "judge_better");
        edit(
            root,
            "tools/measure/src/lib.rs",
            "Runs the chapter.",
            "Runs the chapter's experiments.",
        );
        edit(
            root,
            "listings/ch99-demo/claims.toml",
            "",
            "# a new claim\n",
        );
        edit(
            root,
            "Cargo.toml",
            "# how listings build",
            "# how every listing builds",
        );
        assert_eq!(before, combined(&inputs(root, "ch99-demo").unwrap()));
    }

    #[test]
    fn the_dirty_mark_covers_the_same_paths() {
        let ws = workspace();
        let paths = shaping_paths(ws.path(), "ch99-demo");
        assert_eq!(paths.len(), 2 * CRATE_FILES.len() + 3);
        assert!(
            paths.contains(&"listings/ch99-demo/src".to_string()),
            "{paths:?}"
        );
        assert!(
            paths.contains(&"tools/measure-core/build.rs".to_string()),
            "{paths:?}"
        );
        let shapes_nothing = |p: &String| {
            p.contains("claims.toml") || p.contains("tests") || p.starts_with("tools/measure/")
        };
        assert!(!paths.iter().any(shapes_nothing), "{paths:?}");
        assert_eq!(paths[paths.len() - 3..], ["Cargo.toml", LOCK, TOOLCHAIN]);
    }

    /// Runs git in `root`; panics with its output if it fails.
    fn git(root: &Path, args: &[&str]) -> String {
        let mut git = std::process::Command::new("git");
        git.arg("-C").arg(root);
        git.args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ]);
        succeeded(git.args(args), "git", args)
    }

    #[test]
    fn an_edited_input_is_named_by_its_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("listings/ch99-demo/src/main.rs", "fn main() {}");
        write("listings/ch99-demo/claims.toml", "");
        write("Cargo.toml", "[workspace]\n");
        git(root, &["init", "-q"]);
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "book"]);
        write("listings/ch99-demo/src/main.rs", "fn main() { loop {} }");
        write("listings/ch99-demo/claims.toml", "# claims shape no run");
        let listing = "listings/ch99-demo";
        assert_eq!(
            changed_files(root, listing),
            ["listings/ch99-demo/src/main.rs"]
        );
        assert_eq!(
            changed_files(root, PROFILES),
            [PROFILES],
            "nothing git sees: the input's name"
        );
        let not_git = tempfile::tempdir().unwrap();
        assert_eq!(changed_files(not_git.path(), listing), [listing]);
    }

    #[test]
    fn inputs_differ_only_where_both_records_have_them() {
        let book = crate::record::tests::sample();
        let mut mine = book.clone();
        assert!(
            differing_inputs(&mine, &book).is_empty(),
            "no hashes: nothing to say"
        );
        let hashes = |listing: &str| {
            BTreeMap::from([
                ("listings/ch00-test".to_string(), listing.to_string()),
                (LOCK.to_string(), "1".to_string()),
            ])
        };
        mine.build.inputs = hashes("a");
        assert!(differing_inputs(&mine, &book).is_empty());
        let mut book = book;
        book.build.inputs = hashes("a");
        assert!(differing_inputs(&mine, &book).is_empty());
        book.build.inputs = hashes("b");
        assert_eq!(differing_inputs(&mine, &book), ["listings/ch00-test"]);
    }

    #[test]
    fn a_snapshot_stays_valid_at_its_commit_and_names_what_changed_since() {
        let ws = workspace();
        let root = ws.path();
        std::fs::write(
            root.join("listings/ch99-demo/chapter.toml"),
            "title = \"Demo\"\npages = [\"ch99.md\"]\nmachine = \"book-vm\"\ncrates = [\"futures-util\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/ch99.md"), "# Demo\n").unwrap();
        git(root, &["init", "-q"]);
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", "book"]);
        let head = git(root, &["rev-parse", "--short=12", "HEAD"]);
        let measured_on = |machine: &str, commit: &str| {
            let mut rec = crate::record::Record::sketch("ch99-demo", machine, &[], &[]);
            rec.build.inputs = inputs(root, "ch99-demo").unwrap();
            rec.build.listing_hash = combined(&rec.build.inputs);
            rec.build.commit = commit.to_string();
            rec
        };
        let book = measured_on("book-vm", &head);
        let busy = measured_on("book-vm-busy", &head);
        let lent = measured_on("lent-16c", &head);
        let dirty = measured_on("lent-16c", &format!("{head}-dirty"));
        let elsewhere = measured_on("lent-16c", "0123456789ab");
        let mut forged = measured_on("lent-16c", &head);
        forged
            .build
            .inputs
            .insert("listings/ch99-demo".into(), "00000000".into());
        assert!(!is_snapshot(root, "book-vm").unwrap());
        assert!(!is_snapshot(root, "book-vm-busy").unwrap());
        assert!(is_snapshot(root, "lent-16c").unwrap());
        assert_eq!(staleness(root, &lent).unwrap(), None);

        edit(
            root,
            "listings/ch99-demo/src/main.rs",
            "fn main() {}",
            "fn main() { loop {} }",
        );
        assert!(staleness(root, &book).unwrap().is_some());
        assert!(staleness(root, &busy).unwrap().is_some());
        assert_eq!(
            staleness(root, &lent).unwrap(),
            None,
            "a snapshot at its commit"
        );
        assert_eq!(stale_inputs(root, &lent).unwrap(), ["listings/ch99-demo"]);
        let why = staleness(root, &dirty).unwrap().expect("a dirty snapshot");
        assert!(why.contains("uncommitted"), "{why}");
        let why = staleness(root, &elsewhere)
            .unwrap()
            .expect("a commit not here");
        assert!(why.contains("not in this book's history"), "{why}");
        let why = staleness(root, &forged)
            .unwrap()
            .expect("a record its commit does not give");
        assert!(
            why.contains("listings/ch99-demo are not those of its commit"),
            "{why}"
        );
    }

    #[test]
    fn a_stale_record_names_what_changed() {
        let a = BTreeMap::from([("x".to_string(), "1".to_string()), ("y".into(), "2".into())]);
        let mut b = a.clone();
        b.insert("y".into(), "3".into());
        assert_eq!(changed(&a, &b), vec!["y"]);
        assert_eq!(changed(&BTreeMap::new(), &b), vec!["x", "y"]);
    }
}
