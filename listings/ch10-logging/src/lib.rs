//! Chapter 10: logging on the hot path. The service's requests (`service`) log through one of the
//! subscribers of `logging`; the service runs in a process of its own (`bin/ch10-service.rs`,
//! built in the release profile, as a service ships) whose standard output goes where the
//! experiment says: a file, `/dev/null`, or the pipe of a collector that falls behind (`sink`).

pub mod exercise;
pub mod logging;
pub mod probe;
pub mod report;
pub mod service;
pub mod sink;
