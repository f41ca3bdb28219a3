//! Code blocks as rustdoc sees them: the `measure-test` preprocessor (after `links`, the test
//! renderer only) gives each Rust block a hidden `# extern crate NAME;` line for each crate the
//! block names, included code and all, so that the stock `mdbook test -L <folder>` finds the
//! crates in the folder `cargo run -p book -- deps` makes. In edition 2018 and later a crate found
//! through `-L` is usable only after an `extern crate` ("cannot find crate" otherwise); the HTML
//! pages never see these lines.
//!
//! The crates a block may name are `tools/book-deps`'s dependencies, dashes as underscores. A
//! crate that `tools/book-deps/src/lib.rs` re-exports (`pub use NAME;`) is one of which rustc would
//! find two candidates by name (two builds in the folder, or std's own in the toolchain) and so
//! refuse `extern crate NAME`: a block reaches it through `book_deps` instead (`# extern crate
//! book_deps;` and `# use book_deps::NAME;`).

use anyhow::Context;
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::collections::BTreeSet;
use std::path::Path;

/// The crates the book's code blocks may name, from `tools/book-deps`.
#[derive(Debug, Default, Clone)]
pub struct BookCrates {
    /// Named by `extern crate NAME;`: book-deps's dependencies (for every platform), less the
    /// re-exported ones.
    pub direct: BTreeSet<String>,
    /// Reached as `book_deps::NAME`: those `tools/book-deps/src/lib.rs` re-exports.
    pub through_book_deps: BTreeSet<String>,
    /// Those under `[target.'cfg(...)'.dependencies]`, which some platforms do not build.
    pub platform_only: BTreeSet<String>,
}

/// The crate whose re-exports reach the crates rustc would find two candidates of by name.
pub const BOOK_DEPS: &str = "book_deps";

impl BookCrates {
    /// Reads `tools/book-deps/Cargo.toml` and `src/lib.rs` under the book's root.
    pub fn load(root: &Path) -> anyhow::Result<Self> {
        let manifest = root.join("tools/book-deps/Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let doc: toml::Table = text
            .parse()
            .with_context(|| format!("parsing {}", manifest.display()))?;
        let lib = root.join("tools/book-deps/src/lib.rs");
        let lib =
            std::fs::read_to_string(&lib).with_context(|| format!("reading {}", lib.display()))?;
        Ok(Self::from_manifest(&doc, &lib))
    }

    fn from_manifest(doc: &toml::Table, lib: &str) -> Self {
        let keys = |deps: Option<&toml::Value>| -> Vec<String> {
            deps.and_then(|d| d.as_table())
                .map(|t| t.keys().map(|k| k.replace('-', "_")).collect())
                .unwrap_or_default()
        };
        let mut all: BTreeSet<String> = keys(doc.get("dependencies")).into_iter().collect();
        let mut platform_only = BTreeSet::new();
        for cfg in doc
            .get("target")
            .and_then(|t| t.as_table())
            .into_iter()
            .flat_map(|t| t.values())
        {
            platform_only.extend(keys(cfg.get("dependencies")));
        }
        all.extend(platform_only.iter().cloned());
        let through_book_deps: BTreeSet<String> = lib
            .lines()
            .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
            .map(str::trim)
            .filter(|name| all.contains(*name))
            .map(str::to_string)
            .collect();
        let direct = all.difference(&through_book_deps).cloned().collect();
        BookCrates {
            direct,
            through_book_deps,
            platform_only,
        }
    }

    /// The names `extern crate` must find in the folder: the direct crates and `book_deps`.
    pub fn extern_names(&self) -> BTreeSet<String> {
        let mut names = self.direct.clone();
        names.insert(BOOK_DEPS.to_string());
        names
    }
}

/// The crates among `crates` that `code` names as the first segment of a path (`tokio::spawn`,
/// `#[tokio::main]`, `use tokio::sync`) or imports whole (`use serde;`), less those it declares
/// itself (`mod NAME`) or already has an `extern crate` for. A name in a comment or a string counts
/// too: an unused `extern crate` is harmless.
pub fn crates_named(code: &str, crates: &BTreeSet<String>) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let mut own = BTreeSet::new();
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut prev_word = "";
    let mut prev_prev_word = "";
    let mut i = 0;
    while i < bytes.len() {
        if !(bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let word = &code[start..i];
        let before = code[..start].trim_end();
        let after = code[i..].trim_start();
        let path_start = !before.ends_with("::") && !before.ends_with('$');
        if crates.contains(word) {
            if (prev_prev_word == "extern" && prev_word == "crate") || prev_word == "mod" {
                own.insert(word.to_string());
            } else if path_start && (after.starts_with("::") || prev_word == "use") {
                named.insert(word.to_string());
            }
        }
        prev_prev_word = prev_word;
        prev_word = word;
    }
    named.retain(|name| !own.contains(name));
    named
}

/// Whether rustdoc tests a fenced block with this info string: one that names `rust`, has no
/// language, or has only rustdoc's own attributes (`ignore`, `should_panic`, `E0277`, ...).
fn is_rust(info: &str) -> bool {
    const ATTRS: [&str; 6] = [
        "ignore",
        "no_run",
        "should_panic",
        "compile_fail",
        "test_harness",
        "standalone_crate",
    ];
    let error_code = |t: &str| {
        t.strip_prefix('E')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let tokens: Vec<&str> = info
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    tokens.contains(&"rust")
        || tokens.iter().all(|t| {
            ATTRS.contains(t)
                || t.starts_with("edition")
                || t.starts_with("ignore-")
                || error_code(t)
        })
}

/// Each Rust block of a page (after `links`, so with its included code) with a hidden `# extern
/// crate NAME;` for each crate it names, after its crate attributes (`#![...]`).
pub fn add_extern_crates(content: &str, crates: &BookCrates) -> String {
    let mut all = crates.direct.clone();
    all.extend(crates.through_book_deps.iter().cloned());
    let mut out = String::with_capacity(content.len() + 1024);
    // The open Rust block: its lines so far.
    let mut block: Option<Vec<&str>> = None;
    let mut other_fence = false;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```");
        match &mut block {
            Some(lines) if fence => {
                out.push_str(&with_externs(lines, &all, crates));
                out.push_str(line);
                block = None;
            }
            Some(lines) => lines.push(line),
            None if fence && other_fence => {
                other_fence = false;
                out.push_str(line);
            }
            None if fence => {
                out.push_str(line);
                if is_rust(trimmed.trim_start_matches('`').trim()) {
                    block = Some(Vec::new());
                } else {
                    other_fence = true;
                }
            }
            None => out.push_str(line),
        }
    }
    if let Some(lines) = block {
        lines.iter().for_each(|l| out.push_str(l));
    }
    out
}

fn with_externs(lines: &[&str], all: &BTreeSet<String>, crates: &BookCrates) -> String {
    let named = crates_named(&lines.concat(), all);
    let mut head = String::new();
    for name in named.intersection(&crates.direct) {
        head.push_str(&format!("# extern crate {name};\n"));
    }
    let through: Vec<&String> = named.intersection(&crates.through_book_deps).collect();
    if !through.is_empty() && !named.contains(BOOK_DEPS) {
        head.push_str(&format!("# extern crate {BOOK_DEPS};\n"));
    }
    for name in through {
        head.push_str(&format!("# use {BOOK_DEPS}::{name};\n"));
    }
    // Inner attributes and inner doc comments (`#![...]`, `//!`) stay first, and the blank lines
    // and comments among them.
    let attrs = lines
        .iter()
        .take_while(|l| {
            let l = l.trim();
            let l = match l.strip_prefix('#') {
                Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim_start(),
                _ => l,
            };
            l.is_empty() || l.starts_with("//") || l.starts_with("#![")
        })
        .count();
    let mut out = lines[..attrs].concat();
    out.push_str(&head);
    out.push_str(&lines[attrs..].concat());
    out
}

/// The test-only preprocessor (`measure-test` in book.toml): runs after `links`.
pub struct ExternCrates;

impl Preprocessor for ExternCrates {
    fn name(&self) -> &str {
        "measure-test"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        let crates = BookCrates::load(&ctx.root)?;
        book.for_each_mut(|item| {
            if let BookItem::Chapter(ch) = item {
                ch.content = add_extern_crates(&ch.content, &crates);
            }
        });
        Ok(book)
    }

    fn supports_renderer(&self, renderer: &str) -> anyhow::Result<bool> {
        Ok(renderer == "test")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crates() -> BookCrates {
        let doc: toml::Table = "[dependencies]\nmeasure = \"1\"\ntokio = \"1\"\nparking_lot = \"1\"\nserde = \"1\"\ntokio-metrics = \"1\"\nch01-blocking = \"1\"\n[target.'cfg(target_os = \"linux\")'.dependencies]\nio-uring = \"1\"\n"
            .parse()
            .unwrap();
        BookCrates::from_manifest(&doc, "//! docs\n/// why\npub use parking_lot;\n")
    }

    #[test]
    fn the_crates_come_from_book_deps_with_underscores_and_the_reexports_apart() {
        let c = crates();
        assert_eq!(
            c.direct.iter().map(String::as_str).collect::<Vec<_>>(),
            [
                "ch01_blocking",
                "io_uring",
                "measure",
                "serde",
                "tokio",
                "tokio_metrics"
            ]
        );
        assert_eq!(
            c.through_book_deps.iter().collect::<Vec<_>>(),
            ["parking_lot"]
        );
        assert_eq!(c.platform_only.iter().collect::<Vec<_>>(), ["io_uring"]);
        assert!(c.extern_names().contains("book_deps"));
        assert!(!c.extern_names().contains("parking_lot"));
    }

    #[test]
    fn a_crate_counts_where_it_starts_a_path_or_is_imported_whole() {
        let c = crates();
        let mut all = c.direct.clone();
        all.extend(c.through_book_deps.clone());
        let named = |code: &str| -> Vec<String> { crates_named(code, &all).into_iter().collect() };
        assert_eq!(named("#[tokio::main]\nasync fn main() {}"), ["tokio"]);
        assert_eq!(
            named("use ch01_blocking::{burn, Cost};\nuse serde;"),
            ["ch01_blocking", "serde"]
        );
        assert_eq!(
            named("let m = parking_lot :: Mutex::new(0);"),
            ["parking_lot"]
        );
        // A path's later segment, a plain word, a macro variable and a module of its own are not
        // the crate; nor is a crate the block already declares.
        assert!(named("use my::tokio::x; let serde = 1; $tokio::x; fn io_uring() {}").is_empty());
        assert!(named("mod serde { pub fn f() {} }\nserde::f();").is_empty());
        assert!(named("extern crate tokio;\ntokio::spawn(f);").is_empty());
        assert!(named("let tokio_metrics_x = 1; tokio_metricsx::y();").is_empty());
    }

    #[test]
    fn rust_blocks_get_hidden_extern_crates_after_their_attributes_and_others_nothing() {
        let c = crates();
        let md = "Text tokio::spawn\n\n```rust,noplayground\n# #![allow(dead_code)]\n# use std::fmt;\nfn main() { tokio::spawn(async {}); let _ = parking_lot::Mutex::new(1); }\n```\n\n```console\n$ tokio::x\n```\n\n```\nserde::f();\n```\n\n```toml\ntokio = \"1\"\n```\n";
        let out = add_extern_crates(md, &c);
        assert_eq!(
            out,
            "Text tokio::spawn\n\n```rust,noplayground\n# #![allow(dead_code)]\n# extern crate tokio;\n# extern crate book_deps;\n# use book_deps::parking_lot;\n# use std::fmt;\nfn main() { tokio::spawn(async {}); let _ = parking_lot::Mutex::new(1); }\n```\n\n```console\n$ tokio::x\n```\n\n```\n# extern crate serde;\nserde::f();\n```\n\n```toml\ntokio = \"1\"\n```\n"
        );
        // A listing's inner doc comments stay first.
        let main = "```rust\n# //! The experiment.\n#\n# //! More.\n# use measure::Chapter;\nfn main() {}\n```\n";
        assert_eq!(
            add_extern_crates(main, &c),
            "```rust\n# //! The experiment.\n#\n# //! More.\n# extern crate measure;\n# use measure::Chapter;\nfn main() {}\n```\n"
        );
        // rustdoc's attributes alone leave a block Rust; another language or mdBook's own does not.
        assert!(is_rust("") && is_rust("compile_fail,E0277") && is_rust("ignore edition2021"));
        assert!(!is_rust("console") && !is_rust("noplayground") && !is_rust("toml,ignore"));
        // A page without code, or a block that names no crate, is unchanged.
        assert_eq!(add_extern_crates("no code", &c), "no code");
        let plain = "```rust\nfn main() {}\n```\n";
        assert_eq!(add_extern_crates(plain, &c), plain);
    }
}
