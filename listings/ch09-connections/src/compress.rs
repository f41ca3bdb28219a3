//! Compressed answers: the upstream's list of items, made per request and compressed on the way
//! out by tower-http's `CompressionLayer` (the algorithm the caller accepts, the level the path
//! names), beside the same list compressed once and served as stored bytes. The caller decodes
//! each answer with async-compression, the crate the layer encodes with, and checks its items.

use async_compression::Level;
use async_compression::tokio::bufread::{BrotliDecoder, GzipDecoder, GzipEncoder, ZstdDecoder};
use bytes::Bytes;
use ch09_connections::upstream::{item_body, item_digest};
use http_body_util::Full;
use hyper::{Request, Response, StatusCode, header};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tower::{Service, ServiceBuilder};
use tower_http::compression::{Compression, CompressionLayer, CompressionLevel};

measure::variants! {
    /// How the caller asks for an answer: the algorithm it accepts and the level of the layer
    /// the request goes through, or the answer stored already compressed.
    pub enum Encoding for "compression" {
        Identity = "identity",
        Gzip = "gzip",
        GzipBest = "gzip_best",
        Brotli = "br",
        BrotliBest = "br_best",
        Zstd = "zstd",
        Stored = "stored_gzip",
    }
}

impl Encoding {
    /// The request's path for `count` items from `first`, and its `Accept-Encoding`.
    pub fn request(self, first: u64, count: u64) -> (String, &'static str) {
        let made = |level: &str| format!("/{level}/items/{first}/{count}");
        match self {
            Encoding::Identity => (made("default"), "identity"),
            Encoding::Gzip => (made("default"), "gzip"),
            Encoding::GzipBest => (made("best"), "gzip"),
            Encoding::Brotli => (made("default"), "br"),
            Encoding::BrotliBest => (made("best"), "br"),
            Encoding::Zstd => (made("default"), "zstd"),
            Encoding::Stored => (format!("/default/stored/{count}"), "gzip"),
        }
    }

    /// The first item of the `n`th answer: made answers differ from call to call, as a list
    /// endpoint's do; the stored answer is always the same list.
    pub fn first_item(self, n: u64, count: u64) -> u64 {
        match self {
            Encoding::Stored => 0,
            _ => n * count,
        }
    }
}

/// How long an answer may take: long enough for the answers that queue behind brotli's best
/// level on the largest list (the experiment measures the upstream's cost, not a deadline).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The caller's client for these answers, over plain HTTP. reqwest is built here without its
/// decoding features, so it hands over the bytes as sent and asks for no encoding itself.
pub fn answer_client() -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .no_proxy()
        .connect_timeout(ch09_connections::calls::CONNECT_TIMEOUT)
        .timeout(ANSWER_TIMEOUT)
        .build()
}

// ANCHOR: layers
/// The listener's service: the answers behind a `CompressionLayer` at its default level
/// (flate2's 6 for gzip, zstd's 3, and for brotli tower-http's own 4 instead of the crate's
/// 11), or at its best for the paths under `/best`.
#[derive(Clone)]
pub struct Compressing {
    default: Compression<Answers>,
    best: Compression<Answers>,
}

impl Compressing {
    pub fn new() -> Compressing {
        let answers = Answers::default();
        let behind = |level| {
            ServiceBuilder::new()
                .layer(CompressionLayer::new().quality(level))
                .service(answers.clone())
        };
        Compressing {
            default: behind(CompressionLevel::Default),
            best: behind(CompressionLevel::Best),
        }
    }

    /// The service that answers `path`.
    pub fn route(&self, path: &str) -> Compression<Answers> {
        match path.starts_with("/best/") {
            true => self.best.clone(),
            false => self.default.clone(),
        }
    }
}
// ANCHOR_END: layers

impl Default for Compressing {
    fn default() -> Self {
        Self::new()
    }
}

/// Most items an answer may hold: a bound on what a request can make the upstream build.
pub const MAX_ITEMS: u64 = 10_000;

/// `count` items from `first`, as a JSON array made for this request.
pub fn items_json(first: u64, count: u64) -> String {
    let items: Vec<String> = (first..first + count).map(item_body).collect();
    format!("[{}]", items.join(","))
}

/// The answers, uncompressed: `/{level}/items/{first}/{count}`, a list made for the request, and
/// `/{level}/stored/{count}`, a list gzipped when first asked for and kept, as a build step
/// would store it beside a static file.
#[derive(Clone, Default)]
pub struct Answers {
    stored: Arc<Mutex<HashMap<u64, Bytes>>>,
}

impl<B> Service<Request<B>> for Answers {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (answers, path) = (self.clone(), request.uri().path().to_string());
        Box::pin(async move { Ok(answers.answer(&path).await) })
    }
}

impl Answers {
    async fn answer(&self, path: &str) -> Response<Full<Bytes>> {
        let route = path.strip_prefix("/default").or(path.strip_prefix("/best"));
        let parts: Vec<&str> = route.unwrap_or("").split('/').skip(1).collect();
        let count = |text: &str| text.parse().ok().filter(|c| *c <= MAX_ITEMS);
        match parts[..] {
            ["items", first, n] => match (first.parse(), count(n)) {
                (Ok(first), Some(n)) => json(Bytes::from(items_json(first, n)), None),
                _ => status(StatusCode::BAD_REQUEST),
            },
            ["stored", n] => match count(n) {
                Some(n) => json(self.stored(n).await, Some("gzip")),
                None => status(StatusCode::BAD_REQUEST),
            },
            _ => status(StatusCode::NOT_FOUND),
        }
    }

    // ANCHOR: stored
    /// A list stored compressed. The answer carries its `Content-Encoding`, and the layer leaves
    /// a response that has one alone: these bytes go out as they are.
    async fn stored(&self, count: u64) -> Bytes {
        let kept = self
            .stored
            .lock()
            .expect("not poisoned")
            .get(&count)
            .cloned();
        match kept {
            Some(body) => body,
            None => {
                let body = gzip_best(items_json(0, count).as_bytes()).await;
                let mut stored = self.stored.lock().expect("not poisoned");
                stored.entry(count).or_insert(body).clone()
            }
        }
    }
    // ANCHOR_END: stored
}

/// A JSON answer, with the `Content-Encoding` it is already in, if any.
fn json(body: Bytes, encoding: Option<&'static str>) -> Response<Full<Bytes>> {
    let mut response = Response::builder().header(header::CONTENT_TYPE, "application/json");
    if let Some(encoding) = encoding {
        response = response.header(header::CONTENT_ENCODING, encoding);
    }
    response.body(Full::new(body)).expect("a valid response")
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

async fn gzip_best(plain: &[u8]) -> Bytes {
    let mut out = Vec::new();
    GzipEncoder::with_quality(plain, Level::Best)
        .read_to_end(&mut out)
        .await
        .expect("reading from memory");
    Bytes::from(out)
}

/// Decodes an answer sent with `encoding` (a `Content-Encoding` value, or none).
pub async fn decode(encoding: Option<&str>, body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let read = match encoding {
        None | Some("identity") => return Ok(body.to_vec()),
        Some("gzip") => GzipDecoder::new(body).read_to_end(&mut out).await,
        Some("br") => BrotliDecoder::new(body).read_to_end(&mut out).await,
        Some("zstd") => ZstdDecoder::new(body).read_to_end(&mut out).await,
        Some(other) => return Err(format!("an answer in an encoding not asked for: {other}")),
    };
    read.map_err(|e| {
        format!(
            "a {} answer that does not decode: {e}",
            encoding.unwrap_or("")
        )
    })?;
    Ok(out)
}

/// Checks a decoded answer holds items `first..first + count` with their digests; their sum.
pub fn check_items(json: &[u8], first: u64, count: u64) -> Result<u64, String> {
    #[derive(serde::Deserialize)]
    struct Item {
        id: u64,
        digest: u64,
    }
    let items: Vec<Item> =
        serde_json::from_slice(json).map_err(|e| format!("not a list of items: {e}"))?;
    if items.len() as u64 != count {
        return Err(format!(
            "{} items where {count} were asked for",
            items.len()
        ));
    }
    let mut sum = 0u64;
    for (item, id) in items.iter().zip(first..) {
        if item.id != id || item.digest != item_digest(id) {
            return Err(format!("item {} where item {id} was expected", item.id));
        }
        sum = sum.wrapping_add(item.digest);
    }
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stored_answer_decodes_to_the_items() {
        let zipped = gzip_best(items_json(0, 3).as_bytes()).await;
        let plain = decode(Some("gzip"), &zipped).await.unwrap();
        let want = (0..3).map(item_digest).fold(0u64, u64::wrapping_add);
        assert_eq!(check_items(&plain, 0, 3).unwrap(), want);
    }

    #[test]
    fn a_wrong_list_is_refused() {
        let json = items_json(5, 2);
        assert!(check_items(json.as_bytes(), 5, 3).is_err());
        assert!(check_items(json.as_bytes(), 4, 2).is_err());
        assert!(check_items(b"{}", 0, 0).is_err());
    }

    #[tokio::test]
    async fn an_unknown_encoding_is_an_error() {
        assert!(decode(Some("deflate"), b"x").await.is_err());
        assert!(decode(Some("gzip"), b"not gzip").await.is_err());
    }
}
