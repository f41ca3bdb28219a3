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

/// Drops the lines mdBook would hide in Rust blocks (`# ` or a lone `#`), keeping `##` escapes.
pub fn strip_hidden_lines(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut in_rust = false;
    let mut in_fence = false;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if !in_fence {
                let info = trimmed.trim_start_matches('`').trim();
                in_rust = info.split(',').next() == Some("rust");
            }
            in_fence = !in_fence;
            out.push_str(line);
            continue;
        }
        let body = trimmed.trim_end_matches(['\n', '\r']);
        let hidden = in_fence && in_rust && (body == "#" || body.starts_with("# "));
        if !hidden {
            out.push_str(line);
        }
    }
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
}
