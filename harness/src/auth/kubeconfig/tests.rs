//! Users are chosen as `authentication.go` chooses them, and their fields read as
//! `restConfigFromKubeconfig` reads them.

use std::path::Path;

use base64::Engine as _;

use super::*;
use crate::config::Manifest;
use crate::tls::{ServingNames, TlsMaterial};

fn webhook(client_config: &str, kind: &str) -> WebhookSpec {
    let text = format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: {kind}WebhookConfiguration\nmetadata: {{name: c}}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {client_config}\n    rules: [{{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}}]\n"
    );
    Manifest::parse(Path::new("h.yaml"), &text).unwrap().webhooks.remove(0)
}

fn service(name: &str, ns: &str, port: Option<u16>) -> WebhookSpec {
    let port = port.map(|p| format!(", port: {p}")).unwrap_or_default();
    webhook(&format!("{{service: {{name: {name}, namespace: {ns}{port}}}}}"), "Validating")
}

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files { dir: tempfile::tempdir().unwrap() }
    }
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
    /// An AdmissionConfiguration whose two plugins use `kubeconfig`.
    fn config(&self, kubeconfig: &str) -> Result<AdmissionConfiguration, Error> {
        let kc = self.write("kubeconfig.yaml", kubeconfig);
        let text = format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: {}\n",
            kc.display()
        );
        AdmissionConfiguration::load(&self.write("admission.yaml", &text))
    }
}

fn tokens(users: &[(&str, &str)]) -> String {
    let mut text = "apiVersion: v1\nkind: Config\nusers:\n".to_string();
    for (name, token) in users {
        text.push_str(&format!("- name: '{name}'\n  user: {{token: {token}}}\n"));
    }
    text
}

fn token_for(config: &AdmissionConfiguration, w: &WebhookSpec) -> Option<String> {
    config.identity_for(w).unwrap().bearer_token
}

#[test]
fn targets_are_service_host_and_port_or_the_url_host() {
    assert_eq!(target_of(&service("hook", "ns1", None)), "hook.ns1.svc:443");
    assert_eq!(target_of(&service("hook", "ns1", Some(8443))), "hook.ns1.svc:8443");
    let url = webhook("{url: \"https://hook.example.com/validate\"}", "Validating");
    assert_eq!(target_of(&url), "hook.example.com:443");
    let url = webhook("{url: \"https://127.0.0.1:9443/validate\"}", "Validating");
    assert_eq!(target_of(&url), "127.0.0.1:9443");
}

#[test]
fn users_are_chosen_by_the_webhooks_host_name_most_specific_first() {
    let f = Files::new();
    let all = [
        ("hook.ns1.svc:443", "exact-port"),
        ("*.ns1.svc:443", "star-ns-port"),
        ("*.svc:443", "star-svc-port"),
        ("hook.ns1.svc", "exact-no-port"),
        ("*.ns1.svc", "star-ns"),
        ("*", "default"),
    ];
    // Remove the most specific user one at a time: the next in the apiserver's order is chosen.
    for i in 0..all.len() {
        let config = f.config(&tokens(&all[i..])).unwrap();
        assert_eq!(token_for(&config, &service("hook", "ns1", None)).as_deref(), Some(all[i].1), "{:?}", &all[i..]);
    }
    // Without the port, names only match the default port 443.
    let config = f.config(&tokens(&[("*.ns1.svc", "star-ns"), ("*", "default")])).unwrap();
    assert_eq!(token_for(&config, &service("hook", "ns1", Some(8443))).as_deref(), Some("default"));
    // The current context's user comes last; then anonymous.
    let with_context = format!(
        "{}contexts:\n- name: c\n  context: {{user: mine, cluster: x}}\ncurrent-context: c\n",
        tokens(&[("mine", "from-context")])
    );
    let config = f.config(&with_context).unwrap();
    assert_eq!(token_for(&config, &service("other", "ns2", None)).as_deref(), Some("from-context"));
    let config = f.config(&tokens(&[("elsewhere.ns9.svc", "x")])).unwrap();
    let anonymous = config.identity_for(&service("hook", "ns1", None)).unwrap();
    assert!(anonymous.is_anonymous() && anonymous.source.contains("anonymous"), "{anonymous:?}");
}

#[test]
fn the_apiserver_itself_and_a_plugin_without_configuration_are_anonymous() {
    let f = Files::new();
    let config = f.config(&tokens(&[("*", "default")])).unwrap();
    let own = config.identity_for(&service("kubernetes", "default", None)).unwrap();
    assert!(own.is_anonymous() && own.source.contains("loopback"), "{own:?}");
    let mutating = webhook("{service: {name: hook, namespace: ns1}}", "Mutating");
    let m = config.identity_for(&mutating).unwrap();
    assert!(m.is_anonymous() && m.source.contains("MutatingAdmissionWebhook"), "{m:?}");
}

#[test]
fn certificates_tokens_and_basic_credentials_are_read_as_client_go_reads_them() {
    let f = Files::new();
    let tls = TlsMaterial::generate_with_client(&ServingNames::default(), Some(&f.dir.path().join("pki"))).unwrap();
    let (cert, key) = tls.client.clone().unwrap();
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    f.write("token", "file-token\n");
    let kubeconfig = format!(
        "users:\n- name: data.ns.svc\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\n- name: files.ns.svc\n  user:\n    client-certificate: pki/client.crt\n    client-key: pki/client.key\n    tokenFile: token\n- name: basic.ns.svc\n  user: {{username: admin, password: secret, as: alice, as-groups: [ops]}}\n",
        b64(&cert),
        b64(&key)
    );
    let config = f.config(&kubeconfig).unwrap();
    let data = config.identity_for(&service("data", "ns", None)).unwrap();
    assert_eq!(data.certificate, Some((cert.clone(), key.clone())));
    let files = config.identity_for(&service("files", "ns", None)).unwrap();
    assert_eq!(files.certificate, Some((cert, key)), "paths are relative to the kubeconfig");
    assert_eq!(files.bearer_token.as_deref(), Some("file-token"));
    assert_eq!(files.describe(), "a client certificate and a bearer token");
    let basic = config.identity_for(&service("basic", "ns", None)).unwrap();
    assert_eq!(basic.authorization().unwrap(), format!("Basic {}", b64("admin:secret")));
    assert!(basic.impersonate.contains(&("Impersonate-Group".into(), "ops".into())));
    assert!(!format!("{basic:?}").contains("secret"), "secrets stay out of debug output");
}

#[test]
fn unusable_configurations_are_errors_that_say_where() {
    let f = Files::new();
    let relative = "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: WebhookAdmissionConfiguration, kubeConfigFile: kubeconfig.yaml}\n";
    let e = AdmissionConfiguration::load(&f.write("rel.yaml", relative)).unwrap_err().to_string();
    assert!(e.contains("rel.yaml") && e.contains("absolute"), "{e}");
    let e = AdmissionConfiguration::load(&f.write("k.yaml", "apiVersion: v1\nkind: Config\n")).unwrap_err().to_string();
    assert!(e.contains("AdmissionConfiguration"), "{e}");
    let e = f.config("users:\n- name: '*'\n  user: {token: [t]}\n").unwrap_err().to_string();
    assert_eq!(e.matches("users[0].user.token").count(), 1, "the path once: {e}");
    assert!(e.contains("kubeconfig.yaml"), "{e}");
    let config = f.config("users:\n- name: '*'\n  user: {auth-provider: {name: gcp}}\n").unwrap();
    let e = config.identity_for(&service("a", "b", None)).unwrap_err().to_string();
    assert!(e.contains("kubeconfig.yaml") && e.contains("auth provider not supported"), "{e}");
    let config = f.config("users:\n- name: '*'\n  user: {token: t, username: u, password: p}\n").unwrap();
    let e = config.identity_for(&service("a", "b", None)).unwrap_err().to_string();
    assert!(e.contains("not both"), "{e}");
    let config =
        f.config("users:\n- name: '*'\n  user: {client-certificate: absent.crt, client-key: absent.key}\n").unwrap();
    assert!(config.identity_for(&service("a", "b", None)).unwrap_err().to_string().contains("absent.crt"));
    // A plugin configuration in a file of its own, relative to the AdmissionConfiguration.
    let kc = f.write("kc.yaml", &tokens(&[("*", "via-path")]));
    f.write(
        "plugin.yaml",
        &format!(
            "apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: {}\n",
            kc.display()
        ),
    );
    let via = "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionWebhook\n  path: plugin.yaml\n";
    let config = AdmissionConfiguration::load(&f.write("via.yaml", via)).unwrap();
    assert_eq!(token_for(&config, &service("a", "b", None)).as_deref(), Some("via-path"));
}
