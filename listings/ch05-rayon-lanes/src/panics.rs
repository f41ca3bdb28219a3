//! A panic inside a Rayon job: what the process and the caller see with no panic
//! handler, with one, and with the panic caught inside the job.

use ch05_rayon_lanes::{Batch, Lane, evaluate_sequential, offload};
use std::any::Any;
use tokio::sync::oneshot;

/// How a pool treats a job that panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicPolicy {
    /// Rayon's default: no handler.
    NoHandler,
    /// `ThreadPoolBuilder::panic_handler`: log it and carry on.
    Handler,
    /// The job catches its own panic and sends it back as an error.
    CatchUnwind,
}

/// A job that trusts its input: an empty batch panics (index out of bounds).
pub fn first_plus_sum(batch: &[u64]) -> u64 {
    batch[0].wrapping_add(evaluate_sequential(batch, 10))
}

/// The text of a panic's payload.
pub fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic with no message")
}

// ANCHOR: panic_handler
/// A pool whose panicking jobs are logged instead of aborting the process.
pub fn pool_with_panic_handler(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .panic_handler(|panic| {
            eprintln!("rayon job panicked: {}", panic_message(&*panic));
        })
        .build()
        .expect("a pool of this size can start")
}
// ANCHOR_END: panic_handler

// ANCHOR: catch_unwind
/// Catches a panic inside the job and sends it back as an error that names the
/// request.
pub async fn handle_caught(
    lane: &Lane,
    id: usize,
    batch: Batch,
) -> Result<u64, String> {
    let (tx, rx) = oneshot::channel();
    lane.spawn(move || {
        let result = std::panic::catch_unwind(|| first_plus_sum(&batch));
        let result = result.map_err(|panic| {
            format!("request {id} failed: {}", panic_message(&*panic))
        });
        let _ = tx.send(result);
    });
    rx.await.unwrap_or_else(|_| {
        Err(format!("request {id}: the job ended without an answer"))
    })
}
// ANCHOR_END: catch_unwind

/// What the caller saw of a burst of requests.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answers {
    pub ok: usize,
    pub failed: Vec<String>,
}

/// Sends `requests` batches one after another through a lane of one Rayon
/// thread (so that what the caller sees does not race with what the pool does),
/// request `bad` with an empty batch, on a pool set up by `policy`, telling
/// `seen` each answer as it comes. With no handler the process aborts when the
/// bad job panics.
pub async fn burst_with_one_bad(
    policy: PanicPolicy,
    requests: usize,
    bad: usize,
    mut seen: impl FnMut(&Result<u64, String>),
) -> Answers {
    let pool = match policy {
        // catch_unwind alone: the pool has no handler, and the panic never reaches it.
        PanicPolicy::NoHandler | PanicPolicy::CatchUnwind => {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .expect("a pool of one thread can start")
        }
        PanicPolicy::Handler => pool_with_panic_handler(1),
    };
    let lane = Lane::new(pool.into(), 2, 10);
    let mut answers = Answers::default();
    for id in 0..requests {
        let batch: Batch = if id == bad {
            Vec::new().into()
        } else {
            ch05_rayon_lanes::batch(100).into()
        };
        let answer = match policy {
            PanicPolicy::CatchUnwind => handle_caught(&lane, id, batch).await,
            PanicPolicy::NoHandler | PanicPolicy::Handler => {
                offload(&lane, move || first_plus_sum(&batch))
                    .await
                    .map_err(|e| format!("request {id} failed: {e:?}"))
            }
        };
        seen(&answer);
        match answer {
            Ok(_) => answers.ok += 1,
            Err(e) => answers.failed.push(e),
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_handler_turns_the_panic_into_one_failed_request() {
        let answers = burst_with_one_bad(PanicPolicy::Handler, 5, 2, |_| {}).await;
        assert_eq!(answers.ok, 4);
        assert_eq!(
            answers.failed,
            vec!["request 2 failed: JobFailed".to_string()]
        );
    }

    #[tokio::test]
    async fn catch_unwind_names_the_request_and_the_panic() {
        let answers =
            burst_with_one_bad(PanicPolicy::CatchUnwind, 5, 3, |_| {}).await;
        assert_eq!(answers.ok, 4);
        assert_eq!(answers.failed.len(), 1);
        assert!(
            answers.failed[0].starts_with("request 3 failed: index out of bounds")
        );
    }
}
