//! The lists of chapters that cannot be derived from the chapters' manifests
//! (`records::chapter`), checked against them: `book build` fails naming each list that leaves a
//! chapter out. The rest (the title page, the Machines page, the releases page, the workshop, the
//! course, the quick runs, the programs to install) read the manifests themselves.
//!
//! | list | why it cannot be derived |
//! |---|---|
//! | `src/SUMMARY.md` | mdBook reads it before any preprocessor runs |
//! | `[workspace.dependencies]` in `Cargo.toml` | Cargo has no glob for dependencies |
//! | `tools/book-deps/Cargo.toml` | the same; the book's code blocks are tested against it |
//! | `releases/tokio-*.lock` | a release builds with `--locked` from its own lock file |
//! | the README's table of chapters | it is read on GitHub, unbuilt ([`readme_table`] writes it) |
//! | the checklist's rules, the workshop's teaching notes | prose, a sentence a chapter |

use anyhow::{Result, bail};
use records::chapter::Manifest;
use std::path::Path;

/// Every list above that leaves out a chapter (or names one that has no manifest), each problem
/// naming its list and what to do.
pub fn check(root: &Path) -> Result<()> {
    let chapters = records::chapter::all(root).map_err(anyhow::Error::msg)?;
    if chapters.is_empty() {
        return Ok(()); // a book of prose only: no list of chapters to keep
    }
    let mut problems = Vec::new();
    problems.extend(summary(root, &chapters)?);
    problems.extend(dependencies(root, &chapters)?);
    problems.extend(release_locks(root, &chapters)?);
    problems.extend(readme(root, &chapters)?);
    problems.extend(pages_that_name_each(root, &chapters)?);
    if !problems.is_empty() {
        bail!(
            "lists of the chapters that leave one out (listings/*/chapter.toml is the list):\n  {}",
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// Each chapter's pages in `src/SUMMARY.md`, its first at the top level of the chapters.
fn summary(root: &Path, chapters: &[Manifest]) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(root.join("src/SUMMARY.md"))?;
    let mut problems = Vec::new();
    for m in chapters {
        for (k, page) in m.pages.iter().enumerate() {
            let entry = format!("]({page})");
            let Some(line) = text.lines().find(|l| l.contains(&entry)) else {
                problems.push(format!(
                    "src/SUMMARY.md: no entry for {page} ({}'s page)",
                    m.name
                ));
                continue;
            };
            let nested = line.starts_with(' ') || line.starts_with('\t');
            if (k == 0) == nested {
                problems.push(format!(
                    "src/SUMMARY.md: {page} should be {} (the chapter's first page is its own; the others nest under it)",
                    if k == 0 { "at the top level" } else { "nested" }
                ));
            }
        }
    }
    Ok(problems)
}

/// The pages whose prose names every chapter: the checklist holds each chapter's rule, linked to
/// its page; the workshop links each chapter's teaching notes (`#teaching-<chapter>`).
fn pages_that_name_each(root: &Path, chapters: &[Manifest]) -> Result<Vec<String>> {
    let checklist = std::fs::read_to_string(root.join("src/appendix-checklist.md"))?;
    let workshop = std::fs::read_to_string(root.join("src/workshop.md"))?;
    let mut problems = Vec::new();
    for m in chapters {
        if !m
            .pages
            .iter()
            .any(|p| checklist.contains(&format!("]({p}")))
        {
            problems.push(format!(
                "src/appendix-checklist.md: no rule links to {} (each chapter's rule, with its headline figure)",
                m.page()
            ));
        }
        if !workshop.contains(&format!("#teaching-{})", m.name)) {
            problems.push(format!(
                "src/workshop.md: no link to {}'s teaching notes (`#teaching-{}`, under \"When a student's numbers disagree with the book\")",
                m.name, m.name
            ));
        }
    }
    Ok(problems)
}

/// Each listing among the workspace's dependencies and `tools/book-deps`'s.
fn dependencies(root: &Path, chapters: &[Manifest]) -> Result<Vec<String>> {
    let table = |path: &str, keys: &[&str]| -> Result<toml::Table> {
        let doc: toml::Table = std::fs::read_to_string(root.join(path))?.parse()?;
        let mut t = doc;
        for k in keys {
            t = t
                .get(*k)
                .and_then(|v| v.as_table())
                .cloned()
                .unwrap_or_default();
        }
        Ok(t)
    };
    let workspace = table("Cargo.toml", &["workspace", "dependencies"])?;
    let book_deps = table("tools/book-deps/Cargo.toml", &["dependencies"])?;
    let mut problems = Vec::new();
    for m in chapters {
        if !workspace.contains_key(&m.name) {
            problems.push(format!(
                "Cargo.toml: [workspace.dependencies] has no `{0} = {{ path = \"listings/{0}\" }}`",
                m.name
            ));
        }
        if !book_deps.contains_key(&m.name) {
            problems.push(format!(
                "tools/book-deps/Cargo.toml: no `{}.workspace = true` (the page's code blocks use its crate)",
                m.name
            ));
        }
    }
    Ok(problems)
}

/// Each chapter in the lock file of every release that builds it.
fn release_locks(root: &Path, chapters: &[Manifest]) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for release in records::releases::load(root).map_err(anyhow::Error::msg)? {
        let path = release.lock_path(root);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // `releases run` asks for a missing lock file itself
        };
        for m in chapters
            .iter()
            .filter(|m| !release.skip.contains_key(&m.name))
        {
            if !text.contains(&format!("\nname = \"{}\"\n", m.name)) {
                problems.push(format!(
                    "{}: no package {} (`cargo run -p book -- releases lock {}`, or a `skip.{}` in {} with the reason)",
                    path.strip_prefix(root).unwrap_or(&path).display(),
                    m.name,
                    release.tokio,
                    m.name,
                    records::releases::FILE
                ));
            }
        }
    }
    Ok(problems)
}

const README_FROM: &str = "<!-- chapters: made from listings/*/chapter.toml by `cargo run -p book -- chapters --readme` -->";
const README_TO: &str = "<!-- /chapters -->";

/// The README's table of chapters, from the manifests.
pub fn readme_table(chapters: &[Manifest]) -> String {
    let mut t = String::from("| chapter | listing | measured on | needs |\n|---|---|---|---|\n");
    for m in chapters {
        let needs: Vec<String> = m
            .needs
            .iter()
            .map(|n| match (&n.debian, &n.install) {
                (Some(package), _) => format!("`{}` (Debian: `{package}`)", n.program),
                (None, Some(how)) => format!("`{}` (`{how}`)", n.program),
                (None, None) => format!("`{}`", n.program),
            })
            .collect();
        t.push_str(&format!(
            "| {}. {} | `listings/{}` | `{}` | {} |\n",
            m.number().unwrap_or_default(),
            m.title,
            m.name,
            m.machine,
            if needs.is_empty() {
                "Rust only".to_string()
            } else {
                needs.join(", ")
            }
        ));
    }
    t
}

/// The README with its table as the manifests make it; `None` when it has no marked table.
fn readme_with_table(text: &str, chapters: &[Manifest]) -> Option<String> {
    let from = text.find(README_FROM)? + README_FROM.len();
    let to = from + text[from..].find(README_TO)?;
    Some(format!(
        "{}\n{}{}",
        &text[..from],
        readme_table(chapters),
        &text[to..]
    ))
}

/// The mark above the README's one timed figure, the first `serve` from a fresh clone.
const FIRST_SERVE: &str = "<!-- first-serve: written by scripts/first-serve.sh --readme -->";

/// The README's timed figure, for `book check` (a measurement, like the records; the build does
/// not wait for it, since the script that measures it builds the book): an error unless the line
/// after the first-serve mark is as `scripts/first-serve.sh --readme` writes it.
pub fn check_first_serve(root: &Path) -> Result<()> {
    let text = std::fs::read_to_string(root.join("README.md"))
        .map_err(|e| anyhow::anyhow!("README.md: {e}"))?;
    if !first_serve_measured(&text) {
        bail!(
            "README.md: the time of the first serve, under `{FIRST_SERVE}`, is not as `scripts/first-serve.sh --readme` writes it (run it on an idle machine)"
        );
    }
    println!("ok   README.md: the first serve's time, as scripts/first-serve.sh measured it");
    Ok(())
}

/// Whether the line after the first-serve mark is as `scripts/first-serve.sh` writes it: a
/// figure with the machine, date and commit it was measured on, not one typed by hand.
fn first_serve_measured(text: &str) -> bool {
    let Some(at) = text.find(FIRST_SERVE) else {
        return false;
    };
    let line = text[at + FIRST_SERVE.len()..]
        .trim_start_matches('\n')
        .lines()
        .next()
        .unwrap_or("");
    let date_and_commit = line
        .rsplit_once("`scripts/first-serve.sh`, ")
        .map(|(_, rest)| rest)
        .unwrap_or("");
    line.starts_with(
        "From a fresh clone, the first `cargo run -p book -- serve` had the book readable after ",
    ) && date_and_commit.len() > "YYYY-MM-DD, commit ``):".len()
        && date_and_commit.as_bytes()[..4]
            .iter()
            .all(u8::is_ascii_digit)
        && date_and_commit.contains(", commit `")
}

fn readme(root: &Path, chapters: &[Manifest]) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(root.join("README.md"))?;
    let mut problems = Vec::new();
    problems.extend(match readme_with_table(&text, chapters) {
        None => vec![format!(
            "README.md: no table of chapters between `{README_FROM}` and `{README_TO}`"
        )],
        Some(made) if made != text => vec![
            "README.md: its table of chapters is not the manifests' (`cargo run -p book -- chapters --readme` rewrites it)".into(),
        ],
        Some(_) => Vec::new(),
    });
    Ok(problems)
}

/// `book chapters`: each chapter's manifest in a line; `--readme` rewrites the README's table;
/// `--needs` prints each outside program a chapter runs, tab-separated (program, Debian package
/// or `-`, folders off the PATH or `-`, the command that installs it otherwise or `-` (`-` too
/// where the chapter runs without it: `optional`), what happens without it), for the scripts
/// that install them (no field is empty: the shell's `read` would merge two tabs).
pub fn run(root: &Path, readme: bool, needs: bool) -> Result<()> {
    let chapters = records::chapter::all(root).map_err(anyhow::Error::msg)?;
    if readme {
        let path = root.join("README.md");
        let text = std::fs::read_to_string(&path)?;
        let Some(made) = readme_with_table(&text, &chapters) else {
            bail!("README.md has no `{README_FROM}` … `{README_TO}` to fill");
        };
        std::fs::write(&path, made)?;
        println!("wrote the table of chapters in README.md");
    } else if needs {
        for m in &chapters {
            for n in &m.needs {
                println!(
                    "{}\t{}\t{}\t{}\t{}: {}",
                    n.program,
                    n.debian.as_deref().unwrap_or("-"),
                    if n.also_in.is_empty() {
                        "-".to_string()
                    } else {
                        n.also_in.join(" ")
                    },
                    n.install.as_deref().filter(|_| !n.optional).unwrap_or("-"),
                    m.name,
                    n.without
                );
            }
        }
    } else {
        for m in &chapters {
            println!(
                "{:<18} {:<32} {:<16} pages: {}",
                m.name,
                m.title,
                m.machine,
                m.pages.join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapters() -> Vec<Manifest> {
        records::chapter::all(&measure::record::repo_root()).unwrap()
    }

    #[test]
    fn the_books_lists_name_every_chapter() {
        check(&measure::record::repo_root()).unwrap();
    }

    #[test]
    fn a_chapter_left_out_of_a_list_is_named_with_the_list() {
        let root = measure::record::repo_root();
        let mut all = chapters();
        let mut extra = all[0].clone();
        extra.name = "ch42-missing".into();
        extra.pages = vec!["ch42-missing.md".into()];
        all.push(extra);
        let said = |problems: Vec<String>| problems.join("\n");
        let s = said(summary(&root, &all).unwrap());
        assert!(
            s.contains("src/SUMMARY.md: no entry for ch42-missing.md"),
            "{s}"
        );
        let d = said(dependencies(&root, &all).unwrap());
        assert!(
            d.contains("Cargo.toml: [workspace.dependencies] has no `ch42-missing")
                && d.contains("tools/book-deps/Cargo.toml: no `ch42-missing.workspace = true`"),
            "{d}"
        );
        let l = said(release_locks(&root, &all).unwrap());
        assert!(
            l.contains("releases/tokio-1.54.1.lock: no package ch42-missing"),
            "{l}"
        );
        let r = said(readme(&root, &all).unwrap());
        assert!(r.contains("README.md: its table of chapters"), "{r}");
    }

    #[test]
    fn the_first_serve_time_is_the_scripts_not_typed() {
        let mark = |line: &str| format!("intro\n{FIRST_SERVE}\n{line}\nrest");
        assert!(first_serve_measured(&mark(
            "From a fresh clone, the first `cargo run -p book -- serve` had the book readable after 58 s on AMD EPYC (2 CPUs, crates already downloaded; `scripts/first-serve.sh`, 2026-12-04, commit `abc123`):"
        )));
        assert!(!first_serve_measured(&mark(
            "From a fresh clone, the first `cargo run -p book -- serve` had the book readable after 60 s."
        )));
        assert!(!first_serve_measured("no mark"));
    }

    #[test]
    fn the_readme_table_is_rewritten_between_its_marks() {
        let all = chapters();
        let text = format!("intro\n{README_FROM}\nold\n{README_TO}\nrest\n");
        let made = readme_with_table(&text, &all).unwrap();
        assert!(made.starts_with(&format!("intro\n{README_FROM}\n| chapter |")));
        assert!(made.contains("| 1. Blocking the runtime | `listings/ch01-blocking` |"));
        assert!(made.ends_with(&format!("{README_TO}\nrest\n")));
        assert_eq!(readme_with_table(&made, &all).unwrap(), made);
        assert!(readme_with_table("no marks", &all).is_none());
    }
}
