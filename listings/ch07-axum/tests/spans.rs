//! The hash on the blocking pool runs in a span whose parent is the request's
//! handler span: `spawn_blocking` does not carry the span over, the handler does.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use ch07_axum::service::Config;
use ch07_axum::service::app;
use std::sync::{Arc, Mutex};
use tower::ServiceExt;
use tracing::span::{Attributes, Id};
use tracing_subscriber::Registry;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A span's name, and its parent's.
type Seen = (String, Option<String>);

/// Records each new span's name and its parent's name.
#[derive(Clone, Default)]
struct Parents(Arc<Mutex<Vec<Seen>>>);

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Parents {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let span = ctx.span(id).expect("the span exists");
        let parent = span.parent().map(|p| p.name().to_string());
        self.0
            .lock()
            .unwrap()
            .push((attrs.metadata().name().to_string(), parent));
    }
}

#[tokio::test]
async fn the_hash_span_keeps_the_request_span_as_its_parent() {
    let parents = Parents::default();
    let subscriber = Registry::default().with(parents.clone());
    // Global, as a service's subscriber is: the blocking pool's threads see it too.
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let request = Request::post("/hash").body(Body::from("hunter2")).unwrap();
    let response = app(&Config::for_cores(2)).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    let seen = parents.0.lock().unwrap().clone();
    let hash = seen.iter().find(|(name, _)| name == "argon2_hash");
    assert_eq!(
        hash.and_then(|(_, parent)| parent.as_deref()),
        Some("hash_offloaded"),
        "spans seen: {seen:?}"
    );
}
