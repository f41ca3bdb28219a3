//! The chapter's claims (claims.toml) evaluated on records made by hand: they hold where the
//! numbers support them and fail where they do not. The measured records are checked by
//! `cargo run -p book -- check`, never here.

use measure::Claims;
use measure::claims::Verdict;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

const MIB: f64 = 1024.0 * 1024.0;

/// Two workers, 200,000 idle tasks, 20,000 future tasks, three repetitions; `tight_dropped` is the
/// peak with a tight spawner and the handles dropped.
fn shaped_like_the_books(tight_dropped: [f64; 3]) -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("split_work", "0.3", "spawn_per_item", "ns_per_item", "ns", &[613.0, 614.0, 620.0]),
        ("split_work", "0.3", "joinset_per_item", "ns_per_item", "ns", &[801.0, 738.0, 756.0]),
        ("split_work", "0.3", "chunked_1", "ns_per_item", "ns", &[272.0, 273.0, 274.0]),
        ("split_work", "0.3", "chunked_2", "ns_per_item", "ns", &[149.0, 153.0, 150.0]),
        ("split_work", "0.3", "chunked_4", "ns_per_item", "ns", &[151.0, 149.0, 152.0]),
        ("split_work", "0.3", "chunked_16", "ns_per_item", "ns", &[153.0, 149.0, 153.0]),
        ("split_work", "0.3", "chunked_64", "ns_per_item", "ns", &[147.0, 146.0, 145.0]),
        ("split_work", "0.3", "inline", "ns_per_item", "ns", &[274.0, 273.0, 274.0]),
        ("split_work", "1", "spawn_per_item", "alive_max", "count", &[217e3, 214e3, 229e3]),
        ("split_work", "3.5", "spawn_per_item", "overhead_pct", "%", &[18.1, 20.8, 14.9]),
        ("split_work", "10", "spawn_per_item", "overhead_pct", "%", &[1.4, 1.4, 6.6]),
        ("split_work", "35", "spawn_per_item", "ns_per_item", "ns", &[18.7e3, 18.6e3, 18.5e3]),
        ("split_work", "35", "joinset_per_item", "ns_per_item", "ns", &[19.0e3, 18.8e3, 19.4e3]),
        ("split_work", "35", "chunked_1", "ns_per_item", "ns", &[35.0e3, 34.9e3, 35.0e3]),
        ("split_work", "35", "chunked_2", "ns_per_item", "ns", &[19.1e3, 19.1e3, 19.0e3]),
        ("split_work", "35", "chunked_4", "ns_per_item", "ns", &[19.9e3, 19.5e3, 19.0e3]),
        ("split_work", "35", "chunked_16", "ns_per_item", "ns", &[19.0e3, 19.1e3, 19.6e3]),
        ("split_work", "35", "chunked_64", "ns_per_item", "ns", &[18.6e3, 18.7e3, 18.3e3]),
        ("split_work", "35", "inline", "ns_per_item", "ns", &[35.0e3, 35.2e3, 34.9e3]),
        ("split_work", "35", "futures_unordered", "ns_per_item", "ns", &[35.1e3, 38.5e3, 34.9e3]),
        ("spawn_and_join", "10000", "inside", "tasks_per_s", "tasks/s", &[2.35e6, 2.36e6, 2.07e6]),
        ("spawn_and_join", "10000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[5.36e6, 4.88e6, 5.46e6]),
        ("spawn_and_join", "10000", "handles_dropped_mimalloc", "tasks_per_s", "tasks/s", &[5.44e6, 5.38e6, 5.19e6]),
        ("spawn_and_join", "1000000", "inside", "tasks_per_s", "tasks/s", &[2.81e6, 2.73e6, 2.72e6]),
        ("spawn_and_join", "1000000", "inside_mimalloc", "tasks_per_s", "tasks/s", &[4.48e6, 5.50e6, 5.73e6]),
        ("spawn_and_join", "1000000", "handles_dropped", "tasks_per_s", "tasks/s", &[1.68e6, 1.31e6, 1.69e6]),
        ("spawn_and_join", "1000000", "handles_dropped_mimalloc", "tasks_per_s", "tasks/s", &[5.12e6, 5.28e6, 2.02e6]),
        ("idle_memory", "200000", "system", "bytes_per_task", "B", &[457.0, 457.6, 457.1]),
        ("idle_memory", "200000", "mimalloc", "bytes_per_task", "B", &[273.7, 274.4, 274.1]),
        ("future_size", "20000", "buffer", "future_bytes", "B", &[8320.0; 3]),
        ("future_size", "20000", "buffer", "bytes_per_task", "B", &[8601.0, 8602.0, 8600.0]),
        ("future_size", "20000", "boxed", "bytes_per_task", "B", &[8598.0, 8601.0, 8603.0]),
        ("future_size", "20000", "scoped", "bytes_per_task", "B", &[472.0, 468.0, 475.0]),
        ("peak_memory", "paced", "handles_kept", "peak_rss", "B", &[311.0 * MIB; 3]),
        ("peak_memory", "paced", "handles_dropped", "peak_rss", "B", &[10.8 * MIB, 10.5 * MIB, 10.8 * MIB]),
        ("peak_memory", "tight", "handles_kept", "peak_rss", "B", &[311.0 * MIB; 3]),
        ("peak_memory", "tight", "handles_dropped", "peak_rss", "B", &tight_dropped),
        ("peak_memory", "tight", "handles_dropped", "alive_max", "count", &[693e3, 644e3, 761e3]),
        ("peak_memory", "tight", "handles_kept", "alive_max", "count", &[10.6e3, 2.2e3, 24.5e3]),
        ("peak_memory", "tight", "handles_dropped_mimalloc", "peak_rss", "B", &[25.4 * MIB, 19.4 * MIB, 73.3 * MIB]),
        ("peak_memory", "paced", "handles_kept_mimalloc", "peak_rss", "B", &[137.0 * MIB; 3]),
        ("peak_memory", "paced", "handles_dropped_mimalloc", "peak_rss", "B", &[15.2 * MIB, 15.1 * MIB, 17.1 * MIB]),
    ];
    let params = [
        ("workers", 2.0),
        ("idle_tasks", 200_000.0),
        ("future_tasks", 20_000.0),
    ];
    Record::sketch("ch03-spawns", "test", &params, cells)
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books([302.0 * MIB, 281.0 * MIB, 330.0 * MIB]);
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn the_tight_loop_claims_fail_when_the_workers_keep_up() {
    // If the other worker kept up with the spawner, dropping the handles would free the tasks,
    // and the system allocator's peak would be close to mimalloc's.
    let rec = shaped_like_the_books([40.0 * MIB; 3]);
    let o = claims()
        .get("tight-loop-keeps-tasks-anyway")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
    assert_eq!(o.figure, "7.78×");
    let o = claims()
        .get("tight-loop-backlog-is-the-allocator")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Refuted, "{}", o.summary());
}

#[test]
fn a_quick_run_reads_its_own_task_counts() {
    // Quick runs park fewer tasks: the memory claims follow the run's parameters.
    let mut rec = shaped_like_the_books([302.0 * MIB; 3]);
    for s in rec.series.iter_mut() {
        if s.case == "200000" {
            s.case = "20000".into();
        } else if s.case == "20000" {
            s.case = "2000".into();
        }
    }
    rec.params.insert("idle_tasks".into(), 20_000.into());
    rec.params.insert("future_tasks".into(), 2_000.into());
    let o = claims()
        .get("mimalloc-smaller-idle-task")
        .unwrap()
        .check(&rec);
    assert_eq!(o.verdict, Verdict::Held, "{}", o.summary());
}
