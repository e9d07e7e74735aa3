//! JSON Patch exactly as the kube-apiserver applies a mutating admission webhook's patch.
//!
//! A mutating webhook answers with `response.patch`, a JSON Patch (RFC 6902) carried in a Go
//! `[]byte` field. The apiserver (`mutating/dispatcher.go`) decodes the field with Go's
//! `encoding/json`, decodes the bytes with `jsonpatch.DecodePatch` and applies them with
//! `Patch.Apply` from the vendored library **gopkg.in/evanphx/json-patch.v4 v4.13.0**, with
//! negative array indices enabled (the library default) and the accumulated size of `copy`
//! operations limited to 3 MiB. This crate reproduces those three steps, down to Go's error texts,
//! so that a conformance suite can predict what an apiserver will do with a webhook's answer:
//!
//! - [`decode_patch_field`]: the field (base64 string, `null`, or array of byte values);
//! - [`decode_patch`]: the bytes into a [`Patch`];
//! - [`apply`] / [`apply_json`]: the patch onto the object;
//! - [`leniencies`]: which parts of a patch only work because v4 is lenient;
//! - [`apply_noting_leniencies`]: both at once, the document loaded and patched once.
//!
//! # Why not just RFC 6902
//!
//! v4 accepts patches that RFC 6902 rejects, and the apiserver with it, so a webhook can "work"
//! against Kubernetes while being wrong by the standard:
//!
//! - `replace` of a missing object member adds it; `copy` from a missing member copies `null`;
//! - `add`/`replace` without a `value` member write `null`; `test` of a missing member against
//!   `null` (or without `value`) passes;
//! - array indices may be negative (`-1` is the last element, or "append" for `add`), may have
//!   leading zeros (`01`) or a `+` sign;
//! - the text before the first `/` of a pointer is ignored, and `~` not followed by `0`/`1`
//!   is kept literally;
//! - unknown members are ignored, duplicate members resolve to the last one.
//!
//! It is also stricter or simply different in places:
//!
//! - `test` compares scalars by their JSON text: `1` and `1.0` differ, as do `"A"` and
//!   `"\u0041"`; the apiserver writes strings with Go's HTML escaping (`<` as `\u003c`), so a
//!   `test` of a string containing `<`, `>` or `&` only passes when the patch spells it that way;
//! - `add` or `remove` at the root `""` fails, `replace` of `""` needs an object or array;
//! - the document is decoded lazily: JSON `null` members are nil and cannot be walked through,
//!   and a few combinations (a `test` of arrays holding `null`, an `add` into a value copied from
//!   a `null` added by the patch) make the Go code panic, reported as [`ApplyError::Panic`].
//!
//! The ground truth for all of this is the vector file `vectors/jsonpatch-v4.json` of this crate:
//! what the library itself (v4.13.0, as vendored by kube-apiserver v1.36) did with each patch and
//! each `response.patch` field (see `vectors/README.md`). The integration tests replay it in full.
//!
//! # Numbers
//!
//! The library keeps every value as raw JSON text until it must look inside, and never
//! re-formats a number. [`apply`] therefore hands it the document with serde_json's number text
//! (`1.0` for a float one) and reads the result back with serde_json, so a float stays a float.
//! For byte-exact input and output use [`apply_json`].

#![warn(unreachable_pub)]

mod apply;
mod decode;
mod error;
mod field;
mod gojson;
pub mod leniency;
mod node;
mod pointer;

pub use apply::{apply, apply_json, ACCUMULATED_COPY_SIZE_LIMIT};
pub use decode::{decode_patch, Patch, RawOperation};
pub use error::{ApplyError, DecodeError, Error, FieldError, Stage};
pub use field::{decode_patch_field, FieldForm, PatchBytes};
pub use leniency::{apply_noting_leniencies, leniencies, Leniency};

pub mod go_json {
    //! The pieces of Go's `encoding/json` (and `encoding/base64`) the apiserver's JSON decoding rests
    //! on, reproduced on raw bytes, for other readers of what an apiserver reads: the scanner's
    //! syntax check with Go's messages and its nesting limit ([`validate`]), string unquoting with
    //! invalid UTF-8 and unpaired surrogates replaced by U+FFFD ([`unquote`]), and slicing of valid
    //! JSON into members and elements without building values (so nesting depth costs no stack).
    //!
    //! Everything except [`validate`] assumes its input has already been validated.

    pub use crate::field::go_base64_decode as decode_base64;
    pub use crate::gojson::{
        array_elements, decode_rune, go_quote, is_space, kind_name, object_members, quote_char, skip_space, top_value,
        unquote, validate, value_end, SyntaxError,
    };
}

/// Decode `patch` with [`decode_patch`], then [`apply`] it to `doc`.
pub fn apply_bytes(doc: &serde_json::Value, patch: &[u8]) -> Result<serde_json::Value, Error> {
    let patch = decode_patch(patch)?;
    Ok(apply(doc, &patch)?)
}
