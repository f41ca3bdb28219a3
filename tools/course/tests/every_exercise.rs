//! Every exercise through the runner both ways, as a student goes: `start` makes a copy (without
//! the solution), `check` fails on it as a test (not as a build error), the solution written in,
//! `check` passes, and `reset` brings the start back. Then a compile error and a broken manifest,
//! each told apart from a failing test. This builds every exercise twice, minutes on two cores,
//! so `scripts/test.sh` runs it as a step of its own:
//! `cargo test -p course --test every_exercise -- --ignored`.

use course::{Exercise, exercises};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The copies' folder: the same on every run, so that their build (kept beside them) is reused;
/// each test's copies are removed first, so no edit of an earlier run survives.
fn work_dir(names: &[&str]) -> PathBuf {
    let work = root().join("target/course-test-work");
    for name in names {
        let copy = work.join(name);
        if copy.exists() {
            std::fs::remove_dir_all(&copy).unwrap();
        }
    }
    let _ = std::fs::remove_file(work.join("progress.json"));
    work
}

fn course(work: &Path, args: &[&str]) -> Output {
    let began = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_course"))
        .args(args)
        .env("COURSE_WORK", work)
        // The copies' builds without debug information: what passes or fails is the same, and
        // thirty-odd builds of every chapter's dependencies and binaries compile and link sooner.
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .output()
        .unwrap();
    // With --nocapture (scripts/test.sh), where CI's minutes go: a build is most of a check.
    eprintln!(
        "course {}: {} ({:.1} s)",
        args.join(" "),
        out.status,
        began.elapsed().as_secs_f64()
    );
    out
}

fn said(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn edited(work: &Path, e: &Exercise) -> PathBuf {
    work.join(&e.name).join(&e.edit)
}

#[test]
#[ignore = "builds every exercise twice; scripts/test.sh runs it as a step of its own"]
fn every_exercise_fails_from_its_start_and_passes_with_its_solution() {
    let root = root();
    let all = exercises(&root).unwrap();
    let work = &work_dir(&all.iter().map(|e| e.name.as_str()).collect::<Vec<_>>());
    for e in all {
        let start = std::fs::read_to_string(e.crate_dir(&root).join(&e.edit)).unwrap();
        assert!(
            course(work, &["start", &e.name]).status.success(),
            "{}",
            e.name
        );
        if let Some(solution) = e.solution_file() {
            assert!(
                !work.join(&e.name).join(solution).exists(),
                "{}: the copy holds the solution",
                e.name
            );
        }

        let out = course(work, &["check", &e.name]);
        assert_eq!(out.status.code(), Some(1), "{}: {}", e.name, said(&out));
        let failing = format!("{}: failing", e.name);
        assert!(said(&out).contains(&failing), "{}: {}", e.name, said(&out));

        std::fs::write(edited(work, &e), e.solved_file(&root).unwrap()).unwrap();
        let out = course(work, &["check", &e.name]);
        assert!(
            out.status.success(),
            "{}: the solution fails: {}",
            e.name,
            said(&out)
        );
        assert!(
            said(&out).contains(&format!("{}: passing", e.name)),
            "{}",
            said(&out)
        );

        assert!(course(work, &["reset", &e.name]).status.success());
        assert_eq!(
            std::fs::read_to_string(edited(work, &e)).unwrap(),
            start,
            "{}",
            e.name
        );
    }
}

#[test]
#[ignore = "builds an exercise; scripts/test.sh runs it as a step of its own"]
fn a_compile_error_and_a_broken_manifest_are_not_called_failing() {
    let root = root();
    let work = &work_dir(&["offload-cpu-work"]);
    let all = exercises(&root).unwrap();
    let e = all.iter().find(|e| e.name == "offload-cpu-work").unwrap();
    assert!(course(work, &["start", &e.name]).status.success());

    let start = std::fs::read_to_string(edited(work, e)).unwrap();
    std::fs::write(edited(work, e), format!("{start}\nfn broken( {{\n")).unwrap();
    let out = course(work, &["check", &e.name]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        said(&out).contains("offload-cpu-work: does not compile"),
        "{}",
        said(&out)
    );
    let list = said(&course(work, &["list"]));
    assert!(list.contains("does not compile"), "{list}");

    assert!(course(work, &["reset", &e.name]).status.success());
    let manifest = work.join(&e.name).join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("version = \"=", "version = \"=0.0.0-nothing-"),
    )
    .unwrap();
    let out = course(work, &["check", &e.name]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        said(&out).contains("offload-cpu-work: could not build"),
        "{}",
        said(&out)
    );
}
