//! Reading case files: YAML, one case per file, errors naming the file, the line and the field.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::admission::{GroupVersionResource, Operation, UserInfo};
use crate::requests::{built_ins, selected_by_rules, ApiResources, Resource, SubObject, Subresource};

pub(crate) use crate::error::CaseError;

/// What a case expects of the apiserver's outcome.
#[derive(Clone, Debug, Default)]
pub struct Expect {
    /// `Some(true)`: admitted; `Some(false)`: denied.
    pub allowed: Option<bool>,
    /// A substring of the denial message (status.message or status.reason of the denying webhook).
    pub message: Option<String>,
    /// A substring of one of the warnings.
    pub warning: Option<String>,
    /// JSON pointers the resulting object must have, with the value they must hold when given.
    pub has: Vec<(String, Option<Value>)>,
    /// JSON pointers the resulting object must not have.
    pub lacks: Vec<String>,
}

impl Expect {
    pub fn is_empty(&self) -> bool {
        self.allowed.is_none()
            && self.message.is_none()
            && self.warning.is_none()
            && self.has.is_empty()
            && self.lacks.is_empty()
    }
}

/// One data-driven case: an admission request as the apiserver would make it.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file stem: the case's name in reports, test names and snapshot files.
    pub name: String,
    /// The case file.
    pub file: PathBuf,
    /// What the case is about (`description:`).
    pub description: Option<String>,
    /// The operation.
    pub operation: Operation,
    /// The resource it is about.
    pub resource: Resource,
    /// The subresource, if any.
    pub subresource: Option<Subresource>,
    /// `request.name`; from the object's metadata unless given.
    pub object_name: String,
    /// `request.namespace` (default: the object's, else `conformance-test`).
    pub namespace: Option<String>,
    /// As written in the case (`Value::Null` when absent).
    pub object: Value,
    /// The old object as written (`Value::Null` when absent).
    pub old_object: Value,
    /// Who asks (default: `kubernetes-admin`).
    pub user_info: Option<UserInfo>,
    /// `request.dryRun`.
    pub dry_run: bool,
    /// Only this webhook of the manifest; otherwise every webhook whose rules select the case.
    pub webhook: Option<String>,
    /// What the outcome must be.
    pub expect: Expect,
}

impl Case {
    /// The case with its resource as `api` knows it: a custom resource named in the case file that a
    /// CRD of the run describes gets that CRD's kind, scope and subresources.
    pub fn bind(mut self, api: &ApiResources) -> Case {
        if let Some(r) = api.find(&self.resource.group, &self.resource.version, &self.resource.plural) {
            if !self.resource.is_built_in() {
                let sub = self.subresource.and_then(|s| r.subresources.iter().find(|x| x.name == s.name).copied());
                if self.subresource.is_none() || sub.is_some() {
                    self.subresource = sub;
                    self.resource = r.clone();
                    self.namespace = match (r.namespaced, self.namespace.take()) {
                        (false, _) => None,
                        (true, ns) => Some(ns.unwrap_or_else(|| crate::requests::NAMESPACE.to_string())),
                    };
                }
            }
        }
        self
    }

    /// `CREATE pods`, `UPDATE deployments/scale`.
    pub fn what(&self) -> String {
        match &self.subresource {
            Some(s) => format!("{} {}/{}", self.operation, self.resource.plural, s.name),
            None => format!("{} {}", self.operation, self.resource.plural),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawCase {
    description: Option<String>,
    operation: Option<String>,
    /// `pods`, `apps/v1/deployments`, `example.com/v1/widgets`.
    resource: Option<String>,
    subresource: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    object: Option<Value>,
    old_object: Option<Value>,
    user_info: Option<UserInfo>,
    dry_run: Option<bool>,
    webhook: Option<String>,
    /// A whole AdmissionRequest instead of the fields above.
    request: Option<RawRequest>,
    /// With `request`: the AdmissionReview's apiVersion/kind (ignored).
    api_version: Option<String>,
    kind: Option<String>,
    expect: Option<RawExpect>,
    /// What the webhook answered when the case was recorded (`record`): kept for the reader, not
    /// judged (`expect:` carries its decision).
    answer: Option<Value>,
}

/// An AdmissionRequest as a webhook logs it: every field optional, the ones a case does not use
/// (uid, kind, request*, options) accepted and ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRequest {
    operation: Option<String>,
    resource: Option<GroupVersionResource>,
    sub_resource: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    object: Option<Value>,
    old_object: Option<Value>,
    user_info: Option<UserInfo>,
    dry_run: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawExpect {
    /// `allowed` or `denied`.
    decision: Option<String>,
    message: Option<String>,
    warning: Option<String>,
    patched: Option<RawPatched>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPatched {
    #[serde(default)]
    has: Vec<RawHas>,
    #[serde(default)]
    lacks: Vec<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawHas {
    Path(String),
    Value { path: String, value: Value },
}

/// The 1-based line of the first `key:` in `text`, for errors about a field.
fn line_of(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ");
            t.starts_with(&format!("{key}:")) || t.starts_with(&format!("\"{key}\":"))
        })
        .map(|i| i + 1)
}

/// Every case file (`*.yaml`, `*.yml`) directly in `dir`, by name.
pub fn load_dir(dir: &Path) -> Result<Vec<Case>, CaseError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CaseError {
        file: dir.to_path_buf(),
        line: None,
        field: None,
        message: format!("cannot read the cases directory: {e}"),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .collect();
    files.sort();
    files.iter().map(|f| load_file(f)).collect()
}

/// Load one case file.
pub fn load_file(file: &Path) -> Result<Case, CaseError> {
    let text = std::fs::read_to_string(file).map_err(|e| CaseError {
        file: file.to_path_buf(),
        line: None,
        field: None,
        message: format!("cannot read the case: {e}"),
    })?;
    parse(file, &text)
}

/// Parse one case; `file` names it (its stem is the case's name).
pub(crate) fn parse(file: &Path, text: &str) -> Result<Case, CaseError> {
    let err = |field: Option<&str>, message: String| CaseError {
        file: file.to_path_buf(),
        line: field.and_then(|f| line_of(text, f.rsplit('.').next().unwrap_or(f))),
        field: field.map(String::from),
        message,
    };
    let de = serde_yaml::Deserializer::from_str(text);
    let raw: RawCase = serde_path_to_error::deserialize(de).map_err(|e| {
        let e = crate::error::YamlDecodeError::from(e);
        let line = e.line.or_else(|| {
            let path = e.path.as_deref().unwrap_or(".");
            line_of(text, path.rsplit('.').next().unwrap_or(path))
        });
        CaseError { file: file.to_path_buf(), line, field: e.path, message: e.message }
    })?;
    let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("case").to_string();

    // A whole AdmissionRequest: take its fields.
    let mut raw = raw;
    let mut request_resource: Option<GroupVersionResource> = None;
    if let Some(request) = raw.request.take() {
        if raw.operation.is_some() || raw.object.is_some() || raw.old_object.is_some() || raw.resource.is_some() {
            return Err(err(
                Some("request"),
                "give either a whole `request` (AdmissionRequest) or operation/object/…, not both".into(),
            ));
        }
        raw.operation = request.operation;
        raw.subresource = request.sub_resource;
        raw.name = raw.name.or(request.name);
        raw.namespace = raw.namespace.or(request.namespace);
        raw.object = request.object.filter(|v| !v.is_null());
        raw.old_object = request.old_object.filter(|v| !v.is_null());
        raw.user_info = request.user_info;
        raw.dry_run = request.dry_run;
        request_resource = request.resource;
    }
    let _ = (&raw.api_version, &raw.kind, &raw.answer);

    let op_text = raw
        .operation
        .clone()
        .ok_or_else(|| err(Some("operation"), "required: CREATE, UPDATE, DELETE or CONNECT".into()))?;
    let operation = Operation::parse(&op_text)
        .ok_or_else(|| err(Some("operation"), format!("{op_text:?} is not CREATE, UPDATE, DELETE or CONNECT")))?;

    let object = raw.object.clone().unwrap_or(Value::Null);
    let old_object = raw.old_object.clone().unwrap_or(Value::Null);
    for (field, v) in [("object", &object), ("oldObject", &old_object)] {
        if !v.is_null() && !v.is_object() {
            return Err(err(Some(field), "must be a mapping (a Kubernetes object)".into()));
        }
    }

    let resource = match (&request_resource, &raw.resource) {
        (Some(r), _) => {
            resolve_named(&r.group, &r.version, &r.resource).map_err(|m| err(Some("resource"), m.to_string()))?
        }
        (None, Some(r)) => resolve_resource(r).map_err(|m| err(Some("resource"), m.to_string()))?,
        (None, None) => {
            let source = if object.is_null() { &old_object } else { &object };
            if source.is_null() {
                return Err(err(
                    Some("resource"),
                    "cannot tell the resource: give `resource:` (e.g. pods) or an object with apiVersion and kind"
                        .into(),
                ));
            }
            resolve_by_kind(source).map_err(|m| err(Some("object"), m.to_string()))?
        }
    };
    let subresource = match &raw.subresource {
        None => None,
        Some(sub) => {
            let found = resource.subresources.iter().find(|s| s.name == sub).copied().ok_or_else(|| {
                let known: Vec<_> = resource.subresources.iter().map(|s| s.name).collect();
                err(
                    Some("subresource"),
                    format!(
                        "{} has no subresource {sub:?} the suite knows (known: {})",
                        resource.plural,
                        known.join(", ")
                    ),
                )
            })?;
            if !found.operations.contains(&operation) {
                let ops: Vec<_> = found.operations.iter().map(|o| o.as_str()).collect();
                return Err(err(
                    Some("operation"),
                    format!("{}/{sub} takes {}, not {operation}", resource.plural, ops.join(", ")),
                ));
            }
            Some(found)
        }
    };
    if subresource.is_none() && operation == Operation::Connect {
        return Err(err(
            Some("subresource"),
            "CONNECT goes to a subresource (e.g. exec, attach, portforward, proxy)".into(),
        ));
    }
    if subresource.is_none() && !resource.operations.contains(&operation) {
        let ops: Vec<_> = resource.operations.iter().map(|o| o.as_str()).collect();
        return Err(err(Some("operation"), format!("{} takes {}, not {operation}", resource.plural, ops.join(", "))));
    }
    let parent_object = matches!(subresource.map(|s| s.object), None | Some(SubObject::Parent));
    match operation {
        Operation::Create | Operation::Update if object.is_null() && parent_object => {
            return Err(err(Some("object"), format!("required for {operation}")));
        }
        Operation::Delete if object.is_null() && old_object.is_null() => {
            return Err(err(
                Some("object"),
                "required for DELETE: the object being deleted (sent as oldObject)".into(),
            ));
        }
        _ => {}
    }
    let meta = |k: &str| {
        [&object, &old_object]
            .iter()
            .find_map(|o| o.get("metadata").and_then(|m| m.get(k)).and_then(Value::as_str).map(String::from))
    };
    let object_name = raw.name.clone().or_else(|| meta("name")).unwrap_or_default();
    let namespace = if resource.namespaced {
        Some(
            raw.namespace
                .clone()
                .or_else(|| meta("namespace"))
                .unwrap_or_else(|| crate::requests::NAMESPACE.to_string()),
        )
    } else {
        None
    };

    let mut expect = Expect::default();
    if let Some(e) = raw.expect {
        expect.allowed = match e.decision.as_deref() {
            None => None,
            Some("allowed") => Some(true),
            Some("denied") => Some(false),
            Some(other) => return Err(err(Some("expect.decision"), format!("{other:?} is not `allowed` or `denied`"))),
        };
        expect.message = e.message;
        expect.warning = e.warning;
        if let Some(p) = e.patched {
            for h in p.has {
                let (path, value) = match h {
                    RawHas::Path(p) => (p, None),
                    RawHas::Value { path, value } => (path, Some(value)),
                };
                check_pointer(&path).map_err(|m| err(Some("expect.patched.has"), m.to_string()))?;
                expect.has.push((path, value));
            }
            for path in p.lacks {
                check_pointer(&path).map_err(|m| err(Some("expect.patched.lacks"), m.to_string()))?;
                expect.lacks.push(path);
            }
        }
    }

    Ok(Case {
        name,
        file: file.to_path_buf(),
        description: raw.description,
        operation,
        resource,
        subresource,
        object_name,
        namespace,
        object,
        old_object,
        user_info: raw.user_info,
        dry_run: raw.dry_run.unwrap_or(false),
        webhook: raw.webhook,
        expect,
    })
}

/// Why a field of a case file that names a resource, a kind or a place in the object is unusable.
#[derive(Debug, thiserror::Error)]
enum FieldError {
    #[error("{0:?} is not a JSON pointer (it starts with `/`; escape `/` in keys as `~1`)")]
    NotAPointer(String),
    #[error("{0:?} is not a built-in resource the suite knows; write group/version/plural for others (e.g. example.com/v1/widgets)")]
    UnknownPlural(String),
    #[error("{0:?} is ambiguous; write group/version/plural")]
    AmbiguousPlural(String),
    #[error("{0:?}: expected plural or group/version/plural")]
    ResourceShape(String),
    #[error("the resource's plural name is empty")]
    EmptyPlural,
    #[error("{group}/{version}/{plural}: not a resource the suite can present")]
    NotPresentable { group: String, version: String, plural: String },
    #[error("has no apiVersion/kind: give them or `resource:`")]
    NoKind,
    #[error("{api_version} {kind} is not a built-in kind the suite knows: give `resource:` as group/version/plural")]
    UnknownKind { api_version: String, kind: String },
}

fn check_pointer(p: &str) -> Result<(), FieldError> {
    if !p.starts_with('/') {
        return Err(FieldError::NotAPointer(p.to_string()));
    }
    Ok(())
}

/// How the apiserver orders versions (`apimachinery/pkg/version` CompareKubeAwareVersionStrings):
/// GA before beta before alpha, then the higher major, then the higher minor.
fn version_priority(version: &str) -> (u8, u32, u32) {
    let rest = version.strip_prefix('v').unwrap_or(version);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let major = digits.parse().unwrap_or(0);
    let tail = &rest[digits.len()..];
    let (stage, minor) = if let Some(m) = tail.strip_prefix("beta") {
        (1, m.parse().unwrap_or(0))
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (0, m.parse().unwrap_or(0))
    } else {
        (2, 0)
    };
    (stage, major, minor)
}

/// `pods`, `deployments` (a built-in plural: its preferred version; the core group first) or
/// `group/version/plural` (`v1/pods`, `example.com/v1/widgets`).
fn resolve_resource(text: &str) -> Result<Resource, FieldError> {
    let parts: Vec<&str> = text.split('/').collect();
    match parts.as_slice() {
        [plural] => {
            let mut found: Vec<&Resource> = built_ins().iter().filter(|r| r.plural == *plural).collect();
            if found.iter().any(|r| r.group.is_empty()) {
                found.retain(|r| r.group.is_empty());
            }
            found.sort_by_key(|r| std::cmp::Reverse(version_priority(&r.version)));
            match found.first() {
                None => Err(FieldError::UnknownPlural(plural.to_string())),
                Some(first) if found.iter().any(|r| r.group != first.group) => {
                    Err(FieldError::AmbiguousPlural(plural.to_string()))
                }
                Some(first) => Ok((*first).clone()),
            }
        }
        [version, plural] => resolve_named("", version, plural),
        [group, version, plural] => resolve_named(group, version, plural),
        _ => Err(FieldError::ResourceShape(text.to_string())),
    }
}

fn resolve_named(group: &str, version: &str, plural: &str) -> Result<Resource, FieldError> {
    if plural.is_empty() {
        return Err(FieldError::EmptyPlural);
    }
    let api = ApiResources::built_in();
    if let Some(r) = api.find(group, version, plural) {
        return Ok(r.clone());
    }
    if let Some(r) = built_ins().iter().find(|r| r.group == group && r.plural == plural) {
        return Ok(Resource { version: version.to_string(), ..r.clone() });
    }
    // A custom resource: let the rule matcher guess it as it does for manifests (the CRDs of the run,
    // if one describes it, replace the guess: `Case::bind`).
    let rule = crate::config::RuleWithOperations {
        operations: vec!["*".into()],
        api_groups: vec![group.to_string()],
        api_versions: vec![version.to_string()],
        resources: vec![plural.to_string()],
        scope: None,
    };
    selected_by_rules(&[rule], &api)
        .into_iter()
        .map(|t| t.resource)
        .find(|r| r.plural == plural && r.group == group)
        .ok_or_else(|| FieldError::NotPresentable {
            group: group.to_string(),
            version: version.to_string(),
            plural: plural.to_string(),
        })
}

fn resolve_by_kind(object: &Value) -> Result<Resource, FieldError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind.is_empty() || api_version.is_empty() {
        return Err(FieldError::NoKind);
    }
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let mut found: Vec<&Resource> = built_ins().iter().filter(|r| r.group == group && r.kind == kind).collect();
    found.sort_by_key(|r| (r.version != version, std::cmp::Reverse(version_priority(&r.version))));
    found
        .first()
        .map(|r| Resource { version: version.to_string(), ..(*r).clone() })
        .ok_or_else(|| FieldError::UnknownKind { api_version: api_version.to_string(), kind: kind.to_string() })
}
