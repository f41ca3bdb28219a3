//! The write path: many small files, with and without `sync_all`, and many small records into
//! one file, buffered or not.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

/// The files `write_*` create in `dir`, one per item of `contents`.
pub fn file_names(dir: &Path, count: usize) -> Vec<PathBuf> {
    (0..count)
        .map(|i| dir.join(format!("w{i:05}.bin")))
        .collect()
}

// ANCHOR: tokio_fs_write_loop
/// `tokio::fs` file after file; with `sync`, each file is flushed to the disk before the next.
pub async fn tokio_fs_write_loop(
    paths: Vec<PathBuf>,
    contents: Vec<Vec<u8>>,
    sync: bool,
) -> io::Result<()> {
    for (path, bytes) in paths.iter().zip(&contents) {
        if sync {
            let mut file = tokio::fs::File::create(path).await?;
            file.write_all(bytes).await?;
            file.sync_all().await?;
        } else {
            tokio::fs::write(path, bytes).await?;
        }
    }
    Ok(())
}
// ANCHOR_END: tokio_fs_write_loop

// ANCHOR: std_write_batch
/// The same writes with `std::fs`, the whole batch in one `spawn_blocking`.
pub async fn std_write_batch(
    paths: Vec<PathBuf>,
    contents: Vec<Vec<u8>>,
    sync: bool,
) -> io::Result<()> {
    tokio::task::spawn_blocking(move || {
        for (path, bytes) in paths.iter().zip(&contents) {
            let mut file = std::fs::File::create(path)?;
            file.write_all(bytes)?;
            if sync {
                file.sync_all()?;
            }
        }
        Ok(())
    })
    .await
    .expect("the batch panicked")
}
// ANCHOR_END: std_write_batch

// ANCHOR: records
/// Small records into one file through `tokio::fs::File`, one `write_all` each: every write is a
/// trip to the blocking pool.
pub async fn records_unbuffered(path: PathBuf, records: Vec<u8>, size: usize) -> io::Result<()> {
    let mut file = tokio::fs::File::create(path).await?;
    for record in records.chunks(size) {
        file.write_all(record).await?;
    }
    file.flush().await
}

/// The same through `tokio::io::BufWriter`: records gather in an 8 KiB buffer, and only full
/// buffers go to the blocking pool.
pub async fn records_buffered(path: PathBuf, records: Vec<u8>, size: usize) -> io::Result<()> {
    let mut out = tokio::io::BufWriter::new(tokio::fs::File::create(path).await?);
    for record in records.chunks(size) {
        out.write_all(record).await?;
    }
    out.flush().await
}

/// `std::io::BufWriter` in one `spawn_blocking`: the records never leave the blocking thread.
pub async fn records_std_batch(path: PathBuf, records: Vec<u8>, size: usize) -> io::Result<()> {
    tokio::task::spawn_blocking(move || {
        let mut out = io::BufWriter::new(std::fs::File::create(path)?);
        for record in records.chunks(size) {
            out.write_all(record)?;
        }
        out.flush()
    })
    .await
    .expect("the batch panicked")
}
// ANCHOR_END: records

#[cfg(test)]
mod tests {
    use super::*;
    use ch04_fs::corpus::{ScratchDir, contents};

    #[test]
    fn every_write_path_writes_the_same_bytes() {
        let dir = ScratchDir::new(&std::env::temp_dir()).unwrap();
        let rt = measure::runtime(2).unwrap();
        let data: Vec<Vec<u8>> = (0..5).map(|i| contents(i, 1000)).collect();
        for (k, sync) in [(0, false), (1, true)] {
            let a = file_names(&dir.path().join(format!("a{k}")), 5);
            let b = file_names(&dir.path().join(format!("b{k}")), 5);
            std::fs::create_dir(dir.path().join(format!("a{k}"))).unwrap();
            std::fs::create_dir(dir.path().join(format!("b{k}"))).unwrap();
            rt.block_on(tokio_fs_write_loop(a.clone(), data.clone(), sync))
                .unwrap();
            rt.block_on(std_write_batch(b.clone(), data.clone(), sync))
                .unwrap();
            for i in 0..5 {
                assert_eq!(std::fs::read(&a[i]).unwrap(), data[i]);
                assert_eq!(std::fs::read(&b[i]).unwrap(), data[i]);
            }
        }
        let records = contents(9, 100 * 37);
        let paths = ["r1", "r2", "r3"].map(|n| dir.path().join(n));
        rt.block_on(records_unbuffered(paths[0].clone(), records.clone(), 100))
            .unwrap();
        rt.block_on(records_buffered(paths[1].clone(), records.clone(), 100))
            .unwrap();
        rt.block_on(records_std_batch(paths[2].clone(), records.clone(), 100))
            .unwrap();
        for p in &paths {
            assert_eq!(std::fs::read(p).unwrap(), records);
        }
    }
}
