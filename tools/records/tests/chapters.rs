//! Every chapter's claims judged on the chapter's record from the book's machine, as measured.
//!
//! Each listing with a `claims.toml` is found under `listings/`, and its record is read from
//! `data/<the chapter's machine>/<chapter>.json` (the `machine` of its manifest,
//! `listings/<chapter>/chapter.toml`). On that record every conclusion is held and
//! every invariant holds; and records derived from it by moving a claim's figures past its bound
//! (`records::claims::fixtures`) show that each conclusion can be refuted and can be left not
//! shown, and that each invariant breaks on one bad repetition: a claim no record can fail says
//! nothing. A new claim needs no test of its own; this one judges it on the real data.
//!
//! The build (`cargo run -p book -- build`) and `cargo run -p book -- check` judge the same
//! records; this test adds the records that fail each claim.

use records::claims::{Claims, Verdict, fixtures};
use records::record::{Record, record_path, reference_machine};
use std::path::{Path, PathBuf};

/// One chapter: its claims and the record they are judged on.
struct Chapter {
    name: String,
    machine: String,
    claims: Claims,
    record: Record,
}

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Every listing under `listings/` with a `claims.toml`, sorted, each with its reference record;
/// an error for each that cannot be read, naming the chapter.
fn chapters() -> (Vec<Chapter>, Vec<String>) {
    let root = root();
    let listings = root.join("listings");
    let mut names: Vec<String> = std::fs::read_dir(&listings)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", listings.display()))
        .flatten()
        .filter(|e| e.path().join("claims.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for name in names {
        match chapter(&root, &name) {
            Ok(c) => found.push(c),
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    (found, errors)
}

fn chapter(root: &Path, name: &str) -> Result<Chapter, String> {
    let claims = Claims::load(&root.join("listings").join(name))?;
    let machine = reference_machine(root, name)
        .ok_or("has no readable manifest (listings/<chapter>/chapter.toml) to name its machine")?;
    let path = record_path(root, &machine, name);
    let record = Record::load(&path).map_err(|e| {
        format!(
            "has claims but no record from its reference machine {machine} to judge them on ({e}): measure it there with `cargo run -p {name} -- --save`"
        )
    })?;
    Ok(Chapter {
        name: name.to_string(),
        machine,
        claims,
        record,
    })
}

/// The chapters, or a panic listing every one that could not be read.
fn loaded() -> Vec<Chapter> {
    let (found, errors) = chapters();
    assert!(
        errors.is_empty(),
        "chapters whose claims cannot be judged:\n  {}",
        errors.join("\n  ")
    );
    found
}

/// Runs one part of the test on every chapter, and fails with every shortfall, each line naming
/// the chapter and the claim.
fn every_chapter(part: fn(&Claims, &Record) -> Vec<String>) {
    let mut failures = Vec::new();
    for c in loaded() {
        for line in part(&c.claims, &c.record) {
            failures.push(format!("{} on {}: {line}", c.name, c.machine));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problem(s):\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn every_listing_has_claims_and_a_record_to_judge_them_on() {
    let chapters = loaded();
    // Found where the listings are: every listing package has its claims, and each claims
    // something, so that the tests below cannot pass on nothing.
    let listings: Vec<String> = std::fs::read_dir(root().join("listings"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    assert!(
        !listings.is_empty(),
        "no listings under {}",
        root().display()
    );
    for l in &listings {
        assert!(
            chapters.iter().any(|c| &c.name == l),
            "{l}: a listing with no claims.toml (every chapter states its conclusions there; src/contributing.md, \"Claims\")"
        );
    }
    for c in &chapters {
        assert!(
            c.claims.conclusions().count() > 0,
            "{}: claims.toml holds no conclusion",
            c.name
        );
        assert_eq!(
            c.record.chapter, c.name,
            "{}: the record of another chapter",
            c.name
        );
        assert!(
            !c.record.quick,
            "{}: a --quick record on the book's machine",
            c.name
        );
    }
    let invariants: usize = chapters.iter().map(|c| c.claims.invariants().count()).sum();
    assert!(
        invariants > 0,
        "no chapter has an invariant: part three tests nothing"
    );
}

#[test]
fn every_claim_holds_on_the_books_record() {
    every_chapter(fixtures::not_held);
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    every_chapter(fixtures::conclusions_that_cannot_fail);
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    every_chapter(fixtures::invariants_that_cannot_break);
}

#[test]
fn a_chapter_with_claims_but_no_record_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let listing = root.join("listings/ch99-new");
    std::fs::create_dir_all(&listing).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/ch99-new.md"), "# New\n").unwrap();
    std::fs::write(
        listing.join("chapter.toml"),
        "title = \"New\"\npages = [\"ch99-new.md\"]\nmachine = \"m\"\ncrates = [\"tokio\"]\n",
    )
    .unwrap();
    std::fs::copy(
        self::root().join("listings/ch01-blocking/claims.toml"),
        listing.join("claims.toml"),
    )
    .unwrap();
    let e = chapter(root, "ch99-new")
        .err()
        .expect("no record is an error");
    assert!(
        e.contains("no record from its reference machine m") && e.contains("ch99-new"),
        "{e}"
    );
}

/// Chapter 3 (was its own test): a quick run parks fewer tasks, and the memory claims read the
/// run's own task counts (`$idle_tasks`, `$future_tasks`), not the full run's, so they are judged
/// on it. Here the book's record with its task counts renamed as a quick run names them.
#[test]
fn chapter_3s_memory_claims_follow_the_runs_task_counts() {
    let ch03 = loaded()
        .into_iter()
        .find(|c| c.name == "ch03-spawns")
        .expect("chapter 3");
    let mut rec = ch03.record.clone();
    let count = |rec: &Record, name: &str| rec.params[name].to_string();
    let (idle, future) = (count(&rec, "idle_tasks"), count(&rec, "future_tasks"));
    for s in rec.series.iter_mut() {
        if s.case == idle {
            s.case = "20000".into();
        } else if s.case == future {
            s.case = "2000".into();
        }
    }
    rec.params.insert("idle_tasks".into(), 20_000.into());
    rec.params.insert("future_tasks".into(), 2_000.into());
    for id in ["mimalloc-smaller-idle-task", "buffer-lives-in-the-future"] {
        let claim = ch03.claims.get(id).unwrap_or_else(|| panic!("{id}"));
        let (book, quick) = (claim.check(&ch03.record), claim.check(&rec));
        assert_eq!(quick.verdict, Verdict::Held, "{id}: {}", quick.summary());
        assert_eq!(quick.figures, book.figures, "{id}: the same cells, renamed");
    }
}
