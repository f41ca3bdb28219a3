//! The service with jemalloc (tikv-jemallocator, built with its statistics; options from
//! `_RJEM_MALLOC_CONF`).

use ch11_memory::child::Allocator;
use ch11_memory::counting::Counting;
use ch11_memory::probe::Figure;
use std::ffi::{CStr, c_char, c_int, c_void};
use tikv_jemallocator::Jemalloc;

#[global_allocator]
static ALLOCATOR: Counting<Jemalloc> = Counting(Jemalloc);

unsafe extern "C" {
    /// jemalloc's control interface, under tikv-jemalloc-sys's `_rjem_` prefix.
    fn _rjem_mallctl(
        name: *const c_char,
        old: *mut c_void,
        old_len: *mut usize,
        new: *mut c_void,
        new_len: usize,
    ) -> c_int;
}

/// Reads the jemalloc setting or statistic `name` as a `T`.
fn read<T: Copy>(name: &CStr, zero: T) -> Result<T, String> {
    let (mut value, mut len) = (zero, size_of::<T>());
    // SAFETY: `value` has room for the `len` bytes jemalloc writes for a value of type `T`.
    let rc = unsafe {
        _rjem_mallctl(
            name.as_ptr(),
            (&raw mut value).cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return Err(format!("mallctl {name:?} failed ({rc})"));
    }
    Ok(value)
}

/// jemalloc's own figures, after refreshing its statistics: what it has resident, its dirty
/// pages not yet purged, and the pages it has purged so far (every arena together).
fn figures() -> Result<Vec<Figure>, String> {
    let mut epoch = 1u64;
    let mut len = size_of::<u64>();
    // SAFETY: writing "epoch" refreshes the statistics; both pointers are valid for a u64.
    let rc = unsafe {
        _rjem_mallctl(
            c"epoch".as_ptr(),
            (&raw mut epoch).cast(),
            &mut len,
            (&raw mut epoch).cast(),
            size_of::<u64>(),
        )
    };
    if rc != 0 {
        return Err(format!("mallctl \"epoch\" failed ({rc})"));
    }
    let page = read(c"arenas.page", 0usize)? as f64;
    // 4096 is MALLCTL_ARENAS_ALL: every arena together.
    let dirty = read(c"stats.arenas.4096.pdirty", 0usize)? as f64;
    let purged = read(c"stats.arenas.4096.dirty_purged", 0u64)? as f64;
    Ok(vec![
        Figure::new(
            "allocator_resident",
            "bytes",
            read(c"stats.resident", 0usize)? as f64,
        ),
        Figure::new("dirty", "bytes", dirty * page),
        Figure::new("purged", "bytes", purged * page),
    ])
}

fn main() {
    let settings = || -> Result<String, String> {
        // SAFETY: jemalloc's version is a static, NUL-terminated string.
        let version = unsafe { CStr::from_ptr(read(c"version", std::ptr::null::<c_char>())?) };
        Ok(format!(
            "jemalloc {} (background_thread:{}, dirty_decay_ms:{}, muzzy_decay_ms:{})",
            version.to_string_lossy(),
            read(c"opt.background_thread", false)?,
            read(c"opt.dirty_decay_ms", 0isize)?,
            read(c"opt.muzzy_decay_ms", 0isize)?,
        ))
    };
    let version = settings().unwrap_or_else(|e| {
        eprintln!("ch11-jemalloc: {e}");
        std::process::exit(2);
    });
    ch11_memory::child::main(Allocator {
        name: "jemalloc",
        version,
        figures,
    });
}
