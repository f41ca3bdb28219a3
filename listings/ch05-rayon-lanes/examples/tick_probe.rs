//! Spot it: a probe task that wakes every 5 ms and exports its worst lateness every
//! 100 ms, as a service would export a metric, while CPU-heavy requests are handled
//! inline and then through a Rayon lane.
//!
//! `cargo run -p ch05-rayon-lanes --example tick_probe`

use ch05_rayon_lanes::{Lane, batch, handle_inline, offload};
use std::sync::Arc;
use std::time::{Duration, Instant};

// ANCHOR: probe
/// Wakes every 5 ms and, every `window` wake-ups, exports the latest it woke in
/// that window as a metric line (here, printed).
async fn export_tick_lag(lane_name: &str, windows: u32, window: u32) {
    let period = Duration::from_millis(5);
    let mut due = tokio::time::Instant::now();
    for _ in 0..windows {
        let mut worst = Duration::ZERO;
        for _ in 0..window {
            due += period;
            tokio::time::sleep_until(due).await;
            worst = worst.max(due.elapsed());
        }
        println!(
            "tick_lag_max_ms{{lane=\"{lane_name}\"}} {:.1}",
            worst.as_secs_f64() * 1e3
        );
    }
}
// ANCHOR_END: probe

fn main() {
    let rt = measure::runtime(2).expect("a runtime");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build();
    let lane = Lane::new(Arc::new(pool.expect("a pool")), 2, 24_000);
    let work: Arc<Vec<u64>> = batch(2_000).into();
    for name in ["inline", "rayon_spawn"] {
        rt.block_on(async {
            let probe = tokio::spawn(export_tick_lag(name, 4, 20));
            let start = Instant::now();
            let mut requests = tokio::task::JoinSet::new();
            for _ in 0..48 {
                let (lane, work) = (lane.clone(), work.clone());
                requests.spawn(async move {
                    if name == "inline" {
                        handle_inline(&lane, work).await;
                    } else {
                        let job = lane.job(work);
                        if let Err(e) = offload(&lane, job).await {
                            eprintln!("a request failed: {e:?}");
                        }
                    }
                });
            }
            requests.join_all().await;
            let answered = start.elapsed();
            probe.await.expect("the probe ran");
            println!(
                "# {name}: 48 requests answered in {} ms",
                answered.as_millis()
            );
        });
    }
}
