//! A webhook's answer body read exactly as the kube-apiserver reads it, so that the checks judge
//! what the apiserver sees rather than what another JSON parser makes of the bytes.
//!
//! The apiserver's path (`pkg/util/webhook/client.go` codec, `k8s.io/client-go/rest/request.go`
//! `Result.Into`, `k8s.io/apimachinery/pkg/runtime/serializer`):
//!
//! 1. an empty body is an error of its own (`0-length response`);
//! 2. the serializer is chosen by sniffing the body (`recognizer.go`): JSON when its first
//!    non-whitespace character (Unicode whitespace, `unicode.IsSpace`) is `{`
//!    (`util/yaml.IsJSONBuffer`), protobuf for the `k8s\x00` prefix, YAML for anything else;
//! 3. JSON: Go's scanner checks the whole body (one value, JSON whitespace around it, nesting at
//!    most 10000 deep, invalid UTF-8 allowed inside strings); `Interpret` reads apiVersion and kind
//!    case-insensitively ([`interpret`]); the group, version and kind choose the Go type; the typed
//!    decode fills it ([`typed`]), replacing invalid UTF-8 with U+FFFD per bad byte;
//! 4. YAML: `yaml.YAMLToJSON`, then the same JSON decoding ([`yaml`]). The suite's YAML reading is
//!    not the apiserver's (YAML 1.2 against go-yaml's YAML 1.1), so what it concludes there is only
//!    sure where any YAML reader agrees, and where go-yaml's scanner decides by the body's
//!    structure alone (a sequence, nesting past 10000: [`yaml_shape`]).
//!
//! Reading a body is linear in its size, whatever its nesting (`cargo bench -p webhook-harness
//! --bench read_answers`).

mod interpret;
mod schema;
mod typed;
mod yaml;
mod yaml_shape;

#[cfg(test)]
mod tests;

use apiserver_jsonpatch::go_json::{decode_rune, top_value, validate};
use apiserver_jsonpatch::{FieldError, FieldForm, PatchBytes};
use serde_json::{Map, Value};

use crate::admission::ReviewVersion;
pub(crate) use interpret::{InterpretError, SchemaGvk, SelectError, TypeMeta};
pub(crate) use typed::TypeError;
pub(crate) use yaml::YamlError;

/// Which of the apiserver's serializers takes a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Its first non-whitespace character is `{`.
    Json,
    /// Anything else that is not protobuf.
    Yaml,
    /// The `k8s\x00` prefix of the Kubernetes protobuf envelope.
    Protobuf,
}

/// Why the apiserver does not get as far as a decoded AdmissionReview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rejected {
    /// A 0-length body.
    Empty,
    /// Go's scanner rejects it (the message after `json parse error: `).
    Syntax(String),
    /// It is a scalar or an array, not an object: `Interpret`'s error.
    NotAnObject(InterpretError),
    /// Read as YAML, and the suite's YAML reader rejects it (the apiserver's likely does too: both
    /// descend from libyaml).
    Yaml(YamlError),
    /// Read as YAML, it nests collections past go-yaml's limit: go-yaml's message (`yaml:
    /// exceeded max depth of 10000`), which the apiserver reports as it is.
    TooDeep(String),
    /// Read as YAML, a mapping the suite does not read (why): the apiserver may decode it.
    Unread(String),
    /// A protobuf envelope, which the suite does not decode.
    Protobuf,
}

/// The answer as the apiserver's decoder leaves it.
#[derive(Clone, Debug)]
pub(crate) struct Decoded {
    /// apiVersion and kind as `Interpret` reads them, or its error.
    pub interpreted: Result<TypeMeta, InterpretError>,
    /// The AdmissionReview version the apiserver decodes into, or why there is none (the
    /// apiserver's message: `unexpected GroupVersion string: …`, `no kind … is registered …`).
    pub selected: Result<ReviewVersion, SelectError>,
    /// The group, version and kind after `gvkWithDefaults`, when apiVersion parsed.
    pub gvk: Option<SchemaGvk>,
    /// The decoded AdmissionReview: the fields the decode set (case-sensitive, merged, null-aware).
    pub review: Map<String, Value>,
    /// The typed decode's errors in document order (the apiserver reports the first).
    pub errors: Vec<TypeError>,
    /// `response.patch` as decoded (`None`: nil), or its first error.
    pub patch: Option<Result<PatchBytes, FieldError>>,
}

impl Decoded {
    /// The error the apiserver reports for the decode (after apiVersion and kind were read and a
    /// type chosen), if any.
    pub(crate) fn first_error(&self) -> Option<&TypeError> {
        self.errors.first()
    }

    /// apiVersion and kind as the typed decode set them (case-sensitive keys).
    pub(crate) fn type_meta(&self) -> TypeMeta {
        let text = |k: &str| self.review.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        TypeMeta { api_version: text("apiVersion"), kind: text("kind") }
    }
}

/// How the apiserver reads one answer body.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    /// Which serializer takes it.
    pub framing: Framing,
    /// The decoded answer, or why there is none.
    pub result: Result<Decoded, Rejected>,
    /// Set when the suite cannot be sure it reads the body as the apiserver does (why).
    pub unsure: Option<String>,
}

/// `util/yaml.IsJSONBuffer` and the protobuf recognizer: which serializer takes `body`.
pub(crate) fn framing(body: &[u8]) -> Framing {
    let mut i = 0;
    while let Some((c, n)) = decode_rune(&body[i..]) {
        // Rust's White_Space is Go's unicode.IsSpace.
        if !c.is_whitespace() {
            break;
        }
        i += n;
    }
    if body[i..].starts_with(b"{") {
        Framing::Json
    } else if body.starts_with(b"k8s\0") {
        Framing::Protobuf
    } else {
        Framing::Yaml
    }
}

/// Read `body`, the answer to an AdmissionReview of version `sent`, as the apiserver does.
pub(crate) fn read(body: &[u8], sent: ReviewVersion) -> Reading {
    if body.is_empty() {
        return Reading { framing: Framing::Json, result: Err(Rejected::Empty), unsure: None };
    }
    match framing(body) {
        Framing::Json => Reading { framing: Framing::Json, result: read_json(body, sent), unsure: None },
        Framing::Protobuf => Reading {
            framing: Framing::Protobuf,
            result: Err(Rejected::Protobuf),
            unsure: Some(
                "the apiserver reads a body starting with k8s\\x00 as protobuf, which the suite does not decode".into(),
            ),
        },
        Framing::Yaml => yaml::read(body, sent),
    }
}

/// The JSON serializer's decode of `body`.
pub(crate) fn read_json(body: &[u8], sent: ReviewVersion) -> Result<Decoded, Rejected> {
    validate(body).map_err(|e| Rejected::Syntax(e.message))?;
    let top = top_value(body);
    let interpreted = interpret::interpret(top);
    if let Err(e) = &interpreted {
        if !top.starts_with(b"{") {
            return Err(Rejected::NotAnObject(e.clone()));
        }
    }
    let meta = interpreted.clone().unwrap_or_default();
    let (gvk, selected) = match SchemaGvk::parse(&meta.api_version, &meta.kind) {
        Err(e) => (None, Err(SelectError::from(e))),
        Ok(gvk) => {
            let gvk = gvk.with_defaults(sent);
            let selected = gvk.review_version().ok_or_else(|| SelectError::NotRegistered {
                kind: gvk.kind.clone(),
                group_version: gvk.group_version(),
            });
            (Some(gvk), selected)
        }
    };
    // Without a registered type the apiserver decodes no further; the suite still reads the
    // body as the version sent, for the rules that look past that point.
    let version = selected.clone().unwrap_or(sent);
    let decoded = typed::decode(top, schema::admission_review(version));
    let review = match decoded.value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let patch = patch_of(&review, &decoded.errors, decoded.patch_form);
    Ok(Decoded { interpreted, selected, gvk, review, errors: decoded.errors, patch })
}

/// `response.patch`: its bytes, or its first error.
fn patch_of(
    review: &Map<String, Value>,
    errors: &[TypeError],
    form: Option<FieldForm>,
) -> Option<Result<PatchBytes, FieldError>> {
    if let Some(e) = errors.iter().find_map(|e| e.patch.clone()) {
        return Some(Err(e));
    }
    let items = review.get("response")?.get("patch")?.as_array()?;
    let bytes = items.iter().map(|b| b.as_u64().unwrap_or(0) as u8).collect();
    Some(Ok(PatchBytes { bytes, form: form.unwrap_or(FieldForm::Base64String) }))
}
