//! The search index, for prose. mdBook indexes every text node of a chapter (mdbook-html 0.5.4,
//! `html_handlebars/search.rs`, `index_chapter`, which skips only `<script>` and `<style>`), so
//! the tables, provenance lines and chart labels the preprocessor renders filled the index and its
//! snippets ("0% 0%–0% 0.707% … Measured on …"). After a build, `rewrite` indexes each section
//! again from the built page with those elements left out, with mdBook's own fields, tokenizer
//! and sections, and writes the index back in mdBook's format.

use anyhow::{Context, Result, bail};
use std::collections::HashMap;
use std::path::Path;

const PREFIX: &str = "window.search = Object.assign(window.search, JSON.parse('";
const SUFFIX: &str = "'));";

/// mdBook's `heading-split-level` default: a section per h1–h3.
const SPLIT_LEVEL: u8 = 3;

/// What the index no longer holds: rendered data, not prose.
fn left_out(tag: &str) -> bool {
    let name = tag_name(tag);
    name == "table"
        || name == "svg"
        || (name == "details" && (has_class(tag, "provenance") || has_class(tag, "measure-data")))
}

/// Rewrites the search index of the book built in `dir`; returns how many sections it
/// re-indexed, or 0 where the book has no search index.
pub fn rewrite(dir: &Path) -> Result<usize> {
    let Some(file) = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("searchindex") && n.ends_with(".js"))
        })
    else {
        return Ok(0);
    };
    let text = std::fs::read_to_string(&file)?;
    let mut json: serde_json::Value = serde_json::from_str(
        &unquote(&text)
            .with_context(|| format!("{}: not mdBook's search index format", file.display()))?,
    )?;
    let urls: Vec<String> = serde_json::from_value(json["doc_urls"].clone())?;
    let docs = &json["index"]["documentStore"]["docs"];
    let mut pages: HashMap<String, HashMap<String, String>> = HashMap::new();
    let mut index = elasticlunr::IndexBuilder::new()
        .add_field_with_tokenizer("title", Box::new(tokenize))
        .add_field_with_tokenizer("body", Box::new(tokenize))
        .add_field_with_tokenizer("breadcrumbs", Box::new(tokenize))
        .build();
    let mut rewritten = 0;
    for (i, url) in urls.iter().enumerate() {
        let doc = &docs[i.to_string()];
        let field = |name: &str| doc[name].as_str().unwrap_or_default().to_string();
        let (page, id) = url.split_once('#').unwrap_or((url, ""));
        if !pages.contains_key(page) {
            let html = std::fs::read_to_string(dir.join(page))
                .with_context(|| format!("the search index names {page}, which is not built"))?;
            pages.insert(page.to_string(), sections(&html));
        }
        let body = match pages[page].get(id) {
            Some(body) => {
                rewritten += 1;
                body.clone()
            }
            None => field("body"),
        };
        index.add_doc(&i.to_string(), [field("title"), body, field("breadcrumbs")]);
    }
    json["index"] = serde_json::to_value(&index)?;
    let out = serde_json::to_string(&json)?;
    let tmp = file.with_extension("js.tmp");
    std::fs::write(
        &tmp,
        format!(
            "{PREFIX}{}{SUFFIX}",
            out.replace('\\', "\\\\").replace('\'', "\\'")
        ),
    )?;
    std::fs::rename(&tmp, &file)?;
    Ok(rewritten)
}

/// mdBook's tokenizer (elasticlunr's for English, dropping tokens over 80 bytes).
fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '-')
        .filter(|s| !s.is_empty())
        .map(|s| s.trim().to_lowercase())
        .filter(|s| s.len() <= 80)
        .collect()
}

/// The JSON inside `searchindex.js`, its quoting undone.
fn unquote(text: &str) -> Result<String> {
    let Some(inner) = text
        .trim_end()
        .strip_prefix(PREFIX)
        .and_then(|t| t.strip_suffix(SUFFIX))
    else {
        bail!("unexpected start or end");
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or('\\')
        } else {
            c
        });
    }
    Ok(out)
}

/// A page's sections as mdBook's index splits them: the text under each heading of level 1 to 3
/// with an id, until the next (what comes before the first goes with it), data left out.
fn sections(html: &str) -> HashMap<String, String> {
    let main = html
        .split_once("<main>")
        .and_then(|(_, rest)| rest.split_once("</main>"))
        .map_or(html, |(main, _)| main);
    let main = without(main, left_out);
    // The text before each heading, and the heading it follows (none for the first).
    let mut parts: Vec<(Option<String>, String)> = Vec::new();
    let mut current = None;
    let mut rest = main.as_str();
    while let Some(start) = next_heading(rest) {
        let (text, heading) = rest.split_at(start);
        parts.push((current.take(), plain(text)));
        let open_end = heading.find('>').map_or(heading.len(), |i| i + 1);
        current = attr(&heading[..open_end], "id");
        let close = heading.find("</h").map_or(heading.len(), |i| i + 5);
        rest = &heading[close.min(heading.len())..];
    }
    parts.push((current, plain(rest)));
    // Text before the first heading goes with it, as mdBook's index has it.
    let mut out = HashMap::new();
    let mut before = String::new();
    for (id, text) in parts {
        match id {
            None => before = text,
            Some(id) => {
                let body = format!("{} {text}", std::mem::take(&mut before));
                out.insert(id, body.trim().to_string());
            }
        }
    }
    out
}

/// Where the next heading of level 1 to [`SPLIT_LEVEL`] with an id starts.
fn next_heading(html: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = html[from..].find("<h") {
        let at = from + i;
        let tag_end = html[at..].find('>').map_or(html.len(), |e| at + e + 1);
        let tag = &html[at..tag_end];
        let level = tag.as_bytes().get(2).map(|b| b.wrapping_sub(b'0'));
        if level.is_some_and(|l| (1..=SPLIT_LEVEL).contains(&l))
            && !tag.as_bytes().get(3).is_some_and(u8::is_ascii_alphanumeric)
            && attr(tag, "id").is_some()
        {
            return Some(at);
        }
        from = at + 2;
    }
    None
}

/// `html` without the elements whose start tag `drop` picks (and what they hold).
fn without(html: &str, drop: fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let tag_end = after.find('>').map_or(after.len(), |e| e + 1);
        let tag = &after[..tag_end];
        if !tag.starts_with("</") && drop(tag) {
            rest = &after[element_end(after, tag_name(tag))..];
        } else {
            out.push_str(tag);
            rest = &after[tag_end..];
        }
    }
    out.push_str(rest);
    out
}

/// The end of the element that starts `html`, counting nested elements of the same name.
fn element_end(html: &str, name: &str) -> usize {
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 0;
    let mut at = 0;
    while at < html.len() {
        let next_open = html[at..].find(&open).map(|i| at + i);
        let next_close = html[at..].find(&close).map(|i| at + i);
        match (next_open, next_close) {
            (Some(o), Some(c)) if o < c => {
                depth += 1;
                at = o + open.len();
            }
            (_, Some(c)) => {
                depth -= 1;
                at = c + close.len();
                if depth == 0 {
                    return at;
                }
            }
            _ => break,
        }
    }
    html.len()
}

fn tag_name(tag: &str) -> &str {
    let t = tag.trim_start_matches('<');
    &t[..t
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(t.len())]
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}

fn has_class(tag: &str, class: &str) -> bool {
    attr(tag, "class").is_some_and(|c| c.split_whitespace().any(|c| c == class))
}

/// Text without tags or entities, each tag a space (as mdBook's index separates elements).
fn plain(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r##"<html><nav>sidebar</nav><main><p>Before.</p>
<h1 id="ch"><a class="header" href="#ch">Ch</a></h1>
<p>The p99 rose &amp; fell.</p>
<div class="measure-table"><table class="measure"><tr><td>35.3 ms</td></tr></table></div>
<details class="provenance"><summary>Measured on m</summary><p>rustc 1.95</p></details>
<figure><svg><text>100 µs</text></svg><figcaption>Figure 1.1. p99 by burst.</figcaption></figure>
<h4 id="deep">Deep</h4><p>Still the first section.</p>
<h2 id="two"><a class="header" href="#two">Two</a></h2>
<details class="hint"><summary>Hint</summary><p>A hint stays.</p></details>
</main><footer>x</footer></html>"##;

    #[test]
    fn sections_keep_the_prose_and_leave_the_data_out() {
        let s = sections(PAGE);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(
            s["ch"],
            "Before. The p99 rose & fell. Figure 1.1. p99 by burst. Deep Still the first section."
        );
        assert_eq!(s["two"], "Hint A hint stays.");
    }

    #[test]
    fn nested_elements_of_the_same_name_are_left_out_whole() {
        let html =
            "<p>a</p><table><tr><td><table><tr><td>x</td></tr></table>y</td></tr></table><p>b</p>";
        assert_eq!(plain(&without(html, left_out)), "a b");
    }

    #[test]
    fn the_index_file_round_trips_its_quoting() {
        let json = r#"{"a":"it's a \\ back\"slash"}"#;
        let file = format!(
            "{PREFIX}{}{SUFFIX}",
            json.replace('\\', "\\\\").replace('\'', "\\'")
        );
        assert_eq!(unquote(&file).unwrap(), json);
        assert!(unquote("something else").is_err());
    }
}
