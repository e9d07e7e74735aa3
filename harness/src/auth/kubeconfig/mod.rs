//! The apiserver's credentials for webhooks: an AdmissionConfiguration (`--admission-control-config-file`)
//! whose ValidatingAdmissionWebhook / MutatingAdmissionWebhook plugin configuration names a
//! `kubeConfigFile`, whose `users` are chosen by the webhook's host name
//! (`k8s.io/apiserver/pkg/util/webhook/authentication.go`, defaultAuthenticationInfoResolver
//! `clientConfig` and `restConfigFromKubeconfig`; Kubernetes docs, Dynamic Admission Control:
//! Authenticate apiservers).
//!
//! ```yaml
//! apiVersion: apiserver.config.k8s.io/v1
//! kind: AdmissionConfiguration
//! plugins:
//!   - name: ValidatingAdmissionWebhook
//!     configuration:
//!       apiVersion: apiserver.config.k8s.io/v1
//!       kind: WebhookAdmissionConfiguration
//!       kubeConfigFile: /etc/kubernetes/webhook-kubeconfig.yaml   # an absolute path
//!   - name: MutatingAdmissionWebhook
//!     path: mutating-webhook-admission.yaml                        # or a file holding it
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Deserialize;

use super::identity::ClientIdentity;
use crate::config::{WebhookKind, WebhookSpec};
use crate::error::{Error, InputError};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAdmissionConfiguration {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    plugins: Vec<RawPlugin>,
}

#[derive(Deserialize)]
struct RawPlugin {
    name: String,
    path: Option<String>,
    configuration: Option<serde_yaml::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawWebhookAdmission {
    api_version: Option<String>,
    kind: Option<String>,
    kube_config_file: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct AuthInfo {
    client_certificate: Option<String>,
    client_certificate_data: Option<String>,
    client_key: Option<String>,
    client_key_data: Option<String>,
    token: Option<String>,
    #[serde(rename = "tokenFile")]
    token_file: Option<String>,
    username: Option<String>,
    password: Option<String>,
    #[serde(rename = "as")]
    impersonate: Option<String>,
    #[serde(rename = "as-groups", default)]
    impersonate_groups: Vec<String>,
    #[serde(rename = "as-user-extra", default)]
    impersonate_extra: BTreeMap<String, Vec<String>>,
    exec: Option<serde_yaml::Value>,
    #[serde(rename = "auth-provider")]
    auth_provider: Option<serde_yaml::Value>,
}

#[derive(Deserialize)]
struct NamedAuthInfo {
    name: String,
    #[serde(default)]
    user: AuthInfo,
}

#[derive(Deserialize, Default)]
struct ContextFields {
    user: Option<String>,
}

#[derive(Deserialize)]
struct NamedContext {
    name: String,
    #[serde(default)]
    context: ContextFields,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawKubeconfig {
    #[serde(default)]
    users: Vec<NamedAuthInfo>,
    #[serde(default)]
    contexts: Vec<NamedContext>,
    current_context: Option<String>,
}

/// A kubeconfig's users, as the apiserver reads them for webhooks (clusters are ignored: the
/// server's CA is the webhook's caBundle).
#[derive(Clone, Debug)]
struct Kubeconfig {
    file: PathBuf,
    users: BTreeMap<String, AuthInfo>,
    current_user: Option<String>,
}

/// The apiserver's webhook credentials: a kubeconfig per admission plugin.
#[derive(Clone, Debug)]
pub struct AdmissionConfiguration {
    file: PathBuf,
    validating: Option<Kubeconfig>,
    mutating: Option<Kubeconfig>,
}

const ADMISSION_VERSIONS: &[&str] =
    &["apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1", "apiserver.k8s.io/v1alpha1"];

fn yaml<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, Error> {
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let e = crate::error::YamlDecodeError::from(e);
        Error::input(what, InputError::Decode { path: e.path, message: e.message })
    })
}

impl AdmissionConfiguration {
    /// Read an AdmissionConfiguration and the kubeconfig files it names.
    pub fn load(file: &Path) -> Result<AdmissionConfiguration, Error> {
        let what = format!("--admission-config {}", file.display());
        let text = std::fs::read_to_string(file).map_err(|e| Error::input(&what, e))?;
        let raw: RawAdmissionConfiguration = yaml(&what, &text)?;
        if raw.kind.as_deref() != Some("AdmissionConfiguration") {
            let found = raw.kind.unwrap_or_default();
            return Err(Error::input(&what, InputError::Kind { found, expected: "AdmissionConfiguration" }));
        }
        let version = raw.api_version.unwrap_or_default();
        if !ADMISSION_VERSIONS.contains(&version.as_str()) {
            let expected = ADMISSION_VERSIONS.join(" or ");
            return Err(Error::input(&what, InputError::ApiVersion { found: version, expected }));
        }
        let base = file.parent().unwrap_or(Path::new("."));
        let mut out = AdmissionConfiguration { file: file.to_path_buf(), validating: None, mutating: None };
        for (i, plugin) in raw.plugins.iter().enumerate() {
            let slot = match plugin.name.as_str() {
                "ValidatingAdmissionWebhook" => &mut out.validating,
                "MutatingAdmissionWebhook" => &mut out.mutating,
                _ => continue,
            };
            let at = format!("{what}: plugins[{i}] ({})", plugin.name);
            let configuration: RawWebhookAdmission = match (&plugin.configuration, &plugin.path) {
                (Some(c), _) => serde_yaml::from_value(c.clone()).map_err(|e| Error::input(&at, e))?,
                (None, Some(p)) => {
                    let path = base.join(p);
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| Error::input(format!("{at}: path {}", path.display()), e))?;
                    yaml(&format!("{at}: {}", path.display()), &text)?
                }
                (None, None) => continue,
            };
            match configuration.kind.as_deref() {
                Some("WebhookAdmissionConfiguration" | "WebhookAdmission") => {}
                other => {
                    let found = other.unwrap_or_default().to_string();
                    return Err(Error::input(
                        &at,
                        InputError::Kind { found, expected: "WebhookAdmissionConfiguration" },
                    ));
                }
            }
            let version = configuration.api_version.unwrap_or_default();
            if !ADMISSION_VERSIONS.contains(&version.as_str()) {
                let expected = ADMISSION_VERSIONS.join(" or ");
                return Err(Error::input(&at, InputError::ApiVersion { found: version, expected }));
            }
            let Some(kubeconfig) = configuration.kube_config_file.filter(|k| !k.is_empty()) else {
                return Err(Error::input(&at, InputError::Missing("kubeConfigFile")));
            };
            let kubeconfig = PathBuf::from(kubeconfig);
            // webhook/config/kubeconfig.go LoadConfig: "must be an absolute file path".
            if !kubeconfig.is_absolute() {
                return Err(Error::input(&at, InputError::RelativeKubeconfig(kubeconfig.display().to_string())));
            }
            *slot = Some(Kubeconfig::load(&kubeconfig)?);
        }
        Ok(out)
    }

    /// The identity the apiserver presents to `webhook`, and how it was chosen.
    pub fn identity_for(&self, webhook: &WebhookSpec) -> Result<ClientIdentity, Error> {
        let (plugin, kubeconfig) = match webhook.kind {
            WebhookKind::Validating => ("ValidatingAdmissionWebhook", &self.validating),
            WebhookKind::Mutating => ("MutatingAdmissionWebhook", &self.mutating),
        };
        let target = target_of(webhook);
        // authentication.go, NewDefaultAuthenticationInfoResolverWrapper: the apiserver calls
        // itself with its own loopback credentials.
        if target == "kubernetes.default.svc:443" {
            return Ok(ClientIdentity {
                source: format!("{target} is the apiserver itself, which it calls with its own loopback credentials: the suite cannot present them"),
                ..ClientIdentity::default()
            });
        }
        let Some(kubeconfig) = kubeconfig else {
            return Ok(ClientIdentity {
                source: format!("{} configures no {plugin} kubeConfigFile: anonymous", self.file.display()),
                ..ClientIdentity::default()
            });
        };
        kubeconfig.identity_for(&target)
    }
}

/// The name the apiserver looks users up by: `<service>.<namespace>.svc:<port>` (port 443 unless
/// set) for a service, the URL's `host:port` (443 unless set) for a url.
pub fn target_of(webhook: &WebhookSpec) -> String {
    if let Some(s) = &webhook.client_config.service {
        return format!("{}.{}.svc:{}", s.name, s.namespace, s.port.unwrap_or(443));
    }
    let url = webhook.client_config.url.as_deref().and_then(|u| reqwest::Url::parse(u).ok());
    match url {
        Some(u) => format!("{}:{}", u.host_str().unwrap_or_default(), u.port().unwrap_or(443)),
        None => String::new(),
    }
}

impl Kubeconfig {
    fn load(file: &Path) -> Result<Kubeconfig, Error> {
        let what = format!("kubeconfig {}", file.display());
        let text = std::fs::read_to_string(file).map_err(|e| Error::input(&what, e))?;
        let raw: RawKubeconfig = yaml(&what, &text)?;
        let current_user = raw
            .current_context
            .as_ref()
            .and_then(|c| raw.contexts.iter().find(|x| &x.name == c))
            .and_then(|c| c.context.user.clone());
        let users = raw.users.into_iter().map(|u| (u.name, u.user)).collect();
        Ok(Kubeconfig { file: file.to_path_buf(), users, current_user })
    }

    /// `clientConfig(target)`: exact name, `*.`-prefixed names (most specific first), the same two
    /// without the port when it is 443, `*`, the current context's user, else anonymous.
    fn choose(&self, target: &str) -> Option<(&str, &AuthInfo)> {
        let lookup = |name: &str| self.users.get_key_value(name).map(|(k, v)| (k.as_str(), v));
        let starred = |name: &str| {
            let steps: Vec<&str> = name.split('.').collect();
            (1..steps.len()).find_map(|i| lookup(&format!("*.{}", steps[i..].join("."))))
        };
        if let Some(found) = lookup(target).or_else(|| starred(target)) {
            return Some(found);
        }
        if let Some(host) = target.strip_suffix(":443") {
            if let Some(found) = lookup(host).or_else(|| starred(host)) {
                return Some(found);
            }
        }
        lookup("*").or_else(|| self.current_user.as_deref().and_then(lookup))
    }

    fn identity_for(&self, target: &str) -> Result<ClientIdentity, Error> {
        let Some((name, user)) = self.choose(target) else {
            return Ok(ClientIdentity {
                source: format!("no user of {} matches {target}: anonymous", self.file.display()),
                ..ClientIdentity::default()
            });
        };
        let what = format!("kubeconfig {}, user {name:?}", self.file.display());
        let base = self.file.parent().unwrap_or(Path::new("."));
        let mut identity = ClientIdentity {
            source: format!("user {name:?} of {} (for {target})", self.file.display()),
            ..ClientIdentity::default()
        };
        if user.auth_provider.is_some() {
            return Err(Error::input(&what, InputError::AuthProvider));
        }
        if user.exec.is_some() {
            return Err(Error::input(&what, InputError::ExecPlugin));
        }
        let file = |p: &str| base.join(p);
        let read = |p: &str| {
            std::fs::read_to_string(file(p)).map_err(|e| Error::input(format!("{what}: {}", file(p).display()), e))
        };
        let data = |field: &'static str, d: &str| -> Result<String, Error> {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(d.split_whitespace().collect::<String>())
                .map_err(|source| Error::input(&what, InputError::NotBase64 { field, source }))?;
            String::from_utf8(bytes).map_err(|_| Error::input(&what, InputError::NotPemText { field }))
        };
        // restConfigFromKubeconfig: a token wins over tokenFile; the key is used only with a certificate.
        if let Some(token) = user.token.as_deref().filter(|t| !t.is_empty()) {
            identity.bearer_token = Some(token.to_string());
        } else if let Some(path) = user.token_file.as_deref().filter(|t| !t.is_empty()) {
            identity.bearer_token = Some(read(path)?.trim().to_string());
        }
        let cert = match (&user.client_certificate_data, &user.client_certificate) {
            (Some(d), _) if !d.is_empty() => Some(data("client-certificate-data", d)?),
            (_, Some(p)) if !p.is_empty() => Some(read(p)?),
            _ => None,
        };
        if let Some(cert) = cert {
            let key = match (&user.client_key_data, &user.client_key) {
                (Some(d), _) if !d.is_empty() => data("client-key-data", d)?,
                (_, Some(p)) if !p.is_empty() => read(p)?,
                _ => return Err(Error::input(&what, InputError::KeyMissing)),
            };
            if let (Some(c), Some(k)) = (&user.client_certificate, &user.client_key) {
                identity.certificate_files = Some((file(c), file(k)));
            }
            identity.certificate = Some((cert, key));
        }
        if user.username.is_some() || user.password.is_some() {
            identity.basic =
                Some((user.username.clone().unwrap_or_default(), user.password.clone().unwrap_or_default()));
        }
        if let Some(as_user) = user.impersonate.as_deref().filter(|u| !u.is_empty()) {
            identity.impersonate.push(("Impersonate-User".into(), as_user.to_string()));
            for g in &user.impersonate_groups {
                identity.impersonate.push(("Impersonate-Group".into(), g.clone()));
            }
            for (k, values) in &user.impersonate_extra {
                for v in values {
                    identity.impersonate.push((format!("Impersonate-Extra-{k}"), v.clone()));
                }
            }
        }
        identity.check().map_err(|e| Error::input(&what, InputError::Invalid(e.into())))?;
        Ok(identity)
    }
}

#[cfg(test)]
mod tests;
