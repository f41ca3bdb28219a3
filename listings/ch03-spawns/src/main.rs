//! The experiments of Chapter 3. `split_work` cuts a fixed amount of CPU work into items of three
//! sizes and runs it five ways. The rest run in child processes (one heap, one allocator each):
//! `spawn_and_join` times tasks that do nothing, spawned from inside the runtime, from a plain
//! thread, and with their handles dropped, beside goroutines and an OS thread per task;
//! `idle_memory` (Tokio tasks, goroutines, OS threads), `future_size` and `peak_memory` report
//! resident memory; `cpu_hashing` runs the same hashing as Tokio tasks, on a Rayon pool, as OS
//! threads and as goroutines. The Go variants run the listing's Go program (`go/main.go`).
//!
//! `cargo run -p ch03-spawns -- --help` lists the flags.

use ch03_spawns::child::Report;
use ch03_spawns::{Split, work};
use measure::{Cell, Chapter, Cli, Experiment, Harness, Measurement};
use measure_go::Program;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers: every core, as a service would run.
    workers: u32,
    /// CPU time of all the items of one `split_work` cell, on one core.
    total_work_ms: u64,
    /// Every split runs at these item sizes.
    item_sizes_us: Vec<f64>,
    /// Only the task-per-item splits and their chunked reference run at these: more points on
    /// the overhead curve.
    overhead_sizes_us: Vec<f64>,
    chunk_counts: Vec<u64>,
    spawn_counts: Vec<usize>,
    /// Idle tasks parked for `idle_memory`: enough that the allocators' granularity washes out.
    idle_tasks: usize,
    /// Idle tasks parked for `future_size` (each holds 8 KiB in two variants).
    future_tasks: usize,
    peak_tasks: usize,
    /// Rounds of work per task in `peak_memory`: a tiny task.
    peak_rounds: u64,
    /// The `paced` spawner of `peak_memory` yields after this many spawns (`tight` never does).
    peak_yield_every: usize,
    /// OS threads spawned and joined at once in `spawn_and_join` (the source capped its thread
    /// per task at 20,000; a million is past most machines' thread limits).
    thread_spawns: usize,
    /// OS threads parked for `idle_memory`.
    idle_threads: usize,
    /// `cpu_hashing`: tasks, items and rounds of `work` per item.
    hash_tasks: u64,
    hash_items: u64,
    hash_rounds: u64,
}

impl Params {
    fn for_machine(cli: &Cli, cores: u32) -> Params {
        let workers = cli.workers.unwrap_or(cores);
        let quick = cli.quick;
        let mut chunk_counts = if quick {
            vec![1, 16]
        } else {
            vec![1, 2, 4, 16, 64]
        };
        chunk_counts.push(u64::from(workers));
        chunk_counts.sort();
        chunk_counts.dedup();
        Params {
            workers,
            total_work_ms: if quick { 30 } else { 300 },
            item_sizes_us: vec![0.3, 3.5, 35.0],
            overhead_sizes_us: if quick { vec![] } else { vec![1.0, 10.0] },
            chunk_counts,
            spawn_counts: if quick {
                vec![10_000]
            } else {
                vec![10_000, 1_000_000]
            },
            idle_tasks: if quick { 20_000 } else { 200_000 },
            future_tasks: if quick { 2_000 } else { 20_000 },
            peak_tasks: if quick { 100_000 } else { 1_000_000 },
            peak_rounds: 10,
            peak_yield_every: 64,
            thread_spawns: 10_000,
            idle_threads: if quick { 1_000 } else { 10_000 },
            // The source's 256 tasks; about 0.11 µs an item here, so a pass is about half a second
            // of CPU, each task about 2 ms: none runs for Go's 10 ms preemption slice.
            hash_tasks: 256,
            hash_items: if quick { 1 << 16 } else { 1 << 22 },
            hash_rounds: 100,
        }
    }

    fn splits(&self) -> Vec<Split> {
        let mut v = vec![Split::SpawnPerItem, Split::JoinSetPerItem];
        v.extend(self.chunk_counts.iter().map(|k| Split::Chunked(*k)));
        v.extend([Split::Inline, Split::FuturesUnordered]);
        v
    }

    /// What a task per item is compared with: the most chunks of the sweep (their spawns are
    /// few, and the load balances across the workers).
    fn reference(&self) -> Split {
        Split::Chunked(self.chunk_counts.iter().max().copied().unwrap_or(1))
    }

    /// Every (item size, split) cell of `split_work`, smallest size first.
    fn split_cells(&self) -> Vec<Cell> {
        let mut sizes: Vec<(f64, bool)> = self.item_sizes_us.iter().map(|s| (*s, true)).collect();
        sizes.extend(self.overhead_sizes_us.iter().map(|s| (*s, false)));
        sizes.sort_by(|a, b| a.0.total_cmp(&b.0));
        let per_item = [Split::SpawnPerItem, Split::JoinSetPerItem, self.reference()];
        sizes
            .iter()
            .flat_map(|&(us, every)| {
                let splits = if every {
                    self.splits()
                } else {
                    per_item.to_vec()
                };
                splits
                    .into_iter()
                    .map(move |split| Cell::new(us.to_string(), split.name()))
            })
            .collect()
    }
}

/// How many rounds of `work` take one microsecond here (the fastest of several tries).
fn calibrate() -> f64 {
    let rounds = 2_000_000;
    (0..7)
        .map(|i| {
            let t = Instant::now();
            work(rounds, i);
            rounds as f64 / (t.elapsed().as_secs_f64() * 1e6)
        })
        .fold(0.0, f64::max)
}

/// One item size: how many items make the total work, and the rounds of each.
#[derive(Clone, Copy)]
struct Size {
    items: u64,
    rounds: u64,
}

impl Size {
    fn new(p: &Params, item_us: f64, rounds_per_us: f64) -> Size {
        Size {
            items: (p.total_work_ms as f64 * 1e3 / item_us).round() as u64,
            rounds: (item_us * rounds_per_us).round().max(1.0) as u64,
        }
    }

    /// The digests' sum, computed on this thread once, outside any timing.
    fn expected(&self) -> u64 {
        (0..self.items).fold(0u64, |s, i| s.wrapping_add(work(self.rounds, i)))
    }
}

/// The runtime's own view while a cell runs: the most tasks alive and the longest injection
/// queue, sampled from another thread every `SAMPLE_EVERY`.
struct Watch {
    alive_max: Arc<AtomicUsize>,
    queue_max: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Watch {
    fn start(metrics: tokio::runtime::RuntimeMetrics) -> Watch {
        let (alive_max, queue_max) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (a, q, s) = (alive_max.clone(), queue_max.clone(), stop.clone());
            std::thread::spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    a.fetch_max(metrics.num_alive_tasks(), Ordering::Relaxed);
                    q.fetch_max(metrics.global_queue_depth(), Ordering::Relaxed);
                    std::thread::sleep(ch03_spawns::SAMPLE_EVERY);
                }
            })
        };
        Watch {
            alive_max,
            queue_max,
            stop,
            thread,
        }
    }

    /// (most alive, longest injection queue).
    fn stop(self) -> (usize, usize) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        (
            self.alive_max.load(Ordering::Relaxed),
            self.queue_max.load(Ordering::Relaxed),
        )
    }
}

/// The workers' busy time so far. A worker publishes it in batches (when it parks and at its
/// periodic maintenance), so it is read after the runtime has shut down.
fn total_busy(metrics: &tokio::runtime::RuntimeMetrics) -> Duration {
    (0..metrics.num_workers())
        .map(|w| metrics.worker_total_busy_duration(w))
        .sum()
}

/// What one run of a split saw: wall time, most tasks alive, longest injection queue, and the
/// workers' busy share of the wall time in %.
struct Seen {
    wall: Duration,
    alive_max: usize,
    queue_max: usize,
    busy: f64,
}

/// Runs `split` over the items on a fresh runtime.
fn timed_split(p: &Params, size: Size, want: u64, split: Split) -> Result<Seen, String> {
    let rt = measure::runtime(p.workers)?;
    let metrics = rt.handle().metrics();
    let watch = Watch::start(metrics.clone());
    let t = Instant::now();
    // The work starts from a task on a worker, as a handler's would.
    let sum = rt
        .block_on(rt.spawn(split.run(size.items, size.rounds)))
        .map_err(|e| format!("{}: {e}", split.name()))?;
    let wall = t.elapsed();
    let (alive_max, queue_max) = watch.stop();
    drop(rt);
    if sum != want {
        return Err(format!(
            "checksum mismatch in {} ({} items): {sum:#x}, expected {want:#x}",
            split.name(),
            size.items
        ));
    }
    let busy = total_busy(&metrics).as_secs_f64() / (wall.as_secs_f64() * f64::from(p.workers));
    Ok(Seen {
        wall,
        alive_max,
        queue_max,
        busy: 100.0 * busy,
    })
}

/// Experiment `split_work`: one cell. A task-per-item cell also runs the chunked reference beside
/// it, before it in odd repetitions and after it in even ones, so its overhead is a ratio
/// measured side by side.
fn split_work(
    p: &Params,
    size: Size,
    want: u64,
    split: Split,
    reference_first: bool,
) -> Result<Measurement, String> {
    let per_item = matches!(split, Split::SpawnPerItem | Split::JoinSetPerItem);
    let reference = |run: bool| -> Result<Option<Duration>, String> {
        Ok(if run && per_item {
            Some(timed_split(p, size, want, p.reference())?.wall)
        } else {
            None
        })
    };
    let before = reference(reference_first)?;
    let seen = timed_split(p, size, want, split)?;
    let after = reference(!reference_first)?;
    let per_item = |d: Duration| d.as_nanos() as f64 / size.items as f64;
    let mut m = Measurement::new();
    m.push("ns_per_item", "ns", per_item(seen.wall))
        .push("alive_max", "count", seen.alive_max as f64)
        .push("global_queue_max", "count", seen.queue_max as f64)
        .push("busy", "%", seen.busy);
    if let Some(chunked) = before.or(after) {
        let overhead = per_item(seen.wall) - per_item(chunked);
        m.push("overhead_pct", "%", 100.0 * overhead / per_item(chunked))
            .push("overhead_per_task", "ns", overhead);
    }
    Ok(m)
}

/// The C library whose `malloc` is the system allocator, from `ldd --version` (glibc on most
/// Linux systems), if it says.
fn system_allocator() -> Option<String> {
    let out = std::process::Command::new("ldd")
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next()?.trim().to_string()).filter(|l| !l.is_empty())
}

/// The child binaries, one per allocator.
const CHILDREN: [&str; 2] = ["tasks-system", "tasks-mimalloc"];

/// A child binary beside this one, brought up to date by cargo once per run (`main` asks for
/// each before the experiments start, so no build lands inside one).
fn child(name: &str) -> Result<PathBuf, String> {
    static FOUND: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut found = FOUND.lock().map_err(|_| "a child lookup panicked")?;
    if let Some(path) = found.get(name) {
        return Ok(path.clone());
    }
    let path = measure::child::sibling_binary("ch03-spawns", name)?;
    found.insert(name.to_string(), path.clone());
    Ok(path)
}

measure::variants! {
    /// Experiment `idle_memory`: who parks the idle tasks.
    enum Idle for "idle_memory" {
        /// Tokio tasks with the system allocator.
        System = "system",
        /// Tokio tasks with mimalloc.
        Mimalloc = "mimalloc",
        /// Goroutines blocked on a channel.
        Goroutines = "goroutines",
        /// OS threads blocked on a barrier.
        OsThreads = "os_threads",
    }
}

measure::variants! {
    /// Experiment `cpu_hashing`: who runs the 256 tasks of hashing, each on `workers` threads.
    enum Hashing for "cpu_hashing" {
        TokioTasks = "tokio_tasks",
        RayonPool = "rayon_pool",
        /// A thread per core, taking tasks from a shared counter.
        ThreadPerCore = "thread_per_core",
        Goroutines = "goroutines",
    }
}

/// The variants of `spawn_and_join` beside Tokio's: goroutines, and an OS thread per task. Every
/// experiment names its Go variant `goroutines`.
const GOROUTINES: &str = "goroutines";
const THREAD_PER_TASK: &str = "thread_per_task";

/// The Go program, built before measuring when a selected cell runs it (`main`).
static GO: OnceLock<Program> = OnceLock::new();

/// The Go program `main` built.
fn go() -> Result<&'static Program, String> {
    GO.get()
        .ok_or_else(|| "the Go program was not built before measuring".to_string())
}

/// Runs the Go program once with `GOMAXPROCS=workers` and reads its report.
fn in_go(workers: u32, args: &[&str]) -> Result<Report, String> {
    let text = go()?.run(workers, args, &[])?;
    serde_json::from_str(text.trim()).map_err(|e| format!("the Go program printed {text:?}: {e}"))
}

/// A report's checksum, or an error naming the variant.
fn checked(r: Report, want: u64, variant: &str) -> Result<Report, String> {
    if r.checksum == want {
        Ok(r)
    } else {
        Err(format!(
            "{variant}: checksum {}, expected {want}",
            r.checksum
        ))
    }
}

measure::variants! {
    /// Experiment `peak_memory`: what the spawner keeps of its tasks (each variant also runs
    /// with mimalloc, its name ending in `_mimalloc`).
    enum Kept for "peak_memory" {
        /// Results in the tasks, every `JoinHandle` kept and awaited at the end.
        Handles = "handles_kept",
        /// Results in a shared slice, every handle dropped at once.
        Slice = "handles_dropped",
        /// Results in a shared slice, every handle kept until the end.
        SliceAndHandles = "slice_handles_kept",
    }
}

impl Kept {
    /// The child's name for where the results go (`child::measure`'s `peak`).
    fn child_results(self) -> &'static str {
        match self {
            Kept::Handles => "handles",
            Kept::Slice => "slice",
            Kept::SliceAndHandles => "slice_kept",
        }
    }
}

/// A variant names what it measures, then `_mimalloc` if not on the system allocator
/// (`handles_dropped_mimalloc`): (what, the child binary to run).
fn split_allocator(variant: &str) -> (&str, String) {
    match variant.split_once("_mimalloc") {
        Some((what, _)) => (what, CHILDREN[1].into()),
        None => (variant, CHILDREN[0].into()),
    }
}

/// The sum of `0..n`: what a spawn that stores each index must return.
fn index_sum(n: u64) -> u64 {
    n * n.saturating_sub(1) / 2
}

/// The cells of `spawn_and_join`: Tokio's variants and goroutines at every count, an OS thread
/// per task at `thread_spawns` only.
fn spawn_cells(p: &Params, tokio_variants: &[&str]) -> Vec<Cell> {
    let mut variants = tokio_variants.to_vec();
    variants.push(GOROUTINES);
    let mut cells = Cell::grid(&p.spawn_counts, variants);
    cells.push(Cell::new(p.thread_spawns.to_string(), THREAD_PER_TASK));
    cells
}

/// One cell of `spawn_and_join`: `n` spawned and joined by `variant`, in a child process.
fn spawn_cell(workers: u32, n: &str, variant: &str) -> Result<Report, String> {
    let want = index_sum(n.parse().map_err(|_| format!("task count {n:?}"))?);
    match variant {
        GOROUTINES => checked(in_go(workers, &["spawn", n])?, want, variant),
        THREAD_PER_TASK => checked(
            in_child(CHILDREN[0], workers, &["threads-spawn", n])?,
            want,
            variant,
        ),
        // The Tokio children check their own sums.
        tokio => {
            let (from, binary) = split_allocator(tokio);
            let from = match from {
                "handles_dropped" => "slice",
                "slice_handles_kept" => "slice_kept",
                other => other,
            };
            in_child(&binary, workers, &["spawn", n, from])
        }
    }
}

/// The cells of `idle_memory`: tasks and goroutines at `idle_tasks`, OS threads at `idle_threads`.
fn idle_cells(p: &Params) -> Vec<Cell> {
    Idle::NAMES
        .iter()
        .map(|v| match Idle::named(v) {
            Ok(Idle::OsThreads) => Cell::new(p.idle_threads.to_string(), *v),
            _ => Cell::new(p.idle_tasks.to_string(), *v),
        })
        .collect()
}

/// One cell of `cpu_hashing`, in a child process: items per second.
fn hashing_cell(p: &Params, way: Hashing, want: u64) -> Result<Measurement, String> {
    let (tasks, items, rounds) = (
        p.hash_tasks.to_string(),
        p.hash_items.to_string(),
        p.hash_rounds.to_string(),
    );
    let args = ["cpu", tasks.as_str(), &items, &rounds];
    let on = match way {
        Hashing::Goroutines => None,
        Hashing::TokioTasks => Some("tokio"),
        Hashing::RayonPool => Some("rayon"),
        Hashing::ThreadPerCore => Some("threads"),
    };
    let r = match on {
        None => in_go(p.workers, &args)?,
        Some(on) => in_child(CHILDREN[0], p.workers, &[&args[..], &[on]].concat())?,
    };
    let r = checked(r, want, &format!("{way:?}"))?;
    let mut m = Measurement::new();
    m.push("items_per_s", "items/s", p.hash_items as f64 / r.seconds);
    Ok(m)
}

/// Runs one measurement in a fresh child process on `workers` workers and reads its report.
fn in_child(binary: &str, workers: u32, args: &[&str]) -> Result<Report, String> {
    let out = std::process::Command::new(child(binary)?)
        .arg(workers.to_string())
        .args(args)
        .output()
        .map_err(|e| format!("cannot start {binary}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{binary} {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).map_err(|e| format!("{binary} printed {text:?}: {e}"))
}

/// The most resident memory a run may reach: the peak experiments stop above it.
const PEAK_LIMIT: u64 = 2 << 30;

/// Refuses to start when the machine lacks the memory the peak experiment could use.
fn check_memory(p: &Params) -> Result<(), String> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let available = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kib| kib * 1024);
    // A kept task is under 1 KiB here; leave room for two of the heaviest runs at once.
    let need = p.peak_tasks as u64 * 1024 * 2;
    match available {
        Some(a) if a < need => Err(format!(
            "the peak_memory experiment may need {} MiB and this machine has {} MiB available: \
             free memory or rerun with --quick",
            need >> 20,
            a >> 20
        )),
        _ => Ok(()),
    }
}

const CHAPTER: Chapter = Chapter {
    name: "ch03-spawns",
    title: "Spawning",
    about: "The same CPU work cut into items of 0.3, 3.5 and 35 µs, run as a task per item, a \
            JoinSet per item, a few chunked tasks, inline in one task, or a FuturesUnordered in \
            one task: nanoseconds per item and the overhead per task (also at 1 and 10 µs, for \
            the overhead curve). Then, each in a child process with the system allocator or \
            mimalloc: spawn-and-join throughput (from inside the runtime, from a plain thread, \
            with the handles dropped), resident bytes per idle task, what an 8 KiB buffer held \
            across an .await does to a task, and the peak memory of a million tasks with their \
            handles kept or dropped, spawned in a tight loop or by a spawner that yields. Beside \
            them, Go's goroutines and an OS thread per task: spawn and join, memory per idle \
            one; and 256 tasks of CPU-only hashing as Tokio tasks, on a Rayon pool, on an OS \
            thread per core and as goroutines. The memory experiments need Linux; the Go variants Go.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "futures-util", "mimalloc", "rayon"],
    headline: &[
        "items_per_s",
        "ns_per_item",
        "overhead_pct",
        "alive_max",
        "tasks_per_s",
        "bytes_per_task",
        "future_bytes",
        "peak_rss",
    ],
    full_reps: 10,
};

fn main() {
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(h.cli(), h.cores());
    if let Err(e) = check_memory(&p) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    for name in CHILDREN {
        if let Err(e) = child(name) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
    let rounds_per_us = calibrate();
    h.params(&p);
    h.derived("calibrated_rounds_per_us", rounds_per_us);
    if let Some(libc) = system_allocator() {
        h.derived("system_allocator", libc);
    }
    let sizes: Vec<(String, Size, u64)> = p
        .item_sizes_us
        .iter()
        .chain(&p.overhead_sizes_us)
        .map(|us| {
            let size = Size::new(&p, *us, rounds_per_us);
            (us.to_string(), size, size.expected())
        })
        .collect();
    h.derived(
        "items_per_size",
        sizes
            .iter()
            .map(|(us, s, _)| (us.clone(), s.items))
            .collect::<std::collections::BTreeMap<_, _>>(),
    );
    let spawn_variants = [
        "inside",
        "outside",
        "handles_dropped",
        "slice_handles_kept",
        "inside_mimalloc",
        "outside_mimalloc",
        "handles_dropped_mimalloc",
        "slice_handles_kept_mimalloc",
    ];
    let hash_want = ch03_spawns::hash_share(p.hash_rounds, 0..p.hash_items);
    let peak_want =
        (0..p.peak_tasks as u64).fold(0u64, |s, i| s.wrapping_add(work(p.peak_rounds, i)));
    let mut experiments = vec![
        Experiment::new("split_work", p.split_cells(), |cell, rep| {
            let (_, size, want) = sizes.iter().find(|s| s.0 == cell.case).expect("a size");
            let split = Split::from_name(&cell.variant).expect("cells name splits");
            split_work(&p, *size, *want, split, rep % 2 == 1)
        })
        .shaped_by(measure::fields!(p => workers, total_work_ms, item_sizes_us, overhead_sizes_us, chunk_counts)),
        Experiment::new(
            "spawn_and_join",
            spawn_cells(&p, &spawn_variants),
            |cell, _| {
                let n: f64 = cell.case.parse().expect("task counts");
                let r = spawn_cell(p.workers, &cell.case, &cell.variant)?;
                let mut m = Measurement::new();
                m.push("tasks_per_s", "tasks/s", n / r.seconds);
                if cell.variant == GOROUTINES {
                    m.push("gc_per_pass", "count", r.gc_per_pass);
                }
                Ok(m)
            },
        )
        .shaped_by(measure::fields!(p => workers, spawn_counts, thread_spawns)),
        Experiment::new(
            "cpu_hashing",
            Cell::grid([p.hash_tasks], Hashing::NAMES),
            |cell, _| hashing_cell(&p, Hashing::named(&cell.variant)?, hash_want),
        )
        .shaped_by(measure::fields!(p => workers, hash_tasks, hash_items, hash_rounds)),
    ];
    // The memory experiments read resident memory from /proc/self/status.
    if cfg!(target_os = "linux") {
        experiments.extend([
            Experiment::new("idle_memory", idle_cells(&p), |cell, _| {
                let n: u64 = cell.case.parse().expect("task counts");
                let idle = Idle::named(&cell.variant)?;
                let r = match idle {
                    Idle::System | Idle::Mimalloc => {
                        let binary = format!("tasks-{}", cell.variant);
                        in_child(&binary, p.workers, &["idle", &cell.case, "plain"])?
                    }
                    Idle::Goroutines => in_go(p.workers, &["idle", &cell.case])?,
                    Idle::OsThreads => {
                        in_child(CHILDREN[0], p.workers, &["threads-idle", &cell.case])?
                    }
                };
                let r = checked(r, n, &cell.variant)?;
                let mut m = Measurement::new();
                m.push("bytes_per_task", "B", r.bytes_per_task);
                match idle {
                    Idle::Goroutines => {
                        m.push("stack_per_task", "B", r.stack_per_task);
                    }
                    Idle::OsThreads => {
                        m.push("kernel_stack_per_task", "B", r.kernel_stack_per_task)
                            .push("page_tables_per_task", "B", r.page_tables_per_task);
                    }
                    Idle::System | Idle::Mimalloc => {}
                }
                Ok(m)
            })
            .shaped_by(measure::fields!(p => workers, idle_tasks, idle_threads)),
            Experiment::new(
                "future_size",
                Cell::grid([p.future_tasks], ["plain", "buffer", "boxed", "scoped"]),
                |cell, _| {
                    let r = in_child(
                        "tasks-system",
                        p.workers,
                        &["idle", &cell.case, &cell.variant],
                    )?;
                    let mut m = Measurement::new();
                    m.push("future_bytes", "B", r.future_bytes as f64).push(
                        "bytes_per_task",
                        "B",
                        r.bytes_per_task,
                    );
                    Ok(m)
                },
            )
            .shaped_by(measure::fields!(p => workers, future_tasks)),
            Experiment::new(
                "peak_memory",
                Cell::grid(
                    ["tight", "paced"],
                    [
                        "handles_kept",
                        "handles_dropped",
                        "slice_handles_kept",
                        "handles_kept_mimalloc",
                        "handles_dropped_mimalloc",
                        "slice_handles_kept_mimalloc",
                    ],
                ),
                |cell, _| {
                    let (kept, binary) = split_allocator(&cell.variant);
                    let how = Kept::named(kept)?.child_results();
                    let yield_every = match cell.case.as_str() {
                        "paced" => p.peak_yield_every,
                        "tight" => 0,
                        other => return Err(format!("peak_memory has no case `{other}`")),
                    };
                    let r = in_child(
                        &binary,
                        p.workers,
                        &[
                            "peak",
                            &p.peak_tasks.to_string(),
                            &p.peak_rounds.to_string(),
                            how,
                            &yield_every.to_string(),
                        ],
                    )?;
                    if r.checksum != peak_want {
                        return Err(format!("{}: checksum mismatch", cell.variant));
                    }
                    if r.peak_rss > PEAK_LIMIT {
                        return Err(format!(
                            "{}: the child peaked at {} MiB, over the {} MiB this run allows",
                            cell.variant,
                            r.peak_rss >> 20,
                            PEAK_LIMIT >> 20
                        ));
                    }
                    let mut m = Measurement::new();
                    m.push("peak_rss", "B", r.peak_rss as f64)
                        .push("alive_max", "count", r.alive_max as f64)
                        .push("wall", "ms", r.seconds * 1e3);
                    Ok(m)
                },
            )
            .shaped_by(measure::fields!(p => workers, peak_tasks, peak_rounds, peak_yield_every)),
        ]);
    } else {
        eprintln!(
            "note: idle_memory, future_size and peak_memory read /proc (Linux only): skipped"
        );
    }
    // Built once, before anything is measured, when a selected cell runs it: without the pinned
    // Go the run stops here, and a run of the Rust variants alone needs no Go.
    if experiments
        .iter()
        .any(|e| h.runs_any(e, |c| c.variant == GOROUTINES))
    {
        match Program::build(CHAPTER.listing_dir, "ch03-spawns") {
            Ok(go) => {
                h.derived("go_version", go.version());
                let _ = GO.set(go);
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    h.run(experiments);
}
