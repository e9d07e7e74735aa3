//! What of a suspended Job's pod template an UPDATE may change, as kubernetes/kubernetes
//! `pkg/apis/batch/validation/validation.go` `validatePodTemplateUpdate` judges it (release-1.36):
//! the template is immutable (`ValidateImmutableField`) but for what is copied from the new
//! template into the old one before the comparison ([`old_template_for_update`]).
//!
//! - `AllowMutableSchedulingDirectives` (`pkg/registry/batch/job/strategy.go`
//!   `validationOptionsForJob`: the old Job suspended and never started, `status.startTime`
//!   unset): the template's labels and annotations, the pod spec's `nodeSelector`, `tolerations`,
//!   `schedulingGates` and `affinity.nodeAffinity` (an `affinity` holding nothing else may be
//!   dropped). `MutableSchedulingDirectivesForSuspendedJobs` (beta, on by default in 1.36) allows
//!   them for a suspended Job that has started too; that code was not read, so on such a Job these
//!   fields are masked and [`unjudged`] names them.
//! - `MutablePodResourcesForSuspendedJobs` (beta, on by default in 1.36; KEP-5440): the
//!   containers' and init containers' resource requests and limits of a suspended Job, once its
//!   active pods are gone. Its Go code was not read: the resources (containers', init
//!   containers', the pod's) are masked whenever the old or new Job is suspended, and [`unjudged`]
//!   names what the documented rule does not settle (all of them unless the old Job is suspended
//!   and never started; else the resource claims and the pod-level resources).

use crate::lookup::Lookup;
use serde_json::{Map, Value};

fn suspended(job: &Value) -> bool {
    job.at("/spec/suspend").and_then(Value::as_bool) == Some(true)
}

fn started(job: &Value) -> bool {
    job.at("/status/startTime").is_some_and(|t| !t.is_null())
}

/// Sets `key` of `target` to `source`'s (removed when `source` has none).
fn copy_member(target: &mut Value, source: &Value, key: &str) {
    let value = source.member(key).cloned();
    if let Some(m) = target.as_object_mut() {
        match value {
            Some(v) => {
                m.insert(key.to_string(), v);
            }
            None => {
                m.remove(key);
            }
        }
    }
}

/// The object member `key` of `v`, created empty if missing (`None` if `v` is not an object).
fn member<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let m = v.as_object_mut()?;
    let entry = m.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
    if entry.is_null() {
        *entry = Value::Object(Map::new());
    }
    Some(entry)
}

fn present(v: Option<&Value>) -> bool {
    v.is_some_and(|x| !x.is_null())
}

/// `validatePodTemplateUpdate` under `AllowMutableSchedulingDirectives`: the scheduling directives
/// of `new` copied into `old`.
fn copy_scheduling_directives(old: &mut Value, new: &Value) {
    let new_spec = new.member("spec").unwrap_or(&Value::Null);
    if let Some(spec) = member(old, "spec") {
        let new_affinity = new_spec.member("affinity").filter(|a| !a.is_null());
        match (new_affinity, spec.member("affinity").filter(|a| !a.is_null()).is_some()) {
            (None, true) => {
                let affinity = spec.get_mut("affinity").and_then(Value::as_object_mut);
                let empty = affinity.is_some_and(|a| {
                    a.remove("nodeAffinity");
                    a.values().all(Value::is_null)
                });
                if empty {
                    if let Some(m) = spec.as_object_mut() {
                        m.remove("affinity");
                    }
                }
            }
            (Some(a), false) => {
                let mut only = Map::new();
                if let Some(n) = a.member("nodeAffinity").filter(|n| !n.is_null()) {
                    only.insert("nodeAffinity".into(), n.clone());
                }
                if let Some(m) = spec.as_object_mut() {
                    m.insert("affinity".into(), Value::Object(only));
                }
            }
            (Some(a), true) => {
                if let Some(old_affinity) = spec.get_mut("affinity") {
                    copy_member(old_affinity, a, "nodeAffinity");
                }
            }
            (None, false) => {}
        }
        for key in ["nodeSelector", "tolerations", "schedulingGates"] {
            copy_member(spec, new_spec, key);
        }
    }
    let new_meta = new.member("metadata").unwrap_or(&Value::Null);
    if present(new_meta.member("labels")) || present(new_meta.member("annotations")) || present(old.member("metadata"))
    {
        if let Some(meta) = member(old, "metadata") {
            copy_member(meta, new_meta, "annotations");
            copy_member(meta, new_meta, "labels");
        }
    }
}

/// The resources of `new`'s containers and init containers (by index) and of its pod copied into
/// `old`.
fn copy_resources(old: &mut Value, new: &Value) {
    let new_spec = new.member("spec").unwrap_or(&Value::Null);
    let Some(spec) = old.get_mut("spec").filter(|s| s.is_object()) else { return };
    for list in ["containers", "initContainers"] {
        let new_items = new_spec.member(list).and_then(Value::as_array);
        let (Some(new_items), Some(items)) = (new_items, spec.get_mut(list).and_then(Value::as_array_mut)) else {
            continue;
        };
        for (item, new_item) in items.iter_mut().zip(new_items) {
            copy_member(item, new_item, "resources");
        }
    }
    copy_member(spec, new_spec, "resources");
}

/// The old Job's template as `validatePodTemplateUpdate` compares it with `new_job`'s: with what a
/// suspended Job may change copied from the new template.
pub fn old_template_for_update(new_job: &Value, old_job: &Value) -> Value {
    let new = new_job.at("/spec/template").unwrap_or(&Value::Null);
    let mut old = old_job.at("/spec/template").cloned().unwrap_or(Value::Null);
    if suspended(old_job) {
        copy_scheduling_directives(&mut old, new);
    }
    if suspended(old_job) || suspended(new_job) {
        copy_resources(&mut old, new);
    }
    old
}

/// The scheduling directives a suspended, started Job's template may change under
/// `MutableSchedulingDirectivesForSuspendedJobs`.
const SCHEDULING_DIRECTIVES: &[&str] = &[
    "metadata labels",
    "metadata annotations",
    "spec nodeSelector",
    "spec tolerations",
    "spec schedulingGates",
    "spec affinity nodeAffinity",
    "spec affinity",
];

/// The resources `MutablePodResourcesForSuspendedJobs` may let change.
const RESOURCES: &[&str] = &["spec containers * resources", "spec initContainers * resources", "spec resources"];

/// The resources the documented rule (requests and limits of a suspended, never started Job's
/// containers) does not settle.
const RESOURCES_UNDOCUMENTED: &[&str] =
    &["spec containers * resources claims", "spec initContainers * resources claims", "spec resources"];

/// The template fields (patterns under `spec template`) that [`old_template_for_update`] masks
/// without the Go code read to say they may change.
pub fn unjudged(new_job: &Value, old_job: &Value) -> Vec<&'static str> {
    let mut out = Vec::new();
    let certain = suspended(old_job) && !started(old_job);
    if suspended(old_job) && started(old_job) {
        out.extend_from_slice(SCHEDULING_DIRECTIVES);
    }
    if certain {
        out.extend_from_slice(RESOURCES_UNDOCUMENTED);
    } else if suspended(old_job) || suspended(new_job) {
        out.extend_from_slice(RESOURCES);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(suspend: bool, started: bool, template: Value) -> Value {
        let mut j = json!({"spec": {"suspend": suspend, "template": template}});
        if started {
            j["status"] = json!({"startTime": "2024-01-01T00:00:00Z"});
        }
        j
    }

    fn template(node_selector: Value, image: &str, cpu: &str) -> Value {
        json!({"metadata": {"labels": {"app": "a"}}, "spec": {"nodeSelector": node_selector,
            "containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": cpu}}}]}})
    }

    #[test]
    fn a_suspended_job_may_change_its_scheduling_directives_and_resources_only() {
        let old = job(true, false, template(json!({"zone": "a"}), "app:1", "1"));
        let new = job(true, false, template(json!({"zone": "b"}), "app:1", "2"));
        assert_eq!(old_template_for_update(&new, &old), new["spec"]["template"]);
        assert_eq!(unjudged(&new, &old), RESOURCES_UNDOCUMENTED);
        let image = job(true, false, template(json!({"zone": "b"}), "app:2", "2"));
        assert_ne!(old_template_for_update(&image, &old), image["spec"]["template"]);
        // Not suspended: nothing is copied.
        let running = job(false, false, template(json!({"zone": "a"}), "app:1", "1"));
        let moved = job(false, false, template(json!({"zone": "b"}), "app:1", "1"));
        assert_eq!(old_template_for_update(&moved, &running), running["spec"]["template"]);
        assert!(unjudged(&moved, &running).is_empty());
        // Started before: masked, and named.
        let started = job(true, true, template(json!({"zone": "a"}), "app:1", "1"));
        assert_eq!(old_template_for_update(&new, &started), new["spec"]["template"]);
        assert!(unjudged(&new, &started).contains(&"spec nodeSelector"));
        assert!(unjudged(&new, &started).contains(&"spec containers * resources"));
    }

    #[test]
    fn a_suspended_job_may_drop_an_affinity_holding_only_node_affinity() {
        let node = json!({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}});
        let pod = json!({"podAffinity": {}});
        let with = |affinity: Value| json!({"spec": {"suspend": true, "template": {"spec": {"affinity": affinity, "containers": []}}}});
        let without = json!({"spec": {"suspend": true, "template": {"spec": {"containers": []}}}});
        let old = with(json!({"nodeAffinity": node}));
        assert_eq!(old_template_for_update(&without, &old), without["spec"]["template"]);
        let old = with(json!({"nodeAffinity": node, "podAffinity": pod}));
        assert_ne!(old_template_for_update(&without, &old), without["spec"]["template"]);
        let added = with(json!({"nodeAffinity": node}));
        assert_eq!(old_template_for_update(&added, &without), added["spec"]["template"]);
    }
}
