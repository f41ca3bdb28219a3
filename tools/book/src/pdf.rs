//! `book pdf`: the book on paper. Builds the book, then prints `print.html` to `book/book.pdf`
//! with headless Chromium, when it is installed. Page breaks before chapters come from mdBook's
//! print page; theme/measure.css keeps tables and charts whole on a page.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Chromium binaries tried, in order.
const BROWSERS: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

pub fn print(root: &Path) -> Result<PathBuf> {
    let browser = BROWSERS
        .iter()
        .find(|b| which(b).is_some())
        .with_context(|| {
            "no headless Chromium found (tried chromium, chromium-browser, google-chrome): \
             install Debian's `chromium` package (`apt-get install chromium`) and rerun"
        })?;
    let dir = crate::build(root, None)?;
    let page = dir.join("print.html");
    let out = dir.join("book.pdf");
    let profile = tempfile::tempdir()?;
    let started = std::time::Instant::now();
    let status = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // (--virtual-time-budget would make Chromium 156 print an empty page)
            // Chromium's own header and footer (the file's URL, the date) off: the page numbers
            // come from theme/measure.css's @page margin boxes, and the outline from the headings.
            "--no-pdf-header-footer",
            "--generate-pdf-document-outline",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--print-to-pdf={}", out.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .with_context(|| format!("running {browser}"))?;
    if !status.status.success() || !out.is_file() {
        bail!(
            "{browser} did not write {} ({}); it said:\n{}",
            out.display(),
            status.status,
            String::from_utf8_lossy(&status.stderr).trim()
        );
    }
    // Chromium versions without the outline flag ignore it: say so rather than ship a PDF
    // without bookmarks.
    let pdf = std::fs::read(&out)?;
    if !pdf.windows(15).any(|w| w == b"/Type /Outlines") {
        bail!(
            "{} has no outline (bookmarks): {browser} ignored --generate-pdf-document-outline; use a newer Chromium",
            out.display()
        );
    }
    let size = pdf.len();
    let pages = pdf.windows(11).filter(|w| w == b"/Type /Page").count()
        - pdf.windows(12).filter(|w| w == b"/Type /Pages").count();
    eprintln!(
        "printed {} ({pages} pages, {:.1} MiB) in {:.0} s",
        out.display(),
        size as f64 / (1024.0 * 1024.0),
        started.elapsed().as_secs_f64()
    );
    Ok(out)
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_string_lossy()
        .split(':')
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file())
}
