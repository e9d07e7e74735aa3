//! The mutating webhook's decision: the JSON Patch (RFC 6902) operations that bring an object to the
//! desired state, and nothing for what already holds (idempotent).

use serde_json::{json, Map, Value};

use crate::defect::Defect;

/// The label the mutating webhook sets.
pub const MUTATED_LABEL: &str = "conformance.example/mutated";
/// The annotation the mutating webhook sets.
pub const REVIEWED_BY_ANNOTATION: &str = "conformance.example/reviewed-by";
/// The value of [`REVIEWED_BY_ANNOTATION`].
pub const REVIEWED_BY_VALUE: &str = "reference-webhook";
/// The name of the container added to pods.
pub const SIDECAR_NAME: &str = "conformance-sidecar";
/// The image of the container added to pods.
pub const SIDECAR_IMAGE: &str = "registry.example/sidecar:1";
/// The annotation added only under the `url-safe-base64` defect, whose value makes the patch's
/// base64 text contain `+`/`/` (so `-`/`_` in the URL-safe alphabet): any five `?` in a row hold
/// a 3-byte group `???` aligned on a base64 boundary, which encodes to `Pz8/`.
pub const NOTE_ANNOTATION: &str = "conformance.example/note";
/// The value of [`NOTE_ANNOTATION`].
pub const NOTE_VALUE: &str = "?????>>>>>~~ü";

/// The label value written under the `invalid-label-value` defect (a space and `!` are refused).
pub const INVALID_LABEL_VALUE: &str = "not valid!";
/// The annotation added under the `annotations-overflow` defect, whose value alone is 256 KiB.
pub const OVERFLOW_ANNOTATION: &str = "conformance.example/overflow";

/// The sidecar's name under the `bad-container-name` defect (upper case and `_`: not a DNS label).
pub const BAD_SIDECAR_NAME: &str = "Conformance_Sidecar";
/// The name of the port added to a Service under the `service-port-out-of-range` defect.
pub const OUT_OF_RANGE_PORT_NAME: &str = "conformance-metrics";
/// Its number, beyond `IsValidPortNum`'s 65535.
pub const OUT_OF_RANGE_PORT: i64 = 70000;
/// The sidecar's CPU limit under the `unparseable-quantity` defect: no `resource.Quantity`.
pub const UNPARSEABLE_CPU: &str = "lots";
/// The sidecar's `runAsUser` under the `negative-run-as-user` defect: below the smallest user ID.
pub const NEGATIVE_RUN_AS_USER: i64 = -1;

/// The annotation counting calls under the `counter-annotation` defect.
pub const CALLS_ANNOTATION: &str = "conformance.example/calls";
/// The annotation with a random value under the `random-annotation` defect.
pub const TOKEN_ANNOTATION: &str = "conformance.example/token";
/// The manager of the managedFields entry of `--defect managed-fields-without-type`.
pub const MANAGER: &str = "reference-webhook";

/// Escapes one JSON Pointer reference token (RFC 6901): `~` → `~0`, `/` → `~1`.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// True when the request carries an object the webhook mutates: operation CREATE or UPDATE and
/// `request.object` a JSON object with a `metadata` object.
pub fn is_mutable(request: &Value) -> bool {
    let op = request.get("operation").and_then(Value::as_str);
    matches!(op, Some("CREATE") | Some("UPDATE"))
        && request.get("object").and_then(|o| o.get("metadata")).is_some_and(Value::is_object)
}

/// The name of the volume the `image_volume` style gives pods.
pub const IMAGE_VOLUME: &str = "conformance-image";

/// The volume the `image_volume` style gives pods: an OCI image (a reference, as a pod's image
/// volume needs, and a supported pull policy), mounted by no container.
pub fn image_volume() -> Value {
    json!({"name": IMAGE_VOLUME, "image": {"reference": "registry.example/conformance:1", "pullPolicy": "IfNotPresent"}})
}

/// Under the `image_volume` style: on a pod CREATE (not a subresource) whose spec holds no volume
/// of that name, the operation adding [`image_volume`] (the list too when the spec has none).
pub fn image_volume_ops(request: &Value) -> Vec<Value> {
    volume_ops(request, image_volume())
}

/// The name of the volume the `cluster-trust-bundle-write` defect gives pods.
pub const TRUST_BUNDLE_VOLUME: &str = "conformance-ca";

/// The volume the `cluster-trust-bundle-write` defect gives pods: a projection of the cluster trust
/// bundles of a signer, valid where it is kept, dropped by the registry while the
/// ClusterTrustBundleProjection gate is off (its default).
pub fn trust_bundle_volume() -> Value {
    json!({"name": TRUST_BUNDLE_VOLUME, "projected": {"sources": [
        {"clusterTrustBundle": {"signerName": "example.com/conformance", "labelSelector": {}, "path": "ca.pem"}}
    ]}})
}

/// On a pod CREATE (not a subresource) whose spec holds no volume of `volume`'s name, the operation
/// adding it (the list too when the spec has none).
pub fn volume_ops(request: &Value, volume: Value) -> Vec<Value> {
    let object = &request["object"];
    let pod_create = request.get("operation").and_then(Value::as_str) == Some("CREATE")
        && request.get("subResource").is_none_or(Value::is_null)
        && object.get("kind").and_then(Value::as_str) == Some("Pod")
        && object.get("spec").is_some_and(Value::is_object);
    if !pod_create {
        return Vec::new();
    }
    match object.pointer("/spec/volumes") {
        Some(Value::Array(volumes)) => {
            if volumes.iter().any(|v| v.get("name") == volume.get("name")) {
                return Vec::new();
            }
            vec![json!({"op": "add", "path": "/spec/volumes/-", "value": volume})]
        }
        _ => vec![json!({"op": "add", "path": "/spec/volumes", "value": [volume]})],
    }
}

/// How one metadata map (labels or annotations) is written under the active defect.
#[derive(Clone, Copy, Default)]
struct MapStyle {
    /// `missing-parent`: never create the map; always add the key path.
    no_parent: bool,
    /// `unescaped-slash`: write the key in the path without `~1`.
    unescaped: bool,
    /// `replace-missing-key`: `replace` a key the map lacks.
    replace_missing: bool,
}

/// The operations bringing `metadata.<field>` to hold `entries`, none for entries that already hold.
fn map_ops(meta: &Map<String, Value>, field: &str, entries: &[(&str, Value)], style: MapStyle) -> Vec<Value> {
    let current = meta.get(field).and_then(Value::as_object);
    let needed: Vec<&(&str, Value)> =
        entries.iter().filter(|(key, value)| current.and_then(|m| m.get(*key)) != Some(value)).collect();
    if needed.is_empty() {
        return Vec::new();
    }
    let map_path = format!("/metadata/{field}");
    let key_path = |key: &str| {
        if style.unescaped {
            format!("{map_path}/{key}")
        } else {
            format!("{map_path}/{}", escape_token(key))
        }
    };
    let mut ops = Vec::new();
    match current {
        Some(map) => {
            for (key, value) in needed {
                let op = if style.replace_missing && !map.contains_key(*key) { "replace" } else { "add" };
                ops.push(json!({"op": op, "path": key_path(key), "value": value}));
            }
        }
        // Absent, null, or (invalid) not a map.
        None if style.no_parent => {
            for (key, value) in needed {
                ops.push(json!({"op": "add", "path": key_path(key), "value": value}));
            }
        }
        None if style.unescaped => {
            ops.push(json!({"op": "add", "path": map_path, "value": {}}));
            for (key, value) in needed {
                ops.push(json!({"op": "add", "path": key_path(key), "value": value}));
            }
        }
        None => {
            let map: Map<String, Value> = needed.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            ops.push(json!({"op": "add", "path": map_path, "value": map}));
        }
    }
    ops
}

/// The `spec.replicas` the `custom-resource-out-of-range` defect writes.
const OUT_OF_RANGE_REPLICAS: i64 = 1000;

/// The `spec.replicas` the `custom-resource-breaks-rule` defect writes, with `mode: fast`.
const RULE_BREAKING_REPLICAS: i64 = 8;

/// True when the request is about a custom resource: its group is neither the core group, nor one
/// without a dot (`apps`, `batch`, …), nor one of Kubernetes' own (`*.k8s.io`).
fn is_custom_resource(request: &Value) -> bool {
    let group = request.pointer("/kind/group").and_then(Value::as_str).unwrap_or("");
    group.contains('.') && !group.ends_with("k8s.io")
}

/// True when a pod's spec asks its containers to run as non-root (`securityContext.runAsNonRoot`).
fn runs_as_non_root(pod: &Value) -> bool {
    pod.pointer("/spec/securityContext/runAsNonRoot").and_then(Value::as_bool) == Some(true)
}

/// The JSON Patch operations the mutating webhook answers `request` (the AdmissionReview's
/// `request` member) with, under `defect`. Empty when nothing needs to change.
pub fn patch_ops(request: &Value, defect: Option<Defect>) -> Vec<Value> {
    if defect == Some(Defect::PatchOnDelete) && request.get("operation").and_then(Value::as_str) == Some("DELETE") {
        let path = format!("/metadata/labels/{}", escape_token("conformance.example/deleted"));
        return vec![json!({"op": "add", "path": path, "value": "true"})];
    }
    if !is_mutable(request) {
        return Vec::new();
    }
    if defect == Some(Defect::NoMutationOnDryRun) && request.get("dryRun").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let object = &request["object"];
    let Some(meta) = object.get("metadata").and_then(Value::as_object) else {
        return Vec::new();
    };

    let mut ops = map_ops(
        meta,
        "labels",
        &[(
            MUTATED_LABEL,
            if defect == Some(Defect::InvalidLabelValue) { json!(INVALID_LABEL_VALUE) } else { json!("true") },
        )],
        MapStyle {
            no_parent: defect == Some(Defect::MissingParent),
            replace_missing: defect == Some(Defect::ReplaceMissingKey),
            ..MapStyle::default()
        },
    );

    let reviewed_by = if defect == Some(Defect::WrongType) { json!(1) } else { json!(REVIEWED_BY_VALUE) };
    let mut annotations = vec![(REVIEWED_BY_ANNOTATION, reviewed_by)];
    if defect == Some(Defect::UrlSafeBase64) {
        annotations.push((NOTE_ANNOTATION, json!(NOTE_VALUE)));
    }
    let current_annotation =
        |key: &str| meta.get("annotations").and_then(|a| a.get(key)).and_then(Value::as_str).map(str::to_string);
    if defect == Some(Defect::AnnotationsOverflow) {
        annotations.push((OVERFLOW_ANNOTATION, json!("x".repeat(256 * 1024))));
    }
    if defect == Some(Defect::CounterAnnotation) {
        let seen: u64 = current_annotation(CALLS_ANNOTATION).and_then(|v| v.parse().ok()).unwrap_or(0);
        annotations.push((CALLS_ANNOTATION, json!((seen + 1).to_string())));
    }
    if defect == Some(Defect::RandomAnnotation) {
        let token = current_annotation(TOKEN_ANNOTATION).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        annotations.push((TOKEN_ANNOTATION, json!(token)));
    }
    ops.extend(map_ops(
        meta,
        "annotations",
        &annotations,
        MapStyle { unescaped: defect == Some(Defect::UnescapedSlash), ..MapStyle::default() },
    ));

    if defect == Some(Defect::ManagedFieldsWithoutType) {
        let entries = meta.get("managedFields").and_then(Value::as_array);
        let recorded = entries.is_some_and(|e| e.iter().any(|m| m.get("manager") == Some(&json!(MANAGER))));
        // No fieldsType: the field manager cannot decode the entry.
        let entry = json!({"manager": MANAGER, "operation": "Update", "apiVersion": object.get("apiVersion").cloned().unwrap_or(json!("v1")), "fieldsV1": {"f:metadata": {"f:labels": {}}}});
        match entries {
            _ if recorded => {}
            Some(_) => ops.push(json!({"op": "add", "path": "/metadata/managedFields/-", "value": entry})),
            None => ops.push(json!({"op": "add", "path": "/metadata/managedFields", "value": [entry]})),
        }
    }

    let operation = request.get("operation").and_then(Value::as_str);
    if object.get("kind").and_then(Value::as_str) == Some("Deployment")
        && defect == Some(Defect::WorkloadSelectorMismatch)
    {
        let has_selector_labels = object.pointer("/spec/selector/matchLabels").is_some_and(Value::is_object);
        if has_selector_labels
            && object.pointer(&format!("/spec/selector/matchLabels/{}", escape_token(MUTATED_LABEL))).is_none()
        {
            ops.push(json!({
                "op": "add",
                "path": format!("/spec/selector/matchLabels/{}", escape_token(MUTATED_LABEL)),
                "value": "true",
            }));
        }
    }

    if object.get("kind").and_then(Value::as_str) == Some("Service") && defect == Some(Defect::ServicePortOutOfRange) {
        let ports = object.pointer("/spec/ports").and_then(Value::as_array);
        let port =
            json!({"name": OUT_OF_RANGE_PORT_NAME, "port": OUT_OF_RANGE_PORT, "targetPort": 9090, "protocol": "TCP"});
        match ports {
            Some(list) if list.iter().any(|p| p.get("name") == Some(&json!(OUT_OF_RANGE_PORT_NAME))) => {}
            Some(_) => ops.push(json!({"op": "add", "path": "/spec/ports/-", "value": port})),
            None if object.get("spec").is_some_and(Value::is_object) => {
                ops.push(json!({"op": "add", "path": "/spec/ports", "value": [port]}))
            }
            None => {}
        }
    }

    if is_custom_resource(request) {
        if defect == Some(Defect::CustomResourceOutOfRange)
            && object.pointer("/spec/replicas").is_some_and(Value::is_i64)
            && object.pointer("/spec/replicas") != Some(&json!(OUT_OF_RANGE_REPLICAS))
        {
            ops.push(json!({"op": "replace", "path": "/spec/replicas", "value": OUT_OF_RANGE_REPLICAS}));
        }
        if defect == Some(Defect::CustomResourceBreaksRule)
            && object.pointer("/spec/replicas").is_some_and(Value::is_i64)
            && object.pointer("/spec/replicas") != Some(&json!(RULE_BREAKING_REPLICAS))
        {
            ops.push(json!({"op": "replace", "path": "/spec/replicas", "value": RULE_BREAKING_REPLICAS}));
            ops.push(json!({"op": "add", "path": "/spec/mode", "value": "fast"}));
        }
        if defect == Some(Defect::CustomResourcePrunedField)
            && object.get("spec").is_some_and(Value::is_object)
            && object.pointer("/spec/conformanceInjected").is_none()
        {
            ops.push(json!({"op": "add", "path": "/spec/conformanceInjected", "value": true}));
        }
    }

    // A pod's containers can be added only when it is created: the apiserver refuses an UPDATE
    // that adds or removes one, and puts the stored spec back on an UPDATE of its /status.
    let status_update =
        operation == Some("UPDATE") && request.get("subResource").and_then(Value::as_str) == Some("status");
    let injects = operation == Some("CREATE")
        || defect == Some(Defect::AddsContainerOnUpdate)
        || (defect == Some(Defect::StatusSpecWrite) && status_update);
    if object.get("kind").and_then(Value::as_str) == Some("Pod") && injects {
        if let Some(containers) = object.get("spec").and_then(|s| s.get("containers")).and_then(Value::as_array) {
            let name = if defect == Some(Defect::BadContainerName) { BAD_SIDECAR_NAME } else { SIDECAR_NAME };
            let is_sidecar = |c: &Value| c.get("name").and_then(Value::as_str) == Some(name);
            let has_sidecar = match defect {
                Some(Defect::SidecarEveryCall) => false,
                Some(Defect::SidecarLastCheck) => containers.last().is_some_and(is_sidecar),
                Some(Defect::NonRootSidecarScan) if runs_as_non_root(object) => {
                    containers.iter().take(3).any(is_sidecar)
                }
                _ => containers.iter().any(is_sidecar),
            };
            if !has_sidecar {
                let mut sidecar = json!({"name": name, "image": SIDECAR_IMAGE});
                if defect == Some(Defect::UnparseableQuantity) {
                    sidecar["resources"] = json!({"limits": {"cpu": UNPARSEABLE_CPU}});
                }
                if defect == Some(Defect::NegativeRunAsUser) {
                    sidecar["securityContext"] = json!({"runAsUser": NEGATIVE_RUN_AS_USER});
                }
                ops.push(json!({"op": "add", "path": "/spec/containers/-", "value": sidecar}));
            }
        }
    }
    ops
}
