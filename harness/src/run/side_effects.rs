//! The side-effects step: what each webhook did to the recording Kubernetes API while it admitted
//! the suite's requests, judged by the side-effects rules.
//!
//! Every call the recorder saw is attributed to an admission request: by uid when the call carries
//! one the suite sent (in its path, query, headers or body), otherwise by time — to the requests in
//! flight when it arrived, when they all went to one webhook. During the other steps many requests
//! are in flight at once, dry runs beside real ones, so a call made while both were in flight is
//! left unattributed. That is why this step ends the run with requests sent one at a time: for each
//! webhook that declares `None` or `NoneOnDryRun`, a few planned requests (one per operation) with
//! `dryRun: true` and then `false`, each with the webhook's calls until it is quiet again attributed
//! to it alone. Only those windows (and uids) attribute a call to a dry run.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::apiserver::{ApiCall, Recording};
use crate::checks::property::dry_run_supported;
use crate::checks::side_effects::{Activity, AttributedCall};
use crate::client::{Admission, AdmissionLog, Client};
use crate::config::WebhookSpec;
use crate::requests::{plan_in, ApiResources};
use crate::rules::{Judges, CATALOG};
use crate::verdict::{Finding, Softened, Subject};

/// How long the API must have been quiet before the next probe.
const QUIET: Duration = Duration::from_millis(100);
/// The longest wait for quiet.
const QUIET_LIMIT: Duration = Duration::from_secs(2);
/// Probes per webhook at most (one per operation).
const PROBES: usize = 4;

/// What the step found: the findings, and what the report says of the calls.
pub(super) struct SideEffects {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

/// Wait until `recording` has had no new call for [`QUIET`] (at most [`QUIET_LIMIT`]); at once when
/// the webhook never called the API.
async fn settle(recording: &Recording) {
    if recording.is_empty() {
        return;
    }
    let until = Instant::now() + QUIET_LIMIT;
    let mut seen = recording.len();
    let mut quiet_since = Instant::now();
    while Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = recording.len();
        if now != seen {
            seen = now;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= QUIET {
            return;
        }
    }
}

/// Send the probes one at a time: each one's window (uid → end) is exclusive.
async fn probe(
    webhooks: &[Arc<WebhookSpec>],
    client: &Client,
    api: &ApiResources,
    log: &AdmissionLog,
    recording: &Recording,
) -> HashMap<String, Instant> {
    let mut windows = HashMap::new();
    settle(recording).await;
    for w in webhooks.iter().filter(|w| dry_run_supported(w)) {
        let mut operations = Vec::new();
        let cases: Vec<_> = plan_in(w, api)
            .into_iter()
            .filter(|c| c.primary)
            .filter(|c| {
                let op = c.spec.operation;
                let fresh = !operations.contains(&op);
                operations.push(op);
                fresh
            })
            .take(PROBES)
            .collect();
        for case in cases {
            for dry in [true, false] {
                if client.is_cancelled() {
                    return windows;
                }
                let case = case.with_dry_run(dry);
                let before = log.pushed();
                let path = w.path();
                client.call_review_as(&w.name, &path, w.timeout_seconds, &case.review, false).await;
                settle(recording).await;
                if let Some(uid) = log.uid_of(before) {
                    windows.insert(uid, Instant::now());
                }
            }
        }
    }
    windows
}

/// The webhook requests sent to `webhook` (when the caller said) at `path` went to: the one named,
/// or the only one at its path.
fn owner<'a>(webhook: Option<&'a str>, path: &str, webhooks: &'a [Arc<WebhookSpec>]) -> Option<&'a str> {
    if let Some(w) = webhook {
        return Some(w);
    }
    let mut at_path = webhooks.iter().filter(|w| w.path() == path);
    match (at_path.next(), at_path.next()) {
        (Some(w), None) => Some(&w.name),
        _ => None,
    }
}

/// Why a call is attributed to no admission request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unattributed {
    /// Nothing was being admitted (start-up, informers, background work).
    Outside,
    /// Requests of several webhooks, or dry and real ones, were in flight.
    Ambiguous,
}

fn attribute(
    call: &ApiCall,
    admissions: &[Admission],
    windows: &HashMap<String, Instant>,
    webhooks: &[Arc<WebhookSpec>],
) -> Result<(String, AttributedCall), Unattributed> {
    let by_uid: Vec<&Admission> = admissions.iter().filter(|a| call.uids.contains(&a.uid)).collect();
    let (candidates, exclusive) = if by_uid.is_empty() {
        let in_flight: Vec<&Admission> = admissions
            .iter()
            .filter(|a| {
                let end = windows.get(&a.uid).copied().or(a.end).unwrap_or_else(Instant::now);
                a.start <= call.at && call.at <= end
            })
            .collect();
        let exclusive = in_flight.len() == 1 && windows.contains_key(&in_flight[0].uid);
        (in_flight, exclusive)
    } else {
        (by_uid, true)
    };
    if candidates.is_empty() {
        return Err(Unattributed::Outside);
    }
    let owners: Vec<Option<&str>> = candidates.iter().map(|a| owner(a.webhook.as_deref(), &a.path, webhooks)).collect();
    let Some(Some(webhook)) = owners.first().copied() else { return Err(Unattributed::Ambiguous) };
    if owners.iter().any(|o| *o != Some(webhook)) {
        return Err(Unattributed::Ambiguous);
    }
    let dry = candidates.iter().filter(|a| a.dry_run).count();
    let during_dry_run = match dry {
        0 => false,
        // A dry run only when that is certain: by uid, or alone in a probe's window.
        n if n == candidates.len() && exclusive => true,
        _ => return Err(Unattributed::Ambiguous),
    };
    let shown: Vec<String> = candidates.iter().take(2).map(|a| format!("{} (uid {})", a.summary, a.uid)).collect();
    let how = if call.uids.iter().any(|u| candidates.iter().any(|a| &a.uid == u)) {
        "its uid passed on"
    } else {
        "in flight"
    };
    let admission = format!("{}{}, {how}", shown.join(", "), if candidates.len() > 2 { ", …" } else { "" });
    Ok((webhook.to_string(), AttributedCall { call: call.clone(), admission, during_dry_run }))
}

/// Probe, attribute every call, judge each webhook, and say what was seen.
pub(super) async fn observe(
    webhooks: &[Arc<WebhookSpec>],
    client: &Client,
    api: &ApiResources,
    log: &AdmissionLog,
    recording: Option<&Arc<Recording>>,
    since: usize,
) -> SideEffects {
    let mut activity: BTreeMap<String, Activity> =
        webhooks.iter().map(|w| (w.name.clone(), Activity::default())).collect();
    let mut notes = Vec::new();
    if let Some(recording) = recording {
        let windows = probe(webhooks, client, api, log, recording).await;
        for (sent, n) in log.counts() {
            if let Some(entry) = owner(sent.webhook.as_deref(), &sent.path, webhooks).and_then(|w| activity.get_mut(w))
            {
                if sent.dry_run {
                    entry.dry_run_requests += n;
                } else {
                    entry.requests += n;
                }
            }
        }
        let admissions = log.entries();
        let calls: Vec<ApiCall> = recording.calls().into_iter().skip(since).collect();
        let mut unattributed: BTreeMap<Unattributed, u64> = BTreeMap::new();
        for call in calls.iter().filter(|c| c.authenticated) {
            match attribute(call, &admissions, &windows, webhooks) {
                Ok((w, attributed)) => activity.entry(w).or_default().calls.push(attributed),
                Err(why) => *unattributed.entry(why).or_default() += 1,
            }
        }
        for a in activity.values_mut() {
            a.observed = true;
        }
        notes = describe(&calls, &activity, &unattributed);
    }
    let mut findings = Vec::new();
    for rule in CATALOG {
        let Judges::SideEffects { check } = rule.judges else { continue };
        for w in webhooks {
            let seen = activity.get(&w.name).cloned().unwrap_or_default();
            let finding = Finding::judge(rule.id, rule.severity, check(w, &seen), Softened::No);
            findings.push(finding.about(Subject::Calls { webhook: w.name.clone() }));
        }
    }
    SideEffects { findings, notes }
}

/// The report's account of the calls: one line in all, one per webhook that made any.
fn describe(
    calls: &[ApiCall],
    activity: &BTreeMap<String, Activity>,
    unattributed: &BTreeMap<Unattributed, u64>,
) -> Vec<String> {
    if calls.is_empty() {
        return Vec::new();
    }
    let refused = calls.iter().filter(|c| !c.authenticated).count();
    let outside = unattributed.get(&Unattributed::Outside).copied().unwrap_or(0);
    let ambiguous = unattributed.get(&Unattributed::Ambiguous).copied().unwrap_or(0);
    let mut notes = vec![format!(
        "the webhook called the recording Kubernetes API the suite serves it {} time(s): {refused} refused for lacking the token it was given, {outside} while no request was being admitted, {ambiguous} while requests of several webhooks or dry and real ones were in flight (not attributed); calls to anything but this API (other services, files, clouds) are not seen",
        calls.len()
    )];
    for (webhook, a) in activity {
        if a.calls.is_empty() {
            continue;
        }
        let mut by_call: BTreeMap<String, u64> = BTreeMap::new();
        for c in &a.calls {
            let dry = if c.call.dry_run { "?dryRun=All" } else { "" };
            *by_call.entry(format!("{} {}{dry}", c.call.method, c.call.path)).or_default() += 1;
        }
        let reads = a.calls.iter().filter(|c| !c.call.is_write()).count();
        let writes = a.calls.len() - reads;
        let during_dry = a.calls.iter().filter(|c| c.call.is_write() && c.during_dry_run).count();
        let list: Vec<String> = by_call.iter().take(8).map(|(k, n)| format!("{k} ×{n}")).collect();
        let more = if by_call.len() > 8 { format!(", and {} more", by_call.len() - 8) } else { String::new() };
        notes.push(format!(
            "{webhook}: while admitting its requests, {reads} read(s) and {writes} write(s) to the API ({during_dry} write(s) during dry runs): {}{more}",
            list.join(", ")
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn webhooks() -> Vec<Arc<WebhookSpec>> {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: NoneOnDryRun\n    clientConfig: {url: \"https://hook.example.com/a\"}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n  - name: b.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: NoneOnDryRun\n    clientConfig: {url: \"https://hook.example.com/b\"}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        let manifest = crate::config::Manifest::parse(std::path::Path::new("m.yaml"), text).unwrap();
        manifest.webhooks.into_iter().map(Arc::new).collect()
    }

    fn admission(uid: &str, path: &str, dry_run: bool, start: Instant, end: Instant) -> Admission {
        Admission {
            uid: uid.into(),
            webhook: None,
            path: path.into(),
            dry_run,
            summary: "CREATE pods ns/p".into(),
            start,
            end: Some(end),
        }
    }

    fn call(at: Instant, uids: &[&str]) -> ApiCall {
        ApiCall {
            at,
            method: "POST".into(),
            path: "/api/v1/namespaces/default/configmaps".into(),
            query: String::new(),
            body: "{}".into(),
            status: 201,
            authenticated: true,
            dry_run: false,
            uids: uids.iter().map(|u| u.to_string()).collect(),
        }
    }

    #[test]
    fn a_call_goes_to_its_uid_else_to_the_one_webhook_in_flight_and_to_a_dry_run_only_when_certain() {
        let hooks = webhooks();
        let t0 = Instant::now();
        let t = |ms: u64| t0 + Duration::from_millis(ms);
        let admissions = vec![
            admission("u-real", "/a", false, t(0), t(100)),
            admission("u-dry", "/a", true, t(0), t(100)),
            admission("u-b", "/b", false, t(200), t(300)),
            admission("u-probe", "/a", true, t(400), t(410)),
        ];
        let windows: HashMap<String, Instant> = [("u-probe".to_string(), t(450))].into();
        // By uid: exact, whatever else is in flight.
        let (w, c) = attribute(&call(t(50), &["u-dry"]), &admissions, &windows, &hooks).unwrap();
        assert_eq!((w.as_str(), c.during_dry_run), ("a.example.com", true));
        // By time, a dry and a real request in flight: not attributed.
        assert!(matches!(attribute(&call(t(50), &[]), &admissions, &windows, &hooks), Err(Unattributed::Ambiguous)));
        // By time, one real request of one webhook.
        let (w, c) = attribute(&call(t(250), &[]), &admissions, &windows, &hooks).unwrap();
        assert_eq!((w.as_str(), c.during_dry_run), ("b.example.com", false));
        // Nothing in flight.
        assert!(matches!(attribute(&call(t(150), &[]), &admissions, &windows, &hooks), Err(Unattributed::Outside)));
        // A probe's window runs until the webhook was quiet: a call after its answer is its own.
        let (w, c) = attribute(&call(t(430), &[]), &admissions, &windows, &hooks).unwrap();
        assert_eq!((w.as_str(), c.during_dry_run), ("a.example.com", true));
    }
}
