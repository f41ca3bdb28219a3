//! The ways to read a batch of files that the chapter compares. Each returns the sum of the
//! files' digests, which the experiment checks.

use ch04_fs::corpus::digest;
use futures_util::{StreamExt, TryStreamExt};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// A batch of files, shared with the tasks and threads that read it.
pub type Files = Arc<[PathBuf]>;

// ANCHOR: tokio_fs_loop
/// The pitfall: `tokio::fs::read` awaited file after file. Each call is a trip to the blocking
/// pool and back.
pub async fn tokio_fs_loop(files: Files) -> io::Result<u64> {
    let mut sum = 0u64;
    for file in files.iter() {
        sum = sum.wrapping_add(digest(&tokio::fs::read(file).await?));
    }
    Ok(sum)
}
// ANCHOR_END: tokio_fs_loop

// ANCHOR: std_inline
/// Blocking reads inline in the async task: no trips, but the worker runs nothing else until
/// the whole batch is read.
pub async fn std_inline(files: Files) -> io::Result<u64> {
    let mut sum = 0u64;
    for file in files.iter() {
        sum = sum.wrapping_add(digest(&std::fs::read(file)?));
    }
    Ok(sum)
}
// ANCHOR_END: std_inline

// ANCHOR: one_spawn_blocking
/// The fix: the whole batch with blocking reads, in one trip to the blocking pool.
pub async fn one_spawn_blocking(files: Files) -> io::Result<u64> {
    tokio::task::spawn_blocking(move || {
        files.iter().try_fold(0u64, |sum, file| {
            Ok(sum.wrapping_add(digest(&std::fs::read(file)?)))
        })
    })
    .await
    .expect("the batch panicked")
}
// ANCHOR_END: one_spawn_blocking

// ANCHOR: tokio_fs_all_at_once
/// A task per file, all spawned at once: every read is queued at once, and each becomes a
/// blocking-pool job when its task first runs.
pub async fn tokio_fs_all_at_once(files: Files) -> io::Result<u64> {
    let reads: Vec<_> = files
        .iter()
        .cloned()
        .map(|file| tokio::spawn(async move { tokio::fs::read(file).await.map(|b| digest(&b)) }))
        .collect();
    let mut sum = 0u64;
    for read in reads {
        sum = sum.wrapping_add(read.await.expect("a read panicked")?);
    }
    Ok(sum)
}
// ANCHOR_END: tokio_fs_all_at_once

// ANCHOR: tokio_fs_bounded
/// `tokio::fs::read` with at most `in_flight` reads at a time, from one task.
pub async fn tokio_fs_bounded(files: Files, in_flight: usize) -> io::Result<u64> {
    futures_util::stream::iter(files.iter().cloned())
        .map(|file| async move { tokio::fs::read(file).await.map(|b| digest(&b)) })
        .buffer_unordered(in_flight)
        .try_fold(0u64, |sum, d| async move { Ok(sum.wrapping_add(d)) })
        .await
}
// ANCHOR_END: tokio_fs_bounded

/// The batch through io_uring on one blocking-pool thread (see `uring.rs`), into buffers
/// allocated for the call.
#[cfg(target_os = "linux")]
pub async fn io_uring_batch(files: Files, depth: usize) -> io::Result<u64> {
    tokio::task::spawn_blocking(move || ch04_fs::uring::read_all(&files, depth))
        .await
        .expect("the batch panicked")
}

/// `io_uring_batch` into buffers kept from call to call, memory already touched.
#[cfg(target_os = "linux")]
pub async fn io_uring_batch_reused(files: Files, depth: usize) -> io::Result<u64> {
    tokio::task::spawn_blocking(move || ch04_fs::uring::read_all_reusing(&files, depth))
        .await
        .expect("the batch panicked")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ch04_fs::corpus::Corpus;

    #[test]
    fn every_read_path_sums_the_same_digests() {
        let corpus = Corpus::create(&std::env::temp_dir(), 40, 3000).unwrap();
        let files: Files = corpus.files.clone().into();
        let rt = measure::runtime(2).unwrap();
        let runs = [
            rt.block_on(tokio_fs_loop(files.clone())),
            rt.block_on(std_inline(files.clone())),
            rt.block_on(one_spawn_blocking(files.clone())),
            rt.block_on(tokio_fs_all_at_once(files.clone())),
            rt.block_on(tokio_fs_bounded(files.clone(), 4)),
        ];
        for (i, sum) in runs.into_iter().enumerate() {
            assert!(corpus.check(&format!("path {i}"), sum.unwrap()).is_ok());
        }
        #[cfg(target_os = "linux")]
        if ch04_fs::uring::available().is_ok() {
            let sum = rt.block_on(io_uring_batch(files.clone(), 8)).unwrap();
            assert!(corpus.check("io_uring", sum).is_ok());
            // Twice: the second call reads into the first call's buffers.
            for _ in 0..2 {
                let sum = rt
                    .block_on(io_uring_batch_reused(files.clone(), 8))
                    .unwrap();
                assert!(corpus.check("io_uring_reused", sum).is_ok());
            }
        }
    }

    #[test]
    fn a_missing_file_is_an_error_on_every_path() {
        let files: Files = vec![PathBuf::from("/nonexistent/ch04/file")].into();
        let rt = measure::runtime(1).unwrap();
        assert!(rt.block_on(tokio_fs_loop(files.clone())).is_err());
        assert!(rt.block_on(one_spawn_blocking(files.clone())).is_err());
        assert!(rt.block_on(tokio_fs_bounded(files, 2)).is_err());
    }
}
