// Compiled only with `--features show-compile-error`: it must fail, and the book shows why.
// ANCHOR: std_guard_across_await
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub fn spawn_visit(visits: Arc<Mutex<HashMap<u64, u64>>>, page: u64) {
    tokio::spawn(async move {
        let mut counts = visits.lock().unwrap();
        *counts.entry(page).or_default() += 1;
        tokio::time::sleep(Duration::from_millis(2)).await; // the upstream call
    });
}
// ANCHOR_END: std_guard_across_await
