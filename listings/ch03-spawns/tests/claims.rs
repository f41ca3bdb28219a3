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
        ("split_work", "0.3", "spawn_per_item", "ns_per_item", "ns", &[1227.0, 1083.0, 1320.0, 1042.0, 1301.0, 1540.0, 1246.0, 1321.0, 1189.0, 1162.0]),
        ("split_work", "0.3", "chunked_64", "ns_per_item", "ns", &[153.1, 152.8, 156.2, 151.1, 155.8, 151.6, 154.1, 144.5, 157.6, 147.7]),
        ("split_work", "0.3", "inline", "ns_per_item", "ns", &[293.6, 293.8, 299.6, 310.6, 303.8, 307.7, 291.9, 301.0, 286.6, 276.6]),
        ("split_work", "0.3", "joinset_per_item", "ns_per_item", "ns", &[1566.0, 1644.0, 1836.0, 1668.0, 1929.0, 1875.0, 1999.0, 1432.0, 1965.0, 1486.0]),
        ("split_work", "35", "joinset_per_item", "ns_per_item", "ns", &[2.034e+04, 1.871e+04, 1.874e+04, 1.96e+04, 1.908e+04, 2.043e+04, 2.002e+04, 1.938e+04, 2.422e+04, 1.898e+04]),
        ("split_work", "35", "spawn_per_item", "ns_per_item", "ns", &[1.94e+04, 1.953e+04, 1.963e+04, 1.957e+04, 1.993e+04, 2.06e+04, 1.918e+04, 1.909e+04, 1.8e+04, 1.81e+04]),
        ("split_work", "35", "chunked_64", "ns_per_item", "ns", &[1.922e+04, 1.878e+04, 1.838e+04, 1.821e+04, 1.871e+04, 1.845e+04, 1.807e+04, 1.932e+04, 1.784e+04, 1.798e+04]),
        ("split_work", "35", "inline", "ns_per_item", "ns", &[3.671e+04, 3.583e+04, 3.734e+04, 3.565e+04, 3.653e+04, 3.602e+04, 3.583e+04, 3.51e+04, 3.46e+04, 3.584e+04]),
        ("split_work", "35", "futures_unordered", "ns_per_item", "ns", &[3.699e+04, 3.709e+04, 3.881e+04, 3.678e+04, 3.596e+04, 3.592e+04, 3.515e+04, 3.532e+04, 3.522e+04, 3.626e+04]),
        ("split_work", "3.5", "spawn_per_item", "overhead_pct", "%", &[42.39, 55.02, 43.87, 47.02, 47.87, 36.53, 35.58, 52.81, 44.31, 44.93]),
        ("split_work", "1", "spawn_per_item", "alive_max", "count", &[1.598e+05, 1.848e+05, 1.738e+05, 1.82e+05, 1.706e+05, 1.769e+05, 1.805e+05, 1.156e+05, 2.004e+05, 1.898e+05]),
        ("spawn_and_join", "10000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[3.848e+06, 4.58e+06, 4.509e+06, 2.94e+06, 3.725e+06, 4.575e+06, 1.825e+06, 1.958e+06, 3.657e+06, 3.562e+06]),
        ("spawn_and_join", "10000", "inside", "tasks_per_s", "tasks/s", &[8.412e+05, 1.06e+06, 8.658e+05, 8.778e+05, 1.489e+06, 9.782e+05, 1.036e+06, 8.119e+05, 1.106e+06, 8.798e+05]),
        ("spawn_and_join", "1000000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[3.314e+06, 3.647e+06, 3.304e+06, 3.346e+06, 3.648e+06, 3.258e+06, 3.389e+06, 2.018e+06, 2.989e+06, 2.256e+06]),
        ("spawn_and_join", "1000000", "inside", "tasks_per_s", "tasks/s", &[1.161e+06, 1.163e+06, 1.169e+06, 1.278e+06, 8.743e+05, 9.235e+05, 1.168e+06, 1.165e+06, 1.063e+06, 9.979e+05]),
        ("spawn_and_join", "1000000", "handles_dropped", "tasks_per_s", "tasks/s", &[6.161e+05, 8.787e+05, 7.483e+05, 6.343e+05, 6.372e+05, 8.345e+05, 7.361e+05, 5.952e+05, 6.391e+05, 5.947e+05]),
        ("idle_memory", "200000", "mimalloc", "bytes_per_task", "B", &[274.4, 274.2, 274.4, 274.3, 274.5, 274.7, 274.6, 274.2, 274.3, 274.1]),
        ("idle_memory", "200000", "system", "bytes_per_task", "B", &[457.4, 457.4, 457.0, 457.3, 456.9, 457.1, 457.5, 457.0, 456.9, 457.2]),
        ("future_size", "20000", "scoped", "bytes_per_task", "B", &[471.9, 475.1, 473.5, 475.3, 475.1, 475.1, 474.5, 471.9, 472.5, 471.7]),
        ("future_size", "20000", "buffer", "bytes_per_task", "B", &[8608.0, 8608.0, 8605.0, 8606.0, 8602.0, 8605.0, 8608.0, 8602.0, 8603.0, 8608.0]),
        ("peak_memory", "paced", "handles_kept", "peak_rss", "B", &[3.26e+08, 3.259e+08, 3.26e+08, 3.261e+08, 3.261e+08, 3.259e+08, 3.26e+08, 3.26e+08, 3.259e+08, 3.261e+08]),
        ("peak_memory", "paced", "handles_dropped", "peak_rss", "B", &[1.113e+07, 1.115e+07, 1.099e+07, 1.117e+07, 1.125e+07, 1.125e+07, 1.104e+07, 1.11e+07, 1.096e+07, 1.121e+07]),
        ("peak_memory", "paced", "handles_kept_mimalloc", "peak_rss", "B", &[1.437e+08, 1.44e+08, 1.438e+08, 1.44e+08, 1.44e+08, 1.439e+08, 1.44e+08, 1.437e+08, 1.439e+08, 1.438e+08]),
        ("peak_memory", "paced", "handles_dropped_mimalloc", "peak_rss", "B", &[1.591e+07, 1.58e+07, 1.588e+07, 1.598e+07, 1.601e+07, 1.581e+07, 1.588e+07, 1.59e+07, 1.59e+07, 1.592e+07]),
        ("peak_memory", "tight", "handles_kept", "peak_rss", "B", &[3.261e+08, 3.26e+08, 3.261e+08, 3.259e+08, 3.26e+08, 3.261e+08, 3.259e+08, 3.26e+08, 3.259e+08, 3.261e+08]),
        ("peak_memory", "tight", "handles_dropped", "peak_rss", "B", &[3.021e+08, 3.082e+08, 3.068e+08, 3.108e+08, 3.163e+08, 3.139e+08, 3.014e+08, 3.102e+08, 3.123e+08, 3.057e+08]),
        ("peak_memory", "tight", "handles_dropped", "alive_max", "count", &[9.233e+05, 9.429e+05, 9.399e+05, 9.516e+05, 9.687e+05, 9.616e+05, 9.212e+05, 9.498e+05, 9.573e+05, 9.35e+05]),
        ("peak_memory", "tight", "handles_kept", "alive_max", "count", &[1653.0, 4799.0, 2914.0, 4123.0, 3460.0, 4088.0, 4136.0, 3884.0, 3824.0, 4240.0]),
        ("peak_memory", "tight", "slice_handles_kept", "alive_max", "count", &[7089.0, 2169.0, 5576.0, 4422.0, 3139.0, 2644.0, 9219.0, 4235.0, 904.0, 6159.0]),
        ("peak_memory", "paced", "slice_handles_kept", "peak_rss", "B", &[3.34e+08, 3.34e+08, 3.34e+08, 3.34e+08, 3.339e+08, 3.341e+08, 3.339e+08, 3.34e+08, 3.341e+08, 3.34e+08]),
        ("peak_memory", "tight", "handles_dropped_mimalloc", "alive_max", "count", &[2.52e+05, 2.97e+05, 1.234e+05, 2.11e+05, 3.561e+05, 1.681e+05, 3.625e+05, 1.655e+05, 3.36e+05, 2.706e+05]),
        ("future_size", "20000", "buffer", "future_bytes", "B", &[8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0]),
        ("future_size", "20000", "boxed", "bytes_per_task", "B", &[8602.0, 8601.0, 8602.0, 8603.0, 8597.0, 8598.0, 8598.0, 8602.0, 8600.0, 8601.0]),
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
