//! `book deps`: makes `target/book-deps/`, the one folder the stock `mdbook test -L` needs, and
//! prints its path.
//!
//! Each Rust block names its crates in hidden `# extern crate NAME;` lines (the `measure-test`
//! preprocessor). rustc looks such a crate up by name in the `-L` folders and refuses two
//! candidates ("multiple candidates"), while it finds what a crate links by the hash recorded in
//! it. So the folder holds one build of each crate a block may name (`tools/book-deps`'s
//! dependencies and `book_deps` itself) and every other library the same build made, for rustc
//! to pick from by hash. All of them come from the workspace's test build (`cargo test
//! --workspace`, which `scripts/test.sh` has just run, so nothing is built twice), hard-linked.
//! Where a named crate was built twice (a build script's copy with fewer features), the folder
//! gets the one with the most features; a crate that something in the folder links at another
//! version is reached through `book_deps` instead (see tools/book-deps/src/lib.rs). Before it
//! prints the path, it compiles a crate with an `extern crate` for every name against the folder
//! alone, so that a folder rustc cannot use fails here, naming the crate.

use anyhow::{Context, Result, bail};
use mdbook_measured::externs::BookCrates;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One library the build made.
struct Lib {
    /// The crate's name, with underscores.
    name: String,
    /// Its rlib, or a proc-macro's shared library.
    file: PathBuf,
    features: usize,
}

/// Builds the workspace's tests (a no-op after `cargo test --workspace`), makes the folder and
/// checks it; returns its path.
pub fn make(root: &Path) -> Result<PathBuf> {
    let crates = BookCrates::load(root)?;
    let names = crates.extern_names();
    eprintln!(
        "the book's crates ({}) from the workspace's test build",
        names.iter().cloned().collect::<Vec<_>>().join(", ")
    );
    let libs = built_libs(root)?;
    let mut chosen: BTreeMap<&str, &Lib> = BTreeMap::new();
    for name in &names {
        let builds: Vec<&Lib> = libs.iter().filter(|l| &l.name == name).collect();
        let Some(most) = builds.iter().map(|l| l.features).max() else {
            if crates.platform_only.contains(name) {
                continue;
            }
            bail!("no build of {name} in cargo's output (is it in tools/book-deps/Cargo.toml?)");
        };
        let best: Vec<&&Lib> = builds.iter().filter(|l| l.features == most).collect();
        if best.len() > 1 {
            bail!(
                "{name} was built {} times with as many features; which one the blocks get is \
                 not clear: {:?}",
                best.len(),
                best.iter().map(|l| &l.file).collect::<Vec<_>>()
            );
        }
        chosen.insert(name, best[0]);
    }
    let any = &chosen.values().next().context("no crate")?.file;
    // target/debug/deps/libX.rlib -> target/book-deps
    let dir = any
        .ancestors()
        .nth(3)
        .context("an rlib outside target/<profile>/deps")?
        .join("book-deps");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    let mut linked = 0;
    let mut left_out = 0;
    for lib in &libs {
        if chosen
            .get(lib.name.as_str())
            .is_some_and(|c| c.file != lib.file)
        {
            left_out += 1;
            continue;
        }
        let Some(file_name) = lib.file.file_name() else {
            continue;
        };
        let to = dir.join(file_name);
        if to.exists() {
            continue;
        }
        if std::fs::hard_link(&lib.file, &to).is_err() {
            std::fs::copy(&lib.file, &to).with_context(|| {
                format!("copying {} into {}", lib.file.display(), dir.display())
            })?;
        }
        linked += 1;
    }
    eprintln!(
        "{}: {linked} libraries, one build of each of the {} crates a block may name (left \
         out: {left_out} more build(s) of those)",
        dir.display(),
        chosen.len()
    );
    let names: BTreeSet<String> = chosen.keys().map(|n| n.to_string()).collect();
    probe(root, &dir, &names)?;
    Ok(dir)
}

/// Every library (rlib, proc-macro) `cargo test --workspace --no-run` reports, fresh or built.
fn built_libs(root: &Path) -> Result<Vec<Lib>> {
    let out = measure::cargo_command()
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
    let mut libs = Vec::new();
    let mut seen = BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-artifact" {
            continue;
        }
        let proc_macro = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "proc-macro"));
        let name = msg["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('-', "_");
        let features = msg["features"].as_array().map_or(0, Vec::len);
        for file in msg["filenames"].as_array().into_iter().flatten() {
            let Some(file) = file.as_str() else { continue };
            let lib = file.ends_with(".rlib") || (proc_macro && !file.ends_with(".rmeta"));
            if lib && seen.insert(file.to_string()) {
                libs.push(Lib {
                    name: name.clone(),
                    file: PathBuf::from(file),
                    features,
                });
            }
        }
    }
    Ok(libs)
}

/// Compiles `extern crate NAME;` for every name against the folder alone, as rustdoc will.
fn probe(root: &Path, dir: &Path, names: &BTreeSet<String>) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let src = tmp.path().join("probe.rs");
    let code: String = names
        .iter()
        .map(|n| format!("extern crate {n};\n"))
        .collect();
    std::fs::write(&src, code)?;
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .current_dir(root)
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "lib",
            "--emit",
            "metadata",
        ])
        .arg("-o")
        .arg(tmp.path().join("libprobe.rmeta"))
        .arg(&src)
        .arg("-L")
        .arg(dir)
        .output()
        .context("running rustc")?;
    if !out.status.success() {
        bail!(
            "rustc cannot use {} for every crate a block may name:\n{}\nA crate that two builds \
             in the folder share a name with is reached through book_deps: re-export it in \
             tools/book-deps/src/lib.rs",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}
