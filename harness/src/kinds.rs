//! Typed decoding of objects with k8s-openapi, as the apiserver decodes a patched object: non-strict
//! (unknown fields are dropped), case-sensitive, and a value of the wrong type is an error.

use k8s_openapi::api::{apps, autoscaling, batch, core, networking, policy};
use serde_json::Value;

use crate::admission::Gvk;

fn decode<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(typed).map_err(|e| e.to_string())
}

/// Decode `value` as the built-in kind `gvk` and re-encode it. `None` when the suite has no typed
/// model of that kind (custom resources, connect options): such objects are checked as plain JSON.
pub fn round_trip(gvk: &Gvk, value: &Value) -> Option<Result<Value, String>> {
    let f: fn(&Value) -> Result<Value, String> = match (gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()) {
        ("", "v1", "Pod") => decode::<core::v1::Pod>,
        ("", "v1", "ConfigMap") => decode::<core::v1::ConfigMap>,
        ("", "v1", "Secret") => decode::<core::v1::Secret>,
        ("", "v1", "Service") => decode::<core::v1::Service>,
        ("", "v1", "ServiceAccount") => decode::<core::v1::ServiceAccount>,
        ("", "v1", "Namespace") => decode::<core::v1::Namespace>,
        ("", "v1", "Binding") => decode::<core::v1::Binding>,
        ("apps", "v1", "Deployment") => decode::<apps::v1::Deployment>,
        ("apps", "v1", "ReplicaSet") => decode::<apps::v1::ReplicaSet>,
        ("apps", "v1", "StatefulSet") => decode::<apps::v1::StatefulSet>,
        ("apps", "v1", "DaemonSet") => decode::<apps::v1::DaemonSet>,
        ("batch", "v1", "Job") => decode::<batch::v1::Job>,
        ("batch", "v1", "CronJob") => decode::<batch::v1::CronJob>,
        ("networking.k8s.io", "v1", "Ingress") => decode::<networking::v1::Ingress>,
        ("autoscaling", "v1", "Scale") => decode::<autoscaling::v1::Scale>,
        ("policy", "v1", "Eviction") => decode::<policy::v1::Eviction>,
        _ => return None,
    };
    Some(f(value))
}

/// Check that `value` decodes as `gvk` the way the apiserver decodes a patched object. Go's decoder
/// leaves a field at its zero value when the JSON holds `null`; members that are `null` are dropped
/// first so that they do not count against the object.
pub fn decodes_as(gvk: &Gvk, value: &Value) -> Option<Result<(), String>> {
    let mut cleaned = value.clone();
    drop_null_members(&mut cleaned);
    round_trip(gvk, &cleaned).map(|r| r.map(|_| ()))
}

fn drop_null_members(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_null_members);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_members),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_are_dropped_wrong_types_fail() {
        let gvk = Gvk::new("", "v1", "Pod");
        let ok = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "extra": 1},
                        "spec": {"containers": [{"name": "a", "image": "x", "unknownField": true}]}});
        assert_eq!(decodes_as(&gvk, &ok), Some(Ok(())));
        let bad = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "annotations": {"a": 1}}});
        assert!(decodes_as(&gvk, &bad).unwrap().is_err());
        let nulls = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": null, "labels": null}});
        assert_eq!(decodes_as(&gvk, &nulls), Some(Ok(())));
    }

    #[test]
    fn quantities_accept_numbers_like_the_apiserver() {
        let gvk = Gvk::new("", "v1", "Pod");
        let v = json!({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a",
                       "resources": {"limits": {"cpu": 1, "memory": "64Mi"}}}]}});
        assert_eq!(decodes_as(&gvk, &v), Some(Ok(())));
    }

    #[test]
    fn unknown_kinds_are_untyped() {
        assert!(decodes_as(&Gvk::new("example.com", "v1", "Widget"), &json!({})).is_none());
    }
}
