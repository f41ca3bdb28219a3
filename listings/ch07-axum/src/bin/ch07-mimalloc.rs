//! The service with mimalloc as the global allocator: `ch07-mimalloc serve ...`
//! (see `src/server.rs`); the system allocator's is `ch07-axum serve`.

// ANCHOR: global_allocator
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
// ANCHOR_END: global_allocator

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("serve") {
        eprintln!("usage: ch07-mimalloc serve [--help]");
        std::process::exit(2);
    }
    std::process::exit(ch07_axum::server::main(&args));
}
