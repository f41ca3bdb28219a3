//! What the kernel and glibc say about this process's memory.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One reading of the process's memory, in bytes (threads: a count).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Memory {
    /// `VmRSS`: resident now, what a dashboard shows (from the same counters as `VmHWM`).
    pub rss: u64,
    /// `RssAnon`: the anonymous part of it (heaps, stacks), without the program's own file.
    pub anon: u64,
    /// `VmHWM`: the most resident at once since the last `reset_peak`.
    pub rss_peak: u64,
    /// `VmSize`: address space reserved, resident or not.
    pub virtual_size: u64,
    /// `Private_Dirty` of `smaps_rollup`: pages written by this process alone.
    pub private_dirty: u64,
    pub threads: u64,
}

/// Reads `/proc/self/status` and `/proc/self/smaps_rollup`.
pub fn memory() -> Result<Memory, String> {
    let status = read("/proc/self/status")?;
    let rollup = read("/proc/self/smaps_rollup")?;
    Ok(Memory {
        rss: kib_field(&status, "VmRSS:")?,
        anon: kib_field(&status, "RssAnon:")?,
        rss_peak: kib_field(&status, "VmHWM:")?,
        virtual_size: kib_field(&status, "VmSize:")?,
        private_dirty: kib_field(&rollup, "Private_Dirty:")?,
        threads: field(&status, "Threads:")?,
    })
}

/// Starts `VmHWM` again from the resident set now (`5` into `/proc/self/clear_refs`, Linux 4.0
/// on), so that each burst's peak is its own.
pub fn reset_peak() -> Result<(), String> {
    std::fs::write("/proc/self/clear_refs", "5")
        .map_err(|e| format!("cannot reset the peak in /proc/self/clear_refs: {e}"))
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

fn field(text: &str, name: &str) -> Result<u64, String> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {name} in the kernel's reading"))
}

fn kib_field(text: &str, name: &str) -> Result<u64, String> {
    field(text, name).map(|kib| kib * 1024)
}

/// CPU time (user and system) of every thread of this process so far, and its minor page
/// faults (a first touch of a page the kernel must then zero and map).
pub fn process_cpu_and_faults() -> (Duration, u64) {
    // SAFETY: getrusage fills the struct it is given; a zeroed rusage is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return (Duration::ZERO, 0);
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (
        tv(usage.ru_utime) + tv(usage.ru_stime),
        usage.ru_minflt as u64,
    )
}

/// One figure an allocator gives of itself, read after the last spell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Figure {
    pub name: String,
    pub unit: String,
    pub value: f64,
}

impl Figure {
    pub fn new(name: &str, unit: &str, value: f64) -> Figure {
        Figure {
            name: name.into(),
            unit: unit.into(),
            value,
        }
    }
}

/// The system allocator's own figures: glibc's arenas and the free bytes it holds; none from
/// musl's, which has no call that gives them.
pub fn system_figures() -> Result<Vec<Figure>, String> {
    if !cfg!(target_env = "gnu") {
        return Ok(Vec::new());
    }
    let g = glibc()?;
    Ok(vec![
        Figure::new("arenas", "count", g.arenas as f64),
        Figure::new("free_held", "bytes", g.free_held as f64),
    ])
}

/// What glibc's malloc says of itself: its arenas, and the free bytes it holds in them.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Glibc {
    /// Arenas (the main one and one per `<heap nr=…>` of `malloc_info`).
    pub arenas: u64,
    /// `mallinfo2().fordblks`: free bytes in the arenas' chunks and bins, kept for reuse.
    pub free_held: u64,
}

/// glibc's own statistics (`mallinfo2`, `malloc_info`), where the system allocator is glibc's.
#[cfg(target_env = "gnu")]
pub fn glibc() -> Result<Glibc, String> {
    // SAFETY: mallinfo2 takes no arguments and returns a plain struct.
    let info = unsafe { libc::mallinfo2() };
    Ok(Glibc {
        arenas: count_arenas(&malloc_info()?),
        free_held: info.fordblks as u64,
    })
}

#[cfg(not(target_env = "gnu"))]
pub fn glibc() -> Result<Glibc, String> {
    Err("this program's C library is not glibc".into())
}

/// `malloc_info(0, …)`'s XML, through a memory stream.
#[cfg(target_env = "gnu")]
fn malloc_info() -> Result<String, String> {
    let mut buf: *mut libc::c_char = std::ptr::null_mut();
    let mut len: libc::size_t = 0;
    // SAFETY: open_memstream keeps both pointers, which outlive the stream (closed below).
    let stream = unsafe { libc::open_memstream(&mut buf, &mut len) };
    if stream.is_null() {
        return Err("open_memstream failed".into());
    }
    // SAFETY: a valid stream; fclose writes `buf` and `len`, and `buf` is glibc's to free.
    unsafe {
        let ok = libc::malloc_info(0, stream) == 0;
        libc::fclose(stream);
        let text = std::ffi::CStr::from_ptr(buf).to_string_lossy().into_owned();
        libc::free(buf.cast());
        if !ok {
            return Err("malloc_info failed".into());
        }
        Ok(text)
    }
}

/// The arenas in `malloc_info`'s XML: one `<heap nr="N">` element each.
pub fn count_arenas(xml: &str) -> u64 {
    xml.matches("<heap nr=").count() as u64
}

/// `malloc_trim(0)`: glibc gives back every whole free page of every arena; how long it took.
#[cfg(target_env = "gnu")]
pub fn trim() -> Duration {
    let start = std::time::Instant::now();
    // SAFETY: malloc_trim is safe to call at any time; it locks each arena in turn.
    unsafe { libc::malloc_trim(0) };
    start.elapsed()
}

/// musl has no `malloc_trim`: `child::bursts` refuses `trim_when_quiet` there, so this is never
/// called.
#[cfg(not(target_env = "gnu"))]
pub fn trim() -> Duration {
    Duration::ZERO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_reads_plausible_figures_for_this_process() {
        let m = memory().unwrap();
        assert!(m.rss > 0 && m.anon > 0 && m.threads >= 1);
        assert!(m.rss_peak >= m.rss && m.virtual_size >= m.rss);
    }

    #[test]
    fn arenas_are_counted_from_the_heap_elements() {
        let xml = r#"<malloc version="1"><heap nr="0"><sizes></sizes></heap><heap nr="1"></heap><total type="fast"/></malloc>"#;
        assert_eq!(count_arenas(xml), 2);
    }

    #[cfg(target_env = "gnu")]
    #[test]
    fn glibc_reports_at_least_its_main_arena() {
        assert!(glibc().unwrap().arenas >= 1);
    }
}
