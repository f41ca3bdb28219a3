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
        ("split_work", "0.3", "spawn_per_item", "ns_per_item", "ns", &[1209.0, 1080.0, 1147.0, 1029.0, 1416.0, 1047.0, 1329.0, 1037.0, 1006.0, 1133.0]),
        ("split_work", "0.3", "chunked_1", "ns_per_item", "ns", &[296.1, 298.0, 274.1, 283.9, 291.6, 278.9, 302.6, 326.6, 271.8, 285.4]),
        ("split_work", "0.3", "chunked_2", "ns_per_item", "ns", &[160.5, 158.8, 158.0, 162.6, 160.1, 157.0, 160.5, 152.0, 147.2, 154.6]),
        ("split_work", "0.3", "chunked_4", "ns_per_item", "ns", &[156.8, 162.2, 159.6, 159.9, 158.4, 160.6, 162.5, 153.1, 188.0, 155.1]),
        ("split_work", "0.3", "chunked_16", "ns_per_item", "ns", &[146.1, 157.6, 158.6, 159.3, 159.7, 160.5, 159.7, 150.1, 167.8, 149.6]),
        ("split_work", "0.3", "chunked_64", "ns_per_item", "ns", &[147.5, 151.5, 140.3, 146.4, 153.4, 146.5, 158.7, 159.6, 157.6, 156.6]),
        ("split_work", "0.3", "inline", "ns_per_item", "ns", &[291.4, 294.1, 295.4, 297.8, 294.1, 296.5, 301.1, 296.6, 295.2, 293.9]),
        ("split_work", "0.3", "joinset_per_item", "ns_per_item", "ns", &[1553.0, 1630.0, 1407.0, 1443.0, 1375.0, 1417.0, 1676.0, 1970.0, 1191.0, 1319.0]),
        ("split_work", "35", "joinset_per_item", "ns_per_item", "ns", &[1.965e+04, 1.912e+04, 1.966e+04, 1.951e+04, 2.024e+04, 1.974e+04, 2.032e+04, 2.075e+04, 1.947e+04, 1.95e+04]),
        ("split_work", "35", "spawn_per_item", "ns_per_item", "ns", &[1.904e+04, 1.984e+04, 1.888e+04, 1.875e+04, 1.962e+04, 1.957e+04, 2.151e+04, 1.982e+04, 1.943e+04, 3.812e+04]),
        ("split_work", "35", "chunked_1", "ns_per_item", "ns", &[3.465e+04, 3.59e+04, 3.522e+04, 3.546e+04, 3.564e+04, 3.587e+04, 3.613e+04, 3.594e+04, 3.504e+04, 3.553e+04]),
        ("split_work", "35", "chunked_2", "ns_per_item", "ns", &[1.902e+04, 1.903e+04, 1.878e+04, 1.908e+04, 1.982e+04, 1.964e+04, 1.947e+04, 2.055e+04, 1.961e+04, 1.949e+04]),
        ("split_work", "35", "chunked_4", "ns_per_item", "ns", &[1.888e+04, 1.931e+04, 1.886e+04, 1.848e+04, 1.948e+04, 1.955e+04, 1.994e+04, 1.997e+04, 1.895e+04, 1.858e+04]),
        ("split_work", "35", "chunked_16", "ns_per_item", "ns", &[1.985e+04, 1.947e+04, 1.914e+04, 1.879e+04, 1.947e+04, 3.539e+04, 2.024e+04, 2.012e+04, 1.934e+04, 1.974e+04]),
        ("split_work", "35", "chunked_64", "ns_per_item", "ns", &[1.861e+04, 1.905e+04, 1.856e+04, 1.857e+04, 1.851e+04, 1.873e+04, 1.934e+04, 1.829e+04, 1.83e+04, 1.869e+04]),
        ("split_work", "35", "inline", "ns_per_item", "ns", &[3.524e+04, 3.53e+04, 3.57e+04, 3.598e+04, 3.572e+04, 3.585e+04, 3.632e+04, 3.606e+04, 3.618e+04, 3.584e+04]),
        ("split_work", "35", "futures_unordered", "ns_per_item", "ns", &[3.619e+04, 3.638e+04, 3.618e+04, 3.604e+04, 3.5e+04, 3.578e+04, 3.684e+04, 3.583e+04, 3.542e+04, 3.71e+04]),
        ("split_work", "3.5", "spawn_per_item", "overhead_pct", "%", &[51.15, 42.72, 32.96, 32.09, 39.68, 39.1, 49.36, 39.13, 32.84, 44.47]),
        ("split_work", "10", "spawn_per_item", "overhead_per_task", "ns", &[484.1, 700.5, 665.0, 715.0, 719.4, 1209.0, 789.3, 825.5, 693.0, 317.4]),
        ("split_work", "3.5", "spawn_per_item", "overhead_per_task", "ns", &[952.0, 789.9, 600.7, 597.7, 744.8, 723.9, 942.0, 758.8, 636.2, 841.7]),
        ("split_work", "1", "spawn_per_item", "alive_max", "count", &[1.84e+05, 1.831e+05, 1.756e+05, 1.885e+05, 1.853e+05, 1.939e+05, 1.967e+05, 1.755e+05, 1.753e+05, 2.289e+05]),
        ("spawn_and_join", "10000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[3.582e+06, 4.082e+06, 4.022e+06, 4.746e+06, 3.517e+06, 3.477e+06, 3.48e+06, 3.576e+06, 2.776e+06, 3.135e+06]),
        ("spawn_and_join", "10000", "inside", "tasks_per_s", "tasks/s", &[1.036e+06, 1.14e+06, 9.701e+05, 1.116e+06, 1.053e+06, 1.271e+06, 1.399e+06, 9.566e+05, 8.529e+05, 1.286e+06]),
        ("spawn_and_join", "1000000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[3.489e+06, 4.252e+06, 2.078e+06, 3.668e+06, 4.308e+06, 2.357e+06, 3.181e+06, 3.582e+06, 1.664e+06, 3.293e+06]),
        ("spawn_and_join", "1000000", "inside", "tasks_per_s", "tasks/s", &[1.239e+06, 1.128e+06, 1.223e+06, 1.125e+06, 1.283e+06, 1.275e+06, 1.15e+06, 1.254e+06, 1.128e+06, 9.454e+05]),
        ("spawn_and_join", "10000", "handles_dropped_mimalloc", "tasks_per_s", "tasks/s", &[3.754e+06, 4.012e+06, 3.456e+06, 5.455e+06, 3.628e+06, 3.417e+06, 5.491e+06, 3.836e+06, 3.287e+06, 3.734e+06]),
        ("spawn_and_join", "1000000", "handles_dropped_mimalloc", "tasks_per_s", "tasks/s", &[3.093e+06, 3.56e+06, 3.358e+06, 3.104e+06, 2.954e+06, 3.203e+06, 3.466e+06, 3.618e+06, 3.878e+06, 1.357e+06]),
        ("spawn_and_join", "1000000", "handles_dropped", "tasks_per_s", "tasks/s", &[5.597e+05, 6.775e+05, 7.169e+05, 5.991e+05, 6.224e+05, 5.537e+05, 6.492e+05, 6.307e+05, 6.81e+05, 6.355e+05]),
        ("idle_memory", "200000", "mimalloc", "bytes_per_task", "B", &[274.0, 274.1, 274.3, 274.0, 274.2, 274.1, 274.1, 273.9, 274.1, 274.3]),
        ("idle_memory", "200000", "system", "bytes_per_task", "B", &[457.0, 457.0, 457.1, 457.2, 456.8, 456.7, 456.9, 456.9, 457.1, 457.1]),
        ("future_size", "20000", "scoped", "bytes_per_task", "B", &[469.4, 471.4, 470.8, 469.4, 471.0, 471.4, 469.2, 469.8, 468.4, 471.2]),
        ("future_size", "20000", "buffer", "bytes_per_task", "B", &[8603.0, 8602.0, 8605.0, 8605.0, 8603.0, 8601.0, 8603.0, 8603.0, 8602.0, 8604.0]),
        ("peak_memory", "paced", "handles_kept", "peak_rss", "B", &[3.259e+08, 3.259e+08, 3.261e+08, 3.259e+08, 3.258e+08, 3.258e+08, 3.259e+08, 3.259e+08, 3.259e+08, 3.261e+08]),
        ("peak_memory", "paced", "handles_dropped", "peak_rss", "B", &[1.101e+07, 1.107e+07, 1.096e+07, 1.101e+07, 1.101e+07, 1.128e+07, 1.119e+07, 1.096e+07, 1.085e+07, 1.126e+07]),
        ("peak_memory", "paced", "handles_kept_mimalloc", "peak_rss", "B", &[1.438e+08, 1.438e+08, 1.438e+08, 1.439e+08, 1.439e+08, 1.439e+08, 1.459e+08, 1.439e+08, 1.459e+08, 1.438e+08]),
        ("peak_memory", "paced", "handles_dropped_mimalloc", "peak_rss", "B", &[1.581e+07, 1.57e+07, 1.594e+07, 1.575e+07, 1.577e+07, 1.593e+07, 1.595e+07, 1.569e+07, 1.592e+07, 1.594e+07]),
        ("peak_memory", "tight", "handles_kept", "peak_rss", "B", &[3.259e+08, 3.26e+08, 3.259e+08, 3.258e+08, 3.26e+08, 3.259e+08, 3.259e+08, 3.26e+08, 3.259e+08, 3.259e+08]),
        ("peak_memory", "tight", "handles_dropped", "peak_rss", "B", &[4.152e+08, 4.381e+08, 3.971e+08, 4.213e+08, 4.178e+08, 3.657e+08, 4.155e+08, 4.201e+08, 3.864e+08, 4.013e+08]),
        ("peak_memory", "tight", "handles_dropped", "alive_max", "count", &[9.211e+05, 9.734e+05, 8.798e+05, 9.348e+05, 9.27e+05, 8.101e+05, 9.216e+05, 9.321e+05, 8.555e+05, 8.895e+05]),
        ("peak_memory", "tight", "handles_kept", "alive_max", "count", &[3239.0, 3811.0, 301.0, 1887.0, 2051.0, 914.0, 2369.0, 1223.0, 3213.0, 3401.0]),
        ("peak_memory", "tight", "handles_dropped_mimalloc", "peak_rss", "B", &[7.045e+07, 4.948e+07, 7.048e+07, 6.188e+07, 5.154e+07, 9.752e+07, 6.623e+07, 4.53e+07, 4.523e+07, 3.69e+07]),
        ("future_size", "20000", "buffer", "future_bytes", "B", &[8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0, 8320.0]),
        ("future_size", "20000", "boxed", "bytes_per_task", "B", &[8597.0, 8598.0, 8596.0, 8594.0, 8601.0, 8601.0, 8600.0, 8599.0, 8598.0, 8599.0]),
    ];
    Record::sketch(
        "ch03-spawns",
        "test",
        &[("future_tasks", 2e+04), ("idle_tasks", 2e+05)],
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
