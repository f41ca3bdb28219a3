//! Prints the end-of-run report of a stored record against another, as a listing's run would:
//! `cargo run -p records --example report -- data/amd-epyc-2c-busy/ch01-blocking.json
//! data/amd-epyc-2c/ch01-blocking.json [experiment ...]` (naming experiments keeps only
//! their series, as `--filter` would). No measuring: a way to read the reports' layout.

use records::{Claims, Record, report};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mine, book, filter @ ..] = &args[..] else {
        return Err("usage: report MINE.json BOOK.json [EXPERIMENT ...]".into());
    };
    let mut mine = Record::load(Path::new(mine))?;
    let book = Record::load(Path::new(book))?;
    if !filter.is_empty() {
        mine.series.retain(|s| filter.contains(&s.experiment));
    }
    let root = records::record::repo_root();
    let listing = root.join("listings").join(&mine.chapter);
    let claims = Claims::load(&listing)?;
    let headline = headline(&listing);
    let only: Vec<&str> = headline.iter().map(String::as_str).collect();
    print!("{}", report::render_table(&mine, &only));
    print!("{}", report::render_comparison(&mine, &book, &only));
    print!("{}", report::render_claims(&claims, &mine, Some(&book)));
    print!("{}", report::render_noise(&mine));
    Ok(())
}

/// The chapter's `headline` metrics, read from its main.rs (the list the harness is given).
fn headline(listing: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(listing.join("src/main.rs")).unwrap_or_default();
    let Some(start) = text.find("headline: &[") else {
        return Vec::new();
    };
    let rest = &text[start..];
    let list = &rest[..rest.find(']').unwrap_or(rest.len())];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}
