//! Chapter 11: memory that does not come back. A service (`service`) is driven through bursts of
//! requests and idle spells in a process of its own (`child`), one program per allocator
//! (`bin/ch11-system.rs`, `ch11-mimalloc.rs`, `ch11-jemalloc.rs`), each counting the bytes it
//! holds the same way (`counting`); `probe` reads what stays resident, and what glibc says;
//! `cgroup` puts a service under a container's memory limit.

pub mod cgroup;
pub mod child;
pub mod counting;
pub mod exercise;
pub mod probe;
pub mod report;
pub mod service;
