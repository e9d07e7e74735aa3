//! The rule catalog: every promise the suite holds a webhook to, in one list. Each rule has an id, a
//! severity, a one-line statement, the source it comes from, and what it judges ([`RuleKind`]): one
//! exchange, a property over generated exchanges, the manifest, a case, or the target's life.
//!
//! Severity: FAIL where the apiserver rejects the answer (or the docs forbid it); WARN where the
//! apiserver tolerates it but it is wrong, risky or unportable. Source paths are in kubernetes/kubernetes,
//! relative to `staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/` unless they say otherwise.
//!
//! To add a rule: write its check in `checks/` (a function of what it judges to a [`Check`]), then add
//! one entry here, next to the rules of its kind. Exchange rules stand in the order the apiserver
//! processes an answer: a FAIL stops the rules after it.

use crate::checks::{self, manifest, property, side_effects, Exchange, Observation, Procedure};
use crate::config::WebhookSpec;
use crate::requests::generated::Scope;
use crate::verdict::{Check, Finding, Severity, Softened};

/// What a rule judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    /// One exchange: a request and the webhook's answer.
    Exchange,
    /// A property over several exchanges made for one (generated or case) request.
    Property,
    /// The webhook configuration manifest.
    Manifest,
    /// A data-driven case: its expectation, its snapshot.
    Case,
    /// The target's life: it starts, it stays up.
    Target,
    /// What the run reached of a webhook: requests sent.
    Coverage,
    /// What a webhook did to the Kubernetes API while it admitted the suite's requests.
    SideEffects,
}

impl RuleKind {
    /// Every kind, in the order `webhook-conformance rules` prints them.
    pub const ALL: [RuleKind; 7] = [
        RuleKind::Exchange,
        RuleKind::Property,
        RuleKind::Manifest,
        RuleKind::Case,
        RuleKind::Target,
        RuleKind::Coverage,
        RuleKind::SideEffects,
    ];

    /// A heading for listings.
    pub fn title(self) -> &'static str {
        match self {
            RuleKind::Exchange => "EXCHANGES (each answer, in the order the apiserver processes it)",
            RuleKind::Property => "PROPERTIES (generated requests and cases: several calls each)",
            RuleKind::Manifest => "MANIFEST (the webhook configuration itself)",
            RuleKind::Case => "CASES (--cases DIR, --golden DIR)",
            RuleKind::Target => "TARGET (the webhook under test as a process, container or URL)",
            RuleKind::Coverage => "COVERAGE (what the run reached of each webhook)",
            RuleKind::SideEffects => "SIDE EFFECTS (what the webhook wrote to the Kubernetes API the suite serves it)",
        }
    }
}

/// How a rule's check is run: the data the run needs for each kind.
#[derive(Clone, Copy)]
pub(crate) enum Judges {
    Exchange {
        check: fn(&Exchange) -> Check,
        /// The apiserver does not enforce this for `admission.k8s.io/v1beta1` answers: there a breach
        /// is a WARN.
        lenient_in_v1beta1: bool,
    },
    Property {
        /// Which calls the property makes for one request.
        procedure: Procedure,
        /// Which generated requests it draws.
        scope: Scope,
        check: fn(&Observation) -> Check,
    },
    Manifest {
        check: fn(&WebhookSpec) -> Check,
    },
    /// Judged by the run's case step.
    Case,
    /// Judged by the run's target step.
    Target,
    /// Judged at the end of the run from the requests each webhook got.
    Coverage {
        check: fn(&WebhookSpec, u64) -> Check,
    },
    /// Judged at the end of the run from the calls each webhook made to the recording API.
    SideEffects {
        check: fn(&WebhookSpec, &side_effects::Activity) -> Check,
    },
}

/// One rule of the catalog.
pub struct Rule {
    /// A stable id, e.g. `response.uid`.
    pub id: &'static str,
    /// What a breach weighs.
    pub severity: Severity,
    /// The promise, in one line.
    pub statement: &'static str,
    /// Where the promise comes from (apiserver source file, document, RFC).
    pub source: &'static str,
    pub(crate) judges: Judges,
}

impl Rule {
    /// What a property's verdict rests on: `N generated cases`, or the manifest for a property
    /// judged on the webhook's configuration alone (it sends nothing).
    pub fn extent(&self, cases: u64) -> String {
        match self.judges {
            Judges::Property { procedure: Procedure::Static, .. } => "judged on the manifest".into(),
            _ => format!("{cases} generated cases"),
        }
    }
}

impl Rule {
    /// What the rule judges.
    pub fn kind(&self) -> RuleKind {
        match self.judges {
            Judges::Exchange { .. } => RuleKind::Exchange,
            Judges::Property { .. } => RuleKind::Property,
            Judges::Manifest { .. } => RuleKind::Manifest,
            Judges::Case => RuleKind::Case,
            Judges::Target => RuleKind::Target,
            Judges::Coverage { .. } => RuleKind::Coverage,
            Judges::SideEffects { .. } => RuleKind::SideEffects,
        }
    }

    /// True for an exchange rule the apiserver enforces only for `admission.k8s.io/v1` answers.
    pub fn lenient_in_v1beta1(&self) -> bool {
        matches!(self.judges, Judges::Exchange { lenient_in_v1beta1: true, .. })
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("id", &self.id)
            .field("severity", &self.severity)
            .field("kind", &self.kind())
            .finish()
    }
}

const DISPATCH: &str = "mutating/dispatcher.go, validating/dispatcher.go; pkg/util/webhook/client.go";
const VERIFY: &str = "request/admissionreview.go (VerifyAdmissionResponse)";
const APPLY: &str = "mutating/dispatcher.go (callAttrMutatingHook)";
const REINVOKE: &str = "mutating/reinvocationcontext.go; pkg/admission/reinvocation.go; Kubernetes docs, Dynamic Admission Control: Reinvocation policy, Idempotence";
const VALIDATION: &str = "pkg/apis/admissionregistration/validation/validation.go";
/// The apiserver's JSON decoder of an answer (line numbers of sigs.k8s.io/json @9f7c6b3, the fork
/// of Go's encoding/json that kube-apiserver vendors).
const GO_DECODER: &str = "sigs.k8s.io/json internal/golang/encoding/json/decode.go: Unmarshal (checkValid first, L96), object (exact-case field match L793, unknown keys skipped, a repeated key decodes into the value already set), literalStore (null leaves bool/string/int as they are L1005-1015; strconv.ParseInt + OverflowInt L1112; []byte from standard base64 L1058), unquoteBytes (invalid UTF-8 and lone surrogates become U+FFFD, one per bad byte, L1405-1429), saveError/addErrorContext (the first error, 'Go struct field <Struct>.<path>')";

macro_rules! exchange {
    ($id:literal, $sev:ident, $lenient:literal, $check:path, $statement:literal, $source:expr) => {
        Rule {
            id: $id,
            severity: Severity::$sev,
            statement: $statement,
            source: $source,
            judges: Judges::Exchange { check: $check, lenient_in_v1beta1: $lenient },
        }
    };
}

macro_rules! property {
    ($id:literal, $sev:ident, $procedure:ident, $scope:ident, $check:path, $statement:literal, $source:expr) => {
        Rule {
            id: $id,
            severity: Severity::$sev,
            statement: $statement,
            source: $source,
            judges: Judges::Property { procedure: Procedure::$procedure, scope: Scope::$scope, check: $check },
        }
    };
}

macro_rules! manifest {
    ($id:literal, $sev:ident, $check:path, $statement:literal, $source:expr) => {
        Rule {
            id: $id,
            severity: Severity::$sev,
            statement: $statement,
            source: $source,
            judges: Judges::Manifest { check: $check },
        }
    };
}

/// Every rule. Exchange rules first, in the order the apiserver processes an answer.
#[rustfmt::skip]
pub static CATALOG: &[Rule] = &[
    exchange!("transport.connect", Fail, false, checks::connect,
        "The webhook accepts a TLS connection with a certificate the configured CA vouches for, valid for the name the apiserver calls: <service>.<namespace>.svc, or the host of clientConfig.url.",
        "k8s.io/apiserver pkg/util/webhook/client.go (ClientManager.HookClient: serverName = <name>.<namespace>.svc, TLSClientConfig.ServerName); mutating/dispatcher.go, validating/dispatcher.go; Go crypto/x509 verify.go (Certificate.VerifyHostname, HostnameError.Error), crypto/tls common.go (CertificateVerificationError)"),
    exchange!("transport.answer", Fail, false, checks::answer,
        "The webhook answers with a complete HTTP response instead of closing or resetting the connection.",
        DISPATCH),
    exchange!("transport.deadline", Fail, false, checks::deadline,
        "The webhook answers within timeoutSeconds (default 10 s); the apiserver gives up after that.",
        "mutating/dispatcher.go, validating/dispatcher.go (?timeout=Ns, context deadline)"),
    exchange!("transport.status", Fail, false, checks::status,
        "The HTTP status is 200–206 (after the retries a 429/5xx with Retry-After earns); any other status is an error of calling the webhook.",
        "k8s.io/client-go/rest/request.go (transformResponse, Result.Error); pkg/util/webhook/client.go"),
    exchange!("transport.content-type", Fail, false, checks::content_type,
        "A Content-Type header, when sent, parses as a media type (Go mime.ParseMediaType).",
        "k8s.io/client-go/rest/request.go (transformResponse)"),
    exchange!("transport.content-type-json", Warn, false, checks::content_type_json,
        "The answer says Content-Type: application/json (the apiserver does not enforce it).",
        "k8s.io/client-go/rest/request.go; Kubernetes docs, Dynamic Admission Control: Response"),
    exchange!("review.body", Fail, false, checks::body,
        "The body is a non-empty JSON object the apiserver's decoder accepts: one value, JSON whitespace around it, at most 10000 levels of nesting (invalid UTF-8 inside strings is fine).",
        "k8s.io/client-go/rest/request.go (Result.Into: 0-length response); sigs.k8s.io/json internal/golang/encoding/json/scanner.go (stateInString L335-344 takes any byte >= 0x20; maxNestingDepth = 10000 L144, pushParseState L176-181 'exceeded max depth'; stateEndTop L326); apimachinery runtime/serializer/json/meta.go (Interpret: 'couldn't get version/kind; json parse error'); for a body read as YAML, go.yaml.in/yaml/v2 scannerc.go (max_flow_level, max_indents = 10000: 'exceeded max depth of 10000') and a sequence Interpret cannot decode into a struct"),
    exchange!("review.json", Warn, false, checks::json_framing,
        "The body starts with '{' (after whitespace); any other body goes to the apiserver's YAML decoder, which reads it by YAML 1.1 rules.",
        "apimachinery pkg/runtime/serializer/recognizer/recognizer.go (decoder.Decode); pkg/util/yaml/decoder.go (IsJSONBuffer: unicode.IsSpace, then '{'); runtime/serializer/json/json.go (Decode: yaml.YAMLToJSON); sigs.k8s.io/yaml over go-yaml v2"),
    exchange!("patch.base64", Fail, false, checks::base64,
        "response.patch decodes as Go decodes a []byte: standard base64 with padding (line breaks ignored).",
        "k8s.io/api/admission/v1 types.go (Patch []byte); sigs.k8s.io/json internal/golang/encoding/json/decode.go (literalStore L1058-1059: base64.StdEncoding.Decode, error saved as it is; array: elements into uint8); vectors/jsonpatch-v4.json base64[]"),
    exchange!("patch.base64-string", Warn, false, checks::base64_string,
        "response.patch is a base64 string, as the API documents, not a JSON array of byte values.",
        "k8s.io/api/admission/v1 types.go (Patch []byte)"),
    exchange!("review.decode", Fail, false, checks::decode,
        "The AdmissionReview decodes: every field has the type the API gives it (allowed a boolean, uid a string, status a Status, an integer an integer, …); null, repeated keys and unknown fields are read as Go reads them.",
        GO_DECODER),
    exchange!("review.gvk", Fail, false, checks::gvk,
        "apiVersion and kind as the apiserver first reads them (keys in any letter case, the last one winning, a missing part defaulted) name the AdmissionReview of the version sent.",
        "apimachinery runtime/serializer/json/meta.go (Interpret: stdlib encoding/json, case-insensitive keys), json.go (gvkWithDefaults), runtime/schema/group_version.go (ParseGroupVersion); runtime scheme (no kind registered, unknown conversion)"),
    exchange!("response.present", Fail, false, checks::present,
        "The AdmissionReview carries a response.",
        VERIFY),
    exchange!("response.uid", Fail, true, checks::uid,
        "response.uid equals request.uid.",
        VERIFY),
    exchange!("review.gvk-present", Fail, true, checks::gvk_present,
        "The answer sets apiVersion and kind with exactly these keys and values: admission.k8s.io/<sent version>, AdmissionReview (admission.k8s.io/v1 verifies them).",
        "request/admissionreview.go (VerifyAdmissionResponse: the decoded TypeMeta, whose keys match case-sensitively)"),
    exchange!("response.allowed-present", Warn, false, checks::allowed_present,
        "response.allowed is set explicitly; a missing allowed is read as a denial.",
        "k8s.io/api/admission/v1 types.go (Allowed bool)"),
    exchange!("patch.pairing", Fail, true, checks::pairing,
        "A mutating webhook sends patch and patchType together, or neither; patchType is never empty.",
        VERIFY),
    exchange!("validating.no-patch", Fail, true, checks::validating_no_patch,
        "A validating webhook sends neither patch nor patchType.",
        VERIFY),
    exchange!("warnings.valid", Warn, false, checks::warnings,
        "Warnings are non-empty, free of control characters, and 4096 characters in total at most.",
        "staging/src/k8s.io/apiserver/pkg/endpoints/filters/warning.go"),
    exchange!("audit.keys", Warn, false, checks::audit_keys,
        "auditAnnotations keys are qualified-name parts (at most 63 characters, no '/').",
        "staging/src/k8s.io/apiserver/pkg/admission/attributes.go; mutating/dispatcher.go"),
    exchange!("denial.message", Warn, false, checks::denial_message,
        "A denial explains itself in status.message (or status.reason).",
        "errors/statuserror.go (ToStatusErr: 'without explanation')"),
    exchange!("denial.code", Warn, false, checks::denial_code,
        "A denial's status.code, when set, is an HTTP error status 400–599.",
        "errors/statuserror.go (codes below 400 become 400)"),
    exchange!("denial.no-patch", Warn, false, checks::denial_no_patch,
        "A denial carries no patch; the apiserver ignores it.",
        APPLY),
    exchange!("patch.json", Fail, false, checks::patch_json,
        "The decoded patch is a JSON Patch document: a JSON array of operation objects.",
        "mutating/dispatcher.go (jsonpatch.DecodePatch)"),
    exchange!("patch.no-object", Fail, false, checks::no_object,
        "No non-empty patch where the request has no object (DELETE).",
        APPLY),
    exchange!("patch.type", Fail, true, checks::patch_type,
        "patchType is \"JSONPatch\", the only type the apiserver supports.",
        APPLY),
    exchange!("patch.applies", Fail, false, checks::applies,
        "The patch applies to the object with the apiserver's JSON Patch library (evanphx/json-patch v4).",
        "mutating/dispatcher.go (patchObj.Apply); vectors/jsonpatch-v4.json patch[]"),
    exchange!("patch.rfc6902", Warn, false, checks::rfc6902,
        "The patch means the same under RFC 6902 as under the apiserver's more lenient library.",
        "RFC 6902; vectors/jsonpatch-v4.json"),
    exchange!("patch.kind-decode", Fail, false, checks::kind_decode,
        "The patched object still decodes as its kind (non-strict: unknown fields dropped, wrong types fail, and every resource quantity — container and pod-overhead resources, quota, limit ranges, claims, volume size limits, … — parses as a Quantity).",
        "mutating/dispatcher.go (jsonSerializer.Decode of the patched object); k8s.io/apimachinery pkg/api/resource/quantity.go (Quantity.UnmarshalJSON, ParseQuantity, parseQuantityString), suffix.go (suffixHandler.interpret)"),
    exchange!("object.pruned", Warn, false, checks::object_pruned,
        "What a mutating webhook's patch writes into a custom resource survives the apiextensions-apiserver's pruning: the fields it sets are in the CRD's schema (or under x-kubernetes-preserve-unknown-fields). A pruned field is dropped without an error, so the mutation has no effect.",
        "apiextensions-apiserver/pkg/apiserver/customresource_handler.go (schemaCoercingConverter, unstructuredSchemaCoercer.apply), pkg/apiserver/schema/pruning/algorithm.go (PruneWithOptions); admission/plugin/webhook/mutating/dispatcher.go (the patched object converted back)"),
    exchange!("object.status-reset", Warn, false, checks::object_status_reset,
        "What a mutating webhook's patch writes on an UPDATE of the /status subresource of a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob is kept by the registry: it writes nothing the kind's status strategy puts back from the stored object (a Pod's spec, owner references, deletion timestamp and an emptied qosClass, and the status fields of gates off by default: nodeAllocatableResourceClaimStatuses, a container status's volumeMounts[*].volumeStatus; a Deployment's spec and labels; the others' spec). Such a write is dropped without an error, so the mutation has no effect.",
        "pkg/registry/core/pod/strategy.go (podStatusStrategy.GetResetFields, PrepareForUpdate, preserveOldObservedGeneration), pkg/api/pod/util.go (DropDisabledPodFields, dropDisabledPodStatusFields: DRANodeAllocatableResources and ImageVolumeWithDigest off by default in 1.36); pkg/registry/apps/deployment, replicaset, statefulset, daemonset/strategy.go and pkg/registry/batch/job, cronjob/strategy.go (the status strategies' PrepareForUpdate, GetResetFields); staging/src/k8s.io/apiserver/pkg/registry/rest/update.go (BeforeUpdate), registry/generic/registry/store.go (Update: mutating admission runs in objInfo.UpdatedObject before BeforeUpdate)"),
    exchange!("object.gate-dropped", Warn, false, checks::object_gate_dropped,
        "What a mutating webhook's patch writes into a Pod, or into the pod template of a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob, is kept by the registry: it writes no field that PrepareForCreate or PrepareForUpdate drops before validation because its feature gate is off by default (a projected volume's clusterTrustBundle source while ClusterTrustBundleProjection is off, its podCertificate source while PodCertificateRequest is off, a container's lifecycle.stopSignal while ContainerStopSignals is off, the pod's schedulingGroup while GenericWorkload is off, each unless the stored object already holds one). Such a write is dropped without an error, so the mutation has no effect.",
        "pkg/api/pod/util.go (DropDisabledPodFields, DropDisabledTemplateFields, dropDisabledClusterTrustBundleProjection, clusterTrustBundleProjectionInUse, dropDisabledPodCertificateProjection, podCertificateProjectionInUse, dropContainerStopSignals, containerStopSignalsInUse, dropDisabledSchedulingGroup); pkg/features/kube_features.go (ClusterTrustBundleProjection: beta since 1.33, PodCertificateRequest: beta since 1.35, ContainerStopSignals: alpha since 1.33, GenericWorkload: alpha since 1.35, all off by default in 1.36); pkg/registry/core/pod/strategy.go and pkg/registry/apps/*, batch/*/strategy.go (PrepareForCreate, PrepareForUpdate); staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go, update.go (mutating admission before the store's BeforeCreate, BeforeUpdate)"),
    exchange!("object.managed-fields", Warn, false, checks::object_managed_fields,
        "The metadata.managedFields a mutating webhook's patch leaves decode as the field manager decodes them (operation Apply or Update, an apiVersion, fieldsType FieldsV1, fieldsV1 a field set): otherwise the apiserver puts back the managedFields from before admission and warns the client, so the write has no effect.",
        "staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/admission.go (managedFieldsValidatingAdmissionController.Admit, InvalidManagedFieldsAfterMutatingAdmissionWarningFormat), handlers/create.go, update.go, patch.go (the wrapper around the admission chain); k8s.io/apimachinery pkg/util/managedfields (ValidateManagedFields), internal/managedfields.go (DecodeManagedFields); sigs.k8s.io/structured-merge-diff/v6 fieldpath/serialize.go (Set.FromJSON, readIterV1), serialize-pe.go (DeserializePathElement)"),
    exchange!("object.valid", Fail, false, checks::object_valid,
        "The patched object, defaulted as the apiserver defaults it, passes the apiserver's validation: its metadata for every kind (name and generateName by the kind's rule, namespace, labels, annotations up to 256 KiB, owner references with one controller at most, finalizers; managedFields (operation, fieldsType, a printable manager of at most 128 bytes, a subresource of at most 256, after the apiserver put back entries that do not decode); on UPDATE name, namespace, uid and deletion fields unchanged), and the spec of Pods (containers, ports, env, volumes and mounts, resources and resource claims, probes; the seccomp, AppArmor and mirror pod annotations, and on CREATE their agreement with the seccompProfile and appArmorProfile fields; on UPDATE no container added or removed, only images, deadlines and tolerations changed, no AppArmor or mirror pod annotation added, changed or removed), Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs (selector matching the template, immutable selectors and Job templates, the template as a pod), ConfigMaps and Secrets (keys, 1 MiB, the keys a Secret's type requires), Services (type, ports, selector, session affinity, ExternalName, node ports, traffic policies; on UPDATE cluster IPs unchanged once set), Namespaces (spec finalizers), ServiceAccounts (metadata only, as the apiserver) and Ingresses (rules, hosts, path types and paths, backends, TLS); on an UPDATE of a Pod's /status, the object the pod status strategy keeps (the stored spec, owner references and deletion timestamp put back) held to the metadata's update rules and the status's (condition types, nominated node name, immutable qosClass, no terminated container running again under restartPolicy Never or OnFailure); on an UPDATE of the /status of a Deployment, ReplicaSet, StatefulSet or DaemonSet, the object its status strategy keeps (the stored spec, and a Deployment's labels, put back) held to the metadata's update rules and the status's (non-negative counts, no replica count above status.replicas nor availableReplicas above readyReplicas, collisionCount not decremented), on an UPDATE of a Job's /status, the object its status strategy keeps (the stored spec put back) held to the metadata's update rules and the status's as the apiserver checks them with JobManagedBy on (non-negative counts, unique non-empty uncounted pod UIDs; then, where the fields they read changed: Complete with SuccessCriteriaMet and a completionTime not before startTime, Failed with FailureTarget, no active or terminating pods nor uncounted pods once finished, startTime set once finished, ready not above active, completedIndexes and failedIndexes well-formed, below completions and not overlapping; terminal conditions and SuccessCriteriaMet never removed, the failed and succeeded counters never decreased, completionTime never changed, startTime changed only while suspended), and of a CronJob's /status, to the metadata's rules after the stored spec is put back; and the whole of a custom resource of a CRD given (--crd), pruned and defaulted: its metadata, then its version's structural schema (types, required, enum, format, minimum/maximum and their exclusive forms, multipleOf, minLength/maxLength, pattern, minItems/maxItems, minProperties/maxProperties, nullable; x-kubernetes-list-type set and map uniqueness), then its x-kubernetes-validations CEL rules (transition rules on UPDATE; message, messageExpression, fieldPath, reason), on UPDATE with validation ratcheting; a rule the suite's CEL interpreter cannot evaluate is named and the request not judged.",
        "k8s.io/apimachinery pkg/api/validation/objectmeta.go (ValidateObjectMetaAccessor, ValidateAnnotations, ValidateOwnerReferences, ValidateFinalizers, ValidateObjectMetaAccessorUpdate), pkg/apis/meta/v1/validation (ValidateLabels, ValidateManagedFields, ValidateFieldManager), pkg/util/validation; staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate), update.go (BeforeUpdate, validateCommonFields), rest/meta.go (EnsureObjectNamespaceMatchesRequestNamespace), registry/generic/registry/store.go (Update: resourceVersion); pkg/apis/core/validation (ValidateObjectMeta, validateKubeFinalizerName, ValidatePodCreate, ValidatePodSpec, ValidatePodUpdate, ValidatePodSpecificAnnotations, ValidateSeccompPodAnnotations, ValidateAppArmorPodAnnotations, validateSeccompAnnotationsAndFields, validateAppArmorAnnotationsAndFieldsMatchOnCreate, ValidatePodSpecificAnnotationUpdates, ValidatePodTemplateSpec, ValidateConfigMap, ValidateSecret, ValidateService, ValidateServiceUpdate, ValidateNamespace, ValidateServiceAccount, ValidatePodStatusUpdate, validatePodConditions, ValidateContainerStateTransition), pkg/registry/core/pod/strategy.go (podStatusStrategy.PrepareForUpdate, PrepareForCreate's applyAppArmorVersionSkew), pkg/registry/apps/*/strategy.go and pkg/registry/batch/job, cronjob/strategy.go (the status strategies' PrepareForUpdate, ValidateUpdate; the Job's getStatusValidationOptions), pkg/registry/core/service (patchAllocatedValues, normalizeClusterIPs, dropTypeDependentFields), pkg/apis/networking/validation (ValidateIngressCreate, ValidateIngressUpdate), pkg/apis/core/v1/defaults.go (SetDefaults_*), pkg/apis/apps/validation (ValidateDeploymentSpec, ValidatePodTemplateSpecForReplicaSet, ValidateStatefulSetUpdate, ValidateDeploymentStatusUpdate, ValidateReplicaSetStatusUpdate, ValidateStatefulSetStatusUpdate, ValidateDaemonSetStatusUpdate), pkg/apis/batch/validation (validateJobSpec, ValidateJobSpecUpdate, ValidateJobUpdateStatus, validateJobStatus, ValidateJobStatusUpdate); apiextensions-apiserver pkg/registry/customresource/strategy.go (Validate, ValidateUpdate), validator.go (customResourceValidator.Validate), pkg/apiserver/validation/validation.go (kubeOpenAPIResultToFieldErrors), ratcheting.go, pkg/apiserver/schema/listtype/validation.go (ValidateListSetsAndMaps), pkg/apiserver/schema/cel/validation.go (Validator.validate, validateExpressions, fieldErrorForReason, ruleMessageOrDefault); k8s.io/kube-openapi pkg/validation/validate (SchemaValidator), pkg/validation/errors/schema.go; apiserver-validation/vectors/objectmeta.json, spec.json, crd.json"),

    // Properties: several calls per (generated or case) request.
    property!("property.idempotent", Fail, Readmit, WithObject, property::check_idempotent,
        "A mutating webhook changes nothing more when it admits again the object it just patched (new uid, same operation).",
        REINVOKE),
    property!("property.reinvocation", Fail, Reinvoke, WithObject, property::check_reinvocation,
        "After another mutator edits its result, a reinvoked mutating webhook reaches a fixed point and re-adds nothing it already added.",
        REINVOKE),
    property!("property.deterministic", Warn, Twice, All, property::check_deterministic,
        "The same request with a fresh uid gets the same decision and the same resulting object.",
        "request/admissionreview.go (a fresh uid per call); mutating/dispatcher.go"),
    property!("property.dry-run", Warn, DryRun, All, property::check_dry_run,
        "dryRun: true gets the same decision and resulting object as dryRun: false (a dry run previews the real thing).",
        "Kubernetes docs, Dynamic Admission Control: Side effects; request/admissionreview.go (dryRun)"),
    property!("property.dry-run-config", Fail, Static, All, property::check_dry_run_config,
        "sideEffects is None or NoneOnDryRun: otherwise the apiserver refuses every dry-run request the webhook matches.",
        "pkg/apis/admissionregistration/validation/validation.go; mutating/dispatcher.go, validating/dispatcher.go (does not support dry run)"),

    // The manifest.
    manifest!("manifest.api-version", Fail, manifest::api_version,
        "The configuration is admissionregistration.k8s.io/v1: v1beta1 webhook configurations are no longer served (Kubernetes 1.22 removed them).",
        "Kubernetes deprecated API migration guide, v1.22: admissionregistration.k8s.io/v1beta1; pkg/apis/admissionregistration/v1beta1/defaults.go (its defaults)"),
    manifest!("manifest.name", Fail, manifest::name,
        "The webhook name is a fully qualified DNS subdomain with at least three segments (e.g. pods.policy.example.com).",
        VALIDATION),
    manifest!("manifest.side-effects", Fail, manifest::side_effects,
        "sideEffects is set to None or NoneOnDryRun (Unknown and Some are refused on create).",
        VALIDATION),
    manifest!("manifest.failure-policy", Fail, manifest::failure_policy,
        "failurePolicy, when set, is Ignore or Fail.",
        VALIDATION),
    manifest!("manifest.match-policy", Fail, manifest::match_policy,
        "matchPolicy, when set, is Exact or Equivalent.",
        VALIDATION),
    manifest!("manifest.reinvocation-policy", Fail, manifest::reinvocation_policy,
        "reinvocationPolicy, when set, is Never or IfNeeded.",
        VALIDATION),
    manifest!("manifest.client-config", Fail, manifest::client_config,
        "clientConfig.url has no user info, query or fragment; service.path, when set, starts with '/'.",
        VALIDATION),
    manifest!("manifest.ca-bundle", Fail, manifest::ca_bundle,
        "clientConfig.caBundle, when set, is PEM certificates (base64 in YAML) and verifies the certificate the webhook serves.",
        "pkg/apis/admissionregistration/validation/validation.go; pkg/util/webhook/client.go (x509 verification)"),
    manifest!("manifest.rules", Fail, manifest::rules,
        "Each rule has apiGroups and apiVersions, operations '*' alone, scope Cluster/Namespaced/*, resources like pods, pods/status, pods/*, */scale, * or */* without conflicting entries.",
        VALIDATION),
    manifest!("manifest.review-versions", Fail, manifest::review_versions,
        "admissionReviewVersions lists no version twice.",
        VALIDATION),
    manifest!("manifest.match-conditions", Fail, manifest::match_conditions,
        "At most 64 matchConditions, each with a unique non-empty name and an expression that uses only object, oldObject, request and authorizer, type-checks against their declared types and is typed bool.",
        "pkg/apis/admissionregistration/validation/validation.go (validateMatchConditions, validateMatchConditionsExpression); admission/plugin/cel/compile.go (BuildRequestType, CompileCELExpression)"),
    manifest!("manifest.condition-errors", Warn, manifest::match_conditions_errors,
        "matchConditions evaluate without error on the requests the rules select (an error rejects the request under failurePolicy Fail, and skips the webhook under Ignore).",
        "admission/plugin/webhook/matchconditions/matcher.go (Match); generic/webhook.go (ShouldCallHook: failing closed)"),
    manifest!("manifest.timeout", Warn, manifest::timeout,
        "timeoutSeconds is 10 or less: a slower webhook holds every matching API request that long.",
        "Kubernetes docs, Dynamic Admission Control: Timeouts"),
    manifest!("manifest.failure-policy-set", Warn, manifest::failure_policy_set,
        "failurePolicy is set explicitly (the default differs between v1, Fail, and v1beta1, Ignore).",
        "Kubernetes docs, Dynamic Admission Control: Failure policy"),
    manifest!("manifest.system-namespaces", Warn, manifest::system_namespaces,
        "A webhook with failurePolicy Fail has a namespaceSelector that keeps kube-system and its own namespace out.",
        "Kubernetes docs, Dynamic Admission Control: Avoiding operating on the kube-system namespace, Avoiding deadlocks in self-hosted webhooks"),
    manifest!("manifest.dry-run", Warn, manifest::dry_run,
        "sideEffects does not block dry-run (Unknown or Some: every dry-run request the webhook matches is refused).",
        "mutating/dispatcher.go, validating/dispatcher.go (does not support dry run)"),
    manifest!("manifest.wildcard-resources", Warn, manifest::wildcard_resources,
        "Rules name resources instead of '*' or '*/*' (which catch every kind, present and future, and every subresource).",
        "Kubernetes docs, Dynamic Admission Control: Matching requests: rules"),

    // Cases.
    Rule {
        id: CASE_EXPECTATION,
        severity: Severity::Fail,
        statement: "A case's outcome is what its `expect:` says: allowed or denied, the message, the warning, the fields the resulting object has and lacks.",
        source: "cases/*.yaml (the user's own expectations)",
        judges: Judges::Case,
    },
    Rule {
        id: GOLDEN_UNCHANGED,
        severity: Severity::Fail,
        statement: "A case's answers (decision, status, warnings, decoded patch, patched object) equal the stored snapshot in the golden directory.",
        source: "golden/*.snap (accepted with --update-golden or cargo insta review)",
        judges: Judges::Case,
    },

    // The target.
    Rule {
        id: TARGET_READY,
        severity: Severity::Fail,
        statement: "A started target (--cmd, --image) accepts a TLS handshake before its startup deadline and does not exit.",
        source: "the suite's own: a webhook that never serves cannot be judged (its output tail is reported)",
        judges: Judges::Target,
    },

    // Coverage.
    Rule {
        id: COVERAGE_REQUESTS,
        severity: Severity::Fail,
        statement: "Every webhook of the manifest gets requests (planned, generated or cases): a verdict on a webhook that was sent nothing means nothing.",
        source: "the suite's own: a PASS must mean something was tested",
        judges: Judges::Coverage { check: checks::coverage::requests_sent },
    },

    // Side effects.
    Rule {
        id: "side-effects.dry-run",
        severity: Severity::Fail,
        statement: "A webhook declaring sideEffects None or NoneOnDryRun writes nothing to the API (no write without dryRun=All) while it admits a dryRun: true request.",
        source: "k8s.io/api admissionregistration/v1 types.go SideEffectClassNoneOnDryRun (\"if the request being reviewed has the dry-run attribute, the side effects will be suppressed\") and SideEffectClassNone; mutating/dispatcher.go callAttrMutatingHook and validating/dispatcher.go callHook send a dry-run request only to these two (NewDryRunUnsupportedErr otherwise); Kubernetes docs, Dynamic Admission Control: Side effects",
        judges: Judges::SideEffects { check: side_effects::dry_run },
    },
    Rule {
        id: "side-effects.declared",
        severity: Severity::Warn,
        statement: "A webhook declaring sideEffects None writes nothing to the API for any request; one that writes outside dry runs declares NoneOnDryRun.",
        source: "k8s.io/api admissionregistration/v1 types.go SideEffectClassNone (\"calling the webhook will have no side effects\") and SideEffectClassNoneOnDryRun (\"will possibly have side effects\", suppressed on dry runs); Kubernetes docs, Dynamic Admission Control: Side effects",
        judges: Judges::SideEffects { check: side_effects::declared },
    },
];

/// `coverage.requests`.
pub const COVERAGE_REQUESTS: &str = "coverage.requests";
/// `case.expectation`.
pub const CASE_EXPECTATION: &str = "case.expectation";
/// `golden.unchanged`.
pub const GOLDEN_UNCHANGED: &str = "golden.unchanged";
/// `target.ready`.
pub const TARGET_READY: &str = "target.ready";
/// `manifest.ca-bundle`.
pub(crate) const CA_BUNDLE: &str = "manifest.ca-bundle";
/// `manifest.condition-errors`.
pub(crate) const CONDITION_ERRORS: &str = "manifest.condition-errors";

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    CATALOG.iter().find(|r| r.id == id)
}

/// `rule`'s verdict on `check`, at its severity ([`Finding::judge`]): for the rules whose verdicts
/// are never softened (case, target, coverage and property rules).
pub fn judge(rule: &'static Rule, check: Check) -> Finding {
    Finding::judge(rule.id, rule.severity, check, Softened::No)
}

/// The rule with this id, which the catalog holds.
pub(crate) fn known(id: &str) -> &'static Rule {
    rule(id).unwrap_or_else(|| panic!("{id} is a rule of the catalog"))
}

/// The rules of one kind, in catalog order.
pub fn of_kind(kind: RuleKind) -> impl Iterator<Item = &'static Rule> {
    CATALOG.iter().filter(move |r| r.kind() == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_statements_one_line() {
        let mut ids: Vec<_> = CATALOG.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), CATALOG.len());
        for r in CATALOG {
            assert!(!r.statement.contains('\n') && !r.statement.is_empty(), "{}", r.id);
            assert!(!r.source.is_empty(), "{}", r.id);
            let prefix_ok = match r.kind() {
                RuleKind::Property => r.id.starts_with("property."),
                RuleKind::Manifest => r.id.starts_with("manifest."),
                RuleKind::Case => r.id.starts_with("case.") || r.id.starts_with("golden."),
                RuleKind::Target => r.id.starts_with("target."),
                RuleKind::Coverage => r.id.starts_with("coverage."),
                RuleKind::SideEffects => r.id.starts_with("side-effects."),
                RuleKind::Exchange => !r.id.starts_with("property.") && !r.id.starts_with("manifest."),
            };
            assert!(prefix_ok, "{} is a {:?} rule", r.id, r.kind());
        }
        for kind in RuleKind::ALL {
            assert!(of_kind(kind).count() > 0, "{kind:?}");
        }
    }

    #[test]
    fn exchange_rules_come_first() {
        let first_other = CATALOG.iter().position(|r| r.kind() != RuleKind::Exchange).unwrap();
        assert!(CATALOG[first_other..].iter().all(|r| r.kind() != RuleKind::Exchange));
    }
}
