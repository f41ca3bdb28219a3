//! No typed numbers: a measurement in a chapter's prose comes from `data/` through a directive,
//! never from the author's keyboard. This lint finds a number with a unit or a multiplier
//! ("35.3 ms", "448×", "13.9%", "2 MiB", "twice", "half as long") in prose outside a directive,
//! a code span or a code block. Facts that are not measurements (Tokio's 1 ms timer resolution,
//! from its docs) are allowed one by one in book.toml, each with its reason:
//!
//! ```toml
//! [[preprocessor.measure.allowed-numbers]]
//! page = "ch01-blocking.md"
//! text = "1 ms"
//! why = "Tokio's timer resolution, from the tokio::time docs; not a measurement"
//! ```

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

/// One allowed phrase on one page (or every page, without `page`), with the reason.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowed {
    pub page: Option<String>,
    pub text: String,
    pub why: String,
}

/// Units and multipliers that make a number a measurement.
const UNITS: &[&str] = &[
    "ns",
    "µs",
    "us",
    "ms",
    "s",
    "sec",
    "seconds",
    "second",
    "milliseconds",
    "millisecond",
    "microseconds",
    "microsecond",
    "nanoseconds",
    "minutes",
    "minute",
    "%",
    "×",
    "x",
    "B",
    "KiB",
    "MiB",
    "GiB",
    "KB",
    "MB",
    "GB",
    "kB",
    "req/s",
    "msg/s",
    "calls/s",
    "reads/s",
    "ops/s",
    "tasks/s",
    "jobs/s",
    "/s",
    "GHz",
    "MHz",
    "times",
];

/// Words that compare magnitudes without a digit ("twice as long"; not "counted twice").
const WORDS: &[&str] = &[
    "twice as",
    "twice the",
    "twice that",
    "twice its",
    "half as",
    "half the time",
    "thrice",
    "three times",
    "four times",
    "five times",
    "ten times",
    "a hundred times",
    "a thousand times",
    "an order of magnitude",
    "orders of magnitude",
];

/// A typed measurement found on a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub line: usize,
    pub text: String,
}

/// The typed measurements in `content` (a chapter's Markdown, directives still in it), less the
/// ones `allowed` lets through on `page`. Also returns the indices of the allowances used.
pub fn typed_numbers(content: &str, page: &str, allowed: &[Allowed]) -> (Vec<Finding>, Vec<usize>) {
    let blanked = blank_directives(content);
    let mut findings = Vec::new();
    let mut used = Vec::new();
    let mut in_code_block = false;
    let mut in_html_block = 0usize;
    for (event, range) in Parser::new_ext(&blanked, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Start(Tag::HtmlBlock) => in_html_block += 1,
            Event::End(TagEnd::HtmlBlock) => in_html_block = in_html_block.saturating_sub(1),
            Event::Text(text) if !in_code_block && in_html_block == 0 => {
                let line = blanked[..range.start].matches('\n').count() + 1;
                for phrase in measurements(&text) {
                    // An allowance covers the phrase where its whole text stands around it.
                    let allowance = allowed.iter().position(|a| {
                        a.page.as_deref().is_none_or(|p| p == page)
                            && a.text.contains(&phrase)
                            && text.contains(&a.text)
                    });
                    match allowance {
                        Some(i) => used.push(i),
                        None => findings.push(Finding { line, text: phrase }),
                    }
                }
            }
            _ => {}
        }
    }
    (findings, used)
}

/// Replaces each `{{#measure ...}}` with a placeholder word, keeping line breaks, so that what a
/// directive renders is not mistaken for typed text and line numbers stay right.
fn blank_directives(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(at) = rest.find("{{#") {
        out.push_str(&rest[..at]);
        let from = &rest[at..];
        let end = from.find("}}").map_or(from.len(), |e| e + 2);
        let newlines = from[..end].matches('\n').count();
        out.push_str("MEASURED");
        out.push_str(&"\n".repeat(newlines));
        rest = &from[end..];
    }
    out.push_str(rest);
    out
}

/// The measurement-like phrases in one run of text: "35.3 ms", "10×", "twice".
fn measurements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_lowercase();
    for w in WORDS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(w) {
            let start = from + at;
            let end = start + w.len();
            let before_ok = !lower[..start]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let after_ok = !lower[end..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
            if before_ok && after_ok {
                out.push(text[start..end].to_string());
            }
            from = end;
        }
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let starts_number = c.is_ascii_digit()
            && !(i > 0 && (chars[i - 1].1.is_alphanumeric() || chars[i - 1].1 == '_'));
        if !starts_number {
            i += 1;
            continue;
        }
        // The number: digits with thousands separators and a decimal point.
        let mut j = i;
        while j < chars.len()
            && (chars[j].1.is_ascii_digit()
                || (matches!(chars[j].1, ',' | '.')
                    && chars.get(j + 1).is_some_and(|n| n.1.is_ascii_digit())))
        {
            j += 1;
        }
        // An optional space (plain, non-breaking or thin), then the unit.
        let mut k = j;
        if chars
            .get(k)
            .is_some_and(|c| matches!(c.1, ' ' | '\u{a0}' | '\u{2009}' | '\u{202f}'))
        {
            k += 1;
        }
        let unit_start = chars.get(k).map_or(text.len(), |c| c.0);
        let after = &text[unit_start..];
        let unit = UNITS
            .iter()
            .filter(|u| {
                after.starts_with(**u)
                    && !after[u.len()..]
                        .chars()
                        .next()
                        .is_some_and(|n| n.is_alphanumeric() || n == '_')
            })
            .max_by_key(|u| u.len());
        // A bare "x" counts only when attached ("10x"), not as a variable ("2 x 3"); a bare "s"
        // or "B" only after a space ("5 s"), not in "1990s".
        let attached = k == j;
        let unit = unit.filter(|u| match **u {
            "x" => attached,
            "s" | "B" => !attached,
            _ => true,
        });
        if let Some(u) = unit {
            out.push(text[start..unit_start + u.len()].to_string());
            i = k + u.chars().count();
        } else {
            i = j.max(i + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(md: &str) -> Vec<String> {
        typed_numbers(md, "ch.md", &[])
            .0
            .into_iter()
            .map(|f| f.text)
            .collect()
    }

    #[test]
    fn typed_measurements_are_found_with_their_line() {
        let md =
            "# T\n\nThe inline p99 was 35.3 ms here.\n\nIt was 448× the fix, and 13.9% waited.\n";
        let (f, _) = typed_numbers(md, "ch.md", &[]);
        assert_eq!(
            f,
            vec![
                Finding {
                    line: 3,
                    text: "35.3 ms".into()
                },
                Finding {
                    line: 5,
                    text: "448×".into()
                },
                Finding {
                    line: 5,
                    text: "13.9%".into()
                },
            ]
        );
        assert_eq!(found("a 2,500 req/s load"), vec!["2,500 req/s"]);
        assert_eq!(found("took twice as long"), vec!["twice as"]);
        assert_eq!(found("took twice the time"), vec!["twice the"]);
        assert!(found("an id given twice fails").is_empty());
        assert_eq!(found("was half as long again"), vec!["half as"]);
        assert_eq!(found("1.5x faster"), vec!["1.5x"]);
        assert_eq!(found("4 KiB files"), vec!["4 KiB"]);
    }

    #[test]
    fn directives_code_and_plain_numbers_are_not_measurements() {
        assert!(found("p99 was {{#measure value record=x case=1 metric=p99}} here").is_empty());
        assert!(found("`sleep(Duration::from_millis(2))` and `10ms`").is_empty());
        assert!(found("```rust\nlet x = 35; // 35 ms\n```\n").is_empty());
        assert!(found("Chapter 2, p99, p99.9, 16 cores, a 2-core machine, 2 x 3").is_empty());
        assert!(found("<table><tr><td>35 ms</td></tr></table>\n").is_empty());
        assert!(found("the 1990s and utf8 and x86_64").is_empty());
        assert_eq!(found("a 10 minute read"), vec!["10 minute"]);
    }

    #[test]
    fn an_allowance_lets_one_phrase_through_on_its_page() {
        let allowed = vec![Allowed {
            page: Some("ch.md".into()),
            text: "1 ms".into(),
            why: "Tokio's timer resolution".into(),
        }];
        let (f, used) = typed_numbers("ticks of 1 ms, and 2 ms here", "ch.md", &allowed);
        assert_eq!(
            f,
            vec![Finding {
                line: 1,
                text: "2 ms".into()
            }]
        );
        assert_eq!(used, vec![0]);
        let (f, used) = typed_numbers("ticks of 1 ms", "other.md", &allowed);
        assert_eq!(f.len(), 1);
        assert!(used.is_empty());
    }
}
