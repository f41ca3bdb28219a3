//! The workloads, each ending with a check of what arrived.

use ch06_channels::Flavor;
use measure::checksum::mix;
use measure::stats::LatencyHistogram;
use std::time::{Duration, Instant};

/// What a throughput run saw.
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    pub seconds: f64,
    pub messages: u64,
}

/// The digest of every message `0..n`: what the receivers, each adding up the
/// digests (`mix`) of what they got, must arrive at. A lost message and a
/// duplicated one do not cancel out.
pub fn expected_sum(n: u64) -> u64 {
    (0..n).map(mix).fold(0, u64::wrapping_add)
}

/// Sender `s` of `senders` sends every message `i` with `i % senders == s`.
fn share(n: u64, senders: usize, s: usize) -> impl Iterator<Item = u64> {
    (s as u64..n).step_by(senders)
}

// ANCHOR: throughput
/// `n` messages from `senders` tasks to `receivers` tasks through one channel of
/// `capacity`; each receiver takes what it can get and adds it up.
pub async fn throughput<F: Flavor>(
    senders: usize,
    receivers: usize,
    capacity: usize,
    n: u64,
) -> Result<Moved, String> {
    let (tx, rx) = F::bounded(capacity);
    let mut rxs = vec![rx];
    for _ in 1..receivers {
        let more = F::clone_rx(&rxs[0]).ok_or("this channel has one receiver")?;
        rxs.push(more);
    }
    let start = Instant::now();
    let receiving: Vec<_> = rxs
        .into_iter()
        .map(|mut rx| {
            tokio::spawn(async move {
                let (mut sum, mut count, mut buf) = (0u64, 0u64, Vec::new());
                while F::recv_into(&mut rx, &mut buf).await > 0 {
                    count += buf.len() as u64;
                    sum = buf.drain(..).map(mix).fold(sum, u64::wrapping_add);
                }
                (sum, count)
            })
        })
        .collect();
    for s in 0..senders {
        let tx = tx.clone();
        tokio::spawn(async move {
            for i in share(n, senders, s) {
                if !F::send(&tx, i).await {
                    break;
                }
            }
        });
    }
    drop(tx); // the receivers end when the last sender is gone
    let (mut sum, mut messages) = (0u64, 0u64);
    for r in receiving {
        let (s, c) = r.await.map_err(|e| e.to_string())?;
        sum = sum.wrapping_add(s);
        messages += c;
    }
    let seconds = start.elapsed().as_secs_f64();
    check(messages, sum, n)?;
    Ok(Moved { seconds, messages })
}
// ANCHOR_END: throughput

fn check(messages: u64, sum: u64, n: u64) -> Result<(), String> {
    if messages != n || sum != expected_sum(n) {
        return Err(format!(
            "received {messages} messages summing to {sum}; sent {n} summing to {}",
            expected_sum(n)
        ));
    }
    Ok(())
}

/// The same on OS threads with crossbeam-channel.
pub fn throughput_crossbeam(
    senders: usize,
    receivers: usize,
    capacity: usize,
    n: u64,
) -> Result<Moved, String> {
    let (tx, rx) = crossbeam_channel::bounded::<u64>(capacity);
    let start = Instant::now();
    let receiving: Vec<_> = (0..receivers)
        .map(|_| {
            let rx = rx.clone();
            std::thread::spawn(move || {
                rx.iter()
                    .fold((0u64, 0u64), |(s, c), v| (s.wrapping_add(mix(v)), c + 1))
            })
        })
        .collect();
    drop(rx);
    for s in 0..senders {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for i in share(n, senders, s) {
                if tx.send(i).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let (mut sum, mut messages) = (0u64, 0u64);
    for r in receiving {
        let (s, c) = r.join().map_err(|_| "a receiver panicked".to_string())?;
        sum = sum.wrapping_add(s);
        messages += c;
    }
    let seconds = start.elapsed().as_secs_f64();
    check(messages, sum, n)?;
    Ok(Moved { seconds, messages })
}

// ANCHOR: ping_pong
/// `n` round trips between two tasks over two channels of capacity 1; each round
/// trip timed from the send of the ping to the receipt of the pong.
pub async fn ping_pong<F: Flavor>(
    n: u64,
) -> Result<(LatencyHistogram, Duration), String> {
    let (ping_tx, mut ping_rx) = F::bounded(1);
    let (pong_tx, mut pong_rx) = F::bounded(1);
    tokio::spawn(async move {
        while let Some(v) = F::recv(&mut ping_rx).await {
            if !F::send(&pong_tx, v).await {
                break;
            }
        }
    });
    let pinger = tokio::spawn(async move {
        let mut rtt = LatencyHistogram::new();
        let start = Instant::now();
        for i in 0..n {
            let t = Instant::now();
            F::send(&ping_tx, i).await;
            if F::recv(&mut pong_rx).await != Some(i) {
                return Err(format!("round trip {i} came back wrong"));
            }
            rtt.record(t.elapsed());
        }
        Ok((rtt, start.elapsed()))
    });
    pinger.await.map_err(|e| e.to_string())?
}
// ANCHOR_END: ping_pong

/// The same on two OS threads with crossbeam-channel.
pub fn ping_pong_crossbeam(n: u64) -> Result<(LatencyHistogram, Duration), String> {
    let (ping_tx, ping_rx) = crossbeam_channel::bounded::<u64>(1);
    let (pong_tx, pong_rx) = crossbeam_channel::bounded::<u64>(1);
    std::thread::spawn(move || {
        for v in ping_rx.iter() {
            if pong_tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut rtt = LatencyHistogram::new();
    let start = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        ping_tx.send(i).map_err(|e| e.to_string())?;
        if pong_rx.recv().ok() != Some(i) {
            return Err(format!("round trip {i} came back wrong"));
        }
        rtt.record(t.elapsed());
    }
    Ok((rtt, start.elapsed()))
}

// ANCHOR: select
/// Two senders, `n` messages in all, into two channels; one task receives from
/// both with `tokio::select!` until both are closed.
pub async fn select_two<F: Flavor>(
    capacity: usize,
    n: u64,
) -> Result<Moved, String> {
    let (tx_a, mut rx_a) = F::bounded(capacity);
    let (tx_b, mut rx_b) = F::bounded(capacity);
    let start = Instant::now();
    for (s, tx) in [tx_a, tx_b].into_iter().enumerate() {
        tokio::spawn(async move {
            for i in share(n, 2, s) {
                if !F::send(&tx, i).await {
                    break;
                }
            }
        });
    }
    let receiver = tokio::spawn(async move {
        let (mut sum, mut count) = (0u64, 0u64);
        let (mut a_open, mut b_open) = (true, true);
        let (mut buf_a, mut buf_b) = (Vec::new(), Vec::new());
        while a_open || b_open {
            tokio::select! {
                got = F::recv_into(&mut rx_a, &mut buf_a), if a_open => {
                    a_open = got > 0;
                }
                got = F::recv_into(&mut rx_b, &mut buf_b), if b_open => {
                    b_open = got > 0;
                }
            }
            for v in buf_a.drain(..).chain(buf_b.drain(..)) {
                sum = sum.wrapping_add(mix(v));
                count += 1;
            }
        }
        (sum, count)
    });
    let (sum, messages) = receiver.await.map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    check(messages, sum, n)?;
    Ok(Moved { seconds, messages })
}
// ANCHOR_END: select

/// The same on OS threads with crossbeam's `select!`.
pub fn select_two_crossbeam(capacity: usize, n: u64) -> Result<Moved, String> {
    let (tx_a, rx_a) = crossbeam_channel::bounded::<u64>(capacity);
    let (tx_b, rx_b) = crossbeam_channel::bounded::<u64>(capacity);
    let start = Instant::now();
    for (s, tx) in [tx_a, tx_b].into_iter().enumerate() {
        std::thread::spawn(move || {
            for i in share(n, 2, s) {
                if tx.send(i).is_err() {
                    break;
                }
            }
        });
    }
    let (mut sum, mut count) = (0u64, 0u64);
    let (mut a, mut b) = (Some(rx_a), Some(rx_b));
    while a.is_some() || b.is_some() {
        let never = crossbeam_channel::never();
        crossbeam_channel::select! {
            recv(a.as_ref().unwrap_or(&never)) -> v => match v {
                Ok(v) => { sum = sum.wrapping_add(mix(v)); count += 1; }
                Err(_) => a = None,
            },
            recv(b.as_ref().unwrap_or(&never)) -> v => match v {
                Ok(v) => { sum = sum.wrapping_add(mix(v)); count += 1; }
                Err(_) => b = None,
            },
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    check(count, sum, n)?;
    Ok(Moved {
        seconds,
        messages: count,
    })
}

/// What a receiver that keeps cancelling its receives saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled {
    /// Distinct messages received (each arrived once: checked).
    pub received: u64,
    pub cancelled: u64,
    pub lost: u64,
}

// ANCHOR: cancel
/// `n` messages through a channel of capacity 1, received inside `tokio::select!`
/// against a branch that is ready on its second poll, so that many receives are
/// dropped while waiting. Every message the sender got into the channel should
/// still arrive.
pub async fn cancelled_receives<F: Flavor>(n: u64) -> Result<Cancelled, String> {
    let (tx, mut rx) = F::bounded(1);
    let sender = tokio::spawn(async move {
        let mut sent = 0u64;
        for i in 0..n {
            if !F::send(&tx, i).await {
                break;
            }
            sent += 1;
        }
        sent
    });
    let (mut seen, mut arrivals, mut cancelled) = (vec![false; n as usize], 0, 0);
    loop {
        tokio::select! {
            v = F::recv(&mut rx) => match v {
                Some(v) => {
                    seen[v as usize] = true;
                    arrivals += 1;
                }
                None => break,
            },
            _ = tokio::task::yield_now() => cancelled += 1,
        }
    }
    let sent = sender.await.map_err(|e| e.to_string())?;
    let received = seen.iter().filter(|&&s| s).count() as u64;
    if arrivals != received {
        return Err(format!(
            "{arrivals} arrivals of {received} distinct messages"
        ));
    }
    Ok(Cancelled {
        received,
        cancelled,
        lost: sent - received,
    })
}
// ANCHOR_END: cancel

/// A receiver a little slower than its sender: it yields after each message, so a
/// channel of capacity 1 is full most of the time. Returns how many distinct
/// messages of `0..n` arrived.
fn slow_receiver(
    mut rx: tokio::sync::mpsc::Receiver<u64>,
    n: u64,
) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut seen = vec![false; n as usize];
        while let Some(v) = rx.recv().await {
            seen[v as usize] = true;
            tokio::task::yield_now().await;
        }
        seen.iter().filter(|&&s| s).count() as u64
    })
}

// ANCHOR: cancelled_sends
/// The pitfall: `send` raced against another branch in `tokio::select!`. The send
/// future owns its message; when the other branch wins, the message goes with it.
pub async fn sends_in_select(n: u64) -> Result<Cancelled, String> {
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let receiver = slow_receiver(rx, n);
    let mut cancelled = 0;
    for i in 0..n {
        tokio::select! {
            sent = tx.send(i) => sent.map_err(|_| "the receiver is gone")?,
            _ = tokio::task::yield_now() => cancelled += 1,
        }
    }
    drop(tx);
    let received = receiver.await.map_err(|e| e.to_string())?;
    Ok(Cancelled {
        received,
        cancelled,
        lost: n - received,
    })
}

/// The fix: race `reserve()` instead. A cancelled reservation holds no message, so
/// the loop tries again with the same one; `permit.send` cannot wait or fail.
pub async fn reserve_in_select(n: u64) -> Result<Cancelled, String> {
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let receiver = slow_receiver(rx, n);
    let mut cancelled = 0;
    for i in 0..n {
        loop {
            tokio::select! {
                permit = tx.reserve() => {
                    permit.map_err(|_| "the receiver is gone")?.send(i);
                    break;
                }
                _ = tokio::task::yield_now() => cancelled += 1,
            }
        }
    }
    drop(tx);
    let received = receiver.await.map_err(|e| e.to_string())?;
    Ok(Cancelled {
        received,
        cancelled,
        lost: n - received,
    })
}
// ANCHOR_END: cancelled_sends

// ANCHOR: blocking_recv
/// The pitfall: a blocking channel's `recv` in an async task. The worker sleeps in
/// the kernel until a message comes, and between messages it polls nothing else:
/// the loop never returns `Pending`.
pub async fn consume_blocking(rx: crossbeam_channel::Receiver<u64>) -> u64 {
    let mut sum = 0u64;
    while let Ok(v) = rx.recv() {
        sum = sum.wrapping_add(mix(v));
    }
    sum
}

/// The fix: an async channel, whose `recv().await` gives the worker back while it
/// waits.
pub async fn consume_async(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<u64>,
) -> u64 {
    let mut sum = 0u64;
    while let Some(v) = rx.recv().await {
        sum = sum.wrapping_add(mix(v));
    }
    sum
}
// ANCHOR_END: blocking_recv

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        measure::runtime(2).unwrap()
    }

    #[test]
    fn a_cancelled_send_loses_its_message_and_a_cancelled_reserve_loses_none() {
        let rt = rt();
        let naive = rt
            .block_on(rt.spawn(sends_in_select(5_000)))
            .unwrap()
            .unwrap();
        assert_eq!(naive.lost, naive.cancelled, "{naive:?}");
        assert_eq!(naive.received + naive.lost, 5_000);
        let fixed = rt
            .block_on(rt.spawn(reserve_in_select(5_000)))
            .unwrap()
            .unwrap();
        assert_eq!((fixed.lost, fixed.received), (0, 5_000), "{fixed:?}");
    }

    #[test]
    fn both_consumers_add_up_every_message() {
        let rt = rt();
        let want = (0..100).map(mix).fold(0, u64::wrapping_add);
        let (tx, rx) = crossbeam_channel::unbounded();
        (0..100).for_each(|i| tx.send(i).unwrap());
        drop(tx);
        assert_eq!(rt.block_on(consume_blocking(rx)), want);
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (0..100).for_each(|i| tx.send(i).unwrap());
        drop(tx);
        assert_eq!(rt.block_on(consume_async(rx)), want);
    }
}
