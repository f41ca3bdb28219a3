//! What a request does with memory: it reads a body of tens of kilobytes, splits it into a few
//! hundred small records, holds them while it awaits an upstream, hands them to the blocking pool
//! for a short blocking call (where they are freed, on another thread than the one that allocated
//! them), and one request in `keep_every` leaves a small entry in a cache that outlives it.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

/// The request's shape, the same in every variant.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Work {
    /// The smallest body; bodies are 1 to 7 times this, by request id (all below glibc's
    /// 128 KiB mmap threshold at the default 16 KiB, so they come from the heaps).
    pub body_bytes: usize,
    /// The records' mean length (they vary by a quarter either side).
    pub record_bytes: usize,
    /// How long the request awaits its upstream with its records held.
    pub hold_ms: u64,
    /// How long the blocking call takes, on the blocking pool.
    pub blocking_us: u64,
    /// One request in this many leaves an entry in the cache.
    pub keep_every: u64,
    /// The cache's size: beyond it the oldest entry is dropped.
    pub cache_entries: usize,
}

/// Entries that outlive their requests: a session cache, bounded.
#[derive(Default)]
pub struct Cache {
    entries: Mutex<VecDeque<String>>,
}

impl Cache {
    fn keep(&self, entry: String, cap: usize) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() == cap {
            entries.pop_front();
        }
        entries.push_back(entry);
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

// ANCHOR: request
/// One request; returns its digest, which `expected_digest` computes without the service.
pub async fn handle(id: u64, w: Work, cache: &'static Cache) -> u64 {
    let records = split(&body(id, w.body_bytes), w.record_bytes);
    // Awaiting an upstream: the records stay allocated meanwhile, as every request's do.
    tokio::time::sleep(Duration::from_millis(w.hold_ms)).await;
    let (digest, kept) = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_micros(w.blocking_us));
        let kept = id.is_multiple_of(w.keep_every).then(|| records[0].clone());
        (digest(&records), kept)
        // `records` is freed here, on a blocking-pool thread.
    })
    .await
    .expect("the blocking call does not panic");
    if let Some(entry) = kept {
        cache.keep(entry, w.cache_entries);
    }
    digest
}
// ANCHOR_END: request

/// The body of request `id`: between 1 and 7 times `base` bytes of lowercase letters,
/// deterministic.
pub fn body(id: u64, base: usize) -> Vec<u8> {
    let len = base * (1 + (id % 7) as usize);
    let mut state = id.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut body = Vec::with_capacity(len);
    while body.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        body.extend(state.to_le_bytes().map(|b| b'a' + (b & 15)));
    }
    body.truncate(len);
    body
}

/// The body as records of `mean` bytes, a quarter shorter or longer by position: a few hundred
/// small allocations of mixed sizes per request.
pub fn split(body: &[u8], mean: usize) -> Vec<String> {
    let mut records = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let len = (mean * (3 + records.len() % 3) / 4).clamp(1, rest.len());
        let (record, tail) = rest.split_at(len);
        records.push(String::from_utf8(record.to_vec()).expect("the body is ASCII"));
        rest = tail;
    }
    records
}

/// Every record's length and its first and last bytes, mixed in order: cheap beside the
/// allocations, and wrong if a record is.
pub fn digest(records: &[String]) -> u64 {
    records.iter().fold(0xcbf2_9ce4_8422_2325, |h, r| {
        let b = r.as_bytes();
        let word = (r.len() as u64) << 16 | u64::from(b[0]) << 8 | u64::from(b[b.len() - 1]);
        (h ^ word).wrapping_mul(0x100_0000_01b3)
    })
}

/// What `handle(id, w, _)` returns, computed here.
pub fn expected_digest(id: u64, w: &Work) -> u64 {
    digest(&split(&body(id, w.body_bytes), w.record_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_cover_the_body_in_order_and_vary_in_length() {
        let b = body(3, 1024);
        assert_eq!(b.len(), 4 * 1024);
        let records = split(&b, 256);
        assert_eq!(records.concat().as_bytes(), &b[..]);
        let lens: std::collections::BTreeSet<usize> = records.iter().map(String::len).collect();
        assert!(lens.contains(&192) && lens.contains(&256) && lens.contains(&320));
    }

    #[test]
    fn the_cache_keeps_at_most_its_size_dropping_the_oldest() {
        let cache = Cache::default();
        for i in 0..5 {
            cache.keep(i.to_string(), 3);
        }
        let entries = cache.entries.lock().unwrap();
        assert_eq!(entries.iter().collect::<Vec<_>>(), ["2", "3", "4"]);
    }
}
