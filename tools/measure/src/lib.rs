//! The measurement library shared by every listing of the book.
//!
//! A chapter's crate keeps only its own story (the pitfall, the fixes, the workload); this crate
//! holds what every experiment needs: the command line ([`cli`]), the run from command line to
//! saved record ([`harness`]) and where and how a run was measured ([`provenance`]).
//!
//! The code that runs while a cell is measured (interleaved repetitions, statistics, the
//! open-loop load generator, checksums, the noise sampler, child processes, the runtime) is the
//! `measure-core` crate, re-exported here under the same names (`measure::runner`,
//! `measure::loadgen`, ...). A record is fresh against that crate and not against this one: what
//! this crate decides (repetitions, seed, parameters, which cells run) is written into the record,
//! and what it prints (help, progress of the harness, reports) shapes no figure.
//!
//! What reads a record once its values are final (the record type, the claims and their
//! verdicts, the formats, the reports) is the `records` crate, re-exported here under the same
//! names (`measure::record`, `measure::claims`, `measure::report`, `measure::format`).

pub mod cli;
pub mod facts;
pub mod harness;
pub mod provenance;
pub mod testing;

pub use cli::Cli;
pub use harness::{Chapter, Experiment, Harness};
#[cfg(feature = "runtime")]
pub use measure_core::runtime;
pub use measure_core::{
    Cell, Checksum, ChecksumError, LatencyHistogram, Measurement, Runner, Summary, affinity,
    checksum, child, loadgen, mix, noise, runner, stats,
};
pub use records::{
    Claims, Record, Series, claims, format, freshness, history, lockfile, record, report, verdict,
};

/// The names of fields of the experiment's parameters, checked by the compiler: an experiment's
/// `shaped_by(fields!(p => workers, window_ms))` cannot name a parameter that does not exist.
///
/// ```
/// struct Params { workers: u32, window_ms: u64 }
/// let p = Params { workers: 2, window_ms: 500 };
/// let names: &[&str] = measure::fields!(p => workers, window_ms);
/// assert_eq!(names, ["workers", "window_ms"]);
/// ```
///
/// ```compile_fail
/// struct Params { workers: u32 }
/// let p = Params { workers: 2 };
/// let names: &[&str] = measure::fields!(p => wrokers);
/// ```
#[macro_export]
macro_rules! fields {
    ($params:expr => $($field:ident),+ $(,)?) => {{
        let params = &$params;
        $( let _ = &params.$field; )+
        &[$(stringify!($field)),+]
    }};
}

/// An experiment's variants (or cases) as a type: each one's name in the record, and a name the
/// listing does not know as an error, never a default arm that measures another variant under
/// that name.
///
/// ```
/// measure::variants! {
///     /// How the batch is read.
///     enum Read for "small_files" {
///         /// One `tokio::fs::read` after another.
///         Loop = "tokio_fs_loop",
///         OneBatch = "one_spawn_blocking",
///     }
/// }
/// assert_eq!(Read::NAMES, ["tokio_fs_loop", "one_spawn_blocking"]);
/// assert_eq!(Read::named("one_spawn_blocking"), Ok(Read::OneBatch));
/// assert_eq!(Read::Loop.name(), "tokio_fs_loop");
/// let e = Read::named("std_batch").unwrap_err();
/// assert_eq!(e, "small_files has no variant `std_batch` (it has tokio_fs_loop, one_spawn_blocking)");
/// ```
#[macro_export]
macro_rules! variants {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident for $experiment:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        #[allow(dead_code)]
        impl $name {
            /// The names, in the record, in the order the experiment lists its cells.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The variant of this name; an error naming the experiment and its variants.
            pub fn named(name: &str) -> Result<$name, String> {
                match name {
                    $( $text => Ok($name::$variant), )+
                    other => Err(format!(
                        "{} has no variant `{}` (it has {})",
                        $experiment,
                        other,
                        $name::NAMES.join(", ")
                    )),
                }
            }

            /// Its name in the record.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }
    };
}

/// Refuses (or loudly warns about) a listing that was compiled without optimisations.
///
/// A macro so that `cfg!(debug_assertions)` is read in the listing's own crate.
#[macro_export]
macro_rules! assert_optimised {
    ($cli:expr) => {
        $crate::cli::check_optimised(cfg!(debug_assertions), $cli.allow_debug)
    };
}

/// Whether `name` is one of the variables `cargo run` gives the program it runs (its package's
/// `CARGO_PKG_*`, `CARGO_MANIFEST_*`, `CARGO_CRATE_NAME`, ...), which a cargo started from that
/// program inherits: a build script that tracks one of them (ring's tracks
/// `CARGO_MANIFEST_DIR`) reruns, and every crate above it rebuilds. `CARGO` itself is not one.
pub fn set_by_cargo_run(name: &str) -> bool {
    ["CARGO_PKG_", "CARGO_MANIFEST_"]
        .iter()
        .any(|p| name.starts_with(p))
        || [
            "CARGO_CRATE_NAME",
            "CARGO_BIN_NAME",
            "CARGO_PRIMARY_PACKAGE",
        ]
        .contains(&name)
}

/// `cargo` (the one that runs this program, else the PATH's) without the variables of
/// [`set_by_cargo_run`], for a program that keeps them itself but builds the workspace again
/// (a no-op when nothing changed, as after `cargo test --workspace` from a shell).
pub fn cargo_command() -> std::process::Command {
    let mut cargo =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_by_cargo_run) {
            cargo.env_remove(name);
        }
    }
    cargo
}

/// Removes the variables of [`set_by_cargo_run`] from this process, so that a child cargo builds
/// (a sibling binary, `child::binary_in_profile`) does not see them.
///
/// # Safety
/// No other thread may run (or read the environment) meanwhile: call it first thing in `main`.
pub unsafe fn forget_what_cargo_run_set() {
    let names: Vec<_> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| set_by_cargo_run(name))
        .collect();
    for name in names {
        // SAFETY: the caller runs no other thread (this function's contract).
        unsafe { std::env::remove_var(name) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_command_leaves_out_what_cargo_gave_this_test() {
        // `cargo test` gives the test its package's variables, as `cargo run` gives a program.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let cargo = cargo_command();
        let removed: Vec<_> = cargo
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        assert!(
            removed.contains(&"CARGO_MANIFEST_DIR".to_string()),
            "{removed:?}"
        );
        assert!(
            removed.contains(&"CARGO_PKG_NAME".to_string()),
            "{removed:?}"
        );
        assert!(removed.iter().all(|n| set_by_cargo_run(n)), "{removed:?}");
        assert!(!set_by_cargo_run("CARGO") && !set_by_cargo_run("CARGO_TARGET_DIR"));
    }
}
