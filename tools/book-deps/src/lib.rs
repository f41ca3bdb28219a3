//! This crate exists so that its dependencies are built for the book's code blocks: `cargo run
//! -p book -- deps` puts one build of each (and what they link) in `target/book-deps/`, the
//! folder the stock `mdbook test -L` searches, and each block names the ones it uses in a hidden
//! `# extern crate NAME;` (the `measure-test` preprocessor adds it).
//!
//! A crate re-exported here is one of which rustc would find two candidates by name, and so refuse
//! `extern crate NAME` ("multiple candidates"): a block reaches it as `book_deps::NAME` instead
//! (`# extern crate book_deps;` and `# use book_deps::NAME;`, added by the same preprocessor).

/// The toolchain's own folder holds std's private build of libc.
pub use libc;
/// Chapter 2's parking_lot 0.13. Tokio (with its `parking_lot` feature) and sqlx (through
/// futures-intrusive) link parking_lot 0.12, which the folder must hold as well.
pub use parking_lot;
/// Chapter 7's tower-http 0.7. reqwest 0.13 (Chapter 9) links tower-http 0.6, which the folder
/// must hold as well.
pub use tower_http;
