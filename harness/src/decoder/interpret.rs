//! The first look the apiserver's JSON serializer takes at a body: `SimpleMetaFactory.Interpret`
//! (`k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go`) decodes it with the standard library's
//! `encoding/json` into `struct { APIVersion string; Kind string }`, which matches keys
//! case-insensitively (`"Kind"`, `"KIND"`, even `"\u212Aind"` with a Kelvin sign all set `Kind`);
//! `schema.ParseGroupVersion` then splits the apiVersion, and `gvkWithDefaults`
//! (`serializer/json/json.go`) fills what is missing from the type the apiserver decodes into.

use apiserver_jsonpatch::go_json::{object_members, unquote};

use crate::admission::ReviewVersion;

/// apiVersion and kind as a body states them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TypeMeta {
    /// `apiVersion`, empty when absent.
    pub api_version: String,
    /// `kind`, empty when absent.
    pub kind: String,
}

/// The anonymous struct `Interpret` decodes into, as Go prints its type.
const FIND_KIND: &str =
    r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

/// Go's case folding of a JSON key for matching a struct field (`foldName`): ASCII letters fold to
/// upper case, and the two non-ASCII letters that fold onto ASCII ones (KELVIN SIGN to `K`, LATIN
/// SMALL LETTER LONG S to `S`) with them.
fn fold(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            '\u{212A}' => 'K',
            '\u{17F}' => 'S',
            c => c.to_ascii_uppercase(),
        })
        .collect()
}

/// Why `Interpret` cannot read apiVersion and kind: the `*json.UnmarshalTypeError` `encoding/json`
/// returns, worded as Go words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum InterpretError {
    /// The top-level value is not an object (`found`: `array`, `string`, `number`, `bool`).
    #[error("json: cannot unmarshal {found} into Go value of type {}", FIND_KIND)]
    NotAnObject {
        /// What the value is, in Go's words.
        found: &'static str,
    },
    /// `apiVersion` or `kind` is not a string.
    #[error("json: cannot unmarshal {found} into Go struct field .{field} of type string")]
    NotAString {
        /// `apiVersion` or `kind`.
        field: &'static str,
        /// What the value is, in Go's words.
        found: &'static str,
    },
}

/// `schema.ParseGroupVersion`'s error: an apiVersion with more than one `/`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unexpected GroupVersion string: {0}")]
pub(crate) struct ParseGroupVersionError(pub String);

/// Why the apiserver has no AdmissionReview type to decode an answer into.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SelectError {
    /// The apiVersion does not parse.
    #[error(transparent)]
    GroupVersion(#[from] ParseGroupVersionError),
    /// The scheme has no type for this group, version and kind (`runtime.notRegisteredErr`).
    #[error("no kind {kind:?} is registered for version {group_version:?} in scheme")]
    NotRegistered {
        /// The kind.
        kind: String,
        /// The group and version, `group/version`.
        group_version: String,
    },
}

/// `Interpret` on the (valid) top-level value `top`: apiVersion and kind, or the
/// `encoding/json` error it stops at.
pub(crate) fn interpret(top: &[u8]) -> Result<TypeMeta, InterpretError> {
    match top.first() {
        Some(b'{') => {}
        Some(b'n') | None => return Ok(TypeMeta::default()),
        Some(_) => return Err(InterpretError::NotAnObject { found: super::typed::what(top) }),
    }
    let mut meta = TypeMeta::default();
    let mut first_error = None;
    let (api_version, kind) = (fold("apiVersion"), fold("kind"));
    for (key, value) in object_members(top) {
        let key = fold(&unquote(key));
        let (name, slot) = if key == api_version {
            ("apiVersion", &mut meta.api_version)
        } else if key == kind {
            ("kind", &mut meta.kind)
        } else {
            continue;
        };
        match value.first() {
            Some(b'"') => *slot = unquote(value),
            Some(b'n') => {}
            _ => {
                first_error.get_or_insert(InterpretError::NotAString { field: name, found: super::typed::what(value) });
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(meta),
    }
}

/// A group, version and kind, printed as `schema.GroupVersionKind.String()` does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SchemaGvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl SchemaGvk {
    /// `schema.ParseGroupVersion`: `""` and `"/"` are empty, no `/` is a version, one `/` separates
    /// group and version, more is an error.
    pub(crate) fn parse(api_version: &str, kind: &str) -> Result<SchemaGvk, ParseGroupVersionError> {
        let kind = kind.to_string();
        if api_version.is_empty() || api_version == "/" {
            return Ok(SchemaGvk { kind, ..SchemaGvk::default() });
        }
        match api_version.matches('/').count() {
            0 => Ok(SchemaGvk { version: api_version.to_string(), kind, ..SchemaGvk::default() }),
            1 => {
                let (group, version) = api_version.split_once('/').unwrap_or_default();
                Ok(SchemaGvk { group: group.to_string(), version: version.to_string(), kind })
            }
            _ => Err(ParseGroupVersionError(api_version.to_string())),
        }
    }

    /// `schema.FromAPIVersionAndKind`: what `VerifyAdmissionResponse` compares (an apiVersion that
    /// does not parse leaves group and version empty).
    pub(crate) fn of(meta: &TypeMeta) -> SchemaGvk {
        SchemaGvk::parse(&meta.api_version, &meta.kind)
            .unwrap_or(SchemaGvk { kind: meta.kind.clone(), ..SchemaGvk::default() })
    }

    /// `gvkWithDefaults`: a missing kind, or group and version, come from the type decoded into.
    pub(crate) fn with_defaults(mut self, sent: ReviewVersion) -> SchemaGvk {
        if self.kind.is_empty() {
            self.kind = "AdmissionReview".into();
        }
        if self.version.is_empty() && (self.group.is_empty() || self.group == "admission.k8s.io") {
            self.group = "admission.k8s.io".into();
            self.version = sent.as_str().into();
        }
        self
    }

    /// `schema.GroupVersion.String()`: `group/version`, or the version alone without a group.
    pub(crate) fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The AdmissionReview version this names, if it names one the apiserver's scheme registers.
    pub(crate) fn review_version(&self) -> Option<ReviewVersion> {
        if self.group != "admission.k8s.io" || self.kind != "AdmissionReview" {
            return None;
        }
        ReviewVersion::parse(&self.version)
    }
}

impl std::fmt::Display for SchemaGvk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}
