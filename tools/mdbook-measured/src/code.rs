//! Code blocks as a reader sees them.
//!
//! Before `links` (the `measure` preprocessor, every renderer): a block that includes a file
//! gets a caption naming the file under `listings/` or `examples/`, and a Rust block gets
//! `noplayground`, since the book's code uses the listings' own crates, which the online
//! playground does not have.
//!
//! After `links` (the `measure-html` preprocessor, the HTML renderer only): `rustdoc_include`
//! embeds the whole file as hidden lines so that rustdoc can compile the shown part in context.
//! The test renderer keeps them; the HTML page drops them, so that it carries only the code it
//! shows, and its search index holds nothing a reader cannot see.

use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

/// Adds a caption with the included file's path before each fenced block that includes one, and
/// `noplayground` to each Rust fence.
pub fn annotate_blocks(content: &str) -> String {
    let mut out = String::with_capacity(content.len() + 256);
    let mut lines = content.lines().peekable();
    let mut in_fence = false;
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if !in_fence {
                let indent = &line[..line.len() - trimmed.len()];
                let info = trimmed.trim_start_matches('`');
                if let Some(path) = lines.peek().and_then(|next| included_path(next)) {
                    out.push_str(&format!(
                        "{indent}<p class=\"code-caption\"><code>{}</code></p>\n\n",
                        crate::esc(&path)
                    ));
                }
                let is_rust = info.split(',').next() == Some("rust");
                if is_rust && !info.split(',').any(|a| a.trim() == "noplayground") {
                    out.push_str(&format!("{indent}```{info},noplayground\n"));
                } else {
                    out.push_str(line);
                    out.push('\n');
                }
            } else {
                out.push_str(line);
                out.push('\n');
            }
            in_fence = !in_fence;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !content.ends_with('\n') {
        out.pop();
    }
    out
}

/// `listings/ch01-blocking/src/lib.rs` from `{{#rustdoc_include ../listings/ch01-blocking/src/lib.rs:burn}}`.
fn included_path(line: &str) -> Option<String> {
    let rest = line
        .trim()
        .strip_prefix("{{#rustdoc_include ")
        .or_else(|| line.trim().strip_prefix("{{#include "))?;
    let arg = rest.split(['}', ' ']).next()?;
    let file = arg.split(':').next()?;
    let file = file.trim_start_matches("../");
    // Only the book's own code gets a caption: program output files are shown as output.
    (!file.contains("/outputs/")).then(|| file.to_string())
}

/// For the page: drops the lines mdBook would hide in Rust blocks (`# ` or a lone `#`), keeping
/// `##` escapes; wraps long comment lines; and marks a block still wider than the column
/// (`cols-92`, `cols-100`: theme/measure.css sets it a little smaller, so it fits; `cols-wrap`:
/// program output wider still, which wraps).
pub fn strip_hidden_lines(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    // The open block: its opening fence, whether it is Rust, and its body so far.
    let mut block: Option<(String, bool, String)> = None;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```");
        match &mut block {
            Some((open, rust, body)) if fence => {
                let body = if *rust {
                    reflow_comments(body)
                } else {
                    body.clone()
                };
                out.push_str(&with_width_class(open, *rust, &body));
                out.push_str(&body);
                out.push_str(line);
                block = None;
            }
            Some((_, true, body)) => {
                let text = trimmed.trim_end_matches(['\n', '\r']);
                if text != "#" && !text.starts_with("# ") {
                    body.push_str(line);
                }
            }
            Some((_, false, body)) => body.push_str(line),
            None if fence => {
                let info = trimmed.trim_start_matches('`').trim();
                let rust = info.split(',').next() == Some("rust");
                block = Some((line.to_string(), rust, String::new()));
            }
            None => out.push_str(line),
        }
    }
    if let Some((open, _, body)) = block {
        out.push_str(&open);
        out.push_str(&body);
    }
    out
}

/// The opening fence, with a class naming how wide the block's longest line is when it is wider
/// than the column. Code keeps its lines; program output wider than the smallest size wraps.
fn with_width_class(open: &str, rust: bool, body: &str) -> String {
    let widest = body.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let class = match widest {
        w if w <= CODE_COLUMNS => return open.to_string(),
        w if w <= 92 => "cols-92",
        w if w <= 100 || rust => "cols-100",
        _ => "cols-wrap",
    };
    let end = open.trim_end_matches(['\n', '\r']);
    // A fence with no language ("```") gets one, so that mdBook keeps the class.
    let sep = if end.trim_start().trim_start_matches('`').is_empty() {
        "text,"
    } else {
        ","
    };
    format!("{end}{sep}{class}{}", &open[end.len()..])
}

/// The widest code line the text column shows whole at 1280 px (mdBook's 750 px column in its
/// monospace font): a comment line wider than this is wrapped for the page.
pub const CODE_COLUMNS: usize = 84;

/// A whole-line comment's indentation and marker (`//`, `///`, `//!`), and its text.
fn comment(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start();
    let marker = ["///", "//!", "//"]
        .into_iter()
        .find(|m| rest.starts_with(m))?;
    let prefix_len = line.len() - rest.len() + marker.len();
    Some((&line[..prefix_len], &line[prefix_len..]))
}

/// Re-wraps each run of whole-line comments (same indentation and marker) that has a line wider
/// than [`CODE_COLUMNS`], paragraph by paragraph, so the page need not scroll and the comment
/// reads as prose; the listing itself is unchanged.
fn reflow_comments(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = String::with_capacity(body.len());
    let mut i = 0;
    while i < lines.len() {
        let Some((prefix, _)) = comment(lines[i]) else {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        };
        let run_end = (i..lines.len())
            .find(|&j| comment(lines[j]).is_none_or(|(p, _)| p != prefix))
            .unwrap_or(lines.len());
        let run = &lines[i..run_end];
        if run.iter().all(|l| l.chars().count() <= CODE_COLUMNS) {
            for l in run {
                out.push_str(l);
                out.push('\n');
            }
        } else {
            // Paragraphs are separated by an empty comment line, which stays.
            for paragraph in run
                .split(|l| comment(l).is_some_and(|(_, text)| text.trim().is_empty()))
                .enumerate()
            {
                if paragraph.0 > 0 {
                    out.push_str(prefix);
                    out.push('\n');
                }
                let words = paragraph
                    .1
                    .iter()
                    .flat_map(|l| comment(l).map_or("", |(_, t)| t).split_whitespace());
                out.push_str(&wrap_words(prefix, words));
            }
        }
        i = run_end;
    }
    out
}

/// Words after `prefix`, in lines no wider than [`CODE_COLUMNS`] (a longer word stands alone).
fn wrap_words<'a>(prefix: &str, words: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut current = prefix.to_string();
    for word in words {
        if current.len() > prefix.len()
            && current.chars().count() + 1 + word.chars().count() > CODE_COLUMNS
        {
            out.push_str(&current);
            out.push('\n');
            current = prefix.to_string();
        }
        current.push(' ');
        current.push_str(word);
    }
    out.push_str(&current);
    out.push('\n');
    out
}

/// The HTML-only preprocessor: runs after `links`.
pub struct StripHidden;

impl Preprocessor for StripHidden {
    fn name(&self) -> &str {
        "measure-html"
    }

    fn run(&self, _ctx: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        book.for_each_mut(|item| {
            if let BookItem::Chapter(ch) = item {
                ch.content = strip_hidden_lines(&ch.content);
            }
        });
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> anyhow::Result<bool> {
        Ok(renderer == "html")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn included_blocks_get_their_path_and_rust_blocks_no_playground() {
        let md = "Text\n\n```rust\n{{#rustdoc_include ../listings/ch01-blocking/src/lib.rs:burn}}\n```\n\n```console\n{{#include ../listings/ch02-mutexes/outputs/x.txt}}\n```\n\n```rust,compile_fail\nfn main() {}\n```\n";
        let out = annotate_blocks(md);
        assert!(out.contains("<p class=\"code-caption\"><code>listings/ch01-blocking/src/lib.rs</code></p>\n\n```rust,noplayground\n{{#rustdoc_include"), "{out}");
        assert!(
            !out.contains("outputs/x.txt</code>"),
            "output files get no code caption: {out}"
        );
        assert!(out.contains("```rust,compile_fail,noplayground\n"), "{out}");
        assert!(out.contains("```console\n"), "{out}");
        assert_eq!(annotate_blocks("no code"), "no code");
    }

    #[test]
    fn hidden_lines_leave_the_html_and_escapes_stay() {
        let md = "```rust\n# use std::fmt;\n#\nfn shown() {}\n## not hidden\n#[derive(Debug)]\n```\n\n# A heading\n";
        assert_eq!(
            strip_hidden_lines(md),
            "```rust\nfn shown() {}\n## not hidden\n#[derive(Debug)]\n```\n\n# A heading\n"
        );
        let text = "```text\n# kept: not rust\n```\n";
        assert_eq!(strip_hidden_lines(text), text);
    }

    #[test]
    fn a_comment_wider_than_the_column_is_reflowed_as_a_paragraph() {
        let md = format!(
            "```rust\n    /// {}\n    /// end.\n    ///\n    /// Second paragraph.\nfn f() {{}}\n```\n",
            "word ".repeat(20).trim_end()
        );
        let out = strip_hidden_lines(&md);
        // The short last line joined the long one's paragraph; the empty line and the second
        // paragraph stayed.
        assert!(
            out.contains("word word end.\n    ///\n    /// Second paragraph.\nfn f() {}"),
            "{out}"
        );
        // A run whose lines all fit is left as written.
        let fits = "```rust\n// short\n// lines\n```\n";
        assert_eq!(strip_hidden_lines(fits), fits);
    }

    #[test]
    fn long_comment_lines_wrap_with_their_indentation_and_marker() {
        let long = format!("    /// {}\n", "word ".repeat(30).trim_end());
        let md = format!("```rust\n{long}fn f() {{}} // {}\n```\n", "x".repeat(90));
        let out = strip_hidden_lines(&md);
        let lines: Vec<&str> = out.lines().collect();
        // The doc comment became two lines, each within the column, each `    ///`.
        assert_eq!(
            lines[1..3]
                .iter()
                .filter(|l| l.starts_with("    /// word"))
                .count(),
            2,
            "{out}"
        );
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() <= CODE_COLUMNS || l.starts_with("fn f()")),
            "{out}"
        );
        assert_eq!(out.matches("word").count(), 30, "{out}");
        // A trailing comment after code is left alone, and so is any non-Rust block.
        assert!(
            out.contains(&format!("fn f() {{}} // {}", "x".repeat(90))),
            "{out}"
        );
        let text = format!("```text\n// {}\n```\n", "y ".repeat(60));
        assert_eq!(
            strip_hidden_lines(&text),
            text.replace("```text\n", "```text,cols-wrap\n")
        );
    }

    #[test]
    fn a_block_wider_than_the_column_is_marked_by_its_width() {
        let code = |n: usize| format!("```rust,noplayground\nlet {} = 1;\n```\n", "x".repeat(n));
        assert_eq!(strip_hidden_lines(&code(60)), code(60));
        assert!(strip_hidden_lines(&code(80)).starts_with("```rust,noplayground,cols-92\n"));
        assert!(strip_hidden_lines(&code(95)).starts_with("```rust,noplayground,cols-100\n"));
        // Program output: the same sizes, and wider than that it wraps.
        let output = |n: usize| format!("```console\n$ {}\n```\n", "y".repeat(n));
        assert!(strip_hidden_lines(&output(88)).starts_with("```console,cols-92\n"));
        assert!(strip_hidden_lines(&output(150)).starts_with("```console,cols-wrap\n"));
        assert!(
            strip_hidden_lines(&format!("```\n{}\n```\n", "z".repeat(150)))
                .starts_with("```text,cols-wrap\n")
        );
    }
}
