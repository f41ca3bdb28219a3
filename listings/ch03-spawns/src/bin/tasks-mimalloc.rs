//! Measures what a task costs with mimalloc as the global allocator (see `child.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    ch03_spawns::child::child_main();
}
