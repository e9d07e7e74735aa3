//! The reference webhook started by hand, as a user runs their own webhook, for tests that point
//! the suite at it with `--url`.

use std::process::{Child, Command, Stdio};

use webhook_harness::tls::TlsMaterial;

/// The reference webhook serving `tls`'s files on a free port; the process and the port.
pub fn start_reference(tls: &TlsMaterial) -> (Child, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"))
        .args(["reference-webhook", "--port", "0"])
        .arg("--cert")
        .arg(tls.cert_path())
        .arg("--key")
        .arg(tls.key_path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.as_mut().unwrap()), &mut line).unwrap();
    let port = line
        .trim()
        .strip_prefix("listening on https://")
        .and_then(|a| a.rsplit(':').next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    (server, port)
}
