//! Reading a webhook configuration manifest (YAML, one or more documents, or a `List`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::documents::{decode_strict, type_error};
use super::fields::Objects;
pub use super::kind::WebhookKind;
use super::version::{ConfigVersion, Defaultable};
use super::LabelSelector;
use crate::admission::ReviewVersion;
use crate::conditions::MatchConditions;
pub(crate) use crate::error::ManifestError;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceReference {
    pub name: String,
    pub namespace: String,
    pub path: Option<String>,
    pub port: Option<u16>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    pub url: Option<String>,
    pub service: Option<ServiceReference>,
    pub ca_bundle: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleWithOperations {
    #[serde(default)]
    pub operations: Vec<String>,
    #[serde(default)]
    pub api_groups: Vec<String>,
    #[serde(default)]
    pub api_versions: Vec<String>,
    #[serde(default)]
    pub resources: Vec<String>,
    pub scope: Option<String>,
}

/// One webhook of a configuration, as the apiserver would call it.
#[derive(Clone, Debug)]
pub struct WebhookSpec {
    /// `metadata.name` of the configuration holding it.
    pub configuration: String,
    /// The `admissionregistration.k8s.io` version the configuration is written in.
    pub api_version: ConfigVersion,
    /// The fields the manifest leaves out that the version's defaults fill in (v1beta1's
    /// `failurePolicy`, `matchPolicy`, `timeoutSeconds`, `admissionReviewVersions`, `sideEffects`):
    /// the fields above hold the defaulted values.
    pub defaulted: Vec<&'static str>,
    /// The webhook's name.
    pub name: String,
    /// Mutating or validating.
    pub kind: WebhookKind,
    /// `admissionReviewVersions`, as listed.
    pub admission_review_versions: Vec<String>,
    /// `clientConfig`.
    pub client_config: ClientConfig,
    /// `rules`.
    pub rules: Vec<RuleWithOperations>,
    /// 1 to 30; the apiserver's default is 10 (v1) or 30 (v1beta1).
    pub timeout_seconds: u32,
    /// `sideEffects`, as written.
    pub side_effects: Option<String>,
    /// `failurePolicy`, as written.
    pub failure_policy: Option<String>,
    /// `matchPolicy`, as written.
    pub match_policy: Option<String>,
    /// `reinvocationPolicy`, as written.
    pub reinvocation_policy: Option<String>,
    /// `namespaceSelector` (a metav1.LabelSelector).
    pub namespace_selector: Option<serde_json::Value>,
    /// `objectSelector` (a metav1.LabelSelector).
    pub object_selector: Option<serde_json::Value>,
    /// `matchConditions` (CEL), as written.
    pub match_conditions: Vec<serde_json::Value>,
    /// `matchConditions`, compiled: whether the apiserver calls the webhook for a request.
    pub conditions: MatchConditions,
    /// Where the webhook is written in the manifest, when known.
    pub location: Option<ManifestLocation>,
}

/// Where a webhook is written: the manifest file and the line (1-based) its entry under `webhooks:`
/// starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestLocation {
    /// The manifest file, as it was given.
    pub file: PathBuf,
    /// The line of the webhook's entry.
    pub line: usize,
}

/// Why a webhook's `clientConfig.caBundle` cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaBundleError {
    /// It is not base64.
    #[error("caBundle is not base64: {0}")]
    NotBase64(#[source] base64::DecodeError),
    /// Its bytes are not PEM certificates.
    #[error("caBundle does not hold PEM certificates: {0}")]
    NotPem(#[source] Box<crate::error::Error>),
}

impl WebhookSpec {
    /// The path the apiserver posts to: the `url`'s path or `service.path`, default `/`.
    pub fn path(&self) -> String {
        if let Some(url) = &self.client_config.url {
            if let Ok(parsed) = reqwest::Url::parse(url) {
                return parsed.path().to_string();
            }
        }
        if let Some(path) = self.client_config.service.as_ref().and_then(|s| s.path.clone()) {
            if !path.is_empty() {
                return path;
            }
        }
        "/".to_string()
    }

    /// The version a cluster sends: the first listed one the apiserver knows.
    pub fn primary_review_version(&self) -> ReviewVersion {
        self.review_versions().first().copied().expect("manifest loading guarantees a known version")
    }

    /// Every listed version the apiserver knows, the primary first.
    pub fn review_versions(&self) -> Vec<ReviewVersion> {
        let mut out = Vec::new();
        for v in self.admission_review_versions.iter().filter_map(|v| ReviewVersion::parse(v)) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// The caBundle's PEM, decoded from the manifest's base64: `None` when there is none, an error
    /// when it is not base64 of PEM certificates.
    pub fn ca_bundle_pem(&self) -> Option<Result<Vec<u8>, CaBundleError>> {
        use base64::Engine as _;
        let text = self.client_config.ca_bundle.as_deref()?;
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return None;
        }
        let pem = match base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()) {
            Ok(b) => b,
            Err(e) => return Some(Err(CaBundleError::NotBase64(e))),
        };
        match crate::tls::parse_certificates(&pem) {
            Ok(_) => Some(Ok(pem)),
            Err(e) => Some(Err(CaBundleError::NotPem(Box::new(e)))),
        }
    }

    /// True for `reinvocationPolicy: IfNeeded`.
    pub fn reinvoked(&self) -> bool {
        self.reinvocation_policy.as_deref() == Some("IfNeeded")
    }
}

/// A loaded manifest: every webhook of every configuration in the file, in file order.
#[derive(Clone, Debug)]
pub struct Manifest {
    /// The file it was read from.
    pub file: PathBuf,
    /// Every webhook, in file order.
    pub webhooks: Vec<WebhookSpec>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDocument {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    metadata: RawMetadata,
    webhooks: Option<Vec<RawWebhook>>,
    items: Option<Vec<serde_yaml::Value>>,
}

#[derive(Deserialize, Default)]
struct RawMetadata {
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawWebhook {
    name: Option<String>,
    admission_review_versions: Option<Vec<String>>,
    client_config: Option<ClientConfig>,
    #[serde(default)]
    rules: Vec<RuleWithOperations>,
    timeout_seconds: Option<i64>,
    side_effects: Option<String>,
    failure_policy: Option<String>,
    match_policy: Option<String>,
    reinvocation_policy: Option<String>,
    namespace_selector: Option<serde_json::Value>,
    object_selector: Option<serde_json::Value>,
    #[serde(default)]
    match_conditions: Vec<serde_json::Value>,
}

/// Kinds of the first admission API (`admissionregistration.k8s.io/v1alpha1`) that no apiserver has
/// served for years: what to write instead.
fn retired_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "ExternalAdmissionHookConfiguration" => {
            "admissionregistration.k8s.io/v1alpha1 ExternalAdmissionHookConfiguration (Kubernetes 1.7 and 1.8) is no longer served: write its externalAdmissionHooks as the webhooks of an admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration (or MutatingWebhookConfiguration, for a webhook that changes objects), each with sideEffects and admissionReviewVersions"
        }
        "InitializerConfiguration" => {
            "admissionregistration.k8s.io/v1alpha1 InitializerConfiguration (initializers, alpha until their removal in Kubernetes 1.14) is no longer served: a MutatingWebhookConfiguration (admissionregistration.k8s.io/v1) changes objects as they are created"
        }
        _ => return None,
    })
}

impl Manifest {
    /// Read and parse a manifest file.
    pub fn load(file: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(file).map_err(|e| ManifestError {
            file: file.to_path_buf(),
            location: String::new(),
            message: format!("cannot read the manifest: {e}"),
        })?;
        Manifest::parse(file, &text)
    }

    /// Parse manifest text; `file` names it in errors.
    ///
    /// In the apiserver's order: a value of the wrong type first, then fields the apiserver does not
    /// know (every one of them, as `kubectl apply` refuses them), then what validation refuses.
    pub fn parse(file: &Path, text: &str) -> Result<Manifest, ManifestError> {
        let err = |location: String, message: String| ManifestError { file: file.to_path_buf(), location, message };
        let documents: Vec<(usize, RawDocument)> = decode_strict(file, text, Objects::WebhookConfigurations)?;
        let mut webhooks = Vec::new();
        for (number, doc) in documents {
            collect(file, number, doc, &mut webhooks)?;
        }
        let lines = super::lines::webhook_lines(text);
        for w in &mut webhooks {
            let kind = match w.kind {
                WebhookKind::Mutating => "MutatingWebhookConfiguration",
                WebhookKind::Validating => "ValidatingWebhookConfiguration",
            };
            w.location = lines
                .get(&(kind.to_string(), w.configuration.clone(), w.name.clone()))
                .map(|&line| ManifestLocation { file: file.to_path_buf(), line });
        }
        if webhooks.is_empty() {
            return Err(err(
                String::new(),
                "no MutatingWebhookConfiguration or ValidatingWebhookConfiguration with webhooks found".into(),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for w in &webhooks {
            if !seen.insert((w.kind, w.configuration.clone(), w.name.clone())) {
                return Err(err(
                    format!("webhook {:?}", w.name),
                    "webhook names must be unique within a configuration".into(),
                ));
            }
        }
        Ok(Manifest { file: file.to_path_buf(), webhooks })
    }
}

fn collect(file: &Path, doc_number: usize, doc: RawDocument, out: &mut Vec<WebhookSpec>) -> Result<(), ManifestError> {
    let err = |location: String, message: String| ManifestError { file: file.to_path_buf(), location, message };
    let kind = doc.kind.clone().unwrap_or_default();
    if kind == "List" || kind.ends_with("List") && doc.items.is_some() {
        for (i, item) in doc.items.unwrap_or_default().into_iter().enumerate() {
            let raw: RawDocument = serde_path_to_error::deserialize(item).map_err(|e| {
                let (path, message) = type_error(e);
                let path = path.map(|p| format!(".{p}")).unwrap_or_default();
                err(format!("document {doc_number}, items[{i}]{path}"), message)
            })?;
            collect(file, doc_number, raw, out)?;
        }
        return Ok(());
    }
    if let Some(message) = retired_kind(&kind) {
        return Err(err(format!("document {doc_number}, kind {kind}"), message.into()));
    }
    let webhook_kind = match kind.as_str() {
        "MutatingWebhookConfiguration" => WebhookKind::Mutating,
        "ValidatingWebhookConfiguration" => WebhookKind::Validating,
        "" => {
            return Err(err(
                format!("document {doc_number}, kind"),
                "missing: expected MutatingWebhookConfiguration or ValidatingWebhookConfiguration".into(),
            ))
        }
        // Other objects (a Deployment or Service in the same file) are not webhook configurations.
        _ => return Ok(()),
    };
    let version = match doc.api_version.as_deref() {
        None | Some("admissionregistration.k8s.io/v1") => ConfigVersion::V1,
        Some("admissionregistration.k8s.io/v1beta1") => ConfigVersion::V1beta1,
        Some(other) if other.starts_with("admissionregistration.k8s.io/") => {
            return Err(err(
                format!("document {doc_number}, apiVersion"),
                format!(
                    "{other:?} has no {kind}: webhook configurations are admissionregistration.k8s.io/v1 (or the retired v1beta1)"
                ),
            ))
        }
        Some(other) => {
            return Err(err(
                format!("document {doc_number}, apiVersion"),
                format!("{other:?} is not an admissionregistration.k8s.io version"),
            ))
        }
    };
    let configuration = doc.metadata.name.clone().unwrap_or_default();
    let raws = doc.webhooks.unwrap_or_default();
    for (i, raw) in raws.into_iter().enumerate() {
        let at = |field: &str| format!("document {doc_number} ({kind} {configuration:?}), webhooks[{i}].{field}");
        let mut raw = raw;
        let defaulted = version.fill_defaults(Defaultable {
            failure_policy: &mut raw.failure_policy,
            match_policy: &mut raw.match_policy,
            timeout_seconds: &mut raw.timeout_seconds,
            admission_review_versions: &mut raw.admission_review_versions,
            side_effects: &mut raw.side_effects,
        });
        let name = raw.name.filter(|n| !n.is_empty()).ok_or_else(|| err(at("name"), "required".into()))?;
        let versions = raw.admission_review_versions.unwrap_or_default();
        if versions.is_empty() {
            return Err(err(
                at("admissionReviewVersions"),
                "required: list the AdmissionReview versions the webhook accepts (e.g. [\"v1\"])".into(),
            ));
        }
        if !versions.iter().any(|v| ReviewVersion::parse(v).is_some()) {
            return Err(err(
                at("admissionReviewVersions"),
                format!("{versions:?} names no version the apiserver knows (v1, v1beta1)"),
            ));
        }
        let client_config = raw.client_config.ok_or_else(|| err(at("clientConfig"), "required".into()))?;
        match (&client_config.url, &client_config.service) {
            (Some(_), Some(_)) => {
                return Err(err(at("clientConfig"), "exactly one of url or service may be set".into()))
            }
            (None, None) => return Err(err(at("clientConfig"), "one of url or service is required".into())),
            (Some(url), None) => {
                let parsed =
                    reqwest::Url::parse(url).map_err(|e| err(at("clientConfig.url"), format!("{url:?}: {e}")))?;
                if parsed.scheme() != "https" {
                    return Err(err(at("clientConfig.url"), format!("{url:?}: the scheme must be https")));
                }
            }
            (None, Some(_)) => {}
        }
        let timeout_seconds = match raw.timeout_seconds {
            None => 10,
            Some(t) if (1..=30).contains(&t) => t as u32,
            Some(t) => {
                return Err(err(at("timeoutSeconds"), format!("{t} is outside 1 to 30")));
            }
        };
        for (r, rule) in raw.rules.iter().enumerate() {
            if rule.operations.is_empty() || rule.resources.is_empty() {
                return Err(err(at(&format!("rules[{r}]")), "operations and resources must not be empty".into()));
            }
            for op in &rule.operations {
                if !["CREATE", "UPDATE", "DELETE", "CONNECT", "*"].contains(&op.as_str()) {
                    return Err(err(
                        at(&format!("rules[{r}].operations")),
                        format!("{op:?} is not CREATE, UPDATE, DELETE, CONNECT or *"),
                    ));
                }
            }
        }
        // The apiserver refuses a configuration whose selectors do not parse (ValidateLabelSelector).
        for (field, selector) in
            [("namespaceSelector", &raw.namespace_selector), ("objectSelector", &raw.object_selector)]
        {
            LabelSelector::parse(selector.as_ref()).map_err(|e| err(at(field), e.to_string()))?;
        }
        let conditions = MatchConditions::compile(&raw.match_conditions, raw.failure_policy.as_deref());
        out.push(WebhookSpec {
            configuration: configuration.clone(),
            api_version: version,
            defaulted,
            name,
            kind: webhook_kind,
            admission_review_versions: versions,
            client_config,
            rules: raw.rules,
            timeout_seconds,
            side_effects: raw.side_effects,
            failure_policy: raw.failure_policy,
            match_policy: raw.match_policy,
            reinvocation_policy: raw.reinvocation_policy,
            namespace_selector: raw.namespace_selector,
            object_selector: raw.object_selector,
            conditions,
            match_conditions: raw.match_conditions,
            location: None,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, ManifestError> {
        Manifest::parse(Path::new("hooks.yaml"), text)
    }

    const GOOD: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: demo}
webhooks:
  - name: a.example.com
    admissionReviewVersions: ["v1beta1", "v1"]
    sideEffects: None
    clientConfig:
      service: {name: svc, namespace: ns, path: /mutate}
    rules:
      - {operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"]}
"#;

    #[test]
    fn reads_a_webhook_with_defaults() {
        let m = parse(GOOD).unwrap();
        assert_eq!(m.webhooks.len(), 1);
        let w = &m.webhooks[0];
        assert_eq!(w.kind, WebhookKind::Mutating);
        assert_eq!(w.timeout_seconds, 10);
        assert_eq!(w.path(), "/mutate");
        assert_eq!(w.primary_review_version(), "v1beta1");
        assert_eq!(w.review_versions(), vec![ReviewVersion::V1beta1, ReviewVersion::V1]);
        let at = w.location.as_ref().expect("the webhook's line is known");
        assert_eq!((at.file.as_path(), at.line), (Path::new("hooks.yaml"), 6));
        assert!(GOOD.lines().nth(at.line - 1).unwrap().contains("- name: a.example.com"));
    }

    #[test]
    fn broken_yaml_names_file_and_line() {
        let e = parse("kind: MutatingWebhookConfiguration\nwebhooks: [\n  - name: x\n").unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("hooks.yaml: "), "{text}");
        assert!(text.contains("line"), "{text}");
    }

    #[test]
    fn wrong_field_type_names_the_field() {
        let bad = GOOD.replace(
            "admissionReviewVersions: [\"v1beta1\", \"v1\"]",
            "admissionReviewVersions: [\"v1\"]\n    timeoutSeconds: soon",
        );
        let text = parse(&bad).unwrap_err().to_string();
        assert!(text.contains("webhooks[0].timeoutSeconds"), "{text}");
    }

    #[test]
    fn a_type_error_names_its_path_once() {
        let bad = GOOD.replace("    sideEffects: None\n", "    sideEffects: None\n    timeoutSeconds: \"ten\"\n");
        let text = parse(&bad).unwrap_err().to_string();
        assert_eq!(text.matches("webhooks[0].timeoutSeconds").count(), 1, "{text}");
        assert!(
            text.starts_with("hooks.yaml: document 1, webhooks[0].timeoutSeconds: invalid type: string \"ten\""),
            "{text}"
        );
        assert!(text.contains("line 9"), "{text}");
    }

    /// `GOOD` with `line` inserted after its line `after` (1-based; `GOOD` starts with a newline).
    fn with_line(after: usize, line: &str) -> String {
        let mut lines: Vec<&str> = GOOD.split('\n').collect();
        lines.insert(after, line);
        lines.join("\n")
    }

    #[test]
    fn each_misspelled_webhook_field_is_named_with_its_line_and_the_field_meant() {
        for (misspelled, meant) in [
            ("namespaceSelecter: {}", "namespaceSelector"),
            ("sideEfects: None", "sideEffects"),
            ("timeoutSecond: 5", "timeoutSeconds"),
            ("SideEffects: None", "sideEffects"),
        ] {
            let text = parse(&with_line(8, &format!("    {misspelled}"))).unwrap_err().to_string();
            let field = misspelled.split(':').next().unwrap();
            assert!(
                text.contains(&format!("hooks.yaml:9: webhooks[0].{field}: did you mean `{meant}`?")),
                "{misspelled}: {text}"
            );
            assert!(text.starts_with("hooks.yaml: 1 unknown field, which the apiserver refuses"), "{text}");
            assert!(
                text.contains(&format!("apiserver says: MutatingWebhookConfiguration in version \"v1\" cannot be handled as a MutatingWebhookConfiguration: strict decoding error: unknown field \"webhooks[0].{field}\"")),
                "{text}"
            );
        }
    }

    #[test]
    fn reinvocation_policy_is_unknown_on_a_validating_webhook_only() {
        let mutating = with_line(8, "    reinvocationPolicy: IfNeeded");
        assert!(parse(&mutating).unwrap().webhooks[0].reinvoked());
        let validating = mutating.replace("kind: Mutating", "kind: Validating");
        let text = parse(&validating).unwrap_err().to_string();
        assert!(
            text.contains("hooks.yaml:9: webhooks[0].reinvocationPolicy: reinvocationPolicy is a field of MutatingWebhookConfiguration webhooks only"),
            "{text}"
        );
        assert!(text.contains("ValidatingWebhookConfiguration in version \"v1\""), "{text}");
    }

    #[test]
    fn nested_unknown_fields_are_named_by_their_whole_path() {
        let nested = GOOD
            .replace("{operations: [\"CREATE\"]", "{operation: [\"CREATE\"], operations: [\"CREATE\"]")
            .replace("path: /mutate}", "path: /mutate, prot: 443}");
        let text = parse(&nested).unwrap_err().to_string();
        assert!(text.contains("hooks.yaml:12: webhooks[0].rules[0].operation: did you mean `operations`?"), "{text}");
        assert!(text.contains("hooks.yaml:10: webhooks[0].clientConfig.service.prot: did you mean `port`?"), "{text}");
        let selector = with_line(8, "    objectSelector: {matchExpressions: [{key: a, operater: In, values: [b]}]}");
        let text = parse(&selector).unwrap_err().to_string();
        assert!(
            text.contains(
                "hooks.yaml:9: webhooks[0].objectSelector.matchExpressions[0].operater: did you mean `operator`?"
            ),
            "{text}"
        );
        let conditions = with_line(8, "    matchConditions: [{name: a, expresion: \"true\"}]");
        let text = parse(&conditions).unwrap_err().to_string();
        assert!(
            text.contains("hooks.yaml:9: webhooks[0].matchConditions[0].expresion: did you mean `expression`?"),
            "{text}"
        );
    }

    #[test]
    fn top_level_and_metadata_fields_are_checked() {
        let text = GOOD.replace("metadata: {name: demo}", "metadata: {name: demo, label: {a: b}}\nspec: {}");
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains("hooks.yaml:4: metadata.label: did you mean `labels`?"), "{e}");
        assert!(e.contains("hooks.yaml:5: spec\n") || e.contains("hooks.yaml:5: spec "), "{e}");
        // What ObjectMeta has is known, labels and annotations take any key, fieldsV1 any content.
        let meta = GOOD.replace(
            "metadata: {name: demo}",
            "metadata:\n  name: demo\n  labels: {anything: goes}\n  annotations: {a/b: c}\n  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: x, uid: u, controller: true}]\n  managedFields: [{manager: kubectl, operation: Apply, fieldsType: FieldsV1, fieldsV1: {f:webhooks: {}}}]",
        );
        assert_eq!(parse(&meta).unwrap().webhooks.len(), 1);
    }

    #[test]
    fn several_unknown_fields_are_all_named_in_file_order() {
        let text = GOOD
            .replace("    sideEffects: None\n", "    sideEfects: None\n    timeoutSecond: 5\n")
            .replace("{operations: [\"CREATE\"]", "{operation: [\"CREATE\"], operations: [\"CREATE\"]");
        let two = format!(
            "{text}---\n{}",
            with_line(8, "    failurePolcy: Fail").replace("kind: Mutating", "kind: Validating")
        );
        let e = parse(&two).unwrap_err().to_string();
        let expected = [
            "hooks.yaml:8: webhooks[0].sideEfects: did you mean `sideEffects`?",
            "hooks.yaml:9: webhooks[0].timeoutSecond: did you mean `timeoutSeconds`?",
            "hooks.yaml:13: webhooks[0].rules[0].operation: did you mean `operations`?",
            "hooks.yaml:23: webhooks[0].failurePolcy: did you mean `failurePolicy`?",
        ];
        let at: Vec<usize> = expected.iter().map(|x| e.find(x).unwrap_or_else(|| panic!("{x} in {e}"))).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{e}");
        assert!(e.starts_with("hooks.yaml: 4 unknown fields"), "{e}");
        assert!(e.contains("strict decoding error: unknown field \"webhooks[0].sideEfects\", unknown field \"webhooks[0].timeoutSecond\", unknown field \"webhooks[0].rules[0].operation\"\n"), "{e}");
        assert!(
            e.contains(
                "ValidatingWebhookConfiguration: strict decoding error: unknown field \"webhooks[0].failurePolcy\""
            ),
            "{e}"
        );
    }

    #[test]
    fn v1beta1_and_list_items_are_checked_too() {
        let beta = with_line(8, "    sideEfects: None")
            .replace("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1beta1\n");
        let e = parse(&beta).unwrap_err().to_string();
        assert!(e.contains("hooks.yaml:9: webhooks[0].sideEfects"), "{e}");
        assert!(e.contains("MutatingWebhookConfiguration in version \"v1beta1\""), "{e}");
        // v1beta1 has every field v1 has.
        let full = with_line(8, "    reinvocationPolicy: Never\n    matchPolicy: Exact\n    matchConditions: [{name: a, expression: \"true\"}]")
            .replace("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1beta1\n");
        assert_eq!(parse(&full).unwrap().webhooks.len(), 1);
        let list = format!(
            "apiVersion: v1\nkind: List\nitems:\n{}",
            with_line(8, "    sideEfects: None")
                .trim_start()
                .lines()
                .enumerate()
                .map(|(i, l)| if i == 0 { format!("  - {l}\n") } else { format!("    {l}\n") })
                .collect::<String>()
        );
        let e = parse(&list).unwrap_err().to_string();
        assert!(e.contains("hooks.yaml:11: items[0].webhooks[0].sideEfects: did you mean `sideEffects`?"), "{e}");
        assert!(e.contains("strict decoding error: unknown field \"webhooks[0].sideEfects\""), "{e}");
        // Other objects in the file are not the suite's to judge.
        let other =
            format!("{GOOD}---\napiVersion: v1\nkind: Service\nmetadata: {{name: svc}}\nspec: {{anything: 1}}\n");
        assert_eq!(parse(&other).unwrap().webhooks.len(), 1);
    }

    #[test]
    fn the_bundled_manifests_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for file in ["reference-webhook/manifests/reference.yaml", "examples/python-webhook/webhook.yaml"] {
            let m = Manifest::load(&root.join(file)).unwrap_or_else(|e| panic!("{e}"));
            assert!(!m.webhooks.is_empty(), "{file}");
        }
    }

    #[test]
    fn missing_versions_and_client_config_are_errors() {
        let bad = GOOD.replace("    admissionReviewVersions: [\"v1beta1\", \"v1\"]\n", "");
        let text = parse(&bad).unwrap_err().to_string();
        assert!(text.contains("webhooks[0].admissionReviewVersions"), "{text}");
        let bad = GOOD.replace("[\"v1beta1\", \"v1\"]", "[\"v2\"]");
        assert!(parse(&bad).unwrap_err().to_string().contains("no version the apiserver knows"));
        let bad = GOOD.replace("service: {name: svc, namespace: ns, path: /mutate}", "url: http://x/");
        assert!(parse(&bad).unwrap_err().to_string().contains("https"));
    }

    #[test]
    fn v1beta1_configurations_load_with_v1beta1_defaults() {
        let text = GOOD
            .replace("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1beta1\n")
            .replace("    admissionReviewVersions: [\"v1beta1\", \"v1\"]\n", "")
            .replace("    sideEffects: None\n", "");
        let w = &parse(&text).unwrap().webhooks[0];
        assert_eq!(w.api_version, ConfigVersion::V1beta1);
        assert_eq!(w.failure_policy.as_deref(), Some("Ignore"));
        assert_eq!(w.match_policy.as_deref(), Some("Exact"));
        assert_eq!(w.timeout_seconds, 30);
        assert_eq!(w.admission_review_versions, vec!["v1beta1".to_string()]);
        assert_eq!(w.side_effects.as_deref(), Some("Unknown"));
        assert_eq!(
            w.defaulted,
            vec!["failurePolicy", "matchPolicy", "timeoutSeconds", "admissionReviewVersions", "sideEffects"]
        );
        // What the manifest says is kept; v1 fills nothing it does not need.
        let written = text.replace("    rules:\n", "    failurePolicy: Fail\n    timeoutSeconds: 5\n    rules:\n");
        let w = &parse(&written).unwrap().webhooks[0];
        assert_eq!((w.failure_policy.as_deref(), w.timeout_seconds), (Some("Fail"), 5));
        assert!(!w.defaulted.contains(&"failurePolicy") && !w.defaulted.contains(&"timeoutSeconds"));
        let v1 = &parse(GOOD).unwrap().webhooks[0];
        assert_eq!((v1.api_version, v1.failure_policy.as_deref(), v1.timeout_seconds), (ConfigVersion::V1, None, 10));
        assert!(v1.defaulted.is_empty());
    }

    #[test]
    fn v1alpha1_kinds_are_errors_that_name_the_modern_kinds() {
        let external = "apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: ExternalAdmissionHookConfiguration\nmetadata: {name: old}\nexternalAdmissionHooks:\n  - name: hook.example.com\n    clientConfig: {service: {name: hook, namespace: ns}, caBundle: eA==}\n    rules: [{operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]\n";
        let text = parse(external).unwrap_err().to_string();
        assert!(text.contains("kind ExternalAdmissionHookConfiguration"), "{text}");
        assert!(
            text.contains("ValidatingWebhookConfiguration") && text.contains("admissionregistration.k8s.io/v1 "),
            "{text}"
        );
        let initializer = "apiVersion: admissionregistration.k8s.io/v1alpha1\nkind: InitializerConfiguration\nmetadata: {name: old}\ninitializers: [{name: podimage.example.com, rules: [{apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}]}]\n";
        let text = parse(initializer).unwrap_err().to_string();
        assert!(text.contains("InitializerConfiguration") && text.contains("MutatingWebhookConfiguration"), "{text}");
        let alpha = GOOD.replace("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1alpha1\n");
        let text = parse(&alpha).unwrap_err().to_string();
        assert!(text.contains("apiVersion") && text.contains("admissionregistration.k8s.io/v1"), "{text}");
    }

    #[test]
    fn no_configuration_is_an_error() {
        let text = parse("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n").unwrap_err().to_string();
        assert!(text.contains("no MutatingWebhookConfiguration"), "{text}");
    }

    #[test]
    fn list_and_multi_document_files() {
        let list = format!(
            "apiVersion: v1\nkind: List\nitems:\n{}",
            GOOD.trim_start()
                .lines()
                .enumerate()
                .map(|(i, l)| if i == 0 { format!("  - {l}\n") } else { format!("    {l}\n") })
                .collect::<String>()
        );
        assert_eq!(parse(&list).unwrap().webhooks.len(), 1);
        let two = format!("{GOOD}\n---\n{}", GOOD.replace("Mutating", "Validating"));
        let m = parse(&two).unwrap();
        assert_eq!(m.webhooks.len(), 2);
        assert_eq!(m.webhooks[1].kind, WebhookKind::Validating);
    }
}
