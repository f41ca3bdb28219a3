//! The `keep_alive` experiment's answers and callers: `/work/{rounds}/{id}` answers the item with
//! the work's result, a wrong result is caught, a request for too much work is refused; one client
//! keeps one connection for its calls, a new client per call makes a connection each, and over
//! TLS a full handshake each (nothing resumed).

use ch09_connections::calls::{Failure, call_work, new_client_trusting_only};
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::{MAX_WORK_ROUNDS, Upstream, work, work_path};
use reqwest::{Certificate, StatusCode};

async fn upstream() -> (Upstream, Certificate) {
    install_crypto();
    let identity = make_identity(CertKind::Good).unwrap();
    let upstream = Upstream::start(&identity).await.unwrap();
    let cert = Certificate::from_pem(identity.cert_pem.as_bytes()).unwrap();
    (upstream, cert)
}

#[tokio::test]
async fn a_work_answer_carries_its_item_and_the_works_result() {
    let (upstream, cert) = upstream().await;
    let client = new_client_trusting_only(&cert).unwrap();
    let base = format!("http://{}", upstream.plain);
    let rounds = 1000;
    let digest = call_work(&client, &base, (rounds, work(rounds)), 7)
        .await
        .unwrap();
    assert_eq!(digest, ch09_connections::upstream::item_digest(7));
    assert_ne!(work(rounds), work(rounds + 1));

    let wrong = call_work(&client, &base, (rounds, work(rounds) ^ 1), 7).await;
    assert!(
        matches!(&wrong, Err(Failure::Body(why)) if why.contains("wrong work")),
        "{:?}",
        wrong.map_err(|e| e.to_string())
    );
}

#[tokio::test]
async fn too_much_work_is_refused_and_a_malformed_path_is_not_found() {
    let (upstream, _) = upstream().await;
    let client = reqwest::Client::new();
    let base = format!("http://{}", upstream.plain);
    let status = |path: String| {
        let request = client.get(format!("{base}{path}"));
        async move { request.send().await.unwrap().status() }
    };
    assert_eq!(
        status(work_path(MAX_WORK_ROUNDS + 1, 1)).await,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(status("/work/many/1".into()).await, StatusCode::NOT_FOUND);
    assert_eq!(status("/work/10".into()).await, StatusCode::NOT_FOUND);
    assert_eq!(status(work_path(10, 1)).await, StatusCode::OK);
}

#[tokio::test]
async fn one_client_keeps_its_connection_and_a_client_per_call_handshakes_each_time() {
    let (upstream, cert) = upstream().await;
    let base = format!("https://{}", upstream.tls);
    let (calls, rounds) = (5, 10);
    let shared = new_client_trusting_only(&cert).unwrap();
    for id in 0..calls {
        call_work(&shared, &base, (rounds, work(rounds)), id)
            .await
            .unwrap();
    }
    let kept = upstream.counts();
    assert_eq!((kept.connections, kept.full_handshakes), (1, 1));

    for id in 0..calls {
        let own = new_client_trusting_only(&cert).unwrap();
        call_work(&own, &base, (rounds, work(rounds)), id)
            .await
            .unwrap();
    }
    let each = upstream.counts().since(&kept);
    assert_eq!(
        (
            each.connections,
            each.full_handshakes,
            each.resumed_handshakes
        ),
        (calls, calls, 0)
    );
}
