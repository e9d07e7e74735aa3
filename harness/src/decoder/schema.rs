//! The Go types an answer is decoded into: `AdmissionReview` of `k8s.io/api/admission/v1` (or
//! `v1beta1`), with the field names, kinds and type names Go's decoder uses in its error messages.

use std::sync::OnceLock;

use crate::admission::ReviewVersion;

/// A Go type, as far as the JSON decoder cares.
#[derive(Debug)]
pub(crate) enum Ty {
    /// A string kind: `string`, `types.UID`, `v1.PatchType`, …
    Str(&'static str),
    /// `bool`.
    Bool,
    /// A signed integer of `bits` bits, named `name` (`int32`, `int64`).
    Int { name: &'static str, bits: u32 },
    /// `[]byte`: a base64 string or an array of numbers 0..=255.
    Bytes,
    /// A slice of `elem`; `name` is its Go type name (`[]string`, `v1.ExtraValue`).
    Slice { elem: Box<Ty>, name: String },
    /// `map[string]elem`.
    Map { elem: Box<Ty>, name: String },
    /// A pointer to `elem` (errors name the element type).
    Ptr(Box<Ty>),
    /// A struct.
    Struct(Struct),
    /// `runtime.RawExtension`: takes any JSON value as it is (its `UnmarshalJSON`).
    Raw,
}

/// A Go struct: its name (as `reflect.Type.Name()` gives it), package and JSON fields.
#[derive(Debug)]
pub(crate) struct Struct {
    pub name: &'static str,
    pub package: &'static str,
    pub fields: Vec<(&'static str, Ty)>,
}

impl Struct {
    /// The field with exactly this JSON name (the apiserver's decoder is case-sensitive).
    pub(crate) fn field(&self, name: &str) -> Option<&(&'static str, Ty)> {
        self.fields.iter().find(|(n, _)| *n == name)
    }
}

impl Ty {
    /// The type's name as Go's `reflect.Type.String()` prints it in `UnmarshalTypeError`.
    pub(crate) fn go_name(&self) -> String {
        match self {
            Ty::Str(name) => name.to_string(),
            Ty::Bool => "bool".into(),
            Ty::Int { name, .. } => name.to_string(),
            Ty::Bytes => "[]uint8".into(),
            Ty::Slice { name, .. } | Ty::Map { name, .. } => name.clone(),
            Ty::Ptr(elem) => format!("*{}", elem.go_name()),
            Ty::Struct(s) => format!("{}.{}", s.package, s.name),
            Ty::Raw => "runtime.RawExtension".into(),
        }
    }
}

fn s(name: &'static str) -> Ty {
    Ty::Str(name)
}

fn string() -> Ty {
    Ty::Str("string")
}

fn slice(elem: Ty) -> Ty {
    let name = format!("[]{}", elem.go_name());
    Ty::Slice { elem: Box::new(elem), name }
}

fn map(elem: Ty) -> Ty {
    let name = format!("map[string]{}", elem.go_name());
    Ty::Map { elem: Box::new(elem), name }
}

fn ptr(elem: Ty) -> Ty {
    Ty::Ptr(Box::new(elem))
}

fn structure(package: &'static str, name: &'static str, fields: Vec<(&'static str, Ty)>) -> Ty {
    Ty::Struct(Struct { name, package, fields })
}

/// `metav1.Status` (k8s.io/apimachinery/pkg/apis/meta/v1/types.go), `TypeMeta` embedded.
fn status() -> Ty {
    let cause =
        structure("v1", "StatusCause", vec![("reason", s("v1.CauseType")), ("message", string()), ("field", string())]);
    let details = structure(
        "v1",
        "StatusDetails",
        vec![
            ("name", string()),
            ("group", string()),
            ("kind", string()),
            ("uid", s("types.UID")),
            ("causes", slice(cause)),
            ("retryAfterSeconds", Ty::Int { name: "int32", bits: 32 }),
        ],
    );
    let list_meta = structure(
        "v1",
        "ListMeta",
        vec![
            ("selfLink", string()),
            ("resourceVersion", string()),
            ("continue", string()),
            ("remainingItemCount", ptr(Ty::Int { name: "int64", bits: 64 })),
        ],
    );
    structure(
        "v1",
        "Status",
        vec![
            ("kind", string()),
            ("apiVersion", string()),
            ("metadata", list_meta),
            ("status", string()),
            ("message", string()),
            ("reason", s("v1.StatusReason")),
            ("details", ptr(details)),
            ("code", Ty::Int { name: "int32", bits: 32 }),
        ],
    )
}

/// `AdmissionRequest` (k8s.io/api/admission/<version>/types.go): an echoed request is decoded too.
fn request(package: &'static str) -> Ty {
    let gvk =
        || structure("v1", "GroupVersionKind", vec![("group", string()), ("version", string()), ("kind", string())]);
    let gvr = || {
        structure(
            "v1",
            "GroupVersionResource",
            vec![("group", string()), ("version", string()), ("resource", string())],
        )
    };
    let extra = Ty::Slice { elem: Box::new(string()), name: "v1.ExtraValue".into() };
    let user = structure(
        "v1",
        "UserInfo",
        vec![("username", string()), ("uid", string()), ("groups", slice(string())), ("extra", map(extra))],
    );
    let operation: &'static str = if package == "v1" { "v1.Operation" } else { "v1beta1.Operation" };
    structure(
        package,
        "AdmissionRequest",
        vec![
            ("uid", s("types.UID")),
            ("kind", gvk()),
            ("resource", gvr()),
            ("subResource", string()),
            ("requestKind", ptr(gvk())),
            ("requestResource", ptr(gvr())),
            ("requestSubResource", string()),
            ("name", string()),
            ("namespace", string()),
            ("operation", s(operation)),
            ("userInfo", user),
            ("object", Ty::Raw),
            ("oldObject", Ty::Raw),
            ("dryRun", ptr(Ty::Bool)),
            ("options", Ty::Raw),
        ],
    )
}

/// `AdmissionResponse` (k8s.io/api/admission/<version>/types.go).
fn response(package: &'static str) -> Ty {
    let patch_type: &'static str = if package == "v1" { "v1.PatchType" } else { "v1beta1.PatchType" };
    structure(
        package,
        "AdmissionResponse",
        vec![
            ("uid", s("types.UID")),
            ("allowed", Ty::Bool),
            ("status", ptr(status())),
            ("patch", Ty::Bytes),
            ("patchType", ptr(s(patch_type))),
            ("auditAnnotations", map(string())),
            ("warnings", slice(string())),
        ],
    )
}

fn review(package: &'static str) -> Ty {
    structure(
        package,
        "AdmissionReview",
        vec![
            ("kind", string()),
            ("apiVersion", string()),
            ("request", ptr(request(package))),
            ("response", ptr(response(package))),
        ],
    )
}

/// The `AdmissionReview` type of `version`.
pub(crate) fn admission_review(version: ReviewVersion) -> &'static Ty {
    static V1: OnceLock<Ty> = OnceLock::new();
    static V1BETA1: OnceLock<Ty> = OnceLock::new();
    match version {
        ReviewVersion::V1 => V1.get_or_init(|| review("v1")),
        ReviewVersion::V1beta1 => V1BETA1.get_or_init(|| review("v1beta1")),
    }
}
