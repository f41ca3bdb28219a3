//! The exercise's test: deterministic, with no clock. It counts the reads in flight at once, on
//! a current-thread runtime, where a spawned task runs only when the spawner awaits.

use ch04_fs::corpus::Corpus;
use ch04_fs::exercise::{most_in_flight, read_all};

// ANCHOR: exercise_test
#[test]
fn two_to_eight_reads_in_flight() {
    let corpus = Corpus::create(&std::env::temp_dir(), 100, 4096).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let sum = rt.block_on(read_all(corpus.files.clone())).unwrap();
    assert_eq!(sum, corpus.expected, "every file is read once");
    let most = most_in_flight();
    assert!(
        (2..=8).contains(&most),
        "{most} reads were in flight at once: keep 2 to 8 going, no more"
    );
}
// ANCHOR_END: exercise_test
