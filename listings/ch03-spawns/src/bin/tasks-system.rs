//! Measures what a task costs with the system allocator (see `child.rs`).
fn main() {
    ch03_spawns::child::child_main();
}
