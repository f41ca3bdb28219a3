//! The exercise: on a runtime with one worker, a request's heavy work must leave room for a light
//! task. The heavy work waits for the light task to run (up to five seconds, a safety bound, not
//! a timing); on the worker, it cannot.

use ch01_offload::handle;
use std::sync::mpsc;
use std::time::Duration;

// ANCHOR: exercise_test
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_light_task_runs_while_the_heavy_work_runs() {
    let (started, heavy_started) = mpsc::channel::<()>();
    let (light_ran, saw_light) = mpsc::channel::<()>();
    let request = tokio::spawn(handle(move || {
        started.send(()).unwrap();
        // Heavy work, standing in for a hash: it ends once the light task has run.
        u64::from(saw_light.recv_timeout(Duration::from_secs(5)).is_ok())
    }));
    heavy_started.recv().unwrap();
    // The light task: it needs one poll on the worker, nothing more.
    let light = tokio::spawn(async move {
        let _ = light_ran.send(());
    });

    assert_eq!(
        request.await.unwrap(),
        1,
        "the light task never ran while the heavy work held the only worker"
    );
    light.await.unwrap();
}
// ANCHOR_END: exercise_test
