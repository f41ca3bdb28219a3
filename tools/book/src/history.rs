//! `book history`: every change to a claim has its history entry. For each listing's
//! `claims.toml`, the working tree is compared with the last commit, and every commit that touched
//! the file with its parent, back to the first version with structured histories (`format = 2`);
//! a change without its entry fails, naming the commit and the claim
//! ([`measure::history::unrecorded_changes`]).

use anyhow::{Result, bail};
use measure::claims::Claims;
use std::path::Path;

/// From this hour, a claim new in a commit carries its `added` time and a new history entry its
/// time of day (the commits before wrote some without; the working tree always must).
const ADDED_REQUIRED_FROM: &str = "2026-12-04T10";

pub fn check(root: &Path) -> Result<()> {
    let git = |args: &[&str]| -> Result<Option<String>> { Ok(crate::git(root, args).ok()) };
    if git(&["rev-parse", "--git-dir"])?.is_none() {
        bail!(
            "{} is not a git checkout: the history check compares each claims.toml with its earlier versions",
            root.display()
        );
    }
    let mut files: Vec<String> = std::fs::read_dir(root.join("listings"))?
        .flatten()
        .map(|e| e.path().join("claims.toml"))
        .filter(|p| p.is_file())
        .filter_map(|p| {
            p.strip_prefix(root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    files.sort();
    let (mut pairs, mut problems) = (0, Vec::new());
    for file in &files {
        let parsed = |text: &str| Claims::parse(text).ok();
        let here = std::fs::read_to_string(root.join(file))?;
        let here = Claims::parse(&here).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        // The working tree against the last commit, then each commit against its parent.
        if let Some(old) = git(&["show", &format!("HEAD:{file}")])?
            .as_deref()
            .and_then(parsed)
        {
            pairs += 1;
            for p in measure::history::unrecorded_changes(&old, &here)
                .into_iter()
                .chain(measure::history::untimed(&old, &here))
            {
                problems.push(format!("{file}, the working tree: {p}"));
            }
        }
        let log = git(&[
            "log",
            "--format=%h %cI",
            "--first-parent",
            "HEAD",
            "--",
            file,
        ])?
        .unwrap_or_default();
        for line in log.lines() {
            let (commit, date) = line.split_once(' ').unwrap_or((line, ""));
            let version = |rev: String| -> Result<Option<Claims>> {
                Ok(git(&["show", &format!("{rev}:{file}")])?
                    .as_deref()
                    .and_then(parsed))
            };
            // Versions before structured histories end the walk.
            let (Some(new), Some(old)) = (
                version(commit.to_string())?,
                version(format!("{commit}~1"))?,
            ) else {
                break;
            };
            pairs += 1;
            let mut found = measure::history::unrecorded_changes(&old, &new);
            if date >= ADDED_REQUIRED_FROM {
                found.extend(measure::history::untimed(&old, &new));
            }
            for p in found {
                problems.push(format!("{file}, commit {commit}: {p}"));
            }
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            println!("FAIL {p}");
        }
        bail!(
            "{} change(s) to claims without a history entry (add a [[claim.history]] entry with the earlier version as `was`; see tools/records/src/history.rs)",
            problems.len()
        );
    }
    println!(
        "ok   {} claims files, {pairs} versions compared with the one before: every change to a claim has its history entry",
        files.len()
    );
    Ok(())
}
