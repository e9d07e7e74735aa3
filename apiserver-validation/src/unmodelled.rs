//! The fields of the modelled kinds whose validation this crate does not model: what a caller
//! names, rather than passes silently, when a mutation writes one of them. Each entry is a field
//! the apiserver's validation of that kind does check (the modules' docs say which Go function);
//! the kinds outside [`crate::object::SPEC_MODELLED`] are not listed here (their whole spec is
//! unmodelled).
//!
//! A pattern is a path of object members; `*` stands for any array item or map key, a token ending
//! in `*` for any map key with that prefix.

use serde_json::Value;

use crate::configdata;
use crate::cron_schedule;
use crate::gated;
use crate::job_template;
use crate::lookup::member_of;
use crate::lookup::Lookup;
use crate::tolerations_annotation;
use crate::workloads;
use crate::zero_values::list;

/// Of a pod spec (under `spec` of a Pod, `spec.template.spec` of a workload). `imagePullSecrets`
/// is not listed: `validateImagePullSecrets` cannot refuse a decoded entry (only a name can be
/// set), and on UPDATE its immutability is modelled.
const POD_SPEC: &[&str] = &["volumes * image"];

/// Of a pod spec whose old spec (an UPDATE's stored object) holds a projected `podCertificate`
/// source: the registry then keeps the ones written (`podCertificateProjectionInUse`, `gated.rs`)
/// and Go validates them (`validateProjectionSources`), which is not modelled.
const POD_SPEC_KEPT_CERTIFICATES: &str = "volumes * projected sources * podCertificate";

/// Of a pod spec whose old spec has a `schedulingGroup`: the registry then keeps the one written
/// (`dropDisabledSchedulingGroup`) and Go validates it, which is not modelled.
const POD_SPEC_KEPT_SCHEDULING_GROUP: &str = "schedulingGroup";

/// Of a pod spec whose old spec holds a container's `lifecycle.stopSignal`: the registry then keeps
/// the ones written (`containerStopSignalsInUse`) and Go validates them (`validateLifecycle`'s stop
/// signal against `spec.os`), which is not modelled.
const POD_SPEC_KEPT_STOP_SIGNALS: &[&str] = &[
    "initContainers * lifecycle stopSignal",
    "containers * lifecycle stopSignal",
    "ephemeralContainers * lifecycle stopSignal",
];

/// Of a pod spec with `hostUsers: false` and a container's `volumeDevices`, when the old spec does
/// not hold the two already: `validateHostUsers` of a 1.37 development copy refuses volume devices in
/// a user namespace unless `AllowUserNamespacesWithVolumeDevices` (old spec), which release-1.36 may
/// or may not do; not modelled.
const POD_SPEC_USER_NAMESPACE_DEVICES: &[&str] = &[
    "hostUsers",
    "initContainers * volumeDevices",
    "containers * volumeDevices",
    "ephemeralContainers * volumeDevices",
];

/// Of a Pod's or pod template's metadata: the tolerations annotation, when its text is one
/// [`crate::tolerations_annotation::decode`] does not judge (Go refuses it with `encoding/json`'s
/// error); the others `ValidatePodSpecificAnnotations` reads are modelled
/// ([`crate::pod_annotations`]).
const POD_METADATA_TOLERATIONS: &str = "annotations scheduler.alpha.kubernetes.io/tolerations";

/// Of a Pod's status, on an UPDATE of its `/status` (`ValidatePodStatusUpdate`; its pod and host
/// IPs, resource claim statuses, state transitions and allocated resources' health are modelled,
/// [`crate::pod_status`]).
/// The status's and its conditions' `observedGeneration`, the extended resource claim status, the
/// node-allocatable resource claim statuses and the container statuses' volume mounts (an image
/// volume's status) are checked by the 1.37 development copy read, and which of those checks
/// release-1.36 runs was not read: named too.
const POD_STATUS: &[&str] = &[
    "containerStatuses * user",
    "containerStatuses * allocatedResources",
    "containerStatuses * volumeMounts",
    "initContainerStatuses * user",
    "initContainerStatuses * allocatedResources",
    "initContainerStatuses * volumeMounts",
    "ephemeralContainerStatuses * user",
    "ephemeralContainerStatuses * allocatedResources",
    "ephemeralContainerStatuses * volumeMounts",
    "observedGeneration",
    "conditions * observedGeneration",
    "extendedResourceClaimStatus",
];

/// Of a Pod's status whose old status holds node-allocatable resource claim statuses: the registry
/// then keeps the ones written (`gated.rs`) and the 1.37 development copy validates them.
const POD_STATUS_KEPT_NODE_ALLOCATABLE: &str = "nodeAllocatableResourceClaimStatuses";

/// Of a Pod's status whose `podIP` is not its non-empty `podIPs[0]`
/// ([`crate::pod_status::pod_ip_mismatch`]): the pod IPs are then not judged.
const POD_IP_MISMATCH: &[&str] = &["podIP", "podIPs"];

/// Of a Pod's status whose old spec holds a `RestartAllContainers` restart rule or a sidecar's
/// restart rules ([`crate::pod_status::restart_all_containers_in_use`]): the container and init
/// container state transitions are then not judged.
const POD_STATUS_RESTART_ALL: &[&str] = &["containerStatuses * state", "initContainerStatuses * state"];

/// Of a Deployment's or ReplicaSet's status, on an UPDATE of its `/status`
/// (`ValidateDeploymentStatus`, `ValidateReplicaSetStatus`).
const REPLICAS_STATUS: &[&str] = &["terminatingReplicas"];

/// Every unmodelled field pattern of a kind, as whole paths from the object's root (tokens split
/// on spaces); `status` for an UPDATE of the `/status` subresource.
fn patterns(group: &str, kind: &str, status: bool, object: &Value, old: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let pod_spec = |out: &mut Vec<String>, prefix: &str| {
        let spec_pointer: String = prefix.split(' ').map(|t| format!("/{t}")).collect();
        let old_spec = old.and_then(|o| o.at(&spec_pointer));
        if old_spec.is_some_and(|o| gated::projection_in_use(o, gated::POD_CERTIFICATE)) {
            out.push(format!("{prefix} {POD_SPEC_KEPT_CERTIFICATES}"));
        }
        if old_spec.is_some_and(gated::scheduling_group_in_use) {
            out.push(format!("{prefix} {POD_SPEC_KEPT_SCHEDULING_GROUP}"));
        }
        if old_spec.is_some_and(gated::stop_signals_in_use) {
            out.extend(POD_SPEC_KEPT_STOP_SIGNALS.iter().map(|p| format!("{prefix} {p}")));
        }
        let user_namespace_devices = |spec: &Value| {
            spec.member("hostUsers") == Some(&Value::Bool(false))
                && gated::CONTAINER_LISTS
                    .iter()
                    .flat_map(|l| list(spec, l))
                    .any(|c| !list(c, "volumeDevices").is_empty())
        };
        if object.at(&spec_pointer).is_some_and(user_namespace_devices) && !old_spec.is_some_and(user_namespace_devices)
        {
            out.extend(POD_SPEC_USER_NAMESPACE_DEVICES.iter().map(|p| format!("{prefix} {p}")));
        }
        let meta = format!("{}metadata", prefix.strip_suffix("spec").unwrap_or_default());
        let pointer: String = meta.split(' ').map(|t| format!("/{t}")).collect();
        let tolerations = object
            .at(&pointer)
            .and_then(|m| m.member("annotations"))
            .and_then(|a| a.member(tolerations_annotation::TOLERATIONS_ANNOTATION))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !tolerations.is_empty() && tolerations_annotation::decode(tolerations).is_none() {
            out.push(format!("{meta} {POD_METADATA_TOLERATIONS}"));
        }
        out.extend(POD_SPEC.iter().map(|p| format!("{prefix} {p}")));
    };
    let under = |out: &mut Vec<String>, prefix: &str, fields: &[&str]| {
        out.extend(fields.iter().map(|p| format!("{prefix} {p}")));
    };
    match (group, kind) {
        ("", "Pod") if status => {
            under(&mut out, "status", POD_STATUS);
            if old
                .and_then(|o| o.at("/status/nodeAllocatableResourceClaimStatuses"))
                .is_some_and(|l| l.as_array().is_some_and(|l| !l.is_empty()))
            {
                out.push(format!("status {POD_STATUS_KEPT_NODE_ALLOCATABLE}"));
            }
            if object.member("status").is_some_and(crate::pod_status::pod_ip_mismatch) {
                under(&mut out, "status", POD_IP_MISMATCH);
            }
            if old.and_then(|o| o.member("spec")).is_some_and(crate::pod_status::restart_all_containers_in_use) {
                under(&mut out, "status", POD_STATUS_RESTART_ALL);
            }
            // ValidatePodSpecificAnnotationUpdates runs on a status UPDATE too.
            let tolerations = object
                .at("/metadata/annotations")
                .and_then(|a| a.member(tolerations_annotation::TOLERATIONS_ANNOTATION))
                .and_then(Value::as_str)
                .unwrap_or("");
            if !tolerations.is_empty() && tolerations_annotation::decode(tolerations).is_none() {
                out.push(format!("metadata {POD_METADATA_TOLERATIONS}"));
            }
        }
        ("apps", "Deployment" | "ReplicaSet") if status => under(&mut out, "status", REPLICAS_STATUS),
        // The rest of a workload's status is modelled (a Job's whole status: `crate::job_status`, whose
        // rules switched off under JobManagedBy are about conditions, not a field), and its spec is
        // put back on a status UPDATE.
        ("apps" | "batch", _) if status => {}
        ("", "Pod") => pod_spec(&mut out, "spec"),
        ("apps", "DaemonSet") => {
            // The template generation annotation, when its text does not parse or the old object's
            // generation is unknown ([`crate::workloads::template_generation_unjudged`]).
            if workloads::template_generation_unjudged(object, old) {
                out.push(format!("metadata annotations {}", workloads::TEMPLATE_GENERATION_ANNOTATION));
            }
            pod_spec(&mut out, "spec template spec");
        }
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet") => pod_spec(&mut out, "spec template spec"),
        ("batch", "Job") => {
            pod_spec(&mut out, "spec template spec");
            // What a suspended Job's template may change, where the 1.36 rule was not read.
            if let Some(old) = old {
                out.extend(job_template::unjudged(object, old).iter().map(|p| format!("spec template {p}")));
            }
        }
        // The workloads' own fields are all modelled ([`crate::workloads`], [`crate::rollout`],
        // [`crate::stateful_set`], [`crate::job_policy`], [`crate::job_success_policy`],
        // [`crate::cron_job`]), but for a schedule on which robfig/cron panics (the apiserver
        // answers 500, not a field error).
        ("batch", "CronJob") => {
            let schedule = object.at("/spec/schedule").and_then(Value::as_str).unwrap_or("");
            if cron_schedule::panics(schedule) {
                out.push("spec schedule".to_string());
            }
            pod_spec(&mut out, "spec jobTemplate spec template spec");
        }
        // An Ingress's spec is modelled in full ([`crate::ingress`], its resource backends too).
        // A typed Secret's keys are ([`crate::configdata`]), but for a docker config whose text Go's
        // JSON decoder refuses with a message the model does not reproduce.
        ("", "Secret") => {
            if let Some((member, key)) = configdata::unjudged_docker_config(object) {
                out.push(format!("{member} {key}"));
            }
            if let Some(old) = old {
                out.extend(configdata::empty_map_on_immutable(object, old, true).into_iter().map(String::from));
            }
        }
        // A ConfigMap's data is modelled ([`crate::configdata`]), but for an empty map written over
        // an immutable old object's none (`reflect.DeepEqual` of nil and empty maps).
        ("", "ConfigMap") => {
            if let Some(old) = old {
                out.extend(configdata::empty_map_on_immutable(object, old, false).into_iter().map(String::from));
            }
        }
        _ => {}
    }
    out
}

/// The JSON pointer's tokens, unescaped.
fn tokens(pointer: &str) -> Vec<String> {
    pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~")).collect()
}

/// Whether a pattern token matches an object member or array index token.
fn token_matches(pattern: &str, token: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some("") => true,
        Some(prefix) => token.starts_with(prefix),
        None => pattern == token,
    }
}

/// Whether a write at `touched` (a pointer's tokens) can reach the field `pattern`: one is a
/// prefix of the other.
fn reaches(pattern: &[&str], touched: &[String]) -> bool {
    pattern.iter().zip(touched).all(|(p, t)| token_matches(p, t))
}

/// The member or item `token` of `value`.
fn child<'a>(value: Option<&'a Value>, token: &str) -> Option<&'a Value> {
    match value? {
        Value::Object(m) => member_of(m, token),
        Value::Array(a) => a.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The tokens `value` holds that match a pattern token (its members, or its items' indices).
fn matching(value: Option<&Value>, pattern: &str) -> Vec<String> {
    match value {
        Some(Value::Object(m)) => m.keys().filter(|k| token_matches(pattern, k)).cloned().collect(),
        Some(Value::Array(a)) if pattern == "*" => (0..a.len()).map(|i| i.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Whether `before` and `after` differ anywhere `pattern` reaches.
fn differs(pattern: &[&str], before: Option<&Value>, after: Option<&Value>) -> bool {
    let Some((first, rest)) = pattern.split_first() else { return before != after };
    if before.is_none() && after.is_none() {
        return false;
    }
    if first.ends_with('*') {
        let mut keys = matching(after, first);
        for k in matching(before, first) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        return keys.iter().any(|k| differs(rest, child(before, k), child(after, k)));
    }
    differs(rest, child(before, first), child(after, first))
}

/// Go's field path of a pattern: `spec.template.spec.volumes[*].image`.
fn field_path(pattern: &[&str]) -> String {
    let mut out = String::new();
    for t in pattern {
        if *t == "*" {
            out.push_str("[*]");
        } else if t.ends_with('*') || t.contains(['.', '/']) {
            out.push_str(&format!("[{t}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(t);
        }
    }
    out
}

/// The fields of `after` whose validation is not modelled and that differ from `before`, among
/// those a write at one of the pointers `touched` (a patch's `path`s and `from`s) can reach, as
/// Go field paths (`spec.volumes[*].image`, `spec.template.spec.volumes[*].image`), each once, in
/// the order of the kind's list. `status` for an UPDATE of the `/status` subresource; `old` the
/// stored object of an UPDATE (what the registry keeps of a gated field depends on it). Empty for a kind whose
/// spec is not modelled at all (the caller names the kind instead).
pub fn written(
    group: &str,
    kind: &str,
    status: bool,
    before: &Value,
    after: &Value,
    old: Option<&Value>,
    touched: &[&str],
) -> Vec<String> {
    let touched: Vec<Vec<String>> = touched.iter().map(|p| tokens(p)).collect();
    let mut out = Vec::new();
    for pattern in patterns(group, kind, status, after, old) {
        let pattern: Vec<&str> = pattern.split(' ').collect();
        if touched.iter().any(|t| reaches(&pattern, t)) && differs(&pattern, Some(before), Some(after)) {
            out.push(field_path(&pattern));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(spec: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec})
    }

    #[test]
    fn a_write_to_an_unmodelled_pod_field_is_named() {
        let before = pod(json!({"containers": [{"name": "a", "image": "x"}]}));
        let after = pod(
            json!({"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "v", "image": {"reference": "r:1"}}]}),
        );
        assert_eq!(written("", "Pod", false, &before, &after, None, &["/spec/volumes"]), ["spec.volumes[*].image"]);
        // A modelled field written: nothing to name.
        let dns = pod(json!({"containers": [{"name": "a", "image": "x"}], "dnsConfig": {"nameservers": ["1.1.1.1"]}}));
        assert!(written("", "Pod", false, &before, &dns, None, &["/spec/dnsConfig"]).is_empty());
        // The overhead, the pod-level resources and the resource claims are modelled.
        let resources = pod(json!({"containers": [{"name": "a", "image": "x"}], "overhead": {"cpu": "10m"},
                                   "resources": {"limits": {"cpu": "1"}}}));
        assert!(written("", "Pod", false, &before, &resources, None, &["/spec/overhead", "/spec/resources"]).is_empty());
        let claims = pod(json!({"containers": [{"name": "a", "image": "x", "resources": {"claims": [{"name": "c"}]}}],
                                "resourceClaims": [{"name": "c", "resourceClaimName": "rc"}],
                                "resources": {"claims": [{"name": "c"}]}}));
        assert!(written("", "Pod", false, &before, &claims, None, &["/spec"]).is_empty());
        // The same field present on both sides, untouched by the patch: nothing to name.
        assert!(written("", "Pod", false, &after, &after, None, &["/spec/containers/0/image"]).is_empty());
    }

    /// A gated field the registry keeps because the stored object holds one already is validated
    /// by Go and not modelled: named, only then (otherwise object.gate-dropped speaks of it).
    #[test]
    fn gated_fields_kept_by_the_stored_object_are_named() {
        let certificate =
            json!({"signerName": "example.com/pods", "keyType": "ED25519", "credentialBundlePath": "c.pem"});
        let with_certificate = |n: usize| {
            let sources: Vec<Value> = (0..n).map(|_| json!({"podCertificate": certificate})).collect();
            pod(
                json!({"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "v", "projected": {"sources": sources}}]}),
            )
        };
        let (one, two) = (with_certificate(1), with_certificate(2));
        let touched = ["/spec/volumes/0/projected/sources/-"];
        assert_eq!(
            written("", "Pod", false, &one, &two, Some(&one), &touched),
            ["spec.volumes[*].projected.sources[*].podCertificate"]
        );
        assert!(written("", "Pod", false, &one, &two, None, &touched).is_empty(), "a CREATE: dropped, not kept");
        let bare = pod(json!({"containers": [{"name": "a", "image": "x"}]}));
        assert!(written("", "Pod", false, &one, &two, Some(&bare), &touched).is_empty(), "no certificate stored");
        let signal = |s: &str| {
            pod(json!({"containers": [{"name": "a", "image": "x", "lifecycle": {"stopSignal": s}}],
                       "os": {"name": "linux"}}))
        };
        let touched = ["/spec/containers/0/lifecycle/stopSignal"];
        let (term, usr) = (signal("SIGTERM"), signal("SIGUSR1"));
        assert_eq!(
            written("", "Pod", false, &term, &usr, Some(&term), &touched),
            ["spec.containers[*].lifecycle.stopSignal"]
        );
        assert!(written("", "Pod", false, &term, &usr, Some(&bare), &touched).is_empty());
        let group = pod(json!({"containers": [{"name": "a", "image": "x"}], "schedulingGroup": {"podGroupName": "g"}}));
        assert_eq!(
            written("", "Pod", false, &bare, &group, Some(&group), &["/spec/schedulingGroup"]),
            ["spec.schedulingGroup"]
        );
        assert!(written("", "Pod", false, &bare, &group, Some(&bare), &["/spec/schedulingGroup"]).is_empty());
        // In a workload's template, read in the stored workload's template.
        let d = |spec: &Value| json!({"kind": "Deployment", "spec": {"template": {"spec": spec["spec"].clone()}}});
        assert_eq!(
            written("apps", "Deployment", false, &d(&term), &d(&usr), Some(&d(&term)), &["/spec/template/spec"]),
            ["spec.template.spec.containers[*].lifecycle.stopSignal"]
        );
    }

    /// Volume devices in a pod of its own user namespace are named, where the stored pod does not
    /// have the two already.
    #[test]
    fn volume_devices_under_host_users_false_are_named() {
        let spec = |host_users: Value, devices: bool| {
            let mut c = json!({"name": "a", "image": "x"});
            if devices {
                c["volumeDevices"] = json!([{"name": "b", "devicePath": "/dev/b"}]);
            }
            pod(json!({"hostUsers": host_users, "containers": [c]}))
        };
        let (user_ns, devices) = (spec(json!(false), false), spec(json!(false), true));
        assert_eq!(
            written("", "Pod", false, &user_ns, &devices, None, &["/spec/containers/0/volumeDevices"]),
            ["spec.containers[*].volumeDevices"]
        );
        let host = spec(json!(true), true);
        assert_eq!(written("", "Pod", false, &host, &devices, None, &["/spec/hostUsers"]), ["spec.hostUsers"]);
        assert!(written("", "Pod", false, &spec(json!(null), false), &host, None, &["/spec/containers/0"]).is_empty());
        assert!(written("", "Pod", false, &user_ns, &devices, Some(&devices), &["/spec/containers/0"]).is_empty());
    }

    #[test]
    fn a_volume_added_with_an_unmodelled_field_names_it_by_its_list() {
        let before =
            pod(json!({"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "a", "emptyDir": {}}]}));
        let after = pod(json!({"containers": [{"name": "a", "image": "x"}], "volumes": [
            {"name": "a", "emptyDir": {}},
            {"name": "b", "image": {"reference": "r:1"}}
        ]}));
        assert_eq!(written("", "Pod", false, &before, &after, None, &["/spec/volumes/-"]), ["spec.volumes[*].image"]);
        // A write elsewhere cannot reach it: the volume's fields are not examined.
        assert!(written("", "Pod", false, &before, &after, None, &["/metadata/labels/a"]).is_empty());
    }

    #[test]
    fn a_whole_spec_replaced_names_only_what_changed() {
        let before = pod(json!({"containers": [{"name": "a", "image": "x"}], "imagePullSecrets": [{"name": "s"}]}));
        let after = pod(json!({"containers": [{"name": "a", "image": "x"}], "imagePullSecrets": [{"name": "s"}],
                               "volumes": [{"name": "v", "image": {"reference": "r:1"}}]}));
        assert_eq!(written("", "Pod", false, &before, &after, None, &["/spec"]), ["spec.volumes[*].image"]);
    }

    #[test]
    fn removals_count_as_writes() {
        let before = pod(json!({"containers": [{"name": "a", "image": "x"}],
                                "volumes": [{"name": "v", "image": {"reference": "r:1"}}]}));
        let after =
            pod(json!({"containers": [{"name": "a", "image": "x"}], "volumes": [{"name": "v", "emptyDir": {}}]}));
        assert_eq!(
            written("", "Pod", false, &before, &after, None, &["/spec/volumes/0/image"]),
            ["spec.volumes[*].image"]
        );
    }

    #[test]
    fn a_daemon_set_template_generation_not_judged_is_named() {
        let ds = |generation: &str| {
            json!({"kind": "DaemonSet", "metadata": {"annotations":
            {"deprecated.daemonset.template.generation": generation}}, "spec": {}})
        };
        let touched = ["/metadata/annotations"];
        let named = written("apps", "DaemonSet", false, &ds("1"), &ds("x"), None, &touched);
        assert_eq!(named, ["metadata.annotations[deprecated.daemonset.template.generation]"]);
        assert!(written("apps", "DaemonSet", false, &ds("1"), &ds("2"), Some(&ds("1")), &touched).is_empty());
    }

    #[test]
    fn workloads_name_their_template_and_their_own_fields() {
        let d = |replicas: i64| {
            json!({"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": replicas,
                "template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}})
        };
        // A Deployment's own fields are modelled: a write to one is not named.
        assert!(written("apps", "Deployment", false, &d(1), &d(-1), None, &["/spec/replicas"]).is_empty());
        // A Job's own fields are modelled (its success policy too); its template's image volumes are
        // not.
        let job = |count: i64, volumes: Value| {
            let rule = json!({"succeededCount": count});
            json!({"kind": "Job", "spec": {"successPolicy": {"rules": [rule]},
                "template": {"spec": {"volumes": volumes}}}})
        };
        let image = json!([{"name": "v", "image": {"reference": "r:1"}}]);
        assert!(written("batch", "Job", false, &job(1, json!([])), &job(2, json!([])), None, &["/spec"]).is_empty());
        assert_eq!(
            written("batch", "Job", false, &job(1, json!([])), &job(1, image.clone()), None, &["/spec"]),
            ["spec.template.spec.volumes[*].image"]
        );
        // A template's label keys, resource claims and cluster trust bundles are modelled.
        let mut with_keys = d(1);
        let spread = json!([{"maxSkew": 1, "topologyKey": "zone", "matchLabelKeys": ["app"]}]);
        with_keys["spec"]["template"]["spec"]["topologySpreadConstraints"] = spread;
        let touched = ["/spec/template/spec"];
        assert!(written("apps", "Deployment", false, &d(1), &with_keys, None, &touched).is_empty());
        let mut with_claims = d(1);
        with_claims["spec"]["template"]["spec"]["containers"] =
            json!([{"name": "c", "resources": {"claims": [{"name": "c"}]}}]);
        with_claims["spec"]["template"]["spec"]["resourceClaims"] = json!([{"name": "c", "resourceClaimName": "rc"}]);
        assert!(written("apps", "Deployment", false, &d(1), &with_claims, None, &touched).is_empty());
        let mut with_bundle = d(1);
        with_bundle["spec"]["template"]["spec"]["volumes"] = json!([{"name": "v", "projected": {"sources": [
            {"clusterTrustBundle": {"signerName": "example.com/signer", "path": "ca.pem"}}]}}]);
        assert!(written("apps", "Deployment", false, &d(1), &with_bundle, None, &touched).is_empty());
        // A StatefulSet's own fields are modelled too.
        let sts = |claims: Value| {
            json!({"kind": "StatefulSet", "spec": {"volumeClaimTemplates": claims, "revisionHistoryLimit": 1,
            "updateStrategy": {"rollingUpdate": {"maxUnavailable": 2}}}})
        };
        assert!(written(
            "apps",
            "StatefulSet",
            false,
            &sts(json!([])),
            &sts(json!([{"metadata": {"name": "d"}}])),
            None,
            &["/spec"]
        )
        .is_empty());
        // A CronJob's schedule and time zone are modelled; its template's image volumes are not.
        let cron = |schedule: &str, tz: &str, volumes: Value| {
            json!({"kind": "CronJob", "spec": {"schedule": schedule, "timeZone": tz,
                "jobTemplate": {"spec": {"template": {"spec": {"volumes": volumes}}}}}})
        };
        let before = cron("@daily", "UTC", json!([]));
        let after = cron("61 * * * *", "Mars/Olympus", json!([]));
        assert!(written("batch", "CronJob", false, &before, &after, None, &["/spec"]).is_empty());
        let volumes = cron("@daily", "UTC", image);
        assert_eq!(
            written("batch", "CronJob", false, &before, &volumes, None, &["/spec/jobTemplate"]),
            ["spec.jobTemplate.spec.template.spec.volumes[*].image"]
        );
    }

    #[test]
    fn a_cron_job_schedule_on_which_the_parser_panics_is_named() {
        let cron = |schedule: &str| json!({"kind": "CronJob", "spec": {"schedule": schedule}});
        let touched = ["/spec/schedule"];
        assert_eq!(
            written("batch", "CronJob", false, &cron("@daily"), &cron("TZ=Europe/Paris"), None, &touched),
            ["spec.schedule"]
        );
        assert!(written(
            "batch",
            "CronJob",
            false,
            &cron("@daily"),
            &cron("TZ=Europe/Paris 0 * * * *"),
            None,
            &touched
        )
        .is_empty());
    }

    #[test]
    fn an_environment_variables_sources_are_all_modelled() {
        let with_env = |from: Value| json!({"kind": "Pod", "metadata": {}, "spec": {"containers": [{"name": "c", "env": [{"name": "E", "valueFrom": from}]}]}});
        let before = with_env(json!(null));
        let touched = ["/spec/containers/0/env"];
        let resource = with_env(json!({"resourceFieldRef": {"resource": "limits.cpu"}}));
        assert!(written("", "Pod", false, &before, &resource, None, &touched).is_empty());
        let field = with_env(json!({"fieldRef": {"fieldPath": "metadata.name"}}));
        assert!(written("", "Pod", false, &before, &field, None, &touched).is_empty());
        let secret = with_env(json!({"secretKeyRef": {"name": "s", "key": "k"}}));
        assert!(written("", "Pod", false, &before, &secret, None, &touched).is_empty());
        let file = with_env(json!({"fileKeyRef": {"volumeName": "v", "path": "p", "key": "K"}}));
        assert!(written("", "Pod", false, &before, &file, None, &touched).is_empty());
    }

    #[test]
    fn pod_annotations_are_modelled_and_not_named() {
        let before = pod(json!({}));
        let mut after = before.clone();
        after["metadata"]["annotations"] = json!({"container.apparmor.security.beta.kubernetes.io/app": "runtime/default",
            "seccomp.security.alpha.kubernetes.io/pod": "runtime/default", "kubernetes.io/config.mirror": "x", "team": "a"});
        assert!(written("", "Pod", false, &before, &after, None, &["/metadata/annotations"]).is_empty());
        after["metadata"]["annotations"]["controller.kubernetes.io/pod-deletion-cost"] = json!("x");
        assert!(written("", "Pod", false, &before, &after, None, &["/metadata/annotations"]).is_empty());
        // The tolerations annotation is, when it decodes as the model reads it.
        after["metadata"]["annotations"]["scheduler.alpha.kubernetes.io/tolerations"] =
            json!("[{\"operator\": \"Exists\"}]");
        assert!(written("", "Pod", false, &before, &after, None, &["/metadata/annotations"]).is_empty());
        // A text Go's decoder refuses is not: named, of a pod and of a template.
        after["metadata"]["annotations"]["scheduler.alpha.kubernetes.io/tolerations"] = json!("[{\"key\": 1}]");
        assert_eq!(
            written("", "Pod", false, &before, &after, None, &["/metadata/annotations"]),
            ["metadata.annotations[scheduler.alpha.kubernetes.io/tolerations]"]
        );
        let d = |annotations: Value| json!({"kind": "Deployment", "spec": {"template": {"metadata": {"annotations": annotations}, "spec": {}}}});
        let tolerations = d(json!({"scheduler.alpha.kubernetes.io/tolerations": "{}"}));
        assert_eq!(
            written("apps", "Deployment", false, &d(json!({})), &tolerations, None, &["/spec/template/metadata"]),
            ["spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/tolerations]"]
        );
    }

    #[test]
    fn map_key_patterns_match_by_prefix_and_print_as_map_keys() {
        let pattern = ["metadata", "annotations", "example.com/*"];
        assert!(reaches(&pattern, &tokens("/metadata/annotations/example.com~1a")));
        assert!(!reaches(&pattern, &tokens("/metadata/annotations/team")));
        assert_eq!(field_path(&pattern), "metadata.annotations[example.com/*]");
    }

    #[test]
    fn status_updates_name_status_fields_only() {
        let before = pod(json!({}));
        let mut after = before.clone();
        after["status"] = json!({"containerStatuses": [{"name": "c", "allocatedResources": {"cpu": "1"}}]});
        after["spec"]["volumes"] = json!([{"name": "v", "image": {"reference": "r:1"}}]);
        assert_eq!(
            written("", "Pod", true, &before, &after, None, &["/status", "/spec/volumes"]),
            ["status.containerStatuses[*].allocatedResources"]
        );
        // The pod and host IPs and the resource claim statuses are modelled: not named.
        let mut ips = before.clone();
        ips["status"] = json!({"podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.9"}], "hostIPs": [{"ip": "10.1.0.1"}],
                               "resourceClaimStatuses": [{"name": "gpu"}]});
        assert!(written("", "Pod", true, &before, &ips, None, &["/status"]).is_empty());
        // The status fields whose checks were read only in a development copy are named.
        let mut newer = before.clone();
        newer["status"] = json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "observedGeneration": 2}],
                                 "nodeAllocatableResourceClaimStatuses": [], "extendedResourceClaimStatus": {}});
        assert_eq!(
            written("", "Pod", true, &before, &newer, None, &["/status"]),
            [
                "status.observedGeneration",
                "status.conditions[*].observedGeneration",
                "status.extendedResourceClaimStatus"
            ]
        );
        newer["status"]["nodeAllocatableResourceClaimStatuses"] = json!([{"resourceClaimName": "c"}]);
        let mut stored = newer.clone();
        stored["status"]["nodeAllocatableResourceClaimStatuses"][0]["resourceClaimName"] = json!("d");
        assert_eq!(
            written("", "Pod", true, &before, &newer, Some(&stored), &["/status/nodeAllocatableResourceClaimStatuses"]),
            ["status.nodeAllocatableResourceClaimStatuses"]
        );
        // A podIP that the pod IPs do not start with leaves them unjudged: named.
        ips["status"]["podIP"] = json!("10.0.0.8");
        assert_eq!(written("", "Pod", true, &before, &ips, None, &["/status"]), ["status.podIP", "status.podIPs"]);
    }

    #[test]
    fn status_updates_name_what_the_pod_status_model_leaves_unjudged() {
        let before = pod(json!({}));
        // The state transitions and allocated resources' health are modelled: not named.
        let mut states = before.clone();
        states["status"] = json!({"containerStatuses": [{"name": "c", "state": {"running": {}},
            "allocatedResourcesStatus": [{"name": "cpu"}]}]});
        assert!(written("", "Pod", true, &before, &states, Some(&before), &["/status"]).is_empty());
        // Unless the stored spec holds a RestartAllContainers rule.
        let mut stored = before.clone();
        stored["spec"]["containers"] = json!([{"name": "c", "restartPolicy": "Never",
            "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}]}]);
        assert_eq!(
            written("", "Pod", true, &before, &states, Some(&stored), &["/status"]),
            ["status.containerStatuses[*].state"]
        );
        // A tolerations annotation the model does not decode, written on a status UPDATE.
        let mut annotated = before.clone();
        annotated["metadata"]["annotations"] = json!({"scheduler.alpha.kubernetes.io/tolerations": "{x"});
        assert_eq!(
            written("", "Pod", true, &before, &annotated, None, &["/metadata/annotations"]),
            ["metadata.annotations[scheduler.alpha.kubernetes.io/tolerations]"]
        );
    }

    #[test]
    fn workload_status_updates_name_terminating_replicas_and_no_spec_field() {
        let before = json!({"kind": "Deployment", "spec": {"replicas": 1}, "status": {}});
        let mut after = before.clone();
        after["status"] = json!({"terminatingReplicas": 1, "replicas": 1});
        after["spec"]["replicas"] = json!(3);
        let touched = ["/status", "/spec/replicas"];
        assert_eq!(
            written("apps", "Deployment", true, &before, &after, None, &touched),
            ["status.terminatingReplicas"]
        );
        assert!(written("apps", "StatefulSet", true, &before, &after, None, &touched).is_empty());
        assert!(written("batch", "Job", true, &before, &after, None, &touched).is_empty());
        // Outside the status subresource the spec's unmodelled fields are named.
        let mut volumes = before.clone();
        volumes["spec"]["template"] = json!({"spec": {"volumes": [{"name": "v", "image": {"reference": "r:1"}}]}});
        let touched = ["/spec/template"];
        assert_eq!(
            written("apps", "Deployment", false, &before, &volumes, None, &touched),
            ["spec.template.spec.volumes[*].image"]
        );
        assert!(written("apps", "Deployment", true, &before, &volumes, None, &touched).is_empty());
    }

    #[test]
    fn a_docker_config_the_model_does_not_judge_is_named_and_other_typed_secrets_nothing() {
        let s = |t: &str, key: &str, v: &str| json!({"kind": "Secret", "type": t, "data": {key: v}});
        let json_type = "kubernetes.io/dockerconfigjson";
        // `{x` (a syntax error, whose Go text is not modelled), after `{}`.
        let (good, bad) = (s(json_type, ".dockerconfigjson", "e30="), s(json_type, ".dockerconfigjson", "e3g="));
        assert_eq!(written("", "Secret", false, &good, &bad, None, &["/data"]), ["data[.dockerconfigjson]"]);
        // Judged texts, an object or an array, are not named.
        let array = s(json_type, ".dockerconfigjson", "W10=");
        assert!(written("", "Secret", false, &good, &array, None, &["/data"]).is_empty());
        // The text that counts is stringData's, when it has the key.
        let mut string_data = good.clone();
        string_data["stringData"] = json!({".dockerconfigjson": "{x"});
        assert_eq!(
            written("", "Secret", false, &good, &string_data, None, &["/stringData"]),
            ["stringData[.dockerconfigjson]"]
        );
        let cfg = s("kubernetes.io/dockercfg", ".dockercfg", "e3g=");
        assert_eq!(written("", "Secret", false, &good, &cfg, None, &["/type", "/data"]), ["data[.dockercfg]"]);
        // A TLS Secret's keys and an Opaque Secret's data are modelled.
        let tls = |v: &str| s("kubernetes.io/tls", "tls.crt", v);
        assert!(written("", "Secret", false, &tls("YQ=="), &tls("Yg=="), None, &["/data/tls.crt"]).is_empty());
        let opaque = |v: &str| s("Opaque", "tls.crt", v);
        assert!(written("", "Secret", false, &opaque("YQ=="), &opaque("Yg=="), None, &["/data/tls.crt"]).is_empty());
    }

    #[test]
    fn kinds_whose_spec_is_modelled_in_full_name_nothing() {
        let cm = |v: &str| json!({"kind": "ConfigMap", "data": {"k": v}});
        assert!(written("", "ConfigMap", false, &cm("a"), &cm("b"), None, &["/data/k"]).is_empty());
        // managedFields are modelled too (`managed_fields`).
        let mut managed = cm("a");
        managed["metadata"] = json!({"managedFields": [{"manager": "m"}]});
        assert!(written("", "ConfigMap", false, &cm("a"), &managed, None, &["/metadata"]).is_empty());
        // An Ingress's resource backends are modelled (`ingress`).
        let ing = |kind: &str| {
            json!({"kind": "Ingress", "spec": {"defaultBackend": {"resource": {"kind": kind, "name": "b"}},
            "rules": [{"http": {"paths": [{"backend": {"resource": {"kind": kind, "name": "b"}}}]}}]}})
        };
        let touched = ["/spec/defaultBackend/resource", "/spec/rules/0/http/paths/0/backend"];
        assert!(
            written("networking.k8s.io", "Ingress", false, &ing("Bucket"), &ing("Store"), None, &touched).is_empty()
        );
    }

    /// An empty map written where an immutable old ConfigMap or Secret holds none is named: Go's
    /// `reflect.DeepEqual` tells it from a nil one, the model does not judge it.
    #[test]
    fn an_empty_map_over_an_immutable_objects_none_is_named() {
        let old = json!({"kind": "ConfigMap", "immutable": true});
        let mut new = old.clone();
        new["binaryData"] = json!({});
        assert_eq!(written("", "ConfigMap", false, &old, &new, Some(&old), &["/binaryData"]), ["binaryData"]);
        let mutable = json!({"kind": "ConfigMap"});
        assert!(written("", "ConfigMap", false, &old, &new, Some(&mutable), &["/binaryData"]).is_empty());
        let secret = json!({"kind": "Secret", "type": "Opaque", "immutable": true});
        let mut emptied = secret.clone();
        emptied["data"] = json!({});
        assert_eq!(written("", "Secret", false, &secret, &emptied, Some(&secret), &["/data"]), ["data"]);
        let held = json!({"kind": "Secret", "type": "Opaque", "immutable": true, "data": {"k": "dg=="}});
        assert!(written("", "Secret", false, &held, &emptied, Some(&held), &["/data"]).is_empty(), "refused instead");
    }
}
