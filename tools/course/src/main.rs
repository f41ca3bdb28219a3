//! `cargo run -p course -- list | start NAME | check [NAME] | hint NAME | reset NAME | rustlings DIR`
//!
//! The workshop runner. Each exercise is done in a copy of its chapter's listing under
//! `course-work/NAME/` (git ignores it): `start` makes the copy and says which file to edit,
//! `check` runs the exercise's test on the copy, `hint` shows the next hint, `reset` puts the
//! copy back to the starting point. `list` shows every exercise and where it stands.
//! `rustlings DIR` writes the same exercises as a rustlings exercise set.

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use course::{Checked, Exercise, Progress, Status, edited_file, exercises, find, make_copy};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Parser)]
#[command(
    name = "course",
    about = "The workshop's exercises: list, start, check, hint, reset; or all of them as a rustlings exercise set."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Every exercise, with its status (not started, changed, failing, passing).
    List,
    /// Makes your copy of the exercise (if there is none) and prints the file to edit.
    Start { name: String },
    /// Runs the exercise's test on your copy; without a name, every started exercise.
    Check { name: Option<String> },
    /// Shows the next hint (each call, one more).
    Hint { name: String },
    /// Puts your copy back to the starting point (your edits are lost).
    Reset { name: String },
    /// Writes every exercise, its hints and its solution as a rustlings exercise set in DIR (a
    /// new or empty folder): `cd DIR && rustlings`.
    Rustlings { dir: PathBuf },
}

/// The checkout the student is in: the nearest folder above the current one that holds the
/// book (`book.toml`, `Cargo.toml` and `listings/`), else the one this runner was built from. (Two clones that share a
/// target folder run one build of the runner: the place it was built from may be the other.)
fn root() -> PathBuf {
    let here = std::env::current_dir().ok();
    let found = here.iter().flat_map(|d| d.ancestors()).find(|d| {
        d.join("book.toml").is_file()
            && d.join("Cargo.toml").is_file()
            && d.join("listings").is_dir()
    });
    found.map(Path::to_path_buf).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("tools/course sits two levels down")
            .to_path_buf()
    })
}

fn main() {
    let cli = Cli::parse();
    let root = root();
    let code = match run(&root, cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}

fn run(root: &Path, command: Cmd) -> Result<i32> {
    let all = exercises(root)?;
    let mut progress = Progress::load(root)?;
    match command {
        Cmd::List => {
            let width = all.iter().map(|e| e.name.len()).max().unwrap_or(0);
            for (i, e) in all.iter().enumerate() {
                let status = progress.status(root, e)?;
                println!(
                    "{:>2}. {:<width$} {:<22} {} ({})",
                    i + 1,
                    e.name,
                    status.text(),
                    e.title,
                    e.chapter
                );
            }
            println!("\n`cargo run -p course -- start NAME` to begin one.");
            println!(
                "Each chapter's \"Try this\" also asks you to predict, then measure: \
                 `cargo run -p CHAPTER -- --filter EXPERIMENT --reps 1`, answered by the claims report at its end."
            );
        }
        Cmd::Start { name } => {
            let e = find(&all, &name)?;
            let file = edited_file(root, e);
            if file.is_file() {
                let edited = progress.status(root, e)? != Status::NotStarted;
                println!(
                    "Your copy was already there{} (`cargo run -p course -- reset {}` starts over).",
                    if edited {
                        ": your edits are kept"
                    } else {
                        ", unchanged"
                    },
                    e.name
                );
            } else {
                make_copy(root, e)?;
            }
            println!("{}: {}", e.name, e.title);
            println!("edit    {}", file.display());
            println!("check   cargo run -p course -- check {}", e.name);
            println!("stuck?  cargo run -p course -- hint {}", e.name);
        }
        Cmd::Check { name } => {
            let chosen: Vec<&Exercise> = match &name {
                Some(n) => vec![find(&all, n)?],
                None => all
                    .iter()
                    .filter(|e| edited_file(root, e).is_file())
                    .collect(),
            };
            if chosen.is_empty() {
                bail!("no exercise started yet: `cargo run -p course -- start NAME`");
            }
            let mut failed = 0;
            for e in chosen {
                if !edited_file(root, e).is_file() {
                    bail!(
                        "`{}` is not started: `cargo run -p course -- start {}`",
                        e.name,
                        e.name
                    );
                }
                let status = check(root, e)?;
                let file = std::fs::read_to_string(edited_file(root, e))?;
                let passed = status == Status::Passing;
                let not_built = matches!(status, Status::DoesNotCompile | Status::CouldNotBuild);
                let not_built = not_built.then_some(status);
                let checked = Checked {
                    passed,
                    file,
                    not_built,
                };
                progress.checked.insert(e.name.clone(), checked);
                progress.save(root)?;
                println!("{}: {}", e.name, verdict(e, status));
                failed += usize::from(!passed);
            }
            return Ok(i32::from(failed > 0));
        }
        Cmd::Hint { name } => {
            let e = find(&all, &name)?;
            let shown = progress.hints_shown.get(&e.name).copied().unwrap_or(0);
            let next = shown.min(e.hints.len().saturating_sub(1));
            for (i, hint) in e.hints.iter().enumerate().take(next + 1) {
                println!("hint {}/{}: {hint}", i + 1, e.hints.len());
            }
            if next + 1 == e.hints.len() {
                println!("(that is every hint; the chapter's solution is behind \"A solution\")");
            }
            progress.hints_shown.insert(e.name.clone(), next + 1);
            progress.save(root)?;
        }
        Cmd::Reset { name } => {
            let e = find(&all, &name)?;
            let copy = make_copy(root, e)?;
            progress.checked.remove(&e.name);
            progress.hints_shown.remove(&e.name);
            progress.save(root)?;
            println!(
                "{}: back to the starting point in {}",
                e.name,
                copy.display()
            );
            debug_assert_eq!(progress.status(root, e)?, Status::NotStarted);
        }
        Cmd::Rustlings { dir } => {
            course::rustlings::write_set(root, &all, &dir)?;
            println!("{} exercises written to {}.", all.len(), dir.display());
            println!(
                "Build them first (minutes; rustlings shows nothing while it builds): \
                 `cd {} && cargo test --no-run && cargo clippy --profile test`, then `rustlings` \
                 (`cargo install --locked rustlings`; the set was checked with rustlings 6.5.0).",
                dir.display()
            );
        }
    }
    Ok(0)
}

/// A check's outcome in a line, with where to look.
fn verdict(e: &Exercise, status: Status) -> String {
    match status {
        Status::Passing => "passing".into(),
        Status::Failing => "failing (the test's message is above)".into(),
        Status::DoesNotCompile => "does not compile (the compiler's errors are above)".into(),
        Status::CouldNotBuild => format!(
            "could not build (cargo's error is above; `cargo run -p course -- reset {}` \
             brings back the copy's Cargo.toml, and your edits are lost)",
            e.name
        ),
        other => other.text().into(),
    }
}

/// The exercise's test on the student's copy, in the copies' own target folder: built
/// first, so that a compile error is told apart from a failing test, then run with backtraces
/// off, so that the test's own message comes first.
fn check(root: &Path, e: &Exercise) -> Result<Status> {
    let built = cargo_test(root, e)
        .arg("--no-run")
        .stderr(Stdio::piped())
        .spawn()?;
    let (status, errors) = echoed_stderr(built)?;
    if !status.success() {
        let package = e.crate_ident(root)?.replace('_', "-");
        let ours = errors.contains(&format!("could not compile `{package}`"));
        return Ok(if ours {
            Status::DoesNotCompile
        } else {
            Status::CouldNotBuild
        });
    }
    let ran = cargo_test(root, e).env("RUST_BACKTRACE", "0").status()?;
    Ok(if ran.success() {
        Status::Passing
    } else {
        Status::Failing
    })
}

fn cargo_test(root: &Path, e: &Exercise) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["test", "-q", "--features", "start", "--test", &e.test])
        .arg("--manifest-path")
        .arg(course::copy_dir(root, e).join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", course::target_dir(root));
    cmd
}

/// Waits for `child`, passing its stderr through as it comes and keeping a copy.
fn echoed_stderr(mut child: std::process::Child) -> Result<(std::process::ExitStatus, String)> {
    let mut kept = String::new();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let line = line?;
            eprintln!("{line}");
            kept.push_str(&line);
            kept.push('\n');
        }
    }
    Ok((child.wait()?, kept))
}
