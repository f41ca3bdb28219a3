//! `cargo run -p book -- releases`: builds and runs the Tokio release matrix
//! (`releases/releases.toml`, see `records::releases`), one record per chapter and release under
//! `data/<machine>-tokio-<version>/`.

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use measure::record::Record;
use records::releases::{self, Release};
use std::path::Path;
use std::process::Command;

#[derive(Subcommand)]
pub enum Releases {
    /// Each release and chapter: fresh, stale, missing or skipped (with the reason)
    List {
        /// The machine whose records to look at [default: this one's name]
        #[arg(long, value_name = "NAME", value_parser = measure::cli::parse_machine_name)]
        machine: Option<String>,
    },
    /// Make releases/tokio-VERSION.lock from the book's Cargo.lock (Tokio and the release's
    /// pinned crates moved, the rest kept where cargo can)
    Lock { versions: Vec<String> },
    /// Build every release (or those named) in its own workspace, then measure each chapter whose
    /// record is missing or stale on every release, chapter by chapter; a fresh record is kept,
    /// and a chapter that fails stores nothing
    Run {
        /// Repetitions of every experiment (5 is the fewest that give a verdict)
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(5..=1000))]
        reps: u32,
        /// This machine's name [default: CPU model and core count]
        #[arg(long, value_name = "NAME", value_parser = measure::cli::parse_machine_name)]
        machine: Option<String>,
        /// Only this chapter (repeatable)
        #[arg(long, value_name = "CHAPTER")]
        chapter: Vec<String>,
        /// Only these releases [default: all, in the file's order]
        versions: Vec<String>,
    },
}

pub fn run(root: &Path, cmd: Releases) -> Result<()> {
    match cmd {
        Releases::List { machine } => list(root, &machine.unwrap_or_else(this_machine)),
        Releases::Lock { versions } => {
            for release in selected(root, &versions)? {
                let path = releases::make_lock(root, &release).map_err(anyhow::Error::msg)?;
                println!("wrote {}", path.display());
            }
            Ok(())
        }
        Releases::Run {
            reps,
            machine,
            chapter,
            versions,
        } => {
            let listings = releases::chapters(root).map_err(anyhow::Error::msg)?;
            if let Some(c) = chapter.iter().find(|c| !listings.contains(c)) {
                bail!(
                    "--chapter {c}: no such listing (the listings are {})",
                    listings.join(", ")
                );
            }
            refuse_uncommitted(root)?;
            let machine = machine.unwrap_or_else(this_machine);
            measure_matrix(root, &selected(root, &versions)?, &machine, reps, &chapter)
        }
    }
}

fn this_machine() -> String {
    measure::provenance::machine_here(None).name
}

fn selected(root: &Path, versions: &[String]) -> Result<Vec<Release>> {
    let all = releases::load(root).map_err(anyhow::Error::msg)?;
    if versions.is_empty() {
        return Ok(all);
    }
    versions
        .iter()
        .map(|v| releases::find(root, v).map_err(anyhow::Error::msg))
        .collect()
}

/// What a chapter's record on a release is: fresh, or why it must be measured.
enum State {
    Fresh,
    Missing,
    Stale(String),
    Skipped(String),
}

fn state(root: &Path, release: &Release, machine: &str, chapter: &str) -> State {
    if let Some(why) = release.skip.get(chapter) {
        return State::Skipped(why.clone());
    }
    let path = measure::record::record_path(root, &release.folder(machine), chapter);
    if !path.is_file() {
        return State::Missing;
    }
    match Record::load(&path) {
        Err(e) => State::Stale(e.to_string()),
        Ok(rec) => match measure::freshness::stale_inputs(root, &rec) {
            Ok(changed) if changed.is_empty() => State::Fresh,
            Ok(changed) => State::Stale(format!("{} changed", changed.join(", "))),
            Err(e) => State::Stale(e),
        },
    }
}

fn list(root: &Path, machine: &str) -> Result<()> {
    for release in releases::load(root).map_err(anyhow::Error::msg)? {
        println!("Tokio {}: {}", release.tokio, release.why);
        for chapter in releases::chapters(root).map_err(anyhow::Error::msg)? {
            let shown = match state(root, &release, machine, &chapter) {
                State::Fresh => "fresh".to_string(),
                State::Missing => "not measured".to_string(),
                State::Stale(why) => format!("stale: {why}"),
                State::Skipped(why) => format!("skipped: {why}"),
            };
            println!("  {chapter:<18} {shown}");
        }
    }
    Ok(())
}

/// Refuses to add a chapter's records under `machine` on a processor other than the one its
/// records there were measured on: a chapter's releases are compared with each other, and a
/// session's machine can change between sittings while the name given to it stays.
fn same_processor(
    root: &Path,
    releases: &[Release],
    machine: &str,
    chapter: &str,
    here: &str,
) -> Result<()> {
    for release in releases {
        let path = measure::record::record_path(root, &release.folder(machine), chapter);
        if let Ok(rec) = Record::load(&path)
            && rec.machine.cpu_model != here
        {
            bail!(
                "{} was measured on the processor {:?}, and this machine's is {here:?}: measure {chapter} under another --machine name (one for this processor), or on that machine",
                path.display(),
                rec.machine.cpu_model
            );
        }
    }
    Ok(())
}

/// Builds every release's chapters that need measuring, then measures them chapter by chapter,
/// each chapter on every release one after the other (so that a chapter's releases are measured
/// close in time). A release that does not build, or a run that fails, stores nothing and the
/// rest go on; the error names them all.
fn measure_matrix(
    root: &Path,
    releases: &[Release],
    machine: &str,
    reps: u32,
    only: &[String],
) -> Result<()> {
    let here = measure::provenance::machine_here(None).cpu_model;
    for chapter in releases::chapters(root).map_err(anyhow::Error::msg)? {
        if only.is_empty() || only.contains(&chapter) {
            same_processor(root, releases, machine, &chapter, &here)?;
        }
    }
    let mut failed = Vec::new();
    let mut todo: Vec<(&Release, std::path::PathBuf, Vec<String>)> = Vec::new();
    for release in releases {
        println!("== Tokio {}", release.tokio);
        if !release.lock_path(root).is_file() {
            bail!(
                "{} is missing: make it with `cargo run -p book -- releases lock {}` and commit it first",
                release.lock_path(root).display(),
                release.tokio
            );
        }
        let dir = releases::workspace(root, release).map_err(anyhow::Error::msg)?;
        let mut chapters = Vec::new();
        for chapter in releases::chapters(root).map_err(anyhow::Error::msg)? {
            if !only.is_empty() && !only.contains(&chapter) {
                continue;
            }
            match state(root, release, machine, &chapter) {
                State::Fresh => println!("  {chapter}: fresh, kept"),
                State::Skipped(why) => println!("  {chapter}: skipped ({why})"),
                State::Missing => chapters.push(chapter),
                State::Stale(why) => {
                    println!("  {chapter}: stale ({why}), to be measured again");
                    chapters.push(chapter);
                }
            }
        }
        if chapters.is_empty() {
            continue;
        }
        let mut build = cargo(&dir);
        build.args(["build", "--locked", "--bins"]);
        for chapter in &chapters {
            build.args(["-p", chapter]);
        }
        if build.status().context("running cargo build")?.success() {
            todo.push((release, dir, chapters));
        } else {
            failed.push(format!(
                "Tokio {} did not build (a chapter that cannot build on it belongs under `skip` in {}, with the reason)",
                release.tokio,
                releases::FILE
            ));
        }
    }
    let mut order: Vec<String> = todo.iter().flat_map(|(_, _, c)| c.clone()).collect();
    order.sort();
    order.dedup();
    for chapter in order {
        for (release, dir, chapters) in &todo {
            if !chapters.contains(&chapter) {
                continue;
            }
            // The workspace copies the working tree: what shapes a run must still be committed.
            refuse_uncommitted(root)?;
            releases::workspace(root, release).map_err(anyhow::Error::msg)?;
            println!(
                "  {chapter} on Tokio {}: measuring, {reps} repetitions",
                release.tokio
            );
            let folder = release.folder(machine);
            let out = measure::record::record_path(root, &folder, &chapter);
            let status = cargo(dir)
                .args(["run", "-q", "--locked", "-p", &chapter, "--"])
                .args(["--reps", &reps.to_string(), "--machine", &folder])
                .arg("--out")
                .arg(&out)
                .status()
                .context("running cargo run")?;
            if !status.success() {
                failed.push(format!("{chapter} on Tokio {} failed", release.tokio));
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        bail!("nothing stored for these: {}", failed.join("; "))
    }
}

/// Cargo in a release's workspace, building into its own target folder.
fn cargo(dir: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"));
    c
}

/// A record names the commit it was measured at; the release's workspace is a copy of the
/// working tree, so what shapes a run must be committed.
fn refuse_uncommitted(root: &Path) -> Result<()> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain", "--"])
        .args(["listings", "tools/measure", "tools/records", "Cargo.toml"])
        .args([
            "rust-toolchain.toml",
            "releases/releases.toml",
            "releases/*.lock",
        ])
        .output()
        .context("running git status")?;
    let dirty = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !dirty.is_empty() {
        bail!(
            "commit these first (a release's records name the commit they were measured at):\n{dirty}"
        );
    }
    Ok(())
}
