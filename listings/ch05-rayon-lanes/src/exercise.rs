//! The chapter's exercise: requests that time out must not leave more jobs in the
//! pool than the semaphore allows. The starting point is the chapter's `offload`,
//! which holds its permit in the handler; the solution is `offload_permit_in_job`.
//! `tests/exercise.rs` sheds requests whose jobs never finish (they wait on a gate)
//! and fails if the pool ever held more jobs than permits.
//!
//! `cargo test -p ch05-rayon-lanes --features start --test exercise` tests the
//! starting point (it fails until you fix it); without the feature, the solution is
//! tested.

#[cfg(feature = "start")]
pub use crate::lanes::offload;
#[cfg(not(feature = "start"))]
pub use crate::lanes::offload_permit_in_job as offload;
