//! The command line every listing shares.

use clap::Parser;
use std::path::PathBuf;

/// Reruns this chapter's experiment on this machine and prints the book's table beside the
/// book's stored figures.
#[derive(Parser, Debug, Clone)]
#[command(version, about, long_about = None)]
pub struct Cli {
    /// Repetitions: every variant runs once per repetition, in a shuffled order [default: the chapter's full run; 1 with --quick]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub reps: Option<u32>,

    /// Short mode for CI: fewer cases, shorter windows, finishes in seconds
    #[arg(long)]
    pub quick: bool,

    /// Store the record as data/<machine>/<chapter>.json (atomically; a failed run stores nothing)
    #[arg(long)]
    pub save: bool,

    /// Also write the record to PATH (atomically)
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// Run only experiments, cases or variants with this name (repeatable), e.g. --filter inline --filter 2
    #[arg(long, value_name = "CASE")]
    pub filter: Vec<String>,

    /// Tokio worker threads [default: chosen by the chapter for this machine; see its page]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,

    /// Seed for the order of variants within each repetition [default: from the clock, printed]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Name of this machine's folder under data/ [default: CPU model and core count]
    #[arg(long, value_name = "NAME", value_parser = parse_machine_name)]
    pub machine: Option<String>,

    /// Measure even if this build is not optimised (the numbers will be wrong)
    #[arg(long)]
    pub allow_debug: bool,

    /// Print the name of this machine's folder under data/ and exit (for scripts)
    #[arg(long, hide = true)]
    pub print_machine: bool,
}

impl Cli {
    /// Repetitions to run: `--reps`, else 1 in quick mode, else `full`.
    pub fn reps_or(&self, full: u32) -> u32 {
        self.reps.unwrap_or(if self.quick { 1 } else { full })
    }

    /// Whether a cell passes `--filter`.
    pub fn selects(&self, case: &str, variant: &str) -> bool {
        self.filter.is_empty()
            || self
                .filter
                .iter()
                .any(|f| f == case || f == variant || *f == format!("{case}/{variant}"))
    }

    /// The seed to use: `--seed`, else one drawn from the clock.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            crate::mix(nanos) % 1_000_000
        })
    }
}

pub fn parse_machine_name(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(s.to_string())
    } else {
        Err("use lowercase letters, digits and '-' only (it names a folder under data/)".into())
    }
}

/// Called by [`crate::assert_optimised!`]: refuses an unoptimised build unless `--allow-debug`.
pub fn check_optimised(listing_has_debug_assertions: bool, allow_debug: bool) {
    let lib_opt = env!("MEASURE_OPT_LEVEL");
    let unoptimised = listing_has_debug_assertions || matches!(lib_opt, "0" | "1");
    if !unoptimised {
        return;
    }
    let banner = "!".repeat(72);
    eprintln!("{banner}");
    eprintln!("!! This listing was built WITHOUT optimisations (opt-level {lib_opt}).");
    eprintln!("!! Its numbers would say nothing about production code.");
    eprintln!(
        "!! Fix: use the workspace's profiles (`cargo run -p <chapter>` from the repository root)"
    );
    eprintln!("!!      or build with `--release`.");
    eprintln!("{banner}");
    if !allow_debug {
        eprintln!("refusing to measure; pass --allow-debug to run anyway");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::error::ErrorKind;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("listing").chain(args.iter().copied()))
    }

    #[test]
    fn rejects_bad_input_with_usage_errors() {
        assert_eq!(
            parse(&["--reps", "0"]).unwrap_err().kind(),
            ErrorKind::ValueValidation
        );
        assert_eq!(
            parse(&["--reps", "five"]).unwrap_err().kind(),
            ErrorKind::ValueValidation
        );
        assert_eq!(
            parse(&["--frobnicate"]).unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        assert_eq!(
            parse(&["--workers", "-1"]).unwrap_err().kind(),
            ErrorKind::UnknownArgument
        );
        assert_eq!(
            parse(&["--machine", "My Laptop"]).unwrap_err().kind(),
            ErrorKind::ValueValidation
        );
        // clap exits with status 2 for all of these.
        assert_eq!(parse(&["--reps", "0"]).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn defaults_and_filters() {
        let cli = parse(&[]).unwrap();
        assert_eq!(cli.reps_or(5), 5);
        assert!(cli.selects("2", "inline"));
        let cli = parse(&["--quick", "--filter", "inline", "--filter", "0/rayon"]).unwrap();
        assert_eq!(cli.reps_or(5), 1);
        assert!(cli.selects("2", "inline"));
        assert!(cli.selects("0", "rayon"));
        assert!(!cli.selects("2", "rayon"));
        let cli = parse(&["--reps", "3", "--quick"]).unwrap();
        assert_eq!(cli.reps_or(5), 3);
    }
}
