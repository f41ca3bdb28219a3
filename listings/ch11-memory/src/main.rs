//! The experiments of Chapter 11. `retention` drives the same service through bursts of requests,
//! each followed by an idle spell or a trickle of requests, once per allocator and setting, each
//! in a process of its own, and reads what stays resident after each spell against the bytes the
//! program still holds. `builds` does the same with the service built for musl and with mimalloc
//! v2; `limit` starts it under an address-space limit and allocates until refused; `container`
//! does the same under a container's memory limit (a cgroup), cold and after a burst.
//!
//! `cargo run -p ch11-memory -- --help` lists the flags.

use ch11_memory::cgroup::MemoryCgroup;
use ch11_memory::child::limit_address_space;
use ch11_memory::report::{
    Bursts, HELD_PREFIX, Held, Limit, LimitReport, REPORT_PREFIX, Report, WARM_UP_PREFIX,
};
use ch11_memory::service::{Work, expected_digest};
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

const CHAPTER: Chapter = Chapter {
    name: "ch11-memory",
    title: "Memory that does not come back",
    about: "A service is driven through bursts of requests that allocate across the Tokio \
            workers and the blocking pool, each burst followed by an idle spell or a trickle of \
            requests, with glibc's malloc (as is, with two arenas, trimmed when quiet), mimalloc \
            and jemalloc (as is, and purging in the background), and built for musl: the memory \
            resident after each spell against the bytes the program still holds, and the \
            bursts' latency and CPU; then each allocator under an address-space limit, and \
            under a container's memory limit, cold and after a burst. Each allocator's service \
            runs in a process of its own.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "mimalloc", "tikv-jemallocator"],
    headline: &[
        "rss_idle",
        "kept_share",
        "rss_over_live",
        "p99",
        "cpu_per_request",
    ],
    full_reps: 6,
};

/// The setup, chosen for a two-CPU machine.
#[derive(Serialize)]
struct Params {
    workers: u32,
    /// Requests per second during a burst: about half the two CPUs' capacity, so that what
    /// changes between allocators is memory, not a queue.
    rate_per_s: f64,
    /// Requests per burst, and bursts per cell.
    requests: usize,
    bursts: usize,
    /// The idle spell after each burst, before memory is read: longer than mimalloc's purge
    /// delay (1 s in v3, 10 ms in v2) and the tuned jemalloc's decay (1 s), shorter than
    /// jemalloc's default decay (10 s).
    idle_ms: u64,
    /// `limit`: the address-space limit (`RLIMIT_AS`) the service starts under, and the sizes
    /// of the blocks it allocates until one is refused (the cases, in MiB): where an allocator
    /// refuses depends on how its reservations fit the blocks.
    limit_mib: u64,
    blocks_mib: Vec<usize>,
    /// `container`: the memory cgroup's limit, room for mimalloc's burst (the highest peak)
    /// with more than a hundred megabytes to spare; the blocks allocated then, in MiB, small
    /// enough to resolve a few megabytes kept, above glibc's mmap threshold.
    cgroup_limit_mib: u64,
    cgroup_block_mib: usize,
    /// The `trickle` case: requests a second after each burst, in place of the idle spell, as a
    /// service that keeps serving a little between peaks.
    trickle_per_s: f64,
    /// How often the trimming task looks whether the service is quiet, and what quiet is: fewer
    /// requests started in the period than a tenth of the bursts' rate would start, and fewer in
    /// flight. The trickle is quiet; a burst is not.
    trim_period_ms: u64,
    quiet_below: u64,
    /// A request (`service::Work`): the smallest body, the records' mean length, how long it
    /// holds them awaiting its upstream, its blocking call, one in how many is cached, and the
    /// cache's size.
    body_bytes: usize,
    record_bytes: usize,
    hold_ms: u64,
    blocking_us: u64,
    keep_every: u64,
    cache_entries: usize,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            rate_per_s: 5_000.0,
            requests: if quick { 1_000 } else { 5_000 },
            bursts: if quick { 2 } else { 4 },
            idle_ms: if quick { 300 } else { 1_500 },
            trickle_per_s: 100.0,
            limit_mib: 768,
            blocks_mib: vec![4, 16],
            cgroup_limit_mib: 320,
            cgroup_block_mib: 4,
            trim_period_ms: 250,
            quiet_below: 125,
            body_bytes: 16 * 1024,
            record_bytes: 256,
            hold_ms: 100,
            blocking_us: 1_000,
            keep_every: 100,
            cache_entries: 1_000,
        }
    }

    fn work(&self) -> Work {
        Work {
            body_bytes: self.body_bytes,
            record_bytes: self.record_bytes,
            hold_ms: self.hold_ms,
            blocking_us: self.blocking_us,
            keep_every: self.keep_every,
            cache_entries: self.cache_entries,
        }
    }

    /// The service's CONFIG for `bursts` bursts, each followed by `after`, run with `setup`.
    fn bursts_config(&self, setup: &Setup, after: After, bursts: usize) -> Bursts {
        Bursts {
            workers: self.workers,
            rate_per_s: self.rate_per_s,
            requests: self.requests,
            bursts,
            idle_ms: self.idle_ms,
            trickle_per_s: match after {
                After::Idle => 0.0,
                After::Trickle => self.trickle_per_s,
            },
            work: self.work(),
            trim_when_quiet: setup.trim_when_quiet,
            trim_period_ms: self.trim_period_ms,
            quiet_below: self.quiet_below,
        }
    }
}

measure::variants! {
    enum Allocator for "retention" {
        /// glibc's malloc as it comes: up to eight arenas per CPU.
        Glibc = "glibc",
        /// `MALLOC_ARENA_MAX=2`.
        GlibcTwoArenas = "glibc_arena_max_2",
        /// A task that calls `malloc_trim(0)` every 250 ms while the service is quiet.
        GlibcTrim = "glibc_trim_when_quiet",
        Mimalloc = "mimalloc",
        /// jemalloc as it comes: dirty pages decay over 10 s, purged as the program allocates.
        Jemalloc = "jemalloc",
        /// jemalloc's background thread purging, dirty pages decaying over 1 s.
        JemallocBackground = "jemalloc_background_purge",
    }
}

measure::variants! {
    /// What follows each burst, for `idle_ms`.
    enum After for "retention" {
        Idle = "idle",
        Trickle = "trickle",
    }
}

measure::variants! {
    enum Build for "builds" {
        /// The workspace's builds of the system allocator's and mimalloc's services, beside:
        Glibc = "glibc",
        Mimalloc = "mimalloc",
        /// The system allocator's service built for musl (its own malloc, mallocng).
        Musl = "musl",
        /// mimalloc's service built for musl: musl's other code, mimalloc's allocator.
        MuslMimalloc = "musl_mimalloc",
        /// mimalloc's service built with mimalloc v2.
        MimallocV2 = "mimalloc_v2",
    }
}

measure::variants! {
    /// What the service does before it allocates blocks under a container's limit.
    enum Before for "container" {
        Cold = "cold",
        /// One burst and its idle spell: what the allocator kept is resident.
        AfterBurst = "after_burst",
    }
}

measure::variants! {
    enum AtLimit for "limit" {
        Glibc = "glibc",
        Mimalloc = "mimalloc",
        Jemalloc = "jemalloc",
    }
}

/// `vm.overcommit_memory`: 0 (a heuristic) and 1 let a mapping exceed what can be backed, 2
/// refuses it; None where it cannot be read.
fn overcommit_memory() -> Option<u8> {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether `name` is an allocator setting a reader's shell may hold (glibc's `MALLOC_*` and
/// tunables, jemalloc's and mimalloc's options, a preloaded allocator): each is cleared for
/// every cell but where a variant sets one.
fn allocator_setting(name: &str) -> bool {
    ["MALLOC_", "_RJEM_", "MIMALLOC_"]
        .iter()
        .any(|p| name.starts_with(p))
        || ["GLIBC_TUNABLES", "LD_PRELOAD"].contains(&name)
}

/// Where a service's program comes from.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    /// Built beside this program.
    Workspace,
    /// Built for `x86_64-unknown-linux-musl`.
    Musl,
    /// Built with the `mimalloc-v2` feature, into a target folder of its own.
    MimallocV2,
}

/// How a variant runs: its program, its environment, the idle task, and what its report must
/// say of the allocator it ran with.
struct Setup {
    program: &'static str,
    target: Target,
    env: &'static [(&'static str, &'static str)],
    trim_when_quiet: bool,
    /// Words its report must hold, of the allocator's version and the C library.
    expect: &'static [&'static str],
}

fn plain(program: &'static str, expect: &'static [&'static str]) -> Setup {
    Setup {
        program,
        target: Target::Workspace,
        env: &[],
        trim_when_quiet: false,
        expect,
    }
}

impl Allocator {
    fn setup(self) -> Setup {
        match self {
            Allocator::Glibc => plain("ch11-system", &["glibc"]),
            Allocator::GlibcTwoArenas => Setup {
                env: &[("MALLOC_ARENA_MAX", "2")],
                ..plain("ch11-system", &["glibc"])
            },
            Allocator::GlibcTrim => Setup {
                trim_when_quiet: true,
                ..plain("ch11-system", &["glibc"])
            },
            Allocator::Mimalloc => plain("ch11-mimalloc", &["mimalloc 3.", "on glibc"]),
            Allocator::Jemalloc => plain("ch11-jemalloc", &["background_thread:false"]),
            Allocator::JemallocBackground => Setup {
                env: &[(
                    "_RJEM_MALLOC_CONF",
                    "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0",
                )],
                ..plain(
                    "ch11-jemalloc",
                    &["background_thread:true, dirty_decay_ms:1000,"],
                )
            },
        }
    }
}

impl Build {
    fn setup(self) -> Setup {
        match self {
            Build::Glibc => Allocator::Glibc.setup(),
            Build::Mimalloc => Allocator::Mimalloc.setup(),
            Build::Musl => Setup {
                target: Target::Musl,
                ..plain("ch11-system", &["on musl"])
            },
            Build::MuslMimalloc => Setup {
                target: Target::Musl,
                ..plain("ch11-mimalloc", &["mimalloc 3.", "on musl"])
            },
            Build::MimallocV2 => Setup {
                target: Target::MimallocV2,
                ..plain("ch11-mimalloc", &["mimalloc 2."])
            },
        }
    }
}

fn main() {
    // SAFETY: first thing in `main`, before any other thread runs.
    unsafe { measure::forget_what_cargo_run_set() };
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(2));
    h.params(&p);
    // What decides whether a container's limit refuses an allocation or kills the process.
    h.derived("overcommit_memory", overcommit_memory());
    h.derived(
        "memory_cgroup",
        ch11_memory::cgroup::version_here()
            .map(|v| format!("{v:?}"))
            .ok(),
    );
    let p = &p;
    h.run(vec![
        Experiment::new(
            "retention",
            Cell::grid(After::NAMES, Allocator::NAMES),
            |cell, _rep| {
                let setup = Allocator::named(&cell.variant)?.setup();
                bursts(p, setup, After::named(&cell.case)?)
            },
        )
        .shaped_by(measure::fields!(
            p => workers, rate_per_s, requests, bursts, idle_ms, trickle_per_s, trim_period_ms,
                quiet_below, body_bytes, record_bytes, hold_ms, blocking_us, keep_every,
                cache_entries
        )),
        Experiment::new(
            "builds",
            Cell::grid([After::Idle.name()], Build::NAMES),
            |cell, _rep| bursts(p, Build::named(&cell.variant)?.setup(), After::Idle),
        )
        .shaped_by(measure::fields!(
            p => workers, rate_per_s, requests, bursts, idle_ms, body_bytes, record_bytes,
                hold_ms, blocking_us, keep_every, cache_entries
        )),
        Experiment::new(
            "limit",
            Cell::grid(&p.blocks_mib, AtLimit::NAMES),
            |cell, _rep| {
                let block_mib = cell
                    .case
                    .parse()
                    .map_err(|_| format!("case {:?} is not a block size in MiB", cell.case))?;
                at_limit(p, AtLimit::named(&cell.variant)?, block_mib)
            },
        )
        .shaped_by(measure::fields!(p => limit_mib, blocks_mib)),
        Experiment::new(
            "container",
            Cell::grid(Before::NAMES, Allocator::NAMES),
            |cell, _rep| {
                let setup = Allocator::named(&cell.variant)?.setup();
                in_container(p, setup, Before::named(&cell.case)?)
            },
        )
        .shaped_by(measure::fields!(
            p => cgroup_limit_mib, cgroup_block_mib, workers, rate_per_s, requests, idle_ms,
                trim_period_ms, quiet_below, body_bytes, record_bytes, hold_ms, blocking_us,
                keep_every, cache_entries
        )),
    ]);
}

/// One cell: the variant's service through `p.bursts` bursts, each followed by `after`.
fn bursts(p: &Params, setup: Setup, after: After) -> Result<Measurement, String> {
    let config = p.bursts_config(&setup, after, p.bursts);
    let r = run_service(&setup, &config)?;
    check(&setup, &config, &r)?;
    Ok(measurement(p, &r, setup.trim_when_quiet))
}

/// The report's allocator, checksum, cache and readings, against what the run must have done.
fn check(setup: &Setup, c: &Bursts, r: &Report) -> Result<(), String> {
    let ran_with = format!("{} on {}", r.version, r.libc);
    if let Some(missing) = setup.expect.iter().find(|e| !ran_with.contains(*e)) {
        return Err(format!(
            "{} ran with {ran_with}, not {missing:?}",
            setup.program
        ));
    }
    let trickle = (c.trickle_per_s * c.idle_ms as f64 / 1000.0) as usize;
    let total = ((c.requests + trickle) * c.bursts) as u64;
    let expected = (0..total).fold(0u64, |sum, id| {
        sum.wrapping_add(expected_digest(id, &c.work))
    });
    if r.served != total {
        return Err(format!("{} requests served, not {total}", r.served));
    }
    if r.digest_sum != expected {
        return Err(format!(
            "the requests' digests add up to {:#x}, not {expected:#x}",
            r.digest_sum
        ));
    }
    let kept = (total.div_ceil(c.work.keep_every) as usize).min(c.work.cache_entries);
    if r.cache_entries != kept {
        return Err(format!(
            "the cache holds {} entries, not {kept}",
            r.cache_entries
        ));
    }
    if r.after_idle.len() != c.bursts || r.live_after_idle.len() != c.bursts {
        return Err(format!(
            "{} readings for {} bursts",
            r.after_idle.len(),
            c.bursts
        ));
    }
    Ok(())
}

/// The cell's figures from the service's report (`trimmed`: the variant ran the trimming task).
fn measurement(p: &Params, r: &Report, trimmed: bool) -> Measurement {
    let first = r.after_idle[0];
    let last = r.after_idle[p.bursts - 1];
    let live = r.live_after_idle[p.bursts - 1] as f64;
    let peak = r.after_idle.iter().map(|m| m.rss_peak).max().unwrap_or(0);
    let gained = |bytes: u64| bytes.saturating_sub(r.start.rss) as f64;
    let per_request = |x: f64| x / r.served.max(1) as f64;
    let mut m = Measurement::new();
    m.push("rss_idle", "bytes", last.rss as f64)
        .push("rss_peak", "bytes", peak as f64)
        .push("rss_start", "bytes", r.start.rss as f64)
        // The last burst's own peak: an earlier, higher one would understate it.
        .push(
            "kept_share",
            "ratio",
            gained(last.rss) / gained(last.rss_peak).max(1.0),
        )
        .push("rss_over_live", "ratio", last.rss as f64 / live.max(1.0))
        .push("growth", "ratio", last.rss as f64 / first.rss.max(1) as f64)
        .push("live_idle", "bytes", live)
        .push("live_peak", "bytes", r.live_peak as f64)
        .push("anon_idle", "bytes", last.anon as f64)
        .push("private_dirty_idle", "bytes", last.private_dirty as f64)
        .push("virtual_size", "bytes", last.virtual_size as f64)
        .push("threads", "count", last.threads as f64)
        .push("p50", "ns", r.p50_ns)
        .push("p99", "ns", r.p99_ns)
        .push("max", "ns", r.max_ns)
        .push("gen_error_p99", "ns", r.gen_error_p99_ns)
        .push("cpu_per_request", "ns", per_request(r.cpu_ns))
        .push(
            "faults_per_request",
            "count",
            per_request(r.minor_faults as f64),
        );
    for f in &r.figures {
        m.push(&f.name, &f.unit, f.value);
    }
    if trimmed {
        m.push("trims_per_spell", "ratio", r.trims as f64 / p.bursts as f64)
            .push("trim_max", "ns", r.trim_max_ns);
    }
    if r.trickle_p99_ns > 0.0 {
        m.push("trickle_p99", "ns", r.trickle_p99_ns);
    }
    m
}

/// One cell of `limit`: the service under an address-space limit allocates until refused; the
/// bytes it held then. An allocation that cannot be refused must then abort it.
fn at_limit(p: &Params, allocator: AtLimit, block_mib: usize) -> Result<Measurement, String> {
    let program = match allocator {
        AtLimit::Glibc => "ch11-system",
        AtLimit::Mimalloc => "ch11-mimalloc",
        AtLimit::Jemalloc => "ch11-jemalloc",
    };
    let config = Limit {
        chunk_mib: block_mib,
        max_chunks: (p.limit_mib as usize / block_mib) * 2,
        warm_up: None,
    };
    let config = serde_json::to_string(&config).map_err(|e| e.to_string())?;
    let mut command = Command::new(service_binary(program, Target::Workspace)?);
    command.args(["limit", &config]).env("RUST_BACKTRACE", "0");
    limit_address_space(&mut command, p.limit_mib << 20);
    let out = command
        .output()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let aborted = out.status.signal() == Some(libc::SIGABRT)
        && stderr.contains("memory allocation of")
        && stderr.contains("failed");
    if !aborted {
        return Err(format!(
            "{program} at the limit: {}, not an abort on a failed allocation: {stderr}",
            out.status
        ));
    }
    let report: LimitReport = last_line(&stderr, REPORT_PREFIX, program)?;
    let mut m = Measurement::new();
    m.push("held_at_limit", "bytes", (report.held_mib << 20) as f64)
        .push(
            "share_of_limit",
            "ratio",
            report.held_mib as f64 / p.limit_mib as f64,
        );
    Ok(m)
}

// ANCHOR: in_container
/// One cell of `container`: the service in a memory cgroup of its own, after a burst or not,
/// allocates blocks until the kernel stops it. The bytes it held then, what was resident
/// before the first block, and whether it was refused or killed.
fn in_container(p: &Params, setup: Setup, before: Before) -> Result<Measurement, String> {
    let warm_up = (before == Before::AfterBurst).then(|| p.bursts_config(&setup, After::Idle, 1));
    let limit = p.cgroup_limit_mib << 20;
    let config = Limit {
        chunk_mib: p.cgroup_block_mib,
        max_chunks: (p.cgroup_limit_mib as usize / p.cgroup_block_mib) * 2,
        warm_up: warm_up.clone(),
    };
    let cgroup = MemoryCgroup::create(limit)?;
    let mut command = service_command(&setup, "limit", &config)?;
    cgroup.enter_on_exec(&mut command);
    let out = command
        .env("RUST_BACKTRACE", "0")
        .output()
        .map_err(|e| format!("cannot start {} in its cgroup: {e}", setup.program))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warm_up = match &warm_up {
        Some(config) => {
            let report = last_line(&stderr, WARM_UP_PREFIX, setup.program)?;
            check(&setup, config, &report)?;
            Some(report)
        }
        None => None,
    };
    let held: Held = last_line(&stderr, HELD_PREFIX, setup.program)?;
    // Killed for this cgroup's limit, not a parent's or the machine's; or refused, which a
    // claim counts against.
    let killed = out.status.signal() == Some(libc::SIGKILL)
        && cgroup.oom_kills()? == 1
        && cgroup.limit_reached()?;
    let refused = stderr.contains(REPORT_PREFIX) && out.status.signal() == Some(libc::SIGABRT);
    if !killed && !refused {
        return Err(format!(
            "{} in a cgroup: {}, neither refused nor killed for the cgroup's limit: {stderr}",
            setup.program, out.status
        ));
    }
    let mut m = Measurement::new();
    m.push("held_at_limit", "bytes", (held.held_mib << 20) as f64)
        .push(
            "share_of_limit",
            "ratio",
            held.held_mib as f64 / p.cgroup_limit_mib as f64,
        )
        .push("anon_before", "bytes", held.anon_before as f64)
        .push("oom_killed", "count", f64::from(u8::from(killed)));
    if let Some(report) = warm_up {
        m.push("live_peak", "bytes", report.live_peak as f64);
    }
    if let Some(peak) = cgroup.peak() {
        m.push("cgroup_peak", "bytes", peak as f64);
    }
    Ok(m)
}
// ANCHOR_END: in_container

/// The last line of the service's standard error that starts with `prefix`, as JSON.
fn last_line<T: serde::de::DeserializeOwned>(
    stderr: &str,
    prefix: &str,
    program: &str,
) -> Result<T, String> {
    let line = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(prefix))
        .ok_or_else(|| format!("{program} printed no {prefix:?} line: {stderr}"))?;
    serde_json::from_str(line).map_err(|e| format!("a malformed {prefix:?} line: {e}"))
}

/// `PROGRAM COMMAND CONFIG` with the variant's environment and no other allocator setting.
fn service_command(setup: &Setup, what: &str, config: &impl Serialize) -> Result<Command, String> {
    let config = serde_json::to_string(config).map_err(|e| e.to_string())?;
    let mut command = Command::new(service_binary(setup.program, setup.target)?);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(allocator_setting) {
            command.env_remove(name);
        }
    }
    command
        .envs(setup.env.iter().copied())
        .args([what, &config]);
    Ok(command)
}

/// Runs `PROGRAM bursts CONFIG` with the variant's environment; its report.
fn run_service(setup: &Setup, config: &Bursts) -> Result<Report, String> {
    let out = service_command(setup, "bursts", config)?
        .output()
        .map_err(|e| format!("cannot start {}: {e}", setup.program))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}): {stderr}",
            setup.program, out.status
        ));
    }
    last_line(&stderr, REPORT_PREFIX, setup.program)
}

const MUSL: &str = "x86_64-unknown-linux-musl";

/// The service's program for `target`, found (and, when cargo runs this program, brought up to
/// date) once per run.
fn service_binary(program: &'static str, target: Target) -> Result<PathBuf, String> {
    type Found = BTreeMap<(&'static str, Target), Result<PathBuf, String>>;
    static FOUND: Mutex<Found> = Mutex::new(BTreeMap::new());
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    found
        .entry((program, target))
        .or_insert_with(|| match target {
            Target::Workspace => measure::child::sibling_binary("ch11-memory", program),
            Target::Musl => build_elsewhere(program, &["--target", MUSL], Some(MUSL), None)
                .map_err(|e| {
                    format!(
                        "{e} (the target needs `rustup target add {MUSL}`, and mimalloc's C \
                         code Debian's musl-tools, for musl-gcc)"
                    )
                }),
            Target::MimallocV2 => build_elsewhere(
                program,
                &["--features", "mimalloc-v2"],
                None,
                Some("ch11-mimalloc-v2"),
            ),
        })
        .clone()
}

/// `program` built with `args` into `target/[TARGET_DIR/][TRIPLE/]PROFILE`, in this program's
/// profile: built or brought up to date when cargo runs this program, else as found.
fn build_elsewhere(
    program: &str,
    args: &[&str],
    triple: Option<&str>,
    target_dir: Option<&str>,
) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let profile_dir = exe.parent().ok_or("cannot find the profile folder")?;
    let folder = profile_dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("no profile folder")?;
    let profile = if folder == "debug" { "dev" } else { folder };
    let mut dir = profile_dir
        .parent()
        .ok_or("cannot find the target folder")?
        .to_path_buf();
    if let Some(d) = target_dir {
        dir.push(d);
    }
    let target_arg = dir.clone();
    if let Some(t) = triple {
        dir.push(t);
    }
    let path = dir.join(folder).join(program);
    let mut build = vec![
        "build",
        "-q",
        "-p",
        "ch11-memory",
        "--bin",
        program,
        "--profile",
        profile,
    ];
    build.extend(args);
    let target_args: Vec<String> = target_dir
        .map(|_| vec!["--target-dir".into(), target_arg.display().to_string()])
        .unwrap_or_default();
    let Ok(cargo) = std::env::var("CARGO") else {
        return Some(path.clone()).filter(|p| p.is_file()).ok_or(format!(
            "{} is missing: build it with `cargo {} {}`",
            path.display(),
            build.join(" "),
            target_args.join(" ")
        ));
    };
    if !path.is_file() {
        eprintln!("building {program} with {} (once)", args.join(" "));
    }
    let mut command = Command::new(cargo);
    if triple == Some(MUSL) && std::env::var_os("CC_x86_64_unknown_linux_musl").is_none() {
        // cc, for mimalloc's C code: Debian's musl-tools names it musl-gcc.
        command.env("CC_x86_64_unknown_linux_musl", "musl-gcc");
    }
    let ok = command
        .args(&build)
        .args(&target_args)
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !path.is_file() {
        return Err(format!("could not build {}", path.display()));
    }
    Ok(path)
}
