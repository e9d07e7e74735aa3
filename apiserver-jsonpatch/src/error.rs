//! Error types. Every `Display` text is the text the Go code produces for the same input, so that
//! a caller can compare it with what a kube-apiserver reports.

/// Which step of the apiserver's handling of `response.patch` failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `jsonpatch.DecodePatch` (Go's `json.Unmarshal` into `jsonpatch.Patch`).
    Decode,
    /// `Patch.Apply` on the object's JSON.
    Apply,
}

impl Stage {
    /// `"decode"` or `"apply"`, the spelling used by the vector file.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Decode => "decode",
            Stage::Apply => "apply",
        }
    }
}

/// The `patch` field of an AdmissionResponse could not be decoded into a Go `[]byte`.
///
/// The texts are those of Go's `encoding/json` (as used to build the vectors) decoding a struct
/// whose field `patch` is a `[]byte`. A real apiserver prints the same cause; see [`FieldError::cause`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// The string is not standard, padded base64 (`\r` and `\n` are skipped). `offset` counts bytes
    /// of the string, newlines included, as Go's `base64.CorruptInputError` does.
    #[error("json: cannot unmarshal string into Go struct field .patch of type []uint8: illegal base64 data at input byte {offset}")]
    Base64 {
        /// The byte of the string where the base64 breaks.
        offset: usize,
    },
    /// The field is a JSON number, boolean or object.
    #[error("json: cannot unmarshal {kind} into Go struct field .patch of type []uint8")]
    WrongType {
        /// The JSON kind found (`number`, `bool`, `object`).
        kind: &'static str,
    },
    /// The field is an array, but element `index` is not an integer 0..=255 (or null).
    /// `value` is `number <text>` for numbers, else the JSON kind.
    #[error("json: cannot unmarshal {value} into .patch.{index} of type uint8")]
    Element {
        /// The element's index.
        index: usize,
        /// What it is (`number <text>`, or the JSON kind).
        value: String,
    },
}

impl FieldError {
    /// The underlying cause alone, e.g. `illegal base64 data at input byte 75`: what a kube-apiserver
    /// prints after `failed to call webhook: ` for a base64 error. `None` for type errors.
    pub fn cause(&self) -> Option<String> {
        match self {
            FieldError::Base64 { offset } => Some(format!("illegal base64 data at input byte {offset}")),
            _ => None,
        }
    }
}

/// The patch bytes are not a JSON Patch document for `jsonpatch.DecodePatch`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON at all (Go `*json.SyntaxError`; `offset` is the number of bytes read).
    #[error("{message}")]
    Syntax {
        /// Go's message.
        message: String,
        /// Bytes read before the error.
        offset: usize,
    },
    /// JSON of the wrong shape, e.g.
    /// `json: cannot unmarshal object into Go value of type jsonpatch.Patch`.
    #[error("{message}")]
    Type {
        /// Go's message.
        message: String,
    },
}

/// Applying a decoded patch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// Operation `index` (0-based) returned an error; `message` is the library's text.
    #[error("{message}")]
    Operation {
        /// The operation's index (0-based).
        index: usize,
        /// The library's text.
        message: String,
    },
    /// The `copy` operations of the patch together copied more than the apiserver's limit (3 MiB).
    #[error("Unable to complete the copy, the accumulated size increase of copy is {accumulated}, exceeding the limit {limit}")]
    CopySizeLimit {
        /// The operation that went past the limit.
        index: usize,
        /// The bytes the copies added so far.
        accumulated: i64,
        /// The apiserver's limit.
        limit: i64,
    },
    /// Operation `index` makes the Go library panic (for example a `test` comparing arrays that
    /// hold `null`, or an `add` into a value that was copied from a `null`). A kube-apiserver
    /// recovers the panic and fails the request with an internal error; `message` is Go's runtime
    /// error text.
    #[error("panic: {message}")]
    Panic {
        /// The operation that panics.
        index: usize,
        /// Go's runtime error text.
        message: String,
    },
    /// The document itself is not a JSON object or array (only reachable with [`crate::apply_json`]
    /// or a non-object document).
    #[error("{message}")]
    Document {
        /// The library's text.
        message: String,
    },
    /// The patch applied, but the result holds a number that `serde_json::Value` cannot hold
    /// (e.g. `1e400`). Use [`crate::apply_json`] to get Go's bytes instead.
    #[error("the patched document holds the number {number}, which serde_json cannot represent")]
    Unrepresentable {
        /// The number as written.
        number: String,
    },
}

impl ApplyError {
    /// The 0-based index of the operation that failed, when one did.
    pub fn op_index(&self) -> Option<usize> {
        match self {
            ApplyError::Operation { index, .. }
            | ApplyError::CopySizeLimit { index, .. }
            | ApplyError::Panic { index, .. } => Some(*index),
            ApplyError::Document { .. } | ApplyError::Unrepresentable { .. } => None,
        }
    }
}

/// Either stage's error, for [`crate::apply_bytes`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The patch did not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The patch did not apply.
    #[error(transparent)]
    Apply(#[from] ApplyError),
}

impl Error {
    /// The stage that failed.
    pub fn stage(&self) -> Stage {
        match self {
            Error::Decode(_) => Stage::Decode,
            Error::Apply(_) => Stage::Apply,
        }
    }
}
