//! How a service calls its upstream: the pitfall (a client built for each call) and the two
//! ways a connection is reused or not (one shared client, and `Connection: close`).

use ch09_connections::upstream::{item_digest, item_path, work_path};
use reqwest::{Certificate, Client, RequestBuilder, header};
use std::time::Duration;

/// How long a call may take to connect, and in all: the service's own limits.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

// ANCHOR: client
/// The client as every variant builds it: the upstream's certificate trusted beside the
/// system's roots (reqwest's default verifier), no proxy, and timeouts.
pub fn new_client(upstream_cert: &Certificate) -> reqwest::Result<Client> {
    Client::builder()
        .add_root_certificate(upstream_cert.clone())
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .build()
}
// ANCHOR_END: client

// ANCHOR: trusting_only
/// The same client trusting the upstream's certificate alone: no system roots to read, the
/// part of `new_client`'s cost that the `client_build` experiment separates out.
pub fn new_client_trusting_only(upstream_cert: &Certificate) -> reqwest::Result<Client> {
    Client::builder()
        .tls_certs_only([upstream_cert.clone()])
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(CALL_TIMEOUT)
        .build()
}
// ANCHOR_END: trusting_only

// ANCHOR: per_request
/// The pitfall: a client built inside the handler. Its pool starts empty and dies with it, so
/// every call opens a connection (and, over TLS, makes a full handshake).
pub async fn call_with_new_client(cert: &Certificate, base: &str, id: u64) -> Result<u64, Failure> {
    let client = new_client(cert).map_err(Failure::Build)?;
    fetch_digest(client.get(format!("{base}{}", item_path(id)))).await
}
// ANCHOR_END: per_request

// ANCHOR: shared
/// The fix: one client for the service's life, cloned into handlers (a clone shares the pool).
pub async fn call_shared(client: &Client, base: &str, id: u64) -> Result<u64, Failure> {
    fetch_digest(client.get(format!("{base}{}", item_path(id)))).await
}
// ANCHOR_END: shared

// ANCHOR: close
/// The shared client, asking the upstream to close the connection after answering: the pool
/// is there, but holds nothing.
pub async fn call_closing(client: &Client, base: &str, id: u64) -> Result<u64, Failure> {
    let request = client.get(format!("{base}{}", item_path(id)));
    fetch_digest(request.header(header::CONNECTION, "close")).await
}
// ANCHOR_END: close

/// Sends the request, reads the item and checks its digest.
pub async fn fetch_digest(request: RequestBuilder) -> Result<u64, Failure> {
    fetch_item(request).await?.checked()
}

// ANCHOR: work
/// A call of the `keep_alive` experiment: item `id` after `rounds` of the upstream's work, its
/// digest checked and the work's result compared with `expected` (computed once by the caller).
pub async fn call_work(
    client: &Client,
    base: &str,
    (rounds, expected): (u64, u64),
    id: u64,
) -> Result<u64, Failure> {
    let item = fetch_item(client.get(format!("{base}{}", work_path(rounds, id)))).await?;
    match item.work == Some(expected) {
        true => item.checked(),
        false => Err(Failure::Body(format!(
            "item {} has a wrong work result",
            item.id
        ))),
    }
}
// ANCHOR_END: work

async fn fetch_item(request: RequestBuilder) -> Result<Item, Failure> {
    let response = request.send().await.map_err(Failure::classify)?;
    let response = response.error_for_status().map_err(Failure::classify)?;
    let body = response.bytes().await.map_err(Failure::classify)?;
    serde_json::from_slice(&body).map_err(|e| Failure::Body(e.to_string()))
}

#[derive(serde::Deserialize)]
struct Item {
    id: u64,
    digest: u64,
    /// The work's result, in a `/work` answer.
    work: Option<u64>,
}

impl Item {
    fn checked(self) -> Result<u64, Failure> {
        match self.digest == item_digest(self.id) {
            true => Ok(self.digest),
            false => Err(Failure::Body(format!(
                "item {} has a wrong digest",
                self.id
            ))),
        }
    }
}

/// Why a call failed, as a service would count it.
#[derive(Debug)]
pub enum Failure {
    /// The client could not be built (its TLS configuration).
    Build(reqwest::Error),
    /// Nobody listens there.
    Refused(reqwest::Error),
    /// Connected (or not), but no answer in time.
    TimedOut(reqwest::Error),
    /// The upstream's certificate was not accepted.
    Certificate(reqwest::Error),
    /// Anything else on the way: a reset, a status that is not 2xx.
    Other(reqwest::Error),
    /// An answer that is not the item asked for.
    Body(String),
}

impl Failure {
    /// Sorts a reqwest error by its cause, found among its sources. rustls's
    /// `InvalidCertificate` travels inside `std::io::Error`s, and an I/O error's `source()` skips
    /// the error it wraps, so the walk goes through an I/O error's `get_ref()` instead.
    pub fn classify(e: reqwest::Error) -> Failure {
        if e.is_timeout() {
            return Failure::TimedOut(e);
        }
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(c) = cause {
            if let Some(io) = c.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::ConnectionRefused {
                    return Failure::Refused(e);
                }
                cause = io
                    .get_ref()
                    .map(|w| w as &(dyn std::error::Error + 'static));
                continue;
            }
            if let Some(rustls::Error::InvalidCertificate(_)) = c.downcast_ref::<rustls::Error>() {
                return Failure::Certificate(e);
            }
            cause = c.source();
        }
        Failure::Other(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::error::Error;
        let (what, e) = match self {
            Failure::Body(why) => return write!(f, "a wrong answer: {why}"),
            Failure::Build(e) => ("the client could not be built", e),
            Failure::Refused(e) => ("connection refused", e),
            Failure::TimedOut(e) => ("timed out", e),
            Failure::Certificate(e) => ("certificate rejected", e),
            Failure::Other(e) => ("failed", e),
        };
        write!(f, "{what}: {e}")?;
        let mut source = e.source();
        while let Some(s) = source {
            write!(f, ": {s}")?;
            source = s.source();
        }
        Ok(())
    }
}
