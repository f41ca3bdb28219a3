//! Everything that reads a record once its values are final: the record type shared by the
//! listings that write it and the book that renders it ([`record`]), the claims the book makes
//! about a record and their verdicts ([`claims`], [`verdict`]), the invariants apart from them,
//! the history of every conclusion ([`history`]), how a figure reads ([`format`]), the reports a
//! run prints ([`report`]) and whether a record is still fresh ([`freshness`]).
//!
//! The measuring lives in `measure`, which re-exports this crate's modules; the arrows run one
//! way: `format` ← `claims` ← `report`. Nothing here runs before a record's values are final, so
//! changing this crate makes no record stale (see [`freshness`]).

pub mod chapter;
pub mod claims;
pub mod format;
pub mod freshness;
pub mod history;
pub mod judge;
pub mod lockfile;
pub mod noise;
pub mod record;
pub mod releases;
pub mod report;
pub mod summary;
pub mod verdict;

pub use claims::Claims;
pub use record::{Record, Series};
pub use summary::Summary;
