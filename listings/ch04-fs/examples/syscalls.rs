//! Spot it: the system calls each way of reading makes, counted by `strace -c`. Makes 1,000 files
//! of 4 KiB, reads them under strace once per variant (a child process each), prints strace's
//! summary, and removes the files.
//!
//! `cargo run -p ch04-fs --example syscalls` (needs `strace`; `apt-get install strace`)

use ch04_fs::corpus::Corpus;
use std::process::Command;

const VARIANTS: [&str; 3] = ["tokio_fs_loop", "one_spawn_blocking", "io_uring"];
// The calls every way makes once per file, then the ones that tell the ways apart.
const CALLS: [&str; 6] = [
    "openat",
    "statx",
    "close",
    "read",
    "futex",
    "io_uring_enter",
];

/// Reads every file in `dir` one way, in this process, on a two-worker runtime.
fn read(dir: &str, variant: &str) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the test files")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    let files: ch04_fs::Files = files.into();
    let rt = measure::runtime(2).expect("a runtime");
    let sum = rt.block_on(async move {
        match variant {
            "tokio_fs_loop" => ch04_fs::tokio_fs_loop(files).await,
            "one_spawn_blocking" => ch04_fs::one_spawn_blocking(files).await,
            _ => ch04_fs::io_uring_batch(files, 64).await,
        }
    });
    sum.expect("the files read");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, cmd, dir, variant] = &args[..]
        && cmd == "read"
    {
        return read(dir, variant);
    }
    let corpus = Corpus::create(&std::env::temp_dir(), 1_000, 4096).expect("the test files");
    let me = std::env::current_exe().expect("this program");
    for variant in VARIANTS {
        // ANCHOR: strace
        let out = Command::new("strace")
            .args(["-f", "-q", "-c", "-S", "calls", "-U", "name,calls"])
            .args(["-e", "trace=openat,statx,read,close,futex,io_uring_enter"])
            .arg(&me)
            .args(["read", &corpus.dir().to_string_lossy(), variant])
            .output()
            .expect("strace runs");
        // ANCHOR_END: strace
        // strace's summary, in a fixed order, with the calls it did not see as 0.
        let summary = String::from_utf8_lossy(&out.stderr);
        let count = |call: &str| {
            summary
                .lines()
                .find_map(|l| l.strip_prefix(call)?.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        let counts: Vec<String> = CALLS.iter().map(|c| format!("{c} {}", count(c))).collect();
        println!("{variant} (1000 files):");
        println!("    {}", counts[..3].join(", "));
        println!("    {}", counts[3..].join(", "));
    }
}
