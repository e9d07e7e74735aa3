//! A `curl` command that replays a request against the target.

use std::net::SocketAddr;
use std::path::Path;

use crate::exchange::ExchangeRecord;

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r#"'\''"#))
}

/// `curl` with the apiserver's method, headers and body, trusting the run's CA (a placeholder path
/// when the generated CA was temporary: keep it with `--tls-dir`).
pub fn curl_command(record: &ExchangeRecord, ca_file: Option<&Path>, resolve_to: Option<SocketAddr>) -> String {
    let ca = ca_file.map(|p| p.display().to_string()).unwrap_or_else(|| "ca.pem".to_string());
    let mut cmd = format!("curl --http1.1 --cacert {}", shell_quote(&ca));
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
