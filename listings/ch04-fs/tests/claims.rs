//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

// Measured values, some of which happen to lie near mathematical constants.
#[allow(clippy::approx_constant)]
fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("small_files", "5000", "tokio_fs_loop", "us_per_file", "µs", &[47.08, 53.73, 59.19, 43.94, 43.3, 52.97, 51.2, 45.54, 43.5, 40.59, 40.33, 33.89, 39.72, 45.97, 54.21, 56.17, 35.2, 40.52, 42.63, 43.48]),
        ("small_files", "5000", "one_spawn_blocking", "us_per_file", "µs", &[12.8, 13.37, 13.83, 15.66, 14.71, 12.95, 13.18, 10.02, 12.5, 10.12, 12.09, 9.852, 12.74, 13.3, 13.24, 12.55, 11.4, 11.59, 12.95, 12.2]),
        ("small_files", "5000", "std_inline", "us_per_file", "µs", &[12.24, 13.29, 12.68, 11.88, 11.6, 14.16, 12.29, 12.39, 12.29, 11.53, 11.22, 9.564, 13.92, 12.06, 12.96, 12.18, 9.657, 10.71, 12.38, 14.95]),
        ("small_files", "5000", "std_inline", "longest_poll", "ns", &[6.111e+07, 6.635e+07, 6.324e+07, 5.93e+07, 5.792e+07, 7.074e+07, 6.133e+07, 6.187e+07, 6.138e+07, 5.761e+07, 5.6e+07, 4.774e+07, 6.953e+07, 6.018e+07, 6.464e+07, 6.077e+07, 4.819e+07, 5.346e+07, 6.182e+07, 7.467e+07]),
        ("small_files", "5000", "one_spawn_blocking", "longest_poll", "ns", &[3.385e+04, 1.176e+05, 1.045e+05, 5.023e+04, 5.86e+04, 8.555e+04, 7.471e+04, 4.884e+04, 4.223e+04, 4.667e+04, 2.818e+04, 4.568e+04, 5.072e+04, 8.772e+04, 2.063e+05, 5.875e+04, 5.823e+04, 8.162e+04, 6.784e+04, 3.433e+05]),
        ("small_files", "5000", "tokio_fs_all_at_once", "threads_max", "count", &[276.0, 296.0, 268.0, 394.0, 312.0, 219.0, 355.0, 300.0, 323.0, 392.0, 517.0, 352.0, 517.0, 247.0, 435.0, 267.0, 271.0, 271.0, 381.0, 346.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "light_p99", "ns", &[1.99e+08, 1.726e+08, 1.853e+08, 1.608e+08, 1.375e+08, 1.7e+08, 1.389e+08, 1.317e+08, 1.472e+08, 1.434e+08, 1.263e+08, 1.211e+08, 1.24e+08, 1.446e+08, 1.999e+08, 1.864e+08, 1.173e+08, 1.313e+08, 1.611e+08, 1.289e+08]),
        ("small_files", "5000", "std_inline", "light_p99", "ns", &[1.178e+05, 7.649e+05, 2.844e+05, 1.283e+05, 1.516e+05, 4.289e+06, 3.136e+05, 1.033e+05, 1.885e+06, 1.127e+05, 1.138e+06, 7.347e+05, 2.599e+06, 7.88e+05, 2.349e+05, 4.111e+05, 1.521e+06, 2.875e+06, 4.321e+05, 7.341e+04]),
        ("small_files", "5000", "tokio_fs_all_at_once", "global_queue_max", "count", &[5271.0, 5076.0, 5147.0, 5071.0, 5015.0, 5088.0, 5051.0, 4999.0, 4964.0, 5036.0, 5048.0, 5016.0, 5150.0, 4958.0, 5387.0, 5218.0, 4940.0, 5005.0, 5226.0, 4948.0]),
        ("small_files", "5000", "tokio_fs_all_at_once", "us_per_file", "µs", &[46.05, 39.75, 42.61, 37.22, 33.22, 39.36, 31.8, 30.96, 35.98, 32.41, 30.15, 27.73, 30.94, 34.89, 46.5, 43.04, 27.14, 31.43, 36.25, 31.27]),
        ("small_files", "5000", "bounded_4", "threads_max", "count", &[24.0, 24.0, 26.0, 33.0, 33.0, 28.0, 61.0, 23.0, 25.0, 38.0, 38.0, 33.0, 29.0, 42.0, 38.0, 30.0, 34.0, 32.0, 22.0, 33.0]),
        ("small_files", "5000", "bounded_4", "us_per_file", "µs", &[23.96, 30.32, 28.86, 24.22, 24.65, 26.73, 26.37, 19.62, 24.43, 22.84, 23.16, 19.49, 26.93, 30.47, 27.94, 17.92, 20.17, 25.78, 22.38, 20.61]),
        ("small_files", "5000", "bounded_16", "us_per_file", "µs", &[23.32, 27.6, 30.25, 23.26, 22.28, 27.84, 28.75, 23.98, 21.46, 20.51, 20.81, 20.01, 17.8, 27.45, 31.87, 21.66, 24.14, 21.48, 23.46, 21.44]),
        ("small_files", "5000", "bounded_64", "us_per_file", "µs", &[35.01, 32.13, 35.6, 26.06, 26.83, 31.93, 21.95, 26.03, 24.4, 18.4, 18.34, 23.98, 40.41, 34.15, 36.56, 22.26, 23.02, 24.29, 22.77, 23.13]),
        ("file_size", "4096", "io_uring", "us_per_file", "µs", &[11.32, 12.16, 11.93, 12.01, 12.56, 11.2, 11.23, 11.44, 11.22, 11.73, 11.78, 11.07, 9.314, 9.869, 10.59, 11.0, 10.24, 11.27, 10.15, 11.31]),
        ("file_size", "4096", "one_spawn_blocking", "us_per_file", "µs", &[13.85, 13.18, 12.28, 12.42, 12.28, 11.56, 11.83, 12.11, 16.32, 12.37, 11.1, 12.1, 10.1, 12.24, 12.22, 12.53, 10.54, 10.61, 10.57, 13.18]),
        ("file_size", "1048576", "io_uring", "us_per_file", "µs", &[1712.0, 1823.0, 1942.0, 1997.0, 1817.0, 1897.0, 1796.0, 1746.0, 1889.0, 1860.0, 1867.0, 1945.0, 1846.0, 1922.0, 1871.0, 1862.0, 1730.0, 1731.0, 1931.0, 1803.0]),
        ("file_size", "1048576", "one_spawn_blocking", "us_per_file", "µs", &[815.7, 820.9, 801.1, 811.9, 865.0, 819.6, 854.5, 805.2, 888.1, 846.6, 799.8, 836.4, 815.8, 841.4, 879.3, 793.3, 779.2, 812.3, 820.5, 833.9]),
        ("file_size", "1048576", "io_uring", "page_faults_per_file", "count", &[255.0, 254.2, 247.8, 255.0, 255.0, 248.0, 248.0, 248.0, 255.0, 255.0, 256.0, 255.9, 248.0, 248.0, 239.0, 246.8, 248.0, 255.0, 248.0, 255.0]),
        ("file_size", "4096", "tokio_fs_loop", "us_per_file", "µs", &[57.29, 49.25, 54.33, 38.45, 38.05, 44.35, 44.22, 47.75, 52.63, 50.83, 46.11, 47.94, 47.98, 41.49, 48.9, 38.1, 39.21, 39.36, 38.65, 39.02]),
        ("file_size", "1048576", "tokio_fs_loop", "us_per_file", "µs", &[982.1, 1186.0, 1126.0, 889.8, 911.0, 872.7, 914.1, 913.7, 1128.0, 1045.0, 991.0, 922.7, 854.7, 1133.0, 987.6, 876.2, 916.2, 913.7, 931.0, 1016.0]),
        ("small_records", "100", "tokio_file_unbuffered", "ns_per_record", "ns", &[2.425e+04, 2.339e+04, 2.292e+04, 3.239e+04, 2.345e+04, 2.437e+04, 2.231e+04, 2.193e+04, 2.81e+04, 2.606e+04]),
        ("small_records", "100", "tokio_bufwriter", "ns_per_record", "ns", &[494.2, 431.8, 518.4, 485.7, 542.6, 586.3, 461.1, 491.4, 617.5, 535.2]),
        ("small_records", "100", "std_bufwriter_one_spawn_blocking", "ns_per_record", "ns", &[177.6, 143.4, 130.0, 146.3, 178.4, 177.4, 146.2, 158.1, 184.6, 185.0]),
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
    fixtures::assert_every_claim_held(&claims(), &shaped_like_the_books());
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    fixtures::assert_every_conclusion_can_fail(&claims(), &shaped_like_the_books());
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    fixtures::assert_every_invariant_breaks(&claims(), &shaped_like_the_books());
}
