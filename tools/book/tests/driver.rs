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
    let (ok, err, _) = build_in(dir.path(), summary, chapter, extra, &[]);
    (ok, err)
}

/// Builds in `root` with extra arguments to `book build`; returns (success, stderr, book dir).
fn build_in(
    root: &Path,
    summary: &str,
    chapter: &str,
    extra: &[(&str, &str)],
    args: &[&str],
) -> (bool, String, std::path::PathBuf) {
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
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let book = match args {
        ["--machine", name] => root.join(format!("book-{name}")),
        _ => root.join("book"),
    };
    let ok = out.status.success() && book.join("ch.html").exists();
    (ok, String::from_utf8_lossy(&out.stderr).to_string(), book)
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

#[test]
fn a_measurement_typed_into_the_prose_fails_the_build() {
    let (ok, err) = build(
        SUMMARY,
        "# Ch\n\nSome text.\n\nThe inline p99 was 35.3 ms here.\n",
    );
    assert!(!ok);
    assert!(
        err.contains("src/ch.md:5: `35.3 ms` is a measurement typed into the prose"),
        "{err}"
    );
    let (ok, err) = build(SUMMARY, "# Ch\n\nIn code it is fine: `35.3 ms`.\n");
    assert!(ok, "{err}");
}

/// A record of chapter `ch09-x` on `machine` where inline's p99 is `ratio` times the fix's in
/// each of five repetitions, but `slow` of them (at most two) where it is a tenth of that.
fn record_with(machine: &str, ratio: f64, slow: usize) -> String {
    let inline: Vec<f64> = (0..5)
        .map(|i| if i < slow { ratio * 1e4 } else { ratio * 1e5 })
        .collect();
    let rec = measure::Record::sketch(
        "ch09-x",
        machine,
        &[("workers", 1.0)],
        &[
            ("e", "1", "inline", "p99", "ns", &inline),
            ("e", "1", "fix", "p99", "ns", &[1e5; 5]),
        ],
    );
    serde_json::to_string(&rec).unwrap()
}

fn record(machine: &str, ratio: f64) -> String {
    record_with(machine, ratio, 0)
}

const CLAIMS: &str = "format = 2\n[[claim]]\nid = \"stall\"\nsays = \"inline at least 10× the fix\"\nratio = [\"e/$workers/inline/p99\", \"e/$workers/fix/p99\"]\nat-least = 10\n";

const CLAIM_PAGE: &str = "# Ch\n\nInline was {{#measure claim record=ch09-x id=stall}} the fix.\n\n## Checked claims\n\n{{#measure claims record=ch09-x}}\n";

#[test]
fn a_claim_is_checked_on_the_books_machine_and_shown_on_the_readers() {
    let dir = tempfile::tempdir().unwrap();
    let (m, other) = (record("m", 20.0), record("laptop", 5.0));
    let files = [
        ("listings/ch09-x/claims.toml", CLAIMS),
        ("data/m/ch09-x.json", m.as_str()),
        ("data/laptop/ch09-x.json", other.as_str()),
    ];
    // A chapter that states claims must list them, so that their verdicts need no mouse.
    let unlisted = "# Ch\n\nInline was {{#measure claim record=ch09-x id=stall}} the fix.\n";
    let (ok, err, _) = build_in(dir.path(), SUMMARY, unlisted, &files, &[]);
    assert!(
        !ok && err.contains("claims no page lists") && err.contains("ch09-x"),
        "{err}"
    );
    let (ok, err, book) = build_in(dir.path(), SUMMARY, CLAIM_PAGE, &files, &[]);
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(book.join("ch.html")).unwrap();
    assert!(
        page.contains("href=\"ch.html#claim-ch09-x-stall\"")
            && page.contains("<li id=\"claim-ch09-x-stall\">"),
        "{page}"
    );
    assert!(
        page.contains("class=\"claim held\"")
            && page.contains(">20.0×<")
            && page.contains("(20.0× in each of 5 repetitions)"),
        "{page}"
    );

    // The reader's book: their figure, marked as refuted there; the book's build is untouched.
    let (ok, err, theirs) = build_in(
        dir.path(),
        SUMMARY,
        CLAIM_PAGE,
        &files,
        &["--machine", "laptop"],
    );
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(theirs.join("ch.html")).unwrap();
    assert!(
        page.contains(">5.00×<") && page.contains("✗ refuted on laptop"),
        "{page}"
    );
    assert!(book.join("ch.html").exists());

    // A machine with no record of the chapter: the book's figures, with a note at the top.
    let (ok, err, elsewhere) = build_in(
        dir.path(),
        SUMMARY,
        CLAIM_PAGE,
        &[("data/pi/other.json", "{}")],
        &["--machine", "pi"],
    );
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(elsewhere.join("ch.html")).unwrap();
    assert!(
        page.contains("has no record of <code>ch09-x</code>"),
        "{page}"
    );

    // The book's own machine contradicting the claim fails the build, naming page, claim, figure.
    let weak = record("m", 5.0);
    let (ok, err, _) = build_in(
        dir.path(),
        SUMMARY,
        CLAIM_PAGE,
        &[("data/m/ch09-x.json", weak.as_str())],
        &[],
    );
    assert!(!ok);
    assert!(
        err.contains("src/ch.md")
            && err.contains("claim `stall` is refuted on m")
            && err.contains("5.00× (5.00× in each of 5 repetitions; claim: ≥ 10×)"),
        "{err}"
    );

    // Held at the median but not in one repetition: the interval straddles the bound, and a
    // conclusion that is only not shown on the book's machine fails the build too.
    let straddling = record_with("m", 20.0, 1);
    let (ok, err, _) = build_in(
        dir.path(),
        SUMMARY,
        CLAIM_PAGE,
        &[("data/m/ch09-x.json", straddling.as_str())],
        &[],
    );
    assert!(!ok);
    assert!(
        err.contains("claim `stall` is not shown on m") && err.contains("90% CI 2.0–20×"),
        "{err}"
    );
}

#[test]
fn a_claim_no_page_states_fails_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let m = record("m", 20.0);
    let orphan = CLAIMS
        .replace("\"stall\"", "\"orphan\"")
        .replace("format = 2\n", "");
    let two = format!("{CLAIMS}\n{orphan}");
    let files = [
        ("listings/ch09-x/claims.toml", two.as_str()),
        ("data/m/ch09-x.json", m.as_str()),
    ];
    let (ok, err, _) = build_in(dir.path(), SUMMARY, CLAIM_PAGE, &files, &[]);
    assert!(!ok);
    assert!(
        err.contains("claims that no page states") && err.contains("ch09-x/orphan"),
        "{err}"
    );
}

/// A record where inline is 5× the fix (below the claim's 10×) with `noise` % of a core stolen
/// in each cell.
fn refuted_record(machine: &str, noise: f64) -> String {
    let rec = measure::Record::sketch(
        "ch09-x",
        machine,
        &[("workers", 1.0)],
        &[
            ("e", "1", "inline", "p99", "ns", &[5e5; 5]),
            ("e", "1", "fix", "p99", "ns", &[1e5; 5]),
            ("e", "1", "inline", "noise_steal", "%", &[noise; 5]),
            ("e", "1", "fix", "noise_steal", "%", &[noise; 5]),
            ("e", "1", "inline", "noise_others", "%", &[0.0; 5]),
            ("e", "1", "fix", "noise_others", "%", &[0.0; 5]),
        ],
    );
    serde_json::to_string(&rec).unwrap()
}

#[test]
fn another_machines_book_counts_what_held_and_excuses_a_quiet_claim_only_on_a_noisy_run() {
    let dir = tempfile::tempdir().unwrap();
    let claims = format!("{CLAIMS}quiet = true\n");
    let (m, calm, noisy) = (
        record("m", 20.0),
        refuted_record("calm", 0.0),
        refuted_record("noisy", 50.0),
    );
    let files = [
        ("listings/ch09-x/claims.toml", claims.as_str()),
        ("data/m/ch09-x.json", m.as_str()),
        ("data/calm/ch09-x.json", calm.as_str()),
        ("data/noisy/ch09-x.json", noisy.as_str()),
    ];
    let page_on = |machine: &str| {
        let (ok, err, book) = build_in(
            dir.path(),
            SUMMARY,
            CLAIM_PAGE,
            &files,
            &["--machine", machine],
        );
        assert!(ok, "{err}");
        std::fs::read_to_string(book.join("ch.html")).unwrap()
    };
    let page = page_on("calm");
    assert!(page.contains("✗ refuted on calm"), "{page}");
    assert!(!page.contains("a claim for a quiet machine"), "{page}");
    assert!(
        page.contains("On calm: 0 of 1 conclusions held, 0 not shown, 1 refuted."),
        "{page}"
    );
    assert!(
        page.contains("the whole interval lies on the wrong side of the bound"),
        "{page}"
    );
    let page = page_on("noisy");
    assert!(
        page.contains("✗ refuted on noisy (claim: ≥ 10×; missed the bound by 50%) (a claim for a quiet machine, on a noisy run)"),
        "{page}"
    );
}

/// A record of `ch09-x` with the given medians (five alike repetitions each) of four variants'
/// p99, and no noise.
fn four_variants(machine: &str, inline: f64, fix: f64, lane: f64, pool: f64) -> String {
    let rec = measure::Record::sketch(
        "ch09-x",
        machine,
        &[("workers", 1.0)],
        &[
            ("e", "1", "inline", "p99", "ns", &[inline; 5]),
            ("e", "1", "fix", "p99", "ns", &[fix; 5]),
            ("e", "1", "lane", "p99", "ns", &[lane; 5]),
            ("e", "1", "pool", "p99", "ns", &[pool; 5]),
            ("e", "1", "inline", "noise_steal", "%", &[0.0; 5]),
            ("e", "1", "fix", "noise_steal", "%", &[0.0; 5]),
            ("e", "1", "lane", "noise_steal", "%", &[0.0; 5]),
            ("e", "1", "pool", "noise_steal", "%", &[0.0; 5]),
        ],
    );
    serde_json::to_string(&rec).unwrap()
}

const FOUR_CLAIMS: &str = r#"format = 2
[[claim]]
id = "stall"
says = "inline at least 10× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 10
[[claim]]
id = "lane-beats-pool"
says = "the pool at least twice the lane"
ratio = ["e/1/pool/p99", "e/1/lane/p99"]
at-least = 2
[[claim]]
id = "quiet-one"
says = "the lane at least 3× the fix"
ratio = ["e/1/lane/p99", "e/1/fix/p99"]
at-least = 3
quiet = true
[[claim]]
id = "fine"
says = "inline at least 2× the fix"
ratio = ["e/1/inline/p99", "e/1/fix/p99"]
at-least = 2
"#;

const FOUR_CLAIMS_PAGE: &str = "# Ch\n\n<div class=\"found\">\n\n**What we found.** Inline was {{#measure claim record=ch09-x id=stall}} the fix.\n\n{{#measure verdict-summary record=ch09-x}}\n\n</div>\n\nThe pool took {{#measure claim record=ch09-x id=lane-beats-pool}} the lane's p99, and the lane {{#measure claim record=ch09-x id=quiet-one}} the fix's; inline {{#measure claim record=ch09-x id=fine}}.\n\n## The rule\n\n> Use the lane. {{#measure claim record=ch09-x id=lane-beats-pool show=mark}}\n\n## Checked claims\n\n{{#measure claims record=ch09-x}}\n";

#[test]
fn another_machines_book_says_which_claims_failed_how_and_marks_their_sentences() {
    let dir = tempfile::tempdir().unwrap();
    // The book's machine: every claim held. The laptop: the stall misses 10× by 5 % (marginal),
    // the pool beats the lane (reversed), and the quiet claim fails on a quiet run.
    let m = four_variants("m", 2e6, 1e5, 4e5, 1.2e6);
    let laptop = four_variants("laptop", 9.5e5, 1e5, 2e5, 1e5);
    let files = [
        ("listings/ch09-x/claims.toml", FOUR_CLAIMS),
        ("data/m/ch09-x.json", m.as_str()),
        ("data/laptop/ch09-x.json", laptop.as_str()),
    ];
    let (ok, err, book) = build_in(dir.path(), SUMMARY, FOUR_CLAIMS_PAGE, &files, &[]);
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(book.join("ch.html")).unwrap();
    assert!(
        page.contains("On m: 4 of 4 conclusions held.</strong> <span class=\"ratio-note\">"),
        "{page}"
    );
    assert!(!page.contains("claim-verdict"), "{page}");

    let (ok, err, theirs) = build_in(
        dir.path(),
        SUMMARY,
        FOUR_CLAIMS_PAGE,
        &files,
        &["--machine", "laptop"],
    );
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(theirs.join("ch.html")).unwrap();
    // The summary at the top: how many held, and each one that did not, how.
    assert!(
        page.contains("On laptop: 1 of 4 conclusions held, ")
            && page.contains("median of the ratios in each repetition")
            && page.contains("</span> These did not:"),
        "{page}"
    );
    let summary = &page[page
        .find("<ul class=\"verdict-summary\">")
        .expect("the list")..];
    let summary = &summary[..summary.find("</ul>").unwrap()];
    assert_eq!(summary.matches("<li>").count(), 3, "{summary}");
    assert!(
        summary.contains(
            "inline at least 10× the fix: <strong>9.50×</strong> (9.50× in each of 5 repetitions; claim: ≥ 10×)"
        )
            && summary.contains("marginal: its median missed the bound by 5%"),
        "{summary}"
    );
    assert!(
        summary.contains("the pool at least twice the lane: <strong>0.500×</strong>")
            && summary.contains("reversed: the effect went the other way"),
        "{summary}"
    );
    assert!(
        summary.contains("needs a quiet machine (this run was not noisy)")
            && summary.contains("rerun: <code>cargo run -p ch09-x -- --filter e</code>")
            && summary.contains("<a href=\"ch.html#claim-ch09-x-quiet-one\">its entry</a>"),
        "{summary}"
    );
    // In the prose: the bound beside the figure, how it failed, and a link to the entry; the
    // excuse for a quiet claim only where the run was noisy (it was not).
    assert!(
        page.contains("<a class=\"claim-verdict not-held\" href=\"ch.html#claim-ch09-x-lane-beats-pool\">✗ refuted on laptop (claim: ≥ 2×; reversed: the effect went the other way)</a>"),
        "{page}"
    );
    assert!(!page.contains("a claim for a quiet machine"), "{page}");
    // The rule's mark follows its claim: a ✗ with the verdict, not a ✓.
    let rule = &page[page.find("Use the lane.").unwrap()..];
    let rule = &rule[..rule.find("</blockquote>").unwrap()];
    assert!(
        rule.contains("claim-verdict not-held") && !rule.contains("✓"),
        "{rule}"
    );
    // The held claim keeps its plain figure.
    assert!(
        page.contains(">9.50×<") && page.contains("class=\"claim held\""),
        "{page}"
    );
}

#[test]
fn the_search_index_holds_the_prose_not_the_tables_charts_or_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let page = "# Ch\n\nThe prose says quokka.\n\n<div><table><tr><td>zebra42</td></tr></table></div>\n\n<svg><text>yak17</text></svg>\n\n<details class=\"provenance\"><summary>Measured on walrus9</summary></details>\n";
    let (ok, err, book) = build_in(dir.path(), SUMMARY, page, &[], &[]);
    assert!(ok, "{err}");
    let index = std::fs::read_dir(&book)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.to_string_lossy().contains("searchindex") && p.extension().is_some_and(|e| e == "js")
        })
        .expect("a search index");
    let index = std::fs::read_to_string(index).unwrap();
    assert!(index.contains("quokka"), "{index}");
    for data in ["zebra42", "yak17", "walrus9"] {
        assert!(!index.contains(data), "{data} is in the search index");
    }
}
