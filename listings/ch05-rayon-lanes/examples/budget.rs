//! An explicit thread budget for both lanes, from `CPU_BUDGET` (the CPUs a
//! deployment asked for) or else from what `available_parallelism()` reports, which
//! follows the affinity mask and the cgroup CPU quota.
//!
//! `taskset -c 0 cargo run -p ch05-rayon-lanes --example budget`

use ch05_rayon_lanes::budget::{available_parallelism, host_cpus, threads};

// ANCHOR: budget
/// Rayon gets the whole budget; Tokio one worker, enough for a service whose
/// tasks mostly wait.
fn build_lanes(cpus: usize) -> (rayon::ThreadPool, tokio::runtime::Runtime) {
    let rayon = rayon::ThreadPoolBuilder::new()
        .num_threads(cpus)
        .thread_name(|i| format!("rayon-{i}"))
        .build()
        .expect("a pool of this size can start");
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime can start");
    (rayon, tokio)
}
// ANCHOR_END: budget

fn main() {
    let budget = match std::env::var("CPU_BUDGET") {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("CPU_BUDGET must be a number of CPUs, not {v:?}");
            std::process::exit(2)
        }),
        Err(_) => available_parallelism(),
    };
    println!(
        "this machine: {} CPUs online; available_parallelism: {}",
        host_cpus(),
        available_parallelism()
    );
    let (rayon, tokio) = build_lanes(budget);
    println!(
        "budget {budget}: rayon threads {}, tokio workers {}, threads in the process {}",
        rayon.current_num_threads(),
        tokio.metrics().num_workers(),
        threads().unwrap_or(0)
    );
}
