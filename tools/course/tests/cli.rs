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

#[test]
fn the_rustlings_set_has_every_exercise_in_the_layout_rustlings_checks() {
    let work = tempfile::tempdir().unwrap();
    let set = work.path().join("set");
    let out = course(work.path(), &["rustlings", set.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let info: toml::Table =
        toml::from_str(&std::fs::read_to_string(set.join("info.toml")).unwrap()).unwrap();
    let exercises = info["exercises"].as_array().unwrap();
    let list = stdout(&course(work.path(), &["list"]));
    assert_eq!(
        exercises.len(),
        list.lines().filter(|l| l.contains(". ")).count()
    );
    let manifest = std::fs::read_to_string(set.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("\n[workspace]\n"),
        "a workspace of its own: {manifest}"
    );
    for e in exercises {
        let (name, dir) = (e["name"].as_str().unwrap(), e["dir"].as_str().unwrap());
        // rustlings 6 takes letters, digits and `_`, at most 32 of them, and a hint.
        let allowed = |s: &str| s.chars().all(|c| c.is_alphanumeric() || c == '_');
        assert!(
            allowed(name) && name.len() <= 32 && allowed(dir),
            "{name} {dir}"
        );
        assert!(!e["hint"].as_str().unwrap().trim().is_empty());
        let exercise =
            std::fs::read_to_string(set.join(format!("exercises/{dir}/{name}.rs"))).unwrap();
        let solution =
            std::fs::read_to_string(set.join(format!("solutions/{dir}/{name}.rs"))).unwrap();
        for needed in ["fn main()", "// TODO", "#[test]\n"] {
            assert!(exercise.contains(needed), "{name}: no `{needed}`");
        }
        assert_ne!(exercise.replace("// TODO", ""), solution, "{name}");
        for (bin, kind) in [
            (name.to_string(), "exercises"),
            (format!("{name}_sol"), "solutions"),
        ] {
            let entry = format!("  {{ name = \"{bin}\", path = \"{kind}/{dir}/{name}.rs\" }},\n");
            assert!(manifest.contains(&entry), "{entry}");
        }
    }

    let again = course(work.path(), &["rustlings", set.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("is not empty"));
}

#[test]
fn the_runner_works_on_the_checkout_it_is_run_in() {
    // Two clones that share a target folder run one build of the runner: the exercises must be
    // read from the checkout the student is in, not from the one the runner was built from.
    let other = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let p = other.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("Cargo.toml", "[workspace]\n");
    write("book.toml", "[book]\n");
    write("src/ch09-demo.md", "# Demo\n");
    write("course/crates/demo/src/start.rs", "pub fn demo() {}\n");
    write(
        "listings/ch09-demo/Cargo.toml",
        "[package]\nname = \"ch09-demo\"\n",
    );
    write(
        "listings/ch09-demo/chapter.toml",
        "title = \"Demo\"\npages = [\"ch09-demo.md\"]\nmachine = \"m\"\ncrates = [\"tokio\"]\n\n\
         [[exercise]]\nname = \"only-in-this-clone\"\n\
         dir = \"course/crates/demo\"\ntitle = \"A demo\"\nedit = \"src/start.rs\"\n\
         test = \"exercise\"\nsolution = \"src/solution.rs\"\nhints = [\"one\"]\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_course"))
        .arg("list")
        .current_dir(other.path().join("course/crates"))
        .env("COURSE_WORK", other.path().join("work"))
        .output()
        .unwrap();
    let list = stdout(&out);
    assert!(
        list.contains("only-in-this-clone") && !list.contains("shed-load"),
        "{list}"
    );
}
