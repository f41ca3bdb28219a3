//! The exercise's test: it counts the reads in flight at once instead of timing them, on a
//! current-thread runtime, where a spawned task runs only when the spawner awaits.

use ch04_fs::corpus::Corpus;
use ch04_fs::exercise::{most_in_flight, read_all, reads};

// ANCHOR: exercise_test
#[test]
fn two_to_eight_reads_in_flight() {
    let corpus = Corpus::create(&std::env::temp_dir(), 100, 4096).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let sum = rt.block_on(read_all(corpus.files.clone())).unwrap();
    assert_eq!(sum, corpus.expected, "every file is read once");
    assert_eq!(
        reads(),
        corpus.files.len(),
        "every read goes through counted_read"
    );
    let most = most_in_flight();
    assert!(
        (2..=8).contains(&most),
        "{most} reads were in flight at once: keep 2 to 8 going, no more"
    );
}
// ANCHOR_END: exercise_test
