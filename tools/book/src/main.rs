//! `cargo run -p book -- build | serve | test | deps | check`: the book's driver.
//!
//! It runs mdBook in-process with the `measure` preprocessor, and fails on what stock mdBook
//! lets through with exit status 0: a missing include file or anchor, a broken internal link or
//! `#anchor`, an error logged while building.

mod browser;
mod chapters;
mod checks;
mod claims;
mod deps;
mod doctest;
mod headline;
mod history;
mod outputs;
mod parts;
mod pdf;
mod readability;
mod rehash;
mod releases;
mod search;
mod serve;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use mdbook_driver::MDBook;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Parser)]
#[command(about = "Build, serve, test and check the book")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the HTML book into book/ (fails on broken includes, anchors and links, a typed
    /// measurement, or a claim the book's own data contradicts)
    Build {
        /// Render from data/NAME/ (your machine's records) into book-NAME/, with every claim
        /// marked as held or not held there
        #[arg(long, value_name = "NAME")]
        machine: Option<String>,
    },
    /// Build, then serve the book on 127.0.0.1
    Serve {
        #[arg(long, default_value_t = 3000)]
        port: u16,
        /// Render from data/NAME/ (your machine's records), as `build --machine`
        #[arg(long, value_name = "NAME")]
        machine: Option<String>,
    },
    /// Compile and run every Rust code block in the book against the real crates, as the stock
    /// `mdbook test -L target/book-deps` does, two pages at a time; count passes and failures
    Test {
        /// Run the stock command's own code instead (mdbook-driver's `MDBook::test`, with the
        /// preprocessors as book.toml names them), one page at a time, printing nothing per page
        #[arg(long)]
        stock: bool,
    },
    /// Make target/book-deps/, the folder of crates the stock `mdbook test -L` needs, from the
    /// workspace's test build, and print its path
    Deps,
    /// Build the book, then print it to book/book.pdf with headless Chromium: a table of contents
    /// with page numbers, numbered pages, an outline
    Pdf {
        /// The paper size
        #[arg(long, value_enum, default_value_t = pdf::Paper::A4)]
        paper: pdf::Paper,
        /// Print book/ as it was last built
        #[arg(long)]
        no_build: bool,
    },
    /// Open every page of the built book in headless Chromium at 1280 and 390 px; fail on an
    /// element wider than its column, a claim whose verdict needs a mouse, an error on a page,
    /// or a broken in-page link
    Browse {
        /// The built book to check (default: book/)
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Rerun the commands whose output the book shows (listings/*/outputs/*.txt) and compare
    Outputs {
        /// Rewrite the files instead of failing
        #[arg(long)]
        update: bool,
    },
    /// Check the records in data/: valid, fresh (nothing that shaped them changed), every
    /// conclusion held on the book's machine, none not marked quiet refuted beside the busy
    /// neighbour, no invariant broken. With FILEs: only check that those records are valid
    Check { files: Vec<PathBuf> },
    /// Check that every change to a claim since histories began has its history entry (git)
    History,
    /// Re-derive the measuring core's input in every record of the book's machines that was fresh
    /// before the core moved out of tools/measure, after proving that the move changed no
    /// measuring code; it refuses any other change
    Rehash,
    /// Each chapter's manifest (listings/*/chapter.toml) in a line
    Chapters {
        /// Rewrite the README's table of chapters from the manifests
        #[arg(long)]
        readme: bool,
        /// Print the programs outside Rust the chapters run, tab-separated (for the scripts)
        #[arg(long, conflicts_with = "readme")]
        needs: bool,
    },
    /// The Tokio release matrix (releases/releases.toml): list, lock, run
    #[command(subcommand)]
    Releases(releases::Releases),
}

fn main() {
    let args = Args::parse();
    let root = measure::record::repo_root();
    init_logging();
    let result = match args.command {
        Command::Build { machine } => {
            build(&root, machine.as_deref()).map(|dir| eprintln!("book built in {}", dir.display()))
        }
        Command::Serve { port, machine } => {
            build(&root, machine.as_deref()).and_then(|dir| serve::serve(&dir, port))
        }
        Command::Test { stock: false } => doctest::run(&root),
        Command::Test { stock: true } => doctest::run_stock(&root),
        Command::Deps => deps::make(&root).map(|dir| println!("{}", dir.display())),
        Command::Pdf { paper, no_build } => pdf::print(&root, paper, !no_build).map(|_| ()),
        Command::Browse { dir } => browser::run(&dir.unwrap_or_else(|| root.join("book"))),
        Command::Outputs { update } => outputs::check(&root, update),
        Command::Check { files } if files.is_empty() => {
            claims::check_all(&root).and_then(|()| chapters::check_first_serve(&root))
        }
        Command::Check { files } => claims::validate_files(&files),
        Command::History => history::check(&root),
        Command::Rehash => rehash::rehash(&root),
        Command::Chapters { readme, needs } => chapters::run(&root, readme, needs),
        Command::Releases(cmd) => releases::run(&root, cmd),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

/// Git's output in `root`, or an error with what it said.
pub fn git(root: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `f` of each item, `threads` at a time, the results in the items' order.
pub fn parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::with_capacity(items.len()));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Errors mdBook logs without failing (a missing include file, say) are counted here.
static LOGGED_ERRORS: AtomicUsize = AtomicUsize::new(0);

struct CountErrors;

impl<S: tracing::Subscriber> Layer<S> for CountErrors {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if *event.metadata().level() == tracing::Level::ERROR {
            LOGGED_ERRORS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn init_logging() {
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_filter(tracing_subscriber::filter::LevelFilter::WARN);
    let subscriber = tracing_subscriber::registry().with(fmt).with(CountErrors);
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// Loads the book with the preprocessor in-process (it replaces the command in book.toml),
/// rendering from the reader's machine's records when one is named.
pub fn load(root: &Path, reader: Option<&str>) -> Result<MDBook> {
    let mut md =
        MDBook::load(root).with_context(|| format!("loading the book in {}", root.display()))?;
    md.with_preprocessor(mdbook_measured::Measure {
        reader: reader.map(str::to_string),
    });
    md.with_preprocessor(mdbook_measured::StripHidden);
    md.with_preprocessor(mdbook_measured::ExternCrates);
    if let Some(name) = reader {
        md.config.build.build_dir = root.join(format!("book-{name}"));
    }
    Ok(md)
}

/// Builds the HTML book and checks it; returns the output folder.
pub fn build(root: &Path, reader: Option<&str>) -> Result<PathBuf> {
    if let Some(name) = reader {
        measure::cli::parse_machine_name(name)
            .map_err(|e| anyhow::anyhow!("--machine {name}: {e}"))?;
    }
    chapters::check(root)?;
    let md = load(root, reader)?;
    checks::includes(&md)?;
    md.build()?;
    let errors = LOGGED_ERRORS.load(Ordering::Relaxed);
    if errors > 0 {
        bail!("mdBook logged {errors} error(s) while building (see above)");
    }
    let dir = md.build_dir_for("html");
    checks::links(&dir)?;
    checks::headings(&dir)?;
    search::rewrite(&dir)?;
    // The readability limits hold the book's own pages, not a reader's rebuild of them.
    if reader.is_none() {
        readability::check(root, &dir, &parts::Parts::of(&md))?;
    }
    Ok(dir)
}
