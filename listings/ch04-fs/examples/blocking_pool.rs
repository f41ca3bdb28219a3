//! Spot it: the process's threads while a batch of small files is read with a `tokio::fs` task
//! per file, all at once, and with one `spawn_blocking`. The thread count comes from the OS
//! (`/proc/self/task`), which needs no unstable Tokio metrics.
//!
//! `cargo run -p ch04-fs --example blocking_pool`

use ch04_fs::corpus::Corpus;
use ch04_fs::probe::threads;
use std::time::{Duration, Instant};

// ANCHOR: watch_threads
/// Samples the process's thread count every `every` until `done` returns true; returns the most
/// threads seen.
fn most_threads(every: Duration, done: impl Fn() -> bool) -> u64 {
    let mut most = 0;
    while !done() {
        most = most.max(threads().unwrap_or(0));
        std::thread::sleep(every);
    }
    most
}
// ANCHOR_END: watch_threads

fn main() {
    let corpus = Corpus::create(&std::env::temp_dir(), 2_000, 4096).expect("the test files");
    for name in ["a task per file, all at once", "one spawn_blocking"] {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .expect("a runtime");
        let files: ch04_fs::Files = corpus.files.clone().into();
        let start = Instant::now();
        let read = rt.spawn(async move {
            match name {
                "one spawn_blocking" => ch04_fs::one_spawn_blocking(files).await,
                _ => ch04_fs::tokio_fs_all_at_once(files).await,
            }
        });
        let most = most_threads(Duration::from_micros(500), || read.is_finished());
        let sum = rt
            .block_on(read)
            .expect("the batch ran")
            .expect("the files read");
        corpus.check(name, sum).expect("the right bytes");
        println!(
            "{name}: {} files in {} ms, at most {most} threads in the process",
            corpus.files.len(),
            start.elapsed().as_millis()
        );
    }
}
