//! The upstream's compressing listener: every encoding answers in the encoding asked for, with
//! the items asked for, in fewer bytes than plain JSON; the layer leaves a stored answer as it is;
//! and a request for more items than the bound is refused, not built.

use ch09_connections::compress::{Encoding, MAX_ITEMS, check_items, decode, items_json};
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::{Upstream, item_digest};
use reqwest::{StatusCode, header};

async fn upstream() -> (Upstream, reqwest::Client, String) {
    install_crypto();
    let upstream = Upstream::start(&make_identity(CertKind::Good).unwrap())
        .await
        .unwrap();
    let base = format!("http://{}", upstream.compress);
    (upstream, reqwest::Client::new(), base)
}

/// Sends `path` accepting `accept`: the status, the `Content-Encoding` sent, and the body.
async fn get(
    client: &reqwest::Client,
    url: String,
    accept: &str,
) -> (StatusCode, Option<String>, Vec<u8>) {
    let response = client
        .get(url)
        .header(header::ACCEPT_ENCODING, accept)
        .send()
        .await
        .unwrap();
    let encoding = response
        .headers()
        .get(header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap().to_string());
    let status = response.status();
    (status, encoding, response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn each_encoding_answers_as_asked_with_the_items() {
    let (upstream, client, base) = upstream().await;
    let (count, n) = (64, 3);
    for name in Encoding::NAMES {
        let encoding = Encoding::named(name).unwrap();
        let first = encoding.first_item(n, count);
        let plain_len = items_json(first, count).len();
        let (path, accept) = encoding.request(first, count);
        let (status, sent_as, body) = get(&client, format!("{base}{path}"), accept).await;
        assert_eq!(status, StatusCode::OK, "{name}");
        assert_eq!(sent_as.as_deref().unwrap_or("identity"), accept, "{name}");
        let json = decode(sent_as.as_deref(), &body).await.unwrap();
        let want = (first..first + count)
            .map(item_digest)
            .fold(0, u64::wrapping_add);
        assert_eq!(check_items(&json, first, count).unwrap(), want, "{name}");
        match encoding {
            Encoding::Identity => assert_eq!(body.len(), plain_len),
            _ => assert!(body.len() * 3 < plain_len, "{name}: {} bytes", body.len()),
        }
    }
    let counts = upstream.counts();
    assert_eq!(counts.requests, Encoding::NAMES.len() as u64);
    assert!(
        counts.bytes_written > items_json(0, count).len() as u64,
        "{counts:?}"
    );
}

#[tokio::test]
async fn the_layer_leaves_a_stored_answer_as_it_is() {
    let (_upstream, client, base) = upstream().await;
    let (path, _) = Encoding::Stored.request(0, 8);
    // Asked for brotli, the stored gzip bytes still go out: the layer does not encode twice.
    let (_, first_encoding, first) = get(&client, format!("{base}{path}"), "br").await;
    let (_, _, again) = get(&client, format!("{base}{path}"), "gzip").await;
    assert_eq!(first_encoding.as_deref(), Some("gzip"));
    assert_eq!(first, again, "the same stored bytes each time");
    let json = decode(Some("gzip"), &first).await.unwrap();
    check_items(&json, 0, 8).unwrap();
}

#[tokio::test]
async fn too_many_items_are_refused() {
    let (upstream, client, base) = upstream().await;
    for path in [
        format!("/default/items/0/{}", MAX_ITEMS + 1),
        format!("/best/stored/{}", MAX_ITEMS + 1),
    ] {
        let (status, _, _) = get(&client, format!("{base}{path}"), "gzip").await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}");
    }
    let (status, _, _) = get(&client, format!("{base}/default/items/x/1"), "gzip").await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a count that is not a number"
    );
    assert_eq!(upstream.counts().requests, 3);
}
