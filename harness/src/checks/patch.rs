//! Checks on `response.patch` and `response.patchType`: how the apiserver verifies, decodes and
//! applies them (`request/admissionreview.go`, `mutating/dispatcher.go`).

use apiserver_jsonpatch::FieldForm;
use serde_json::Value;

use super::{calling_error, internal_error, invalid_response, Check, Exchange};

/// patch.base64
pub(crate) fn base64(x: &Exchange) -> Check {
    let e = match x.patch_bytes() {
        None => return Check::na("no patch"),
        Some(Ok(_)) => return Check::Pass,
        Some(Err(e)) => e,
    };
    // The apiserver reports the first error of its decode; one before the patch is another rule's.
    let Some(decoded) = x.decoded() else { return Check::na("no decoded body") };
    if decoded.interpreted.is_err() || decoded.selected.is_err() {
        return Check::na("the apiserver stops before the typed decode (review.decode, review.gvk)");
    }
    let said = match decoded.first_error() {
        Some(first) if first.patch.is_none() => {
            return Check::na(format!(
                "the apiserver reports an earlier error first (review.decode): {}",
                first.message
            ))
        }
        Some(first) => first.message.clone(),
        None => e.to_string(),
    };
    Check::violated(
        format!("response.patch does not decode as Go decodes a []byte (standard base64 with padding): {e}"),
        calling_error(&x.webhook.name, &format!("failed to call webhook: {said}")),
    )
}

/// patch.base64-string
pub(crate) fn base64_string(x: &Exchange) -> Check {
    match x.patch_bytes() {
        Some(Ok(p)) if p.form == FieldForm::ByteArray => Check::violated_plain(
            "response.patch is a JSON array of byte values; the apiserver's decoder takes it, the API documents a base64 string",
        ),
        Some(Ok(_)) => Check::Pass,
        _ => Check::na("no decodable patch"),
    }
}

/// patch.pairing (mutating): patch and patchType come together.
pub(crate) fn pairing(x: &Exchange) -> Check {
    if !x.mutating() {
        return Check::na("validating webhook");
    }
    if x.response().is_none() {
        return Check::na("no response");
    }
    let has_patch = x.nonempty_patch_bytes().is_some();
    let type_set = x.patch_type_set();
    let name = &x.webhook.name;
    if has_patch && !type_set {
        return Check::violated(
            "response.patch without response.patchType".to_string(),
            invalid_response(name, "webhook returned response.patch but not response.patchType"),
        );
    }
    if !has_patch && type_set {
        return Check::violated(
            format!("response.patchType {:?} without a patch", x.patch_type().unwrap_or_default()),
            invalid_response(name, "webhook returned response.patchType but not response.patch"),
        );
    }
    if type_set && x.patch_type() == Some("") {
        return Check::violated(
            "response.patchType is the empty string".to_string(),
            invalid_response(name, "webhook returned invalid response.patchType of \"\""),
        );
    }
    Check::Pass
}

/// validating.no-patch
pub(crate) fn validating_no_patch(x: &Exchange) -> Check {
    if x.mutating() {
        return Check::na("mutating webhook");
    }
    if x.response().is_none() {
        return Check::na("no response");
    }
    if x.nonempty_patch_bytes().is_some() {
        return Check::violated(
            "a validating webhook returned response.patch".to_string(),
            invalid_response(&x.webhook.name, "validating webhook may not return response.patch"),
        );
    }
    if x.patch_type_set() {
        return Check::violated(
            "a validating webhook returned response.patchType".to_string(),
            invalid_response(&x.webhook.name, "validating webhook may not return response.patchType"),
        );
    }
    Check::Pass
}

/// True when the dispatcher goes on to the patch: mutating, allowed, a non-empty patch.
fn patch_reaches_dispatcher(x: &Exchange) -> Result<(), &'static str> {
    if !x.mutating() {
        return Err("validating webhook");
    }
    match x.allowed() {
        None => return Err("no response"),
        Some(false) => return Err("denied: the apiserver ignores any patch"),
        Some(true) => {}
    }
    if x.nonempty_patch_bytes().is_none() {
        return Err("no patch");
    }
    Ok(())
}

/// patch.json
pub(crate) fn json(x: &Exchange) -> Check {
    if let Err(why) = patch_reaches_dispatcher(x) {
        return Check::na(why);
    }
    match x.patch() {
        Some(Err(e)) => Check::violated(
            format!(
                "the decoded patch is not a JSON Patch document: {e}; patch: {}",
                super::snippet(&String::from_utf8_lossy(x.nonempty_patch_bytes().unwrap_or_default()))
            ),
            internal_error(&e.to_string()),
        ),
        _ => Check::Pass,
    }
}

/// patch.no-object
pub(crate) fn no_object(x: &Exchange) -> Check {
    if let Err(why) = patch_reaches_dispatcher(x) {
        return Check::na(why);
    }
    let Some(patch) = x.nonempty_patch() else { return Check::na("empty patch") };
    if x.case.object().is_null() {
        return Check::violated(
            format!("a {}-operation patch on a {} request, which has no object", patch.len(), x.case.spec.operation),
            internal_error(&format!(
                "admission webhook {:?} attempted to modify the object, which is not supported for this operation",
                x.webhook.name
            )),
        );
    }
    Check::Pass
}

/// patch.type
pub(crate) fn patch_type(x: &Exchange) -> Check {
    if let Err(why) = patch_reaches_dispatcher(x) {
        return Check::na(why);
    }
    if x.nonempty_patch().is_none() || x.case.object().is_null() {
        return Check::na("no patch to apply");
    }
    if !x.patch_type_set() {
        // v1 never gets here (patch.pairing); v1beta1 takes a missing type as JSONPatch.
        return Check::Pass;
    }
    let said = x.patch_type().unwrap_or("");
    if said == "JSONPatch" {
        return Check::Pass;
    }
    Check::violated(
        format!("patchType {said:?}; the only supported patch type is \"JSONPatch\""),
        calling_error(&x.webhook.name, &format!("unsupported patch type {said:?}")),
    )
}

/// patch.applies
pub(crate) fn applies(x: &Exchange) -> Check {
    match x.patched() {
        None => Check::na("no patch to apply"),
        Some(Ok(_)) => Check::Pass,
        Some(Err(e)) => {
            Check::violated(format!("the patch does not apply to the object: {e}"), internal_error(&e.to_string()))
        }
    }
}

/// patch.rfc6902: the patch means the same under RFC 6902 as under the apiserver's library.
pub(crate) fn rfc6902(x: &Exchange) -> Check {
    let (Some(Ok(result)), Some(patch)) = (x.patched(), x.nonempty_patch()) else {
        return Check::na("no applied patch");
    };
    if x.leniencies().is_empty() && super::plain_patch::rfc6902_agrees(x.case.object(), patch) {
        // Applied without a leniency, plain, on an object without floats: RFC 6902 makes the
        // same object of it (`plain_patch`).
        return Check::Pass;
    }
    let mut notes: Vec<String> =
        x.leniencies().iter().map(|l| format!("operation {} ({}): {}", l.op_index, l.path, l.what)).collect();
    let rfc = serde_json::from_value::<json_patch::Patch>(Value::Array(
        patch.operations().iter().cloned().map(Value::Object).collect(),
    ));
    match rfc {
        Err(e) => notes.push(format!("not a valid RFC 6902 document: {e}")),
        Ok(rfc_patch) => {
            let mut doc = x.case.object().clone();
            match json_patch::patch(&mut doc, &rfc_patch) {
                Err(e) => notes.push(format!("an RFC 6902 implementation rejects it: {e}")),
                Ok(()) if &doc != result => notes.push("an RFC 6902 implementation produces a different object".into()),
                Ok(()) => {}
            }
        }
    }
    if notes.is_empty() {
        Check::Pass
    } else {
        notes.dedup();
        Check::violated_plain(format!("the patch relies on the apiserver's leniency: {}", notes.join("; ")))
    }
}

/// patch.kind-decode
pub(crate) fn kind_decode(x: &Exchange) -> Check {
    let Some(Ok(patched)) = x.patched() else { return Check::na("no applied patch") };
    let gvk = x.case.object_kind();
    // An object sent as the apiserver's decoder leaves it decodes as its kind; patched only within
    // its metadata, it still does when the metadata decodes (a failure is judged on the whole
    // object below, for Go's message).
    let only_metadata = |p: &apiserver_jsonpatch::Patch| {
        p.pointers()
            .iter()
            .all(|p| p.strip_prefix("/metadata").is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
    };
    if x.case.sent_defaulted()
        && x.nonempty_patch().is_some_and(only_metadata)
        && crate::kinds::metadata_decodes(gvk, patched) == Some(true)
    {
        return Check::Pass;
    }
    match crate::kinds::decodes_as(gvk, patched) {
        Some(Ok(())) => Check::Pass,
        Some(Err(e)) => Check::violated(
            format!("the patched object no longer decodes as {}: {e}", gvk.kind),
            internal_error(&format!("json: {e}")),
        ),
        None => {
            let ok = patched.as_object().is_some_and(|o| {
                o.get("kind").and_then(Value::as_str).is_some_and(|k| !k.is_empty())
                    && o.get("apiVersion").and_then(Value::as_str).is_some_and(|k| !k.is_empty())
                    && o.get("metadata").is_none_or(Value::is_object)
            });
            if ok {
                Check::Pass
            } else {
                Check::violated(
                    "the patched object is not an object with apiVersion, kind and an object metadata".to_string(),
                    internal_error("Object 'Kind' is missing"),
                )
            }
        }
    }
}
