//! `book browse` opens pages in headless Chromium and fails, naming the page, the width and the
//! element, on what a reader would meet: a page made too wide, a claim whose verdict needs a
//! mouse, an error on the page, a broken in-page link. The pages here are tiny fixtures in a temp
//! dir. Skipped, with the reason printed, where Chromium is not installed.

use std::path::Path;
use std::process::Command;

fn chromium() -> Option<String> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "chrome"]
        .iter()
        .find(|b| std::env::split_paths(&path).any(|d| d.join(b).is_file()))
        .map(|b| b.to_string())
}

fn page(dir: &Path, name: &str, body: &str) {
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{name}</title></head>\n<body><main>\n{body}\n</main></body></html>\n"
    );
    std::fs::write(dir.join(name), html).unwrap();
}

/// Runs `book browse --dir DIR`; returns (success, stderr).
fn browse(dir: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_book"))
        .args(["browse", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_page_made_too_wide_and_a_claim_without_its_link_fail_by_page_width_and_element() {
    let Some(browser) = chromium() else {
        eprintln!(
            "skipped: no Chromium on the PATH (scripts/test.sh installs Debian's `chromium`)"
        );
        return;
    };
    eprintln!("using {browser}");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A sound page: a wide table in a scroll box is fine at a phone's width, and fits at 1280 px.
    page(
        d,
        "index.html",
        "<h1 id=\"top\">Fine</h1><p><a href=\"#top\">top</a> <a href=\"claims.html\">claims</a></p>\
         <div class=\"measure-table\" style=\"overflow-x:auto\">\
         <table style=\"width:600px\"><tr><th>a</th><td>1</td></tr></table></div>\
         <p><a class=\"claim held\" href=\"claims.html#entry\">2×</a></p>",
    );
    page(
        d,
        "wide.html",
        "<h1>Wide</h1><p>A paragraph.</p><div id=\"too-wide\" style=\"width:2000px\">too wide</div>",
    );
    page(
        d,
        "claims.html",
        "<h1>Claims</h1>\
         <p><span class=\"claim held\" title=\"Checked claim: held\">1.5×</span> \
         <a class=\"claim held\" href=\"#nowhere\">3×</a> \
         <a class=\"claim-mark held\" href=\"index.html#missing\">✓</a> \
         <a href=\"#gone\">a broken link</a></p>\
         <ol><li id=\"entry\">held</li></ol>\
         <script>console.error(\"something broke\")</script>",
    );
    page(
        d,
        "code.html",
        &format!(
            "<h1>Code</h1><pre style=\"overflow-x:auto\"><code>{}</code></pre>",
            "// a comment that runs on ".repeat(12)
        ),
    );

    let (ok, err) = browse(d);
    eprintln!("{err}");
    assert!(!ok, "the check passed on broken pages");
    for (page, width) in [("wide.html", 1280), ("wide.html", 390)] {
        let line = err
            .lines()
            .find(|l| l.contains(&format!("{page} at {width} px: div#too-wide")))
            .unwrap_or_else(|| panic!("no finding for {page} at {width} px:\n{err}"));
        assert!(line.contains("2000 px wide"), "{line}");
    }
    for (needle, what) in [
        (
            "claims.html at 390 px: span.claim.held \"1.5×\"",
            "a claim that is not a link",
        ),
        (
            "#nowhere, which is not on the page",
            "a claim link to nothing",
        ),
        (
            "index.html#missing: no element with that id there",
            "a claim link to another page's missing id",
        ),
        (
            "links to #gone, which is not on the page",
            "a broken in-page link",
        ),
        ("console.error: something broke", "an error on the page"),
        (
            "code.html at 1280 px: pre",
            "a code block scrolling at 1280 px",
        ),
    ] {
        assert!(err.contains(needle), "{what} not reported:\n{err}");
    }
    // A code block scrolls by design at a phone's width, and the sound page has nothing.
    assert!(!err.contains("code.html at 390 px"), "{err}");
    assert!(!err.contains("index.html at"), "{err}");
    assert!(err.contains("on 3 of 4 pages"), "{err}");
}
