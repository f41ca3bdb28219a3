//! `cargo run -p course -- list | start NAME | check [NAME] | hint NAME | reset NAME`
//!
//! The workshop runner. Each exercise is done in a copy of its chapter's listing under
//! `course-work/NAME/` (git ignores it): `start` makes the copy and says which file to edit,
//! `check` runs the exercise's test on the copy, `hint` shows the next hint, `reset` puts the
//! copy back to the starting point. `list` shows every exercise and where it stands.

use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use course::{Checked, Exercise, Progress, Status, edited_file, exercises, find, make_copy};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Parser)]
#[command(
    name = "course",
    about = "The workshop's exercises: list, start, check, hint, reset."
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
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tools/course sits two levels down")
        .to_path_buf()
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
            for (i, e) in all.iter().enumerate() {
                let status = progress.status(root, e)?;
                println!(
                    "{:>2}. {:<18} {:<22} {} ({})",
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
            if !file.is_file() {
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
                let passed = check(root, e)?;
                let file = std::fs::read_to_string(edited_file(root, e))?;
                progress
                    .checked
                    .insert(e.name.clone(), Checked { passed, file });
                progress.save(root)?;
                println!("{}: {}", e.name, if passed { "passing" } else { "failing" });
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
    }
    Ok(0)
}

/// The exercise's test on the student's copy, in a target folder of the course's own.
fn check(root: &Path, e: &Exercise) -> Result<bool> {
    let copy = course::copy_dir(root, e);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["test", "-q", "--features", "start", "--test", &e.test])
        .arg("--manifest-path")
        .arg(copy.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/course"))
        .status()?;
    Ok(status.success())
}
