//! Reading a batch of files through io_uring (the `io-uring` crate, from the tokio-rs
//! organisation): files opened with `std`, reads submitted `depth` at a time and reaped in one
//! `io_uring_enter` per batch. Tokio's own io_uring support needs `--cfg tokio_unstable` for the
//! whole build, so the listing drives a ring itself, on one blocking-pool thread.

use ch04_fs::corpus::digest;
use io_uring::{IoUring, opcode, types};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::Mutex;

/// Whether this kernel lets the process set up a ring (it may be disabled by
/// `kernel.io_uring_disabled`, a seccomp filter, or an old kernel).
pub fn available() -> Result<(), String> {
    IoUring::new(2)
        .map(|_| ())
        .map_err(|e| format!("io_uring is not available here: {e}"))
}

/// Buffers that outlive a call, as a service's buffer pool does: memory the process has already
/// touched, so a read into it takes no page faults.
static REUSED: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// `read_all`, into buffers kept from one call to the next instead of fresh ones.
pub fn read_all_reusing(files: &[PathBuf], depth: usize) -> io::Result<u64> {
    let mut buffers = std::mem::take(&mut *REUSED.lock().expect("no panics here"));
    buffers.resize_with(depth, Vec::new);
    let sum = read_all_into(files, &mut buffers)?;
    *REUSED.lock().expect("no panics here") = buffers;
    Ok(sum)
}

/// Reads every file into `depth` buffers allocated for this call.
pub fn read_all(files: &[PathBuf], depth: usize) -> io::Result<u64> {
    read_all_into(files, &mut (0..depth).map(|_| Vec::new()).collect())
}

// ANCHOR: io_uring_read_all
/// Reads every file: opens as many as there are buffers, submits a read for each into a buffer
/// of its own (reused from batch to batch), waits for all, repeats.
fn read_all_into(files: &[PathBuf], buffers: &mut Vec<Vec<u8>>) -> io::Result<u64> {
    let depth = buffers.len();
    let mut ring = IoUring::new(depth as u32)?;
    let mut sum = 0u64;
    for batch in files.chunks(depth) {
        let mut open = Vec::with_capacity(batch.len());
        for (i, path) in batch.iter().enumerate() {
            let file = File::open(path)?;
            let len = file.metadata()?.len() as usize;
            let buf = &mut buffers[i];
            buf.clear();
            buf.reserve(len);
            let read = opcode::Read::new(types::Fd(file.as_raw_fd()), buf.as_mut_ptr(), len as u32)
                .offset(0)
                .build()
                .user_data(i as u64);
            // SAFETY: the file and the buffer outlive the read: every completion of this batch
            // is reaped before `open` is dropped or the buffer is touched again (and if reaping
            // fails, the buffers are leaked, never freed).
            unsafe { ring.submission().push(&read) }
                .map_err(|_| io::Error::other("the submission queue is full"))?;
            open.push((file, len));
        }
        // Every read of the batch is reaped, even after an error, before a buffer is freed.
        let (mut done, mut failed) = (0, None);
        while done < open.len() {
            if let Err(e) = ring.submit_and_wait(open.len() - done) {
                // Reads may still be in flight into these buffers: leak them rather than free.
                std::mem::forget(std::mem::take(buffers));
                return Err(e);
            }
            for completion in ring.completion() {
                let i = completion.user_data() as usize;
                match completion.result() {
                    n if n < 0 => failed = failed.or(Some(io::Error::from_raw_os_error(-n))),
                    n if n as usize != open[i].1 => {
                        failed = failed.or(Some(io::Error::other("a short read")))
                    }
                    n => {
                        // SAFETY: the kernel wrote these `n` bytes into the reserved capacity.
                        unsafe { buffers[i].set_len(n as usize) };
                        sum = sum.wrapping_add(digest(&buffers[i]));
                    }
                }
                done += 1;
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
    }
    Ok(sum)
}
// ANCHOR_END: io_uring_read_all
