//! `book test`: compiles and runs every Rust code block in the book against the real crates.
//!
//! rustdoc gets `--extern name=PATH` for the exact rlibs of `tools/book-deps`'s dependencies, as
//! the workspace's test build made them (`cargo test --workspace`, which `scripts/test.sh` has
//! just run, so nothing is built twice): a plain `-L target/debug/deps` fails in edition 2021+
//! ("cannot find crate") and when two builds of one crate sit in a folder ("multiple
//! candidates"); with `--extern` naming the direct ones, rustc finds each transitive one by the
//! hash its dependent recorded.

use anyhow::{Context, Result, bail};
use mdbook_driver::book::BookItem;
use mdbook_renderer::{RenderContext, Renderer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    let externs = build_deps(root)?;
    let deps_dir = externs
        .values()
        .next()
        .and_then(|rlib| rlib.parent())
        .context("no rlib")?
        .to_path_buf();
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
            .arg(format!("dependency={}", deps_dir.display()));
        for (name, rlib) in &externs {
            cmd.arg("--extern")
                .arg(format!("{name}={}", rlib.display()));
        }
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

/// Builds the workspace's tests (a no-op after `cargo test --workspace`) and returns `crate name →
/// rlib` for each direct dependency of tools/book-deps (those under
/// `[target.'cfg(…)'.dependencies]` where this platform builds them). Where a crate was built
/// twice (a build script's copy with fewer features), the one with the most features.
fn build_deps(root: &Path) -> Result<BTreeMap<String, PathBuf>> {
    let manifest = root.join("tools/book-deps/Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest).with_context(|| manifest.display().to_string())?;
    let doc: toml::Table = text.parse()?;
    let wanted: Vec<String> = doc
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|t| t.keys().map(|k| k.replace('-', "_")).collect())
        .unwrap_or_default();
    let platform_only: Vec<String> = doc
        .get("target")
        .and_then(|t| t.as_table())
        .into_iter()
        .flat_map(|t| t.values())
        .filter_map(|cfg| cfg.get("dependencies").and_then(|d| d.as_table()))
        .flat_map(|t| t.keys().map(|k| k.replace('-', "_")))
        .collect();
    eprintln!(
        "the book's dependencies ({}) from the workspace's test build",
        wanted.join(", ")
    );
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo test --workspace --no-run")?;
    if !out.status.success() {
        bail!("building the workspace's tests failed");
    }
    let mut externs = BTreeMap::new();
    let mut features_of = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let name = msg["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('-', "_");
        if !wanted.contains(&name) && !platform_only.contains(&name) {
            continue;
        }
        let rlib = msg["filenames"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str())
            .find(|f| f.ends_with(".rlib"));
        let features = msg["features"].as_array().map_or(0, Vec::len);
        if let Some(rlib) = rlib
            && features_of.get(&name).is_none_or(|most| features >= *most)
        {
            features_of.insert(name.clone(), features);
            externs.insert(name, PathBuf::from(rlib));
        }
    }
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|w| !externs.contains_key(*w))
        .collect();
    if !missing.is_empty() {
        bail!("no rlib found for {missing:?} in cargo's output");
    }
    Ok(externs)
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
