//! The objects of a request the suite builds, as the apiserver holds them when it calls admission:
//! the handlers decode the body with the kind's defaulting decoder before mutating admission
//! (`apiserver/pkg/endpoints/handlers/create.go`, `update.go`: `decoder.Decode`, which runs the
//! scheme's `SetDefaults_*`, `pkg/apis/core/v1/defaults.go` and the apps and batch ones), and a
//! stored object (an UPDATE's or DELETE's oldObject) was defaulted when it was decoded from storage,
//! and holds what the registry allocated when it was created (a Service's cluster IPs and node
//! ports).
//! A custom resource is pruned and defaulted by its structural schema instead
//! (`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`, [`super::schema::admit`]).
//!
//! Case files are not passed through here: they hold the objects as the apiserver sent them.

use serde_json::Value;

use super::review::AdmissionSpec;
use super::schema;
use crate::admission::Gvk;

/// Default `spec`'s object and oldObject as the decoder does before admission, and record on the
/// spec that they were sent so (`AdmissionSpec::sent_defaulted`). `schema` is the structural
/// schema of `spec.kind` when that kind is a custom resource of a CRD given (`None` for a built-in
/// kind, and for a subresource's own kind such as a custom resource's Scale).
pub(super) fn default_objects(spec: &mut AdmissionSpec, schema: Option<&Value>) {
    let AdmissionSpec { kind, object, old_object, .. } = spec;
    default_object(kind, schema, object);
    default_object(kind, schema, old_object);
    if schema.is_none() && kind.group.is_empty() && kind.kind == "Service" {
        allocated_service(old_object);
    }
    spec.sent_defaulted = true;
}

/// A stored Service holds what the registry allocated when it was created
/// (`pkg/registry/core/service/storage/storage.go` `beginCreate`: `allocateClusterIPs`,
/// `allocateNodePorts`, `allocateHealthCheckNodePort`): a cluster IP (`clusterIP` and
/// `clusterIPs`) unless it is an ExternalName or headless one, a node port for each port of a
/// NodePort or LoadBalancer one, and a health-check node port for a LoadBalancer with a `Local`
/// external traffic policy. Values already there are kept; `null` (no object) stays so.
fn allocated_service(stored: &mut Value) {
    let Some(spec) = stored.get_mut("spec").and_then(Value::as_object_mut) else { return };
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or("ClusterIP").to_string();
    if kind == "ExternalName" {
        return;
    }
    let ip = spec.get("clusterIP").and_then(Value::as_str).unwrap_or("").to_string();
    let ip = if ip.is_empty() { "10.96.0.10".to_string() } else { ip };
    spec.insert("clusterIP".into(), Value::String(ip.clone()));
    if spec.get("clusterIPs").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        spec.insert("clusterIPs".into(), serde_json::json!([ip]));
    }
    if !matches!(kind.as_str(), "NodePort" | "LoadBalancer") {
        return;
    }
    let mut next = 30080;
    for port in spec.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
        if let Some(port) = port.as_object_mut().filter(|p| p.get("nodePort").and_then(Value::as_i64).unwrap_or(0) == 0)
        {
            port.insert("nodePort".into(), next.into());
            next += 1;
        }
    }
    let local = spec.get("externalTrafficPolicy").and_then(Value::as_str) == Some("Local");
    if kind == "LoadBalancer" && local && spec.get("healthCheckNodePort").and_then(Value::as_i64).unwrap_or(0) == 0 {
        spec.insert("healthCheckNodePort".into(), next.into());
    }
}

/// One object of kind `kind` as the decoder leaves it; `null` (no object) stays so.
fn default_object(kind: &Gvk, schema: Option<&Value>, object: &mut Value) {
    if object.is_null() {
        return;
    }
    match schema {
        Some(schema) => schema::admit(schema, object),
        None if apiserver_validation::defaults::has_defaults(&kind.group, &kind.kind) => {
            apiserver_validation::defaults::set_defaults(&kind.group, &kind.kind, object)
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::{GroupVersionResource, Operation};
    use crate::requests::default_user;

    fn spec(kind: Gvk, object: Value, old: Value) -> AdmissionSpec {
        AdmissionSpec {
            operation: Operation::Update,
            resource: GroupVersionResource::new(&kind.group, &kind.version, "things"),
            kind,
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: "a".into(),
            namespace: Some("default".into()),
            object: object.into(),
            old_object: old.into(),
            dry_run: false,
            deletion: Default::default(),
            user: default_user(),
            sent_defaulted: false,
        }
    }

    /// A webhook on pods, deployments and secrets, every operation that carries an object.
    fn webhook() -> crate::config::WebhookSpec {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: c}\nwebhooks:\n  - name: a.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules:\n      - {operations: [CREATE, UPDATE, DELETE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods, secrets]}\n      - {operations: [CREATE, UPDATE, DELETE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}\n";
        crate::config::Manifest::parse(std::path::Path::new("m.yaml"), text).unwrap().webhooks.remove(0)
    }

    /// What of the decoder's defaults `object` (a Pod, Deployment or Secret) lacks.
    fn missing_defaults(kind: &str, object: &Value) -> Vec<String> {
        let present = |v: Option<&Value>| v.is_some_and(|v| !v.is_null() && v.as_str() != Some(""));
        let pod_spec = match kind {
            "Secret" => return if present(object.get("type")) { vec![] } else { vec!["type".into()] },
            "Pod" => "/spec",
            _ => "/spec/template/spec",
        };
        let mut missing = Vec::new();
        let spec = object.pointer(pod_spec);
        for field in ["restartPolicy", "dnsPolicy", "schedulerName", "terminationGracePeriodSeconds", "securityContext"]
        {
            if !present(spec.and_then(|s| s.get(field))) {
                missing.push(format!("{pod_spec}/{field}"));
            }
        }
        let containers = spec.and_then(|s| s.get("containers")).and_then(Value::as_array);
        for (i, c) in containers.into_iter().flatten().enumerate() {
            for field in ["imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy"] {
                if !present(c.get(field)) {
                    missing.push(format!("{pod_spec}/containers/{i}/{field}"));
                }
            }
        }
        missing
    }

    /// The objects of `case` that are of its kind, with what of the defaults each lacks.
    fn problems(case: &crate::requests::RequestCase) -> Vec<String> {
        let kind = case.object_kind().kind.as_str();
        if case.spec.sub_resource.is_some() || !matches!(kind, "Pod" | "Deployment" | "Secret") {
            return Vec::new();
        }
        let mut out = Vec::new();
        for object in [&case.spec.object, &case.spec.old_object].into_iter().filter(|o| !o.is_null()) {
            out.extend(missing_defaults(kind, object).into_iter().map(|m| format!("{}: {m}", case.label)));
        }
        if !case.sent_defaulted() {
            out.push(format!("{}: not marked as sent defaulted", case.label));
        }
        out
    }

    #[test]
    fn planned_pods_deployments_and_secrets_are_sent_defaulted() {
        let planned = crate::requests::plan_in(&webhook(), &crate::requests::ApiResources::built_in());
        let mut kinds = std::collections::BTreeSet::new();
        let mut found = Vec::new();
        for case in &planned {
            let p = problems(case);
            if p.is_empty() && case.spec.sub_resource.is_none() {
                kinds.insert((case.object_kind().kind.clone(), case.spec.operation));
            }
            found.extend(p);
        }
        assert!(found.is_empty(), "{found:#?}");
        for kind in ["Pod", "Deployment", "Secret"] {
            for op in [Operation::Create, Operation::Update, Operation::Delete] {
                assert!(kinds.contains(&(kind.to_string(), op)), "no {op:?} of a {kind} planned");
            }
        }
        let pod = planned.iter().find(|c| c.label == "CREATE pods (bare)").unwrap();
        assert_eq!(pod.object()["spec"]["restartPolicy"], "Always");
        assert_eq!(pod.object()["spec"]["containers"][0]["terminationMessagePolicy"], "File");
        let secret = planned.iter().find(|c| c.label == "CREATE secrets (bare)").unwrap();
        assert_eq!(secret.object()["type"], "Opaque");
    }

    #[test]
    fn generated_pods_deployments_and_secrets_are_sent_defaulted() {
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let strategy =
            crate::requests::generated::requests(&webhook(), crate::requests::generated::Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 200, failure_persistence: None, ..Config::default() },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
        runner
            .run(&strategy, |case| {
                let p = problems(&case);
                proptest::prop_assert!(p.is_empty(), "{p:#?}");
                if case.spec.sub_resource.is_none() {
                    seen.lock().unwrap().insert(case.object_kind().kind.clone());
                }
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner().unwrap();
        for kind in ["Pod", "Deployment", "Secret"] {
            assert!(seen.contains(kind), "no {kind} drawn: {seen:?}");
        }
    }

    #[test]
    fn both_objects_of_a_built_in_kind_get_its_defaults_and_the_spec_says_so() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}});
        let mut s = spec(Gvk::new("", "v1", "Secret"), secret.clone(), secret);
        default_objects(&mut s, None);
        assert_eq!(s.object["type"], "Opaque");
        assert_eq!(s.old_object["type"], "Opaque");
        assert!(s.sent_defaulted);
        // A type given is kept.
        let typed =
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "a"}, "type": "kubernetes.io/tls"});
        let mut s = spec(Gvk::new("", "v1", "Secret"), typed, Value::Null);
        default_objects(&mut s, None);
        assert_eq!(s.object["type"], "kubernetes.io/tls");
        assert!(s.old_object.is_null(), "no oldObject stays none");
    }

    #[test]
    fn a_stored_service_holds_its_allocated_cluster_ip_and_node_ports() {
        let svc = |spec: Value| json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}, "spec": spec});
        let ports = json!([{"port": 80}, {"port": 443, "nodePort": 30443}]);
        let new = svc(json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "ports": ports}));
        let mut s = spec(Gvk::new("", "v1", "Service"), new.clone(), new);
        default_objects(&mut s, None);
        let old = &s.old_object["spec"];
        assert_eq!(old["clusterIP"], "10.96.0.10");
        assert_eq!(old["clusterIPs"], json!(["10.96.0.10"]));
        assert_eq!(old["ports"][0]["nodePort"], 30080);
        assert_eq!(old["ports"][1]["nodePort"], 30443, "a node port given is kept");
        assert_eq!(old["healthCheckNodePort"], 30081);
        // The object sent as the user's is not given them.
        assert!(s.object["spec"].get("clusterIP").is_none(), "{}", s.object);
        // An ExternalName one has no cluster IP, a headless one keeps None.
        let external = svc(json!({"type": "ExternalName", "externalName": "db.example.com"}));
        let mut s = spec(Gvk::new("", "v1", "Service"), external.clone(), external);
        default_objects(&mut s, None);
        assert!(s.old_object["spec"].get("clusterIP").is_none(), "{}", s.old_object);
        let headless = svc(json!({"clusterIP": "None", "selector": {"app": "a"}, "ports": [{"port": 80}]}));
        let mut s = spec(Gvk::new("", "v1", "Service"), headless.clone(), headless);
        default_objects(&mut s, None);
        assert_eq!(s.old_object["spec"]["clusterIPs"], json!(["None"]));
    }

    #[test]
    fn a_custom_resource_is_pruned_and_defaulted_by_its_schema() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "mode": {"type": "string", "default": "safe"}}}}});
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                            "spec": {"unknown": 1}});
        let mut s = spec(Gvk::new("example.com", "v1", "Widget"), widget.clone(), widget);
        default_objects(&mut s, Some(&schema));
        for o in [&s.object, &s.old_object] {
            assert_eq!(o["spec"], json!({"mode": "safe"}), "{o}");
        }
        // A kind without defaults and no schema is left as it is.
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": {"replicas": 3}});
        let mut s = spec(Gvk::new("autoscaling", "v1", "Scale"), scale.clone(), Value::Null);
        default_objects(&mut s, None);
        assert_eq!(*s.object, scale);
    }

    /// Every object and old object the suite sends defaulted, planned or generated for the
    /// reference webhook's manifest, is its own defaults' fixed point: defaulting it again fills
    /// nothing, which is what lets `object.valid` take an UPDATE's old object as it was sent.
    #[test]
    fn objects_sent_defaulted_gain_nothing_from_defaulting_again() {
        use std::borrow::Cow;
        let fixed = |case: &crate::requests::RequestCase| -> Result<(), String> {
            if !case.sent_defaulted() || case.schema.is_some() {
                return Ok(());
            }
            let kind = case.object_kind();
            for object in [&case.spec.object, &case.spec.old_object] {
                if let Cow::Owned(again) =
                    apiserver_validation::defaults::defaulted_cow(&kind.group, &kind.kind, object)
                {
                    if again != **object {
                        return Err(format!("{}: {object} defaults to {again}", case.label));
                    }
                }
            }
            Ok(())
        };
        let checked = std::cell::Cell::new(0);
        crate::requests::each_reference_case(300, |case| {
            checked.set(checked.get() + usize::from(case.sent_defaulted()));
            fixed(case)
        });
        let checked = checked.get();
        assert!(checked > 300, "only {checked} cases sent defaulted");
    }

    /// What lets `object.valid` take a patched object as it is, without defaulting it again: a
    /// patch that `patch_keeps_defaults` admits (one writing only the metadata or the status, a
    /// Namespace's metadata aside), applied to an object sent defaulted, gives its defaults' fixed
    /// point too. Over the planned and generated requests of the reference webhook's manifest.
    #[test]
    fn a_patch_of_the_metadata_or_the_status_keeps_an_object_defaulted() {
        use apiserver_validation::defaults::{defaulted, has_defaults, patch_keeps_defaults};
        let patches = [
            json!([{"op": "add", "path": "/metadata/labels", "value": {"team": "a"}}]),
            json!([{"op": "add", "path": "/metadata/annotations", "value": {"note": "x"}},
                   {"op": "add", "path": "/metadata/finalizers", "value": ["example.com/f"]}]),
            json!([{"op": "add", "path": "/status", "value": {"phase": "Running", "replicas": 1}}]),
            json!([{"op": "remove", "path": "/metadata/managedFields"}, {"op": "add", "path": "/metadata/name", "value": "n"}]),
        ];
        let kept = std::cell::RefCell::new(std::collections::BTreeMap::<String, usize>::new());
        let check = |case: &crate::requests::RequestCase| -> Result<(), String> {
            let kind = case.object_kind();
            for patch in &patches {
                let decoded = apiserver_jsonpatch::decode_patch(patch.to_string().as_bytes()).unwrap();
                let pointers = decoded.pointers();
                let keeps = patch_keeps_defaults(&kind.group, &kind.kind, pointers.iter().map(String::as_str));
                if kind.kind == "Namespace" && keeps && pointers.iter().any(|p| p.starts_with("/metadata")) {
                    return Err("a Namespace's defaults are in its metadata".into());
                }
                let Ok(patched) = apiserver_jsonpatch::apply(case.object(), &decoded) else { continue };
                if keeps && has_defaults(&kind.group, &kind.kind) {
                    let again = defaulted(&kind.group, &kind.kind, &patched);
                    if again != patched {
                        return Err(format!("{}: {patch} gave {patched}, which defaults to {again}", case.label));
                    }
                    *kept.borrow_mut().entry(kind.kind.clone()).or_default() += 1;
                }
            }
            Ok(())
        };
        each_sent_case(check);
        let kept = kept.into_inner();
        for kind in ["Pod", "Deployment", "Namespace"] {
            assert!(kept.get(kind).is_some_and(|n| *n > 3), "too few {kind} objects patched: {kept:?}");
        }
    }

    /// [`each_reference_case`](crate::requests::each_reference_case) of 200 generated requests,
    /// on the cases sent defaulted, of a built-in kind, with an object.
    fn each_sent_case(check: impl Fn(&crate::requests::RequestCase) -> Result<(), String>) {
        crate::requests::each_reference_case(200, |case| {
            if !case.sent_defaulted() || case.schema.is_some() || !case.object().is_object() {
                return Ok(());
            }
            check(case)
        });
    }

    /// What lets `patch.kind-decode` judge a patch of the metadata by the metadata alone: every
    /// object sent defaulted decodes as its kind, and patched only within its metadata it decodes
    /// as its kind whenever its metadata decodes as `ObjectMeta` (`kinds::metadata_decodes`),
    /// while metadata that does not decode is seen so.
    #[test]
    fn a_sent_object_patched_within_its_metadata_decodes_when_its_metadata_does() {
        let patches = [
            (json!([{"op": "add", "path": "/metadata/labels", "value": {"team": "a"}}]), true),
            (
                json!([{"op": "add", "path": "/metadata/annotations", "value": {"note": "x"}},
                    {"op": "remove", "path": "/metadata/managedFields"}]),
                true,
            ),
            (json!([{"op": "add", "path": "/metadata/labels", "value": {"team": 1}}]), false),
            (json!([{"op": "add", "path": "/metadata/finalizers", "value": "f"}]), false),
        ];
        let decoded = std::cell::Cell::new((0, 0));
        each_sent_case(|case| {
            let kind = case.object_kind();
            let Some(sent) = crate::kinds::decodes_as(kind, case.object()) else { return Ok(()) };
            sent.map_err(|e| format!("{}: the object sent does not decode: {e}", case.label))?;
            for (patch, decodes) in &patches {
                let decoded_patch = apiserver_jsonpatch::decode_patch(patch.to_string().as_bytes()).unwrap();
                let Ok(patched) = apiserver_jsonpatch::apply(case.object(), &decoded_patch) else { continue };
                let meta = crate::kinds::metadata_decodes(kind, &patched);
                let whole = crate::kinds::decodes_as(kind, &patched).map(|r| r.is_ok());
                if meta != Some(*decodes) || whole != Some(*decodes) {
                    return Err(format!("{}: {patch}: metadata {meta:?}, whole object {whole:?}", case.label));
                }
                let (good, bad) = decoded.get();
                decoded.set(if *decodes { (good + 1, bad) } else { (good, bad + 1) });
            }
            Ok(())
        });
        let (good, bad) = decoded.get();
        assert!(good > 500 && bad > 500, "{good} patched objects decoded, {bad} did not");
    }
}
