//! The `--defect` switches: each one breaks exactly one promise of the webhook protocol.

use std::fmt;
use std::str::FromStr;

macro_rules! defects {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $rule:literal, $desc:literal; )*) => {
        /// A deliberate protocol defect of the reference webhook.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Defect {
            $( #[doc = $desc] $(#[$doc])* $variant, )*
        }

        impl Defect {
            /// Every defect, in the order `--list-defects` prints them.
            pub const ALL: &'static [Defect] = &[ $( Defect::$variant, )* ];

            /// The kebab-case name used on the command line.
            pub fn name(&self) -> &'static str {
                match self { $( Defect::$variant => $name, )* }
            }

            /// The id of the suite rule that must catch this defect.
            pub fn rule(&self) -> &'static str {
                match self { $( Defect::$variant => $rule, )* }
            }

            /// One line saying what the defect does.
            pub fn description(&self) -> &'static str {
                match self { $( Defect::$variant => $desc, )* }
            }
        }
    };
}

defects! {
    // FAIL level.
    Hang = "hang", "transport.deadline",
        "never answers: holds every request open until the client gives up";
    LateAnswer = "late-answer", "transport.deadline",
        "answers correctly, but one second after the deadline the request's ?timeout= states";
    CloseConnection = "close-connection", "transport.answer",
        "closes the TCP/TLS connection without sending any HTTP response";
    CloseAfterAnswer = "close-after-answer", "transport.answer",
        "answers the first request of each connection correctly, then closes the connection when the next request arrives on it, without having sent `Connection: close`";
    UntrustedCert = "untrusted-cert", "transport.connect",
        "serves a fresh self-signed certificate minted at startup instead of the given one";
    Status500 = "status-500", "transport.status",
        "answers HTTP 500 with body `internal error`";
    NamelessPod = "nameless-pod", "transport.status",
        "answers HTTP 500 to a pod CREATE without a name (a pod a ReplicaSet or a Job makes, with generateName)";
    BadContentType = "bad-content-type", "transport.content-type",
        "correct body, but an unparsable `Content-Type: application/` header";
    EmptyBody = "empty-body", "review.body",
        "answers 200 with an empty body";
    GarbageBody = "garbage-body", "review.body",
        "answers 200 with the body `<html>oops</html>`";
    AllowedAsString = "allowed-as-string", "review.decode",
        "sends `allowed` as a string (\"true\"/\"false\") instead of a boolean";
    NoApiVersionKind = "no-apiversion-kind", "review.gvk-present",
        "the AdmissionReview answer omits apiVersion and kind";
    WrongVersion = "wrong-version", "review.gvk",
        "answers a v1 review as admission.k8s.io/v1beta1 and a v1beta1 review as v1";
    WrongKind = "wrong-kind", "review.gvk",
        "answers with kind `AdmissionResponse` instead of `AdmissionReview`";
    NoResponse = "no-response", "response.present",
        "the `response` member is absent";
    WrongUid = "wrong-uid", "response.uid",
        "response.uid is a fresh UUID instead of request.uid";
    NoUid = "no-uid", "response.uid",
        "response.uid is omitted";
    NoUidOnDenial = "no-uid-on-denial", "response.uid",
        "omits response.uid on denials only (an error path that forgets the uid)";
    PatchWithoutType = "patch-without-type", "patch.pairing",
        "mutate: sends `patch` without `patchType`";
    TypeWithoutPatch = "type-without-patch", "patch.pairing",
        "mutate: sends `patchType: JSONPatch` without a patch when there is nothing to patch";
    MimePatchType = "mime-patch-type", "patch.type",
        "mutate: patchType `application/json-patch+json` instead of `JSONPatch`";
    ValidatingPatch = "validating-patch", "validating.no-patch",
        "validate: the validating answer carries a patch and patchType";
    UrlSafeBase64 = "url-safe-base64", "patch.base64",
        "mutate: the patch is URL-safe base64 without padding (and adds a note annotation so `-`/`_` appear)";
    PatchNotArray = "patch-not-array", "patch.json",
        "mutate: the patch is base64 of a single JSON object, not an array of operations";
    MissingParent = "missing-parent", "patch.applies",
        "mutate: adds /metadata/labels/<key> even when the object has no labels map";
    UnescapedSlash = "unescaped-slash", "patch.applies",
        "mutate: writes the annotation key path without escaping `/` as `~1`";
    WrongType = "wrong-type", "patch.kind-decode",
        "mutate: sets the annotation value to the number 1 instead of a string";
    PatchOnDelete = "patch-on-delete", "patch.no-object",
        "mutate: sends a non-empty patch on DELETE, where there is no object";
    InvalidLabelValue = "invalid-label-value", "object.valid",
        "mutate: sets its label to `not valid!`, a value the apiserver's label validation refuses";
    AnnotationsOverflow = "annotations-overflow", "object.valid",
        "mutate: adds a 256 KiB annotation, pushing the object's annotations past the apiserver's 256 KiB limit";
    AddsContainerOnUpdate = "adds-container-on-update", "object.valid",
        "mutate: injects its sidecar on pod UPDATE too, which the apiserver refuses (pod updates may not add or remove containers)";
    BadContainerName = "bad-container-name", "object.valid",
        "mutate: names its sidecar `Conformance_Sidecar`, not a DNS-1123 label as a container name must be";
    UnparseableQuantity = "unparseable-quantity", "patch.kind-decode",
        "mutate: gives its sidecar the CPU limit `lots`, a quantity the apiserver's decoder refuses (ParseQuantity)";
    NegativeRunAsUser = "negative-run-as-user", "object.valid",
        "mutate: gives its sidecar `securityContext.runAsUser: -1`, a user ID the apiserver's validation refuses (ValidateSecurityContext: between 0 and 2147483647)";
    WorkloadSelectorMismatch = "workload-selector-mismatch", "object.valid",
        "mutate: adds its label to a Deployment's selector but not to its pod template, so the selector no longer matches the template's labels";
    ServicePortOutOfRange = "service-port-out-of-range", "object.valid",
        "mutate: on a Service, adds the port `conformance-metrics` numbered 70000, beyond the 65535 the apiserver's Service validation allows";
    CustomResourceOutOfRange = "custom-resource-out-of-range", "object.valid",
        "mutate: on a custom resource whose spec has an integer `replicas`, sets it to 1000, beyond the maximum its CRD's schema allows";
    CustomResourceBreaksRule = "custom-resource-breaks-rule", "object.valid",
        "mutate: on a custom resource whose spec has an integer `replicas`, sets `mode: fast` and `replicas: 8`, each within its CRD's schema but together against its x-kubernetes-validations rule (a fast widget runs at most 5 replicas)";
    // WARN level.
    TextPlain = "text-plain", "transport.content-type-json",
        "answers with `Content-Type: text/plain`";
    YamlBody = "yaml-body", "review.json",
        "answers with the AdmissionReview written as YAML instead of JSON";
    AllowedMissing = "allowed-missing", "response.allowed-present",
        "omits `allowed` when allowing (the apiserver reads that as a denial)";
    DenyWithoutMessage = "deny-without-message", "denial.message",
        "validate: denials carry no status message or reason";
    DenyCode200 = "deny-code-200", "denial.code",
        "validate: denials carry status.code 200";
    PatchAsByteArray = "patch-as-byte-array", "patch.base64-string",
        "mutate: the patch is a JSON array of byte values instead of a base64 string";
    ReplaceMissingKey = "replace-missing-key", "patch.rfc6902",
        "mutate: `replace` instead of `add` for the label key when the labels map lacks it";
    BadWarning = "bad-warning", "warnings.valid",
        "validate: sends a warning containing the control character U+0007";
    BadAuditKey = "bad-audit-key", "audit.keys",
        "validate: audit annotation key `bad/key` (contains `/`)";
    PatchWithDenial = "patch-with-denial", "denial.no-patch",
        "mutate: denies CREATE/UPDATE requests and still includes a patch";
    CustomResourcePrunedField = "custom-resource-pruned-field", "object.pruned",
        "mutate: writes `spec.conformanceInjected: true` into a custom resource, a field its CRD's schema does not specify: the apiserver prunes it and the mutation is lost";
    ManagedFieldsWithoutType = "managed-fields-without-type", "object.managed-fields",
        "mutate: records its write in a metadata.managedFields entry without fieldsType, which the field manager cannot decode: the apiserver puts back the managedFields from before admission and warns the client, so the entry never reaches storage";
    StatusSpecWrite = "status-spec-write", "object.status-reset",
        "mutate: injects its sidecar on an UPDATE of a pod's /status too, a write into the spec that the pod status strategy puts back from the stored pod (podStatusStrategy.PrepareForUpdate): the container is dropped without an error";
    ClusterTrustBundleWrite = "cluster-trust-bundle-write", "object.gate-dropped",
        "mutate: adds a projected volume of a signer's cluster trust bundles to the pods it creates, a source the registry drops before validation while the ClusterTrustBundleProjection feature gate is off, as it is by default (dropDisabledClusterTrustBundleProjection): the source is lost without an error";
    // Properties over generated requests (`webhook-conformance fuzz`): every single answer is
    // valid; the defect only shows across calls.
    SidecarEveryCall = "sidecar-every-call", "property.idempotent",
        "mutate: appends the sidecar container on every call, even when the pod already has it";
    SidecarLastCheck = "sidecar-last-check", "property.reinvocation",
        "mutate: looks for its sidecar only in the last container, so another mutator's container makes it add a second one";
    CounterAnnotation = "counter-annotation", "property.idempotent",
        "mutate: an annotation counting the calls that saw the object (1, 2, 3, ...)";
    RandomAnnotation = "random-annotation", "property.deterministic",
        "mutate: sets an annotation to a fresh random value when the object lacks it";
    NoMutationOnDryRun = "no-mutation-on-dry-run", "property.dry-run",
        "mutate: sends no patch when the request is a dry run";
    PatchTypeOnSecondCall = "patch-type-on-second-call", "property.idempotent",
        "mutate: when an object already holds all its changes (a re-invocation), sends patchType without a patch";
    NonRootSidecarScan = "non-root-sidecar-scan", "property.idempotent",
        "mutate: on a pod that runs as non-root (spec.securityContext.runAsNonRoot) it looks for its sidecar only among the first three containers, so such a pod of three containers or more gets another sidecar on every call";
}

impl Defect {
    /// The level at which the suite reports the rule this defect breaks: `"FAIL"` or `"WARN"`.
    pub fn level(&self) -> &'static str {
        match self {
            Defect::TextPlain
            | Defect::YamlBody
            | Defect::AllowedMissing
            | Defect::DenyWithoutMessage
            | Defect::DenyCode200
            | Defect::PatchAsByteArray
            | Defect::ReplaceMissingKey
            | Defect::BadWarning
            | Defect::BadAuditKey
            | Defect::PatchWithDenial
            | Defect::CustomResourcePrunedField
            | Defect::ManagedFieldsWithoutType
            | Defect::StatusSpecWrite
            | Defect::ClusterTrustBundleWrite
            | Defect::RandomAnnotation
            | Defect::NoMutationOnDryRun => "WARN",
            _ => "FAIL",
        }
    }

    /// True for the defects that only a property over several calls catches (`webhook-conformance
    /// fuzz`): each single answer passes every per-answer rule.
    pub fn is_property(&self) -> bool {
        self.rule().starts_with("property.")
    }

    /// True for the defects that show only on an object shape generation alone rarely draws (a
    /// non-root pod of three containers or more) and that mutations of a recorded object reach
    /// (`fuzz --seed-cases DIR`): a default run's few generated requests do not find them.
    pub fn needs_recorded_shapes(&self) -> bool {
        matches!(self, Defect::NonRootSidecarScan)
    }

    /// True for the defects that show only on a Service, which the bundled manifest does not
    /// register for: a run whose manifest adds `services` to the mutating webhook catches them.
    pub fn needs_service(&self) -> bool {
        matches!(self, Defect::ServicePortOutOfRange)
    }

    /// True for the defects that show only on an UPDATE of a pod's `/status`, which the bundled
    /// manifest registers for its validating webhook but not its mutating one: a run whose manifest
    /// adds `pods/status` to the mutating webhook catches them.
    pub fn needs_pod_status(&self) -> bool {
        matches!(self, Defect::StatusSpecWrite)
    }

    /// True for the defects that show only on a custom resource, which the bundled manifest does
    /// not register for: a run whose manifest adds a CRD's resource (and gives the CRD, `--crd`)
    /// catches them.
    pub fn needs_custom_resource(&self) -> bool {
        matches!(
            self,
            Defect::CustomResourceOutOfRange | Defect::CustomResourceBreaksRule | Defect::CustomResourcePrunedField
        )
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown defect name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDefect(pub String);

impl fmt::Display for UnknownDefect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown defect `{}`; known defects: ", self.0)?;
        for (i, d) in Defect::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(d.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownDefect {}

impl FromStr for Defect {
    type Err = UnknownDefect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Defect::ALL.iter().copied().find(|d| d.name() == s).ok_or_else(|| UnknownDefect(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for d in Defect::ALL {
            assert!(seen.insert(d.name()), "duplicate name {}", d.name());
            assert_eq!(d.to_string().parse::<Defect>(), Ok(*d));
            assert!(!d.description().is_empty());
            assert!(d.rule().contains('.'), "rule id {} of {d}", d.rule());
            assert!(
                d.name().chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{d} is not kebab-case"
            );
        }
        assert_eq!(Defect::ALL.len(), 59);
    }

    #[test]
    fn unknown_name_is_an_error_listing_the_known_ones() {
        let err = "no-such-defect".parse::<Defect>().unwrap_err();
        let text = err.to_string();
        assert!(text.contains("no-such-defect"));
        assert!(text.contains("close-connection"));
    }
}
