//! No delivery lost: GitHub does not redeliver a delivery the App refused
//! (a 503: the body budget, the database unreachable) or missed while it
//! was down ("Handling failed webhook deliveries"). At start and every
//! interval, one replica at a time reads the App's delivery history with its
//! JWT, newest first, and asks GitHub to redeliver each delivery that failed,
//! whose GUID the App never stored and that no later attempt delivered.
//!
//! Bounds: a pass reads back to where the previous pass began (less an
//! overlap: deliveries take minutes to appear in GitHub's log), never past
//! GitHub's 3 days of history, at most `pages` pages a sweep (a longer pass
//! goes on from its cursor at the next sweep); at most `max_per_sweep`
//! redeliveries a sweep, `pace` apart ("Best practices for using the REST
//! API": a second between content-creating requests), and `max_attempts`
//! per GUID. Where the sweep stands and every GUID asked for are stored, so
//! a restart goes on where it stopped and replicas never ask twice at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use tokio::sync::watch;

use crate::github::{GitHub, HookDelivery};
use crate::metrics::Metrics;
use crate::store::{Store, SweepState, now_ms};

/// GitHub keeps 3 days of deliveries ("Redelivering webhooks").
pub(crate) const HISTORY: Duration = Duration::from_secs(3 * 24 * 3600);

/// How the sweep for failed deliveries runs.
#[derive(Clone, Copy, Debug)]
pub struct RedeliverPolicy {
    /// Between sweeps; the first runs at start. Zero: no sweep.
    pub interval: Duration,
    /// Pages (100 deliveries each) one sweep reads at most.
    pub pages: u32,
    /// Redeliveries one sweep asks for at most.
    pub max_per_sweep: usize,
    /// Between two redelivery requests.
    pub pace: Duration,
    /// How long GitHub is given to make a redelivery before the same GUID
    /// may be asked for again.
    pub claim: Duration,
    /// Redeliveries of one GUID at most.
    pub max_attempts: i64,
    /// How far before the previous pass's start a pass reads.
    pub overlap: Duration,
}

impl Default for RedeliverPolicy {
    fn default() -> Self {
        RedeliverPolicy {
            interval: Duration::from_secs(300),
            pages: 10,
            max_per_sweep: 100,
            pace: Duration::from_secs(1),
            claim: Duration::from_secs(600),
            max_attempts: 3,
            overlap: Duration::from_secs(900),
        }
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// What one sweep did (nothing when another replica holds the sweep).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Swept {
    pub pages: u32,
    pub requested: usize,
    pub failed: usize,
}

/// Sweeps at start and every interval until `stop`.
pub(crate) async fn run(
    store: Store,
    github: GitHub,
    metrics: Arc<Metrics>,
    policy: RedeliverPolicy,
    mut stop: watch::Receiver<bool>,
) {
    if policy.interval.is_zero() {
        return;
    }
    let owner = super::worker::worker_id(usize::MAX);
    loop {
        tokio::select! {
            swept = sweep(&store, &github, &metrics, &policy, &owner) => match swept {
                Ok(swept) if swept.requested + swept.failed > 0 => {
                    tracing::info!(requested = swept.requested, failed = swept.failed, "asked GitHub to redeliver failed deliveries");
                }
                Ok(_) => {}
                Err(err) => tracing::warn!(error = %err, "cannot sweep for failed deliveries; trying at the next interval"),
            },
            _ = stop.changed() => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(policy.interval) => {}
            _ = stop.changed() => return,
        }
    }
}

/// One sweep, under the sweep's lease.
pub(crate) async fn sweep(
    store: &Store,
    github: &GitHub,
    metrics: &Metrics,
    policy: &RedeliverPolicy,
    owner: &str,
) -> Result<Swept> {
    let now = now_ms();
    // Long enough for the sweep's reads and its paced requests.
    let lease = policy.interval + policy.pace * policy.max_per_sweep as u32 + Duration::from_secs(300);
    let Some(state) = store.lease_sweep(owner, now, now + ms(lease)).await? else {
        return Ok(Swept::default());
    };
    let swept = sweep_held(store, github, metrics, policy, owner, state, now).await;
    store.release_sweep(owner).await?;
    swept
}

async fn sweep_held(
    store: &Store,
    github: &GitHub,
    metrics: &Metrics,
    policy: &RedeliverPolicy,
    owner: &str,
    mut state: SweepState,
    now: i64,
) -> Result<Swept> {
    let oldest = now - ms(HISTORY);
    if state.cursor.is_none() {
        // A new pass, back to where the previous one began (3 days at first).
        let floor = if state.pass_start == 0 { oldest } else { state.pass_start - ms(policy.overlap) };
        state = SweepState { pass_start: now, floor, cursor: None };
    }
    let floor = state.floor.max(oldest);
    let mut swept = Swept::default();
    let mut read: Vec<HookDelivery> = Vec::new();
    let mut page = state.cursor.clone();
    let mut complete = false;
    let mut read_error = None;
    while swept.pages < policy.pages.max(1) {
        let (items, next) = match github.hook_deliveries(page.as_deref()).await {
            Ok(answer) => answer,
            Err(err) => {
                read_error = Some(err);
                break;
            }
        };
        swept.pages += 1;
        let listed = items.len();
        let within: Vec<HookDelivery> =
            items.into_iter().take_while(|d| d.delivered_at_ms().is_none_or(|at| at >= floor)).collect();
        let reached_floor = within.len() < listed;
        read.extend(within);
        page = next;
        if page.is_none() || reached_floor {
            complete = true;
            break;
        }
    }
    if swept.pages == 0 {
        return Err(read_error.map_or_else(|| anyhow::anyhow!("no page read"), anyhow::Error::from));
    }
    let (requested, cut_short) = redeliver_failed(store, github, metrics, policy, &read).await?;
    swept.requested = requested.0;
    swept.failed = requested.1;
    if cut_short {
        // The same pages are read again at the next sweep: the GUIDs asked
        // for are claimed, the rest are asked for then.
        return Ok(swept);
    }
    state.cursor = if complete { None } else { page };
    store.save_sweep(owner, &state).await?;
    if let Some(err) = read_error {
        tracing::warn!(error = %err, "cannot read GitHub's delivery history to its end; going on at the next sweep");
    }
    Ok(swept)
}

/// The deliveries in `read` to redeliver: per GUID, none of its attempts
/// succeeded and the App never stored it; oldest first.
async fn failed(store: &Store, read: &[HookDelivery]) -> Result<Vec<(String, u64)>> {
    let mut by_guid: HashMap<&str, (bool, u64)> = HashMap::new();
    for delivery in read {
        let entry = by_guid.entry(&delivery.guid).or_insert((false, 0));
        entry.0 |= delivery.succeeded();
        entry.1 = entry.1.max(delivery.id);
    }
    let mut failed: Vec<(String, u64)> =
        by_guid.into_iter().filter(|(_, (ok, _))| !ok).map(|(guid, (_, id))| (guid.to_string(), id)).collect();
    failed.sort_by_key(|(_, id)| *id);
    let mut unstored = Vec::with_capacity(failed.len());
    for (guid, id) in failed {
        if !store.delivery_stored(&guid).await? {
            unstored.push((guid, id));
        }
    }
    Ok(unstored)
}

/// Asks for the redelivery of each failed delivery in `read` that no claim
/// holds, within the sweep's bound and pace. Returns (accepted, refused)
/// and whether the bound cut the sweep short.
async fn redeliver_failed(
    store: &Store,
    github: &GitHub,
    metrics: &Metrics,
    policy: &RedeliverPolicy,
    read: &[HookDelivery],
) -> Result<((usize, usize), bool)> {
    let (mut accepted, mut refused) = (0, 0);
    for (guid, id) in failed(store, read).await? {
        if accepted + refused >= policy.max_per_sweep {
            return Ok(((accepted, refused), true));
        }
        let now = now_ms();
        let Some(attempt) = store.claim_redelivery(&guid, id, now, now + ms(policy.claim), policy.max_attempts).await?
        else {
            continue;
        };
        if attempt == 1 {
            metrics.redelivery_found();
        }
        if accepted + refused > 0 {
            tokio::time::sleep(policy.pace).await;
        }
        match github.redeliver(id).await {
            Ok(()) => {
                metrics.redelivery_requested(true);
                tracing::info!(%guid, delivery = id, "asked GitHub to redeliver a failed delivery");
                accepted += 1;
            }
            Err(err) => {
                metrics.redelivery_requested(false);
                tracing::warn!(%guid, delivery = id, error = %err, "GitHub did not take a redelivery request");
                if !matches!(err, crate::github::ApiError::Uncertain { .. }) {
                    store.release_redelivery(&guid).await?;
                }
                refused += 1;
            }
        }
    }
    Ok(((accepted, refused), false))
}
