//! Group commit for SQLite: deliveries arriving together are stored in one
//! transaction (SQLite has one writer; a commit per delivery would make the
//! receiver wait in line). Each caller is answered after the commit.

use std::sync::Arc;

use anyhow::{Result, anyhow};
use sqlx::SqlitePool;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::{Accepted, NewJob, accept_in, now_ms};

/// Deliveries per transaction at most.
const MAX_BATCH: usize = 256;

/// One delivery to store.
#[derive(Debug)]
pub struct Delivery {
    pub id: String,
    pub event: String,
    pub jobs: Vec<NewJob>,
}

type Reply = oneshot::Sender<Result<Accepted, String>>;

/// The handle callers send deliveries through.
#[derive(Clone, Debug)]
pub struct Batcher {
    queue: mpsc::Sender<(Delivery, Reply)>,
}

impl Batcher {
    pub fn start(pool: SqlitePool, writer: Arc<Mutex<()>>) -> Batcher {
        let (queue, mut incoming) = mpsc::channel::<(Delivery, Reply)>(4 * MAX_BATCH);
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(MAX_BATCH);
            while incoming.recv_many(&mut batch, MAX_BATCH).await > 0 {
                let outcome = {
                    let _guard = writer.lock().await;
                    commit(&pool, &batch).await
                };
                match outcome {
                    Ok(results) => {
                        for ((_, reply), result) in batch.drain(..).zip(results) {
                            let _ = reply.send(Ok(result));
                        }
                    }
                    Err(err) => {
                        let message = format!("{err:#}");
                        for (_, reply) in batch.drain(..) {
                            let _ = reply.send(Err(message.clone()));
                        }
                    }
                }
            }
        });
        Batcher { queue }
    }

    pub async fn accept(&self, delivery: Delivery) -> Result<Accepted> {
        let (reply, answer) = oneshot::channel();
        self.queue.send((delivery, reply)).await.map_err(|_| anyhow!("the store is shutting down"))?;
        answer.await.map_err(|_| anyhow!("the store is shutting down"))?.map_err(|e| anyhow!(e))
    }
}

async fn commit(pool: &SqlitePool, batch: &[(Delivery, Reply)]) -> Result<Vec<Accepted>> {
    let now = now_ms();
    let mut tx = pool.begin().await?;
    let mut results = Vec::with_capacity(batch.len());
    for (delivery, _) in batch {
        results.push(accept_in!(tx, delivery, now));
    }
    tx.commit().await?;
    Ok(results)
}
