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
    /// Each chapter's set of release records: the commit that measured it, whether its records
    /// were measured with the same code, and each release measured, missing or skipped
    List {
        /// The machine whose records to look at [default: this one's name]
        #[arg(long, value_name = "NAME", value_parser = measure::cli::parse_machine_name)]
        machine: Option<String>,
    },
    /// Make releases/tokio-VERSION.lock from the book's Cargo.lock (Tokio and the release's
    /// pinned crates moved, the rest kept where cargo can)
    Lock { versions: Vec<String> },
    /// Build every release (or those named) in its own workspace, then measure what each chapter's
    /// set needs, chapter by chapter: its missing records, or the whole set where they would be
    /// measured with other code than its records (the set is compared release with release);
    /// a complete set is kept, and a chapter that fails stores nothing
    Run {
        /// Measure every release of the chapters again, complete sets too (the whole set, whatever
        /// versions are named)
        #[arg(long)]
        again: bool,
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
            again,
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
            let chosen = selected(root, &versions)?;
            let matrix = releases::load(root).map_err(anyhow::Error::msg)?;
            let mut todo = Vec::new();
            for name in listings
                .iter()
                .filter(|c| chapter.is_empty() || chapter.contains(c))
            {
                let plan = plan(root, &matrix, &chosen, &machine, name, again)?;
                println!("{name}: {}", plan.why);
                if !plan.releases.is_empty() {
                    todo.push((name.clone(), plan.releases));
                }
            }
            measure_matrix(root, &matrix, &machine, reps, &todo)
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

/// What `releases run` measures of one chapter's set on one machine, and why.
struct Plan {
    releases: Vec<String>,
    why: String,
}

/// The releases to measure `chapter` on: the missing ones of `chosen`, or the whole set (every
/// release of `matrix` that builds the chapter, whichever were chosen: a set is measured with
/// one code or not at all) where its records were measured with other code than the working
/// tree's, or disagree among themselves, or `again` asks for it.
fn plan(
    root: &Path,
    matrix: &[Release],
    chosen: &[Release],
    machine: &str,
    chapter: &str,
    again: bool,
) -> Result<Plan> {
    let set = releases::set(root, machine, chapter).map_err(anyhow::Error::msg)?;
    let builds = |rs: &[Release]| -> Vec<String> {
        rs.iter()
            .filter(|r| !r.skip.contains_key(chapter))
            .map(|r| r.tokio.clone())
            .collect()
    };
    let missing: Vec<String> = builds(chosen)
        .into_iter()
        .filter(|v| !set.iter().any(|(m, _)| m.tokio == *v))
        .collect();
    let problems = releases::set_problems(&set);
    let current = releases::set_is_current(root, &set).map_err(anyhow::Error::msg)?;
    let (releases, why) = if again {
        (
            builds(matrix),
            "measured again on every release, as asked".to_string(),
        )
    } else if !problems.is_empty() {
        (
            builds(matrix),
            format!("measured again whole: {}", problems.join("; ")),
        )
    } else if missing.is_empty() {
        (Vec::new(), set_line(&set, current))
    } else if set.is_empty() || current {
        let why = format!("measuring the missing {}", missing.join(", "));
        (missing, why)
    } else {
        (
            builds(matrix),
            "measured again whole: its records were measured with other code or crates than the working tree's, and a set must be measured with one".to_string(),
        )
    };
    Ok(Plan { releases, why })
}

/// "complete, measured at 8ab3ef92c4cf with the working tree's code; kept".
fn set_line(set: &releases::Set, current: bool) -> String {
    if set.is_empty() {
        return "nothing to measure".into();
    }
    format!(
        "{} release(s), measured at {} with {}; kept",
        set.len(),
        releases::set_commits(set).join(", "),
        if current {
            "the working tree's code"
        } else {
            "older code (valid as a set: every release measured with the same)"
        }
    )
}

fn list(root: &Path, machine: &str) -> Result<()> {
    let matrix = releases::load(root).map_err(anyhow::Error::msg)?;
    for chapter in releases::chapters(root).map_err(anyhow::Error::msg)? {
        let set = releases::set(root, machine, &chapter).map_err(anyhow::Error::msg)?;
        let problems = releases::set_problems(&set);
        let summary = if problems.is_empty() {
            set_line(
                &set,
                releases::set_is_current(root, &set).map_err(anyhow::Error::msg)?,
            )
        } else {
            format!("mixed: {}", problems.join("; "))
        };
        println!("{chapter}: {summary}");
        for release in &matrix {
            let shown = match release.skip.get(&chapter) {
                Some(why) => format!("skipped: {why}"),
                None if set.iter().any(|(r, _)| r.tokio == release.tokio) => "measured".into(),
                None => "not measured".into(),
            };
            println!("  Tokio {:<8} {shown}", release.tokio);
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

/// Builds every release's chapters that need measuring (`todo`: each chapter with its releases),
/// then measures them chapter by chapter, each chapter on every release one after the other (so
/// that a chapter's releases are measured close in time). A release that does not build, or a run
/// that fails, stores nothing and the rest go on; the error names them all.
fn measure_matrix(
    root: &Path,
    releases: &[Release],
    machine: &str,
    reps: u32,
    todo: &[(String, Vec<String>)],
) -> Result<()> {
    let here = measure::provenance::machine_here(None).cpu_model;
    for (chapter, _) in todo {
        same_processor(root, releases, machine, chapter, &here)?;
    }
    let mut failed = Vec::new();
    let mut built: Vec<(&Release, std::path::PathBuf, Vec<&str>)> = Vec::new();
    for release in releases {
        let chapters: Vec<&str> = todo
            .iter()
            .filter(|(_, on)| on.contains(&release.tokio))
            .map(|(c, _)| c.as_str())
            .collect();
        if chapters.is_empty() {
            continue;
        }
        println!(
            "== Tokio {}: building {}",
            release.tokio,
            chapters.join(", ")
        );
        if !release.lock_path(root).is_file() {
            bail!(
                "{} is missing: make it with `cargo run -p book -- releases lock {}` and commit it first",
                release.lock_path(root).display(),
                release.tokio
            );
        }
        let dir = releases::workspace(root, release).map_err(anyhow::Error::msg)?;
        let mut build = cargo(&dir);
        build.args(["build", "--locked", "--bins"]);
        for chapter in &chapters {
            build.args(["-p", chapter]);
        }
        if build.status().context("running cargo build")?.success() {
            built.push((release, dir, chapters));
        } else {
            failed.push(format!(
                "Tokio {} did not build (a chapter that cannot build on it belongs under `skip` in {}, with the reason)",
                release.tokio,
                releases::FILE
            ));
        }
    }
    for (chapter, _) in todo {
        for (release, dir, chapters) in &built {
            if !chapters.contains(&chapter.as_str()) {
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
            let out = measure::record::record_path(root, &folder, chapter);
            let status = cargo(dir)
                .args(["run", "-q", "--locked", "-p", chapter, "--"])
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
    let mut c = measure::cargo_command();
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
        .args(["listings", "tools", "Cargo.toml"])
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
