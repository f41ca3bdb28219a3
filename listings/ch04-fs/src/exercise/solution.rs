//! A solution: a stream of reads with at most eight in flight.

use ch04_fs::corpus::digest;
use ch04_fs::exercise::counted_read;
use futures_util::{StreamExt, TryStreamExt};
use std::io;
use std::path::PathBuf;

// ANCHOR: exercise_solution
/// Reads every file and sums their digests, at most 8 reads in flight.
pub async fn read_all(files: Vec<PathBuf>) -> io::Result<u64> {
    futures_util::stream::iter(files)
        .map(|file| async move { counted_read(file).await.map(|b| digest(&b)) })
        .buffer_unordered(8)
        .try_fold(0u64, |sum, d| async move { Ok(sum.wrapping_add(d)) })
        .await
}
// ANCHOR_END: exercise_solution
