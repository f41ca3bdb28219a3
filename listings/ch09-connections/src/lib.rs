//! Chapter 9: connections. A service calls an upstream on 127.0.0.1 the way production services
//! do, with reqwest over plain HTTP and rustls: one shared client, a client built per call, and
//! `Connection: close` (`calls.rs`); names looked up on the blocking pool, and an address
//! resolved once (`names.rs`); answers compressed by tower-http's layer or stored compressed
//! (`compress.rs`). The upstream (`upstream.rs`) counts connections, handshakes and bytes.

// The modules name this crate `ch09_connections`, as the book's tests of the included code do.
extern crate self as ch09_connections;

pub mod calls;
pub mod child;
pub mod compress;
pub mod exercise;
pub mod names;
pub mod probe;
pub mod tls;
pub mod upstream;
