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
        ("split_work", "0.3", "spawn_per_item", "ns_per_item", "ns", &[1397.0, 1082.0, 1089.0, 1314.0, 1095.0, 889.6, 1346.0, 1115.0, 1128.0, 944.1]),
        ("split_work", "0.3", "chunked_64", "ns_per_item", "ns", &[147.1, 147.5, 151.8, 152.7, 147.3, 141.8, 149.0, 135.2, 145.5, 147.2]),
        ("split_work", "0.3", "inline", "ns_per_item", "ns", &[288.2, 295.2, 296.8, 294.9, 295.3, 291.0, 296.3, 290.8, 275.1, 293.1]),
        ("split_work", "0.3", "joinset_per_item", "ns_per_item", "ns", &[1619.0, 2093.0, 1746.0, 1645.0, 2405.0, 1849.0, 1901.0, 1469.0, 1450.0, 1038.0]),
        ("split_work", "35", "joinset_per_item", "ns_per_item", "ns", &[1.922e+04, 1.94e+04, 1.854e+04, 1.847e+04, 1.85e+04, 1.904e+04, 1.88e+04, 1.836e+04, 1.789e+04, 2.043e+04]),
        ("split_work", "35", "spawn_per_item", "ns_per_item", "ns", &[1.87e+04, 1.905e+04, 1.901e+04, 1.955e+04, 1.812e+04, 1.868e+04, 1.882e+04, 1.789e+04, 1.855e+04, 1.868e+04]),
        ("split_work", "35", "chunked_64", "ns_per_item", "ns", &[1.796e+04, 1.796e+04, 1.739e+04, 1.822e+04, 1.83e+04, 1.804e+04, 1.882e+04, 1.777e+04, 1.771e+04, 1.798e+04]),
        ("split_work", "35", "inline", "ns_per_item", "ns", &[3.55e+04, 3.501e+04, 3.525e+04, 3.569e+04, 3.454e+04, 3.485e+04, 3.514e+04, 3.472e+04, 3.41e+04, 3.497e+04]),
        ("split_work", "35", "futures_unordered", "ns_per_item", "ns", &[3.587e+04, 3.575e+04, 3.562e+04, 3.549e+04, 3.603e+04, 3.576e+04, 3.484e+04, 3.563e+04, 3.432e+04, 3.595e+04]),
        ("split_work", "3.5", "spawn_per_item", "overhead_pct", "%", &[33.89, 49.12, 51.43, 49.05, 37.77, 45.06, 37.72, 39.69, 27.41, 51.98]),
        ("split_work", "1", "spawn_per_item", "alive_max", "count", &[1.058e+05, 2.243e+05, 2.062e+05, 1.831e+05, 1.765e+05, 2.021e+05, 1.648e+05, 1.882e+05, 1.73e+05, 1.873e+05]),
        ("spawn_and_join", "10000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[2.579e+06, 3.547e+06, 4.752e+06, 1.92e+06, 3.422e+06, 3.494e+06, 3.679e+06, 3.949e+06, 3.517e+06, 3.52e+06]),
        ("spawn_and_join", "10000", "inside", "tasks_per_s", "tasks/s", &[1.109e+06, 1.022e+06, 9.612e+05, 7.576e+05, 9.39e+05, 9.686e+05, 1.041e+06, 9.432e+05, 1.024e+06, 9.796e+05]),
        ("spawn_and_join", "1000000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[3.196e+06, 3.403e+06, 3.208e+06, 3.439e+06, 3.947e+06, 2.284e+06, 3.467e+06, 3.254e+06, 2.096e+06, 4.2e+06]),
        ("spawn_and_join", "1000000", "inside", "tasks_per_s", "tasks/s", &[1.178e+06, 1.216e+06, 1.08e+06, 1.14e+06, 1.139e+06, 9.692e+05, 1.133e+06, 1.042e+06, 1.312e+06, 1.041e+06]),
        ("spawn_and_join", "10000", "handles_dropped_mimalloc", "tasks_per_s", "tasks/s", &[3.699e+06, 3.687e+06, 3.807e+06, 3.731e+06, 3.649e+06, 3.713e+06, 4.027e+06, 3.758e+06, 3.479e+06, 3.379e+06]),
        ("spawn_and_join", "1000000", "handles_dropped", "tasks_per_s", "tasks/s", &[7.56e+05, 8.424e+05, 6.898e+05, 7.902e+05, 6.408e+05, 7.868e+05, 7.011e+05, 6.456e+05, 6.88e+05, 8.767e+05]),
        ("idle_memory", "200000", "mimalloc", "bytes_per_task", "B", &[274.0, 274.7, 274.4, 274.3, 274.4, 274.3, 274.4, 274.6, 274.2, 274.6]),
        ("idle_memory", "200000", "system", "bytes_per_task", "B", &[457.2, 457.6, 457.4, 457.4, 457.1, 457.2, 457.2, 457.5, 457.1, 457.1]),
        ("future_size", "20000", "scoped", "bytes_per_task", "B", &[473.7, 474.7, 476.0, 470.6, 472.1, 473.9, 471.9, 470.0, 469.8, 473.5]),
        ("future_size", "20000", "buffer", "bytes_per_task", "B", &[8607.0, 8607.0, 8603.0, 8611.0, 8603.0, 8610.0, 8607.0, 8607.0, 8607.0, 8607.0]),
        ("peak_memory", "paced", "handles_kept", "peak_rss", "B", &[3.26e+08, 3.26e+08, 3.261e+08, 3.259e+08, 3.26e+08, 3.261e+08, 3.26e+08, 3.26e+08, 3.259e+08, 3.261e+08]),
        ("peak_memory", "paced", "handles_dropped", "peak_rss", "B", &[1.112e+07, 1.117e+07, 1.098e+07, 1.109e+07, 1.103e+07, 1.114e+07, 1.094e+07, 1.098e+07, 1.095e+07, 1.117e+07]),
        ("peak_memory", "paced", "handles_kept_mimalloc", "peak_rss", "B", &[1.438e+08, 1.44e+08, 1.439e+08, 1.438e+08, 1.439e+08, 1.437e+08, 1.439e+08, 1.439e+08, 1.439e+08, 1.438e+08]),
        ("peak_memory", "paced", "handles_dropped_mimalloc", "peak_rss", "B", &[1.602e+07, 1.59e+07, 1.581e+07, 1.601e+07, 1.587e+07, 1.598e+07, 1.597e+07, 1.598e+07, 1.6e+07, 1.597e+07]),
        ("peak_memory", "tight", "handles_kept", "peak_rss", "B", &[3.259e+08, 3.259e+08, 3.26e+08, 3.26e+08, 3.261e+08, 3.262e+08, 3.261e+08, 3.261e+08, 3.26e+08, 3.26e+08]),
        ("peak_memory", "tight", "handles_dropped", "peak_rss", "B", &[3.038e+08, 3.092e+08, 3.11e+08, 3.107e+08, 3.009e+08, 3.036e+08, 3.121e+08, 3.125e+08, 3.157e+08, 2.958e+08]),
        ("peak_memory", "tight", "handles_dropped", "alive_max", "count", &[9.304e+05, 9.455e+05, 9.53e+05, 9.515e+05, 9.209e+05, 9.289e+05, 9.562e+05, 9.574e+05, 9.678e+05, 9.042e+05]),
        ("peak_memory", "tight", "handles_kept", "alive_max", "count", &[7766.0, 6382.0, 1632.0, 6288.0, 3824.0, 2174.0, 1484.0, 4929.0, 1562.0, 738.0]),
        ("peak_memory", "tight", "slice_handles_kept", "alive_max", "count", &[2108.0, 1536.0, 4330.0, 1818.0, 4448.0, 2214.0, 7829.0, 2715.0, 5293.0, 1588.0]),
        ("peak_memory", "paced", "slice_handles_kept", "peak_rss", "B", &[3.34e+08, 3.339e+08, 3.339e+08, 3.34e+08, 3.342e+08, 3.339e+08, 3.34e+08, 3.341e+08, 3.34e+08, 3.339e+08]),
        ("peak_memory", "tight", "handles_dropped_mimalloc", "peak_rss", "B", &[4.957e+07, 2.847e+07, 3.903e+07, 7.052e+07, 4.534e+07, 5.992e+07, 5.377e+07, 5.582e+07, 5.787e+07, 5.145e+07]),
        ("future_size", "20000", "buffer", "future_bytes", "B", &[8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0]),
        ("future_size", "20000", "boxed", "bytes_per_task", "B", &[8601.0, 8599.0, 8598.0, 8601.0, 8602.0, 8599.0, 8601.0, 8600.0, 8601.0, 8602.0]),
    ];
    Record::sketch(
        "ch03-spawns",
        "test",
        &[("future_tasks", 20000.0), ("idle_tasks", 2e+05)],
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

#[test]
fn a_quick_run_reads_its_own_task_counts() {
    // Quick runs park fewer tasks: the memory claims follow the run's parameters.
    let mut rec = shaped_like_the_books();
    let count = |rec: &Record, name: &str| rec.params[name].to_string();
    let (idle, future) = (count(&rec, "idle_tasks"), count(&rec, "future_tasks"));
    for s in rec.series.iter_mut() {
        if s.case == idle {
            s.case = "20000".into();
        } else if s.case == future {
            s.case = "2000".into();
        }
    }
    rec.params.insert("idle_tasks".into(), 20_000.into());
    rec.params.insert("future_tasks".into(), 2_000.into());
    for id in ["mimalloc-smaller-idle-task", "buffer-lives-in-the-future"] {
        let o = claims().get(id).unwrap().check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{id}: {}", o.summary());
    }
}
