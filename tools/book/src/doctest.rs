//! `book test`: compiles and runs every Rust code block in the book, as the stock `mdbook test -L
//! target/book-deps` does (the same folder, from `book deps`, and the same preprocessors, the
//! `measure-test` one's hidden `extern crate` lines included), and adds what the stock command
//! lacks: a count per page and in all (`N passed, N failed`; stock mdBook prints nothing on
//! success), two pages at a time, a failure on a missing include file or anchor, and no mdbook
//! binary to install first.

use anyhow::{Context, Result, bail};
use mdbook_driver::book::BookItem;
use mdbook_renderer::{RenderContext, Renderer};
use std::path::Path;
use std::process::Command;

struct TestRenderer;

impl Renderer for TestRenderer {
    fn name(&self) -> &str {
        "test"
    }

    fn render(&self, _: &RenderContext) -> Result<()> {
        Ok(())
    }
}

pub fn run(root: &Path) -> Result<()> {
    let deps_dir = crate::deps::make(root)?;
    let md = crate::load(root, None)?;
    crate::checks::includes(&md)?;
    let edition = md
        .config
        .rust
        .edition
        .map(|e| format!("{e:?}").trim_start_matches('E').to_string())
        .unwrap_or_else(|| "2015".into());
    let (book, _) = md.preprocess_book(&TestRenderer)?;
    let tmp = tempfile::tempdir()?;
    let mut pages = Vec::new();
    for item in book.iter() {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        let Some(path) = ch.path.as_ref().filter(|p| !p.as_os_str().is_empty()) else {
            continue;
        };
        if !ch.content.contains("```") {
            continue;
        }
        let file = tmp.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(tmp.path()))?;
        std::fs::write(&file, &ch.content)?;
        pages.push((path.clone(), file));
    }
    let rustdoc = |file: &Path| -> Result<(u32, u32, String)> {
        let mut cmd = Command::new(std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".into()));
        cmd.current_dir(root)
            .arg("--test")
            .arg(file)
            .args(["--edition", &edition])
            .arg("-L")
            .arg(&deps_dir);
        let out = cmd.output().context("running rustdoc")?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let (p, f) = count_results(&text);
        let f = if !out.status.success() && f == 0 {
            f + 1
        } else {
            f
        };
        Ok((p, f, text))
    };
    // Two pages at a time: each rustdoc spends much of its time in one thread (parsing, linking).
    let results = crate::parallel(&pages, 2, |(_, file)| rustdoc(file));
    let (mut passed, mut failed) = (0u32, 0u32);
    for ((path, _), result) in pages.iter().zip(results) {
        let (p, f, text) = result?;
        if f > 0 {
            eprintln!("{text}");
        }
        println!("src/{}: {p} passed, {f} failed", path.display());
        passed += p;
        failed += f;
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        bail!("{failed} code block(s) in the book failed");
    }
    Ok(())
}

/// `book test --stock`: what the stock `mdbook test -L target/book-deps` runs, without installing
/// its binary: the binary's `test` command loads the book and calls mdbook-driver's `MDBook::test`
/// with the `-L` folders (`src/cmd/test.rs` in mdbook 0.5.4), and so does this, with the same
/// mdbook-driver; book.toml's preprocessors run as the commands it names, as they do for the
/// binary. Like the binary, it says nothing of a page that passes.
pub fn run_stock(root: &Path) -> Result<()> {
    let deps_dir = crate::deps::make(root)?;
    let deps = deps_dir.to_str().context("the book-deps folder's path")?;
    let mut md = mdbook_driver::MDBook::load(root)
        .with_context(|| format!("loading the book in {}", root.display()))?;
    md.test(vec![deps])?;
    println!(
        "every code block compiled, and every one not marked no_run ran (MDBook::test -L {deps})"
    );
    Ok(())
}

/// Sums rustdoc's `test result: ... N passed; M failed` lines.
fn count_results(text: &str) -> (u32, u32) {
    let mut totals = (0, 0);
    for line in text.lines().filter(|l| l.starts_with("test result:")) {
        let number_before = |word: &str| {
            line.split(';')
                .find(|part| part.trim_end().ends_with(word))
                .and_then(|part| part.split_whitespace().rev().nth(1))
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(0)
        };
        totals.0 += number_before("passed");
        totals.1 += number_before("failed");
    }
    totals
}

#[cfg(test)]
mod tests {
    #[test]
    fn parallel_keeps_the_items_order() {
        let items: Vec<u64> = (0..20).collect();
        let out = crate::parallel(&items, 3, |x| {
            std::thread::sleep(std::time::Duration::from_millis(20 - x));
            x * 2
        });
        assert_eq!(out, (0..20).map(|x| x * 2).collect::<Vec<_>>());
    }

    use super::*;

    #[test]
    fn counts_rustdoc_results() {
        let out = "running 3 tests\ntest result: ok. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.5s\n";
        assert_eq!(count_results(out), (2, 1));
        assert_eq!(count_results("nothing"), (0, 0));
    }
}
