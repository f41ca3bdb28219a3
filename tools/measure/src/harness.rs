//! One run of one listing, from the command line to the saved record, so that a chapter's
//! `main.rs` holds its experiment only:
//!
//! ```no_run
//! # use measure::{Cell, Chapter, Experiment, Harness, Measurement};
//! # #[derive(serde::Serialize)] struct Params { workers: u32 }
//! const CHAPTER: Chapter = Chapter {
//!     name: "ch99-demo",
//!     title: "A demo",
//!     about: "What the chapter measures, for --help.",
//!     listing_dir: env!("CARGO_MANIFEST_DIR"),
//!     crates: &["tokio"],
//!     headline: &["p99"],
//!     full_reps: 5,
//! };
//! let mut h = Harness::start(CHAPTER);
//! let p = Params { workers: h.cli().workers.unwrap_or(h.cores()) };
//! h.params(&p);
//! h.run(vec![Experiment::new("demo", vec![Cell::new(1, "inline")], |_cell, _rep| {
//!     let mut m = Measurement::new();
//!     m.push("p99", "ns", 1.0);
//!     Ok(m)
//! })]);
//! ```
//!
//! The experiments are handed to `run` together, after the parameters they borrow exist. `run`
//! checks `--filter` before anything runs, runs the experiments one after another (the cells of
//! each interleaved within every repetition), stops at the first error (a wrong checksum) with nothing saved, and prints the results, the comparison with
//! the book's figures where the setups match, the book's claims checked on this run, and the
//! cells that ran on a noisy machine.

use crate::cli::Cli;
use crate::provenance;
use crate::runner::{Cell, Measurement, Runner};
use clap::{CommandFactory, FromArgMatches};
use records::claims::Claims;
use records::judge::{Breach, Role, judge};
use records::record::{self, Build, Machine, Record, SCHEMA_VERSION, Series};
use records::{freshness, report};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a listing tells the harness about its chapter.
#[derive(Clone, Copy)]
pub struct Chapter {
    /// The package name, also the record's file name: `ch01-blocking`.
    pub name: &'static str,
    pub title: &'static str,
    /// What the experiment measures, in a few sentences (the start of `--help`).
    pub about: &'static str,
    /// `env!("CARGO_MANIFEST_DIR")`.
    pub listing_dir: &'static str,
    /// The crates whose versions the record keeps.
    pub crates: &'static [&'static str],
    /// The metrics the terminal tables show (every metric is stored).
    pub headline: &'static [&'static str],
    /// Repetitions of a full run.
    pub full_reps: u32,
}

type CellFn<'a> = Box<dyn FnMut(&Cell, u32) -> Result<Measurement, String> + 'a>;

/// One experiment: its cells (case × variant) and how to run one cell once.
pub struct Experiment<'a> {
    name: String,
    cells: Vec<Cell>,
    run: CellFn<'a>,
    shaped_by: Option<Vec<String>>,
    reps: Option<u32>,
}

impl<'a> Experiment<'a> {
    pub fn new(
        name: &str,
        cells: Vec<Cell>,
        run: impl FnMut(&Cell, u32) -> Result<Measurement, String> + 'a,
    ) -> Experiment<'a> {
        Experiment {
            name: name.into(),
            cells,
            run: Box::new(run),
            shaped_by: None,
            reps: None,
        }
    }

    /// Repetitions of a full run of this experiment, where they differ from the chapter's: a
    /// cheap experiment repeated more narrows the interval its claims are judged on. `--reps N`
    /// and `--quick` set every experiment's count alike.
    pub fn repetitions(mut self, reps: u32) -> Experiment<'a> {
        self.reps = Some(reps);
        self
    }

    /// The parameters that shape this experiment: a reader's run that changed another one is
    /// still compared with the book's here. Without it, every parameter counts.
    pub fn shaped_by(mut self, params: &[&str]) -> Experiment<'a> {
        self.shaped_by = Some(params.iter().map(|p| p.to_string()).collect());
        self
    }
}

/// A run in preparation: the parameters are set, then [`Harness::run`] takes the experiments.
pub struct Harness {
    chapter: Chapter,
    /// The chapter's manifest (`listings/<chapter>/chapter.toml`), where the listing has one.
    manifest: Option<records::chapter::Manifest>,
    /// Quick mode without `--filter`, leaving out the manifest's `quick-skips`.
    quick_leaves_out: bool,
    cli: Cli,
    machine: Machine,
    claims: Claims,
    seed: u64,
    reps: u32,
    params: BTreeMap<String, serde_json::Value>,
    derived: BTreeMap<String, serde_json::Value>,
    scopes: BTreeMap<String, Vec<String>>,
    /// When the listing started: a record keeps how long its run took.
    started: std::time::Instant,
}

impl Harness {
    /// Parses the command line (exit status 2 on a bad flag), refuses an unoptimised build, and
    /// prints what is about to run and on what.
    pub fn start(chapter: Chapter) -> Harness {
        let cli = parse_cli(&chapter, std::env::args_os());
        Harness::with_cli(chapter, cli)
    }

    /// `start` for a chapter with flags of its own (`--dir PATH`): `E` is a `clap::Args` struct,
    /// shown in `--help` beside the shared flags and returned parsed.
    pub fn start_with<E: clap::Args + clap::FromArgMatches>(chapter: Chapter) -> (Harness, E) {
        let (cli, extra) = parse_cli_with::<E>(&chapter, std::env::args_os());
        (Harness::with_cli(chapter, cli), extra)
    }

    fn with_cli(chapter: Chapter, cli: Cli) -> Harness {
        crate::cli::check_optimised(cfg!(debug_assertions), cli.allow_debug);
        // The book's claims about this chapter, read from the listing's claims.toml.
        let claims = Claims::load(Path::new(chapter.listing_dir)).unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2);
        });
        if cli.save && cli.quick {
            eprintln!("error: --save stores full runs only; drop --quick (or use --out PATH)");
            std::process::exit(2);
        }
        // The one measuring act outside the measuring core: the noise sampler's first mark, from
        // which the first cell's noise window may reach back (measure_core::noise::MIN_WINDOW).
        // It belongs in the core; moving it there stales every record it shaped, so it moves
        // when the book's machines are measured again.
        crate::noise::begin();
        let machine = provenance::machine_here(cli.machine.clone());
        if cli.print_machine {
            println!("{}", machine.name);
            std::process::exit(0);
        }
        // A record that cannot be written is found out now, not after minutes of measuring.
        let root = record::repo_root();
        let mut targets: Vec<PathBuf> = cli.out.iter().cloned().collect();
        if cli.save {
            targets.push(record::record_path(&root, &machine.name, chapter.name));
        }
        for path in &targets {
            if let Err(e) = can_write(path) {
                eprintln!(
                    "error: cannot write the record to {}: {e}; nothing was measured",
                    path.display()
                );
                std::process::exit(2);
            }
        }
        let manifest = match manifest_for(&chapter) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        };
        // Drawn once: a listing that asks `cli().seed()` again (Chapter 8's shelf) gets the
        // seed the record keeps, not another draw from the clock.
        let seed = cli.seed();
        let mut cli = cli;
        cli.seed = Some(seed);
        let skips = manifest.as_ref().map_or(&[][..], |m| &m.quick_skips[..]);
        let quick_leaves_out = cli.quick && cli.filter.is_empty() && !skips.is_empty();
        if quick_leaves_out {
            // A listing that prepares an experiment before the run (Chapter 7 builds its release
            // profiles) asks the command line whether it will run: it will not, so the filter
            // names every other experiment the book's record has (`run` adds any newer one).
            cli.filter = book_experiments(&chapter)
                .into_iter()
                .filter(|e| !skips.iter().any(|s| s.experiment == *e))
                .collect();
        }
        let reps = cli.reps_or(chapter.full_reps);
        eprintln!(
            "{}: {} mode, {reps} repetition(s), order seed {seed} (rerun with --seed {seed})",
            chapter.name,
            if cli.quick { "quick" } else { "full" }
        );
        eprintln!(
            "machine {}: {}, {} CPUs online, available_parallelism {}, load {:.2}",
            machine.name,
            machine.cpu_model,
            machine.cores_seen,
            machine.available_parallelism,
            machine.load_before[0]
        );
        Harness {
            chapter,
            manifest,
            quick_leaves_out,
            cli,
            machine,
            claims,
            seed,
            reps,
            params: BTreeMap::new(),
            derived: BTreeMap::new(),
            scopes: BTreeMap::new(),
            started: std::time::Instant::now(),
        }
    }

    pub fn cli(&self) -> &Cli {
        &self.cli
    }

    /// The CPUs this process may use (`available_parallelism`: affinity and quota applied).
    pub fn cores(&self) -> u32 {
        self.machine.available_parallelism
    }

    /// The experiment's setup, a struct that serialises to named fields. A run is compared with
    /// the book's only where these match.
    pub fn params(&mut self, params: &impl Serialize) {
        match serde_json::to_value(params) {
            Ok(serde_json::Value::Object(map)) => self.params.extend(map),
            _ => panic!("the parameters must serialise to a struct with named fields"),
        }
    }

    /// A value measured on this machine to carry the setup out (a calibration, a loop count).
    pub fn derived(&mut self, name: &str, value: impl Serialize) {
        let value = serde_json::to_value(value).expect("a derived value serialises");
        self.derived.insert(name.to_string(), value);
    }

    /// Whether this run measures a cell of `experiment` that `wanted` picks, as `run` applies
    /// `--filter` (an experiment the quick run leaves out counts as run): for a listing that
    /// needs an outside program for some variants only, and checks for it before measuring.
    pub fn runs_any(&self, experiment: &Experiment<'_>, wanted: impl Fn(&Cell) -> bool) -> bool {
        let whole = self.cli.filter.is_empty() || self.cli.filter.contains(&experiment.name);
        experiment
            .cells
            .iter()
            .any(|c| wanted(c) && (whole || self.cli.selects(&c.case, &c.variant)))
    }

    /// What the cells that `wanted` picks need (an outside program, built), prepared before
    /// anything is measured and only when this run measures one of them ([`Harness::runs_any`]):
    /// `None` when none runs. A failed `prepare` stops the run here with its message and exit
    /// status 1, nothing measured and nothing saved.
    pub fn prepare_for<T>(
        &self,
        experiments: &[Experiment<'_>],
        wanted: impl Fn(&Cell) -> bool,
        prepare: impl FnOnce() -> Result<T, String>,
    ) -> Option<T> {
        if !experiments.iter().any(|e| self.runs_any(e, &wanted)) {
            return None;
        }
        match prepare() {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }

    /// Runs the experiments and exits: 0 when done, 1 when a run failed (nothing saved), 2 when
    /// `--filter` matched nothing.
    pub fn run(self, experiments: Vec<Experiment<'_>>) -> ! {
        std::process::exit(self.run_returning(experiments))
    }

    /// `run` for a listing that must clean up before it exits (files it made): returns the exit
    /// status instead of exiting.
    pub fn run_returning(self, experiments: Vec<Experiment<'_>>) -> i32 {
        match self.run_inner(experiments) {
            Ok(()) => 0,
            Err((code, message)) => {
                eprintln!("error: {message}");
                code
            }
        }
    }

    fn run_inner(mut self, experiments: Vec<Experiment<'_>>) -> Result<(), (i32, String)> {
        let skips = self
            .manifest
            .as_ref()
            .map_or(&[][..], |m| &m.quick_skips[..]);
        let quick = self.quick_leaves_out;
        let experiments =
            leave_out_slow(experiments, skips, quick, self.chapter.name).map_err(|e| (2, e))?;
        if quick {
            for e in &experiments {
                if !self.cli.filter.contains(&e.name) {
                    self.cli.filter.push(e.name.clone());
                }
            }
        }
        let all_cells: Vec<(String, Vec<Cell>)> = experiments
            .iter()
            .map(|e| (e.name.clone(), e.cells.clone()))
            .collect();
        for e in &experiments {
            if let Some(names) = &e.shaped_by {
                if let Some(unknown) = names.iter().find(|n| !self.params.contains_key(*n)) {
                    panic!(
                        "experiment {} is shaped by `{unknown}`, which is not a parameter",
                        e.name
                    );
                }
                self.scopes.insert(e.name.clone(), names.clone());
            }
        }
        let mut experiment_reps = BTreeMap::new();
        let selected: Vec<(Runner, CellFn)> = experiments
            .into_iter()
            .map(|e| {
                let reps = match e.reps {
                    Some(n) if self.cli.reps.is_none() && !self.cli.quick => n,
                    _ => self.reps,
                };
                if reps != self.reps {
                    experiment_reps.insert(e.name.clone(), reps);
                }
                let runner = Runner::new(&e.name, e.cells, reps, self.seed);
                (selected(runner, &self.cli), e.run)
            })
            .collect();
        if selected.iter().all(|(r, _)| r.cells.is_empty()) {
            return Err((2, no_match(&self.cli.filter, &all_cells)));
        }
        let mut series = Vec::new();
        let mut seconds = BTreeMap::new();
        for (runner, f) in selected {
            if runner.cells.is_empty() {
                continue;
            }
            let (name, started) = (runner.experiment.clone(), std::time::Instant::now());
            let s = runner
                .run(f)
                .map_err(|e| (1, format!("{e}\nnothing was saved")))?;
            seconds.insert(name, started.elapsed().as_secs_f64());
            series.extend(s);
        }
        let record = self
            .record(series, seconds, experiment_reps)
            .map_err(|e| (1, e))?;
        self.report(&record);
        let broken = broken_invariants(&self.claims, &record);
        if !broken.is_empty() {
            return Err((
                1,
                format!(
                    "{} invariant(s) broken, which is a bug in the experiment or its setup, not a finding: {}; nothing was saved",
                    broken.len(),
                    broken.join("; ")
                ),
            ));
        }
        if self.cli.save {
            let path = record::record_path(&self.root(), &record.machine.name, &record.chapter);
            save(&record, &path).map_err(|e| (1, e))?;
        }
        if let Some(path) = &self.cli.out {
            save(&record, path).map_err(|e| (1, e))?;
        }
        Ok(())
    }

    fn root(&self) -> PathBuf {
        record::repo_root()
    }

    fn record(
        &mut self,
        series: Vec<Series>,
        experiment_seconds: BTreeMap<String, f64>,
        experiment_reps: BTreeMap<String, u32>,
    ) -> Result<Record, String> {
        provenance::finish(&mut self.machine);
        let root = self.root();
        let inputs = freshness::inputs(&root, self.chapter.name).map_err(|e| {
            format!(
                "cannot hash what shaped this run (see records::freshness) under {}: {e}",
                root.display()
            )
        })?;
        let mut crates = provenance::locked_versions(self.chapter.crates);
        crates.insert("measure".into(), env!("CARGO_PKG_VERSION").into());
        let record = Record {
            schema: SCHEMA_VERSION,
            chapter: self.chapter.name.into(),
            title: self.chapter.title.into(),
            created: provenance::now_rfc3339(),
            run_seconds: Some(self.started.elapsed().as_secs_f64()),
            experiment_seconds,
            quick: self.cli.quick,
            reps: self.reps,
            experiment_reps,
            seed: self.seed,
            machine: self.machine.clone(),
            build: Build {
                rustc: env!("MEASURE_RUSTC").into(),
                opt_level: env!("MEASURE_OPT_LEVEL").into(),
                crates,
                commit: provenance::git_commit(&root, self.chapter.name),
                listing_hash: freshness::combined(&inputs),
                inputs,
            },
            params: std::mem::take(&mut self.params),
            derived: std::mem::take(&mut self.derived),
            scopes: std::mem::take(&mut self.scopes),
            source: None,
            series,
        };
        record
            .validate()
            .map_err(|e| format!("the run produced an inconsistent record: {e}"))?;
        Ok(record)
    }

    /// Results, comparison, claims and noise, on stdout.
    fn report(&self, record: &Record) {
        let root = self.root();
        print!("{}", report::render_table(record, self.chapter.headline));
        let book = record::reference_machine(&root, self.chapter.name)
            .map(|m| Record::load(&record::record_path(&root, &m, self.chapter.name)));
        let book = match book {
            Some(Ok(book)) => {
                print!(
                    "{}",
                    report::render_comparison(record, &book, self.chapter.headline)
                );
                Some(book)
            }
            Some(Err(e)) => {
                println!("\n(no comparison with the book's figures: {e})");
                None
            }
            None => {
                println!("\n(no comparison: book.toml names no reference machine)");
                None
            }
        };
        print!(
            "{}",
            report::render_claims(&self.claims, record, book.as_ref())
        );
        print!("{}", report::render_noise(record));
    }
}

/// The experiments to run: in quick mode without `--filter` (`quick`), all but those the
/// manifest's `quick-skips` name (each said on stderr, with why); a skip naming no experiment is
/// an error.
fn leave_out_slow<'a>(
    experiments: Vec<Experiment<'a>>,
    skips: &[records::chapter::QuickSkip],
    quick: bool,
    chapter: &str,
) -> Result<Vec<Experiment<'a>>, String> {
    let mut out = experiments;
    for skip in skips {
        if !out.iter().any(|e| e.name == skip.experiment) {
            return Err(format!(
                "chapter.toml: quick-skips names `{}`, which is no experiment of {chapter}",
                skip.experiment
            ));
        }
        if quick {
            eprintln!(
                "quick mode leaves out `{}`: {} (--filter {} runs it)",
                skip.experiment, skip.why, skip.experiment
            );
            out.retain(|e| e.name != skip.experiment);
        }
    }
    Ok(out)
}

/// The experiments of the chapter's record on the book's machine; none without one.
fn book_experiments(chapter: &Chapter) -> Vec<String> {
    let root = record::repo_root();
    let Some(rec) = record::reference_machine(&root, chapter.name)
        .and_then(|m| Record::load(&record::record_path(&root, &m, chapter.name)).ok())
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = rec.series.iter().map(|s| s.experiment.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// The listing's manifest, checked against what its `Chapter` says of the same things; `None`
/// where the listing has none (a copy outside the book).
fn manifest_for(chapter: &Chapter) -> Result<Option<records::chapter::Manifest>, String> {
    let path = Path::new(chapter.listing_dir).join(records::chapter::FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let m = records::chapter::read(&path, chapter.name)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut said: Vec<&str> = chapter.crates.to_vec();
    let mut listed: Vec<&str> = m.crates.iter().map(String::as_str).collect();
    said.sort();
    listed.sort();
    if m.title != chapter.title || said != listed {
        return Err(format!(
            "listings/{0}/chapter.toml and the listing's CHAPTER disagree: title {1:?} and {2:?}, crates {listed:?} and {said:?}; one of them is out of date",
            chapter.name, m.title, chapter.title
        ));
    }
    Ok(Some(m))
}

fn parse_cli(chapter: &Chapter, args: impl IntoIterator<Item = std::ffi::OsString>) -> Cli {
    let matches = command(chapter).get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn parse_cli_with<E: clap::Args + clap::FromArgMatches>(
    chapter: &Chapter,
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> (Cli, E) {
    let matches = E::augment_args(command(chapter)).get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let extra = E::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    (cli, extra)
}

/// The shared flags, with the chapter's own description at the top of `--help`.
fn command(chapter: &Chapter) -> clap::Command {
    let about = format!(
        "{}: {}\n\n{}\n\n{} --quick takes seconds. At the end, the run prints its results beside \
         the book's and judges the book's claims on this machine: held, not shown or refuted.",
        chapter.name,
        chapter.title,
        chapter.about,
        full_run_time(chapter)
    );
    let reps = format!(
        "Repetitions: every variant runs once per repetition, in a shuffled order \
         [default: {}; 1 with --quick]",
        chapter.full_reps
    );
    Cli::command()
        .name(chapter.name)
        .about(about.clone())
        .long_about(about)
        .mut_arg("reps", |a| a.help(reps))
}

/// How long a full run took on the book's machine, from its record ("A full run took 6 min 9 s
/// on the book's machine (amd-epyc-2c, 2 CPUs)."), or a sentence saying the record does not say.
fn full_run_time(chapter: &Chapter) -> String {
    let root = record::repo_root();
    let rec = record::reference_machine(&root, chapter.name)
        .and_then(|m| Record::load(&record::record_path(&root, &m, chapter.name)).ok());
    match rec.as_ref().and_then(|r| Some((r, r.run_seconds?))) {
        Some((r, secs)) => {
            let secs = secs.round() as u64;
            let time = if secs < 60 {
                format!("{secs} s")
            } else {
                format!("{} min {} s", secs / 60, secs % 60)
            };
            format!(
                "A full run took {time} on the book's machine ({}, {} CPUs).",
                r.machine.name, r.machine.available_parallelism
            )
        }
        None => "The book's record does not say how long a full run takes.".into(),
    }
}

/// The runner with only the cells that `--filter` selects (by experiment, case or variant name).
fn selected(mut runner: Runner, cli: &Cli) -> Runner {
    if !cli.filter.contains(&runner.experiment) {
        runner.cells.retain(|c| cli.selects(&c.case, &c.variant));
    }
    runner
}

fn no_match(filter: &[String], all: &[(String, Vec<Cell>)]) -> String {
    let mut lines = vec![format!(
        "--filter {} matched no case or variant; this listing has:",
        filter.join(" --filter ")
    )];
    for (experiment, cells) in all {
        let mut cases: Vec<&str> = cells.iter().map(|c| c.case.as_str()).collect();
        let mut variants: Vec<&str> = cells.iter().map(|c| c.variant.as_str()).collect();
        cases.dedup();
        variants.sort();
        variants.dedup();
        lines.push(format!(
            "  experiment {experiment}: cases {}; variants {}",
            cases.join(", "),
            variants.join(", ")
        ));
    }
    lines.join("\n")
}

/// The invariants that do not hold on `record`, each with its figure.
fn broken_invariants(claims: &Claims, record: &Record) -> Vec<String> {
    claims
        .invariants()
        .filter_map(|c| {
            let j = judge(c, record, Role::Other);
            (j.breach == Some(Breach::BrokenInvariant))
                .then(|| format!("{}: {}", c.id, j.outcome.summary()))
        })
        .collect()
}

/// Whether a record could be written at `path`: its folder exists or can be made, and a file can
/// be created there (the probe is removed at once; an existing record is left alone).
fn can_write(path: &Path) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    if path.is_dir() {
        return Err(std::io::Error::other("it is a folder"));
    }
    let probe = dir.join(format!(".write-probe.{}", std::process::id()));
    std::fs::File::create(&probe)?;
    std::fs::remove_file(&probe)
}

fn save(record: &Record, path: &Path) -> Result<(), String> {
    record.save_atomic(path).map_err(|e| {
        format!(
            "could not write {}: {e} (nothing was overwritten)",
            path.display()
        )
    })?;
    eprintln!("saved {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTER: Chapter = Chapter {
        name: "ch99-demo",
        title: "A demo",
        about: "Measures nothing at all.",
        listing_dir: ".",
        crates: &[],
        headline: &[],
        full_reps: 5,
    };

    #[test]
    fn help_starts_with_what_the_chapter_measures_and_how_long_it_takes() {
        let help = command(&CHAPTER).render_help().to_string();
        assert!(help.starts_with("ch99-demo: A demo"), "{help}");
        assert!(help.contains("Measures nothing at all."), "{help}");
        assert!(help.contains("--quick takes seconds"), "{help}");
        assert!(help.contains("--filter"), "{help}");
        let cli = parse_cli(&CHAPTER, ["ch99-demo", "--quick"].map(Into::into));
        assert!(cli.quick);
    }

    #[derive(clap::Args, Debug)]
    struct Extra {
        /// Where to put the files
        #[arg(long, value_name = "PATH")]
        dir: Option<std::path::PathBuf>,
    }

    #[test]
    fn a_chapter_adds_flags_of_its_own_beside_the_shared_ones() {
        let (cli, extra) = parse_cli_with::<Extra>(
            &CHAPTER,
            ["ch99-demo", "--quick", "--dir", "/tmp/x"].map(Into::into),
        );
        assert!(cli.quick);
        assert_eq!(extra.dir.as_deref(), Some(std::path::Path::new("/tmp/x")));
        let help = <Extra as clap::Args>::augment_args(command(&CHAPTER))
            .render_help()
            .to_string();
        assert!(
            help.contains("--dir <PATH>") && help.contains("--filter"),
            "{help}"
        );
    }

    #[test]
    fn a_record_that_cannot_be_written_is_found_out_before_measuring() {
        assert!(can_write(Path::new("/proc/nope/record.json")).is_err());
        let dir = tempfile::tempdir().unwrap();
        assert!(can_write(&dir.path().join("deep/er/record.json")).is_ok());
        assert!(can_write(dir.path()).is_err(), "a folder is no record");
        let kept = dir.path().join("kept.json");
        std::fs::write(&kept, "good data").unwrap();
        assert!(can_write(&kept).is_ok());
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "good data");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "the probe is gone: {left:?}");
    }

    #[test]
    fn a_broken_invariant_is_named_with_its_figure() {
        let claims = Claims::parse(
            "format = 2\n[[invariant]]\nid = \"nothing-lost\"\nsays = \"s\"\nvalue = \"e/1/v/lost\"\nat-most = 0\n",
        )
        .unwrap();
        let rec = |lost: [f64; 2]| {
            Record::sketch(
                "ch99-demo",
                "m",
                &[],
                &[("e", "1", "v", "lost", "count", &lost)],
            )
        };
        assert!(broken_invariants(&claims, &rec([0.0, 0.0])).is_empty());
        let broken = broken_invariants(&claims, &rec([0.0, 3.0]));
        assert_eq!(broken.len(), 1);
        assert!(
            broken[0].starts_with("nothing-lost: 1.50 (min–max 0–3 over 2 repetitions"),
            "{broken:?}"
        );
    }

    #[test]
    fn filter_keeps_the_selected_cells_and_an_empty_runner_runs_nothing() {
        use clap::Parser;
        let cells = || Cell::grid([0], ["a", "b", "c", "d", "e"]);
        let cli = Cli::try_parse_from(["x", "--filter", "b"]).unwrap();
        let r = selected(Runner::new("x", cells(), 1, 1), &cli);
        assert_eq!(r.cells, vec![Cell::new("0", "b")]);
        let none = Cli::try_parse_from(["x", "--filter", "zzz"]).unwrap();
        let whole = Cli::try_parse_from(["x", "--filter", "x"]).unwrap();
        assert_eq!(
            selected(Runner::new("x", cells(), 1, 1), &whole)
                .cells
                .len(),
            5
        );
        let empty = selected(Runner::new("x", cells(), 1, 1), &none);
        let mut calls = 0;
        let out = empty.run::<()>(|_, _| {
            calls += 1;
            Ok(Measurement::new())
        });
        assert_eq!((out.unwrap().len(), calls), (0, 0));
    }

    #[test]
    fn quick_mode_leaves_out_the_slow_experiments_the_manifest_names() {
        let experiments = || {
            ["fast", "profile"]
                .into_iter()
                .map(|n| Experiment::new(n, vec![Cell::new(1, "v")], |_, _| Ok(Measurement::new())))
                .collect::<Vec<_>>()
        };
        let skips = [records::chapter::QuickSkip {
            experiment: "profile".into(),
            why: "minutes".into(),
        }];
        let names = |e: Vec<Experiment>| e.into_iter().map(|e| e.name).collect::<Vec<_>>();
        let quick = leave_out_slow(experiments(), &skips, true, "ch99-demo").unwrap();
        assert_eq!(names(quick), ["fast"]);
        let full = leave_out_slow(experiments(), &skips, false, "ch99-demo").unwrap();
        assert_eq!(names(full), ["fast", "profile"]);
        let typo = [records::chapter::QuickSkip {
            experiment: "profiel".into(),
            why: "minutes".into(),
        }];
        let e = leave_out_slow(experiments(), &typo, true, "ch99-demo")
            .err()
            .unwrap();
        assert!(e.contains("profiel") && e.contains("ch99-demo"), "{e}");
    }

    #[test]
    fn a_manifest_that_disagrees_with_the_chapter_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let listing = dir.path().join("listings/ch99-demo");
        std::fs::create_dir_all(&listing).unwrap();
        std::fs::write(
            listing.join(records::chapter::FILE),
            "title = \"A demo\"\npages = [\"ch99-demo.md\"]\nmachine = \"m\"\ncrates = [\"tokio\"]\n",
        )
        .unwrap();
        let dir_str: &'static str = Box::leak(listing.display().to_string().into_boxed_str());
        let chapter = Chapter {
            listing_dir: dir_str,
            crates: &["tokio"],
            ..CHAPTER
        };
        assert!(manifest_for(&chapter).unwrap().is_some());
        let other = Chapter {
            crates: &["tokio", "rayon"],
            ..chapter
        };
        let e = manifest_for(&other).unwrap_err();
        assert!(e.contains("disagree") && e.contains("rayon"), "{e}");
        let elsewhere = Chapter {
            listing_dir: "/nonexistent",
            ..chapter
        };
        assert!(manifest_for(&elsewhere).unwrap().is_none());
    }

    #[test]
    fn a_filter_that_matches_nothing_lists_what_there_is() {
        let all = vec![(
            "blocking".to_string(),
            vec![
                Cell::new(0, "inline"),
                Cell::new(1, "inline"),
                Cell::new(1, "fix"),
            ],
        )];
        let text = no_match(&["nope".into()], &all);
        assert!(text.contains("matched no case or variant"), "{text}");
        assert!(
            text.contains("cases 0, 1") && text.contains("variants fix, inline"),
            "{text}"
        );
    }
}
