//! The listing's child with mimalloc as the global allocator: `ch06-mimalloc child ...`
//! (see `src/child.rs`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(2).collect();
    std::process::exit(ch06_channels::child::main(&args));
}
