//! Names: a client that resolves `localhost` itself, and the remedy found in reqwest, an address
//! resolved once and given to the client.

use ch09_connections::calls::{CALL_TIMEOUT, CONNECT_TIMEOUT};
use reqwest::Client;
use std::net::SocketAddr;

// ANCHOR: by_name
/// A client that looks every new connection's host name up: reqwest's default resolver
/// (`reqwest::dns::gai::GaiResolver`) wraps hyper-util's, which calls `getaddrinfo` inside
/// `tokio::task::spawn_blocking`.
pub fn client_resolving() -> reqwest::Result<Client> {
    Client::builder()
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .build()
}
// ANCHOR_END: by_name

// ANCHOR: resolved_once
/// The remedy: the address looked up once, when the service starts, and pinned for the name
/// (`ClientBuilder::resolve`): the connector asks nobody, and the blocking pool is left alone.
pub fn client_resolved_once(name: &str, addr: SocketAddr) -> reqwest::Result<Client> {
    Client::builder()
        .resolve(name, addr)
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .build()
}
// ANCHOR_END: resolved_once
