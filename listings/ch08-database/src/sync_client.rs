//! The synchronous driver: `postgres::Client`, which wraps tokio-postgres with a
//! current-thread runtime of its own and blocks on it (postgres 0.19's
//! `connection.rs`). Called on a Tokio worker it panics ("Cannot start a runtime
//! from within a runtime"), so each client lives on an OS thread of its own here,
//! and [`SyncClients::book_after_wait`] blocks the calling thread until one answers:
//! what a blocking driver (libpq, say) does to the thread that calls it.

use crate::shelf::{BOOK_AFTER_WAIT, Book};
use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use std::thread::JoinHandle;

struct Job {
    id: i32,
    wait_s: f64,
    reply: Sender<Result<Book, String>>,
}

/// `n` synchronous connections, each owned by a thread; cloning shares them.
#[derive(Clone)]
pub struct SyncClients {
    jobs: Sender<Job>,
}

/// Owns the threads: dropping it after every [`SyncClients`] clone is gone
/// closes the connections.
pub struct SyncThreads {
    threads: Vec<JoinHandle<()>>,
}

impl SyncClients {
    /// Connects `n` clients to `url`.
    pub fn connect(
        url: &str,
        n: usize,
    ) -> Result<(SyncClients, SyncThreads), String> {
        let (jobs, todo) = unbounded::<Job>();
        let mut threads = Vec::new();
        for _ in 0..n {
            let (ready_tx, ready_rx) = bounded(1);
            let (url, todo) = (url.to_string(), todo.clone());
            threads.push(std::thread::spawn(move || serve(&url, todo, ready_tx)));
            ready_rx
                .recv()
                .map_err(|_| "a synchronous client's thread ended".to_string())??;
        }
        Ok((SyncClients { jobs }, SyncThreads { threads }))
    }

    /// Book `id` after `wait_s` in the database; blocks this thread until answered.
    pub fn book_after_wait(&self, id: i32, wait_s: f64) -> Result<Book, String> {
        let (reply, answer) = bounded(1);
        self.jobs
            .send(Job { id, wait_s, reply })
            .map_err(|_| "the synchronous clients are closed".to_string())?;
        answer
            .recv()
            .map_err(|_| "a synchronous client's thread ended".to_string())?
    }
}

impl SyncThreads {
    /// Waits for the threads, once every `SyncClients` clone is dropped.
    pub fn join(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }
}

fn serve(url: &str, todo: Receiver<Job>, ready: Sender<Result<(), String>>) {
    let mut client = match postgres::Client::connect(url, postgres::NoTls) {
        Ok(c) => {
            let _ = ready.send(Ok(()));
            c
        }
        Err(e) => {
            let _ = ready
                .send(Err(format!("the synchronous client cannot connect: {e}")));
            return;
        }
    };
    let statement = match client.prepare(BOOK_AFTER_WAIT) {
        Ok(s) => s,
        Err(e) => {
            // Every job gets the error rather than a hang.
            for job in todo {
                let _ = job
                    .reply
                    .send(Err(format!("cannot prepare the query: {e}")));
            }
            return;
        }
    };
    for job in todo {
        let answer = client
            .query_one(&statement, &[&job.id, &job.wait_s])
            .map(|row| Book {
                id: row.get(0),
                title: row.get(1),
                author: row.get(2),
            })
            .map_err(|e| format!("synchronous query: {e}"));
        let _ = job.reply.send(answer);
    }
}
