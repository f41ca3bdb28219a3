//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

/// 5,000 small files and 100-byte records, three repetitions; `all_at_once_p99` is the light
/// requests' p99 (ns) while a task per file reads the batch.
fn shaped_like_the_books(all_at_once_p99: [f64; 3]) -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("file_size", "1048576", "io_uring", "page_faults_per_file", "count", &[253.4, 248.0, 255.0]),
        ("file_size", "1048576", "io_uring", "us_per_file", "µs", &[1158.0, 1135.0, 1170.0]),
        ("file_size", "1048576", "one_spawn_blocking", "us_per_file", "µs", &[575.6, 584.0, 570.2]),
        ("file_size", "1048576", "tokio_fs_loop", "us_per_file", "µs", &[723.4, 674.1, 700.3]),
        ("file_size", "4096", "io_uring", "us_per_file", "µs", &[6.959, 6.143, 6.745]),
        ("file_size", "4096", "one_spawn_blocking", "us_per_file", "µs", &[7.693, 6.946, 7.248]),
        ("file_size", "4096", "tokio_fs_loop", "us_per_file", "µs", &[33.8, 36.35, 36.23]),
        ("small_files", "5000", "bounded_16", "us_per_file", "µs", &[19.1, 15.82, 14.87]),
        ("small_files", "5000", "bounded_4", "threads_max", "count", &[30.0, 31.0, 30.0]),
        ("small_files", "5000", "bounded_4", "us_per_file", "µs", &[22.79, 20.36, 16.03]),
        ("small_files", "5000", "bounded_64", "us_per_file", "µs", &[31.71, 19.27, 12.95]),
        ("small_files", "5000", "io_uring", "read_syscalls_per_file", "count", &[0.0, 0.0, 0.0]),
        ("small_files", "5000", "one_spawn_blocking", "light_p99", "ns", &[359200.0, 295400.0, 1548000.0]),
        ("small_files", "5000", "one_spawn_blocking", "longest_poll", "ns", &[32060.0, 29330.0, 36140.0]),
        ("small_files", "5000", "one_spawn_blocking", "read_syscalls_per_file", "count", &[2.0, 2.0, 2.0]),
        ("small_files", "5000", "one_spawn_blocking", "storage_bytes", "B", &[0.0, 0.0, 0.0]),
        ("small_files", "5000", "one_spawn_blocking", "us_per_file", "µs", &[9.209, 7.999, 8.004]),
        ("small_files", "5000", "std_inline", "longest_poll", "ns", &[43810000.0, 34750000.0, 37590000.0]),
        ("small_files", "5000", "std_inline", "us_per_file", "µs", &[8.772, 6.965, 7.533]),
        ("small_files", "5000", "tokio_fs_all_at_once", "global_queue_max", "count", &[5030.0, 4942.0, 4899.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "light_p99", "ns", &all_at_once_p99),
        ("small_files", "5000", "tokio_fs_all_at_once", "threads_max", "count", &[380.0, 426.0, 517.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "us_per_file", "µs", &[26.62, 21.12, 14.83]),
        ("small_files", "5000", "tokio_fs_loop", "us_per_file", "µs", &[56.01, 37.55, 39.96]),
        ("small_records", "100", "std_bufwriter_one_spawn_blocking", "ns_per_record", "ns", &[121.7, 123.9, 96.5]),
        ("small_records", "100", "tokio_bufwriter", "ns_per_record", "ns", &[544.9, 653.7, 643.1]),
        ("small_records", "100", "tokio_file_unbuffered", "ns_per_record", "ns", &[32570.0, 30890.0, 32920.0]),
    ];
    let params = [("small_files", 5000.0), ("record_bytes", 100.0)];
    Record::sketch("ch04-fs", "test", &params, cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books([80e6, 81e6, 79e6]);
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_neighbours_claim_fails_when_a_task_per_file_leaves_them_alone() {
    // If the light requests fared as well beside a task per file as beside one batch.
    let rec = shaped_like_the_books([300e3, 400e3, 350e3]);
    let o = claims()
        .get("all-at-once-hurts-neighbours")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
}
