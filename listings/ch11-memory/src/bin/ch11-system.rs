//! The service with the system allocator: glibc's malloc, or musl's where built for musl.

use ch11_memory::child::Allocator;
use ch11_memory::counting::Counting;
use ch11_memory::probe::system_figures;
use std::alloc::System;

#[global_allocator]
static ALLOCATOR: Counting<System> = Counting(System);

fn main() {
    ch11_memory::child::main(Allocator {
        name: "system",
        version: c_library_version(),
        figures: system_figures,
    });
}

/// glibc's version (`gnu_get_libc_version`); musl has no call that says its own.
#[cfg(target_env = "gnu")]
fn c_library_version() -> String {
    unsafe extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }
    // SAFETY: returns a static, NUL-terminated string.
    let v = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    format!("glibc {}", v.to_string_lossy())
}

#[cfg(not(target_env = "gnu"))]
fn c_library_version() -> String {
    "musl".into()
}
