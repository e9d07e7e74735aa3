//! What kubectl prints of the apiserver's refusal of an object (`kubectl/pkg/cmd/util/helpers.go`
//! `checkErr`), the refusal in a few words for a finding's detail, and which controller a refused
//! request leaves stuck in a cluster.

use apiserver_validation::Refusal;
use serde_json::Value;

use crate::admission::Operation;
use crate::requests::RequestCase;

/// The line kubectl prints for a 422 (`cmdutil.checkErr`: `The <Kind> "<name>" is invalid: `
/// then the causes, one alone on the same line, several each on a line of their own after `* `).
pub(crate) fn kubectl_line(kind: &str, name: &str, refusal: &Refusal, apiserver_says: &str) -> String {
    match refusal {
        Refusal::Invalid(errs) => {
            let prefix = format!("The {kind} {name:?} is invalid: ");
            let causes: Vec<String> = errs.iter().map(ToString::to_string).collect();
            match causes.as_slice() {
                [one] => format!("{prefix}{one}"),
                many => format!("{prefix}\n* {}", many.join("\n* ")),
            }
        }
        Refusal::BadRequest(_) => format!("Error from server (BadRequest): {apiserver_says}"),
        Refusal::Conflict(_) => format!("Error from server (Conflict): {apiserver_says}"),
    }
}

/// The line kubectl prints when the apiserver answers a request with the error `apiserver_says`
/// of a failed webhook call, a patch it could not apply or a patched object it could not decode
/// (`apierrors.NewInternalError`, HTTP 500: `Error from server (InternalError): Internal error
/// occurred: …`); `None` for any other message.
pub(crate) fn kubectl_internal_error(apiserver_says: &str) -> Option<String> {
    apiserver_says
        .starts_with("Internal error occurred: ")
        .then(|| format!("Error from server (InternalError): {apiserver_says}"))
}

/// The refusal in a few words: `invalid <field>, <field>` for a 422, else the apiserver's message.
pub(crate) fn in_brief(refusal: &Refusal) -> String {
    match refusal {
        Refusal::Invalid(errs) => {
            let mut fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
            fields.dedup();
            format!("invalid {}", fields.join(", "))
        }
        Refusal::BadRequest(m) | Refusal::Conflict(m) => m.clone(),
    }
}

/// When `case` is a controller's CREATE (the object names a controller owner reference), what a
/// refusal does in a cluster: the controller cannot make the object, and retries (its events carry
/// the apiserver's error). `None` for any other request.
pub(crate) fn stuck_controller(case: &RequestCase) -> Option<String> {
    let spec = &case.spec;
    if spec.operation != Operation::Create || spec.sub_resource.is_some() {
        return None;
    }
    let owners = case.object().pointer("/metadata/ownerReferences")?.as_array()?;
    let owner = owners.iter().find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))?;
    let kind = owner.get("kind").and_then(Value::as_str)?;
    let name = owner.get("name").and_then(Value::as_str).unwrap_or_default();
    let what = match kind {
        "ReplicaSet" => format!(
            "the ReplicaSet {name:?} cannot create its pods: it retries with back-off, and the Deployment that owns it never becomes available"
        ),
        "StatefulSet" => format!("the StatefulSet {name:?} cannot create this pod, and creates none after it"),
        "DaemonSet" => format!("the DaemonSet {name:?} cannot run its pod on the node"),
        "Job" => format!("the Job {name:?} cannot create its pods: it does not run"),
        "Deployment" => format!("the Deployment {name:?} cannot create its ReplicaSet: the rollout stalls"),
        "CronJob" => format!("the CronJob {name:?} cannot create its Job: the scheduled run is missed"),
        _ => format!("the {kind} {name:?} that controls it cannot create it"),
    };
    Some(format!("{what} (the error is in its events: kubectl describe {} {name})", kind.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::{GroupVersionResource, Gvk, ReviewVersion};
    use crate::requests::{default_user, AdmissionSpec};

    fn create(object: Value) -> RequestCase {
        let spec = AdmissionSpec {
            operation: Operation::Create,
            kind: Gvk::new("", "v1", "Pod"),
            resource: GroupVersionResource::new("", "v1", "pods"),
            sub_resource: None,
            request_kind: None,
            request_resource: None,
            name: String::new(),
            namespace: Some("default".into()),
            object: object.into(),
            old_object: Value::Null.into(),
            dry_run: false,
            user: default_user(),
            deletion: Default::default(),
            sent_defaulted: false,
        };
        RequestCase::new("test".into(), ReviewVersion::V1, true, spec)
    }

    #[test]
    fn an_internal_error_is_printed_as_kubectl_prints_it() {
        let says = "Internal error occurred: failed calling webhook \"a.example.com\": context deadline exceeded";
        assert_eq!(
            kubectl_internal_error(says).as_deref(),
            Some("Error from server (InternalError): Internal error occurred: failed calling webhook \"a.example.com\": context deadline exceeded")
        );
        assert_eq!(kubectl_internal_error("Pod \"web\" is invalid: metadata.name: Required value"), None);
    }

    #[test]
    fn a_controllers_create_names_the_controller_left_stuck() {
        let owned = json!({"metadata": {"generateName": "web-5d4f-", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f", "uid": "u", "controller": true}]}});
        let said = stuck_controller(&create(owned)).expect("a ReplicaSet's pod");
        assert!(said.starts_with("the ReplicaSet \"web-5d4f\" cannot create its pods"), "{said}");
        assert!(said.ends_with("kubectl describe replicaset web-5d4f)"), "{said}");
        // An owner that is not the controller, or none: a user's request, nobody stuck.
        let not_controller = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u"}]}});
        assert_eq!(stuck_controller(&create(not_controller)), None);
        assert_eq!(stuck_controller(&create(json!({"metadata": {"name": "p"}}))), None);
    }
}
