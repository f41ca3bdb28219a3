//! Reading a batch of files through io_uring (the `io-uring` crate, from the tokio-rs
//! organisation): files opened with `std`, reads submitted `depth` at a time and reaped in one
//! `io_uring_enter` per batch. Tokio's own io_uring support needs `--cfg tokio_unstable` for the
//! whole build, so the listing drives a ring itself, on one blocking-pool thread.

use crate::corpus::digest;
use io_uring::{IoUring, opcode, types};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Whether this kernel lets the process set up a ring (it may be disabled by
/// `kernel.io_uring_disabled`, a seccomp filter, or an old kernel).
pub fn available() -> Result<(), String> {
    IoUring::new(2)
        .map(|_| ())
        .map_err(|e| format!("io_uring is not available here: {e}"))
}

// ANCHOR: io_uring_read_all
/// Reads every file: opens `depth` of them, submits a read for each, waits for all, repeats.
pub fn read_all(files: &[PathBuf], depth: usize) -> io::Result<u64> {
    let mut ring = IoUring::new(depth as u32)?;
    let mut sum = 0u64;
    for batch in files.chunks(depth) {
        let mut open: Vec<(File, Vec<u8>)> = batch
            .iter()
            .map(|path| {
                let file = File::open(path)?;
                let len = file.metadata()?.len() as usize;
                Ok((file, vec![0u8; len]))
            })
            .collect::<io::Result<_>>()?;
        for (i, (file, buf)) in open.iter_mut().enumerate() {
            let read = opcode::Read::new(
                types::Fd(file.as_raw_fd()),
                buf.as_mut_ptr(),
                buf.len() as u32,
            )
            .offset(0)
            .build()
            .user_data(i as u64);
            // SAFETY: the file and the buffer outlive the read: we wait for every completion
            // of this batch before `open` is dropped.
            unsafe { ring.submission().push(&read) }
                .map_err(|_| io::Error::other("the submission queue is full"))?;
        }
        let mut done = 0;
        while done < open.len() {
            ring.submit_and_wait(open.len() - done)?;
            for completion in ring.completion() {
                let (_, buf) = &open[completion.user_data() as usize];
                match completion.result() {
                    n if n < 0 => return Err(io::Error::from_raw_os_error(-n)),
                    n if n as usize != buf.len() => return Err(io::Error::other("a short read")),
                    _ => sum = sum.wrapping_add(digest(buf)),
                }
                done += 1;
            }
        }
    }
    Ok(sum)
}
// ANCHOR_END: io_uring_read_all
