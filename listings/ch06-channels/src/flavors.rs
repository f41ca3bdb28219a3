//! Each async channel crate behind one small trait, so that every workload runs the
//! same code on each.

use std::future::Future;

// ANCHOR: flavor
/// An async channel of `u64`s: how to make one, send, and receive.
pub trait Flavor: 'static {
    type Tx: Clone + Send + Sync + 'static;
    type Rx: Send + 'static;
    /// A bounded channel of `capacity` messages.
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx);
    /// Sends `v`, waiting while the channel is full; false once it is closed.
    fn send(tx: &Self::Tx, v: u64) -> impl Future<Output = bool> + Send;
    /// The next message, or `None` once every sender is gone and it is empty.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send;
    /// Receives at least one message into `buf`; 0 once closed and empty.
    fn recv_into(
        rx: &mut Self::Rx,
        buf: &mut Vec<u64>,
    ) -> impl Future<Output = usize> + Send {
        async move {
            match Self::recv(rx).await {
                Some(v) => {
                    buf.push(v);
                    1
                }
                None => 0,
            }
        }
    }
    /// A second receiver of the same channel, where the channel has several.
    fn clone_rx(_rx: &Self::Rx) -> Option<Self::Rx> {
        None
    }
}
// ANCHOR_END: flavor

/// `tokio::sync::mpsc`, one message per `recv`.
pub struct TokioMpsc;

impl Flavor for TokioMpsc {
    type Tx = tokio::sync::mpsc::Sender<u64>;
    type Rx = tokio::sync::mpsc::Receiver<u64>;
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx) {
        tokio::sync::mpsc::channel(capacity)
    }
    async fn send(tx: &Self::Tx, v: u64) -> bool {
        tx.send(v).await.is_ok()
    }
    async fn recv(rx: &mut Self::Rx) -> Option<u64> {
        rx.recv().await
    }
}

/// `tokio::sync::mpsc`, up to 256 messages per wake-up with `recv_many`.
pub struct TokioBatch;

impl Flavor for TokioBatch {
    type Tx = tokio::sync::mpsc::Sender<u64>;
    type Rx = tokio::sync::mpsc::Receiver<u64>;
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx) {
        tokio::sync::mpsc::channel(capacity)
    }
    async fn send(tx: &Self::Tx, v: u64) -> bool {
        tx.send(v).await.is_ok()
    }
    async fn recv(rx: &mut Self::Rx) -> Option<u64> {
        rx.recv().await
    }
    async fn recv_into(rx: &mut Self::Rx, buf: &mut Vec<u64>) -> usize {
        rx.recv_many(buf, 256).await
    }
}

/// kanal's async API.
pub struct Kanal;

impl Flavor for Kanal {
    type Tx = kanal::AsyncSender<u64>;
    type Rx = kanal::AsyncReceiver<u64>;
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx) {
        kanal::bounded_async(capacity)
    }
    async fn send(tx: &Self::Tx, v: u64) -> bool {
        tx.send(v).await.is_ok()
    }
    async fn recv(rx: &mut Self::Rx) -> Option<u64> {
        rx.recv().await.ok()
    }
    fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx> {
        Some(rx.clone())
    }
}

/// async-channel.
pub struct AsyncChannel;

impl Flavor for AsyncChannel {
    type Tx = async_channel::Sender<u64>;
    type Rx = async_channel::Receiver<u64>;
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx) {
        async_channel::bounded(capacity)
    }
    async fn send(tx: &Self::Tx, v: u64) -> bool {
        tx.send(v).await.is_ok()
    }
    async fn recv(rx: &mut Self::Rx) -> Option<u64> {
        rx.recv().await.ok()
    }
    fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx> {
        Some(rx.clone())
    }
}

/// flume's async API.
pub struct Flume;

impl Flavor for Flume {
    type Tx = flume::Sender<u64>;
    type Rx = flume::Receiver<u64>;
    fn bounded(capacity: usize) -> (Self::Tx, Self::Rx) {
        flume::bounded(capacity)
    }
    async fn send(tx: &Self::Tx, v: u64) -> bool {
        tx.send_async(v).await.is_ok()
    }
    async fn recv(rx: &mut Self::Rx) -> Option<u64> {
        rx.recv_async().await.ok()
    }
    fn clone_rx(rx: &Self::Rx) -> Option<Self::Rx> {
        Some(rx.clone())
    }
}
