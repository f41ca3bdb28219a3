//! Measurements that need a process of their own: a thread budget under a CPU mask
//! or quota (which must be set before any thread starts), and a panic that may
//! abort the process. The listing runs itself as `ch05-rayon-lanes child ...` and
//! reads the one JSON line it prints.
//!
//! - `child budget CPUS CGROUP_PROCS|- TOKIO|default RAYON|default REQUESTS ITEMS
//!   ROUNDS PERMITS TICK_MS`
//! - `child panic no_handler|handler|catch_unwind REQUESTS BAD`

use ch05_rayon_lanes::budget::{
    available_parallelism, join_cgroup, pin_to_cpus, threads,
};
use ch05_rayon_lanes::panics::{PanicPolicy, burst_with_one_bad};
use ch05_rayon_lanes::{Lane, Ticking, batch, offload};
use measure::child::arg;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a budget child measured.
#[derive(Serialize, Deserialize, Debug, Default)]
pub struct BudgetReport {
    pub available_parallelism: usize,
    pub tokio_workers: usize,
    pub rayon_threads: usize,
    pub threads: u64,
    pub seconds: f64,
    pub tick_p50_ns: f64,
    pub tick_max_ns: f64,
    pub checksum: u64,
}

/// What a panic child saw (it prints nothing if the process aborted).
#[derive(Serialize, Deserialize, Debug, Default)]
pub struct PanicReport {
    pub ok: usize,
    pub failed: Vec<String>,
}

/// Runs a child command (the arguments after `child`) and returns its exit status.
pub fn main(args: &[String]) -> i32 {
    let result = match args.first().map(String::as_str) {
        Some("budget") => budget(&args[1..]).map(|r| json(&r)),
        Some("panic") => panic(&args[1..]).map(|r| json(&r)),
        _ => Err(format!("unknown child command {args:?}")),
    };
    match result {
        Ok(line) => {
            println!("{line}");
            0
        }
        Err(e) => {
            eprintln!("child: {e}");
            1
        }
    }
}

fn json(report: &impl Serialize) -> String {
    serde_json::to_string(report)
        .expect("a report of numbers and strings serialises")
}

/// `default` or a number.
fn size(args: &[String], i: usize, what: &str) -> Result<Option<usize>, String> {
    match args.get(i).map(String::as_str) {
        Some("default") => Ok(None),
        _ => arg(args, i, what).map(Some),
    }
}

fn budget(args: &[String]) -> Result<BudgetReport, String> {
    // The mask and the cgroup first, before any thread exists, so every thread
    // inherits them.
    let cpus: usize = arg(args, 0, "cpus")?;
    if cpus > 0 {
        pin_to_cpus(cpus)?;
    }
    if let Some(procs) = args.get(1).filter(|p| *p != "-") {
        join_cgroup(procs.as_ref())?;
    }
    let tokio_workers = size(args, 2, "tokio workers")?;
    let rayon_threads = size(args, 3, "rayon threads")?;
    let requests: usize = arg(args, 4, "requests")?;
    let items: usize = arg(args, 5, "items")?;
    let rounds: u64 = arg(args, 6, "rounds")?;
    let permits: usize = arg(args, 7, "permits")?;
    let tick = Duration::from_millis(arg(args, 8, "tick ms")?);

    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = tokio_workers {
        rt.worker_threads(n);
    }
    let rt = rt.enable_all().build().map_err(|e| e.to_string())?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = rayon_threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().map_err(|e| e.to_string())?;
    let rayon_threads = pool.current_num_threads();
    let lane = Lane::new(Arc::new(pool), permits, rounds);
    let work: Arc<Vec<u64>> = Arc::new(batch(items));
    let (seconds, ticks, sum, threads) = rt.block_on(async {
        let ticking = Ticking::start(tick);
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..requests {
            let lane = lane.clone();
            let job = lane.job(work.clone());
            set.spawn(async move { offload(&lane, job).await });
        }
        let mut sum = 0u64;
        while let Some(answer) = set.join_next().await {
            let answer = answer.map_err(|e| e.to_string())?;
            sum = sum.wrapping_add(answer.map_err(|e| format!("{e:?}"))?);
        }
        let seconds = start.elapsed().as_secs_f64();
        let threads = threads().unwrap_or(0);
        Ok::<_, String>((seconds, ticking.stop().await, sum, threads))
    })?;
    Ok(BudgetReport {
        available_parallelism: available_parallelism(),
        tokio_workers: rt.metrics().num_workers(),
        rayon_threads,
        threads,
        seconds,
        tick_p50_ns: ticks.p50_ns(),
        tick_max_ns: ticks.max_ns(),
        checksum: sum,
    })
}

fn panic(args: &[String]) -> Result<PanicReport, String> {
    let policy = match args.first().map(String::as_str) {
        Some("no_handler") => PanicPolicy::NoHandler,
        Some("handler") => PanicPolicy::Handler,
        Some("catch_unwind") => PanicPolicy::CatchUnwind,
        other => return Err(format!("unknown panic policy {other:?}")),
    };
    let requests: usize = arg(args, 1, "requests")?;
    let bad: usize = arg(args, 2, "bad request")?;
    let rt = measure::runtime(2)?;
    let answers = rt.block_on(burst_with_one_bad(policy, requests, bad, |_| {}));
    Ok(PanicReport {
        ok: answers.ok,
        failed: answers.failed,
    })
}
