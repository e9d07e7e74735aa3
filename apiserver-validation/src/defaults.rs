//! The defaulting the apiserver applies when it decodes an object, and again to the object a
//! mutating webhook's patch produced before validation (kubernetes/kubernetes
//! `pkg/apis/core/v1/defaults.go`, the `+default` markers of `k8s.io/api/core/v1/types.go` that
//! `zz_generated.defaults.go` applies, `pkg/apis/apps/v1/defaults.go`, `pkg/apis/batch/v1/defaults.go`).
//!
//! Only the fields the modelled validation reads are defaulted: a pod spec's `restartPolicy`,
//! `dnsPolicy`, `securityContext`, `terminationGracePeriodSeconds`, `schedulerName`; a container's
//! `imagePullPolicy` (by its image's tag), `terminationMessagePath`, `terminationMessagePolicy`,
//! its ports' `protocol`, its probes' thresholds and periods, `httpGet` path and scheme, an env
//! `fieldRef`'s apiVersion; a volume without a source becomes an `emptyDir`, a volume source's
//! `defaultMode` 0644, a host path's type `""`, a downward API file's `fieldRef` apiVersion and a
//! projected token's `expirationSeconds` 3600; a pod's container requests default to their limits
//! (`SetDefaults_Pod`), then, `PodLevelResources` being on, its pod-level hugepages limits to the
//! containers' (`defaultHugePagePodLimits`) and its pod-level requests to the containers' aggregate
//! or to the pod-level limits (`defaultPodRequests`; `defaultPodLimits`, which fills pod-level
//! cpu and memory limits from the containers', is not modelled), and `enableServiceLinks` to true;
//! a Secret's type to
//! `Opaque`; a workload's selector from its template labels where apps/batch v1 do so; a
//! workload's own counts and strategies (`SetDefaults_Deployment`, `SetDefaults_DaemonSet`,
//! `SetDefaults_StatefulSet`, `SetDefaults_ReplicaSet`, `SetDefaults_Job`, `SetDefaults_CronJob`:
//! replicas, update strategies and their rolling updates, history limits, a Deployment's progress
//! deadline, a StatefulSet's pod management policy, a Job's completions, parallelism, backoff limit
//! and completion mode and its pod failure policy's condition statuses, a CronJob's concurrency
//! policy); a Service's
//! `SetDefaults_Service` ([`crate::service::default_service`]); a Namespace's name label
//! (`SetDefaults_Namespace`, [`crate::namespace::default_namespace`]).

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::resources;

/// `TerminationMessagePathDefault`.
pub const TERMINATION_MESSAGE_PATH: &str = "/dev/termination-log";
/// `DefaultSchedulerName`.
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";
/// `DefaultTerminationGracePeriodSeconds`.
pub const DEFAULT_GRACE_PERIOD: i64 = 30;

/// The volume sources of `core/v1.VolumeSource` (one of them must be set).
pub const VOLUME_SOURCES: &[&str] = &[
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
    "image",
];

/// Set the string member `key` to `value` when it is absent, `null` or empty.
fn set_if_absent(obj: &mut Map<String, Value>, key: &str, value: &str) {
    if member_of(obj, key).is_none_or(unset_str) {
        obj.insert(key.into(), Value::String(value.into()));
    }
}

/// The tag `parsers.ParseImageName` finds: the part after the last `:` of the last path
/// component, `latest` when there is neither a tag nor a digest.
pub fn image_tag(image: &str) -> String {
    tag_of(image).to_string()
}

/// [`image_tag`], borrowed from `image`.
fn tag_of(image: &str) -> &str {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last = name.rsplit('/').next().unwrap_or(name);
    match last.rsplit_once(':') {
        Some((_, tag)) => tag,
        None if digest.is_some() => "",
        None => "latest",
    }
}

/// Whether a string member is unset as [`set_if_absent`] sees it: `null` or empty.
fn unset_str(value: &Value) -> bool {
    value.is_null() || value.as_str() == Some("")
}

fn default_probe(probe: &mut Value) {
    let Some(p) = probe.as_object_mut() else { return };
    for (key, value) in [("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)]
    {
        if member_of(p, key).and_then(Value::as_i64).unwrap_or(0) == 0 {
            p.insert(key.into(), json!(value));
        }
    }
    default_handler(probe);
}

fn default_handler(handler: &mut Value) {
    if let Some(http) = handler.get_mut("httpGet").and_then(Value::as_object_mut) {
        set_if_absent(http, "path", "/");
        set_if_absent(http, "scheme", "HTTP");
    }
}

/// `SetDefaults_Container` and the defaults of what a container holds.
pub fn default_container(container: &mut Value) {
    let Some(c) = container.as_object_mut() else { return };
    // One pass over the members (rather than a lookup for each): what the container holds is
    // defaulted in place, and its own unset members noted, to be set after it in their order.
    let (mut pull_policy_unset, mut message_path_unset, mut message_policy_unset) = (true, true, true);
    // No image has the tag `latest`.
    let mut latest = true;
    for (key, value) in c.iter_mut() {
        match key.as_str() {
            "imagePullPolicy" => pull_policy_unset = value.as_str().unwrap_or("").is_empty(),
            "image" => latest = tag_of(value.as_str().unwrap_or("")) == "latest",
            "terminationMessagePath" => message_path_unset = unset_str(value),
            "terminationMessagePolicy" => message_policy_unset = unset_str(value),
            "ports" => {
                for port in value.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut) {
                    set_if_absent(port, "protocol", "TCP");
                }
            }
            "env" => {
                for var in value.as_array_mut().into_iter().flatten() {
                    let field_ref = var.get_mut("valueFrom").and_then(|v| v.get_mut("fieldRef"));
                    if let Some(field_ref) = field_ref.and_then(Value::as_object_mut) {
                        set_if_absent(field_ref, "apiVersion", "v1");
                    }
                }
            }
            "livenessProbe" | "readinessProbe" | "startupProbe" => default_probe(value),
            "lifecycle" => {
                if let Some(lifecycle) = value.as_object_mut() {
                    for hook in ["postStart", "preStop"] {
                        if let Some(h) = lifecycle.get_mut(hook) {
                            default_handler(h);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if pull_policy_unset {
        let policy = if latest { "Always" } else { "IfNotPresent" };
        c.insert("imagePullPolicy".into(), json!(policy));
    }
    if message_path_unset {
        c.insert("terminationMessagePath".into(), json!(TERMINATION_MESSAGE_PATH));
    }
    if message_policy_unset {
        c.insert("terminationMessagePolicy".into(), json!("File"));
    }
}

/// `SetDefaults_PodSpec`, `SetDefaults_Volume` and the containers' defaults of a pod spec (also a
/// template's).
pub fn default_pod_spec(spec: &mut Value) {
    let Some(s) = spec.as_object_mut() else { return };
    // One pass over the members, as in `default_container`: the containers and volumes defaulted
    // in place, the spec's own unset members set after it in their order.
    let mut unset = [true; 5];
    for (key, value) in s.iter_mut() {
        match key.as_str() {
            "dnsPolicy" => unset[0] = unset_str(value),
            "restartPolicy" => unset[1] = unset_str(value),
            "securityContext" => unset[2] = value.is_null(),
            "terminationGracePeriodSeconds" => unset[3] = value.is_null(),
            "schedulerName" => unset[4] = unset_str(value),
            "containers" | "initContainers" | "ephemeralContainers" => {
                value.as_array_mut().into_iter().flatten().for_each(default_container);
            }
            "volumes" => {
                value.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut).for_each(default_volume);
            }
            _ => {}
        }
    }
    let [dns_policy, restart_policy, security_context, grace_period, scheduler] = unset;
    if dns_policy {
        s.insert("dnsPolicy".into(), json!("ClusterFirst"));
    }
    if restart_policy {
        s.insert("restartPolicy".into(), json!("Always"));
    }
    if security_context {
        s.insert("securityContext".into(), json!({}));
    }
    if grace_period {
        s.insert("terminationGracePeriodSeconds".into(), json!(DEFAULT_GRACE_PERIOD));
    }
    if scheduler {
        s.insert("schedulerName".into(), json!(DEFAULT_SCHEDULER));
    }
}

/// `SetDefaults_Volume`: a volume without a source is an `emptyDir`; a source's `defaultMode`, and
/// the defaults inside it. One pass over the members, as in `default_container`.
fn default_volume(v: &mut Map<String, Value>) {
    let mut sourced = false;
    for (key, source) in v.iter_mut() {
        let key = key.as_str();
        sourced |= !source.is_null() && VOLUME_SOURCES.contains(&key);
        if matches!(key, "secret" | "configMap" | "downwardAPI" | "projected") {
            if let Some(src) = source.as_object_mut() {
                if member_of(src, "defaultMode").is_none_or(Value::is_null) {
                    src.insert("defaultMode".into(), json!(0o644));
                }
            }
        }
        default_volume_source(key, source);
    }
    if !sourced {
        v.insert("emptyDir".into(), json!({}));
    }
}

/// The defaults inside a volume's source `key`: `SetDefaults_HostPathVolumeSource` (type `""`),
/// `SetDefaults_ObjectFieldSelector` (a downward API file's `fieldRef.apiVersion` `v1`, also in a
/// projection) and `SetDefaults_ServiceAccountTokenProjection` (`expirationSeconds` 3600).
fn default_volume_source(key: &str, source: &mut Value) {
    let default_files = |files: Option<&mut Value>| {
        for file in files.and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(field_ref) = file.get_mut("fieldRef").and_then(Value::as_object_mut) {
                set_if_absent(field_ref, "apiVersion", "v1");
            }
        }
    };
    match key {
        "hostPath" => {
            if let Some(host_path) = source.as_object_mut() {
                if member_of(host_path, "type").is_none_or(Value::is_null) {
                    host_path.insert("type".into(), json!(""));
                }
            }
        }
        // `SetDefaults_PersistentVolumeClaimSpec` of an ephemeral volume's claim template.
        "ephemeral" => {
            let template = source.get_mut("volumeClaimTemplate").and_then(Value::as_object_mut);
            if let Some(claim_spec) = template.and_then(|t| member_object(t, "spec")) {
                set_if_unset(claim_spec, "volumeMode", json!("Filesystem"));
            }
        }
        // `SetDefaults_AzureDiskVolumeSource`: pointers, so only an absent or null member is set.
        "azureDisk" => {
            if let Some(disk) = source.as_object_mut() {
                for (key, value) in [
                    ("cachingMode", json!("ReadWrite")),
                    ("kind", json!("Shared")),
                    ("fsType", json!("ext4")),
                    ("readOnly", json!(false)),
                ] {
                    if member_of(disk, key).is_none_or(Value::is_null) {
                        disk.insert(key.into(), value);
                    }
                }
            }
        }
        "downwardAPI" => default_files(source.get_mut("items")),
        "projected" => {
            let sources = source.get_mut("sources").and_then(Value::as_array_mut);
            for source in sources.into_iter().flatten() {
                if let Some(d) = source.get_mut("downwardAPI") {
                    default_files(d.get_mut("items"));
                }
                if let Some(token) = source.get_mut("serviceAccountToken").and_then(Value::as_object_mut) {
                    if member_of(token, "expirationSeconds").is_none_or(Value::is_null) {
                        token.insert("expirationSeconds".into(), json!(3600));
                    }
                }
            }
        }
        _ => {}
    }
}

/// `SetDefaults_Pod` (requests default to limits, `enableServiceLinks`, host ports under
/// hostNetwork) after the pod spec's own defaults.
fn default_pod(pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec") else { return };
    default_pod_spec(spec);
    let Some(s) = spec.as_object_mut() else { return };
    let host_network = member_of(s, "hostNetwork").and_then(Value::as_bool) == Some(true);
    for list in ["containers", "initContainers"] {
        let Some(cs) = s.get_mut(list).and_then(Value::as_array_mut) else { continue };
        for c in cs.iter_mut() {
            if let Some(resources) = c.get_mut("resources").and_then(Value::as_object_mut) {
                if let Some(limits) = member_of(resources, "limits").and_then(Value::as_object).cloned() {
                    let requests = resources.entry("requests").or_insert_with(|| json!({}));
                    if requests.is_null() {
                        *requests = json!({});
                    }
                    if let Some(r) = requests.as_object_mut() {
                        for (k, v) in limits {
                            r.entry(k).or_insert(v);
                        }
                    }
                }
            }
            if host_network {
                if let Some(ports) = c.get_mut("ports").and_then(Value::as_array_mut) {
                    for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                        if member_of(p, "hostPort").and_then(Value::as_i64).unwrap_or(0) == 0 {
                            let cp = member_of(p, "containerPort").cloned().unwrap_or(json!(0));
                            p.insert("hostPort".into(), cp);
                        }
                    }
                }
            }
        }
    }
    // PodLevelResources (on by default): after the containers' requests.
    default_huge_page_pod_limits(s);
    default_pod_requests(s);
    if member_of(s, "enableServiceLinks").is_none_or(Value::is_null) {
        s.insert("enableServiceLinks".into(), json!(true));
    }
}

/// The keys of the object at `key` of `o` (none when absent, `null` or not an object).
fn keys_of(o: &Map<String, Value>, key: &str) -> Vec<String> {
    member_of(o, key).and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default()
}

/// Adds `entries` to the object at `key` of `o`, creating it when absent or `null`.
fn add_entries(o: &mut Map<String, Value>, key: &str, entries: Vec<(String, Value)>) {
    if entries.is_empty() {
        return;
    }
    if let Some(m) = member_object(o, key) {
        m.extend(entries);
    }
}

/// `defaultHugePagePodLimits`: when the pod-level resources set limits or requests, a hugepages
/// limit the containers have and the pod level neither limits nor requests defaults to the
/// containers' aggregate limit (`AggregateContainerLimits`).
fn default_huge_page_pod_limits(spec: &mut Map<String, Value>) {
    let Some(r) = member_of(spec, "resources").and_then(Value::as_object) else { return };
    let (limits, requests) = (keys_of(r, "limits"), keys_of(r, "requests"));
    if limits.is_empty() && requests.is_empty() {
        return;
    }
    let aggregate = resources::aggregate_of(spec, "limits");
    let Some(r) = spec.get_mut("resources").and_then(Value::as_object_mut) else { return };
    let added: Vec<(String, Value)> = aggregate
        .into_iter()
        .filter(|(name, _)| resources::is_supported_pod_level(name) && name.starts_with("hugepages-"))
        .filter(|(name, _)| !requests.contains(name) && !limits.contains(name))
        .map(|(name, q)| (name, Value::String(q.canonical())))
        .collect();
    add_entries(r, "limits", added);
}

/// `defaultPodRequests`: when the pod level sets limits, a pod-level request left out defaults to
/// the containers' aggregate request for cpu and memory (`AggregateContainerRequests`), else to
/// the pod-level limit of a supported resource.
fn default_pod_requests(spec: &mut Map<String, Value>) {
    let limits = member_of(spec, "resources").and_then(|r| r.member("limits")).and_then(Value::as_object);
    if limits.is_none_or(Map::is_empty) {
        return;
    }
    let aggregate = resources::aggregate_of(spec, "requests");
    let Some(r) = spec.get_mut("resources").and_then(Value::as_object_mut) else { return };
    let Some(limits) = member_of(r, "limits").and_then(Value::as_object).filter(|l| !l.is_empty()).cloned() else {
        return;
    };
    let mut have = keys_of(r, "requests");
    let mut added = Vec::new();
    for (name, q) in aggregate {
        if !have.contains(&name) && resources::is_supported_pod_level(&name) && resources::overcommit_allowed(&name) {
            have.push(name.clone());
            added.push((name, Value::String(q.canonical())));
        }
    }
    for (name, limit) in limits {
        if !have.contains(&name) && resources::is_supported_pod_level(&name) {
            have.push(name.clone());
            added.push((name, limit));
        }
    }
    add_entries(r, "requests", added);
}

/// A member that is absent or null.
fn unset(o: &Map<String, Value>, key: &str) -> bool {
    member_of(o, key).is_none_or(Value::is_null)
}

/// The object member `key` of `o`, created (empty) when absent or null; `None` when it holds
/// something else.
fn member_object<'a>(o: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    if unset(o, key) {
        o.insert(key.into(), json!({}));
    }
    o.get_mut(key).and_then(Value::as_object_mut)
}

/// A rolling update strategy's type (`type` defaulted to RollingUpdate) and, for that type, its
/// `rollingUpdate`'s `maxUnavailable` and `maxSurge` (`SetDefaults_Deployment`,
/// `SetDefaults_DaemonSet`).
fn default_rolling_strategy(strategy: &mut Map<String, Value>, max_unavailable: Value, max_surge: Value) {
    if member_of(strategy, "type").and_then(Value::as_str).unwrap_or("").is_empty() {
        strategy.insert("type".into(), json!("RollingUpdate"));
    }
    if member_of(strategy, "type").and_then(Value::as_str) == Some("RollingUpdate") {
        if let Some(rolling) = member_object(strategy, "rollingUpdate") {
            set_if_unset(rolling, "maxUnavailable", max_unavailable);
            set_if_unset(rolling, "maxSurge", max_surge);
        }
    }
}

fn set_if_unset(o: &mut Map<String, Value>, key: &str, value: Value) {
    if unset(o, key) {
        o.insert(key.into(), value);
    }
}

/// `SetDefaults_StatefulSet`'s policy, update strategy (with its partition, and its `maxUnavailable`
/// 1 under `MaxUnavailableStatefulSet`, beta and on by default since 1.35), claim retention policy
/// (`StatefulSetAutoDeletePVC`, on by default), replicas and history; and the claim templates'
/// defaults the generated defaulter applies (`SetDefaults_PersistentVolumeClaim`: the phase
/// `Pending`; `SetDefaults_PersistentVolumeClaimSpec`: the volume mode `Filesystem`).
fn default_stateful_set(spec: &mut Map<String, Value>) {
    if member_of(spec, "podManagementPolicy").and_then(Value::as_str).unwrap_or("").is_empty() {
        spec.insert("podManagementPolicy".into(), json!("OrderedReady"));
    }
    if let Some(strategy) = member_object(spec, "updateStrategy") {
        if member_of(strategy, "type").and_then(Value::as_str).unwrap_or("").is_empty() {
            strategy.insert("type".into(), json!("RollingUpdate"));
            member_object(strategy, "rollingUpdate");
        }
        let rolling = member_of(strategy, "type").and_then(Value::as_str) == Some("RollingUpdate");
        if let Some(r) = strategy.get_mut("rollingUpdate").and_then(Value::as_object_mut).filter(|_| rolling) {
            set_if_unset(r, "partition", json!(0));
            set_if_unset(r, "maxUnavailable", json!(1));
        }
    }
    let claims = spec.get_mut("volumeClaimTemplates").and_then(Value::as_array_mut);
    for claim in claims.into_iter().flatten().filter_map(Value::as_object_mut) {
        if let Some(status) = member_object(claim, "status") {
            if member_of(status, "phase").and_then(Value::as_str).unwrap_or("").is_empty() {
                status.insert("phase".into(), json!("Pending"));
            }
        }
        if let Some(claim_spec) = member_object(claim, "spec") {
            set_if_unset(claim_spec, "volumeMode", json!("Filesystem"));
        }
    }
    if let Some(policy) = member_object(spec, "persistentVolumeClaimRetentionPolicy") {
        for key in ["whenDeleted", "whenScaled"] {
            if member_of(policy, key).and_then(Value::as_str).unwrap_or("").is_empty() {
                policy.insert(key.into(), json!("Retain"));
            }
        }
    }
    set_if_unset(spec, "replicas", json!(1));
    set_if_unset(spec, "revisionHistoryLimit", json!(10));
}

/// `SetDefaults_Job`'s counts, completion mode and the pod failure policy's condition statuses
/// (`True`).
fn default_job(spec: &mut Map<String, Value>) {
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec.insert("completions".into(), json!(1));
    }
    set_if_unset(spec, "parallelism", json!(1));
    // With a backoff limit per index, the Job-wide limit is effectively off.
    let backoff = if unset(spec, "backoffLimitPerIndex") { 6 } else { i64::from(i32::MAX) };
    set_if_unset(spec, "backoffLimit", json!(backoff));
    set_if_unset(spec, "completionMode", json!("NonIndexed"));
    let rules = spec.get_mut("podFailurePolicy").and_then(|p| p.get_mut("rules")).and_then(Value::as_array_mut);
    for rule in rules.into_iter().flatten() {
        let patterns = rule.get_mut("onPodConditions").and_then(Value::as_array_mut);
        for pattern in patterns.into_iter().flatten().filter_map(Value::as_object_mut) {
            if member_of(pattern, "status").and_then(Value::as_str).unwrap_or("").is_empty() {
                pattern.insert("status".into(), json!("True"));
            }
        }
    }
}

/// The apps/v1 and batch/v1 defaults of a workload's own spec (`SetDefaults_Deployment`,
/// `SetDefaults_DaemonSet`, `SetDefaults_StatefulSet`, `SetDefaults_ReplicaSet`, `SetDefaults_Job`,
/// `SetDefaults_CronJob`).
fn default_workload(group: &str, kind: &str, object: &mut Value) {
    if !matches!(
        (group, kind),
        ("apps", "Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet") | ("batch", "Job" | "CronJob")
    ) {
        return;
    }
    let Some(spec) = object.as_object_mut().and_then(|o| member_object(o, "spec")) else { return };
    match (group, kind) {
        ("apps", "Deployment") => {
            set_if_unset(spec, "replicas", json!(1));
            if let Some(strategy) = member_object(spec, "strategy") {
                default_rolling_strategy(strategy, json!("25%"), json!("25%"));
            }
            set_if_unset(spec, "revisionHistoryLimit", json!(10));
            set_if_unset(spec, "progressDeadlineSeconds", json!(600));
        }
        ("apps", "DaemonSet") => {
            if let Some(strategy) = member_object(spec, "updateStrategy") {
                default_rolling_strategy(strategy, json!(1), json!(0));
            }
            set_if_unset(spec, "revisionHistoryLimit", json!(10));
        }
        ("apps", "StatefulSet") => default_stateful_set(spec),
        ("apps", "ReplicaSet") => set_if_unset(spec, "replicas", json!(1)),
        ("batch", "Job") => default_job(spec),
        ("batch", "CronJob") => {
            if member_of(spec, "concurrencyPolicy").and_then(Value::as_str).unwrap_or("").is_empty() {
                spec.insert("concurrencyPolicy".into(), json!("Allow"));
            }
            set_if_unset(spec, "successfulJobsHistoryLimit", json!(3));
            set_if_unset(spec, "failedJobsHistoryLimit", json!(1));
        }
        _ => {}
    }
}

/// The pod template of a workload kind, as a JSON pointer (`None` for other kinds).
pub fn template_pointer(group: &str, kind: &str) -> Option<&'static str> {
    match (group, kind) {
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "Job")
        | ("", "ReplicationController") => Some("/spec/template"),
        ("batch", "CronJob") => Some("/spec/jobTemplate/spec/template"),
        _ => None,
    }
}

/// True when [`defaulted`] can change an object of the kind (a Pod, a Secret, a kind with a pod
/// template); for any other kind it is a copy of the object.
pub fn has_defaults(group: &str, kind: &str) -> bool {
    matches!((group, kind), ("", "Pod" | "Secret" | "Service" | "Namespace")) || template_pointer(group, kind).is_some()
}

/// A top-level member of a `group`/`kind` object that its defaults neither read nor write: the
/// status of every kind, and the metadata of every kind but a Namespace (whose name label is a
/// default).
fn out_of_defaults(group: &str, kind: &str, key: &str) -> bool {
    match key {
        "status" => true,
        "metadata" => (group, kind) != ("", "Namespace"),
        _ => false,
    }
}

/// Whether a JSON Patch whose operations name `pointers` (each one's `path`, and its `from`)
/// leaves alone every member the defaults of a `group`/`kind` object read and write: each pointer
/// lies within a top-level member out of the defaults (the status; the metadata but a
/// Namespace's). Such a patch applied to an object that its defaults leave as it is (as the
/// apiserver's decoder leaves every object) gives one they leave as it is too. A pointer not of
/// the form `/member…` (the root, a pointer without its leading `/`, a member name with an
/// escape) counts as touching the defaults.
pub fn patch_keeps_defaults<'p>(group: &str, kind: &str, pointers: impl IntoIterator<Item = &'p str>) -> bool {
    !has_defaults(group, kind)
        || pointers.into_iter().all(|pointer| {
            let Some(rest) = pointer.strip_prefix('/') else { return false };
            let member = rest.split('/').next().unwrap_or(rest);
            out_of_defaults(group, kind, member)
        })
}

/// [`defaulted`], borrowing the object itself when its defaults fill nothing (a kind without
/// defaults, or an object already defaulted). Only the members the defaults can touch are copied
/// to find out (the spec, not the metadata with its annotations and managed fields); the whole
/// object is copied only when a default was missing.
pub fn defaulted_cow<'v>(group: &str, kind: &str, object: &'v Value) -> Cow<'v, Value> {
    if !has_defaults(group, kind) {
        return Cow::Borrowed(object);
    }
    let Some(members) = object.as_object() else { return Cow::Owned(defaulted(group, kind, object)) };
    let touched = members.iter().filter(|(k, _)| !out_of_defaults(group, kind, k));
    let mut shell = Value::Object(touched.map(|(k, v)| (k.clone(), v.clone())).collect());
    set_defaults(group, kind, &mut shell);
    let Value::Object(mut filled) = shell else { return Cow::Owned(defaulted(group, kind, object)) };
    let unchanged = filled.len() == members.iter().filter(|(k, _)| !out_of_defaults(group, kind, k)).count()
        && filled.iter().all(|(k, v)| member_of(members, k).is_some_and(|m| crate::same::same(m, v)));
    if unchanged {
        return Cow::Borrowed(object);
    }
    // In the object's own order, then the members a default added (as `defaulted` orders them).
    let mut whole = Map::new();
    for (k, v) in members {
        match filled.shift_remove(k) {
            Some(v) => whole.insert(k.clone(), v),
            None if out_of_defaults(group, kind, k) => whole.insert(k.clone(), v.clone()),
            None => None,
        };
    }
    whole.extend(filled);
    Cow::Owned(Value::Object(whole))
}

/// The object as the apiserver holds it after decoding and defaulting (a copy).
pub fn defaulted(group: &str, kind: &str, object: &Value) -> Value {
    let mut object = object.clone();
    set_defaults(group, kind, &mut object);
    object
}

/// Fill `object`'s defaults in place, as the apiserver's decoder does (what [`defaulted`] returns).
pub fn set_defaults(group: &str, kind: &str, object: &mut Value) {
    match (group, kind) {
        ("", "Pod") => default_pod(object),
        ("", "Service") => crate::service::default_service(object),
        ("", "Namespace") => crate::namespace::default_namespace(object),
        ("", "Secret") => {
            if let Some(o) = object.as_object_mut() {
                set_if_absent(o, "type", "Opaque");
            }
        }
        _ => {
            default_workload(group, kind, object);
            if let Some(pointer) = template_pointer(group, kind) {
                if let Some(spec) = object.pointer_mut(&format!("{pointer}/spec")) {
                    default_pod_spec(spec);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object whose defaults are all there is borrowed as it is; one missing a default is the
    /// defaulted copy, with its members in the same order as [`defaulted`] gives them.
    #[test]
    fn only_objects_missing_a_default_are_copied() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "annotations": {"x": "y"}},
            "spec": {"containers": [{"name": "c", "image": "i:1"}]}, "status": {"phase": "Pending"}});
        let full = defaulted("", "Pod", &pod);
        assert_ne!(full, pod);
        let copied = defaulted_cow("", "Pod", &pod);
        assert!(matches!(copied, Cow::Owned(_)));
        assert_eq!(serde_json::to_string(&copied).unwrap(), serde_json::to_string(&full).unwrap());
        assert!(matches!(defaulted_cow("", "Pod", &full), Cow::Borrowed(v) if *v == full));
        // A default that removes a member (a Service's affinity config without ClientIP) is a change.
        let svc = json!({"kind": "Service", "metadata": {"name": "s"}, "spec": {"sessionAffinity": "None",
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10}}}});
        assert_eq!(defaulted_cow("", "Service", &svc).into_owned(), defaulted("", "Service", &svc));
        // A Namespace's defaults are in its metadata; a Secret's at the top.
        let ns = json!({"kind": "Namespace", "metadata": {"name": "n"}});
        assert_eq!(defaulted_cow("", "Namespace", &ns).into_owned(), defaulted("", "Namespace", &ns));
        assert_ne!(defaulted("", "Namespace", &ns), ns);
        let secret = json!({"kind": "Secret", "metadata": {"name": "s"}, "data": {}});
        let owned = defaulted_cow("", "Secret", &secret);
        assert_eq!(
            serde_json::to_string(&owned).unwrap(),
            serde_json::to_string(&defaulted("", "Secret", &secret)).unwrap()
        );
    }

    /// Only pointers into the status, or a metadata other than a Namespace's, keep the defaults;
    /// the root, a pointer without its `/` or with an escaped first name counts as touching them.
    #[test]
    fn a_patch_keeps_the_defaults_only_within_the_metadata_and_the_status() {
        let keeps = |kind, pointers: &[&str]| patch_keeps_defaults("", kind, pointers.iter().copied());
        assert!(keeps("Pod", &["/metadata/labels/a", "/metadata", "/status/phase", "/status"]));
        assert!(keeps("Pod", &[]));
        for touching in ["/spec/containers/0/image", "/spec", "", "/", "metadata/labels", "/metadata~1x", "/x"] {
            assert!(!keeps("Pod", &["/metadata/labels/a", touching]), "{touching}");
        }
        assert!(!keeps("Namespace", &["/metadata/labels/a"]));
        assert!(keeps("Namespace", &["/status/phase"]));
        // A kind without defaults keeps them whatever the patch.
        assert!(keeps("ConfigMap", &["/data/x", ""]));
    }

    /// A kind without defaults is borrowed as it is; one with defaults is the defaulted copy.
    #[test]
    fn only_the_kinds_with_defaults_are_copied() {
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {}});
        assert!(!has_defaults("", "ConfigMap"));
        assert!(matches!(defaulted_cow("", "ConfigMap", &config_map), Cow::Borrowed(v) if *v == config_map));
        assert_eq!(defaulted("", "ConfigMap", &config_map), config_map);
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}});
        assert!(has_defaults("", "Secret") && has_defaults("batch", "CronJob") && has_defaults("", "Pod"));
        assert_eq!(defaulted_cow("", "Secret", &secret).into_owned(), defaulted("", "Secret", &secret));
        assert_eq!(defaulted("", "Secret", &secret)["type"], "Opaque");
    }

    #[test]
    fn image_pull_policy_follows_the_tag() {
        for (image, tag) in [
            ("nginx", "latest"),
            ("nginx:latest", "latest"),
            ("nginx:1.25", "1.25"),
            ("registry.example:5000/app", "latest"),
            ("registry.example:5000/app:2", "2"),
            ("app@sha256:abc", ""),
            ("app:1@sha256:abc", "1"),
        ] {
            assert_eq!(image_tag(image), tag, "{image}");
        }
        let mut c = json!({"name": "s", "image": "registry.example/sidecar:1"});
        default_container(&mut c);
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        assert_eq!(c["terminationMessagePolicy"], "File");
        let mut c = json!({"name": "s", "image": "busybox"});
        default_container(&mut c);
        assert_eq!(c["imagePullPolicy"], "Always");
    }

    #[test]
    fn a_bare_pod_gets_the_spec_defaults_and_requests_from_limits() {
        let pod = json!({"spec": {"containers": [{"name": "a", "image": "i:1", "resources": {"limits": {"cpu": "1"}}}],
                                   "volumes": [{"name": "v"}]}});
        let d = defaulted("", "Pod", &pod);
        assert_eq!(d["spec"]["restartPolicy"], "Always");
        assert_eq!(d["spec"]["dnsPolicy"], "ClusterFirst");
        assert_eq!(d["spec"]["schedulerName"], DEFAULT_SCHEDULER);
        assert_eq!(d["spec"]["terminationGracePeriodSeconds"], 30);
        assert_eq!(d["spec"]["securityContext"], json!({}));
        assert_eq!(d["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
        assert_eq!(d["spec"]["volumes"][0]["emptyDir"], json!({}));
    }

    /// `defaultPodRequests` and `defaultHugePagePodLimits`: only once the pod level sets limits
    /// (or, for hugepages, limits or requests); cpu and memory from the containers' aggregate
    /// requests, else from the pod-level limit.
    #[test]
    fn pod_level_requests_and_hugepages_limits_are_defaulted() {
        let pod = |resources: Value| {
            json!({"spec": {"resources": resources, "containers": [
                {"name": "a", "image": "i:1", "resources": {"requests": {"cpu": "300m"}, "limits": {"hugepages-2Mi": "4Mi"}}},
                {"name": "b", "image": "i:1", "resources": {"requests": {"cpu": "200m"}}}]}})
        };
        let d = defaulted("", "Pod", &pod(json!({"limits": {"cpu": "1", "memory": "1Gi"}})));
        let r = &d["spec"]["resources"];
        assert_eq!(r["requests"], json!({"cpu": "500m", "memory": "1Gi", "hugepages-2Mi": "4Mi"}));
        assert_eq!(r["limits"], json!({"cpu": "1", "memory": "1Gi", "hugepages-2Mi": "4Mi"}));
        // Requests alone: the hugepages limit is added, and then its request from it.
        let d = defaulted("", "Pod", &pod(json!({"requests": {"cpu": "1"}})));
        assert_eq!(
            d["spec"]["resources"],
            json!({"requests": {"cpu": "1", "hugepages-2Mi": "4Mi"}, "limits": {"hugepages-2Mi": "4Mi"}})
        );
        // Empty pod-level resources, or none: nothing.
        assert_eq!(defaulted("", "Pod", &pod(json!({})))["spec"]["resources"], json!({}));
        assert!(defaulted("", "Pod", &json!({"spec": {"containers": []}}))["spec"].get("resources").is_none());
        // A pod template is not defaulted so.
        let deployment = json!({"kind": "Deployment", "spec": {"template": pod(json!({"limits": {"cpu": "1"}}))}});
        assert_eq!(
            defaulted("apps", "Deployment", &deployment)["spec"]["template"]["spec"]["resources"],
            json!({"limits": {"cpu": "1"}})
        );
    }

    #[test]
    fn a_job_gets_its_counts_and_a_per_index_one_no_job_wide_backoff_limit() {
        let job = |spec: Value| defaulted("batch", "Job", &json!({"kind": "Job", "spec": spec}))["spec"].clone();
        let plain = job(json!({}));
        assert_eq!(
            (&plain["completions"], &plain["parallelism"], &plain["backoffLimit"]),
            (&json!(1), &json!(1), &json!(6))
        );
        assert_eq!(plain["completionMode"], "NonIndexed");
        let per_index = job(json!({"backoffLimitPerIndex": 1, "parallelism": 3}));
        assert_eq!(per_index["backoffLimit"], json!(2147483647));
        assert!(per_index.get("completions").is_none());
    }

    #[test]
    fn a_stateful_set_gets_max_unavailable_and_its_claim_templates_their_defaults() {
        let sts = |spec: Value| {
            defaulted("apps", "StatefulSet", &json!({"kind": "StatefulSet", "spec": spec}))["spec"].clone()
        };
        let plain = sts(json!({"volumeClaimTemplates": [{"metadata": {"name": "data"}}]}));
        assert_eq!(
            plain["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}})
        );
        assert_eq!(
            plain["volumeClaimTemplates"][0],
            json!({"metadata": {"name": "data"}, "status": {"phase": "Pending"}, "spec": {"volumeMode": "Filesystem"}})
        );
        // A set value stays; OnDelete takes no rolling update defaults.
        let set = sts(json!({"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%"}}}));
        assert_eq!(set["updateStrategy"]["rollingUpdate"]["maxUnavailable"], "50%");
        let on_delete = sts(json!({"updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 2}}}));
        assert_eq!(on_delete["updateStrategy"]["rollingUpdate"], json!({"partition": 2}));
    }

    #[test]
    fn volume_sources_get_their_defaults() {
        let pod = json!({"spec": {"containers": [], "volumes": [
            {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}},
                                                    {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}}]}},
            {"name": "h", "hostPath": {"path": "/x"}},
            {"name": "d", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
            {"name": "a", "azureDisk": {"diskName": "d", "diskURI": "https://a", "cachingMode": null}},
            {"name": "b", "azureDisk": {"diskName": "d", "diskURI": "https://a", "kind": "", "readOnly": true}}]}});
        let d = defaulted("", "Pod", &pod);
        let v = &d["spec"]["volumes"];
        assert_eq!(v[0]["projected"]["defaultMode"], 0o644);
        assert_eq!(v[0]["projected"]["sources"][0]["serviceAccountToken"]["expirationSeconds"], 3600);
        assert_eq!(v[0]["projected"]["sources"][1]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(v[1]["hostPath"]["type"], "");
        assert_eq!(v[2]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(v[2]["downwardAPI"]["defaultMode"], 0o644);
        assert_eq!(v[3]["azureDisk"]["cachingMode"], "ReadWrite");
        assert_eq!(v[3]["azureDisk"]["kind"], "Shared");
        assert_eq!(v[3]["azureDisk"]["fsType"], "ext4");
        assert_eq!(v[3]["azureDisk"]["readOnly"], false);
        // A pointer to an empty string is not nil: no default.
        assert_eq!(v[4]["azureDisk"]["kind"], "");
        assert_eq!(v[4]["azureDisk"]["readOnly"], true);
    }
}
