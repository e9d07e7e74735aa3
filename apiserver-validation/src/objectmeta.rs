//! `k8s.io/apimachinery/pkg/api/validation/objectmeta.go` over an object's `metadata` as JSON, with
//! what the registry does around it (`apiserver/pkg/registry/rest/create.go` `BeforeCreate`,
//! `update.go` `BeforeUpdate`, `validateCommonFields`), and the extra finalizer check of the
//! built-in kinds (kubernetes/kubernetes `pkg/apis/core/validation` `ValidateObjectMeta`,
//! `validateKubeFinalizerName`).
//!
//! Labels, annotations and the like are walked in the object's key order; Go walks a map in random
//! order, so with several bad keys the apiserver's list may come in another order.
//! `managedFields` are validated by [`crate::managed_fields::validate`] as they are given: a caller
//! judging what mutating admission left puts back the entries the apiserver puts back first
//! ([`crate::managed_fields::decode_error`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::kinds::{self, NameRule};
use crate::lookup::member_of;
use crate::lookup::Lookup;

/// `TotalAnnotationSizeLimitB`: 256 KiB of keys and values together.
pub const TOTAL_ANNOTATION_SIZE_LIMIT_B: usize = 256 * (1 << 10);
/// `FieldImmutableErrorMsg`.
pub const FIELD_IMMUTABLE: &str = "field is immutable";
/// `metav1.FinalizerOrphanDependents`.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// `metav1.FinalizerDeleteDependents`.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";
const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", FINALIZER_ORPHAN, FINALIZER_FOREGROUND];
/// `names.SimpleNameGenerator`: the base is cut to 63 - 5 bytes, then 5 random characters follow.
const GENERATED_SUFFIX: &str = "x7k2q";

/// What the registry knows of the object's kind.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// API group (`""` for the core group).
    pub group: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// The resource, plural (for the conflict message).
    pub resource: &'a str,
    /// `NamespaceScoped()`.
    pub namespaced: bool,
    /// A built-in kind (its validation adds `validateKubeFinalizerName`); false for a custom resource.
    pub built_in: bool,
    /// The namespace of the request (`""` for a cluster-scoped one).
    pub request_namespace: &'a str,
}

impl Scope<'_> {
    fn name_rule(&self) -> NameRule {
        kinds::name_rule(self.group, self.kind).0
    }
}

/// Why the registry refuses an object.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// 400 `errors.NewBadRequest`.
    BadRequest(String),
    /// 409 `errors.NewConflict`.
    Conflict(String),
    /// 422 `errors.NewInvalid`: the field errors (see [`crate::invalid_message`]).
    Invalid(Vec<FieldError>),
}

impl Refusal {
    /// The apiserver's message (`<Kind> "<name>" is invalid: …` for a 422).
    pub fn message(&self, scope: &Scope, name: &str) -> String {
        match self {
            Refusal::BadRequest(m) | Refusal::Conflict(m) => m.clone(),
            Refusal::Invalid(errs) => crate::invalid_message(scope.group, scope.kind, name, errs),
        }
    }
    /// The HTTP status.
    pub fn code(&self) -> u16 {
        match self {
            Refusal::BadRequest(_) => 400,
            Refusal::Conflict(_) => 409,
            Refusal::Invalid(_) => 422,
        }
    }
}

/// The object's metadata, borrowed until the registry's steps change something in it.
fn meta_of(object: &Value) -> Cow<'_, Map<String, Value>> {
    object.member("metadata").and_then(Value::as_object).map_or_else(|| Cow::Owned(Map::new()), Cow::Borrowed)
}

fn str_of<'a>(meta: &'a Map<String, Value>, key: &str) -> &'a str {
    member_of(meta, key).and_then(Value::as_str).unwrap_or("")
}

fn string_map<'a>(meta: &'a Map<String, Value>, key: &str) -> Vec<(&'a str, &'a str)> {
    member_of(meta, key)
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.as_str(), v))).collect())
        .unwrap_or_default()
}

fn strings(meta: &Map<String, Value>, key: &str) -> Vec<String> {
    member_of(meta, key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

fn json(v: &Value) -> BadValue {
    BadValue::Json(v.to_string())
}

/// `ValidateLabels`: keys are qualified names, values label values.
pub fn validate_labels(labels: &[(&str, &str)], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for msg in content::is_qualified_name(k) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.to_string()), msg));
        }
        for msg in content::is_valid_label_value(v) {
            errs.push(FieldError::invalid(path, BadValue::Str(v.to_string()), msg));
        }
    }
    errs
}

/// `ValidateAnnotations`: keys are qualified names in any letter case; keys and values together
/// at most [`TOTAL_ANNOTATION_SIZE_LIMIT_B`] bytes.
pub fn validate_annotations(annotations: &[(&str, &str)], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, _) in annotations {
        for msg in content::is_qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(path, BadValue::Str(k.to_string()), msg));
        }
    }
    let total: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B {
        errs.push(FieldError::too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
    }
    errs
}

/// An owner reference as `json.Marshal` writes a `metav1.OwnerReference` (its fields in Go order).
fn owner_reference_json(r: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for key in ["apiVersion", "kind", "name", "uid"] {
        out.insert(key.into(), Value::String(str_of(r, key).into()));
    }
    for key in ["controller", "blockOwnerDeletion"] {
        if let Some(b) = member_of(r, key).and_then(Value::as_bool) {
            out.insert(key.into(), Value::Bool(b));
        }
    }
    Value::Object(out)
}

/// `schema.FromAPIVersionAndKind` → (group, version): `ParseGroupVersion`, whose error (more than
/// one `/`) leaves both empty.
fn parse_group_version(api_version: &str) -> (&str, &str) {
    if api_version.is_empty() || api_version == "/" {
        return ("", "");
    }
    match api_version.matches('/').count() {
        0 => ("", api_version),
        1 => api_version.split_once('/').unwrap_or(("", "")),
        _ => ("", ""),
    }
}

/// `ValidateOwnerReferences`: each reference complete and not to an Event; one controller at most.
pub fn validate_owner_references(refs: &[Value], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    let all = Value::Array(refs.iter().map(|r| owner_reference_json(r.as_object().unwrap_or(&Map::new()))).collect());
    for r in refs {
        let empty = Map::new();
        let r = r.as_object().unwrap_or(&empty);
        let api_version = str_of(r, "apiVersion");
        let kind = str_of(r, "kind");
        let (group, version) = parse_group_version(api_version);
        if version.is_empty() {
            errs.push(FieldError::invalid(
                &format!("{path}.apiVersion"),
                BadValue::Str(api_version.into()),
                "version must not be empty",
            ));
        }
        if kind.is_empty() {
            errs.push(FieldError::invalid(&format!("{path}.kind"), BadValue::Str(kind.into()), "must not be empty"));
        }
        let name = str_of(r, "name");
        if name.is_empty() {
            errs.push(FieldError::invalid(&format!("{path}.name"), BadValue::Str(name.into()), "must not be empty"));
        }
        let uid = str_of(r, "uid");
        if uid.is_empty() {
            errs.push(FieldError::invalid(
                &format!("{path}.uid"),
                json(&Value::String(uid.into())),
                "must not be empty",
            ));
        }
        if (group, version, kind) == ("", "v1", "Event") {
            errs.push(FieldError::invalid(
                path,
                json(&owner_reference_json(r)),
                format!("{group}/{version}, Kind={kind} is disallowed from being an owner"),
            ));
        }
        if member_of(r, "controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{kind}/{name}");
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    path,
                    json(&all),
                    format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                )),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// `ValidateFinalizers`: each a qualified name; not both `orphan` and `foregroundDeletion`.
pub fn validate_finalizers(finalizers: &[String], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in finalizers {
        for msg in content::is_qualified_name(f) {
            errs.push(FieldError::invalid(path, BadValue::Str(f.clone()), msg));
        }
    }
    if finalizers.iter().any(|f| f == FINALIZER_ORPHAN) && finalizers.iter().any(|f| f == FINALIZER_FOREGROUND) {
        let list = Value::Array(finalizers.iter().cloned().map(Value::String).collect());
        errs.push(FieldError::invalid(
            path,
            json(&list),
            format!("finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"),
        ));
    }
    errs
}

/// `validateKubeFinalizerName` (built-in kinds): a finalizer without `/` is one of the standard ones.
fn validate_kube_finalizers(finalizers: &[String], path: &str) -> Vec<FieldError> {
    finalizers
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.contains('/') && !STANDARD_FINALIZERS.contains(&f.as_str()))
        .map(|(i, f)| {
            FieldError::invalid(
                &format!("{path}[{i}]"),
                BadValue::Str(f.clone()),
                "name is neither a standard finalizer name nor is it fully qualified",
            )
        })
        .collect()
}

/// `validateObjectMetaAccessorWithOptsCommon`: namespace, generation, labels, annotations, owner
/// references, finalizers, managedFields.
fn common(meta: &Map<String, Value>, namespaced: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let namespace = str_of(meta, "namespace");
    if namespaced {
        if namespace.is_empty() {
            errs.push(FieldError::required("metadata.namespace", ""));
        } else {
            for msg in content::is_dns1123_label(namespace) {
                errs.push(FieldError::invalid("metadata.namespace", BadValue::Str(namespace.into()), msg));
            }
        }
    } else if !namespace.is_empty() {
        errs.push(FieldError::forbidden("metadata.namespace", "not allowed on this type"));
    }
    let generation = member_of(meta, "generation").and_then(Value::as_i64).unwrap_or(0);
    if generation < 0 {
        errs.push(FieldError::invalid(
            "metadata.generation",
            BadValue::Int(generation),
            "must be greater than or equal to 0",
        ));
    }
    errs.extend(validate_labels(&string_map(meta, "labels"), "metadata.labels"));
    errs.extend(validate_annotations(&string_map(meta, "annotations"), "metadata.annotations"));
    let refs = member_of(meta, "ownerReferences").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    errs.extend(validate_owner_references(refs, "metadata.ownerReferences"));
    errs.extend(validate_finalizers(&strings(meta, "finalizers"), "metadata.finalizers"));
    let managed = member_of(meta, "managedFields").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    errs.extend(crate::managed_fields::validate(managed));
    errs
}

/// `EnsureObjectNamespaceMatchesRequestNamespace` (rest/meta.go): an empty namespace takes the
/// request's, a cluster-scoped object's is cleared, another one is a bad request.
fn ensure_namespace(meta: &mut Cow<'_, Map<String, Value>>, scope: &Scope) -> Result<(), Refusal> {
    let expected = if scope.namespaced { scope.request_namespace } else { "" };
    let current = str_of(meta, "namespace").to_string();
    if current == expected {
        return Ok(());
    }
    if current.is_empty() || expected.is_empty() {
        meta.to_mut().insert("namespace".into(), Value::String(expected.into()));
        return Ok(());
    }
    Err(Refusal::BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request".into(),
    ))
}

/// What the registry refuses of `object` on CREATE, after mutating admission: `BeforeCreate`
/// (namespace, name generation) then the kind's `ValidateObjectMeta` with its name rule. `Ok` with
/// the name the object gets when it passes.
pub fn validate_create(scope: &Scope, object: &Value) -> Result<String, Refusal> {
    let mut meta = meta_of(object);
    ensure_namespace(&mut meta, scope)?;
    let rule = scope.name_rule();
    let mut errs = Vec::new();
    let generate_name = str_of(&meta, "generateName").to_string();
    let mut name = str_of(&meta, "name").to_string();
    if !generate_name.is_empty() && name.is_empty() {
        let mut base = generate_name.as_bytes().to_vec();
        base.truncate(content::DNS1123_LABEL_MAX_LENGTH - GENERATED_SUFFIX.len());
        name = format!("{}{GENERATED_SUFFIX}", String::from_utf8_lossy(&base));
    }
    if !generate_name.is_empty() {
        for msg in rule.check(&generate_name, true) {
            errs.push(FieldError::invalid("metadata.generateName", BadValue::Str(generate_name.clone()), msg));
        }
    }
    if name.is_empty() {
        errs.push(FieldError::required("metadata.name", "name or generateName is required"));
    } else {
        for msg in rule.check(&name, false) {
            errs.push(FieldError::invalid("metadata.name", BadValue::Str(name.clone()), msg));
        }
    }
    errs.extend(common(&meta, scope.namespaced));
    if scope.built_in {
        errs.extend(validate_kube_finalizers(&strings(&meta, "finalizers"), "metadata.finalizers"));
    }
    errs.extend(kinds::extra_name_errors(scope.group, scope.kind, &name));
    if errs.is_empty() {
        Ok(name)
    } else {
        Err(Refusal::Invalid(errs))
    }
}

/// What the registry refuses of `object` on UPDATE of `old`, after mutating admission: the
/// resourceVersion check of `Store.Update` (an empty one is filled in, another one conflicts),
/// `BeforeUpdate` (namespace; generation, an empty uid, creationTimestamp and deletionTimestamp
/// taken from the old object; an absent deletionGracePeriodSeconds kept), then
/// `validateCommonFields` and the kind's `ValidateObjectMetaUpdate`.
pub fn validate_update(scope: &Scope, object: &Value, old: &Value) -> Result<(), Refusal> {
    let mut meta = meta_of(object);
    let no_meta = Map::new();
    let old_meta = old.member("metadata").and_then(Value::as_object).unwrap_or(&no_meta);
    let name = str_of(&meta, "name").to_string();
    let old_rv = str_of(old_meta, "resourceVersion");
    let rv = str_of(&meta, "resourceVersion").to_string();
    if rv.is_empty() {
        meta.to_mut().insert("resourceVersion".into(), Value::String(old_rv.into()));
    } else if rv != old_rv {
        let qualified = if scope.group.is_empty() {
            scope.resource.to_string()
        } else {
            format!("{}.{}", scope.resource, scope.group)
        };
        return Err(Refusal::Conflict(format!(
            "Operation cannot be fulfilled on {qualified} {}: the object has been modified; please apply your changes to the latest version and try again",
            crate::field::go_quote(&name)
        )));
    }
    ensure_namespace(&mut meta, scope)?;
    for key in ["generation", "creationTimestamp", "deletionTimestamp"] {
        // Setting a member to the value it holds, or removing an absent one, changes nothing.
        if let Some(v) = member_of(old_meta, key).filter(|v| !v.is_null()) {
            if meta.get(key) != Some(v) {
                meta.to_mut().insert(key.into(), v.clone());
            }
        } else if key == "generation" && meta.contains_key(key) {
            meta.to_mut().remove(key);
        }
    }
    if str_of(&meta, "uid").is_empty() {
        if let Some(uid) = member_of(old_meta, "uid") {
            meta.to_mut().insert("uid".into(), uid.clone());
        }
    }
    if meta.get("deletionGracePeriodSeconds").is_none_or(Value::is_null) {
        if let Some(g) = member_of(old_meta, "deletionGracePeriodSeconds") {
            meta.to_mut().insert("deletionGracePeriodSeconds".into(), g.clone());
        }
    }

    let mut errs = common(&meta, scope.namespaced);
    // ValidateObjectMetaAccessorUpdate.
    if member_of(old_meta, "deletionTimestamp").is_some_and(|v| !v.is_null()) {
        let old_finalizers = strings(old_meta, "finalizers");
        let mut extra: Vec<String> =
            strings(&meta, "finalizers").into_iter().filter(|f| !old_finalizers.contains(f)).collect();
        extra.sort();
        extra.dedup();
        if !extra.is_empty() {
            let quoted: Vec<String> = extra.iter().map(|f| crate::field::go_quote(f)).collect();
            errs.push(FieldError::forbidden(
                "metadata.finalizers",
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    let immutable = |errs: &mut Vec<FieldError>, key: &str, render: fn(&Value) -> BadValue| {
        let new = meta.get(key).filter(|v| !v.is_null());
        let was = member_of(old_meta, key).filter(|v| !v.is_null());
        let as_text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let differs = match key {
            "name" | "namespace" | "uid" => as_text(new) != as_text(was),
            _ => new != was,
        };
        if differs {
            errs.push(FieldError::invalid(
                &format!("metadata.{key}"),
                render(new.unwrap_or(&Value::Null)),
                FIELD_IMMUTABLE,
            ));
        }
    };
    let plain = |v: &Value| BadValue::Str(v.as_str().unwrap_or("").into());
    immutable(&mut errs, "name", plain);
    immutable(&mut errs, "namespace", plain);
    immutable(&mut errs, "uid", |v| json(&Value::String(v.as_str().unwrap_or("").into())));
    immutable(&mut errs, "deletionTimestamp", json);
    immutable(&mut errs, "deletionGracePeriodSeconds", json);
    if scope.built_in {
        errs.extend(validate_kube_finalizers(&strings(&meta, "finalizers"), "metadata.finalizers"));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Invalid(errs))
    }
}
