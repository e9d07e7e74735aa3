//! A body that does not start with `{` goes to the apiserver's YAML serializer: `yaml.YAMLToJSON`
//! (`sigs.k8s.io/yaml`, over go-yaml v2: YAML 1.1, the first document of the stream), then the
//! same JSON decoding (`runtime/serializer/json/json.go`, `Decode` with `options.Yaml`).
//!
//! The suite reads YAML with serde_yaml (libyaml's parser, YAML 1.2 scalars), so where the two
//! could differ (`yes` is a boolean to go-yaml, a string here; duplicate keys; merge keys) it does
//! not claim to know: a mapping is decoded and judged, but marked unsure. What any YAML reader
//! agrees on is sure: a document that is `null` (empty, `~`, only comments) decodes to an
//! AdmissionReview without a response, and a scalar or a sequence is no object at all.
//!
//! Before any of that, one linear pass ([`yaml_shape`](super::yaml_shape)) finds what go-yaml's
//! scanner makes of the body's structure: a body nested past go-yaml's limit (10000) is refused by
//! the apiserver with go-yaml's words, and a sequence is never an AdmissionReview however deep it
//! is (its message is `Interpret`'s, or go-yaml's own when the sequence is also malformed). Only a
//! body the pass finds shallow is handed to serde_yaml, whose reader stops at 128 levels and spends
//! time proportional to the flow depth on every token.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::yaml_shape::{self, Top, MAX_DEPTH};
use super::{interpret, read_json, Framing, Reading, Rejected};
use crate::admission::ReviewVersion;

/// Why a YAML-path reading is unsure.
const UNSURE: &str = "the apiserver reads this body with its YAML decoder (it does not start with '{'), whose reading the suite reproduces only in part (go-yaml is YAML 1.1)";

/// The deepest nesting the suite reads with serde_yaml: its reader stops at 128 levels, and an
/// indentless block sequence (`key:` then `- item` at the key's column) nests a level the structure
/// pass does not count, hence half of that.
const READ_DEPTH: usize = 64;

/// Why the suite's YAML reading of a body stops: serde_yaml refuses it, or `YAMLToJSON` would.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum YamlError {
    /// serde_yaml does not read the first document.
    #[error("{0}")]
    Read(#[source] Arc<serde_yaml::Error>),
    /// A float JSON cannot hold (`json.Marshal`'s `UnsupportedValueError`).
    #[error("json: unsupported value: {0}")]
    Unsupported(f64),
    /// A mapping key that is a collection.
    #[error("yaml: invalid map key: {0}")]
    MapKey(String),
}

impl PartialEq for YamlError {
    fn eq(&self, other: &YamlError) -> bool {
        match (self, other) {
            (YamlError::Read(a), YamlError::Read(b)) => a.to_string() == b.to_string(),
            (YamlError::Unsupported(a), YamlError::Unsupported(b)) => a.to_bits() == b.to_bits(),
            (YamlError::MapKey(a), YamlError::MapKey(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for YamlError {}

/// The first YAML document of `body`, as JSON; `Null` when there is none.
fn first_document(body: &[u8]) -> Result<Value, YamlError> {
    let Some(document) = serde_yaml::Deserializer::from_slice(body).next() else { return Ok(Value::Null) };
    let value = serde_yaml::Value::deserialize(document).map_err(|e| YamlError::Read(Arc::new(e)))?;
    to_json(value)
}

/// `YAMLToJSON`'s conversion: keys become strings, integral floats integers.
fn to_json(value: serde_yaml::Value) -> Result<Value, YamlError> {
    Ok(match value {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    Value::from(f as i64)
                } else {
                    serde_json::Number::from_f64(f).map(Value::Number).ok_or(YamlError::Unsupported(f))?
                }
            }
        }
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(items) => Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?),
        serde_yaml::Value::Mapping(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let key = match k {
                    serde_yaml::Value::String(s) => s,
                    serde_yaml::Value::Bool(b) => b.to_string(),
                    serde_yaml::Value::Number(n) => n.to_string(),
                    serde_yaml::Value::Null => "null".to_string(),
                    other => return Err(YamlError::MapKey(format!("{other:?}"))),
                };
                out.insert(key, to_json(v)?);
            }
            Value::Object(out)
        }
        serde_yaml::Value::Tagged(tagged) => to_json(tagged.value)?,
    })
}

/// Read a body the apiserver hands to its YAML serializer.
pub(super) fn read(body: &[u8], sent: ReviewVersion) -> Reading {
    let reading =
        |result, unsure: Option<&str>| Reading { framing: Framing::Yaml, result, unsure: unsure.map(str::to_string) };
    let shape = yaml_shape::scan(body);
    if let Some(message) = shape.exceeded {
        return reading(Err(Rejected::TooDeep(message)), None);
    }
    if shape.top == Top::Sequence {
        let e = interpret::InterpretError::NotAnObject { found: "array" };
        return reading(Err(Rejected::NotAnObject(e)), None);
    }
    // Past where the pass stopped, every `[` and `{` may open a flow level.
    let openers = || body.iter().filter(|&&c| c == b'[' || c == b'{').count();
    if shape.depth > READ_DEPTH || (!shape.complete && openers() > READ_DEPTH) {
        let why = if shape.depth > READ_DEPTH {
            format!("it nests {} levels deep", shape.depth)
        } else {
            "part of it could be nested deeper than that".to_string()
        };
        let why = format!(
            "{why}, and the suite reads YAML only up to {READ_DEPTH} levels (go-yaml reads up to {MAX_DEPTH}, so the apiserver may decode it)"
        );
        return reading(Err(Rejected::Unread(why)), Some(UNSURE));
    }
    let value = match first_document(body) {
        Ok(v) => v,
        Err(e) => return reading(Err(Rejected::Yaml(e)), Some(UNSURE)),
    };
    let mapping = value.is_object();
    let json = serde_json::to_vec(&value).unwrap_or_default();
    match read_json(&json, sent) {
        Ok(decoded) => reading(Ok(decoded), mapping.then_some(UNSURE)),
        Err(rejected) => reading(Err(rejected), mapping.then_some(UNSURE)),
    }
}
