//! The manifest step of a run: every manifest rule on every webhook of the configuration, with the
//! caBundle checked against the certificate the target serves when the user runs it with their own.

use std::net::SocketAddr;
use std::time::Duration;

use crate::client::{handshake, Endpoint, HandshakeError};
use crate::config::WebhookSpec;
use crate::rules::{rule, Judges, CATALOG, CA_BUNDLE};
use crate::verdict::{Check, Finding, Softened, Subject};

/// Every manifest rule on every webhook (rule order within each webhook), without the network.
pub(crate) fn lint(webhooks: &[WebhookSpec]) -> Vec<Finding> {
    let mut out = Vec::new();
    for w in webhooks {
        for rule in CATALOG {
            let Judges::Manifest { check } = rule.judges else { continue };
            let finding = Finding::judge(rule.id, rule.severity, check(w), Softened::No);
            out.push(finding.about(Subject::Manifest { webhook: w.name.clone() }));
        }
    }
    out
}

/// [`lint`], with `manifest.ca-bundle` judged against the certificate served at `user_endpoint` (the
/// target the user runs with their own certificates; `None` when the suite made them).
pub(crate) async fn lint_served(webhooks: &[WebhookSpec], user_endpoint: Option<&Endpoint>) -> Vec<Finding> {
    let mut findings = lint(webhooks);
    for s in ca_bundle_served(webhooks, user_endpoint).await {
        if let Some(f) = findings.iter_mut().find(|f| f.rule == CA_BUNDLE && f.subject == s.subject) {
            *f = s;
        } else {
            findings.push(s);
        }
    }
    findings
}

/// `manifest.ca-bundle` against the certificate the target really serves: a handshake trusting
/// only the caBundle. `endpoint` is `None` when the suite generated the certificate itself (then the
/// caBundle is not checked: it cannot vouch for a certificate minted for this run).
async fn ca_bundle_served(webhooks: &[WebhookSpec], endpoint: Option<&Endpoint>) -> Vec<Finding> {
    let rule = rule(CA_BUNDLE).expect("the ca-bundle rule exists");
    let mut out = Vec::new();
    for w in webhooks {
        let check = match (w.ca_bundle_pem(), endpoint) {
            (None, _) => Check::na("no caBundle in the manifest: the served certificate was not checked against it"),
            (Some(Err(e)), _) => Check::violated_plain(e.to_string()),
            (Some(Ok(_)), None) => {
                Check::na("the suite generated the serving certificate for this run: the caBundle was not checked")
            }
            (Some(Ok(pem)), Some(endpoint)) => match served_addr(endpoint).await {
                Err(e) => Check::na(format!("cannot reach the target to check the caBundle: {e}")),
                Ok(addr) => {
                    let with_bundle = Endpoint { ca_pem: pem, ..endpoint.for_webhook(&w.name) };
                    match handshake(&with_bundle, addr, Duration::from_secs(5)).await {
                        Ok(()) => Check::Pass,
                        // The caBundle vouches for it; a name it lacks is transport.connect's finding.
                        Err(HandshakeError::WrongName(m)) if m.untrusted.is_none() => Check::Pass,
                        Err(e) => Check::violated_plain(format!(
                            "the caBundle does not verify the certificate the webhook serves at {}: {e}",
                            endpoint.base
                        )),
                    }
                }
            },
        };
        let finding = Finding::judge(rule.id, rule.severity, check, Softened::No);
        out.push(finding.about(Subject::Manifest { webhook: w.name.clone() }));
    }
    out
}

/// Why the address a webhook is served at is unknown.
#[derive(Debug, thiserror::Error)]
enum AddrError {
    /// The name resolves to nothing.
    #[error("{host} has no address")]
    NoAddress { host: String },
    /// The name does not resolve.
    #[error("cannot resolve {host}: {source}")]
    Lookup {
        host: String,
        #[source]
        source: std::io::Error,
    },
    /// The lookup took too long.
    #[error("resolving {host}: no answer within 5 s")]
    Timeout { host: String },
}

async fn served_addr(endpoint: &Endpoint) -> Result<SocketAddr, AddrError> {
    if let Some(a) = endpoint.resolve_to {
        return Ok(a);
    }
    let host = endpoint.base.host_str().unwrap_or("localhost").trim_matches(['[', ']']).to_string();
    let port = endpoint.base.port_or_known_default().unwrap_or(443);
    let lookup = tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((host.as_str(), port)));
    let result = match lookup.await {
        Ok(Ok(mut addrs)) => addrs.next().ok_or_else(|| AddrError::NoAddress { host: host.clone() }),
        Ok(Err(source)) => Err(AddrError::Lookup { host: host.clone(), source }),
        Err(_) => Err(AddrError::Timeout { host: host.clone() }),
    };
    result
}

#[cfg(test)]
mod tests;
