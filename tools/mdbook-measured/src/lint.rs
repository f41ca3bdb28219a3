//! No typed numbers: a measurement in a chapter's prose comes from `data/` through a directive,
//! never from the author's keyboard. This lint reads what the reader sees, outside directives,
//! code spans and code blocks: Markdown text, and the text of raw HTML (a sentence on the line
//! after a `</details>` is HTML to Markdown, and the page shows it), and it finds
//!
//! - a number with a unit or a multiplier ("35.3 ms", "448×", "13.9%", "2 MiB", "twice", "half as long");
//! - a tally of results ("3 of 5", "two of the three", "eight of them");
//! - a count written with thousands separators ("300,000 of them", "of 8,571"): such a count is
//!   a record's derived value or a measurement, and the `derived` or `value` directive shows it;
//! - output typed into a `console` block: a line that is not a command (`$ ...`) or a comment.
//!   Program output comes from `listings/*/outputs/`, where `book outputs` reruns it.
//!
//! Facts that are not measurements (Tokio's 1 ms timer resolution, from its docs) are allowed one
//! by one in book.toml, each on its page, with the words around it (an allowance as wide as the
//! number itself would let every use of that number through) and its reason:
//!
//! ```toml
//! [[preprocessor.measure.allowed-numbers]]
//! page = "ch01-blocking.md"
//! text = "1 ms"
//! why = "Tokio's timer resolution, from the tokio::time docs; not a measurement"
//! ```

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

/// One allowed phrase on one page, with the reason. The page is required: an allowance for every
/// page would let the number through everywhere.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowed {
    pub page: String,
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

/// Number words, for tallies written out ("two of the three").
const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty",
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
    let mut console = false;
    let mut in_code_block = false;
    // Raw HTML keeps its text; what sits inside <code>, <pre>, <svg>, <script>, <style> does not show as prose.
    let mut hidden = 0usize;
    let mut check = |text: &str, offset: usize, findings: &mut Vec<Finding>| {
        let line = blanked[..offset].matches('\n').count() + 1;
        for phrase in measurements(text) {
            // An allowance covers the phrase where its whole text stands around it.
            let allowance = allowed
                .iter()
                .position(|a| a.page == page && a.text.contains(&phrase) && text.contains(&a.text));
            match allowance {
                Some(i) => used.push(i),
                None => findings.push(Finding { line, text: phrase }),
            }
        }
    };
    for (event, range) in Parser::new_ext(&blanked, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code_block = true;
                console = matches!(&kind, CodeBlockKind::Fenced(lang) if lang.split(',').next() == Some("console"));
            }
            Event::End(TagEnd::CodeBlock) => (in_code_block, console) = (false, false),
            Event::Text(text) if in_code_block && console => {
                let line0 = blanked[..range.start].matches('\n').count() + 1;
                for (i, l) in text.lines().enumerate() {
                    if let Some(typed) = typed_output(l) {
                        findings.push(Finding {
                            line: line0 + i,
                            text: typed,
                        });
                    }
                }
            }
            Event::Text(text) if !in_code_block && hidden == 0 => {
                check(&text, range.start, &mut findings)
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                let text = html_text(&html, &mut hidden);
                check(&text, range.start, &mut findings);
            }
            _ => {}
        }
    }
    (findings, used)
}

/// A console block's line that is output rather than a command, a comment or a placeholder left
/// by an included file.
fn typed_output(line: &str) -> Option<String> {
    let l = line.trim();
    let command =
        l.is_empty() || l.starts_with("$ ") || l == "$" || l.starts_with('#') || l == "MEASURED";
    (!command).then(|| format!("typed output in a console block: {l}"))
}

/// The text a browser shows of an HTML fragment: tags dropped, entities left as they are, and
/// nothing inside the elements counted in `hidden` (which carries over between fragments).
fn html_text(html: &str, hidden: &mut usize) -> String {
    const HIDDEN: [&str; 5] = ["code", "pre", "svg", "script", "style"];
    let mut out = String::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        if *hidden == 0 {
            out.push_str(&rest[..lt]);
        }
        let Some(gt) = rest[lt..].find('>') else {
            rest = "";
            break;
        };
        let tag = &rest[lt + 1..lt + gt];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if HIDDEN.contains(&name.as_str()) && !tag.ends_with('/') {
            if closing {
                *hidden = hidden.saturating_sub(1);
            } else {
                *hidden += 1;
            }
        }
        out.push(' ');
        rest = &rest[lt + gt + 1..];
    }
    if *hidden == 0 {
        out.push_str(rest);
    }
    out
}

/// Whether an allowance is as wide as the measurement it lets through: "10 ms" alone would let
/// every "10 ms" on its page through.
pub fn too_wide(a: &Allowed) -> bool {
    measurements(&a.text)
        .iter()
        .any(|m| m.trim() == a.text.trim())
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

/// The measurement-like phrases in one run of text: "35.3 ms", "10×", "twice", "3 of 5",
/// "300,000".
fn measurements(text: &str) -> Vec<String> {
    let mut out = tallies(text);
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
            // A count with thousands separators is a record's figure, not prose.
            let number = &text[start..chars.get(j).map_or(text.len(), |c| c.0)];
            if number.contains(',') {
                out.push(number.to_string());
            }
            i = j.max(i + 1);
        }
    }
    out
}

/// "3 of 5", "two of the three", "eight of them", "8 of 10 repetitions": how many times something
/// held is a measured outcome.
fn tallies(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase()
    };
    let is_number = |w: &str| {
        let w = bare(w);
        !w.is_empty()
            && (w.chars().all(|c| c.is_ascii_digit()) || NUMBER_WORDS.contains(&w.as_str()))
    };
    let mut out = Vec::new();
    for i in 0..words.len() {
        if !is_number(words[i]) || words.get(i + 1).map(|w| bare(w)) != Some("of".into()) {
            continue;
        }
        // "one of them", "one of the two CPUs": one of several things is prose, not a tally.
        if bare(words[i]) == "one" {
            continue;
        }
        let next = words.get(i + 2).map(|w| bare(w)).unwrap_or_default();
        let of_them = next == "them";
        let of_n = match next.as_str() {
            "the" | "its" => words.get(i + 3).is_some_and(|w| is_number(w)),
            _ => is_number(words.get(i + 2).copied().unwrap_or_default()),
        };
        if of_them || of_n {
            let end = if of_n && (next == "the" || next == "its") {
                i + 3
            } else {
                i + 2
            };
            out.push(words[i..=end].join(" "));
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
        assert!(found("the 1990s and utf8 and x86_64").is_empty());
        assert!(found("<pre>took 35 ms</pre>\n<svg><text>35 ms</text></svg>\n").is_empty());
        assert_eq!(found("a 10 minute read"), vec!["10 minute"]);
    }

    #[test]
    fn what_markdown_renders_from_raw_html_is_read_too() {
        // Right after a `</details>`, with no blank line, a sentence is HTML to Markdown: the
        // page shows it all the same.
        let md = "<details><summary>Answer</summary>\n\nfolded\n\n</details>\nThe inline p99 was 35.3 ms here, 151× the fix.\n";
        let (f, _) = typed_numbers(md, "ch.md", &[]);
        assert_eq!(
            f.iter()
                .map(|f| (f.line, f.text.as_str()))
                .collect::<Vec<_>>(),
            [(6, "35.3 ms"), (6, "151×")]
        );
        assert_eq!(
            found("<table><tr><td>35 ms</td></tr></table>\n"),
            vec!["35 ms"]
        );
        assert_eq!(
            found("<span title=\"x\">took <code>35 ms</code> and 2.5 s</span>"),
            vec!["2.5 s"]
        );
    }

    #[test]
    fn tallies_and_separated_counts_are_measured_outcomes() {
        assert_eq!(
            found("it failed in two of the three busy runs"),
            vec!["two of the three"]
        );
        assert_eq!(found("held in 8 of 10 repetitions"), vec!["8 of 10"]);
        assert_eq!(found("and eight of them were late"), vec!["eight of them"]);
        assert_eq!(
            found("300,000 of them, of 8,571 tasks"),
            vec!["300,000", "8,571"]
        );
        assert!(
            found("one of the workers, all of them, one of them, one of the two CPUs").is_empty()
        );
        assert!(found("Chapter 3 of the book, 2026").is_empty());
    }

    #[test]
    fn a_console_block_holds_commands_not_typed_output() {
        let md = "```console\n$ cargo run -p ch01-blocking\n# a comment\nbuild everything ok (209 s)\n```\n";
        let (f, _) = typed_numbers(md, "ch.md", &[]);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].line, f[0].text.as_str()),
            (
                4,
                "typed output in a console block: build everything ok (209 s)"
            )
        );
        // Output included from a listing's outputs file is rerun by `book outputs`.
        assert!(found("```console\n{{#include ../listings/x/outputs/a.txt}}\n```\n").is_empty());
        assert!(found("```text\nanything 35 ms\n```\n").is_empty());
    }

    #[test]
    fn an_allowance_needs_the_words_around_its_number() {
        let a = |text: &str| Allowed {
            page: "ch.md".into(),
            text: text.into(),
            why: "a setting".into(),
        };
        assert!(too_wide(&a("10 ms")));
        assert!(!too_wide(&a("jobs of 10 ms")));
    }

    #[test]
    fn an_allowance_lets_one_phrase_through_on_its_page() {
        let allowed = vec![Allowed {
            page: "ch.md".into(),
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
