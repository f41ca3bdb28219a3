//! Adding a chapter, end to end, in a scratch copy of the book: a manifest, a listing with one
//! experiment of two variants, its record, one page. The chapter appears on the title page, the
//! Machines page, the releases page and the workshop without an edit to any of them; and the
//! build fails, naming each list, while the chapter is left out of the lists it cannot derive
//! (SUMMARY.md, the workspace's and tools/book-deps' dependencies, the README's table, the
//! release lock files).

mod common;

use measure::Record;
use std::path::{Path, PathBuf};
use std::process::Command;

const CHAPTER: &str = "ch42-throwaway";

/// The book's tracked and untracked files, not ignored ones, copied into a scratch folder.
fn scratch_copy() -> tempfile::TempDir {
    let root = measure::record::repo_root();
    let files = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z", "-co", "--exclude-standard"])
        .output()
        .unwrap();
    assert!(files.status.success());
    let dir = tempfile::tempdir().unwrap();
    for file in String::from_utf8_lossy(&files.stdout).split('\0') {
        let from = root.join(file);
        if file.is_empty() || !from.is_file() {
            continue; // a file deleted in the working tree
        }
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    dir
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn append(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    let old = std::fs::read_to_string(&p).unwrap();
    std::fs::write(p, old + text).unwrap();
}

fn replace(root: &Path, path: &str, from: &str, to: &str) {
    let p = root.join(path);
    let old = std::fs::read_to_string(&p).unwrap();
    assert!(old.contains(from), "{path} has no `{from}`");
    std::fs::write(p, old.replacen(from, to, 1)).unwrap();
}

/// The throwaway chapter: its listing, manifest, claims and page.
fn add_chapter(root: &Path) {
    let listing = format!("listings/{CHAPTER}");
    write(
        root,
        &format!("{listing}/Cargo.toml"),
        &format!(
            "[package]\nname = \"{CHAPTER}\"\nversion.workspace = true\nedition.workspace = true\npublish.workspace = true\n\n[dependencies]\nmeasure = {{ workspace = true, features = [\"runtime\"] }}\ntokio.workspace = true\nserde.workspace = true\n"
        ),
    );
    write(
        root,
        &format!("{listing}/src/main.rs"),
        r#"//! A throwaway chapter: one experiment, two variants.
use measure::{Cell, Chapter, Experiment, Harness, Measurement};

const CHAPTER: Chapter = Chapter {
    name: "ch42-throwaway",
    title: "A throwaway",
    about: "Sleeps, briefly or less briefly.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio"],
    headline: &["wait"],
    full_reps: 5,
};

#[derive(serde::Serialize)]
struct Params {
    workers: u32,
}

fn main() {
    let mut h = Harness::start(CHAPTER);
    let p = Params { workers: 1 };
    h.params(&p);
    h.run(vec![Experiment::new("wait", Cell::grid([1], ["long", "short"]), |cell, _| {
        let ms = if cell.variant == "long" { 10 } else { 1 };
        let t = std::time::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let mut m = Measurement::new();
        m.push("wait", "ns", t.elapsed().as_nanos() as f64);
        Ok(m)
    })]);
}
"#,
    );
    write(
        root,
        &format!("{listing}/chapter.toml"),
        &format!(
            "title = \"A throwaway\"\npages = [\"{CHAPTER}.md\"]\nmachine = \"amd-epyc-2c\"\ncrates = [\"tokio\"]\n\n[metric-names]\nwait = \"time waited\"\n"
        ),
    );
    write(
        root,
        &format!("{listing}/claims.toml"),
        "format = 2\n\n[[claim]]\nid = \"long-waits-longer\"\nsays = \"the long wait takes at least twice the short one\"\nratio = [\"wait/1/long/wait\", \"wait/1/short/wait\"]\nat-least = 2\n",
    );
    write(
        root,
        &format!("src/{CHAPTER}.md"),
        &format!(
            "# A throwaway\n\n## Teaching notes {{#teaching-{CHAPTER}}}\n\nThe long wait took {{{{#measure claim record={CHAPTER} id=long-waits-longer}}}} as long as the short one.\n\n{{{{#measure table record={CHAPTER} rows=variant cols=metric}}}}\n\n## Checked claims\n\n{{{{#measure claims record={CHAPTER}}}}}\n"
        ),
    );
    // Its page's readability limit, as the runbook's step 7 says.
    let limits = std::fs::read_to_string(root.join("readability.toml")).unwrap();
    write(
        root,
        "readability.toml",
        &format!("{limits}\"{CHAPTER}.md\" = 100\n"),
    );
    refresh_lock(root);
}

/// The lock file as any cargo command leaves it after a new member or dependency: the package
/// joins it, nothing else moves (`cargo update --workspace` reads the index only: a machine that
/// downloaded only its own platform's crates runs it offline).
fn refresh_lock(root: &Path) {
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["update", "--workspace", "--offline"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Its record on the chapter's machine, fresh against the scratch copy.
fn store_record(root: &Path) {
    let long: Vec<f64> = [10.1, 10.2, 10.1, 10.3, 10.2].map(|ms| ms * 1e6).to_vec();
    let short: Vec<f64> = [1.1, 1.2, 1.1, 1.2, 1.1].map(|ms| ms * 1e6).to_vec();
    let mut rec = Record::sketch(
        CHAPTER,
        "amd-epyc-2c",
        &[("workers", 1.0)],
        &[
            ("wait", "1", "long", "wait", "ns", &long),
            ("wait", "1", "short", "wait", "ns", &short),
        ],
    );
    rec.title = "A throwaway".into();
    rec.created = "2026-12-04T12:00:00Z".into();
    rec.build.inputs = measure::freshness::inputs(root, CHAPTER).unwrap();
    rec.build.listing_hash = measure::freshness::combined(&rec.build.inputs);
    rec.save_atomic(&measure::record::record_path(root, "amd-epyc-2c", CHAPTER))
        .unwrap();
}

/// `book build` in `root`: (success, what it printed).
fn build(root: &Path) -> (bool, String) {
    common::run_book(root, &["build"])
}

fn page(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join("book").join(name)).unwrap()
}

/// The lists the chapter must be added to by hand, as a contributor would.
fn add_to_the_lists(root: &Path) {
    replace(
        root,
        "src/SUMMARY.md",
        "\n---\n",
        &format!("- [A throwaway]({CHAPTER}.md)\n\n---\n"),
    );
    replace(
        root,
        "Cargo.toml",
        "ch08-database = { path = \"listings/ch08-database\" }\n",
        &format!(
            "ch08-database = {{ path = \"listings/ch08-database\" }}\n{CHAPTER} = {{ path = \"listings/{CHAPTER}\" }}\n"
        ),
    );
    append(
        root,
        "tools/book-deps/Cargo.toml",
        &format!("\n[dependencies.{CHAPTER}]\nworkspace = true\n"),
    );
    // A chapter that no release builds yet: each release skips it, with the reason.
    let releases = std::fs::read_to_string(root.join("releases/releases.toml")).unwrap();
    std::fs::write(
        root.join("releases/releases.toml"),
        releases.replace(
            "\nwhy = ",
            &format!("\nskip.{CHAPTER} = \"a chapter of a test, built on no release\"\nwhy = "),
        ),
    )
    .unwrap();
    append(
        root,
        "src/appendix-checklist.md",
        &format!("\n1. Wait less. ([A throwaway]({CHAPTER}.md))\n"),
    );
    append(
        root,
        "src/workshop.md",
        &format!("\nAnd [its teaching notes]({CHAPTER}.md#teaching-{CHAPTER}).\n"),
    );
    let (ok, out) = common::run_book(root, &["chapters", "--readme"]);
    assert!(ok, "{out}");
    refresh_lock(root);
}

#[test]
fn a_new_chapter_appears_everywhere_without_editing_the_pages_that_list_chapters() {
    let scratch = scratch_copy();
    let root: PathBuf = scratch.path().to_path_buf();
    add_chapter(&root);
    store_record(&root);

    // Left out of every list that cannot be derived: the build names each.
    let (ok, out) = build(&root);
    assert!(!ok, "{out}");
    for list in [
        format!("src/SUMMARY.md: no entry for {CHAPTER}.md"),
        format!("Cargo.toml: [workspace.dependencies] has no `{CHAPTER}"),
        format!("tools/book-deps/Cargo.toml: no `{CHAPTER}.workspace = true`"),
        format!("releases/tokio-1.38.2.lock: no package {CHAPTER}"),
        "README.md: its table of chapters is not the manifests'".to_string(),
        format!("src/appendix-checklist.md: no rule links to {CHAPTER}.md"),
        format!("src/workshop.md: no link to {CHAPTER}'s teaching notes"),
    ] {
        assert!(out.contains(&list), "missing `{list}` in:\n{out}");
    }

    add_to_the_lists(&root);
    let (ok, out) = build(&root);
    assert!(ok, "{out}");
    let title = page(&root, "title-page.html");
    assert!(
        title.contains("<td>A throwaway</td>") && title.contains("<td><code>amd-epyc-2c</code>"),
        "the title page's machines"
    );
    let machines = page(&root, "machines.html");
    assert!(
        machines.contains(&format!("id=\"class-{CHAPTER}\"")),
        "the Machines page"
    );
    assert!(
        machines.contains("machines-ch42-throwaway-long-waits-longer"),
        "its claim on the Machines page"
    );
    let releases = page(&root, "releases.html");
    assert!(
        releases.contains(&format!("id=\"releases-{CHAPTER}\"")),
        "the releases page"
    );
    let workshop = page(&root, "workshop.html");
    assert!(
        workshop.contains("Not in a schedule yet") && workshop.contains("Chapter 42: A throwaway"),
        "the workshop"
    );
    let chapter = page(&root, &format!("{CHAPTER}.html"));
    assert!(chapter.contains("time waited"), "its metric's display name");
}
