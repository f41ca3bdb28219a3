//! `book browse`: every page of the built book opened in headless Chromium, at a desktop width and
//! at a phone's, failing, with the page, the width and the element, on
//!
//! - an element wider than its container outside a scroll box (and, at the desktop width, a code
//!   block or table that scrolls sideways);
//! - a checked claim whose verdict needs a mouse: every `.claim` and `.claim-mark` must be a link
//!   to an element that exists;
//! - an error on the page (an uncaught exception, `console.error`, a file that failed to load);
//! - an in-page link (`href="#id"`) to an id the page does not have.
//!
//! How: a copy of the book with the probe (probe.js) first in every page's `<head>`, served on
//! 127.0.0.1; for each width, one Chromium loads a harness page that frames every page at that
//! width and collects what each page's probe reports; `--dump-dom` hands the harness back, with
//! the findings in it as JSON. One browser per width, both at once: about ten seconds for the
//! book, where a browser per page took a minute.

use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The widths every page is opened at: a laptop's window and a phone's (CSS px).
pub const WIDTHS: [u32; 2] = [1280, 390];
/// Widths from this one up are "wide": there, a code block or a table may not scroll either.
const WIDE: u32 = 1000;
/// The probe, injected first into every page's `<head>`.
const PROBE: &str = include_str!("probe.js");
/// How long one browser may take for all the pages.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(180);
/// Findings of one kind on one page at one width printed in full; the rest are counted.
const SHOWN: usize = 8;

/// One problem the probe found.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub page: String,
    pub width: u32,
    /// overflow, code, scroll, claim, link, error, missing
    pub kind: String,
    pub element: String,
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {} px: ", self.page, self.width)?;
        if self.element.is_empty() {
            write!(f, "{}", self.detail)
        } else {
            write!(f, "{}: {}", self.element, self.detail)
        }
    }
}

/// `book browse`: checks the pages of `dir` (the built book) and fails on any finding.
pub fn run(dir: &Path) -> Result<()> {
    if !dir.join("index.html").is_file() {
        bail!(
            "{} has no built book (no index.html): run `cargo run -p book -- build` first",
            dir.display()
        );
    }
    let started = Instant::now();
    let (pages, findings) = check(dir, &WIDTHS)?;
    let elapsed = started.elapsed().as_secs_f64();
    let widths = WIDTHS.map(|w| format!("{w}")).join(" and ");
    if findings.is_empty() {
        eprintln!(
            "browser check: {pages} pages at {widths} px in {elapsed:.1} s: no element wider than its \
             column, every claim a link to its verdict, no error, no broken in-page link"
        );
        return Ok(());
    }
    print_findings(&findings);
    bail!(
        "browser check: {} problem(s) on {} of {pages} pages at {widths} px ({elapsed:.1} s); see above",
        findings.len(),
        findings
            .iter()
            .map(|f| &f.page)
            .collect::<HashSet<_>>()
            .len()
    )
}

/// Prints the findings by page, width and kind, at most `SHOWN` of each, with a count per kind.
fn print_findings(findings: &[Finding]) {
    let mut groups: BTreeMap<(&str, u32, &str), Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        groups
            .entry((&f.page, f.width, &f.kind))
            .or_default()
            .push(f);
    }
    for ((_, _, kind), group) in &groups {
        for f in group.iter().take(SHOWN) {
            eprintln!("  {f}");
        }
        if group.len() > SHOWN {
            eprintln!(
                "  {} at {} px: … and {} more of the same kind ({kind})",
                group[0].page,
                group[0].width,
                group.len() - SHOWN
            );
        }
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        *kinds.entry(&f.kind).or_default() += 1;
    }
    let counts: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{n} {}", describe_kind(k)))
        .collect();
    eprintln!("  in all: {}", counts.join(", "));
}

fn describe_kind(kind: &str) -> &'static str {
    match kind {
        "overflow" => "elements wider than their container",
        "code" => "code blocks that scroll at the wide width",
        "scroll" => "tables or figures that scroll at the wide width",
        "claim" => "claims whose verdict is not a link away",
        "link" => "broken in-page links",
        "error" => "errors on the page",
        _ => "pages the probe did not report on",
    }
}

/// Opens every page of `dir` at each width; returns the number of pages and what was found.
pub fn check(dir: &Path, widths: &[u32]) -> Result<(usize, Vec<Finding>)> {
    let browser = crate::pdf::browser()?;
    let mut pages: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".html"))
        .collect();
    pages.sort();

    // A copy of the book with the probe in every page, and one harness page per width.
    let work = tempfile::tempdir()?;
    let site = work.path().join("site");
    copy_dir(dir, &site)?;
    let script = format!("<script>{PROBE}</script>");
    for page in &pages {
        let path = site.join(page);
        let html = std::fs::read_to_string(&path)?;
        let html = match html.find("<head>") {
            Some(at) => format!("{}{script}{}", &html[..at + 6], &html[at + 6..]),
            None => format!("{script}{html}"),
        };
        std::fs::write(&path, html)?;
    }
    for &w in widths {
        std::fs::write(
            site.join(format!("probe-harness-{w}.html")),
            harness(&pages, w),
        )?;
    }
    let port = serve_in_background(&site)?;

    // One browser per width, all at once (two at the widths the book uses).
    let mut running = Vec::new();
    for &w in widths {
        let profile = work.path().join(format!("profile-{w}"));
        let out = work.path().join(format!("dom-{w}.html"));
        let child = Command::new(browser)
            .args(crate::pdf::HEADLESS)
            .args([
                // Overlay scrollbars, as on a phone: the page is laid out at the full width.
                "--hide-scrollbars",
                "--virtual-time-budget=10000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={},900", w.max(800)))
            .arg(format!("http://127.0.0.1:{port}/probe-harness-{w}.html"))
            .stdout(std::fs::File::create(&out)?)
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {browser}"))?;
        running.push((w, child, out));
    }
    let mut findings = Vec::new();
    let mut external = Vec::new();
    for (w, mut child, out) in running {
        let deadline = Instant::now() + BROWSER_TIMEOUT;
        loop {
            if child.try_wait()?.is_some() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!(
                    "{browser} took more than {} s at {w} px",
                    BROWSER_TIMEOUT.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let dom = std::fs::read_to_string(&out)?;
        let results = harness_results(&dom)
            .with_context(|| format!("{browser} at {w} px returned no findings"))?;
        findings.extend(read_results(&results, &pages, w, &mut external));
    }

    // Claims that link to another page: the id must be there.
    let mut ids: HashMap<String, Option<HashSet<String>>> = HashMap::new();
    for (page, width, element, target, id) in external {
        let target_ids = ids.entry(target.clone()).or_insert_with(|| {
            std::fs::read_to_string(dir.join(&target))
                .ok()
                .map(|t| crate::checks::attribute_values(&t, "id"))
        });
        let detail = match target_ids {
            None => Some(format!(
                "a checked claim linking to {target}#{id}: no such page"
            )),
            Some(set) if !set.contains(&id) => Some(format!(
                "a checked claim linking to {target}#{id}: no element with that id there"
            )),
            _ => None,
        };
        if let Some(detail) = detail {
            findings.push(Finding {
                page,
                width,
                kind: "claim".into(),
                element,
                detail,
            });
        }
    }
    findings.sort();
    findings.dedup();
    Ok((pages.len(), findings))
}

/// The harness: every page framed at `width`, with `?wide=1` where a scrolling code block or
/// table is a failure; it gathers what the probes post into `#probe-results`.
fn harness(pages: &[String], width: u32) -> String {
    let wide = if width >= WIDE { "?wide=1" } else { "" };
    let mut html = String::from(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>probe</title></head>\
         <body style=\"margin:0\">\n\
         <script type=\"application/json\" id=\"probe-results\">{}</script>\n\
         <script>\n\
         var got = {};\n\
         addEventListener(\"message\", function (e) {\n\
           if (!e.data || !e.data.probe) return;\n\
           got[e.data.probe.page] = e.data.probe;\n\
           document.getElementById(\"probe-results\").textContent =\n\
             JSON.stringify(got).replace(/</g, \"\\\\u003c\");\n\
         });\n\
         </script>\n",
    );
    for page in pages {
        html.push_str(&format!(
            "<iframe src=\"/{page}{wide}\" style=\"display:block;border:0;width:{width}px;height:900px\"></iframe>\n"
        ));
    }
    html.push_str("</body></html>\n");
    html
}

/// The JSON the harness gathered, from the DOM Chromium dumped.
fn harness_results(dom: &str) -> Option<Value> {
    let start = dom.find("id=\"probe-results\">")? + "id=\"probe-results\">".len();
    let end = start + dom[start..].find("</script>")?;
    serde_json::from_str(&dom[start..end]).ok()
}

type External = (String, u32, String, String, String);

/// Turns one width's results into findings; claims that link to other pages go to `external`.
fn read_results(
    results: &Value,
    pages: &[String],
    width: u32,
    external: &mut Vec<External>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let text = |v: &Value, key: &str| v[key].as_str().unwrap_or("").to_string();
    for page in pages {
        let Some(r) = results.get(page.as_str()) else {
            out.push(Finding {
                page: page.clone(),
                width,
                kind: "missing".into(),
                element: String::new(),
                detail: "the probe did not report: the page did not finish loading".into(),
            });
            continue;
        };
        for v in r["overflow"].as_array().into_iter().flatten() {
            out.push(Finding {
                page: page.clone(),
                width,
                kind: text(v, "kind"),
                element: text(v, "element"),
                detail: text(v, "detail"),
            });
        }
        for (key, kind) in [("claims", "claim"), ("links", "link")] {
            for v in r[key].as_array().into_iter().flatten() {
                out.push(Finding {
                    page: page.clone(),
                    width,
                    kind: kind.into(),
                    element: text(v, "element"),
                    detail: text(v, "detail"),
                });
            }
        }
        for v in r["errors"].as_array().into_iter().flatten() {
            out.push(Finding {
                page: page.clone(),
                width,
                kind: "error".into(),
                element: String::new(),
                detail: v.as_str().unwrap_or("").to_string(),
            });
        }
        for v in r["external"].as_array().into_iter().flatten() {
            external.push((
                page.clone(),
                width,
                text(v, "element"),
                text(v, "page"),
                text(v, "id"),
            ));
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Serves `dir` on a free port of 127.0.0.1 until the process ends; returns the port.
fn serve_in_background(dir: &Path) -> Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).context("listening on 127.0.0.1")?;
    let port = listener.local_addr()?.port();
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let _ = answer(stream, &dir);
            });
        }
    });
    Ok(port)
}

/// Answers one GET with the file it names (or a 404), then closes the connection.
fn answer(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // The headers, read to their end so that closing does not reset the connection.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/");
    let file: Option<PathBuf> = crate::serve::file_for(dir, target);
    let (status, kind, body) = match file.and_then(|p| Some((std::fs::read(&p).ok()?, p))) {
        Some((body, path)) => ("200 OK", crate::serve::content_type(&path), body),
        None => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_frames_every_page_and_reads_back_what_the_probes_posted() {
        let pages = vec!["a.html".to_string(), "b c.html".to_string()];
        let h = harness(&pages, 1280);
        assert!(h.contains("src=\"/a.html?wide=1\""));
        assert!(h.contains("width:1280px"));
        assert!(!harness(&pages, 390).contains("wide=1"));
        let dom = r#"<html><body><script type="application/json" id="probe-results">{"a.html":{"overflow":[{"kind":"overflow","element":"div#x","detail":"2000 px wide"}],"claims":[],"links":[{"element":"a","detail":"links to #nope"}],"errors":["console.error: boom"],"external":[{"element":"a.claim","page":"b c.html","id":"c1"}]}}</script></body></html>"#;
        let results = harness_results(dom).unwrap();
        let mut external = Vec::new();
        let found = read_results(&results, &pages, 390, &mut external);
        let kinds: Vec<&str> = found.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["overflow", "link", "error", "missing"]);
        assert_eq!(
            found[0].to_string(),
            "a.html at 390 px: div#x: 2000 px wide"
        );
        assert_eq!(found[3].page, "b c.html");
        assert_eq!(external[0].3, "b c.html");
    }
}
