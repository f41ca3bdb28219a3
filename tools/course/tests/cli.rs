//! The runner from the command line: an unknown exercise is refused with the names there are; a
//! started copy can be edited and reset; the statuses follow. Copies go to a temporary folder
//! (`COURSE_WORK`), never into the repository.

use std::path::Path;
use std::process::{Command, Output};

fn course(work: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_course"))
        .args(args)
        .env("COURSE_WORK", work)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn line_of<'a>(list: &'a str, name: &str) -> &'a str {
    list.lines().find(|l| l.contains(name)).unwrap_or_default()
}

#[test]
fn an_unknown_exercise_is_refused_with_the_names() {
    let work = tempfile::tempdir().unwrap();
    for cmd in ["start", "hint", "reset", "check"] {
        let out = course(work.path(), &[cmd, "make-it-fast"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no exercise `make-it-fast`") && err.contains("shed-load"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn a_copy_is_edited_and_reset_to_its_start() {
    let work = tempfile::tempdir().unwrap();
    let list = stdout(&course(work.path(), &["list"]));
    assert!(
        line_of(&list, "shed-load").contains("not started"),
        "{list}"
    );

    let out = course(work.path(), &["start", "shed-load"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = work.path().join("shed-load/src/exercise/start.rs");
    let start = std::fs::read_to_string(&file).unwrap();
    let manifest = std::fs::read_to_string(work.path().join("shed-load/Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("workspace = true") && manifest.contains("[workspace]"),
        "{manifest}"
    );

    std::fs::write(&file, format!("{start}\n// my attempt\n")).unwrap();
    let list = stdout(&course(work.path(), &["list"]));
    assert!(line_of(&list, "shed-load").contains("changed"), "{list}");

    let out = course(work.path(), &["reset", "shed-load"]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), start);
    let list = stdout(&course(work.path(), &["list"]));
    assert!(
        line_of(&list, "shed-load").contains("not started"),
        "{list}"
    );
}

#[test]
fn hints_come_one_more_at_a_time() {
    let work = tempfile::tempdir().unwrap();
    let first = stdout(&course(work.path(), &["hint", "shed-load"]));
    assert!(
        first.contains("hint 1/2") && !first.contains("hint 2/2"),
        "{first}"
    );
    let second = stdout(&course(work.path(), &["hint", "shed-load"]));
    assert!(
        second.contains("hint 2/2") && second.contains("every hint"),
        "{second}"
    );
}

#[test]
fn check_before_start_says_how_to_start() {
    let work = tempfile::tempdir().unwrap();
    let out = course(work.path(), &["check", "shed-load"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("course -- start shed-load"));
}

#[test]
fn an_exercise_in_a_crate_of_its_own_is_copied_from_there() {
    let work = tempfile::tempdir().unwrap();
    let out = course(work.path(), &["start", "scope-the-guard"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let start = work.path().join("scope-the-guard/src/start.rs");
    assert!(
        std::fs::read_to_string(start)
            .unwrap()
            .contains("pub async fn visit")
    );
}
