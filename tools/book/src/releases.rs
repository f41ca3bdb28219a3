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
    /// Build every release (or those named) in its own workspace and measure each chapter whose
    /// record is missing or stale; a fresh record is kept. A chapter that fails stores nothing
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
            refuse_uncommitted(root)?;
            let machine = machine.unwrap_or_else(this_machine);
            let mut failed = Vec::new();
            for release in selected(root, &versions)? {
                failed.extend(measure_release(root, &release, &machine, reps, &chapter)?);
            }
            if failed.is_empty() {
                Ok(())
            } else {
                bail!("failed, nothing stored for them: {}", failed.join(", "))
            }
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

/// Builds one release and measures its chapters that need it; returns the ones that failed.
fn measure_release(
    root: &Path,
    release: &Release,
    machine: &str,
    reps: u32,
    only: &[String],
) -> Result<Vec<String>> {
    println!("== Tokio {}", release.tokio);
    if !release.lock_path(root).is_file() {
        let path = releases::make_lock(root, release).map_err(anyhow::Error::msg)?;
        println!("made {}: commit it with the records", path.display());
    }
    let dir = releases::workspace(root, release).map_err(anyhow::Error::msg)?;
    let mut todo = Vec::new();
    for chapter in releases::chapters(root).map_err(anyhow::Error::msg)? {
        if !only.is_empty() && !only.contains(&chapter) {
            continue;
        }
        match state(root, release, machine, &chapter) {
            State::Fresh => println!("  {chapter}: fresh, kept"),
            State::Skipped(why) => println!("  {chapter}: skipped ({why})"),
            State::Missing => todo.push(chapter),
            State::Stale(why) => {
                println!("  {chapter}: stale ({why}), remeasured");
                todo.push(chapter);
            }
        }
    }
    if todo.is_empty() {
        return Ok(Vec::new());
    }
    let mut build = cargo(&dir);
    build.args(["build", "--locked", "--bins"]);
    for chapter in &todo {
        build.args(["-p", chapter]);
    }
    let status = build.status().context("running cargo build")?;
    if !status.success() {
        bail!(
            "Tokio {}: the build failed (a chapter that cannot build on it belongs under `skip` in {}, with the reason)",
            release.tokio,
            releases::FILE
        );
    }
    let folder = release.folder(machine);
    let mut failed = Vec::new();
    for chapter in todo {
        println!("  {chapter}: measuring, {reps} repetitions");
        let out = measure::record::record_path(root, &folder, &chapter);
        let status = cargo(&dir)
            .args(["run", "-q", "--locked", "-p", &chapter, "--"])
            .args(["--reps", &reps.to_string(), "--machine", &folder])
            .arg("--out")
            .arg(&out)
            .status()
            .context("running cargo run")?;
        if !status.success() {
            failed.push(format!("{chapter} on Tokio {}", release.tokio));
        }
    }
    Ok(failed)
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
        .args(["rust-toolchain.toml", "releases"])
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
