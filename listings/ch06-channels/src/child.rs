//! One measurement in a process of its own: a fresh heap with one allocator (the
//! listing runs itself for the system allocator and the `ch06-mimalloc` binary for
//! mimalloc), pinned to its CPUs before any thread starts. It prints one JSON line.
//!
//! - `child throughput IMPL SENDERS RECEIVERS CAPACITY N WORKERS CPUS LEAST_MS`
//! - `child pingpong IMPL N WORKERS CPUS LEAST_MS`
//! - `child select IMPL CAPACITY N WORKERS CPUS LEAST_MS`
//! - `child cancel IMPL N WORKERS CPUS`
//!
//! IMPL: tokio_mpsc, tokio_batch, kanal, async_channel, flume, crossbeam. CPUS 0
//! leaves the mask alone. After an untimed warm-up pass, a cell repeats its timed
//! pass of N until it has timed at least LEAST_MS.

use crate::{
    AsyncChannel, Flume, Kanal, TokioBatch, TokioMpsc, cancelled_receives,
    ping_pong, ping_pong_crossbeam, select_two, select_two_crossbeam, throughput,
    throughput_crossbeam,
};
use measure::affinity::pin_to_cpus;
use measure::child::arg;
use serde::{Deserialize, Serialize};

/// What a child measured.
#[derive(Serialize, Deserialize, Debug, Default, Clone)]
pub struct Report {
    pub seconds: f64,
    pub messages: u64,
    pub rtt_p50_ns: f64,
    pub rtt_p99_ns: f64,
    /// The share of round trips over a microsecond.
    pub rtt_over_1us: f64,
    pub received: u64,
    pub cancelled: u64,
    pub lost: u64,
}

/// Runs `F`'s version of a workload, or crossbeam's, by implementation name.
macro_rules! by_impl {
    ($name:expr, $F:ident => $async:expr, crossbeam => $sync:expr) => {
        match $name {
            "tokio_mpsc" => {
                type $F = TokioMpsc;
                Work::Async(Box::pin($async))
            }
            "tokio_batch" => {
                type $F = TokioBatch;
                Work::Async(Box::pin($async))
            }
            "kanal" => {
                type $F = Kanal;
                Work::Async(Box::pin($async))
            }
            "async_channel" => {
                type $F = AsyncChannel;
                Work::Async(Box::pin($async))
            }
            "flume" => {
                type $F = Flume;
                Work::Async(Box::pin($async))
            }
            "crossbeam" => Work::Sync(Box::new(move || $sync)),
            other => return Err(format!("unknown implementation {other:?}")),
        }
    };
}

type Outcome = Result<Report, String>;

enum Work {
    Async(std::pin::Pin<Box<dyn std::future::Future<Output = Outcome> + Send>>),
    Sync(Box<dyn FnOnce() -> Outcome + Send>),
}

const NOTHING_MOVED: crate::Moved = crate::Moved {
    seconds: 0.0,
    messages: 0,
};

/// Adds one timed pass to the cell's total; whether the cell needs another to be
/// timed for `min_s` (then a thread's start, a first touch of memory or one
/// scheduler tick is a small part of it).
fn more(total: &mut crate::Moved, pass: crate::Moved, min_s: f64) -> bool {
    total.seconds += pass.seconds;
    total.messages += pass.messages;
    total.seconds < min_s
}

/// Round trips timed so far in a ping-pong cell.
struct Trips {
    hist: measure::stats::LatencyHistogram,
    time: std::time::Duration,
    n: u64,
}

/// Adds one pass of `n` round trips; whether the cell needs another to be timed
/// for `min_s`.
fn more_trips(
    total: &mut Trips,
    (hist, time): (measure::stats::LatencyHistogram, std::time::Duration),
    n: u64,
    min_s: f64,
) -> bool {
    total.hist.merge(&hist);
    total.time += time;
    total.n += n;
    total.time.as_secs_f64() < min_s
}

fn no_trips() -> Trips {
    Trips {
        hist: measure::stats::LatencyHistogram::new(),
        time: std::time::Duration::ZERO,
        n: 0,
    }
}

fn moved(m: crate::Moved) -> Report {
    Report {
        seconds: m.seconds,
        messages: m.messages,
        ..Report::default()
    }
}

fn rtt(t: Trips) -> Report {
    Report {
        seconds: t.time.as_secs_f64(),
        messages: t.n,
        rtt_p50_ns: t.hist.p50_ns(),
        rtt_p99_ns: t.hist.p99_ns(),
        rtt_over_1us: t.hist.share_above(std::time::Duration::from_micros(1)),
        ..Report::default()
    }
}

/// Runs a child command (the arguments after `child`); its report.
pub fn run(args: &[String]) -> Outcome {
    let kind = args.first().map(String::as_str).unwrap_or_default();
    let name = args.get(1).map(String::as_str).unwrap_or_default();
    let a = &args[2.min(args.len())..];
    let (work, workers, cpus) = match kind {
        "throughput" => {
            let (s, r, cap, n) = (
                arg::<usize>(a, 0, "senders")?,
                arg::<usize>(a, 1, "receivers")?,
                arg::<usize>(a, 2, "capacity")?,
                arg::<u64>(a, 3, "messages")?,
            );
            let min_s = arg::<f64>(a, 6, "least timed ms")? / 1e3;
            // An untimed pass of a quarter of the messages first: threads started,
            // memory touched, code and branch predictors warm.
            let warm_up = (n / 4).max(1);
            let work = by_impl!(name, F => async move {
                throughput::<F>(s, r, cap, warm_up).await?;
                let mut total = NOTHING_MOVED;
                while more(&mut total, throughput::<F>(s, r, cap, n).await?, min_s) {}
                Ok(moved(total))
            }, crossbeam => {
                throughput_crossbeam(s, r, cap, warm_up)?;
                let mut total = NOTHING_MOVED;
                while more(&mut total, throughput_crossbeam(s, r, cap, n)?, min_s) {}
                Ok(moved(total))
            });
            (
                work,
                arg::<usize>(a, 4, "workers")?,
                arg::<usize>(a, 5, "cpus")?,
            )
        }
        "pingpong" => {
            let n = arg::<u64>(a, 0, "round trips")?;
            let min_s = arg::<f64>(a, 3, "least timed ms")? / 1e3;
            let warm_up = (n / 4).max(1);
            let work = by_impl!(name, F => async move {
                ping_pong::<F>(warm_up).await?;
                let mut total = no_trips();
                while more_trips(&mut total, ping_pong::<F>(n).await?, n, min_s) {}
                Ok(rtt(total))
            }, crossbeam => {
                ping_pong_crossbeam(warm_up)?;
                let mut total = no_trips();
                while more_trips(&mut total, ping_pong_crossbeam(n)?, n, min_s) {}
                Ok(rtt(total))
            });
            (
                work,
                arg::<usize>(a, 1, "workers")?,
                arg::<usize>(a, 2, "cpus")?,
            )
        }
        "select" => {
            let (cap, n) = (
                arg::<usize>(a, 0, "capacity")?,
                arg::<u64>(a, 1, "messages")?,
            );
            let min_s = arg::<f64>(a, 4, "least timed ms")? / 1e3;
            let warm_up = (n / 4).max(1);
            let work = by_impl!(name, F => async move {
                select_two::<F>(cap, warm_up).await?;
                let mut total = NOTHING_MOVED;
                while more(&mut total, select_two::<F>(cap, n).await?, min_s) {}
                Ok(moved(total))
            }, crossbeam => {
                select_two_crossbeam(cap, warm_up)?;
                let mut total = NOTHING_MOVED;
                while more(&mut total, select_two_crossbeam(cap, n)?, min_s) {}
                Ok(moved(total))
            });
            (
                work,
                arg::<usize>(a, 2, "workers")?,
                arg::<usize>(a, 3, "cpus")?,
            )
        }
        "cancel" => {
            let n = arg::<u64>(a, 0, "messages")?;
            let work = by_impl!(name, F => async move {
                let c = tokio::spawn(cancelled_receives::<F>(n))
                    .await
                    .map_err(|e| e.to_string())??;
                Ok(Report {
                    received: c.received,
                    cancelled: c.cancelled,
                    lost: c.lost,
                    ..Report::default()
                })
            }, crossbeam => Err("crossbeam's receives are blocking calls: nothing to cancel".into()));
            (
                work,
                arg::<usize>(a, 1, "workers")?,
                arg::<usize>(a, 2, "cpus")?,
            )
        }
        other => return Err(format!("unknown child command {other:?}")),
    };
    if cpus > 0 {
        pin_to_cpus(cpus)?;
    }
    match work {
        Work::Sync(f) => f(),
        Work::Async(fut) => {
            let rt = measure::runtime(workers as u32)?;
            // Run the workload as a task on a worker, as a service's would.
            rt.block_on(async {
                tokio::spawn(fut).await.map_err(|e| e.to_string())?
            })
        }
    }
}

/// `child ...` from the command line: prints the report, or the error with exit 1.
pub fn main(args: &[String]) -> i32 {
    match run(args) {
        Ok(report) => {
            println!(
                "{}",
                serde_json::to_string(&report).expect("numbers serialise")
            );
            0
        }
        Err(e) => {
            eprintln!("child: {e}");
            1
        }
    }
}
