//! The book's preprocessor: replaces `{{#measure KIND key=value ...}}` directives with tables,
//! charts, numbers and provenance lines read from the records in `data/`.
//!
//! Each kind of directive is a variant of `render::Kind`, the one list of kinds, with the
//! typed struct of its arguments (deserialized by `args`) in the module that renders it
//! (`render/*.rs`). The error for an unknown kind names every kind from that list, an unknown
//! argument or value names the allowed ones, and a test checks the runbook's table of directives
//! (`src/contributing.md`, "Directives") against it.
//!
//! Any problem (a missing record, an unknown case, a record of another schema, a claim that
//! does not hold on the book's machine, a claim no page states, a measurement typed into the
//! prose) fails the build with a message naming the chapter, the directive and what is
//! available. `\{{#measure` is left in the page as written, without the backslash.
//!
//! With a reader's machine (`cargo run -p book -- build --machine NAME`, or `MEASURE_MACHINE`
//! for the stock `mdbook`), every directive reads that machine's records where it has them; a
//! page that falls back to the book's machine says so at its top, a claim that does not hold
//! there is shown as not held, and a cell that run did not measure reads "n/a".

#[macro_use]
mod args;
mod chart;
pub mod code;
mod data;
pub mod externs;
pub mod lint;
mod render;

use anyhow::bail;
use mdbook_preprocessor::book::{Book, BookItem};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::collections::BTreeMap;
use std::path::Path;

pub use code::StripHidden;
pub use data::Data;
pub use externs::ExternCrates;

/// The preprocessor; `name()` is the key of its table in book.toml.
#[derive(Default)]
pub struct Measure {
    /// Render from this machine's records where it has them (the reader's own book).
    pub reader: Option<String>,
}

impl Preprocessor for Measure {
    fn name(&self) -> &str {
        "measure"
    }

    fn run(&self, ctx: &PreprocessorContext, mut book: Book) -> anyhow::Result<Book> {
        let config = |key: &str| format!("preprocessor.measure.{key}");
        let reference: Option<String> = ctx.config.get(&config("reference-machine")).ok().flatten();
        let Some(reference) = reference else {
            bail!(
                "book.toml: [preprocessor.measure] needs `reference-machine = \"<folder under data/>\"`"
            );
        };
        // What each chapter's manifest now says once (records::chapter).
        for moved in ["metric-names", "chapter-machines", "busy-machine"] {
            let present: Option<toml::Value> = ctx.config.get(&config(moved)).ok().flatten();
            if present.is_some() {
                bail!(
                    "book.toml: [preprocessor.measure] `{moved}` is now said once per chapter, in listings/<chapter>/chapter.toml (machine, metric-names); remove it here"
                );
            }
        }
        let allowed: Vec<lint::Allowed> = ctx
            .config
            .get(&config("allowed-numbers"))
            .map_err(|e| {
                anyhow::anyhow!("book.toml: [[preprocessor.measure.allowed-numbers]]: {e}")
            })?
            .unwrap_or_default();
        if let Some(m) = &self.reader
            && !ctx.root.join("data").join(m).is_dir()
        {
            bail!(
                "--machine {m}: there is no data/{m}/ (run scripts/measure.sh --machine {m} first)"
            );
        }
        let mut pages = Vec::new();
        book.for_each_chapter_mut(|ch| {
            if let Some(path) = &ch.path {
                let number = ch
                    .number
                    .as_ref()
                    .map(|n| n.to_string().trim_end_matches('.').to_string());
                pages.push((path.display().to_string(), number, ch.content.clone()));
            }
        });
        let chapters = records::chapter::all(&ctx.root).map_err(|e| anyhow::anyhow!(e))?;
        let data = Data::new(&ctx.root, &reference)
            .with_chapters(chapters)
            .map_err(|e| anyhow::anyhow!(e))?
            .with_reader(self.reader.clone())
            .with_repository(
                ctx.config
                    .get("output.html.git-repository-url")
                    .ok()
                    .flatten(),
            )
            .with_labels(&pages)
            .and_then(|d| d.with_sessions(&pages))
            .map_err(|e| anyhow::anyhow!(e))?;
        let mut errors = Vec::new();
        for a in &allowed {
            if lint::too_wide(a) {
                errors.push(format!(
                    "book.toml: the allowed number `{}` is as wide as the number itself: give the words around it, so that it lets through this use only",
                    a.text
                ));
            }
        }
        let mut used_allowances = vec![false; allowed.len()];
        book.for_each_mut(|item| {
            let BookItem::Chapter(ch) = item else { return };
            let page = ch
                .path
                .as_ref()
                .map_or(ch.name.clone(), |p| p.display().to_string());
            let (typed, used) = lint::typed_numbers(&ch.content, &page, &allowed);
            for i in used {
                used_allowances[i] = true;
            }
            for f in typed {
                errors.push(format!(
                    "src/{page}:{}: `{}` is a measurement typed into the prose: render it with a directive, or allow it under [[preprocessor.measure.allowed-numbers]] in book.toml with the reason",
                    f.line, f.text
                ));
            }
            data.new_page();
            match expand(&data, &code::annotate_blocks(&ch.content)) {
                Ok(text) => ch.content = with_fallback_note(&data, text),
                Err(e) => errors.push(format!("src/{page}: {e}")),
            }
        });
        for (i, used) in used_allowances.iter().enumerate() {
            if !used {
                errors.push(format!(
                    "book.toml: the allowed number `{}` is on no page any more; remove it",
                    allowed[i].text
                ));
            }
        }
        match data.unused_claims() {
            Ok(unused) if !unused.is_empty() && errors.is_empty() => errors.push(format!(
                "claims that no page states (add a {{{{#measure claim ...}}}} where the book makes them, or remove them): {}",
                unused.join(", ")
            )),
            Err(e) => errors.push(e),
            _ => {}
        }
        let unlisted = data.unlisted_claims();
        if !unlisted.is_empty() && errors.is_empty() {
            errors.push(format!(
                "chapters whose claims no page lists (end the chapter with a {{{{#measure claims record=...}}}} under a heading): {}",
                unlisted.join(", ")
            ));
        }
        for warning in data.warnings() {
            eprintln!("warning: {warning}");
        }
        if !errors.is_empty() {
            bail!("{}", errors.join("\n"));
        }
        Ok(book)
    }

    fn supports_renderer(&self, _renderer: &str) -> anyhow::Result<bool> {
        Ok(true)
    }
}

const OPEN: &str = "{{#measure";

/// The text of every directive in `content`, escaped ones left out.
pub fn directives_in(content: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = content;
    while let Some(at) = rest.find(OPEN) {
        let escaped = rest[..at].ends_with('\\');
        let from = &rest[at..];
        let Some(end) = from.find("}}") else { break };
        if !escaped {
            out.push(&from[..end + 2]);
        }
        rest = &from[end + 2..];
    }
    out
}

/// In a reader's book, a page whose figures come (partly) from the book's machine says so under
/// its title.
fn with_fallback_note(data: &Data, text: String) -> String {
    let fallbacks = data.take_fallbacks();
    let Some(reader) = data.reader() else {
        return text;
    };
    if fallbacks.is_empty() {
        return text;
    }
    let machines: Vec<String> = fallbacks
        .iter()
        .map(|r| {
            format!(
                "<code>{}</code> from <code>{}</code>",
                esc(r),
                esc(data.reference_for(r))
            )
        })
        .collect();
    let note = format!(
        "\n<div class=\"measure-note\">This book is rendered from <code>{}</code>'s records, but that machine has no record of {}: those figures are the book's. Run the chapter there with <code>--save --machine {}</code> to see yours.</div>\n",
        esc(reader),
        machines.join(", "),
        esc(reader)
    );
    match text.find('\n') {
        Some(at) if text.starts_with("# ") => {
            format!("{}{note}{}", &text[..at + 1], &text[at + 1..])
        }
        _ => format!("{note}{text}"),
    }
}

/// Replaces every directive in `content`; the first bad one is an error.
/// Every directive of a page rendered; every directive that fails is named, not only the first.
pub fn expand(data: &Data, content: &str) -> Result<String, String> {
    let mut out = String::with_capacity(content.len());
    let mut failed = Vec::new();
    let mut rest = content;
    while let Some(at) = rest.find(OPEN) {
        let escaped = rest[..at].ends_with('\\');
        let (before, from) = rest.split_at(at);
        let Some(end) = from.find("}}") else {
            return Err(format!(
                "directive `{}` is not closed with `}}}}`",
                first_line(from)
            ));
        };
        let text = &from[..end + 2];
        if escaped {
            out.push_str(&before[..before.len() - 1]);
            out.push_str(text);
        } else {
            out.push_str(before);
            let directive =
                Directive::parse(text).map_err(|e| format!("directive `{text}`: {e}"))?;
            let rendered = match render::render(data, &directive) {
                Ok(html) => html,
                // A reader's run may lack a case the book shows: say so in place.
                Err(e) if data.reads_reader(&directive) => format!(
                    "<span class=\"measure-na\" title=\"{}\">n/a</span>",
                    esc(&format!("Not in this machine's record: {e}"))
                ),
                Err(e) => {
                    failed.push(format!("directive `{text}`: {e}"));
                    String::new()
                }
            };
            out.push_str(&rendered);
        }
        rest = &from[end + 2..];
    }
    if !failed.is_empty() {
        return Err(failed.join("\n"));
    }
    out.push_str(rest);
    Ok(out)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// A parsed directive: its kind and `key=value` arguments (values may be "quoted"), as written;
/// `render::Kind::parse` types them.
#[derive(Debug, Clone)]
pub struct Directive {
    pub kind: String,
    pub args: BTreeMap<String, String>,
}

impl Directive {
    pub fn parse(text: &str) -> Result<Directive, String> {
        let inner = text
            .strip_prefix(OPEN)
            .and_then(|t| t.strip_suffix("}}"))
            .ok_or("not a {{#measure ...}} directive")?;
        let mut tokens = tokenize(inner)?.into_iter();
        let kind = tokens
            .next()
            .ok_or_else(|| format!("missing the kind ({})", render::Kind::names()))?;
        let mut args = BTreeMap::new();
        for token in tokens {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| format!("argument `{token}` is not key=value"))?;
            if args.insert(key.to_string(), value.to_string()).is_some() {
                return Err(format!("argument `{key}` is given twice"));
            }
        }
        Ok(Directive { kind, args })
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.args.get(key).map(String::as_str)
    }
}

/// Splits on whitespace, keeping "double-quoted" stretches (the quotes are removed).
fn tokenize(s: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    tokens.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            c => {
                cur.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err("a quoted value is not closed".into());
    }
    if started {
        tokens.push(cur);
    }
    Ok(tokens)
}

/// Escapes text for HTML and SVG.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The repository's Cargo.lock as (name, version) pairs (see `measure::lockfile`).
pub fn locked_versions(root: &Path) -> Result<BTreeMap<String, String>, String> {
    let path = root.join("Cargo.lock");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(measure::lockfile::versions(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kind_and_quoted_arguments() {
        let d =
            Directive::parse(r#"{{#measure chart record=ch01 caption="p99, log scale" log=true}}"#)
                .unwrap();
        assert_eq!(d.kind, "chart");
        assert_eq!(d.get("caption"), Some("p99, log scale"));
        assert_eq!(d.get("log"), Some("true"));
        assert!(Directive::parse("{{#measure}}").is_err());
        assert!(Directive::parse("{{#measure value case}}").is_err());
        assert!(Directive::parse("{{#measure value a=1 a=2}}").is_err());
        assert!(Directive::parse(r#"{{#measure value a="open}}"#).is_err());
    }

    #[test]
    fn metrics_are_shown_by_their_display_names() {
        let names = BTreeMap::from([("over_10ms".to_string(), "over 10 ms".to_string())]);
        let data = Data::new(Path::new("/nonexistent"), "m").with_metric_names(names);
        assert_eq!(data.label(data::Dim::Metric, "over_10ms"), "over 10 ms");
        assert_eq!(data.label(data::Dim::Metric, "p99"), "p99");
        assert_eq!(
            data.label(data::Dim::Variant, "inline"),
            "<code>inline</code>"
        );
    }

    #[test]
    fn escaped_directives_are_kept_and_unclosed_ones_fail() {
        let data = Data::new(Path::new("/nonexistent"), "m");
        assert_eq!(
            expand(&data, "a \\{{#measure versions}} b").unwrap(),
            "a {{#measure versions}} b"
        );
        assert!(
            expand(&data, "{{#measure value")
                .unwrap_err()
                .contains("not closed")
        );
    }
}
