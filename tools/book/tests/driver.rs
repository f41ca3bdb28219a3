//! The driver fails where stock mdBook exits 0: a missing include file or anchor, a SUMMARY
//! entry without a file, a broken link or #anchor. Each case builds a tiny book in a temp dir.

use std::path::Path;
use std::process::Command;

const BOOK_TOML: &str = r#"[book]
title = "t"
src = "src"
[build]
create-missing = false
[preprocessor.measure]
command = "false"
before = ["links"]
reference-machine = "m"
"#;

const LISTING: &str = "// ANCHOR: good\nfn good() {}\n// ANCHOR_END: good\n";

/// Writes a book whose only chapter is `chapter`, builds it, returns (success, stderr).
fn build(summary: &str, chapter: &str) -> (bool, String) {
    build_with(summary, chapter, &[])
}

/// The same, with extra files (path, text) such as records under data/.
fn build_with(summary: &str, chapter: &str, extra: &[(&str, &str)]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |p: &str, text: &str| {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("book.toml", BOOK_TOML);
    write("Cargo.toml", "[workspace]\n");
    write("src/SUMMARY.md", summary);
    write("src/ch.md", chapter);
    write("src/other.md", "# Other\n\n## A section\n");
    write("listings/x/lib.rs", LISTING);
    for (path, text) in extra {
        write(path, text);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_book"))
        .arg("build")
        .current_dir(root)
        .output()
        .unwrap();
    let ok = out.status.success() && Path::new(&root.join("book/ch.html")).exists();
    (ok, String::from_utf8_lossy(&out.stderr).to_string())
}

const SUMMARY: &str = "# Summary\n\n- [Ch](ch.md)\n- [Other](other.md)\n";

#[test]
fn a_sound_book_builds() {
    let chapter = "# Ch\n\n```rust\n{{#include ../listings/x/lib.rs:good}}\n```\n\n[there](other.md#a-section)\n";
    let (ok, err) = build(SUMMARY, chapter);
    assert!(ok, "{err}");
}

#[test]
fn a_missing_include_file_fails() {
    let (ok, err) = build(
        SUMMARY,
        "# Ch\n\n```rust\n{{#include ../listings/x/nope.rs}}\n```\n",
    );
    assert!(!ok);
    assert!(err.contains("nope.rs, which does not exist"), "{err}");
}

#[test]
fn a_missing_anchor_fails_and_names_the_anchors_there() {
    let (ok, err) = build(
        SUMMARY,
        "# Ch\n\n```rust\n{{#rustdoc_include ../listings/x/lib.rs:bad}}\n```\n",
    );
    assert!(!ok);
    assert!(
        err.contains("no anchor `bad`") && err.contains("it has: good"),
        "{err}"
    );
}

#[test]
fn a_summary_entry_without_a_file_fails() {
    let (ok, err) = build(
        "# Summary\n\n- [Ch](ch.md)\n- [Typo](chapter-typo.md)\n",
        "# Ch\n",
    );
    assert!(!ok);
    assert!(err.contains("chapter-typo.md"), "{err}");
}

#[test]
fn broken_links_and_fragments_fail() {
    let (ok, err) = build(
        SUMMARY,
        "# Ch\n\n[gone](missing.md) and [here](other.md#no-such-section)\n",
    );
    assert!(!ok);
    assert!(err.contains("missing.html: no such file"), "{err}");
    assert!(
        err.contains("no element with id `no-such-section`"),
        "{err}"
    );
}

#[test]
fn a_corrupt_or_foreign_record_fails_the_build_and_names_the_file() {
    let chapter = "# Ch\n\np99 was {{#measure value record=ch09-x case=1 variant=a metric=p99}}.\n";
    let (ok, err) = build_with(
        SUMMARY,
        chapter,
        &[("data/m/ch09-x.json", "{\"schema\": 1, \"chap")],
    );
    assert!(!ok);
    assert!(
        err.contains("data/m/ch09-x.json") && err.contains("not a valid record"),
        "{err}"
    );
    assert!(err.contains("src/ch.md"), "names the chapter: {err}");

    let (ok, err) = build_with(
        SUMMARY,
        chapter,
        &[("data/m/ch09-x.json", "{\"schema\": 7}")],
    );
    assert!(!ok);
    assert!(
        err.contains("data/m/ch09-x.json") && err.contains("schema version 7"),
        "{err}"
    );

    let (ok, err) = build_with(SUMMARY, chapter, &[]);
    assert!(!ok);
    assert!(err.contains("no record data/m/ch09-x.json"), "{err}");
}
