//! A `curl` command that replays a request against the target.

use std::net::SocketAddr;
use std::path::Path;

use crate::exchange::ExchangeRecord;
use crate::run::ReplayAuth;

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r#"'\''"#))
}

/// The curl option that connects to `addr` for `host:port`: `--resolve` when the port is the same,
/// `--connect-to` when it is not (curl's `--resolve` keeps the port).
fn connect_option(host: &str, port: u16, addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    };
    if addr.port() == port {
        format!(" --resolve {}", shell_quote(&format!("{host}:{port}:{ip}")))
    } else {
        format!(" --connect-to {}", shell_quote(&format!("{host}:{port}:{ip}:{}", addr.port())))
    }
}

/// `curl` with the apiserver's method, headers and body, trusting the run's CA (a placeholder path
/// when the generated CA was temporary: keep it with `--tls-dir`) and presenting what the run
/// presented to the webhook (a bearer token is read from `$WEBHOOK_TOKEN`, never written out).
pub(crate) fn curl_command(
    record: &ExchangeRecord,
    ca_file: Option<&Path>,
    resolve_to: Option<SocketAddr>,
    auth: Option<&ReplayAuth>,
) -> String {
    curl_with_body(record, ca_file, resolve_to, auth, None)
}

/// [`curl_command`], its body read from `body_file` (`--data-binary @file`) when one is given,
/// written after the command otherwise.
pub(super) fn curl_with_body(
    record: &ExchangeRecord,
    ca_file: Option<&Path>,
    resolve_to: Option<SocketAddr>,
    auth: Option<&ReplayAuth>,
    body_file: Option<&Path>,
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
            cmd.push_str(&connect_option(host, port, addr));
        }
    }
    if let Some(file) = body_file {
        cmd.push_str(&format!(
            " -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, */*' -A kube-apiserver-admission --data-binary {} {}",
            shell_quote(&format!("@{}", file.display())),
            shell_quote(&record.url)
        ));
        return cmd;
    }
    let body = serde_json::to_string_pretty(&record.case.review).expect("JSON serializes");
    cmd.push_str(&format!(
        " -X POST -H 'Content-Type: application/json' -H 'Accept: application/json, */*' -A kube-apiserver-admission --data-binary @- {} <<'EOF'\n{body}\nEOF",
        shell_quote(&record.url)
    ));
    cmd
}

#[cfg(test)]
mod tests {
    use super::connect_option;

    #[test]
    fn the_replay_connects_where_the_call_went() {
        let local = "127.0.0.1:8443".parse().unwrap();
        assert_eq!(connect_option("hook.ns.svc", 8443, local), " --resolve 'hook.ns.svc:8443:127.0.0.1'");
        assert_eq!(connect_option("hook.ns.svc", 443, local), " --connect-to 'hook.ns.svc:443:127.0.0.1:8443'");
        let v6 = "[::1]:443".parse().unwrap();
        assert_eq!(connect_option("hook.ns.svc", 443, v6), " --resolve 'hook.ns.svc:443:[::1]'");
    }
}
