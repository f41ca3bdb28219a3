//! The preprocessors as a command, for the stock `mdbook build` and `mdbook test` (declared in
//! book.toml).
//! It never prints anything but the book to stdout.

use mdbook_measured::Measure;
use mdbook_preprocessor::Preprocessor;
use std::io;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("supports") {
        // Every renderer gets the same numbers (the test renderer included).
        std::process::exit(0);
    }
    // After `links`, for one renderer each: `strip` for the HTML (book.toml's measure-html),
    // `extern-crates` for the test renderer (measure-test).
    let after_links: Option<&dyn Preprocessor> = match args.first().map(String::as_str) {
        Some("strip") => Some(&mdbook_measured::StripHidden),
        Some("extern-crates") => Some(&mdbook_measured::ExternCrates),
        _ => None,
    };
    if let Some(pre) = after_links
        && args.get(1).map(String::as_str) == Some("supports")
    {
        let renderer = args.get(2).map(String::as_str).unwrap_or_default();
        std::process::exit(if pre.supports_renderer(renderer).unwrap_or(false) {
            0
        } else {
            1
        });
    }
    let result = (|| -> anyhow::Result<()> {
        let (ctx, book) = mdbook_preprocessor::parse_input(io::stdin())?;
        if let Some(pre) = after_links {
            let book = pre.run(&ctx, book)?;
            serde_json::to_writer(io::stdout(), &book)?;
            return Ok(());
        }
        // The stock `mdbook` cannot pass --machine; MEASURE_MACHINE=NAME does the same.
        let reader = std::env::var("MEASURE_MACHINE")
            .ok()
            .filter(|m| !m.is_empty());
        let book = Measure { reader }.run(&ctx, book)?;
        serde_json::to_writer(io::stdout(), &book)?;
        Ok(())
    })();
    if let Err(e) = result {
        eprintln!("mdbook-measured: {e:#}");
        std::process::exit(1);
    }
}
