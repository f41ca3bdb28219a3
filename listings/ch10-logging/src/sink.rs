//! Where the service's standard output goes: a file, `/dev/null`, or a pipe read by a collector
//! that reads at most `bytes_per_s`, as a log shipper that has fallen behind.

use std::fs::File;
use std::io::{PipeReader, Read};
use std::path::PathBuf;
use std::process::Stdio;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

measure::variants! {
    pub enum Sink for "writers" {
        File = "file",
        DevNull = "dev_null",
        SlowCollector = "slow_collector",
    }
}

/// A sink made ready for one service process: what counts the lines that reach it.
pub enum Prepared {
    File(PathBuf),
    Nothing,
    Collector(JoinHandle<std::io::Result<Arrived>>),
}

impl Prepared {
    /// A sink of this kind, and the service's standard output into it; a file goes in `dir`, and
    /// the collector reads at most `bytes_per_s`.
    pub fn new(
        sink: Sink,
        dir: &std::path::Path,
        bytes_per_s: u64,
    ) -> Result<(Stdio, Prepared), String> {
        Ok(match sink {
            Sink::File => {
                let path = dir.join("service.log");
                let file = File::create(&path)
                    .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
                (file.into(), Prepared::File(path))
            }
            Sink::DevNull => {
                let null = File::options()
                    .write(true)
                    .open("/dev/null")
                    .map_err(|e| format!("cannot open /dev/null: {e}"))?;
                (null.into(), Prepared::Nothing)
            }
            Sink::SlowCollector => {
                let (reader, writer) =
                    std::io::pipe().map_err(|e| format!("cannot make a pipe: {e}"))?;
                let collector = std::thread::Builder::new()
                    .name("slow-collector".into())
                    .spawn(move || collect_slowly(reader, bytes_per_s))
                    .map_err(|e| format!("cannot start the collector: {e}"))?;
                (writer.into(), Prepared::Collector(collector))
            }
        })
    }

    /// The lines and bytes that reached the sink, once the service has exited; `None` for
    /// `/dev/null`.
    pub fn arrived(self) -> Result<Option<Arrived>, String> {
        match self {
            Prepared::File(path) => {
                let text = std::fs::read(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                let mut arrived = Arrived::default();
                arrived.add(&text);
                Ok(Some(arrived))
            }
            Prepared::Nothing => Ok(None),
            Prepared::Collector(collector) => collector
                .join()
                .map_err(|_| "the collector panicked".to_string())?
                .map(Some)
                .map_err(|e| format!("the collector: {e}")),
        }
    }
}

/// What reached a sink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrived {
    pub lines: u64,
    pub bytes: u64,
}

impl Arrived {
    fn add(&mut self, chunk: &[u8]) {
        self.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        self.bytes += chunk.len() as u64;
    }
}

// ANCHOR: slow_collector
/// Reads the pipe until the service closes it, never faster than `bytes_per_s`.
pub fn collect_slowly(mut pipe: PipeReader, bytes_per_s: u64) -> std::io::Result<Arrived> {
    let (mut start, mut arrived) = (None, Arrived::default());
    let mut chunk = [0u8; 4096];
    loop {
        let n = pipe.read(&mut chunk)?;
        if n == 0 {
            return Ok(arrived);
        }
        // The rate counts from the first line, not from before the service started.
        let start = *start.get_or_insert_with(Instant::now);
        arrived.add(&chunk[..n]);
        // Ahead of the rate for this many bytes: wait until the rate allows them.
        let due = Duration::from_secs_f64(arrived.bytes as f64 / bytes_per_s as f64);
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
    }
}
// ANCHOR_END: slow_collector
