//! A `std::sync::MutexGuard` held across an `.await` compiles wherever the future need not be
//! `Send`: here two tasks on a `LocalSet` of a current-thread runtime. The first takes the lock
//! and awaits an upstream call; the second asks for the lock and blocks the only thread, so the
//! first can never be polled again to release it. A watchdog reports the deadlock and exits.
//!
//! `cargo run -p ch02-mutexes --example current_thread_deadlock`

use std::collections::HashMap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

// ANCHOR: local_deadlock
/// Counts a visit, then calls upstream with the guard still held: no `Send` needed on a
/// `LocalSet`, so the compiler does not object.
#[allow(clippy::await_holding_lock)] // the deadlock this example exists to show
async fn visit(visits: Arc<Mutex<HashMap<u64, u64>>>, page: u64, log: mpsc::Sender<String>) {
    let _ = log.send(format!("visit {page}: asks for the lock"));
    let mut counts = visits.lock().expect("not poisoned");
    let _ = log.send(format!("visit {page}: holds the lock, calls upstream"));
    *counts.entry(page).or_default() += 1;
    tokio::time::sleep(Duration::from_millis(2)).await; // the upstream call
    let _ = log.send(format!("visit {page}: done"));
}

fn serve_two_visits(log: mpsc::Sender<String>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let visits = Arc::new(Mutex::new(HashMap::new()));
    let local = tokio::task::LocalSet::new();
    local.spawn_local(visit(visits.clone(), 1, log.clone()));
    local.spawn_local(visit(visits, 2, log.clone()));
    rt.block_on(local);
    let _ = log.send("both visits done".to_string());
}
// ANCHOR_END: local_deadlock

fn main() {
    let (log, lines) = mpsc::channel();
    std::thread::spawn(move || serve_two_visits(log));
    // The watchdog: print what happened; if nothing happens for a second, the thread is stuck.
    loop {
        match lines.recv_timeout(Duration::from_secs(1)) {
            Ok(line) => println!("{line}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                println!("deadlock: visit 2 blocks the only thread in Mutex::lock;");
                println!("visit 1 is never polled again to drop its guard");
                std::process::exit(0);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}
