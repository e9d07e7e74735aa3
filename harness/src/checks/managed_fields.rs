//! What the apiserver does with the managedFields a mutating webhook's patch leaves
//! (`apiserver/pkg/endpoints/handlers/fieldmanager/admission.go`, modelled in
//! `apiserver_validation::managed_fields`): entries that do not decode are replaced by those from
//! before admission, and the client is warned. [`put_back`] gives the object the registry then
//! validates; [`reset`] is `object.managed-fields`.

use std::borrow::Cow;

use apiserver_validation::managed_fields::{decode_error, entries, reset_warning};
use apiserver_validation::same::same_list;
use serde_json::Value;

use super::{Check, Exchange};
use crate::admission::Operation;

/// `patched` as the admission wrapper leaves it: with `before`'s managedFields when its own do not
/// decode (none when `before` has none), as it is otherwise. Entries the patch left as they were
/// are not decoded: put back, they would be the same. `kept` says whether they are, where that is
/// known already ([`Exchange::managed_fields_kept`] for the exchange's own pair).
pub(crate) fn put_back<'a>(before: &Value, patched: &'a Value, kept: Option<bool>) -> Cow<'a, Value> {
    let own = entries(patched);
    if kept.unwrap_or_else(|| same_list(entries(before), own)) || decode_error(own).is_none() {
        return Cow::Borrowed(patched);
    }
    let mut kept = patched.clone();
    if let Some(meta) = kept.get_mut("metadata").and_then(Value::as_object_mut) {
        match before.pointer("/metadata/managedFields").filter(|v| !v.is_null()) {
            Some(old) => meta.insert("managedFields".into(), old.clone()),
            None => meta.remove("managedFields"),
        };
    }
    Cow::Owned(kept)
}

/// object.managed-fields
pub(crate) fn reset(x: &Exchange) -> Check {
    let Some(Ok(patched)) = x.patched() else { return Check::na("no applied patch") };
    if !matches!(x.case.spec.operation, Operation::Create | Operation::Update) {
        return Check::na("neither CREATE nor UPDATE: no field manager runs");
    }
    if x.managed_fields_kept() == Some(true) {
        return Check::Pass;
    }
    let (old, new) = (entries(x.case.object()), entries(patched));
    if decode_error(old).is_some() {
        return Check::na("the request's own managedFields do not decode: the apiserver's field manager would have replaced them before admission");
    }
    let Some(error) = decode_error(new) else { return Check::Pass };
    let wording = if error.starts_with("error decoding") {
        " (where this text prints the entry as JSON, Go prints it as a struct, and the JSON reader's errors with their byte position)"
    } else {
        ""
    };
    Check::violated_plain(format!(
        "the patch leaves metadata.managedFields that the field manager cannot decode ({error}): after mutating admission the apiserver puts back the managedFields from before it, so this write has no effect, and every client request it touches is answered with the warning {:?}{wording}",
        reset_warning(&error)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_that_do_not_decode_are_replaced_by_those_from_before() {
        let good = json!([{"manager": "kubectl", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {}}}]);
        let before = json!({"metadata": {"name": "a", "managedFields": good}});
        let untyped = json!({"metadata": {"name": "a", "labels": {"x": "y"}, "managedFields": [{"manager": "hook", "operation": "Update", "apiVersion": "v1"}]}});
        let kept = put_back(&before, &untyped, None);
        assert_eq!(kept["metadata"]["managedFields"], good);
        assert_eq!(kept["metadata"]["labels"], json!({"x": "y"}), "the rest of the patch stays");
        // Nothing before: none after.
        let kept = put_back(&json!({"metadata": {"name": "a"}}), &untyped, None);
        assert!(kept["metadata"].get("managedFields").is_none());
        // Entries that decode stay as written, removed ones stay removed.
        let written = json!({"metadata": {"name": "a", "managedFields": [{"manager": "", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1"}]}});
        assert!(matches!(put_back(&before, &written, None), Cow::Borrowed(_)));
        assert!(matches!(put_back(&before, &json!({"metadata": {}}), None), Cow::Borrowed(_)));
        // Entries that do not decode, left as they were: putting them back changes nothing.
        let bad_before = json!({"metadata": {"name": "a", "managedFields": untyped["metadata"]["managedFields"]}});
        assert!(decode_error(entries(&bad_before)).is_some());
        let kept = put_back(&bad_before, &untyped, None);
        assert!(matches!(kept, Cow::Borrowed(_)));
        assert_eq!(*kept, untyped);
        // Told whether the entries are the same, it does not compare them again.
        assert!(matches!(put_back(&bad_before, &untyped, Some(true)), Cow::Borrowed(_)));
        assert_eq!(put_back(&before, &untyped, Some(false))["metadata"]["managedFields"], good);
    }
}
