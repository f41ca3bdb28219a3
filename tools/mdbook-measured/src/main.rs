//! The preprocessor as a command, for the stock `mdbook build` (declared in book.toml).
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
    // `strip`: the HTML-only preprocessor that runs after `links` (book.toml's measure-html).
    let strip = args.first().map(String::as_str) == Some("strip");
    if strip && args.get(1).map(String::as_str) == Some("supports") {
        std::process::exit(if args.get(2).map(String::as_str) == Some("html") {
            0
        } else {
            1
        });
    }
    let result = (|| -> anyhow::Result<()> {
        let (ctx, book) = mdbook_preprocessor::parse_input(io::stdin())?;
        if strip {
            let book = mdbook_measured::StripHidden.run(&ctx, book)?;
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
