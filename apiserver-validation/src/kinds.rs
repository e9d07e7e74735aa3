//! The name rule each kind's validation passes to `ValidateObjectMeta`
//! (kubernetes/kubernetes `pkg/apis/<group>/validation/validation.go`; for custom resources
//! apiextensions-apiserver `pkg/registry/customresource/strategy.go`).
//!
//! To add a kind: one arm in [`name_rule`] naming the Go function its `Validate<Kind>` passes.

use crate::content;
use crate::field::{BadValue, FieldError};

/// A `ValidateNameFunc`: how `metadata.name` (and, trailing dash tolerated, `generateName`) is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain` (`IsDNS1123Subdomain`).
    DnsSubdomain,
    /// `NameIsDNSLabel` (`IsDNS1123Label`): Namespace (`ValidateNamespaceName`), Service (with
    /// `RelaxedServiceNameValidation`, beta and on by default since 1.35).
    DnsLabel,
    /// `NameIsDNS1035Label` (`IsDNS1035Label`).
    Dns1035Label,
}

impl NameRule {
    /// The Go function.
    pub fn go_name(self) -> &'static str {
        match self {
            NameRule::DnsSubdomain => "NameIsDNSSubdomain",
            NameRule::DnsLabel => "NameIsDNSLabel",
            NameRule::Dns1035Label => "NameIsDNS1035Label",
        }
    }

    /// The messages for `name`; `prefix` for a generateName, whose trailing dash is masked
    /// (`maskTrailingDash`: a final `-` after at least one character stands for a letter).
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        let masked;
        let name = if prefix && name.len() > 1 && name.ends_with('-') {
            masked = format!("{}a", String::from_utf8_lossy(&name.as_bytes()[..name.len() - 2]));
            masked.as_str()
        } else {
            name
        };
        match self {
            NameRule::DnsSubdomain => content::is_dns1123_subdomain(name),
            NameRule::DnsLabel => content::is_dns1123_label(name),
            NameRule::Dns1035Label => content::is_dns1035_label(name),
        }
    }
}

/// The kinds whose name rule is modelled (their spec: `crate::object::SPEC_MODELLED`).
pub const MODELLED: &[(&str, &str)] = &[
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("", "Service"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "Namespace"),
    ("", "ServiceAccount"),
    ("networking.k8s.io", "Ingress"),
];

/// The name rule of a kind, and whether the kind is one of [`MODELLED`] (any other kind gets
/// `NameIsDNSSubdomain`, the rule of most kinds and of every custom resource).
pub fn name_rule(group: &str, kind: &str) -> (NameRule, bool) {
    let modelled = MODELLED.contains(&(group, kind));
    let rule = match (group, kind) {
        // core/validation: ValidateNamespaceName = NameIsDNSLabel.
        ("", "Namespace") => NameRule::DnsLabel,
        // core/validation ValidateServiceCreate: NameIsDNSLabel under RelaxedServiceNameValidation
        // (default on), ValidateServiceName = NameIsDNS1035Label otherwise.
        ("", "Service") => NameRule::DnsLabel,
        // ValidatePodName, ValidateConfigMapName, ValidateSecretName, ValidateServiceAccountName,
        // ValidateDeploymentName, ValidateReplicaSetName, ValidateStatefulSetName,
        // ValidateDaemonSetName, ValidateReplicationControllerName (Job, CronJob),
        // ValidateIngressName: NameIsDNSSubdomain.
        _ => NameRule::DnsSubdomain,
    };
    (rule, modelled)
}

/// A kind's own checks of `metadata.name` on create, beyond its name rule: `ValidateCronJob`
/// refuses a name longer than 52 characters (the controller appends an 11-character suffix).
pub fn extra_name_errors(group: &str, kind: &str, name: &str) -> Vec<FieldError> {
    if (group, kind) == ("batch", "CronJob") && name.len() > content::DNS1035_LABEL_MAX_LENGTH - 11 {
        return vec![FieldError::invalid(
            "metadata.name",
            BadValue::Str(name.into()),
            "must be no more than 52 characters",
        )];
    }
    Vec::new()
}
