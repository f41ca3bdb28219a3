//! `book pdf`: the book on paper. Builds the book (unless `--no-build`), then prints a copy of
//! `print.html` to `book/book.pdf` with headless Chromium. The copy gets:
//!
//! - the paper size (`--paper a4|letter`, A4 by default) as an `@page` rule, which Chromium's
//!   `--print-to-pdf` follows;
//! - a table of contents at the start, from the SUMMARY, with page numbers: a first print with
//!   placeholders of the same width says on which page each chapter starts (`pdfinfo -dests`
//!   reads the PDF's named destinations, which the contents' links create), a second print fills
//!   them in, and the destinations are read again to check that nothing moved;
//! - the flamegraph (a tall SVG whose labels shrink to a stripe at page width) as two cropped,
//!   labelled excerpts at full size: the top of the tower and its base, with the full SVG linked.
//!
//! Page numbers come from theme/measure.css's `@page` margin boxes, the outline (bookmarks) from
//! the headings; page breaks before chapters from mdBook's print page; print-details.js opens the
//! folded blocks and lets long code blocks break across pages with their indentation kept. The
//! result is checked: an outline, a page number at the foot of the pages (pdftotext), and the
//! contents' page numbers where each chapter starts.

use anyhow::{Context, Result, bail};
use mdbook_driver::book::BookItem;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Chromium binaries tried, in order.
const BROWSERS: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

/// The copy of print.html that is printed (in the book folder, so that its links resolve; removed
/// afterwards). print-details.js treats any page whose name ends in print.html as the print page.
const PRINTED: &str = "pdf-print.html";

/// The placeholder for a page number in the first print: as wide as any real one.
const PLACEHOLDER: &str = "000";

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Paper {
    A4,
    Letter,
}

impl Paper {
    fn css(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "letter",
        }
    }
}

/// How the book starts headless Chromium, for printing and for the browser check: no sandbox
/// (CI runs as root) and none of the background connections a closed network refuses.
pub const HEADLESS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The first Chromium binary on the PATH.
pub fn browser() -> Result<&'static str> {
    BROWSERS
        .iter()
        .copied()
        .find(|b| which(b).is_some())
        .with_context(|| {
            "no headless Chromium found (tried chromium, chromium-browser, google-chrome): \
             install Debian's `chromium` package (`apt-get install chromium`) and rerun"
        })
}

/// One line of the table of contents.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// 0 for a part's title (no link), 1 for a chapter, 2 for a section of one, ...
    depth: usize,
    number: String,
    title: String,
    /// The id of the chapter's heading in print.html.
    id: Option<String>,
}

pub fn print(root: &Path, paper: Paper, build: bool) -> Result<Vec<PathBuf>> {
    let browser = browser()?;
    let dir = if build {
        crate::build(root, None)?
    } else {
        root.join("book")
    };
    let page = dir.join("print.html");
    let mut html = std::fs::read_to_string(&page).with_context(|| {
        format!(
            "reading {} (build the book first: `cargo run -p book -- build`)",
            page.display()
        )
    })?;
    match flamegraph_excerpts(&dir, &html) {
        Some(h) => html = h,
        None if html.contains("flamegraph.svg\"") => {
            eprintln!("note: the flamegraph's frames were not found: it prints whole")
        }
        None => {}
    }
    let md = crate::load(root, None)?;
    let parts = crate::parts::Parts::of(&md);
    let printed = Printed::split(&html, pages_of(&md))?;
    let mut outs = Vec::new();
    for (file, pages) in [("book.pdf", &parts.reader), (NOTEBOOK_PDF, &parts.notebook)] {
        if pages.is_empty() {
            continue;
        }
        let out = dir.join(file);
        print_part(browser, &dir, &printed.part(pages), paper, &out)?;
        outs.push(out);
    }
    Ok(outs)
}

/// The lab notebook's PDF, beside the book's.
const NOTEBOOK_PDF: &str = "notebook.pdf";

/// One page of the book as SUMMARY.md places it.
#[derive(Debug, Clone)]
struct PageInfo {
    path: String,
    /// 1 for a chapter, 2 for a page under it.
    depth: usize,
    number: String,
    /// Its part's title, on the first page of a part.
    part: Option<String>,
}

/// The book's pages in SUMMARY.md's order, each with the part it opens.
fn pages_of(md: &mdbook_driver::MDBook) -> Vec<PageInfo> {
    let mut pages = Vec::new();
    let mut part = None;
    for item in md.iter() {
        match item {
            BookItem::PartTitle(title) => part = Some(title.clone()),
            BookItem::Chapter(ch) => {
                if let Some(path) = &ch.path {
                    pages.push(PageInfo {
                        path: path.to_string_lossy().to_string(),
                        depth: ch.parent_names.len() + 1,
                        number: ch
                            .number
                            .as_ref()
                            .map(|n| n.to_string())
                            .unwrap_or_default(),
                        part: part.take(),
                    });
                }
            }
            _ => {}
        }
    }
    pages
}

/// print.html cut at its pages: what comes before `<main>`'s pages, each page's HTML (mdBook
/// separates them with a page break), and what follows them.
struct Printed {
    head: String,
    pages: Vec<(PageInfo, String)>,
    tail: String,
}

/// mdBook's page break between two pages of print.html.
const BREAK: &str = "<div style=\"break-before: page; page-break-before: always;\"></div>";

impl Printed {
    fn split(html: &str, info: Vec<PageInfo>) -> Result<Printed> {
        let open = html
            .find("<main>")
            .context("print.html has no <main>: not mdBook's print page")?
            + "<main>".len();
        let close = html[open..]
            .rfind("</main>")
            .context("print.html's <main> is not closed")?
            + open;
        let chunks: Vec<&str> = html[open..close].split(BREAK).collect();
        if chunks.len() != info.len() {
            bail!(
                "print.html holds {} pages and SUMMARY.md names {}: the PDF cannot tell them apart",
                chunks.len(),
                info.len()
            );
        }
        Ok(Printed {
            head: html[..open].to_string(),
            pages: info
                .into_iter()
                .zip(chunks.into_iter().map(str::to_string))
                .collect(),
            tail: html[close..].to_string(),
        })
    }

    /// The pages of one part, in order.
    fn part(&self, paths: &[String]) -> Printed {
        Printed {
            head: self.head.clone(),
            pages: self
                .pages
                .iter()
                .filter(|(info, _)| paths.contains(&info.path))
                .cloned()
                .collect(),
            tail: self.tail.clone(),
        }
    }

    /// The contents: each page's part, the page, and its sections (`<h2>`), with the heading ids
    /// the PDF's named destinations take; the first page (the title) is not listed.
    fn contents(&self) -> Vec<Entry> {
        let mut entries = Vec::new();
        for (info, html) in self.pages.iter().skip(1) {
            if let Some(part) = &info.part {
                entries.push(Entry {
                    depth: 0,
                    number: String::new(),
                    title: part.clone(),
                    id: None,
                });
            }
            let Some(title) = headings(html, "h1").into_iter().next() else {
                continue;
            };
            entries.push(Entry {
                depth: info.depth,
                number: info.number.clone(),
                title: title.html,
                id: Some(title.id),
            });
            for section in headings(html, "h2") {
                entries.push(Entry {
                    depth: info.depth + 1,
                    number: String::new(),
                    title: section.html,
                    id: Some(section.id),
                });
            }
        }
        entries
    }

    /// The running heads of the part's pages: each page's title, and the contents'.
    fn running_heads(&self) -> std::collections::BTreeSet<String> {
        let mut heads: std::collections::BTreeSet<String> = self
            .pages
            .iter()
            .skip(1)
            .map(|(_, html)| running_head(html))
            .collect();
        heads.insert("Contents".into());
        heads
    }

    /// The part as one page to print: its first page (the title), the contents, then every page
    /// under a running head of its own title (CSS named pages: Chromium prints a page's
    /// `@top-center` from the `@page` rule its name selects).
    fn printable(
        &self,
        paper: Paper,
        entries: &[Entry],
        numbers: Option<&BTreeMap<String, u32>>,
    ) -> String {
        // The page's navigation would open a last page of its own (outside every named page).
        // A page's last two paragraphs (a "Next:" line) stay with the text before them.
        let mut style = format!(
            "<style>@page {{ size: {}; }}\nnav.nav-wrapper, nav.nav-wide-wrapper {{ display: none; }}\n\
             section.pdf-page > p:last-child, section.pdf-page > p:nth-last-child(2) {{ break-before: avoid; }}\n",
            paper.css()
        );
        let mut body = String::new();
        for (i, (_, html)) in self.pages.iter().enumerate() {
            // The title page has no running head; every other page has its own title's.
            if i > 0 {
                style.push_str(&format!(
                    "@page p{i} {{ @top-center {{ content: \"{}\"; font-size: 8.5pt; color: #555; }} }}\n",
                    css_string(&running_head(html))
                ));
            }
            // The first page stays on the unnamed page the document starts on: a name of its own
            // would leave that first page blank.
            let name = if i > 0 {
                format!(" style=\"page: p{i}\"")
            } else {
                String::new()
            };
            body.push_str(&format!(
                "<section class=\"pdf-page\"{name}>{}</section>\n",
                without_next_lines(html)
            ));
            if i == 0 {
                style.push_str(
                    "@page contents { @top-center { content: \"Contents\"; font-size: 8.5pt; color: #555; } }\n",
                );
                body.push_str(&contents_nav(entries, numbers));
            }
        }
        style.push_str("</style>\n");
        // mdBook's print page opens the print dialog 100 ms after it loads; headless Chromium's
        // own print then exits 0 without writing the file whenever the two overlap (a larger
        // book, a slower machine), so the copy's window.print does nothing.
        style.push_str("<script>window.print = function () {};</script>\n");
        let head = match self.head.find("</head>") {
            Some(at) => format!("{}{style}{}", &self.head[..at], &self.head[at..]),
            None => format!("{style}{}", self.head),
        };
        format!("{head}\n{body}{}", self.tail)
    }
}

/// Prints one part: a first print with placeholders says on which page each contents entry
/// starts, a second fills them in, and the destinations are read again to check that nothing
/// moved; then the outline, the page numbers and the pages' fill are checked.
fn print_part(browser: &str, dir: &Path, part: &Printed, paper: Paper, out: &Path) -> Result<()> {
    let started = Instant::now();
    let entries = part.contents();
    let copy = dir.join(PRINTED);
    // The PDF pages on which a page of the book begins (its <h1>), once printed.
    let mut starts = Starts {
        heads: part.running_heads(),
        pages: Default::default(),
    };
    let result = (|| {
        std::fs::write(&copy, part.printable(paper, &entries, None))?;
        print_to_pdf(browser, &copy, out)?;
        let numbered = match destinations(out) {
            Some(first) => {
                let pages: BTreeMap<String, u32> = entries
                    .iter()
                    .filter_map(|e| e.id.as_ref())
                    .filter_map(|id| Some((id.clone(), *first.get(id)?)))
                    .collect();
                std::fs::write(&copy, part.printable(paper, &entries, Some(&pages)))?;
                print_to_pdf(browser, &copy, out)?;
                let second = destinations(out).unwrap_or_default();
                starts.pages.extend(
                    entries
                        .iter()
                        .filter(|e| e.depth > 0)
                        .filter_map(|e| second.get(e.id.as_ref()?)),
                );
                let moved: Vec<String> = pages
                    .iter()
                    .filter(|(id, p)| second.get(*id) != Some(p))
                    .map(|(id, p)| format!("{id} (page {p}, now {:?})", second.get(id)))
                    .collect();
                if !moved.is_empty() {
                    bail!(
                        "the contents' page numbers moved between the two prints: {}",
                        moved.join(", ")
                    );
                }
                true
            }
            None => {
                eprintln!(
                    "note: pdfinfo (Debian's poppler-utils) not found: the contents link to the \
                     chapters, without page numbers"
                );
                false
            }
        };
        Ok(numbered)
    })();
    let _ = std::fs::remove_file(&copy);
    let numbered = result?;

    let pdf = std::fs::read(out)?;
    // Chromium versions without the outline flag ignore it: say so rather than ship a PDF
    // without bookmarks.
    if !pdf.windows(15).any(|w| w == b"/Type /Outlines") {
        bail!(
            "{} has no outline (bookmarks): {browser} ignored --generate-pdf-document-outline; use a newer Chromium",
            out.display()
        );
    }
    let pages = pdf.windows(11).filter(|w| w == b"/Type /Page").count()
        - pdf.windows(12).filter(|w| w == b"/Type /Pages").count();
    let numbers = match page_texts(out) {
        Some(texts) => {
            let n = numbered_pages(&texts, pages);
            if n < pages {
                bail!(
                    "{}: only {n} of {pages} pages end with their page number (theme/measure.css's @page \
                     rule, `@bottom-center`)",
                    out.display()
                );
            }
            let bare = bare_pages(&texts, &starts);
            if !bare.is_empty() {
                bail!(
                    "{}: pages that hold almost nothing (a heading or a line cut off from its text): {}",
                    out.display(),
                    bare.join("; ")
                );
            }
            format!("a number at the foot of all {n} pages, none nearly empty")
        }
        None => "page numbers not checked (no pdftotext)".to_string(),
    };
    eprintln!(
        "printed {} ({pages} pages, {}, {:.1} MiB) in {:.0} s: an outline, running heads, {numbers}, contents {}",
        out.display(),
        paper.css(),
        pdf.len() as f64 / (1024.0 * 1024.0),
        started.elapsed().as_secs_f64(),
        if numbered {
            "with page numbers"
        } else {
            "with links"
        }
    );
    Ok(())
}

/// A page without its closing "**Next:**" and "**Then:**" lines: on screen they lead to the next
/// page; on paper that page follows, and a lone "Next:" line would take a page of its own.
fn without_next_lines(html: &str) -> String {
    let mut out = html.to_string();
    for lead in ["<p><strong>Next:</strong>", "<p><strong>Then:</strong>"] {
        while let Some(at) = out.find(lead) {
            let end = out[at..]
                .find("</p>")
                .map_or(out.len(), |e| at + e + "</p>".len());
            out.replace_range(at..end, "");
        }
    }
    out
}

/// A page's running head: its title, as text.
fn running_head(html: &str) -> String {
    headings(html, "h1")
        .into_iter()
        .next()
        .map(|h| h.text)
        .unwrap_or_default()
}

/// A CSS string's content: quotes and backslashes escaped.
fn css_string(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn print_to_pdf(browser: &str, page: &Path, out: &Path) -> Result<()> {
    // Headless Chromium has exited 0 without writing the file (the page's own window.print, now
    // disabled in the copy, was one cause): try again, each time with a fresh profile and after
    // a pause, before calling it a failure.
    let mut last = Ok(());
    for attempt in 0..5 {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
        last = print_once(browser, page, out);
        if last.is_ok() {
            break;
        }
    }
    last
}

fn print_once(browser: &str, page: &Path, out: &Path) -> Result<()> {
    let profile = tempfile::tempdir()?;
    let _ = std::fs::remove_file(out);
    let status = Command::new(browser)
        .args(HEADLESS)
        .args([
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
    Ok(())
}

/// A heading of a page: its id, and its content without mdBook's link to itself, as HTML (for
/// the contents, which keep its code spans) and as text (for a running head).
struct Heading {
    id: String,
    html: String,
    text: String,
}

/// Every `<TAG id="…">` heading of a page's HTML, in order.
fn headings(html: &str, tag: &str) -> Vec<Heading> {
    let doc = scraper::Html::parse_fragment(html);
    let heading = scraper::Selector::parse(&format!("{tag}[id]")).expect("a valid selector");
    let link = scraper::Selector::parse("a.header").expect("a valid selector");
    doc.select(&heading)
        .map(|h| {
            let inner = h.select(&link).next().unwrap_or(h);
            Heading {
                id: h.value().attr("id").unwrap_or_default().to_string(),
                html: inner.inner_html().trim().to_string(),
                text: inner.text().collect::<String>().trim().to_string(),
            }
        })
        .collect()
}

/// The contents, a page of their own; `pages` gives each entry's page (None: placeholders of the
/// same width, for the first print).
fn contents_nav(entries: &[Entry], pages: Option<&BTreeMap<String, u32>>) -> String {
    let mut toc = String::from(
        "<nav class=\"pdf-contents\" style=\"page: contents\">\n<h1 id=\"pdf-contents\">Contents</h1>\n<ol>\n",
    );
    for e in entries {
        let Some(id) = &e.id else {
            toc.push_str(&format!("<li class=\"part\">{}</li>\n", escape(&e.title)));
            continue;
        };
        let page = match pages {
            Some(p) => p.get(id).map(|n| n.to_string()).unwrap_or_default(),
            None => PLACEHOLDER.to_string(),
        };
        toc.push_str(&format!(
            "<li class=\"depth-{}\"><a href=\"#{id}\"><span class=\"number\">{}</span>{}</a>\
             <span class=\"leader\"></span><span class=\"page\">{page}</span></li>\n",
            e.depth.min(3),
            escape(&e.number),
            e.title // as in the page's heading: already HTML
        ));
    }
    toc.push_str("</ol>\n</nav>\n");
    toc
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Named destination → page, from `pdfinfo -dests`; None without pdfinfo.
fn destinations(pdf: &Path) -> Option<BTreeMap<String, u32>> {
    let out = Command::new("pdfinfo")
        .arg("-dests")
        .arg(pdf)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut map = BTreeMap::new();
    for line in text.lines().skip(1) {
        let mut words = line.split_whitespace();
        let (Some(page), Some(q)) = (words.next(), line.find(" \"")) else {
            continue;
        };
        let (Ok(page), Some(name)) = (
            page.parse::<u32>(),
            line[q + 2..].strip_suffix('"').map(str::to_string),
        ) else {
            continue;
        };
        map.entry(name).or_insert(page);
    }
    Some(map)
}

/// Each page's text (pdftotext, in reading order: the running head first, the page number last);
/// None without pdftotext.
fn page_texts(pdf: &Path) -> Option<Vec<String>> {
    // (-layout: in reading order, the footer last; without it a table's cells may follow it)
    let out = Command::new("pdftotext")
        .arg("-layout")
        .arg(pdf)
        .arg("-")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .split('\u{c}')
            .map(str::to_string)
            .collect(),
    )
}

/// How many of the first `pages` pages end with their own number.
fn numbered_pages(texts: &[String], pages: usize) -> usize {
    texts
        .iter()
        .take(pages)
        .enumerate()
        .filter(|(i, page)| {
            page.lines().rev().map(str::trim).find(|l| !l.is_empty()) == Some(&(i + 1).to_string())
        })
        .count()
}

/// The fewest lines of text a page holds besides its running head and number: a page with fewer
/// holds a heading cut off from its text, or a last line cut off from its paragraph.
const FEWEST_LINES: usize = 3;

/// Where the pages of the book begin in a PDF, and the running heads its pages may carry.
#[derive(Default)]
struct Starts {
    heads: std::collections::BTreeSet<String>,
    pages: std::collections::BTreeSet<u32>,
}

/// The pages that continue a page of the book (not the first PDF page, nor one where a page of
/// the book begins, however short it is) and hold fewer than [`FEWEST_LINES`] lines of their
/// own, each as "page N: its text".
fn bare_pages(texts: &[String], starts: &Starts) -> Vec<String> {
    texts
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, _)| !starts.pages.contains(&(*i as u32 + 1)))
        .filter_map(|(i, page)| {
            let lines: Vec<&str> = page
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            // The running head and the page number are not the page's own text.
            let headed = lines.first().is_some_and(|l| starts.heads.contains(*l));
            let own = lines.len().saturating_sub(1 + usize::from(headed));
            (!lines.is_empty() && own < FEWEST_LINES).then(|| {
                format!(
                    "page {}: \"{}\"",
                    i + 1,
                    lines[..lines.len() - 1].join(" / ")
                )
            })
        })
        .collect()
}

/// The flamegraph on paper: at page width its 12 px labels would print at a third of their size,
/// so it prints as two excerpts at full size, cut from the SVG itself, each labelled: the top of
/// the tower (from its highest frame down to the handler, `hash_inline`) and its base (from
/// `run_task` down past the worker's `run`, to the first `BlockingTask` frame), with a link to the
/// whole graph. None when the page has no flamegraph or its frames are not found.
fn flamegraph_excerpts(dir: &Path, html: &str) -> Option<String> {
    let mut from = 0;
    // Find the first <img> whose source is a flamegraph.
    let (img_at, src) = loop {
        let at = html[from..].find("<img src=\"")? + from;
        let s = &html[at + 10..];
        let src = &s[..s.find('"')?];
        if src.ends_with("flamegraph.svg") {
            break (at, src.to_string());
        }
        from = at + 10;
    };
    let img_end = img_at + html[img_at..].find('>')? + 1;
    let svg = std::fs::read_to_string(dir.join(&src)).ok()?;
    let frames = svg_frames(&svg);
    let top = frames.iter().map(|f| f.y).min()?;
    let handler = frames
        .iter()
        .filter(|f| f.title.contains("hash_inline"))
        .map(|f| f.y)
        .min()?;
    let run_task = frames
        .iter()
        .filter(|f| f.title.starts_with("run_task"))
        .map(|f| f.y)
        .min()?;
    let blocking = frames
        .iter()
        .filter(|f| f.y > run_task && f.title.contains("BlockingTask"))
        .map(|f| f.y)
        .min()?;
    let row = frames.iter().map(|f| f.height).max()?;
    let (width, height) = svg_size(&svg)?;
    let crop = |from: u32, to: u32, label: &str| {
        format!(
            "<figcaption>{label}</figcaption>\
             <div class=\"flame-crop\" style=\"height:{}px\"><img src=\"{src}\" alt=\"\" \
             style=\"width:{width}px;height:{height}px;margin-top:-{}px\"></div>",
            to - from + row + 4,
            from.saturating_sub(2)
        )
    };
    let excerpt = format!(
        "<figure class=\"flame-excerpt print-only\">{}{}<figcaption>Two excerpts, at full size, of \
         the flamegraph of the service under inline hash load; the whole graph is the file \
         <code>src/{src}</code> in the book's repository, and an image on the web edition's \
         page.</figcaption></figure>",
        crop(
            top,
            handler,
            "The top of the tower: argon2's frames, inside the handler <code>hash_inline</code>."
        ),
        crop(
            run_task,
            blocking,
            "Its base: the handler's task in <code>run_task</code>, on a worker's \
             <code>multi_thread::worker::run</code>, which Tokio starts as a <code>BlockingTask</code>."
        ),
    );
    // The whole graph stays on screen; on paper the excerpts take its place, after the
    // paragraph that holds it (a figure cannot sit inside a <p>).
    let after = html[img_end..]
        .find("</p>")
        .map_or(img_end, |i| img_end + i + 4);
    Some(format!(
        "{}<span class=\"screen-only\">{}</span>{}{excerpt}{}",
        &html[..img_at],
        &html[img_at..img_end],
        &html[img_end..after],
        &html[after..]
    ))
}

struct Frame {
    title: String,
    y: u32,
    height: u32,
}

/// The frames of an inferno flamegraph: `<g><title>T</title><rect x=.. y=".." .. height="..">`.
fn svg_frames(svg: &str) -> Vec<Frame> {
    let mut out = Vec::new();
    for part in svg.split("<g><title>").skip(1) {
        let Some(end) = part.find("</title>") else {
            continue;
        };
        let title = part[..end].replace("&lt;", "<").replace("&gt;", ">");
        let rect = &part[end..];
        let attr = |name: &str| -> Option<u32> {
            let pat = format!(" {name}=\"");
            let at = rect.find(&pat)? + pat.len();
            rect[at..at + rect[at..].find('"')?].parse().ok()
        };
        if let (Some(y), Some(height)) = (attr("y"), attr("height")) {
            out.push(Frame { title, y, height });
        }
    }
    out
}

/// The SVG's width and height attributes, in px.
fn svg_size(svg: &str) -> Option<(u32, u32)> {
    let head = &svg[svg.find("<svg")?..];
    let head = &head[..head.find('>')?];
    let attr = |name: &str| -> Option<u32> {
        let pat = format!(" {name}=\"");
        let at = head.find(&pat)? + pat.len();
        head[at..at + head[at..].find('"')?].parse().ok()
    };
    Some((attr("width")?, attr("height")?))
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_string_lossy()
        .split(':')
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><head><title>t</title></head><body><main>\n\
        <h1 id=\"intro\"><a class=\"header\" href=\"#intro\">Intro</a></h1><p>a</p>\n\
        <div style=\"break-before: page; page-break-before: always;\"></div>\n\
        <h1 id=\"one\"><a class=\"header\" href=\"#one\">One <code>&lt;T&gt;</code></a></h1>\n\
        <h2 id=\"sec\"><a class=\"header\" href=\"#sec\">A section</a></h2>\n\
        <div style=\"break-before: page; page-break-before: always;\"></div>\n\
        <h1 id=\"notebook\"><a class=\"header\" href=\"#notebook\">Notebook</a></h1>\n\
        </main></body></html>";

    fn info(path: &str, depth: usize, number: &str, part: Option<&str>) -> PageInfo {
        PageInfo {
            path: path.into(),
            depth,
            number: number.into(),
            part: part.map(str::to_string),
        }
    }

    #[test]
    fn each_page_prints_under_its_own_running_head_and_the_contents_go_two_levels_deep() {
        let pages = vec![
            info("title.md", 1, "", None),
            info("one.md", 1, "1.", Some("The pitfalls")),
            info("notebook.md", 1, "", None),
        ];
        let printed = Printed::split(PAGE, pages).unwrap();
        let entries = printed.contents();
        let titles: Vec<(usize, &str)> = entries
            .iter()
            .map(|e| (e.depth, e.title.as_str()))
            .collect();
        assert_eq!(
            titles,
            [
                (0, "The pitfalls"),
                (1, "One <code>&lt;T&gt;</code>"),
                (2, "A section"),
                (1, "Notebook")
            ]
        );
        let book = printed.part(&["title.md".into(), "one.md".into()]);
        let first = book.printable(Paper::Letter, &book.contents(), None);
        assert!(first.contains("@page { size: letter; }"), "{first}");
        assert!(
            first.contains("@page p1 { @top-center { content: \"One <T>\";"),
            "{first}"
        );
        assert!(
            !first.contains("@page p0"),
            "the title page has no running head: {first}"
        );
        // The contents follow the title page, with placeholders in the first print.
        let title_at = first.find("Intro").unwrap();
        let contents_at = first.find("<nav class=\"pdf-contents\"").unwrap();
        assert!(title_at < contents_at && contents_at < first.find("id=\"one\"").unwrap());
        assert_eq!(first.matches("<span class=\"page\">000</span>").count(), 2);
        assert!(!first.contains("Notebook"), "{first}");
        let numbers = BTreeMap::from([("one".to_string(), 3), ("sec".to_string(), 4)]);
        let second = book.printable(Paper::A4, &book.contents(), Some(&numbers));
        assert!(second.contains("href=\"#sec\"><span class=\"number\"></span>A section</a><span class=\"leader\"></span><span class=\"page\">4</span>"), "{second}");
        // A print page that does not hold SUMMARY's pages is refused.
        assert!(Printed::split(PAGE, vec![info("a.md", 1, "", None)]).is_err());
    }

    #[test]
    fn the_screens_next_lines_leave_the_paper() {
        let page = "<p>Text.</p>\n<p><strong>Next:</strong> the <a href=\"x.html\">notes</a>.</p>\n\
                    <p><strong>Then:</strong> more.</p>";
        assert_eq!(without_next_lines(page), "<p>Text.</p>\n\n");
    }

    #[test]
    fn a_page_with_almost_nothing_on_it_is_named() {
        let texts = vec![
            "Title\n\n1".to_string(),
            "Head\nline one\nline two\nline three\n\n2".to_string(),
            "Head\nNext: the notes\n\n3".to_string(),
        ];
        assert_eq!(numbered_pages(&texts, 3), 3);
        let headed = Starts {
            heads: ["Head".to_string()].into(),
            pages: Default::default(),
        };
        assert_eq!(
            bare_pages(&texts, &headed),
            vec!["page 3: \"Head / Next: the notes\""]
        );
        // A short page of the book that begins on page 3 is whole, not cut off.
        let begins = Starts {
            heads: ["Head".to_string()].into(),
            pages: [3].into(),
        };
        assert!(bare_pages(&texts, &begins).is_empty());
        // A page without a running head (the title page's): all its lines are its own.
        let title = vec!["Title\n\n1".to_string(), "a\nb\nc\n\n2".to_string()];
        assert!(bare_pages(&title, &headed).is_empty());
    }

    #[test]
    fn the_flamegraph_prints_as_two_labelled_excerpts_cut_at_its_frames() {
        let dir = tempfile::tempdir().unwrap();
        let svg = "<svg version=\"1.1\" width=\"1200\" height=\"300\">\
            <g><title>compress (9 samples)</title><rect x=\"0%\" y=\"53\" width=\"90%\" height=\"15\"/></g>\
            <g><title>{async_block#0}&lt;fn() -&gt; x::hash_inline&gt;</title><rect x=\"0%\" y=\"85\" width=\"99%\" height=\"15\"/></g>\
            <g><title>run_task (10 samples)</title><rect x=\"0%\" y=\"150\" width=\"100%\" height=\"15\"/></g>\
            <g><title>poll&lt;BlockingTask&lt;x&gt;&gt;</title><rect x=\"0%\" y=\"198\" width=\"100%\" height=\"15\"/></g>\
            </svg>";
        std::fs::write(dir.path().join("ch07-inline-flamegraph.svg"), svg).unwrap();
        let html = "<p><a href=\"ch07-inline-flamegraph.svg\"><img src=\"ch07-inline-flamegraph.svg\" alt=\"A flamegraph\"></a></p>";
        let out = flamegraph_excerpts(dir.path(), html).unwrap();
        assert!(out.contains("<span class=\"screen-only\"><img src=\"ch07-inline-flamegraph.svg\" alt=\"A flamegraph\"></span></a></p><figure class=\"flame-excerpt print-only\">"), "{out}");
        // The top: rows 53 to 85 (three rows of 16 px and a margin); the base: 150 to 198.
        assert!(out.contains("height:51px\"><img src=\"ch07-inline-flamegraph.svg\" alt=\"\" style=\"width:1200px;height:300px;margin-top:-51px\""), "{out}");
        assert!(out.contains("height:67px\"><img src=\"ch07-inline-flamegraph.svg\" alt=\"\" style=\"width:1200px;height:300px;margin-top:-148px\""), "{out}");
        assert!(
            out.contains("the whole graph is the file <code>src/ch07-inline-flamegraph.svg</code>")
        );
        assert!(flamegraph_excerpts(dir.path(), "<p>no graph</p>").is_none());
    }
}
