//! How readable each chapter's main pages are, read from the built HTML as a reader meets them:
//! the prose's words (paragraphs and list items; not code, tables, charts or their captions), its
//! mean sentence length, and the intervals a paragraph asks the reader to hold. `book build`
//! prints them and fails on a page or a paragraph past the limits in `readability.toml`, naming
//! the paragraph, so that the rewritten pages do not grow back (issue 39).

use anyhow::{Context, Result, bail};
use scraper::{ElementRef, Html, Node, Selector};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The limits, `readability.toml` at the book's root.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// The mean sentence length of a page's prose, in words.
    pub mean_sentence_words: f64,
    /// The words of one paragraph or list item.
    pub paragraph_words: usize,
    /// The intervals ("(90 % CI …)", a table's min–max quoted in prose) in one paragraph.
    pub paragraph_intervals: usize,
    /// Each main page's prose words at most, set from its rewritten text.
    pub page_words: BTreeMap<String, usize>,
}

/// One paragraph or list item of prose.
#[derive(Debug, Clone, PartialEq)]
pub struct Paragraph {
    pub text: String,
    pub words: usize,
    pub sentences: usize,
    pub intervals: usize,
}

impl Paragraph {
    /// Its first words, to name it in a message.
    pub fn opening(&self) -> String {
        let words: Vec<&str> = self.text.split_whitespace().take(10).collect();
        format!("\"{} …\"", words.join(" "))
    }
}

/// A page's prose, paragraph by paragraph.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub paragraphs: Vec<Paragraph>,
}

impl Page {
    pub fn words(&self) -> usize {
        self.paragraphs.iter().map(|p| p.words).sum()
    }

    pub fn mean_sentence(&self) -> f64 {
        let sentences: usize = self.paragraphs.iter().map(|p| p.sentences).sum();
        self.words() as f64 / sentences.max(1) as f64
    }

    pub fn intervals(&self) -> usize {
        self.paragraphs.iter().map(|p| p.intervals).sum()
    }
}

/// Reads the prose of one built page (its `<main>`).
pub fn read_page(html: &str) -> Page {
    let doc = Html::parse_document(html);
    let blocks = Selector::parse("main p, main li").expect("a valid selector");
    let mut paragraphs = Vec::new();
    for el in doc.select(&blocks) {
        if outside_prose(el) {
            continue;
        }
        let mut text = String::new();
        let mut rendered = Vec::new();
        own_text(el, &mut text, &mut rendered);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let words = count_words(&text);
        if words == 0 {
            continue;
        }
        // The rendered intervals, and those typed into the prose around them.
        let typed = typed_spreads(&text) - rendered.iter().map(|t| typed_spreads(t)).sum::<usize>();
        let intervals = rendered.len() + typed;
        paragraphs.push(Paragraph {
            sentences: count_sentences(&text).max(1),
            words,
            intervals,
            text,
        });
    }
    Page { paragraphs }
}

/// Code, tables, charts, a record's provenance line, the verdicts rendered from the records and the
/// pages' navigation are not prose; a list item's paragraphs are
/// counted as paragraphs, not again as the item.
fn outside_prose(el: ElementRef) -> bool {
    let within = std::iter::once(el).chain(el.ancestors().filter_map(ElementRef::wrap));
    within.into_iter().any(|a| {
        matches!(
            a.value().name(),
            "pre" | "table" | "svg" | "figure" | "nav" | "code"
        ) || a
            .value()
            .classes()
            .any(|c| c == "provenance" || c == "verdict-summary")
    })
}

/// The element's text without nested lists or paragraphs (counted on their own), and the text of
/// each claim interval the renderer wrote.
fn own_text(el: ElementRef, out: &mut String, intervals: &mut Vec<String>) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                if matches!(e.name(), "ul" | "ol" | "p" | "pre" | "table" | "figure") {
                    continue;
                }
                if e.classes().any(|c| c == "claim-interval")
                    && let Some(span) = ElementRef::wrap(child)
                {
                    intervals.push(span.text().collect());
                }
                if let Some(child) = ElementRef::wrap(child) {
                    // A verdict mark is a sign, not a word.
                    if e.classes().any(|c| c == "claim-mark") {
                        continue;
                    }
                    out.push(' ');
                    own_text(child, out, intervals);
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
}

/// Words: whitespace-separated tokens with a letter or digit in them.
pub fn count_words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Sentences: ends at ".", "!" or "?" (or ":" before a capital) followed by a space and a capital,
/// a digit, a code span or a quote, or the text's end; "e.g." and "i.e." do not end one.
pub fn count_sentences(text: &str) -> usize {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut n = 0;
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_end_matches(['"', '\'', '”', '’', ')']);
        let ends = w.ends_with(['.', '!', '?']) && !matches!(w, "e.g." | "i.e." | "etc." | "vs.");
        if !ends {
            continue;
        }
        match words.get(i + 1) {
            None => n += 1,
            Some(next) => {
                if next
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || "`\"“(".contains(c))
                {
                    n += 1;
                }
            }
        }
    }
    if n == 0 && !words.is_empty() { 1 } else { n }
}

/// Spreads typed into the prose around the figures: "min–max", "from … to … over the repetitions".
fn typed_spreads(text: &str) -> usize {
    text.matches("over the repetitions").count() + text.matches("min–max").count()
}

/// Intervals written the old, ambiguous way, "(1.60–3.44× over 5 repetitions)", which read the
/// same as a table's min–max: each interval says what it is, "90% CI" or "min–max".
pub fn unnamed_intervals(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(" repetitions)") {
        let before = &rest[..at];
        if let Some(open) = before.rfind('(') {
            let inside = &before[open + 1..];
            let is_range = inside.contains('–') && inside.ends_with(|c: char| c.is_ascii_digit());
            if is_range && !inside.contains("CI") && !inside.contains("min–max") {
                found.push(format!("({inside} repetitions)"));
            }
        }
        rest = &rest[at + " repetitions)".len()..];
    }
    found
}

/// The widest line a diagram (a ```text block) may have: theme/measure.css prints diagrams at a
/// size that fits this many columns on A4 without wrapping them.
pub const DIAGRAM_COLUMNS: usize = 96;

/// The diagrams of a built page wider than [`DIAGRAM_COLUMNS`], each named by its first line.
pub fn wide_diagrams(doc: &Html) -> Vec<String> {
    let diagrams = Selector::parse("pre > code.language-text").expect("a valid selector");
    doc.select(&diagrams)
        .filter_map(|code| {
            let text: String = code.text().collect();
            let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            (widest > DIAGRAM_COLUMNS).then(|| {
                format!(
                    "a diagram {widest} columns wide, over {DIAGRAM_COLUMNS}: \"{}\"",
                    text.lines().next().unwrap_or("").trim()
                )
            })
        })
        .collect()
}

/// The main pages of every chapter (each manifest's pages but its part two).
pub fn main_pages(root: &Path) -> Result<Vec<String>> {
    let chapters = records::chapter::all(root).map_err(|e| anyhow::anyhow!(e))?;
    Ok(chapters
        .iter()
        .flat_map(|c| c.main_pages().iter().cloned())
        .collect())
}

pub fn load_limits(root: &Path) -> Result<Limits> {
    let path = root.join("readability.toml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("{}", path.display()))
}

/// What is past a limit on one page, each a line.
pub fn breaches(page_name: &str, page: &Page, limits: &Limits) -> Vec<String> {
    let mut out = Vec::new();
    match limits.page_words.get(page_name) {
        None => out.push(format!(
            "{page_name}: no `page-words` limit in readability.toml (it has {} words of prose)",
            page.words()
        )),
        Some(&most) if page.words() > most => {
            let mut longest: Vec<&Paragraph> = page.paragraphs.iter().collect();
            longest.sort_by_key(|p| std::cmp::Reverse(p.words));
            out.push(format!(
                "{page_name}: {} words of prose, over its limit of {most}; its longest paragraphs: {}",
                page.words(),
                longest
                    .iter()
                    .take(3)
                    .map(|p| format!("{} ({} words)", p.opening(), p.words))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        Some(_) => {}
    }
    if page.mean_sentence() > limits.mean_sentence_words {
        out.push(format!(
            "{page_name}: sentences of {:.1} words on average, over the limit of {}",
            page.mean_sentence(),
            limits.mean_sentence_words
        ));
    }
    for p in &page.paragraphs {
        if p.words > limits.paragraph_words {
            out.push(format!(
                "{page_name}: the paragraph {} has {} words, over the limit of {}",
                p.opening(),
                p.words,
                limits.paragraph_words
            ));
        }
        if p.intervals > limits.paragraph_intervals {
            out.push(format!(
                "{page_name}: the paragraph {} has {} intervals, over the limit of {}: show the others' figures alone (`show=short`)",
                p.opening(),
                p.intervals,
                limits.paragraph_intervals
            ));
        }
    }
    out
}

/// Prints each main page's figures and fails on what is past a limit.
pub fn check(root: &Path, build_dir: &Path, parts: &crate::parts::Parts) -> Result<()> {
    let pages = main_pages(root)?;
    // A book without chapters (a test's) has nothing to hold to limits.
    if pages.is_empty() {
        return Ok(());
    }
    let limits = load_limits(root)?;
    for name in limits.page_words.keys() {
        if !pages.contains(name) {
            bail!("readability.toml: `{name}` is not a chapter's main page");
        }
    }
    println!(
        "{:<26} {:>6} {:>9} {:>10} {:>9}",
        "main page", "words", "sentence", "paragraphs", "intervals"
    );
    let mut all = Vec::new();
    for name in &pages {
        let file = build_dir.join(name.replace(".md", ".html"));
        let html = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let page = read_page(&html);
        println!(
            "{:<26} {:>6} {:>9.1} {:>10} {:>9}",
            name,
            page.words(),
            page.mean_sentence(),
            page.paragraphs.len(),
            page.intervals()
        );
        all.extend(breaches(name, &page, &limits));
    }
    // The reader's book names each interval; the notebook quotes the records of their day.
    for page in &parts.reader {
        let path = build_dir.join(page.replace(".md", ".html"));
        let html = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let doc = Html::parse_document(&html);
        let text = doc.root_element().text().collect::<String>();
        for old in unnamed_intervals(&text) {
            all.push(format!(
                "{page}: an interval that does not say what it is: {old} (write \"90% CI …\" or \"min–max …\")"
            ));
        }
        for wide in wide_diagrams(&doc) {
            all.push(format!(
                "{page}: {wide} (it would not fit the printed page)"
            ));
        }
    }
    if !all.is_empty() {
        bail!(
            "the book is past its readability limits:\n  {}",
            all.join("\n  ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Page {
        read_page(&format!("<html><body><main>{body}</main></body></html>"))
    }

    #[test]
    fn prose_leaves_out_code_tables_charts_and_rendered_verdicts() {
        let p = page(
            "<p>One two three.</p><pre><code>let x = 1;</code></pre>\
             <table><tr><td><p>four five</p></td></tr></table>\
             <figure><svg><text>six</text></svg><figcaption><p>seven</p></figcaption></figure>\
             <ul><li>Eight nine. <p>Ten eleven.</p></li></ul>\
             <p class=\"verdict-summary\">On m: 2 of 2 held.</p><ul class=\"verdict-summary\"><li>x y</li></ul>",
        );
        assert_eq!(p.words(), 7);
        assert_eq!(p.paragraphs.len(), 3);
    }

    #[test]
    fn sentences_end_at_a_stop_before_a_capital_not_at_a_decimal_or_an_abbreviation() {
        assert_eq!(
            count_sentences("It took 1.5 ms, e.g. a job. Then it ended. `x` ran."),
            3
        );
        assert_eq!(count_sentences("no stop at all"), 1);
    }

    #[test]
    fn intervals_are_counted_in_their_paragraph() {
        let p = page(
            "<p>A <a>2.3×</a> <span class=\"claim-interval\">(90 % CI 2.0–2.5×)</span> and \
             <a>4×</a> <span class=\"claim-interval\">(90 % CI 3–5×)</span>.</p><p>None here.</p>",
        );
        assert_eq!(p.paragraphs[0].intervals, 2);
        assert_eq!(p.paragraphs[1].intervals, 0);
    }

    #[test]
    fn an_interval_must_say_whether_it_is_a_ci_or_a_range() {
        assert_eq!(
            unnamed_intervals("took 2.41× (1.60–3.44× over 5 repetitions) here"),
            vec!["(1.60–3.44× over 5 repetitions)"]
        );
        assert!(
            unnamed_intervals("2.41× (90% CI 1.60–3.44×) and 3 (min–max 1–4 over 5 repetitions)")
                .is_empty()
        );
        assert!(unnamed_intervals("0 (0 in each of 5 repetitions)").is_empty());
    }

    #[test]
    fn a_rendered_min_max_is_one_interval_and_a_provenance_line_is_not_prose() {
        let p = page(
            "<p>A <span class=\"claim-interval\">(min–max 1–4 over 5 repetitions)</span>.</p>\
             <details class=\"provenance\"><summary>Measured on a machine</summary><p>Its CPU.</p></details>",
        );
        assert_eq!(p.paragraphs.len(), 1);
        assert_eq!(p.paragraphs[0].intervals, 1);
    }

    #[test]
    fn a_diagram_wider_than_the_printed_page_is_named() {
        let wide_diagrams = |html: &String| super::wide_diagrams(&Html::parse_document(html));
        let wide = format!(
            "<pre><code class=\"language-text\">top\n{}</code></pre>",
            "x".repeat(97)
        );
        assert_eq!(wide_diagrams(&wide).len(), 1);
        assert!(wide_diagrams(&wide)[0].contains("97 columns"));
        let fits = format!(
            "<pre><code class=\"language-text\">{}</code></pre>",
            "─".repeat(96)
        );
        assert!(
            wide_diagrams(&fits).is_empty(),
            "columns are characters, not bytes"
        );
        let code = format!(
            "<pre><code class=\"language-rust\">{}</code></pre>",
            "x".repeat(120)
        );
        assert!(
            wide_diagrams(&code).is_empty(),
            "code wraps; only diagrams keep their columns"
        );
    }

    #[test]
    fn a_page_past_its_words_names_its_longest_paragraph() {
        let p = page("<p>Short one.</p><p>A much longer paragraph of many words here.</p>");
        let limits = Limits {
            mean_sentence_words: 24.0,
            paragraph_words: 100,
            paragraph_intervals: 1,
            page_words: [("ch.md".to_string(), 5)].into(),
        };
        let b = breaches("ch.md", &p, &limits);
        assert_eq!(b.len(), 1, "{b:?}");
        assert!(b[0].contains("\"A much longer paragraph"), "{}", b[0]);
        assert!(breaches("other.md", &p, &limits)[0].contains("no `page-words` limit"));
    }

    #[test]
    fn a_long_sentence_and_a_crowded_paragraph_fail() {
        let long = vec!["word"; 30].join(" ");
        let p = page(&format!(
            "<p>{long}.</p><p>x <span class=\"claim-interval\">(a)</span> y <span class=\"claim-interval\">(b)</span></p>"
        ));
        let limits = Limits {
            mean_sentence_words: 10.0,
            paragraph_words: 20,
            paragraph_intervals: 1,
            page_words: [("ch.md".to_string(), 1000)].into(),
        };
        let b = breaches("ch.md", &p, &limits).join("\n");
        assert!(b.contains("sentences of"), "{b}");
        assert!(b.contains("has 30 words"), "{b}");
        assert!(b.contains("has 2 intervals"), "{b}");
    }
}
