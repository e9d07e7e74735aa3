//! A run: for each webhook, plan its requests, send them (several in flight), check every answer.
//! Data flows one way: target → client → requests → responses → checks → report.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::checks::{evaluate, Exchange, Finding};
use crate::client::{Client, HttpVersions, Transport};
use crate::config::WebhookSpec;
use crate::report::RunReport;
use crate::requests::{plan, RequestCase};
use crate::target::RunningTarget;

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub http: HttpVersions,
    /// Requests in flight at once.
    pub concurrency: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { http: HttpVersions::Http1, concurrency: 8 }
    }
}

/// One request, its answer, and every rule's verdict on it.
#[derive(Clone, Debug)]
pub struct ExchangeRecord {
    pub webhook: Arc<WebhookSpec>,
    pub case: RequestCase,
    pub url: String,
    pub transport: Transport,
    pub findings: Vec<Finding>,
}

/// Send `case` to `webhook` and check the answer.
pub async fn exchange(client: &Client, webhook: Arc<WebhookSpec>, case: RequestCase) -> ExchangeRecord {
    let body = serde_json::to_vec(&case.review).expect("a JSON value serializes");
    let path = webhook.path();
    let url = client.endpoint().call_url(&path, webhook.timeout_seconds).to_string();
    let transport = client.call(&path, webhook.timeout_seconds, &body).await;
    let findings = evaluate(&Exchange::new(&webhook, &case, &transport, &url));
    ExchangeRecord { webhook, case, url, transport, findings }
}

/// Run the default checks of every webhook against the target.
pub async fn run(
    webhooks: &[WebhookSpec],
    target: &mut RunningTarget,
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    let started = Instant::now();
    let client = Arc::new(Client::new(target.endpoint.clone(), options.http)?);
    let limit = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    let mut order = 0usize;
    for webhook in webhooks {
        let webhook = Arc::new(webhook.clone());
        for case in plan(&webhook) {
            let (client, webhook, limit) = (client.clone(), webhook.clone(), limit.clone());
            let index = order;
            order += 1;
            tasks.spawn(async move {
                let _permit = limit.acquire_owned().await.expect("semaphore open");
                (index, exchange(&client, webhook, case).await)
            });
        }
    }
    let mut records = Vec::with_capacity(order);
    while let Some(done) = tasks.join_next().await {
        records.push(done?);
    }
    records.sort_by_key(|(i, _)| *i);
    let records = records.into_iter().map(|(_, r)| r).collect();
    let mut notes = target.notes.clone();
    for w in webhooks.iter().filter(|w| !w.match_conditions.is_empty()) {
        notes.push(format!(
            "{}: its {} matchConditions (CEL) are not evaluated; requests were sent whatever they say, so a finding on a request they exclude is one a cluster never shows",
            w.name,
            w.match_conditions.len()
        ));
    }
    if let Some(status) = target.exit_status() {
        notes.push(format!("the target exited during the run ({status})"));
    }
    Ok(RunReport {
        target: target.description.clone(),
        ca_file: target.reproducer_ca(),
        resolve_to: target.endpoint.resolve_to,
        records,
        duration: started.elapsed(),
        notes,
        target_log: target.log_tail(),
        cases: Vec::new(),
        lint: Vec::new(),
    })
}

/// Block on a run with a fresh runtime (for callers that are not async).
pub fn run_blocking(
    webhooks: &[WebhookSpec],
    target: &mut RunningTarget,
    options: &RunOptions,
) -> anyhow::Result<RunReport> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(run(webhooks, target, options))
}

/// The longest a run can wait on one request, for callers that set outer deadlines.
pub fn max_call(webhooks: &[WebhookSpec]) -> Duration {
    Duration::from_secs(webhooks.iter().map(|w| u64::from(w.timeout_seconds)).max().unwrap_or(10))
}
