//! A `curl` command that replays a request against the target.

use std::net::SocketAddr;
use std::path::Path;

use crate::exchange::ExchangeRecord;
use crate::run::ReplayAuth;

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r#"'\''"#))
}

/// `curl` with the apiserver's method, headers and body, trusting the run's CA (a placeholder path
/// when the generated CA was temporary: keep it with `--tls-dir`) and presenting what the run
/// presented to the webhook (a bearer token is read from `$WEBHOOK_TOKEN`, never written out).
pub fn curl_command(
    record: &ExchangeRecord,
    ca_file: Option<&Path>,
    resolve_to: Option<SocketAddr>,
    auth: Option<&ReplayAuth>,
) -> String {
    let ca = ca_file.map(|p| p.display().to_string()).unwrap_or_else(|| "ca.pem".to_string());
    let mut cmd = format!("curl --http1.1 --cacert {}", shell_quote(&ca));
    if let Some(auth) = auth {
        match &auth.certificate {
            Some((cert, key)) => cmd.push_str(&format!(
                " --cert {} --key {}",
                shell_quote(&cert.display().to_string()),
                shell_quote(&key.display().to_string())
            )),
            None if auth.has_certificate => cmd.push_str(" --cert client.crt --key client.key"),
            None => {}
        }
        if auth.bearer_token {
            cmd.push_str(" -H \"Authorization: Bearer $WEBHOOK_TOKEN\"");
        }
        if let Some(user) = &auth.basic_user {
            cmd.push_str(&format!(" -u {}", shell_quote(user)));
        }
    }
    if let (Some(addr), Ok(url)) = (resolve_to, reqwest::Url::parse(&record.url)) {
        if let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) {
            cmd.push_str(&format!(" --resolve {}", shell_quote(&format!("{host}:{port}:{}", addr.ip()))));
        }
    }
    let body = serde_json::to_string_pretty(&record.case.review).expect("JSON serializes");
    cmd.push_str(&format!(
        " -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, */*' -A kube-apiserver-admission --data-binary @- {} <<'EOF'\n{body}\nEOF",
        shell_quote(&record.url)
    ));
    cmd
}
