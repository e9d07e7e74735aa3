use std::net::{IpAddr, Ipv4Addr};

use serde_json::{json, Value};

use super::*;

fn client(server: &ApiServer) -> reqwest::Client {
    let mut roots = rustls::RootCertStore::empty();
    for c in crate::tls::parse_certificates(server.ca_pem.as_bytes()).unwrap() {
        roots.add(c).unwrap();
    }
    let tls = rustls::ClientConfig::builder_with_provider(crate::tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder().use_preconfigured_tls(tls).timeout(std::time::Duration::from_secs(10)).build().unwrap()
}

#[tokio::test]
async fn serves_with_its_token_only_and_records_every_call() {
    let server = ApiServer::start(IpAddr::V4(Ipv4Addr::LOCALHOST)).await.unwrap();
    let http = client(&server);
    let url = |p: &str| format!("{}{p}", server.url());
    let cms = url("/api/v1/namespaces/default/configmaps");

    // Without the token, and with another one: 401, nothing stored.
    let anonymous = http.post(&cms).json(&json!({"metadata": {"name": "x"}})).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let status: Value = anonymous.json().await.unwrap();
    assert_eq!((status["kind"].as_str(), status["reason"].as_str()), (Some("Status"), Some("Unauthorized")));
    let forged = http.get(&cms).bearer_auth("wc-0000").send().await.unwrap();
    assert_eq!(forged.status(), 401);

    // With it: the apiserver's answers.
    let created = http
        .post(&cms)
        .bearer_auth(&server.token)
        .json(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "annotations": {"admission": "705ab4f5-6393-11e8-b7cc-42010a800002"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let garbage = http
        .post(&cms)
        .bearer_auth(&server.token)
        .header("content-type", "application/json")
        .body("\u{0}garbage{")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), 400);
    let status: Value = garbage.json().await.unwrap();
    assert_eq!(status["reason"], "BadRequest");
    let listed: Value = http.get(&cms).bearer_auth(&server.token).send().await.unwrap().json().await.unwrap();
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(1));
    let dry = http
        .post(format!("{cms}?dryRun=All"))
        .bearer_auth(&server.token)
        .json(&json!({"metadata": {"name": "y"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(dry.status(), 201);

    let calls = server.recording().calls();
    let summary: Vec<(&str, u16, bool, bool)> =
        calls.iter().map(|c| (c.method.as_str(), c.status, c.authenticated, c.dry_run)).collect();
    assert_eq!(
        summary,
        vec![
            ("POST", 401, false, false),
            ("GET", 401, false, false),
            ("POST", 201, true, false),
            ("POST", 400, true, false),
            ("GET", 200, true, false),
            ("POST", 201, true, true),
        ]
    );
    assert_eq!(calls[2].uids, vec!["705ab4f5-6393-11e8-b7cc-42010a800002"]);
    assert!(calls[2].changes_state());
    assert!(!calls[0].changes_state() && !calls[3].changes_state() && !calls[5].changes_state());
    assert!(!calls.iter().any(|c| c.body.contains(&server.token)));
}

#[tokio::test]
async fn files_and_environment_point_at_the_server_and_go_with_it() {
    let server = ApiServer::start(IpAddr::V4(Ipv4Addr::LOCALHOST)).await.unwrap();
    let dir = server.files_dir().to_path_buf();
    let sa = server.service_account_dir();
    assert_eq!(std::fs::read_to_string(sa.join("token")).unwrap(), server.token);
    assert_eq!(std::fs::read_to_string(sa.join("namespace")).unwrap(), "default");
    assert!(std::fs::read_to_string(sa.join("ca.crt")).unwrap().contains("BEGIN CERTIFICATE"));
    let kubeconfig: Value = serde_yaml::from_str(&std::fs::read_to_string(server.kubeconfig_path()).unwrap()).unwrap();
    assert_eq!(kubeconfig["clusters"][0]["cluster"]["server"], server.url());
    assert_eq!(kubeconfig["users"][0]["user"]["token"], server.token.as_str());
    let env = server.command_env();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("KUBERNETES_SERVICE_PORT"), server.addr().port().to_string());
    assert_eq!(get("KUBECONFIG"), server.kubeconfig_path().display().to_string());
    let addr = server.addr();
    drop(server);
    assert!(!dir.exists(), "the files outlived the server");
    // The listener is gone: the task is aborted, and the runtime drops it when the task next
    // runs; poll for that with a deadline rather than sleeping a fixed time.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        assert!(tokio::time::Instant::now() < deadline, "still listening 5 s after the server was dropped");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}
