//! What stock mdBook lets through: includes of missing files or anchors, broken links.

use anyhow::{Result, bail};
use mdbook_driver::MDBook;
use mdbook_driver::book::BookItem;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

/// Every `{{#include FILE:ANCHOR}}` and `{{#rustdoc_include ...}}` in the chapters names a file
/// that exists and, when it names an anchor, an anchor that file has.
pub fn includes(md: &MDBook) -> Result<()> {
    let src = md.source_dir();
    let mut problems = Vec::new();
    for item in md.iter() {
        let BookItem::Chapter(ch) = item else {
            continue;
        };
        let Some(path) = &ch.path else { continue };
        let base = src
            .join(path)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| src.clone());
        for (target, anchor) in include_directives(&ch.content) {
            let file = base.join(&target);
            let Ok(text) = std::fs::read_to_string(&file) else {
                problems.push(format!(
                    "src/{}: includes {target}, which does not exist",
                    path.display()
                ));
                continue;
            };
            if let Some(anchor) = anchor {
                let anchors = anchors_in(&text);
                if !anchors.contains(&anchor) {
                    problems.push(format!(
                        "src/{}: includes {target}:{anchor}, but that file has no anchor `{anchor}` (it has: {})",
                        path.display(),
                        anchors.into_iter().collect::<Vec<_>>().join(", ")
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        bail!("broken includes:\n  {}", problems.join("\n  "));
    }
    Ok(())
}

/// (file, anchor) of each include directive; line ranges count as no anchor.
pub fn include_directives(content: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for kind in ["{{#include ", "{{#rustdoc_include "] {
        let mut rest = content;
        while let Some(at) = rest.find(kind) {
            let escaped = rest[..at].ends_with('\\');
            let from = &rest[at + kind.len()..];
            let Some(end) = from.find("}}") else { break };
            let arg = from[..end].split_whitespace().next().unwrap_or("");
            if !escaped && !arg.is_empty() {
                let (file, anchor) = match arg.split_once(':') {
                    Some((f, a)) if !a.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                        (f, Some(a.to_string()))
                    }
                    Some((f, _)) => (f, None),
                    None => (arg, None),
                };
                out.push((file.to_string(), anchor));
            }
            rest = &from[end..];
        }
    }
    out
}

/// The anchors a file defines with `ANCHOR: name` and closes with `ANCHOR_END: name`.
pub fn anchors_in(text: &str) -> std::collections::BTreeSet<String> {
    let find = |marker: &str| -> HashSet<String> {
        text.lines()
            .filter_map(|l| l.split_once(marker).map(|(_, n)| n.trim().to_string()))
            .collect()
    };
    let (open, close) = (find("ANCHOR: "), find("ANCHOR_END: "));
    open.intersection(&close).cloned().collect()
}

/// Every relative link in the built HTML leads to a file that exists and, with `#id`, to an
/// element with that id.
pub fn links(build_dir: &Path) -> Result<()> {
    let mut pages = Vec::new();
    collect_html(build_dir, &mut pages)?;
    let mut ids: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut texts = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page)?;
        ids.insert(page.clone(), attribute_values(&text, "id"));
        texts.push((page, text));
    }
    let mut broken = Vec::new();
    for (page, text) in &texts {
        let name = page
            .strip_prefix(build_dir)
            .unwrap_or(page)
            .display()
            .to_string();
        if name == "404.html" || name == "toc.html" {
            continue; // Their links are relative to wherever they are shown.
        }
        for href in attribute_values(text, "href") {
            let external = href.contains("://")
                || href.starts_with("mailto:")
                || href.starts_with("//")
                || href.starts_with("javascript:");
            if external || href.is_empty() {
                continue;
            }
            let (path, fragment) = href
                .split_once('#')
                .map_or((href.as_str(), None), |(p, f)| (p, Some(f)));
            let target = if path.is_empty() {
                (*page).clone()
            } else {
                let t = normalize(
                    &page
                        .parent()
                        .unwrap_or(build_dir)
                        .join(path.split('?').next().unwrap_or(path)),
                );
                if t.is_dir() { t.join("index.html") } else { t }
            };
            if !target.exists() {
                broken.push(format!("{name}: link to {href}: no such file"));
            } else if let Some(frag) = fragment.filter(|f| !f.is_empty())
                && let Some(page_ids) = ids.get(&target)
                && !page_ids.contains(frag)
            {
                broken.push(format!(
                    "{name}: link to {href}: no element with id `{frag}` there"
                ));
            }
        }
    }
    broken.sort();
    broken.dedup();
    if !broken.is_empty() {
        bail!("broken links in the built book:\n  {}", broken.join("\n  "));
    }
    Ok(())
}

/// Every page has one top-level heading. More means Markdown broke out of a code block: an
/// included file's hidden lines (`# ...`) rendered as headings, as happens when an include sits
/// in an indented block.
pub fn headings(build_dir: &Path) -> Result<()> {
    let mut pages = Vec::new();
    collect_html(build_dir, &mut pages)?;
    let mut bad = Vec::new();
    for page in pages {
        let name = page
            .strip_prefix(build_dir)
            .unwrap_or(&page)
            .display()
            .to_string();
        if matches!(name.as_str(), "print.html" | "404.html" | "toc.html") {
            continue;
        }
        let count = std::fs::read_to_string(&page)?.matches("<h1 id=").count();
        if count > 1 {
            bad.push(format!(
                "{name}: {count} top-level headings (a code block was probably cut off)"
            ));
        }
    }
    if !bad.is_empty() {
        bail!(
            "pages with more than one top-level heading:\n  {}",
            bad.join("\n  ")
        );
    }
    Ok(())
}

fn collect_html(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() {
            collect_html(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "html") {
            out.push(p);
        }
    }
    Ok(())
}

/// Values of ` NAME="..."` attributes in an HTML text.
pub fn attribute_values(html: &str, name: &str) -> HashSet<String> {
    let pat = format!(" {name}=\"");
    let mut out = HashSet::new();
    let mut rest = html;
    while let Some(at) = rest.find(&pat) {
        let from = &rest[at + pat.len()..];
        let end = from.find('"').unwrap_or(from.len());
        out.insert(from[..end].replace("&amp;", "&"));
        rest = &from[end..];
    }
    out
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_include_directives_with_and_without_anchors() {
        let md = "a {{#rustdoc_include ../listings/x/src/lib.rs:inline}} b {{#include f.rs:3:5}} \\{{#include skip.rs}} {{#include g.rs}}";
        assert_eq!(
            include_directives(md),
            vec![
                ("f.rs".to_string(), None),
                ("g.rs".to_string(), None),
                (
                    "../listings/x/src/lib.rs".to_string(),
                    Some("inline".to_string())
                ),
            ]
        );
    }

    #[test]
    fn anchors_need_both_ends() {
        let text = "// ANCHOR: a\nx\n// ANCHOR_END: a\n// ANCHOR: b\n";
        assert_eq!(
            anchors_in(text).into_iter().collect::<Vec<_>>(),
            vec!["a".to_string()]
        );
    }

    #[test]
    fn flags_pages_whose_code_blocks_broke_into_headings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("ok.html"),
            r#"<h1 id="a">A</h1><h2 id="b">B</h2>"#,
        )
        .unwrap();
        assert!(headings(dir.path()).is_ok());
        std::fs::write(
            dir.path().join("bad.html"),
            r#"<h1 id="a">A</h1><h1 id="use-std">use std</h1>"#,
        )
        .unwrap();
        assert!(
            headings(dir.path())
                .unwrap_err()
                .to_string()
                .contains("bad.html: 2")
        );
    }

    #[test]
    fn finds_broken_files_and_fragments() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("index.html"), r##"<h1 id="top">x</h1><a href="sub/a.html#here">ok</a><a href="https://example.org/x">ext</a><a href="#top">self</a>"##).unwrap();
        std::fs::write(
            d.join("sub/a.html"),
            r##"<p id="here"></p><a href="../index.html#top">ok</a>"##,
        )
        .unwrap();
        assert!(links(d).is_ok());
        std::fs::write(
            d.join("sub/b.html"),
            r##"<a href="../missing.html">x</a><a href="a.html#nowhere">y</a>"##,
        )
        .unwrap();
        let err = links(d).unwrap_err().to_string();
        assert!(err.contains("missing.html: no such file"), "{err}");
        assert!(err.contains("no element with id `nowhere`"), "{err}");
    }
}
