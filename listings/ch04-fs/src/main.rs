//! The experiments of Chapter 4. `small_files` reads a batch of small files six ways while light
//! requests arrive at the same runtime; `file_size` reads larger files; `write_files` and
//! `small_records` take the write path.
//!
//! `cargo run -p ch04-fs -- --help` lists the flags.

use ch04_fs::corpus::{Corpus, ScratchDir, contents, digest};
use ch04_fs::probe::{filesystem, io_counters, minor_faults, threads};
use ch04_fs::{Files, file_names};
use measure::loadgen::wait_until;
use measure::stats::LatencyHistogram;
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

// This chapter's own flag. (A doc comment here would replace the chapter's `--help` text.)
#[derive(clap::Args, Debug)]
struct Extra {
    /// Make the test files under PATH (a disk of your own) [default: the system's temp directory]
    #[arg(long, value_name = "PATH")]
    dir: Option<PathBuf>,
}

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers: every core, as a service would run.
    workers: u32,
    /// `small_files`: this many files of `small_file_bytes`, as the source read.
    small_files: usize,
    small_file_bytes: usize,
    /// The bounded variants keep this many reads in flight.
    in_flight: Vec<usize>,
    /// `pool_cap`: the blocking pool's thread limits tried (Tokio's default is 512).
    pool_caps: Vec<usize>,
    /// Reads submitted to io_uring at a time.
    io_uring_depth: usize,
    /// Light requests per second sent to the runtime while a batch is read.
    light_rate_per_s: f64,
    /// `file_size`: file sizes, and the bytes read per cell (the file count follows).
    file_sizes: Vec<usize>,
    bytes_per_size: usize,
    /// `write_files`: files of `write_file_bytes` written per cell, fewer when each is synced.
    write_files: usize,
    synced_files: usize,
    write_file_bytes: usize,
    /// `small_records`: records of `record_bytes` written to one file.
    records: usize,
    record_bytes: usize,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            small_files: if quick { 500 } else { 5_000 },
            small_file_bytes: 4096,
            in_flight: if quick { vec![16] } else { vec![4, 16, 64] },
            pool_caps: if quick {
                vec![4, 512]
            } else {
                vec![4, 16, 64, 512]
            },
            io_uring_depth: 64,
            light_rate_per_s: 4_000.0,
            file_sizes: vec![4096, 65_536, 1 << 20],
            bytes_per_size: if quick { 4 << 20 } else { 32 << 20 },
            write_files: if quick { 100 } else { 1_000 },
            synced_files: if quick { 20 } else { 200 },
            write_file_bytes: 4096,
            records: if quick { 2_000 } else { 20_000 },
            record_bytes: 100,
        }
    }
}

/// A future's output and the longest single poll it took: how long it held its worker at once.
struct LongestPoll<F> {
    inner: Pin<Box<F>>,
    longest: Duration,
}

impl<F: Future> Future for LongestPoll<F> {
    type Output = (F::Output, Duration);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let t = Instant::now();
        let poll = self.inner.as_mut().poll(cx);
        self.longest = self.longest.max(t.elapsed());
        poll.map(|out| (out, self.longest))
    }
}

/// Light requests sent to the runtime at a fixed rate from a thread of its own, each a task
/// that records how late its first poll was, from its scheduled time (open loop).
struct LightRequests {
    latency: Arc<Mutex<LatencyHistogram>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for LightRequests {
    // On an error path the generator is not joined; it stops at its next arrival.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl LightRequests {
    fn start(handle: tokio::runtime::Handle, rate_per_s: f64) -> LightRequests {
        let latency = Arc::new(Mutex::new(LatencyHistogram::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (latency, stop) = (latency.clone(), stop.clone());
            std::thread::spawn(move || {
                let start = Instant::now();
                for i in 0u64.. {
                    let scheduled = start + Duration::from_secs_f64(i as f64 / rate_per_s);
                    wait_until(scheduled, Duration::from_micros(50));
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let latency = latency.clone();
                    handle.spawn(async move {
                        let late = scheduled.elapsed();
                        latency.lock().expect("no panics here").record(late);
                    });
                }
            })
        };
        LightRequests {
            latency,
            stop,
            thread: Some(thread),
        }
    }

    fn stop(mut self) -> LatencyHistogram {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // Let the last light tasks run before reading.
        std::thread::sleep(Duration::from_millis(2));
        self.latency.lock().expect("no panics here").clone()
    }
}

/// How one batch is read, by variant name.
fn read_batch(
    variant: &str,
    files: Files,
    p: &Params,
) -> Pin<Box<dyn Future<Output = std::io::Result<u64>> + Send>> {
    match variant {
        "tokio_fs_loop" => Box::pin(ch04_fs::tokio_fs_loop(files)),
        "std_inline" => Box::pin(ch04_fs::std_inline(files)),
        "one_spawn_blocking" => Box::pin(ch04_fs::one_spawn_blocking(files)),
        "tokio_fs_all_at_once" => Box::pin(ch04_fs::tokio_fs_all_at_once(files)),
        #[cfg(target_os = "linux")]
        "io_uring" => Box::pin(ch04_fs::io_uring_batch(files, p.io_uring_depth)),
        #[cfg(target_os = "linux")]
        "io_uring_reused" => Box::pin(ch04_fs::io_uring_batch_reused(files, p.io_uring_depth)),
        bounded => {
            let k = bounded
                .strip_prefix("bounded_")
                .and_then(|k| k.parse().ok())
                .expect("variants name their reads");
            Box::pin(ch04_fs::tokio_fs_bounded(files, k))
        }
    }
}

/// The blocking pool a read cell starts with.
#[derive(Clone, Copy)]
enum Pool {
    /// A fresh runtime: no pool threads until the batch asks for them.
    Cold,
    /// The same batch read once, untimed, first: the threads it started are still there, as in
    /// a service whose pool threads live ten seconds after their last job.
    Warm,
    /// A fresh runtime whose pool may grow to this many threads (`max_blocking_threads`).
    Capped(usize),
}

/// Experiments `small_files`, `warm_pool`, `pool_cap` and `file_size`: one batch read on a fresh
/// runtime, with light requests arriving meanwhile.
fn read_cell(
    p: &Params,
    corpus: &Corpus,
    variant: &str,
    light: bool,
    pool: Pool,
) -> Result<Measurement, String> {
    let rt = match pool {
        Pool::Cold | Pool::Warm => measure::runtime(p.workers)?,
        Pool::Capped(threads) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(p.workers as usize)
            .max_blocking_threads(threads)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot build a runtime: {e}"))?,
    };
    let files: Files = corpus.files.clone().into();
    if let Pool::Warm = pool {
        let sum = rt.block_on(rt.spawn(read_batch(variant, files.clone(), p)));
        let sum = sum.map_err(|e| format!("{variant}: {e}"))?;
        corpus.check(variant, sum.map_err(|e| format!("{variant}: {e}"))?)?;
    }
    let requests = light.then(|| LightRequests::start(rt.handle().clone(), p.light_rate_per_s));
    let queue = QueueWatch::start(rt.handle().metrics());
    // The probes' own reads of /proc, counted once and taken off the cell's count.
    let probe_reads = probe_reads();
    let io_before = io_counters();
    let faults_before = minor_faults();
    let threads_before = threads().unwrap_or(0);
    let t = Instant::now();
    let read = LongestPoll {
        inner: Box::pin(read_batch(variant, files, p)),
        longest: Duration::ZERO,
    };
    // The batch starts from a task on a worker, as a handler's would.
    let joined = rt.block_on(rt.spawn(read));
    let wall = t.elapsed();
    let io_after = io_counters();
    let faults_after = minor_faults();
    // Pool threads stay ten seconds after their last job, so the count at the end is the peak.
    let threads_max = threads().unwrap_or(0);
    let queue_max = queue.stop();
    let latency = requests.map(LightRequests::stop);
    let (sum, longest_poll) = joined.map_err(|e| format!("{variant}: {e}"))?;
    let sum = sum.map_err(|e| format!("{variant}: {e}"))?;
    corpus.check(variant, sum)?;
    let n = corpus.files.len() as f64;
    let mut m = Measurement::new();
    m.push("us_per_file", "µs", wall.as_secs_f64() * 1e6 / n)
        .push("longest_poll", "ns", longest_poll.as_nanos() as f64)
        .push("threads_max", "count", threads_max as f64)
        .push(
            "threads_started",
            "count",
            threads_max.saturating_sub(threads_before) as f64,
        )
        .push("global_queue_max", "count", queue_max as f64);
    if let (Some((r0, b0)), Some((r1, b1))) = (io_before, io_after) {
        let reads = (r1 - r0).saturating_sub(probe_reads);
        m.push("read_syscalls_per_file", "count", reads as f64 / n)
            .push("storage_bytes", "B", (b1 - b0) as f64);
    }
    if let (Some(f0), Some(f1)) = (faults_before, faults_after) {
        m.push("page_faults_per_file", "count", (f1 - f0) as f64 / n);
    }
    if let Some(latency) = latency {
        m.push("light_p99", "ns", latency.p99_ns())
            .push("light_max", "ns", latency.max_ns());
    }
    Ok(m)
}

/// The read syscalls that reading the counters themselves makes, between two readings.
fn probe_reads() -> u64 {
    match (io_counters(), minor_faults(), io_counters()) {
        (Some((a, _)), _, Some((b, _))) => b - a,
        _ => 0,
    }
}

/// The runtime's injection queue, sampled every 200 µs from a thread of its own (a stable
/// metric: an atomic read).
struct QueueWatch {
    most: Arc<std::sync::atomic::AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl QueueWatch {
    fn start(metrics: tokio::runtime::RuntimeMetrics) -> QueueWatch {
        let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (most, stop) = (most.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    most.fetch_max(metrics.global_queue_depth(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_micros(200));
                }
            })
        };
        QueueWatch { most, stop, thread }
    }

    fn stop(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        self.most.load(Ordering::Relaxed)
    }
}

/// Experiment `write_files`: one batch of files written into a fresh directory.
fn write_cell(p: &Params, parent: &Path, variant: &str, sync: bool) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let dir = ScratchDir::new(parent)?;
    let count = if sync { p.synced_files } else { p.write_files };
    let paths = file_names(dir.path(), count);
    let data: Vec<Vec<u8>> = (0..count)
        .map(|i| contents(i, p.write_file_bytes))
        .collect();
    let want = data.iter().fold(0u64, |s, b| s.wrapping_add(digest(b)));
    let (paths2, data2) = (paths.clone(), data);
    let t = Instant::now();
    let tokio_fs = variant.starts_with("tokio");
    let wrote = rt.block_on(rt.spawn(async move {
        if tokio_fs {
            ch04_fs::tokio_fs_write_loop(paths2, data2, sync).await
        } else {
            ch04_fs::std_write_batch(paths2, data2, sync).await
        }
    }));
    let wall = t.elapsed();
    wrote
        .map_err(|e| format!("{variant}: {e}"))?
        .map_err(|e| format!("{variant}: cannot write in {}: {e}", dir.path().display()))?;
    let got = paths.iter().try_fold(0u64, |s, f| {
        std::fs::read(f).map(|b| s.wrapping_add(digest(&b)))
    });
    if got.map_err(|e| format!("{variant}: reading the files back: {e}"))? != want {
        return Err(format!("{variant}: the files read back differently"));
    }
    let mut m = Measurement::new();
    m.push("us_per_file", "µs", wall.as_secs_f64() * 1e6 / count as f64);
    Ok(m)
}

measure::variants! {
    /// Experiment `small_records`: how it writes its records into one file.
    enum RecordsWay for "small_records" {
        TokioUnbuffered = "tokio_file_unbuffered",
        TokioBufWriter = "tokio_bufwriter",
        StdBatch = "std_bufwriter_one_spawn_blocking",
    }
}

fn records_cell(p: &Params, parent: &Path, variant: &str) -> Result<Measurement, String> {
    let rt = measure::runtime(p.workers)?;
    let dir = ScratchDir::new(parent)?;
    let path = dir.path().join("records.bin");
    let records = contents(7, p.records * p.record_bytes);
    let (size, bytes, out) = (p.record_bytes, records.clone(), path.clone());
    let t = Instant::now();
    let how = RecordsWay::named(variant)?;
    let wrote = rt.block_on(rt.spawn(async move {
        match how {
            RecordsWay::TokioUnbuffered => ch04_fs::records_unbuffered(out, bytes, size).await,
            RecordsWay::TokioBufWriter => ch04_fs::records_buffered(out, bytes, size).await,
            RecordsWay::StdBatch => ch04_fs::records_std_batch(out, bytes, size).await,
        }
    }));
    let wall = t.elapsed();
    wrote
        .map_err(|e| format!("{variant}: {e}"))?
        .map_err(|e| format!("{variant}: cannot write in {}: {e}", dir.path().display()))?;
    if std::fs::read(&path).map_err(|e| format!("{variant}: reading the file back: {e}"))?
        != records
    {
        return Err(format!("{variant}: the file reads back differently"));
    }
    let mut m = Measurement::new();
    m.push(
        "ns_per_record",
        "ns",
        wall.as_nanos() as f64 / p.records as f64,
    );
    Ok(m)
}

const CHAPTER: Chapter = Chapter {
    name: "ch04-fs",
    title: "File I/O",
    about: "Reads a batch of 5,000 files of 4 KiB, made by the listing in a scratch directory \
            and read back once to check them (they stay in the page cache), six ways: \
            tokio::fs::read awaited in a loop, std::fs::read inline in the async task, the batch \
            in one spawn_blocking, a task per file all at once, a bounded number in flight, and \
            io_uring; per file time, the reading task's longest poll, the process's thread \
            count, the longest injection queue, read syscalls, bytes fetched from storage, page \
            faults, and the latency of light requests served meanwhile. The same batch again on \
            a warm blocking pool (read once, untimed, first), and a task per file with the \
            pool's thread limit at 4 to 512. Then files of 4 KiB to 1 MiB (io_uring into fresh \
            buffers and into buffers kept from call to call), many small files written with and \
            without sync_all, and small records written \
            through tokio::fs::File, tokio's BufWriter or std in one spawn_blocking. Every file \
            it makes is removed at the end; --dir PATH measures another disk.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "futures-util", "io-uring"],
    headline: &[
        "us_per_file",
        "light_p99",
        "threads_max",
        "page_faults_per_file",
        "ns_per_record",
    ],
    full_reps: 10,
};

fn main() {
    // Under a file-size limit (`ulimit -f`), a write past it then fails with "File too large",
    // which the listing reports and cleans up after, instead of the signal killing the process.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" before any thread starts.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let (mut h, extra) = Harness::start_with::<Extra>(CHAPTER);
    let p = Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(h.cores()));
    let parent = extra.dir.unwrap_or_else(std::env::temp_dir);
    h.params(&p);
    if let Some(fs) = filesystem(&parent) {
        h.derived("filesystem", fs);
    }
    let uring = uring_available();
    h.derived("io_uring", uring.is_ok());
    // Tokio 1.54 switches its blocking pool to a sharded queue when this is set, even in a
    // stable build (`runtime/builder.rs`); the record says which pool ran.
    let sharded = std::env::var_os("TOKIO_UNSTABLE_SHARDED_BLOCKING_QUEUE")
        .is_some_and(|v| !v.is_empty() && v != "0");
    h.derived("tokio_sharded_blocking_queue", sharded);
    if let Err(why) = &uring {
        eprintln!("note: {why}; the io_uring variants are skipped");
    }
    ScratchDir::sweep(&parent);
    // Each experiment's files are made when its first cell runs (so `--filter` makes only what
    // it needs), and all are removed when the run ends, whichever way it ends.
    let small = OnceLock::new();
    let sized: Vec<OnceLock<Result<Corpus, String>>> =
        p.file_sizes.iter().map(|_| OnceLock::new()).collect();
    let corpus = |cell, count, size| corpus_in(cell, &parent, count, size);

    let mut read_variants = vec![
        "tokio_fs_loop",
        "std_inline",
        "one_spawn_blocking",
        "tokio_fs_all_at_once",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    read_variants.extend(p.in_flight.iter().map(|k| format!("bounded_{k}")));
    let mut size_variants = vec![
        "tokio_fs_loop".to_string(),
        "one_spawn_blocking".to_string(),
    ];
    let mut warm_variants = vec![
        "tokio_fs_loop".to_string(),
        "one_spawn_blocking".to_string(),
        "tokio_fs_all_at_once".to_string(),
    ];
    warm_variants.extend(p.in_flight.iter().map(|k| format!("bounded_{k}")));
    if uring.is_ok() {
        read_variants.push("io_uring".into());
        size_variants.extend(["io_uring".into(), "io_uring_reused".into()]);
    }
    // The flood at every cap, and the one batch beside it at the lowest.
    let mut cap_cells = Cell::grid(&p.pool_caps, ["tokio_fs_all_at_once"]);
    cap_cells.push(Cell::new(p.pool_caps[0].to_string(), "one_spawn_blocking"));
    let status = h.run_returning(vec![
        Experiment::new(
            "small_files",
            Cell::grid([p.small_files], &read_variants),
            |cell, _| {
                let files = corpus(&small, p.small_files, p.small_file_bytes)?;
                read_cell(&p, files, &cell.variant, true, Pool::Cold)
            },
        )
        .shaped_by(measure::fields!(p => workers, small_files, small_file_bytes, in_flight, io_uring_depth, light_rate_per_s))
        .repetitions(20),
        Experiment::new(
            "warm_pool",
            Cell::grid([p.small_files], &warm_variants),
            |cell, _| {
                let files = corpus(&small, p.small_files, p.small_file_bytes)?;
                read_cell(&p, files, &cell.variant, true, Pool::Warm)
            },
        )
        .shaped_by(measure::fields!(p => workers, small_files, small_file_bytes, in_flight, light_rate_per_s))
        .repetitions(20),
        Experiment::new(
            "pool_cap",
            cap_cells,
            |cell, _| {
                let files = corpus(&small, p.small_files, p.small_file_bytes)?;
                let cap = cell.case.parse().map_err(|_| "a thread limit".to_string())?;
                read_cell(&p, files, &cell.variant, true, Pool::Capped(cap))
            },
        )
        .shaped_by(measure::fields!(p => workers, small_files, small_file_bytes, pool_caps, light_rate_per_s))
        .repetitions(20),
        Experiment::new(
            "file_size",
            Cell::grid(&p.file_sizes, &size_variants),
            |cell, _| {
                let i = p
                    .file_sizes
                    .iter()
                    .position(|size| size.to_string() == cell.case)
                    .expect("a size");
                let size = p.file_sizes[i];
                let files = corpus(&sized[i], (p.bytes_per_size / size).max(1), size)?;
                read_cell(&p, files, &cell.variant, false, Pool::Cold)
            },
        )
        .shaped_by(measure::fields!(p => workers, file_sizes, bytes_per_size, io_uring_depth))
        .repetitions(20),
        Experiment::new(
            "write_files",
            Cell::grid(
                ["no_sync", "sync"],
                ["tokio_fs_loop", "std_one_spawn_blocking"],
            ),
            |cell, _| write_cell(&p, &parent, &cell.variant, cell.case == "sync"),
        )
        .shaped_by(measure::fields!(p => workers, write_files, synced_files, write_file_bytes)),
        Experiment::new(
            "small_records",
            Cell::grid(
                [p.record_bytes],
                RecordsWay::NAMES,
            ),
            |cell, _| records_cell(&p, &parent, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, records, record_bytes)),
    ]);
    // The test files go before the process does.
    drop((small, sized));
    std::process::exit(status);
}

/// The corpus in `cell`, made on first use.
fn corpus_in<'a>(
    cell: &'a OnceLock<Result<Corpus, String>>,
    parent: &Path,
    count: usize,
    size: usize,
) -> Result<&'a Corpus, String> {
    cell.get_or_init(|| {
        let made = Corpus::create(parent, count, size);
        // Write the new files to the disk now, not during a timed cell.
        // SAFETY: sync(2) takes no arguments and cannot fail.
        unsafe { libc::sync() };
        made
    })
    .as_ref()
    .map_err(Clone::clone)
}

#[cfg(target_os = "linux")]
fn uring_available() -> Result<(), String> {
    ch04_fs::uring::available()
}

#[cfg(not(target_os = "linux"))]
fn uring_available() -> Result<(), String> {
    Err("io_uring is Linux only".into())
}
