//! `book history` in a git repository of its own: a claim whose bound changed with no history
//! entry fails, in a commit and in the working tree; with its entry it passes; versions before
//! structured histories (`format = 2`) are not judged.

mod common;

use std::path::Path;
use std::process::Command;

const BEFORE: &str = r#"format = 2

[[claim]]
id = "stall"
says = "inline at least 5× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 5
"#;

const LOOSENED: &str = r#"format = 2

[[claim]]
id = "stall"
says = "inline at least 2× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 2
"#;

const RECORDED: &str = r#"format = 2

[[claim]]
id = "stall"
says = "inline at least 2× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 2

[[claim.history]]
date = "2026-12-01T10:00Z"
cause = "refuted"
figures = "3.5× on the reference record"
why = "the fix's own p99 moves with 10 ms jobs"
was = { says = "inline at least 5× the fix", at-least = 5, ratio = ["e/1/inline/p99", "e/1/fix/p99"] }
"#;

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn commit(root: &Path, claims: &str, message: &str) {
    std::fs::write(root.join("listings/ch09-x/claims.toml"), claims).unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("listings/ch09-x")).unwrap();
    std::fs::write(root.join("book.toml"), "[book]\ntitle = \"t\"\n").unwrap();
    std::fs::write(root.join("Cargo.toml"), "[workspace]\n").unwrap();
    git(root, &["init", "-q"]);
    // A version from before structured histories: not judged.
    commit(
        root,
        &BEFORE.replace("format = 2\n", ""),
        "claims without histories",
    );
    commit(root, BEFORE, "structured histories");
    dir
}

fn check(root: &Path) -> (bool, String) {
    common::run_book(root, &["history"])
}

#[test]
fn a_bound_changed_without_an_entry_fails_in_a_commit_and_in_the_working_tree() {
    let ws = repo();
    let root = ws.path();
    let (ok, out) = check(root);
    assert!(ok, "{out}");
    // Uncommitted.
    std::fs::write(root.join("listings/ch09-x/claims.toml"), LOOSENED).unwrap();
    let (ok, out) = check(root);
    assert!(!ok, "{out}");
    assert!(
        out.contains("listings/ch09-x/claims.toml, the working tree: `stall`: its bound, sentence changed with no new [[claim.history]] entry"),
        "{out}"
    );
    // Committed, and a later commit on top does not hide it.
    commit(root, LOOSENED, "loosen");
    std::fs::write(root.join("README"), "x").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "unrelated"]);
    let (ok, out) = check(root);
    assert!(!ok, "{out}");
    assert!(
        out.contains("listings/ch09-x/claims.toml, commit "),
        "{out}"
    );
}

#[test]
fn a_change_with_its_entry_passes() {
    let ws = repo();
    let root = ws.path();
    commit(root, RECORDED, "loosen, with its history");
    let (ok, out) = check(root);
    assert!(ok, "{out}");
    assert!(
        out.contains("every change to a claim has its history entry"),
        "{out}"
    );
}
