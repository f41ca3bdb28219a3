//! The service with mimalloc: v3 as the workspace pins it, or v2 with the `mimalloc-v2` feature.

use ch11_memory::child::Allocator;
use ch11_memory::counting::Counting;
use ch11_memory::probe::Figure;
use mimalloc::MiMalloc;

#[global_allocator]
static ALLOCATOR: Counting<MiMalloc> = Counting(MiMalloc);

unsafe extern "C" {
    /// The linked library's version, major × 10,000 + minor × 100 + patch.
    fn mi_version() -> std::ffi::c_int;
    /// The process's times, resident set, committed memory and page faults, as mimalloc sees
    /// them.
    fn mi_process_info(
        elapsed_msecs: *mut usize,
        user_msecs: *mut usize,
        system_msecs: *mut usize,
        current_rss: *mut usize,
        peak_rss: *mut usize,
        current_commit: *mut usize,
        peak_commit: *mut usize,
        page_faults: *mut usize,
    );
}

/// The memory mimalloc has committed now: what it has not purged.
fn figures() -> Result<Vec<Figure>, String> {
    let mut v = [0usize; 8];
    let [a, b, c, d, e, f, g, h] = &mut v;
    // SAFETY: eight valid pointers, each written once.
    unsafe { mi_process_info(a, b, c, d, e, f, g, h) };
    Ok(vec![Figure::new("committed", "bytes", v[5] as f64)])
}

fn main() {
    // SAFETY: takes nothing, returns a constant.
    let v = unsafe { mi_version() };
    ch11_memory::child::main(Allocator {
        name: "mimalloc",
        version: format!("mimalloc {}.{}.{}", v / 10_000, v / 100 % 100, v % 100),
        figures,
    });
}
