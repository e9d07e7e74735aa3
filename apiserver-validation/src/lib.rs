//! The kube-apiserver's validation of an object after mutating admission, modelled on
//! k8s.io/apimachinery and kubernetes/kubernetes `pkg/apis/*` (release-1.36).
//!
//! | module | models |
//! |---|---|
//! | [`content`] | `util/validation` and `api/validate/content`: `IsDNS1123Label`, `IsDNS1123Subdomain`, `IsDNS1035Label`, `IsQualifiedName` (`IsLabelKey`), `IsValidLabelValue`, with their messages |
//! | [`field`] | `util/validation/field`: `field.Error` and its `Error()` text, `ErrorList.ToAggregate`, and `errors.NewInvalid`'s message |
//! | [`managed_fields`] | `fieldmanager/admission.go` and `managedfields.ValidateManagedFields` (`DecodeManagedFields`, structured-merge-diff's field-set reader): the managedFields the apiserver puts back after mutating admission; meta/v1 `ValidateManagedFields` |
//! | [`objectmeta`] | `api/validation/objectmeta.go`: `ValidateObjectMeta`, `ValidateObjectMetaUpdate`, `ValidateAnnotations`, `ValidateOwnerReferences`, `ValidateFinalizers`; `apis/meta/v1/validation`: `ValidateLabels` |
//! | [`kinds`] | which name rule (`NameIsDNSSubdomain`, `NameIsDNSLabel`, …) each kind's validation passes |
//! | [`deletion_cost`] | `core/helper`: `GetDeletionCostFromPodAnnotations` (the pod deletion cost annotation a 32-bit integer without sign or leading zero) |
//! | [`defaults`] | `core/v1/defaults.go`: the `SetDefaults_*` the decoder applies before validation |
//! | [`quantity`] | `api/resource`: a `Quantity`'s parse, comparison and canonical text |
//! | [`pod`] | `core/validation`: `ValidatePodSpec`, `ValidatePodCreate` (containers, ports, env, resources, probes, in Go's order) |
//! | [`host_ports`] | `core/validation`: `checkHostPortConflicts`, `AccumulateUniqueHostPorts` (a pod's regular containers' host ports together, each init container's alone) |
//! | [`pod_annotations`] | `core/validation`: `ValidatePodSpecificAnnotations` (mirror pod, seccomp and AppArmor annotations), `validateSeccompAnnotationsAndFields`, `validateAppArmorAnnotationsAndFieldsMatchOnCreate` (after `applyAppArmorVersionSkew`), `ValidatePodSpecificAnnotationUpdates` |
//! | [`resource_claims`] | `core/validation`: `validatePodResourceClaims`, `validatePodResourceClaim` (the mirror pod check, a DNS-label name, one source by name or by template), `gatherPodResourceClaimNames`, `validateResourceClaimNames` (the containers' and pod-level `resources.claims`) |
//! | [`resources`] | `core/validation`: `validateResourceRequirements` (container resources, `validateOverhead`, `validatePodResources` and `validatePodResourceConsistency`), with `component-helpers/resource` `AggregateContainerRequests` and `AggregateContainerLimits` |
//! | [`pod_fields`] | `core/validation`: `ValidateEnvFrom`, `validatePodDNSConfig`, `validateReadinessGates`, `validateSchedulingGates`, `ValidateHostAliases`, runtime class and preemption policy |
//! | [`ip`] | `util/validation`: `IsValidIP` (strict parse, canonical form), `IsValidIPForLegacyField` and `IsValidCIDRForLegacyField` (sloppy parse, as 1.36 runs them); `core/validation` `ValidateNonSpecialIP` |
//! | [`volumes`] | `core/validation`: `ValidateVolumes`, `validateVolumeSource` and the common sources' own checks, `ValidateVolumeMounts` |
//! | [`trust_bundles`] | `api/pod/util.go`: `dropDisabledClusterTrustBundleProjection` (ClusterTrustBundleProjection beta and off: kept only when the old spec holds one); `core/validation`: a projection's `clusterTrustBundle` source in `validateProjectionSources`, `ValidateSignerName`, `ValidateClusterTrustBundleName`, `extractSignerNameFromClusterTrustBundleName` |
//! | [`security`] | `core/validation`: `ValidateSecurityContext`, `validatePodSpecSecurityContext` (IDs, seccomp, AppArmor, sysctls, proc mount, Windows options), host namespaces, `validateOS` |
//! | [`scheduling`] | `core/validation`: `validateAffinity` (node and pod affinity terms), `ValidateTolerations` |
//! | [`label_keys`] | `core/validation`: `ValidateMatchLabelKeysAndMismatchLabelKeys` (pod affinity terms, topology spread), `ValidateMatchLabelKeysInTopologySpread` (an UPDATE whose old spec fails the former); `registry/core/pod/strategy.go` `PrepareForCreate`'s merge of a Pod's label values into those selectors |
//! | [`pod_update`] | `core/validation`: `ValidatePodUpdate` (containers neither added nor removed, only images, deadlines and tolerations change; a gated pod's node selector and node affinity only gain) |
//! | [`pod_status`] | `registry/core/pod/strategy.go` `podStatusStrategy.PrepareForUpdate` and `core/validation`: `ValidatePodStatusUpdate` (`ValidatePodSpecificAnnotationUpdates`, conditions, nominated node and its refusal on a bound pod, QoS class, container state transitions by `ContainerShouldRestart`, `validatePodResourceClaimStatuses`, `validatePodIPs` and `validateHostIPs` of the status `Convert_v1_PodStatus_To_core_PodStatus` makes, the container statuses' `allocatedResourcesStatus`) |
//! | [`workload_status`] | `registry/apps/*/strategy.go`, `registry/batch/job/strategy.go` and `registry/batch/cronjob/strategy.go`: the status strategies' `PrepareForUpdate`; `apps/validation`: `ValidateDeploymentStatusUpdate`, `ValidateReplicaSetStatusUpdate`, `ValidateStatefulSetStatusUpdate`, `ValidateDaemonSetStatusUpdate` (counts, bounds, `collisionCount`) |
//! | [`job_status`] | `registry/batch/job/strategy.go` `getStatusValidationOptions` (`JobManagedBy` on) and `batch/validation`: `ValidateJobUpdateStatus`, `validateJobStatus`, `ValidateJobStatusUpdate` (counts, conditions, start and completion times, uncounted pods, completed and failed indexes) |
//! | [`workloads`] | `apps/validation` and `batch/validation`: selectors matching templates, counts, completion modes, immutable selectors and Job templates, templates as pods |
//! | [`cron_job`] | `batch/validation`: a CronJob's schedule (`validateScheduleFormat`, `TZ` kept only from an old schedule) and time zone (`validateTimeZone`, on CREATE and when changed) |
//! | [`cron_schedule`] | robfig/cron v3 `ParseStandard`: five fields, ranges, steps, names, descriptors, `TZ=` prefixes, with the parser's errors (and Go's `strconv.Atoi` and `time.ParseDuration` texts, [`go_strconv`], [`go_duration`]) |
//! | [`time_zone`] | Go's `time.LoadLocation` over chrono-tz's IANA names, and `validateTimeZone` |
//! | [`job_policy`] | `batch/validation`: a Job's pod failure policy (`validatePodFailurePolicy` and its rules) |
//! | [`job_success_policy`] | `batch/validation`: a Job's success policy (`validateSuccessPolicy`, `validateSuccessPolicyRule`, Indexed mode only, immutable) |
//! | [`job_template`] | `batch/validation` `validatePodTemplateUpdate`: what a suspended Job's template may change (scheduling directives, resources) |
//! | [`stateful_set`] | `apps/validation`: a StatefulSet's claim templates, service name and the template `ValidateStatefulSetSpec` validates; `ValidateStatefulSetUpdate`'s options |
//! | [`claim_spec`] | `core/validation`: `ValidatePersistentVolumeClaimSpec` (access modes, storage request, classes, volume mode, data sources) |
//! | [`rollout`] | `apps/validation`: the Deployment, DaemonSet and StatefulSet update strategies (`ValidateDeploymentStrategy`, `ValidateRollingUpdateDeployment`, `ValidateDaemonSetUpdateStrategy`, int-or-percent rules) |
//! | [`service`] | `core/validation`: `ValidateService`, `ValidateServiceCreate`, `ValidateServiceUpdate` (ports, type, selector, session affinity, cluster IPs, external IPs, source ranges, traffic policies), after the registry's fix-ups of allocated values and its check of the cluster IPs before allocation |
//! | [`namespace`] | `core/validation`: `ValidateNamespace` (spec finalizers), `ValidateServiceAccount` (metadata only); `SetDefaults_Namespace` |
//! | [`ingress`] | `networking/validation`: `ValidateIngressCreate`, `ValidateIngressUpdate` (rules, paths, backends, TLS, class), `validateIngressTypedLocalObjectReference` (a resource backend), with apimachinery `content.IsPathSegmentName` |
//! | [`configdata`] | `core/validation`: `ValidateConfigMap`, `ValidateSecret` and their updates (keys, 1 MiB, each Secret type's keys; a docker config as `json.Unmarshal` refuses it where its text is certain) |
//! | [`crd`] | `apiextensions-apiserver`: a custom resource held to its version's structural schema (kube-openapi's `SchemaValidator`, `kubeOpenAPIResultToFieldErrors`) |
//! | [`unmodelled`] | the fields of those kinds the Go code validates and this crate does not: what a caller names when a mutation writes one |
//! | [`object`] | all of it in the order the registry runs it, for one kind and operation |
//! | [`lookup`] | serde_json's `Value::get`, `value[key]` and `Value::pointer`, finding a small object's members by comparing keys rather than hashing them |
//! | [`same`] | serde_json's `==` of two values, member by member where both objects list their members in one order (an object and its copy), without a hash lookup per member |
//!
//! The spec of the built-in kinds outside [`object::SPEC_MODELLED`] is not validated: only their
//! metadata. A custom resource's body is validated by [`crd`] against the schema its caller gives.

#![warn(unreachable_pub)]

pub mod claim_spec;
pub mod configdata;
pub mod content;
pub mod crd;
pub mod cron_job;
pub mod cron_schedule;
pub mod defaults;
pub mod deletion_cost;
pub mod field;
mod field_formats;
mod gated;
pub mod go_duration;
pub mod go_strconv;
pub mod host_ports;
mod host_sysctls;
pub mod ingress;
pub mod ip;
pub mod job_policy;
pub mod job_status;
pub mod job_success_policy;
pub mod job_template;
pub mod kinds;
pub mod label_keys;
mod label_selector;
pub mod lookup;
pub mod managed_fields;
pub mod namespace;
pub mod object;
pub mod objectmeta;
pub mod pod;
pub mod pod_annotations;
pub mod pod_fields;
pub mod pod_status;
pub mod pod_update;
pub mod quantity;
pub mod resource_claims;
pub mod resources;
pub mod rollout;
pub mod same;
pub mod scheduling;
pub mod security;
pub mod service;
pub mod stateful_set;
pub mod time_zone;
pub mod tolerations_annotation;
pub mod trust_bundles;
pub mod unmodelled;
pub mod volumes;
pub mod workload_status;
pub mod workloads;
mod zero_values;

pub use field::{invalid_message, FieldError};
pub use kinds::{name_rule, NameRule};
pub use object::{
    drop_disabled_fields, prepare_status_update, spec_modelled, status_modelled, status_reset, status_reset_words,
    validate_defaulted_create, validate_defaulted_update_of_stored, validate_object_create,
    validate_object_status_update, validate_object_update, validate_object_update_of_stored,
};
pub use objectmeta::{validate_create, validate_update, Refusal, Scope};
