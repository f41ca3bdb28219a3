//! Three ways to handle a CPU-heavy request on a Tokio runtime: Rayon called
//! inline, Rayon in a lane of its own behind a semaphore, and `spawn_blocking`; and
//! a timeout that sheds load.

use ch05_rayon_lanes::evaluate;
use std::cell::Cell;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit, oneshot};

/// A request's batch, shared with the thread that computes it.
pub type Batch = Arc<Vec<u64>>;

/// Why a request got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneError {
    /// Shed: no answer before the deadline ("busy, try again").
    Busy,
    /// The job ended without sending its result (it panicked).
    JobFailed,
}

/// The CPU lane: a Rayon pool, a bound on the batches in flight, and counts of
/// the jobs handed to the pool.
#[derive(Clone)]
pub struct Lane {
    pub pool: Arc<rayon::ThreadPool>,
    pub permits: Arc<Semaphore>,
    pub rounds: u64,
    jobs: Arc<JobCounts>,
}

#[derive(Default)]
struct JobCounts {
    in_pool: AtomicUsize,
    most_in_pool: AtomicUsize,
    finished: AtomicUsize,
    most_nested: AtomicUsize,
    most_nested_bytes: AtomicUsize,
}

thread_local! {
    /// The lane jobs on this thread's stack now, and the address of the outermost one's frame.
    static NESTED: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// A job on a pool thread's stack: counted as nested on the jobs below it, and as finished
/// when dropped, after it returns or while its panic unwinds.
struct JobDone(Arc<JobCounts>);

impl JobDone {
    /// A Rayon thread that waits in a `join` runs other jobs meanwhile, injected ones
    /// included (`WorkerThread::wait_until_cold` calls `find_work`), on top of its own
    /// stack: a job can start with others below it.
    fn enter(jobs: Arc<JobCounts>, frame: usize) -> JobDone {
        let (depth, outermost) = NESTED.get();
        let outermost = if depth == 0 { frame } else { outermost };
        NESTED.set((depth + 1, outermost));
        jobs.most_nested.fetch_max(depth + 1, Ordering::AcqRel);
        // The stack grows down: the bytes between the outermost job's frame and this one's.
        let bytes = outermost.saturating_sub(frame);
        jobs.most_nested_bytes.fetch_max(bytes, Ordering::AcqRel);
        JobDone(jobs)
    }
}

impl Drop for JobDone {
    fn drop(&mut self) {
        let (depth, outermost) = NESTED.get();
        NESTED.set((depth.saturating_sub(1), outermost));
        self.0.finished.fetch_add(1, Ordering::AcqRel);
        self.0.in_pool.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Lane {
    pub fn new(pool: Arc<rayon::ThreadPool>, permits: usize, rounds: u64) -> Lane {
        Lane {
            pool,
            permits: Arc::new(Semaphore::new(permits)),
            rounds,
            jobs: Arc::default(),
        }
    }

    /// A permit of the lane's semaphore, borrowed until dropped.
    pub async fn permit(&self) -> SemaphorePermit<'_> {
        let permit = self.permits.acquire().await;
        permit.expect("the semaphore is never closed")
    }

    /// The job of one request: its batch, evaluated on this lane's pool.
    pub fn job(&self, batch: Batch) -> impl FnOnce() -> u64 + Send + 'static {
        let rounds = self.rounds;
        move || evaluate(&batch, rounds)
    }

    /// `rayon::spawn` on this lane's pool, counting the jobs queued or running
    /// in it.
    pub fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        let jobs = self.jobs.clone();
        let now = jobs.in_pool.fetch_add(1, Ordering::AcqRel) + 1;
        jobs.most_in_pool.fetch_max(now, Ordering::AcqRel);
        self.pool.spawn(move || {
            let frame = 0u8;
            let _done = JobDone::enter(
                jobs,
                std::hint::black_box(&frame) as *const u8 as usize,
            );
            job();
        });
    }

    /// The most lane jobs on one pool thread's stack at once so far.
    pub fn most_nested(&self) -> usize {
        self.jobs.most_nested.load(Ordering::Acquire)
    }

    /// The most stack the jobs nested on a pool thread took, between the outermost job's
    /// frame and the innermost one's, so far.
    pub fn most_nested_bytes(&self) -> usize {
        self.jobs.most_nested_bytes.load(Ordering::Acquire)
    }

    /// The most jobs queued or running in the pool at once so far.
    pub fn most_in_pool(&self) -> usize {
        self.jobs.most_in_pool.load(Ordering::Acquire)
    }

    /// Jobs the pool has finished so far.
    pub fn finished(&self) -> usize {
        self.jobs.finished.load(Ordering::Acquire)
    }

    /// Jobs queued or running now.
    pub fn in_pool(&self) -> usize {
        self.jobs.in_pool.load(Ordering::Acquire)
    }
}

// ANCHOR: niced_pool
/// A lane whose threads get a small share of the CPU when others want it: each thread lowers
/// its own weight as it starts (nice 19; on Linux the nice value is per thread). The kernel
/// still decides when a waking thread preempts one of them.
pub fn niced_pool(
    threads: usize,
) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| {
            // Raising one's own nice value needs no privilege; the cell checks that it took.
            // SAFETY: setpriority only reads its arguments; `0` names the calling thread.
            unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
        })
        .build()
}
// ANCHOR_END: niced_pool

// ANCHOR: sched_idle_pool
/// A lane whose threads run under `SCHED_IDLE`, a policy rather than a weight: a normal
/// thread that wakes preempts one of them at once. Entering it needs no privilege.
pub fn sched_idle_pool(
    threads: usize,
) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(|_| {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: sched_setscheduler only reads its arguments; `0` names the calling
            // thread. The cell checks that it took.
            unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
        })
        .build()
}
// ANCHOR_END: sched_idle_pool

// ANCHOR: inline
/// The pitfall: Rayon called from the handler. `install` (like a `par_iter` on
/// the global pool) blocks this Tokio worker until the pool has finished the
/// batch.
pub async fn handle_inline(lane: &Lane, batch: Batch) -> u64 {
    lane.pool.install(|| evaluate(&batch, lane.rounds))
}
// ANCHOR_END: inline

// ANCHOR: offloaded
/// The fix: wait for a permit, hand the job to Rayon, and await its answer on a
/// oneshot channel: the worker is free for other tasks meanwhile. If the job
/// panics in a pool with a panic handler, its sender is dropped and the caller
/// gets an error, not a panic (without a handler, Rayon aborts the process).
pub async fn offload<T: Send + 'static>(
    lane: &Lane,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LaneError> {
    let _permit = lane.permit().await;
    let (tx, rx) = oneshot::channel();
    lane.spawn(move || {
        let _ = tx.send(job());
    });
    rx.await.map_err(|_| LaneError::JobFailed)
}
// ANCHOR_END: offloaded

// ANCHOR: spawn_blocking
/// The other offload: `spawn_blocking` behind the same permits.
pub async fn offload_spawn_blocking<T: Send + 'static>(
    lane: &Lane,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LaneError> {
    let _permit = lane.permit().await;
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|_| LaneError::JobFailed)
}
// ANCHOR_END: spawn_blocking

// ANCHOR: shed
/// Sheds load: a request that has no answer within `deadline` gets "busy, try
/// again". Dropping the handler's future drops whatever it holds.
pub async fn shed<T, F>(deadline: Duration, handler: F) -> Result<T, LaneError>
where
    F: Future<Output = Result<T, LaneError>>,
{
    tokio::time::timeout(deadline, handler)
        .await
        .unwrap_or(Err(LaneError::Busy))
}
// ANCHOR_END: shed

// ANCHOR: permit_in_job
/// `offload` with the permit moved into the job: it is released when the pool
/// has finished the job, not when the caller stops waiting.
pub async fn offload_permit_in_job<T: Send + 'static>(
    lane: &Lane,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LaneError> {
    let permit = lane.permits.clone().acquire_owned().await;
    let permit = permit.expect("the semaphore is never closed");
    let (tx, rx) = oneshot::channel();
    lane.spawn(move || {
        let _ = tx.send(job());
        drop(permit);
    });
    rx.await.map_err(|_| LaneError::JobFailed)
}
// ANCHOR_END: permit_in_job

// ANCHOR: busy_at_the_door
/// Sheds at the door: a request that cannot get a permit within `wait` is told
/// "busy" at once; one that gets a permit runs to the end, and its job holds
/// the permit until it is done.
pub async fn offload_or_busy<T: Send + 'static>(
    lane: &Lane,
    wait: Duration,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, LaneError> {
    let permit = tokio::time::timeout(wait, lane.permits.clone().acquire_owned())
        .await
        .map_err(|_| LaneError::Busy)?
        .expect("the semaphore is never closed");
    let (tx, rx) = oneshot::channel();
    lane.spawn(move || {
        let _ = tx.send(job());
        drop(permit);
    });
    rx.await.map_err(|_| LaneError::JobFailed)
}
// ANCHOR_END: busy_at_the_door

/// The nice value of the calling thread.
pub fn thread_nice() -> i32 {
    // SAFETY: getpriority only reads its arguments; `0` names the calling thread.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// The calling thread's scheduling policy (`SCHED_OTHER` 0, `SCHED_IDLE` 5 on Linux).
pub fn thread_policy() -> i32 {
    // SAFETY: sched_getscheduler only reads its argument; `0` names the calling thread.
    unsafe { libc::sched_getscheduler(0) }
}
