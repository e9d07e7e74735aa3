//! Objects as the cluster's controllers create them: what a webhook meets on every pod of a
//! Deployment or a Job, and that a hand-written manifest never shows.
//!
//! - A Pod of a ReplicaSet or a Job comes from `GetPodFromTemplate`
//!   (`pkg/controller/controller_utils.go`): the template's labels, annotations and finalizers,
//!   `generateName: <owner>-` (`getPodsPrefix`) and no name, and the controller's `ownerReference`
//!   (`metav1.NewControllerRef`: apiVersion, kind, name, uid, `controller: true`,
//!   `blockOwnerDeletion: true`). The name is generated only in `rest.BeforeCreate`, after mutating
//!   admission: a mutating webhook sees no `metadata.name`, a validating one sees the generated name,
//!   and both see an empty `request.name` (`endpoints/handlers/create.go` takes the request's name from
//!   the object as decoded).
//! - A ReplicaSet's pods carry its `pod-template-hash` label, which the Deployment controller puts in
//!   the ReplicaSet's template and selector (`pkg/controller/deployment/sync.go` getNewReplicaSet,
//!   `apps.DefaultDeploymentUniqueLabelKey`); the ReplicaSet itself is named `<deployment>-<hash>`
//!   and carries the `deployment.kubernetes.io/{revision,desired-replicas,max-replicas}` annotations.
//! - A Job's pods carry the labels the Job's strategy adds to its template (`pkg/registry/batch/job/
//!   strategy.go` generateSelector: `batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name`
//!   and their legacy `controller-uid`, `job-name`) and the `batch.kubernetes.io/job-tracking` finalizer
//!   (`pkg/controller/job/job_controller.go`); `generateName: <job>-`.
//! - A CronJob's Job is named `<cronjob>-<scheduled time in minutes>` and carries the
//!   `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation (`pkg/controller/cronjob/utils.go`
//!   getJobFromTemplate2).

use serde_json::{json, Value};

use super::objects::{self, Variant};
use super::resources::{Origin, Resource};

/// Which controller made an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Maker {
    /// A Pod of ReplicaSet `web-7d4b9c6f5d` (itself of Deployment `web`).
    ReplicaSet,
    /// A Pod of Job `nightly-29380125`.
    Job,
    /// ReplicaSet `web-7d4b9c6f5d` of Deployment `web`.
    Deployment,
    /// Job `nightly-29380125` of CronJob `nightly`.
    CronJob,
}

const DEPLOYMENT: &str = "web";
const POD_TEMPLATE_HASH: &str = "7d4b9c6f5d";
const CRONJOB: &str = "nightly";
/// Minutes since the epoch of the scheduled run (2025-11-10T09:45Z).
const SCHEDULED_MINUTES: &str = "29380125";
/// A suffix as `names.SimpleNameGenerator` makes them: five characters of `utilrand`'s alphabet.
const SUFFIX: &str = "x2k9p";

/// The uid of each owner: UUIDs, as the apiserver assigns them.
fn owner_uid(kind: &str) -> &'static str {
    match kind {
        "ReplicaSet" => "0b6f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4",
        "Job" => "1c7a2d3e-4f5b-4c6d-9e7f-8091a2b3c4d5",
        "Deployment" => "2d8b3e4f-5a6c-4d7e-8f90-91a2b3c4d5e6",
        _ => "3e9c4f5a-6b7d-4e8f-9a01-a2b3c4d5e6f7",
    }
}

impl Maker {
    /// The controllers that make objects of `resource` (a built-in kind in its served version).
    pub(crate) fn of(resource: &Resource) -> &'static [Maker] {
        if !matches!(resource.origin, Origin::BuiltIn) || resource.version != "v1" {
            return &[];
        }
        match (resource.group.as_str(), resource.kind.as_str()) {
            ("", "Pod") => &[Maker::ReplicaSet, Maker::Job],
            ("apps", "ReplicaSet") => &[Maker::Deployment],
            ("batch", "Job") => &[Maker::CronJob],
            _ => &[],
        }
    }

    /// How the plan labels a request about an object this controller made.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Maker::ReplicaSet => "made by a ReplicaSet",
            Maker::Job => "made by a Job",
            Maker::Deployment => "made by a Deployment",
            Maker::CronJob => "made by a CronJob",
        }
    }

    /// The owner's apiVersion, kind and name.
    fn owner(self) -> (&'static str, &'static str, String) {
        match self {
            Maker::ReplicaSet => ("apps/v1", "ReplicaSet", format!("{DEPLOYMENT}-{POD_TEMPLATE_HASH}")),
            Maker::Job => ("batch/v1", "Job", format!("{CRONJOB}-{SCHEDULED_MINUTES}")),
            Maker::Deployment => ("apps/v1", "Deployment", DEPLOYMENT.to_string()),
            Maker::CronJob => ("batch/v1", "CronJob", CRONJOB.to_string()),
        }
    }

    /// The controller's `ownerReference` (`metav1.NewControllerRef`).
    pub(crate) fn owner_reference(self) -> Value {
        let (api_version, kind, name) = self.owner();
        json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": owner_uid(kind),
               "controller": true, "blockOwnerDeletion": true})
    }

    /// The `generateName` the controller sends, where it sends one instead of a name.
    pub(crate) fn generate_name(self) -> Option<String> {
        match self {
            Maker::ReplicaSet | Maker::Job => Some(format!("{}-", self.owner().2)),
            Maker::Deployment | Maker::CronJob => None,
        }
    }

    /// The object's name once it has one: the generated name, or the name the controller chose.
    pub(crate) fn name(self) -> String {
        match self.generate_name() {
            Some(prefix) => format!("{prefix}{SUFFIX}"),
            None => match self {
                Maker::Deployment => format!("{DEPLOYMENT}-{POD_TEMPLATE_HASH}"),
                _ => format!("{CRONJOB}-{SCHEDULED_MINUTES}"),
            },
        }
    }

    /// The labels the object carries (and, for a ReplicaSet, its template and selector).
    fn labels(self) -> Value {
        match self {
            Maker::ReplicaSet | Maker::Deployment => json!({"app": "web", "pod-template-hash": POD_TEMPLATE_HASH}),
            Maker::Job => {
                let (_, _, job) = self.owner();
                let uid = owner_uid("Job");
                json!({"app": "web", "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": job,
                       "controller-uid": uid, "job-name": job})
            }
            Maker::CronJob => json!({"app": "web"}),
        }
    }

    /// The object of `resource` as this controller sends it on CREATE, named [`Maker::name`] (the
    /// plan takes the name away where the controller sends none).
    pub(crate) fn object(self, resource: &Resource) -> Value {
        let mut object = objects::new_object(resource, Variant::Bare, &self.name());
        let labels = self.labels();
        if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            if let Some(prefix) = self.generate_name() {
                meta.insert("generateName".into(), json!(prefix));
            }
            meta.insert("labels".into(), labels.clone());
            meta.insert("ownerReferences".into(), json!([self.owner_reference()]));
            match self {
                Maker::Job => {
                    meta.insert("finalizers".into(), json!(["batch.kubernetes.io/job-tracking"]));
                }
                Maker::Deployment => {
                    meta.insert(
                        "annotations".into(),
                        json!({"deployment.kubernetes.io/desired-replicas": "2",
                               "deployment.kubernetes.io/max-replicas": "3",
                               "deployment.kubernetes.io/revision": "1"}),
                    );
                }
                Maker::CronJob => {
                    meta.insert(
                        "annotations".into(),
                        json!({"batch.kubernetes.io/cronjob-scheduled-timestamp": "2025-11-10T09:45:00Z"}),
                    );
                }
                Maker::ReplicaSet => {}
            }
        }
        match self {
            Maker::Deployment => {
                object["spec"]["selector"] = json!({"matchLabels": labels.clone()});
                object["spec"]["template"]["metadata"]["labels"] = labels;
            }
            Maker::Job => {
                if let Some(spec) = objects::pod_spec_mut(&mut object, "Pod") {
                    spec.insert("restartPolicy".into(), json!("Never"));
                }
            }
            Maker::ReplicaSet | Maker::CronJob => {}
        }
        objects::conform(resource, &mut object);
        object
    }
}

/// Remove the name of a controller-made object, as the controller sent it (before the apiserver
/// generated one).
pub(crate) fn without_name(object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("name");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests::resources::built_ins;

    /// Is `prefix` a valid `generateName`: with the 5 generated characters, a DNS-1123 subdomain?
    fn valid_generate_name(prefix: &str) -> bool {
        let name = format!("{prefix}{SUFFIX}");
        name.len() <= 253
            && name.split('.').all(|part| {
                !part.is_empty()
                    && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && part.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && part.ends_with(|c: char| c.is_ascii_alphanumeric())
            })
    }

    /// The metadata of `object`, if it has some.
    fn metadata(object: &Value) -> Option<&serde_json::Map<String, Value>> {
        object.get("metadata").and_then(Value::as_object)
    }

    fn resource(group: &str, kind: &str) -> &'static Resource {
        built_ins().iter().find(|r| r.group == group && r.kind == kind && r.version == "v1").unwrap()
    }

    #[test]
    fn controller_made_objects_are_valid_objects_of_their_kind_with_a_controller_reference() {
        for (group, kind) in [("", "Pod"), ("apps", "ReplicaSet"), ("batch", "Job")] {
            let r = resource(group, kind);
            assert!(!Maker::of(r).is_empty(), "{kind}");
            for &maker in Maker::of(r) {
                let o = maker.object(r);
                let back = crate::kinds::round_trip(&r.gvk(), &o).unwrap().map_err(|e| e.to_string());
                assert_eq!(back.as_ref(), Ok(&o), "{kind} {maker:?}");
                let meta = metadata(&o).unwrap();
                let owner = &meta["ownerReferences"][0];
                assert_eq!(owner["controller"], true);
                assert_eq!(owner["blockOwnerDeletion"], true);
                assert!(uuid::Uuid::parse_str(owner["uid"].as_str().unwrap()).is_ok(), "{owner}");
                if let Some(prefix) = maker.generate_name() {
                    assert!(valid_generate_name(&prefix), "{prefix}");
                    assert_eq!(meta["generateName"], prefix);
                    assert!(meta["name"].as_str().unwrap().starts_with(&prefix));
                }
            }
        }
        let pod = Maker::ReplicaSet.object(resource("", "Pod"));
        assert_eq!(pod["metadata"]["labels"]["pod-template-hash"], POD_TEMPLATE_HASH);
        assert_eq!(pod["metadata"]["generateName"], "web-7d4b9c6f5d-");
        let pod = Maker::Job.object(resource("", "Pod"));
        assert_eq!(pod["metadata"]["labels"]["batch.kubernetes.io/job-name"], "nightly-29380125");
        assert_eq!(pod["metadata"]["labels"]["controller-uid"], owner_uid("Job"));
        let rs = Maker::Deployment.object(resource("apps", "ReplicaSet"));
        assert_eq!(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"], POD_TEMPLATE_HASH);
        assert!(rs["metadata"].get("generateName").is_none(), "a Deployment names its ReplicaSets");
        assert!(!valid_generate_name("Web_"), "not a DNS subdomain");
    }
}
