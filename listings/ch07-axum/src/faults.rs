//! Clients that misbehave, for the fault experiments and their tests: each speaks
//! raw HTTP/1.1 over TCP to 127.0.0.1, bounded in count and time.

use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What became of a set of slow clients.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct SlowClients {
    /// Connections the server closed (or answered) before the clients gave up.
    pub closed: usize,
    /// Connections still open when the clients gave up.
    pub held: usize,
}

// ANCHOR: slow_headers
/// `clients` connections that each send a request's headers one byte every `pace`,
/// never finishing them, for `length`: a slowloris. A connection counts as closed
/// once the server closes it or answers.
pub async fn slow_headers(
    addr: SocketAddr,
    clients: usize,
    pace: Duration,
    length: Duration,
) -> SlowClients {
    let header = b"GET /ping HTTP/1.1\r\nHost: slow\r\nX-Slow: ".to_vec();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let header = header.clone();
            tokio::spawn(async move {
                let Ok(mut tcp) = TcpStream::connect(addr).await else {
                    return true;
                };
                let until = Instant::now() + length;
                let mut bytes = header.into_iter().chain(std::iter::repeat(b'a'));
                let mut answer = [0u8; 64];
                while Instant::now() < until {
                    let byte = [bytes.next().unwrap_or(b'a')];
                    if tcp.write_all(&byte).await.is_err() {
                        return true;
                    }
                    tokio::select! {
                        // A read that returns: the server closed or answered.
                        _ = tcp.read(&mut answer) => return true,
                        _ = tokio::time::sleep(pace) => {}
                    }
                }
                false
            })
        })
        .collect();
    let mut seen = SlowClients::default();
    for task in tasks {
        match task.await {
            Ok(false) => seen.held += 1,
            _ => seen.closed += 1,
        }
    }
    seen
}
// ANCHOR_END: slow_headers

/// `n` connections opened and left idle: each holds a file descriptor of the server's
/// once accepted. Dropping the vector closes them.
pub async fn flood(addr: SocketAddr, n: usize) -> std::io::Result<Vec<TcpStream>> {
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        held.push(TcpStream::connect(addr).await?);
    }
    Ok(held)
}

/// A request as raw bytes, written at once or (`pace`) a byte at a time; the status
/// of the answer, or `None` when the connection closed with no answer, or `within`
/// passed first.
pub async fn raw_request(
    addr: SocketAddr,
    request: &[u8],
    pace: Option<Duration>,
    within: Duration,
) -> Option<u16> {
    let exchange = async {
        let mut tcp = TcpStream::connect(addr).await.ok()?;
        match pace {
            None => {
                // A write that fails after the server answered early (413) still
                // leaves the answer to read.
                let _ = tcp.write_all(request).await;
            }
            Some(pace) => {
                let mut answer = [0u8; 1];
                for byte in request {
                    if tcp.write_all(std::slice::from_ref(byte)).await.is_err() {
                        break;
                    }
                    tokio::select! {
                        // The server answered before the body was done.
                        n = tcp.peek(&mut answer) => { if n.is_ok() { break } }
                        _ = tokio::time::sleep(pace) => {}
                    }
                }
            }
        }
        status_line(&mut tcp).await
    };
    tokio::time::timeout(within, exchange).await.ok().flatten()
}

/// The status code of the first answer on `tcp`.
async fn status_line(tcp: &mut TcpStream) -> Option<u16> {
    let mut head = Vec::new();
    let mut buf = [0u8; 256];
    while !head.windows(2).any(|w| w == b"\r\n") {
        let n = tcp.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A POST of `body` to `path` as raw bytes, with the `Content-Length` given.
pub fn post(
    path: &str,
    content_type: &str,
    body: &[u8],
    content_length: usize,
) -> Vec<u8> {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: bookshelf\r\nContent-Type: {content_type}\r\n\
         Content-Length: {content_length}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    request.extend_from_slice(body);
    request
}

/// `GET /ping` on a new connection: how long until it was answered 200, or `None`
/// if it was not within `within`.
pub async fn ping_new_connection(
    addr: SocketAddr,
    within: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    let request = b"GET /ping HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n";
    match raw_request(addr, request, None, within).await {
        Some(200) => Some(started.elapsed()),
        _ => None,
    }
}
