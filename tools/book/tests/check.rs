//! `book check` on fixture records: the gates (every conclusion held on the book's machine, no
//! non-quiet conclusion refuted beside the busy neighbour, no invariant broken anywhere) and
//! freshness (a change to the listing, the measuring core, the profiles or the lock file makes a
//! record stale; one to the harness's help text does not; a release set is judged as one), each
//! tested both ways in a tiny workspace of its own.

mod common;

use measure::Record;
use std::path::Path;
use std::process::Command;

const BOOK_TOML: &str = r#"[book]
title = "t"
[preprocessor.measure]
command = "false"
reference-machine = "m"
"#;

const CLAIMS: &str = r#"format = 2

[[claim]]
id = "stall"
says = "inline at least 10× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 10

[[claim]]
id = "needs-quiet"
says = "the fix under 200 µs"
value = "e/1/fix/p99"
at-most = "200 µs"
quiet = true

[[invariant]]
id = "nothing-lost"
says = "no request lost"
value = "e/1/fix/lost"
at-most = 0
"#;

/// The harness: what it prints shapes no figure.
const HARNESS: &str = "/// Runs the chapter.\npub fn harness() {}\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("book.toml", BOOK_TOML),
        (
            "Cargo.toml",
            "[workspace]\nresolver = \"3\"\nmembers = [\"listings/*\", \"tools/*\"]\n\n[profile.dev]\nopt-level = 3\n",
        ),
        ("rust-toolchain.toml", "[toolchain]\nchannel = \"1.95.0\"\n"),
        (
            "listings/ch09-x/Cargo.toml",
            "[package]\nname = \"ch09-x\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nmeasure = { path = \"../../tools/measure\" }\npin-project-lite = \"0.2\"\n",
        ),
        ("listings/ch09-x/src/main.rs", "fn main() {}\n"),
        ("listings/ch09-x/claims.toml", CLAIMS),
        (
            "listings/ch09-x/chapter.toml",
            "title = \"X\"\npages = [\"ch09-x.md\"]\nmachine = \"m\"\ncrates = [\"tokio\"]\n",
        ),
        ("src/ch09-x.md", "# X\n"),
        (
            "README.md",
            "<!-- first-serve: written by scripts/first-serve.sh --readme -->\nFrom a fresh clone, the first `cargo run -p book -- serve` had the book readable after 9 s on M (1 CPU; `scripts/first-serve.sh`, 2026-12-04, commit `abc`):\n",
        ),
        (
            "tools/measure/Cargo.toml",
            "[package]\nname = \"measure\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nmeasure-core = { path = \"../measure-core\" }\n",
        ),
        ("tools/measure/src/lib.rs", HARNESS),
        (
            "tools/measure-core/Cargo.toml",
            "[package]\nname = \"measure-core\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        ),
        ("tools/measure-core/src/lib.rs", "pub fn measure() {}\n"),
        (
            "releases/releases.toml",
            "[[release]]\ntokio = \"1.0.0\"\nwhy = \"t\"\n\n[[release]]\ntokio = \"1.1.0\"\nwhy = \"t\"\n",
        ),
    ];
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    // The lock file, from the book's downloaded crates: `book check` resolves it with cargo tree.
    cargo(dir.path(), &["generate-lockfile", "--offline"]);
    dir
}

/// Runs cargo in `root`; panics with its output if it fails.
fn cargo(root: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A fresh record on `machine`: inline `ratios` × a fix of `fix_us` µs, one value a repetition.
fn store(root: &Path, machine: &str, ratios: [f64; 5], fix_us: f64, lost: f64) {
    save(root, &sketch(root, machine, ratios, fix_us, lost));
}

fn save(root: &Path, rec: &Record) {
    let path = root
        .join("data")
        .join(&rec.machine.name)
        .join("ch09-x.json");
    rec.save_atomic(&path).unwrap();
}

fn sketch(root: &Path, machine: &str, ratios: [f64; 5], fix_us: f64, lost: f64) -> Record {
    let inline: Vec<f64> = ratios.iter().map(|r| r * fix_us * 1e3).collect();
    let mut rec = Record::sketch(
        "ch09-x",
        machine,
        &[],
        &[
            ("e", "1", "inline", "p99", "ns", &inline),
            ("e", "1", "fix", "p99", "ns", &[fix_us * 1e3; 5]),
            (
                "e",
                "1",
                "fix",
                "lost",
                "count",
                &[0.0, 0.0, lost, 0.0, 0.0],
            ),
        ],
    );
    rec.build.inputs = measure::freshness::inputs(root, "ch09-x").unwrap();
    rec.build.listing_hash = measure::freshness::combined(&rec.build.inputs);
    rec.build.crates.insert("tokio".into(), "1.1.0".into());
    rec.build.commit = "c0ffee".into();
    rec
}

/// Runs `book check` in `root`: (success, stdout).
fn check(root: &Path) -> (bool, String) {
    common::run_book(root, &["check"])
}

const HELD: [f64; 5] = [20.0, 25.0, 30.0, 22.0, 28.0];

#[test]
fn a_sound_set_of_records_passes_and_reports_conclusions_and_invariants_apart() {
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    // Beside the neighbour the quiet conclusion is refuted (the fix at 300 µs): allowed.
    store(ws.path(), "m-busy", HELD, 300.0, 0.0);
    let (ok, out) = check(ws.path());
    assert!(ok, "{out}");
    assert!(
        out.contains("data/m/ch09-x.json: 2 held, 0 not shown, 0 refuted; invariants 1 of 1 (the book's machine)"),
        "{out}"
    );
    assert!(
        out.contains("data/m-busy/ch09-x.json: 1 held, 0 not shown, 1 refuted; invariants 1 of 1 (beside the busy neighbour)"),
        "{out}"
    );
    assert!(
        out.contains("claim held: stall: 25.0× (90% CI 20.0–30.0×; claim: ≥ 10×), margin +100%"),
        "{out}"
    );
    // The fix's 100 µs against ≤ 200 µs: +100%, not close; the list says none is.
    assert!(out.contains("holds with at least 10% to spare"), "{out}");
}

#[test]
fn a_conclusion_only_not_shown_on_the_books_machine_fails() {
    let ws = workspace();
    store(ws.path(), "m", [20.0, 25.0, 9.0, 22.0, 28.0], 100.0, 0.0);
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL data/m/ch09-x.json: claim not shown: stall")
            && out.contains("every conclusion must be held on the book's machine"),
        "{out}"
    );
}

#[test]
fn a_conclusion_near_its_bound_is_listed() {
    let ws = workspace();
    store(ws.path(), "m", [10.5, 12.0, 15.0, 11.0, 14.0], 100.0, 0.0);
    let (ok, out) = check(ws.path());
    assert!(ok, "{out}");
    assert!(
        out.contains("within 10% of their bound:\n  data/m/ch09-x.json: stall +5%"),
        "{out}"
    );
}

#[test]
fn a_conclusion_not_marked_quiet_refuted_beside_the_neighbour_fails() {
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    store(ws.path(), "m-busy", [3.0, 4.0, 5.0, 4.5, 3.5], 100.0, 0.0);
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL data/m-busy/ch09-x.json: claim refuted: stall")
            && out.contains("not marked `quiet`"),
        "{out}"
    );
    // Only not shown beside the neighbour: the busy gate lets it through.
    store(
        ws.path(),
        "m-busy",
        [3.0, 25.0, 30.0, 22.0, 28.0],
        100.0,
        0.0,
    );
    let (ok, out) = check(ws.path());
    assert!(ok, "{out}");
}

#[test]
fn a_broken_invariant_fails_on_any_machine() {
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    store(ws.path(), "laptop", HELD, 100.0, 1.0);
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL data/laptop/ch09-x.json: invariant broken: nothing-lost")
            && out.contains("a bug in the experiment"),
        "{out}"
    );
}

#[test]
fn a_change_to_anything_that_shaped_a_record_makes_it_stale() {
    let edits = [
        (
            "tools/measure-core/src/lib.rs",
            "pub fn measure() { /* faster */ }\n",
            "tools/measure-core",
        ),
        (
            "listings/ch09-x/src/main.rs",
            "fn main() { loop {} }\n",
            "listings/ch09-x",
        ),
        (
            "Cargo.toml",
            "[workspace]\nresolver = \"3\"\nmembers = [\"listings/*\", \"tools/*\"]\n\n[profile.dev]\nopt-level = 2\n",
            "Cargo.toml [profile] [workspace.package]",
        ),
    ];
    let stale = |ws: &tempfile::TempDir, what: &str, input: &str| {
        let (ok, out) = check(ws.path());
        assert!(!ok, "{what}: {out}");
        assert!(
            out.contains(&format!(
                "data/m/ch09-x.json: stale: {input} changed since this record was made"
            )),
            "{what}: {out}"
        );
    };
    for (path, text, input) in edits {
        let ws = workspace();
        store(ws.path(), "m", HELD, 100.0, 0.0);
        assert!(check(ws.path()).0);
        write(ws.path(), path, text);
        stale(&ws, path, input);
    }
    // Another version of a registry crate the listing builds, in the lock file only.
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    let lock = std::fs::read_to_string(ws.path().join("Cargo.lock")).unwrap();
    let other = if lock.contains("version = \"0.2.18\"") {
        "0.2.17"
    } else {
        "0.2.18"
    };
    cargo(
        ws.path(),
        &[
            "update",
            "--offline",
            "-p",
            "pin-project-lite",
            "--precise",
            other,
        ],
    );
    // The check reads the crates' manifests, offline: a fresh machine has only the versions the
    // workspace's own lock files name, so the other version is downloaded (a no-op when cached).
    cargo(ws.path(), &["fetch"]);
    stale(&ws, "Cargo.lock", "Cargo.lock, with features");
    // The claims and the harness's help text are not inputs: neither calls for a remeasure.
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    write(
        ws.path(),
        "listings/ch09-x/claims.toml",
        &format!("{CLAIMS}\n# a note\n"),
    );
    write(
        ws.path(),
        "tools/measure/src/lib.rs",
        &HARNESS.replace("Runs the chapter.", "Runs the chapter's experiments."),
    );
    let (ok, out) = check(ws.path());
    assert!(ok, "{out}");
}

/// A record of the chapter on Tokio `version`, as `releases run` stores it under `m`.
fn store_release(root: &Path, version: &str) -> Record {
    let folder = format!("m-tokio-{}", version.replace('.', "-"));
    let mut rec = sketch(root, &folder, HELD, 100.0, 0.0);
    rec.build.crates.insert("tokio".into(), version.into());
    save(root, &rec);
    rec
}

#[test]
fn a_release_set_is_judged_as_one_and_outlives_a_change_to_the_listing() {
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    store_release(ws.path(), "1.0.0");
    store_release(ws.path(), "1.1.0");
    assert!(check(ws.path()).0);
    // The listing changes: the book's record is stale, the set measured before stays valid.
    write(
        ws.path(),
        "listings/ch09-x/src/main.rs",
        "fn main() { loop {} }\n",
    );
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(out.contains("FAIL data/m/ch09-x.json: stale"), "{out}");
    for v in ["1-0-0", "1-1-0"] {
        assert!(
            out.contains(&format!(
                "ok   data/m-tokio-{v}/ch09-x.json: its set's records were measured with the same code"
            )),
            "{out}"
        );
    }
    // One release measured again with the new listing: the set mixes two listings.
    store_release(ws.path(), "1.1.0");
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains(
            "FAIL data/m-tokio-1-0-0/ch09-x.json: stale: listings/ch09-x differs between its Tokio 1.0.0 and 1.1.0 records"
        ) && out.contains("releases run --again --chapter ch09-x --machine m"),
        "{out}"
    );
}

#[test]
fn a_claim_restated_after_the_record_waits_for_a_new_record() {
    let ws = workspace();
    store(ws.path(), "m", HELD, 100.0, 0.0);
    // Sketch records are made "2026-11-30T00:00:00Z"; a restatement of the next day is newer.
    let restated = CLAIMS.replace(
        "at-least = 10\n",
        "at-least = 10\n\n[[claim.history]]\ndate = \"2026-12-01T11:35Z\"\ncause = \"not-shown\"\nfigures = \"9.5× (8–12×)\"\nwhy = \"a test\"\nwas = { at-least = 12 }\n",
    );
    write(ws.path(), "listings/ch09-x/claims.toml", &restated);
    let (ok, out) = check(ws.path());
    assert!(!ok, "{out}");
    assert!(
        out.contains("written or restated at 2026-12-01T11:35Z, after this record was made (2026-11-30T00:00:00Z)"),
        "{out}"
    );
    // A claim restated before the record was made is tested by it.
    write(
        ws.path(),
        "listings/ch09-x/claims.toml",
        &restated.replace("2026-12-01T11:35Z", "2026-11-29"),
    );
    assert!(check(ws.path()).0);
}
