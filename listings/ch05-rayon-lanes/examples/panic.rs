//! A panic inside a Rayon job, three ways: `no-handler` (Rayon's default: the
//! process aborts), `handler` (`ThreadPoolBuilder::panic_handler`: the request
//! fails, the process lives) and `catch-unwind` (the job catches it and the caller
//! gets an error naming the request).
//!
//! `cargo run -p ch05-rayon-lanes --example panic -- no-handler`

use ch05_rayon_lanes::panics::{PanicPolicy, burst_with_one_bad};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let policy = match std::env::args().nth(1).as_deref() {
        Some("no-handler") => PanicPolicy::NoHandler,
        Some("handler") => PanicPolicy::Handler,
        Some("catch-unwind") => PanicPolicy::CatchUnwind,
        _ => {
            eprintln!("usage: panic no-handler|handler|catch-unwind");
            std::process::exit(2);
        }
    };
    // Four requests; the third carries an empty batch, and its job indexes it.
    let answers = burst_with_one_bad(policy, 4, 2, |answer| {
        if let Ok(sum) = answer {
            println!("answer: {sum}");
        }
    })
    .await;
    println!("{} answered; the process lives", answers.ok);
    for failure in answers.failed {
        println!("{failure}");
    }
}
