//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::Verdict;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("small_files", "5000", "tokio_fs_loop", "us_per_file", "µs", &[40.85, 42.1, 36.02, 36.89, 40.26, 38.47, 37.53, 51.92, 52.95, 40.74, 44.39, 52.8, 37.85, 44.07, 33.8, 34.97, 32.78, 52.94, 34.23, 56.42]),
        ("small_files", "5000", "one_spawn_blocking", "us_per_file", "µs", &[12.44, 13.1, 13.01, 11.92, 12.6, 10.14, 12.04, 12.5, 13.05, 12.5, 12.42, 12.24, 11.02, 12.0, 9.15, 11.63, 12.2, 16.79, 10.5, 12.45]),
        ("small_files", "5000", "std_inline", "us_per_file", "µs", &[11.74, 11.62, 10.57, 11.63, 11.88, 9.693, 11.09, 11.61, 12.39, 11.44, 11.74, 8.847, 9.291, 9.452, 9.099, 11.56, 11.28, 12.63, 9.568, 12.47]),
        ("small_files", "5000", "std_inline", "longest_poll", "ns", &[5.861e+07, 5.802e+07, 5.278e+07, 5.809e+07, 5.928e+07, 4.831e+07, 5.534e+07, 5.792e+07, 6.182e+07, 5.71e+07, 5.854e+07, 4.415e+07, 4.637e+07, 4.718e+07, 4.543e+07, 5.776e+07, 5.63e+07, 6.283e+07, 4.777e+07, 6.219e+07]),
        ("small_files", "5000", "one_spawn_blocking", "longest_poll", "ns", &[4.818e+04, 7.346e+04, 7.301e+04, 7.559e+04, 5.223e+04, 6.021e+04, 4.802e+04, 6.636e+04, 9.036e+05, 3.919e+04, 4.237e+04, 9.153e+04, 3.248e+04, 3.791e+04, 4.323e+04, 3.591e+04, 4.075e+04, 3.766e+04, 4.472e+04, 7.951e+04]),
        ("small_files", "5000", "tokio_fs_all_at_once", "threads_max", "count", &[517.0, 347.0, 370.0, 403.0, 364.0, 517.0, 382.0, 414.0, 244.0, 517.0, 517.0, 252.0, 340.0, 420.0, 327.0, 277.0, 517.0, 517.0, 388.0, 517.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "light_p99", "ns", &[1.552e+08, 1.452e+08, 1.392e+08, 1.242e+08, 1.406e+08, 1.35e+08, 1.237e+08, 1.497e+08, 1.71e+08, 1.092e+08, 1.262e+08, 1.599e+08, 9.418e+07, 1.038e+08, 9.267e+07, 1.021e+08, 1.059e+08, 1.271e+08, 1.06e+08, 1.171e+08]),
        ("small_files", "5000", "one_spawn_blocking", "light_p99", "ns", &[5.914e+05, 1.314e+06, 1.649e+06, 1.019e+05, 1.311e+06, 1.213e+05, 2.796e+06, 9.427e+04, 1.862e+06, 1.185e+06, 5.164e+05, 3.366e+05, 9.28e+04, 2.65e+05, 1.283e+06, 5.197e+05, 2.217e+05, 2.939e+06, 7.342e+05, 1.792e+06]),
        ("small_files", "5000", "tokio_fs_all_at_once", "global_queue_max", "count", &[5238.0, 5042.0, 4976.0, 4942.0, 5072.0, 5004.0, 5041.0, 5017.0, 5072.0, 5088.0, 4991.0, 5146.0, 4999.0, 5003.0, 4939.0, 4998.0, 5007.0, 5101.0, 4980.0, 5232.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "us_per_file", "µs", &[36.14, 33.04, 32.35, 28.16, 31.73, 32.34, 27.69, 33.83, 41.66, 26.49, 30.6, 36.56, 21.84, 25.13, 21.73, 23.84, 25.04, 31.5, 24.41, 30.58]),
        ("small_files", "5000", "bounded_4", "threads_max", "count", &[24.0, 29.0, 24.0, 59.0, 25.0, 54.0, 41.0, 30.0, 35.0, 37.0, 30.0, 35.0, 34.0, 30.0, 25.0, 37.0, 20.0, 24.0, 29.0, 26.0]),
        ("small_files", "5000", "bounded_4", "us_per_file", "µs", &[21.18, 22.87, 23.01, 21.14, 21.39, 21.11, 20.44, 18.95, 32.29, 21.72, 27.8, 25.92, 17.82, 19.93, 15.78, 17.54, 22.83, 24.45, 20.81, 25.46]),
        ("small_files", "5000", "bounded_16", "us_per_file", "µs", &[22.04, 21.85, 20.88, 18.15, 22.31, 22.8, 20.66, 29.6, 28.55, 21.9, 31.04, 31.03, 17.17, 22.72, 15.8, 20.59, 19.01, 21.43, 20.94, 28.88]),
        ("small_files", "5000", "bounded_64", "us_per_file", "µs", &[22.66, 24.61, 22.85, 24.12, 25.56, 22.09, 19.68, 22.15, 30.59, 32.48, 29.2, 20.99, 20.96, 22.77, 22.71, 20.26, 21.53, 21.44, 22.15, 29.63]),
        ("file_size", "4096", "io_uring", "us_per_file", "µs", &[9.807, 10.26, 8.872, 10.58, 10.71, 11.4, 8.771, 10.82, 8.859, 10.12, 9.49, 10.33, 10.66, 11.4, 10.77, 11.3, 9.697, 9.386, 10.57, 10.24]),
        ("file_size", "4096", "one_spawn_blocking", "us_per_file", "µs", &[11.17, 11.23, 11.19, 11.91, 10.01, 9.756, 12.13, 10.78, 9.208, 11.2, 11.58, 11.71, 11.64, 11.98, 11.59, 11.71, 11.54, 11.7, 12.01, 10.95]),
        ("file_size", "1048576", "io_uring", "us_per_file", "µs", &[1674.0, 1750.0, 1722.0, 1797.0, 1853.0, 1699.0, 1608.0, 1734.0, 1775.0, 1776.0, 1590.0, 1717.0, 1850.0, 1808.0, 1826.0, 1691.0, 1668.0, 1767.0, 1747.0, 1895.0]),
        ("file_size", "1048576", "one_spawn_blocking", "us_per_file", "µs", &[814.1, 775.4, 826.4, 806.4, 802.2, 771.2, 983.5, 772.3, 792.4, 792.7, 824.8, 769.0, 815.0, 782.8, 806.3, 767.8, 811.6, 777.3, 806.8, 800.9]),
        ("file_size", "1048576", "io_uring", "page_faults_per_file", "count", &[226.0, 255.0, 248.0, 254.5, 255.0, 248.0, 254.1, 248.0, 247.0, 248.0, 231.0, 255.0, 255.0, 247.0, 255.0, 248.0, 255.0, 255.0, 248.0, 248.0]),
        ("file_size", "4096", "tokio_fs_loop", "us_per_file", "µs", &[47.14, 41.81, 35.71, 37.39, 35.56, 41.64, 35.21, 39.43, 37.31, 48.74, 36.14, 37.23, 40.13, 39.72, 38.99, 40.18, 41.14, 40.42, 41.69, 33.57]),
        ("file_size", "1048576", "tokio_fs_loop", "us_per_file", "µs", &[822.2, 850.1, 885.3, 833.1, 918.3, 856.7, 905.2, 993.4, 814.9, 1020.0, 1024.0, 848.4, 825.5, 1123.0, 849.7, 842.8, 916.5, 857.0, 827.9, 872.4]),
        ("small_records", "100", "tokio_file_unbuffered", "ns_per_record", "ns", &[2.389e+04, 2.076e+04, 2.098e+04, 1.993e+04, 1.73e+04, 1.705e+04, 1.897e+04, 1.956e+04, 1.713e+04, 2.077e+04]),
        ("small_records", "100", "tokio_bufwriter", "ns_per_record", "ns", &[571.6, 556.4, 495.8, 368.6, 389.4, 385.3, 437.7, 477.4, 382.6, 550.4]),
        ("small_records", "100", "std_bufwriter_one_spawn_blocking", "ns_per_record", "ns", &[134.1, 173.3, 166.2, 130.2, 128.1, 155.9, 118.0, 162.8, 148.1, 121.8]),
        ("small_files", "5000", "one_spawn_blocking", "storage_bytes", "B", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("small_files", "5000", "one_spawn_blocking", "read_syscalls_per_file", "count", &[2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
        ("small_files", "5000", "io_uring", "read_syscalls_per_file", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ];
    Record::sketch(
        "ch04-fs",
        "test",
        &[("record_bytes", 100.0), ("small_files", 5000.0)],
        cells,
    )
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books();
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    let rec = shaped_like_the_books();
    for c in claims().conclusions() {
        let refuted = fixtures::refuted(c, &rec).unwrap();
        let o = c.check(&refuted);
        assert_eq!(o.verdict, Verdict::Refuted, "{}: {}", c.id, o.summary());
        let not_shown = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&not_shown);
        assert_eq!(o.verdict, Verdict::NotShown, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    let rec = shaped_like_the_books();
    for c in claims().invariants() {
        let broken = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&broken);
        assert_eq!(
            (o.verdict.clone(), o.word()),
            (Verdict::Refuted, "broken"),
            "{}: {}",
            c.id,
            o.summary()
        );
    }
}
