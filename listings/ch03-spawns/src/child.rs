//! What a task costs, measured in a process of its own: fresh heap state and one allocator (the
//! `tasks-system` binary uses the system allocator, `tasks-mimalloc` mimalloc). The listing
//! starts one child per cell and reads the one JSON line it prints. Every command starts with the
//! number of Tokio workers.
//!
//! - `WORKERS spawn N inside|outside|slice|slice_kept` spawns and joins N tasks that do nothing (after one
//!   untimed pass) and reports the median pass's seconds;
//! - `WORKERS idle N plain|buffer|boxed|scoped` parks N idle tasks and reports resident bytes
//!   per task;
//! - `WORKERS peak N ROUNDS handles|slice|slice_kept YIELD_EVERY` runs N short tasks and reports
//!   the process's peak resident memory;
//! - `WORKERS threads-spawn N` spawns and joins N OS threads (after one untimed pass) and reports
//!   the median pass's seconds;
//! - `WORKERS threads-idle N` parks N OS threads and reports resident bytes per thread, and the
//!   kernel's own per thread (its stack, the page tables);
//! - `WORKERS cpu TASKS ITEMS ROUNDS tokio|rayon|threads` hashes ITEMS items as TASKS tasks and
//!   reports the median of three passes.
//!
//! The Go program (`go/main.go`) prints the same report for its goroutines.

use ch03_spawns::{
    hash_on_rayon, hash_on_threads, hash_on_tokio, hash_share, idle_task, idle_task_with_buffer,
    idle_task_with_scoped_buffer, idle_thread, spawn_and_join, spawn_from_outside,
    spawn_into_slice, spawn_into_slice_keeping_handles, spawn_keep_handles, spawn_os_threads,
};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;
use tokio::sync::Semaphore;

/// What a child measured (a probe leaves what does not apply to it at zero; the Go program prints
/// the fields its probes fill).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(default)]
pub struct Report {
    /// Resident bytes per idle task (idle), or 0.
    pub bytes_per_task: f64,
    /// The process's peak resident memory, bytes.
    pub peak_rss: u64,
    /// Wall time of the measured part, seconds.
    pub seconds: f64,
    /// The workload's checksum (peak), or the number of tasks joined (spawn, idle).
    pub checksum: u64,
    /// `size_of_val` of one task's future, bytes.
    pub future_bytes: u64,
    /// The most tasks alive at once (peak), sampled every `SAMPLE_EVERY` from another thread.
    pub alive_max: u64,
    /// Goroutine stack in use per idle goroutine (`runtime.MemStats.StackInuse`), bytes.
    pub stack_per_task: f64,
    /// The kernel's stack per idle OS thread (`KernelStack` in `/proc/meminfo`), bytes.
    pub kernel_stack_per_task: f64,
    /// The page tables per idle OS thread (`VmPTE` in `/proc/self/status`), bytes.
    pub page_tables_per_task: f64,
    /// Go's collections per timed pass (`runtime.MemStats.NumGC`), for goroutines.
    pub gc_per_pass: f64,
}

/// A `key: N kB` line of a `/proc` file, in bytes.
fn proc_bytes(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let kib = text
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    Some(kib * 1024)
}

/// (resident, peak resident) bytes of this process, from `/proc/self/status`.
pub fn resident() -> Option<(u64, u64)> {
    Some((
        proc_bytes("/proc/self/status", "VmRSS")?,
        proc_bytes("/proc/self/status", "VmHWM")?,
    ))
}

/// The kinds of idle task the `idle` probe parks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IdleKind {
    Plain,
    Buffer,
    BoxedBuffer,
    ScopedBuffer,
}

/// How `peak` keeps its tasks' results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Results {
    /// In the tasks, every `JoinHandle` kept and awaited at the end.
    Handles,
    /// In a shared slice, every handle dropped at once.
    Slice,
    /// In a shared slice, every handle kept until the end.
    SliceHandlesKept,
}

/// How `spawn` starts its tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpawnFrom {
    /// From a task on a worker, every `JoinHandle` awaited.
    Inside,
    /// From a plain thread through a `Handle`, every `JoinHandle` awaited.
    Outside,
    /// From a task on a worker, results in a shared slice, handles dropped.
    Slice,
    /// The same as `Slice`, with every handle kept and awaited at the end.
    SliceHandlesKept,
}

/// Spawns and joins `n` tasks that do nothing: once untimed, then timed.
pub fn spawn(workers: u32, n: usize, from: SpawnFrom) -> Result<Report, String> {
    let rt = measure::runtime(workers)?;
    let once = || -> Result<u64, String> {
        Ok(match from {
            SpawnFrom::Inside => rt
                .block_on(rt.spawn(spawn_and_join(n)))
                .map_err(|e| e.to_string())? as u64,
            SpawnFrom::Outside => spawn_from_outside(&rt, n) as u64,
            SpawnFrom::Slice => rt
                .block_on(rt.spawn(spawn_into_slice(n, 0, 0)))
                .map_err(|e| e.to_string())?,
            SpawnFrom::SliceHandlesKept => rt
                .block_on(rt.spawn(spawn_into_slice_keeping_handles(n, 0, 0)))
                .map_err(|e| e.to_string())?,
        })
    };
    let want = match from {
        // With no rounds of work an item's digest is its index: the sum is 0 + 1 + ... + n-1.
        SpawnFrom::Slice | SpawnFrom::SliceHandlesKept => {
            (n as u64) * (n as u64).saturating_sub(1) / 2
        }
        _ => n as u64,
    };
    let seconds = median_pass(spawn_passes(n), want, once).map_err(|e| format!("{from:?}: {e}"))?;
    Ok(Report {
        peak_rss: resident().map_or(0, |r| r.1),
        seconds,
        checksum: want,
        ..Report::default()
    })
}

/// A short run repeats until it has spawned at least 200,000 tasks (and at least 3 times); the
/// report is the median pass, so that one pass the machine interrupted does not decide it. The
/// Go program follows the same rule.
fn spawn_passes(n: usize) -> usize {
    200_000usize.div_ceil(n.max(1)).max(3)
}

/// Runs `once` untimed, then `passes` times timed, each pass's result checked against `want`:
/// the median pass's seconds.
fn median_pass(
    passes: usize,
    want: u64,
    mut once: impl FnMut() -> Result<u64, String>,
) -> Result<f64, String> {
    once()?;
    let mut times = Vec::with_capacity(passes);
    for _ in 0..passes {
        let t = Instant::now();
        let checksum = once()?;
        times.push(t.elapsed().as_secs_f64());
        if checksum != want {
            return Err(format!("checksum {checksum}, expected {want}"));
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Spawns and joins `n` OS threads that do nothing: once untimed, then timed, as `spawn`.
pub fn threads_spawn(n: usize) -> Result<Report, String> {
    let want = (n as u64) * (n as u64).saturating_sub(1) / 2;
    let seconds = median_pass(spawn_passes(n), want, || Ok(spawn_os_threads(n)))?;
    Ok(Report {
        seconds,
        checksum: want,
        ..Report::default()
    })
}

/// Parks `n` idle OS threads and measures what they add: resident memory, and the kernel's own
/// memory for them that can be read (their kernel stacks, machine-wide; the page tables).
pub fn threads_idle(n: usize) -> Result<Report, String> {
    let kernel_stacks = || proc_bytes("/proc/meminfo", "KernelStack");
    let page_tables = || proc_bytes("/proc/self/status", "VmPTE");
    let read = || -> Result<(u64, u64, u64), String> {
        let (rss, _) = resident().ok_or("cannot read /proc/self/status")?;
        Ok((
            rss,
            kernel_stacks().ok_or("no KernelStack in /proc/meminfo")?,
            page_tables().ok_or("no VmPTE in /proc/self/status")?,
        ))
    };
    let gate = Barrier::new(n + 1);
    let started = AtomicUsize::new(0);
    let before = read()?;
    let t = Instant::now();
    let (after, joined) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|_| s.spawn(|| idle_thread(&gate, &started)))
            .collect();
        while started.load(Ordering::Relaxed) < n {
            std::thread::yield_now();
        }
        let after = read();
        gate.wait();
        let joined = handles.into_iter().filter_map(|h| h.join().ok()).count();
        (after, joined as u64)
    });
    let seconds = t.elapsed().as_secs_f64();
    let after = after?;
    let per = |a: u64, b: u64| a.saturating_sub(b) as f64 / n as f64;
    Ok(Report {
        bytes_per_task: per(after.0, before.0),
        kernel_stack_per_task: per(after.1, before.1),
        page_tables_per_task: per(after.2, before.2),
        seconds,
        checksum: joined,
        alive_max: n as u64,
        ..Report::default()
    })
}

/// How `cpu` runs its tasks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CpuOn {
    Tokio,
    Rayon,
    Threads,
}

/// Hashes `items` items as `tasks` tasks, `rounds` each, on `workers` threads (Tokio's workers,
/// the Rayon pool's, or plain OS threads): the median of three passes after an untimed one. The
/// runtime or pool is built before the timing; the plain threads are started within it.
pub fn cpu(workers: u32, tasks: u64, items: u64, rounds: u64, on: CpuOn) -> Result<Report, String> {
    let want = hash_share(rounds, 0..items);
    let seconds = match on {
        CpuOn::Tokio => {
            let rt = measure::runtime(workers)?;
            median_pass(3, want, || {
                rt.block_on(rt.spawn(hash_on_tokio(tasks, items, rounds)))
                    .map_err(|e| e.to_string())
            })?
        }
        CpuOn::Rayon => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(workers as usize)
                .build()
                .map_err(|e| e.to_string())?;
            median_pass(3, want, || Ok(hash_on_rayon(&pool, tasks, items, rounds)))?
        }
        CpuOn::Threads => median_pass(3, want, || {
            Ok(hash_on_threads(workers, tasks, items, rounds))
        })?,
    };
    Ok(Report {
        seconds,
        checksum: want,
        ..Report::default()
    })
}

/// Parks `n` idle tasks and measures the resident memory they add.
pub fn idle(workers: u32, n: usize, kind: IdleKind) -> Result<Report, String> {
    let rt = measure::runtime(workers)?;
    let gate = Arc::new(Semaphore::new(0));
    let started = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::with_capacity(n);
    let future_bytes = match kind {
        IdleKind::Plain => std::mem::size_of_val(&idle_task(gate.clone(), started.clone())),
        IdleKind::Buffer => {
            std::mem::size_of_val(&idle_task_with_buffer(gate.clone(), started.clone()))
        }
        IdleKind::BoxedBuffer => std::mem::size_of_val(&Box::pin(idle_task_with_buffer(
            gate.clone(),
            started.clone(),
        ))),
        IdleKind::ScopedBuffer => {
            std::mem::size_of_val(&idle_task_with_scoped_buffer(gate.clone(), started.clone()))
        }
    } as u64;
    let (before, _) = resident().ok_or("cannot read /proc/self/status")?;
    let t = Instant::now();
    let _guard = rt.enter();
    for _ in 0..n {
        let (g, s) = (gate.clone(), started.clone());
        handles.push(match kind {
            IdleKind::Plain => tokio::spawn(idle_task(g, s)),
            IdleKind::Buffer => tokio::spawn(idle_task_with_buffer(g, s)),
            IdleKind::BoxedBuffer => tokio::spawn(Box::pin(idle_task_with_buffer(g, s))),
            IdleKind::ScopedBuffer => tokio::spawn(idle_task_with_scoped_buffer(g, s)),
        });
    }
    while started.load(Ordering::Relaxed) < n {
        std::thread::yield_now();
    }
    let seconds = t.elapsed().as_secs_f64();
    let (after, peak) = resident().ok_or("cannot read /proc/self/status")?;
    gate.add_permits(n);
    let parked = rt.block_on(async {
        let mut joined = 0u64;
        for h in handles {
            joined += u64::from(h.await.is_ok());
        }
        joined
    });
    Ok(Report {
        bytes_per_task: after.saturating_sub(before) as f64 / n as f64,
        peak_rss: peak,
        seconds,
        checksum: parked,
        future_bytes,
        alive_max: n as u64,
        ..Report::default()
    })
}

/// Runs `n` short tasks of `rounds` of work, their results kept as `results` says, the spawner
/// yielding every `yield_every` spawns (0: never), and reports the peak.
pub fn peak(
    workers: u32,
    n: usize,
    rounds: u64,
    results: Results,
    yield_every: usize,
) -> Result<Report, String> {
    let rt = measure::runtime(workers)?;
    let metrics = rt.handle().metrics();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut most = 0;
            while !stop.load(Ordering::Relaxed) {
                most = most.max(metrics.num_alive_tasks());
                std::thread::sleep(ch03_spawns::SAMPLE_EVERY);
            }
            most
        })
    };
    let t = Instant::now();
    let checksum = rt.block_on(async {
        // Spawned from a task on a worker, as a service would.
        let run = async move {
            match results {
                Results::Handles => spawn_keep_handles(n, rounds, yield_every).await,
                Results::Slice => spawn_into_slice(n, rounds, yield_every).await,
                Results::SliceHandlesKept => {
                    spawn_into_slice_keeping_handles(n, rounds, yield_every).await
                }
            }
        };
        tokio::spawn(run).await.expect("the spawner panicked")
    });
    let seconds = t.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let alive_max = sampler.join().map_err(|_| "the sampler panicked")? as u64;
    let (_, peak_rss) = resident().ok_or("cannot read /proc/self/status")?;
    Ok(Report {
        bytes_per_task: 0.0,
        peak_rss,
        seconds,
        checksum,
        alive_max,
        ..Report::default()
    })
}

const USAGE: &str = "usage: tasks-system|tasks-mimalloc WORKERS spawn N inside|outside|slice|slice_kept \
                     | WORKERS idle N plain|buffer|boxed|scoped \
                     | WORKERS peak N ROUNDS handles|slice|slice_kept YIELD_EVERY \
                     | WORKERS threads-spawn N | WORKERS threads-idle N \
                     | WORKERS cpu TASKS ITEMS ROUNDS tokio|rayon|threads";

/// Parses a child's arguments (after the program name) and measures.
pub fn measure(args: &[&str]) -> Option<Result<Report, String>> {
    let (workers, rest) = args.split_first()?;
    let workers: u32 = workers.parse().ok().filter(|w| *w > 0)?;
    Some(match *rest {
        ["spawn", n, from] => {
            let from = match from {
                "inside" => SpawnFrom::Inside,
                "outside" => SpawnFrom::Outside,
                "slice" => SpawnFrom::Slice,
                "slice_kept" => SpawnFrom::SliceHandlesKept,
                _ => return None,
            };
            spawn(workers, n.parse().ok()?, from)
        }
        ["idle", n, kind] => {
            let kind = match kind {
                "plain" => IdleKind::Plain,
                "buffer" => IdleKind::Buffer,
                "boxed" => IdleKind::BoxedBuffer,
                "scoped" => IdleKind::ScopedBuffer,
                _ => return None,
            };
            idle(workers, n.parse().ok()?, kind)
        }
        ["peak", n, rounds, how, every] => {
            let results = match how {
                "handles" => Results::Handles,
                "slice" => Results::Slice,
                "slice_kept" => Results::SliceHandlesKept,
                _ => return None,
            };
            peak(
                workers,
                n.parse().ok()?,
                rounds.parse().ok()?,
                results,
                every.parse().ok()?,
            )
        }
        ["threads-spawn", n] => threads_spawn(n.parse().ok().filter(|n| *n > 0)?),
        ["threads-idle", n] => threads_idle(n.parse().ok().filter(|n| *n > 0)?),
        ["cpu", tasks, items, rounds, on] => {
            let on = match on {
                "tokio" => CpuOn::Tokio,
                "rayon" => CpuOn::Rayon,
                "threads" => CpuOn::Threads,
                _ => return None,
            };
            let count = |a: &str| a.parse::<u64>().ok().filter(|n| *n > 0);
            cpu(workers, count(tasks)?, count(items)?, count(rounds)?, on)
        }
        _ => return None,
    })
}

/// The child's `main`: measures and prints one JSON line.
pub fn child_main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match measure(&args) {
        Some(Ok(report)) => println!(
            "{}",
            serde_json::to_string(&report).expect("a report serialises")
        ),
        Some(Err(e)) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        None => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_resident_memory() {
        let (rss, peak) = resident().unwrap();
        assert!(rss > 0 && peak >= rss);
    }

    #[test]
    fn idle_tasks_are_counted_and_released() {
        let r = idle(2, 1000, IdleKind::Plain).unwrap();
        assert_eq!(r.checksum, 1000, "every parked task was joined");
        let b = idle(1, 10, IdleKind::BoxedBuffer).unwrap();
        assert_eq!(b.future_bytes, std::mem::size_of::<usize>() as u64);
    }

    #[test]
    fn every_spawn_probe_checks_its_sum() {
        for from in ["inside", "outside", "slice", "slice_kept"] {
            let r = measure(&["2", "spawn", "1000", from]).unwrap().unwrap();
            assert!(r.checksum >= 1000 && r.seconds > 0.0, "{from}: {r:?}");
        }
        for how in ["handles", "slice", "slice_kept"] {
            let r = measure(&["2", "peak", "1000", "3", how, "0"])
                .unwrap()
                .unwrap();
            assert_eq!(
                r.checksum,
                (0..1000).fold(0u64, |s, i| s.wrapping_add(ch03_spawns::work(3, i))),
                "{how}"
            );
        }
    }

    #[test]
    fn thread_and_cpu_probes_check_their_sums() {
        let r = measure(&["2", "threads-spawn", "300"]).unwrap().unwrap();
        assert_eq!(r.checksum, 299 * 300 / 2);
        let idle = measure(&["2", "threads-idle", "50"]).unwrap().unwrap();
        assert_eq!(idle.checksum, 50, "every parked thread was joined");
        for on in ["tokio", "rayon", "threads"] {
            let r = measure(&["2", "cpu", "16", "2000", "5", on])
                .unwrap()
                .unwrap();
            assert_eq!(r.checksum, ch03_spawns::hash_share(5, 0..2000), "{on}");
        }
    }

    #[test]
    fn a_report_without_the_rust_fields_parses() {
        let r: Report = serde_json::from_str(r#"{"seconds":0.5,"checksum":7}"#).unwrap();
        assert_eq!((r.seconds, r.checksum, r.peak_rss), (0.5, 7, 0));
    }

    #[test]
    fn bad_arguments_are_refused() {
        for args in [
            &["spawn", "10", "inside"][..],
            &["0", "spawn", "10", "inside"],
            &["2", "spawn", "ten", "inside"],
            &["2", "spawn", "10", "sideways"],
            &["2", "peak", "10", "3", "handles"],
            &["2", "peak", "10", "3", "kept", "0"],
            &["2", "threads-spawn", "0"],
            &["2", "cpu", "256", "1000", "10", "fibers"],
            &["2", "cpu", "0", "1000", "10", "tokio"],
        ] {
            assert!(measure(args).is_none(), "{args:?}");
        }
    }
}
