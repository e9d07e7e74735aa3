//! The tolerations annotation (`scheduler.alpha.kubernetes.io/tolerations`) as kubernetes/kubernetes
//! `pkg/apis/core/helper/helpers.go` `GetTolerationsFromPodAnnotations` decodes it:
//! `encoding/json` into `[]core.Toleration`. The text is read member by member, repeats
//! included, so that Go's rules hold: a member name matches a field case-insensitively, a later
//! member overwrites an earlier one, `null` leaves a string field as it was and sets
//! `tolerationSeconds` to nil, a `null` item is a zero toleration, unknown members are ignored.
//! Any text Go's decoder refuses (a wrong type, a number that is not an int64, not JSON) is one
//! this model does not judge: Go's refusal carries `encoding/json`'s own error text. So is a
//! member name with a non-ASCII character (Go folds some of those onto field names too).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// `core.TolerationsAnnotationKey`.
pub const TOLERATIONS_ANNOTATION: &str = "scheduler.alpha.kubernetes.io/tolerations";

/// The JSON names of `core.Toleration`'s fields.
const FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];

/// An object's members in the order of the text, repeats kept.
struct Members(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut members = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    members.push(entry);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// The tolerations Go decodes from the annotation's text, each as an object holding its set fields
/// under their JSON names (what [`crate::scheduling::validate_tolerations`] reads); `None` for a
/// text this model does not judge (see the module's docs).
pub fn decode(text: &str) -> Option<Vec<Value>> {
    let items: Option<Vec<Option<Members>>> = serde_json::from_str(text).ok()?;
    items.unwrap_or_default().into_iter().map(|item| toleration(item.unwrap_or(Members(Vec::new())))).collect()
}

fn toleration(members: Members) -> Option<Value> {
    let mut out = Map::new();
    for (name, value) in members.0 {
        if !name.is_ascii() {
            return None;
        }
        let Some(field) = FIELDS.iter().find(|f| f.eq_ignore_ascii_case(&name)) else { continue };
        match (*field, value) {
            ("tolerationSeconds", Value::Null) => {
                out.shift_remove("tolerationSeconds");
            }
            ("tolerationSeconds", Value::Number(n)) => {
                out.insert((*field).into(), Value::from(n.as_i64()?));
            }
            (_, Value::Null) => {}
            (f, Value::String(s)) if f != "tolerationSeconds" => {
                out.insert(f.into(), Value::String(s));
            }
            _ => return None,
        }
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_as_go_decodes_into_tolerations() {
        assert_eq!(decode("null"), Some(vec![]));
        assert_eq!(decode(" [] "), Some(vec![]));
        assert_eq!(decode("[null]"), Some(vec![json!({})]));
        assert_eq!(
            decode(
                r#"[{"key": "k", "Operator": "Equal", "VALUE": "v", "effect": "NoExecute", "tolerationSeconds": 30, "other": 1}]"#
            ),
            Some(vec![
                json!({"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute", "tolerationSeconds": 30})
            ])
        );
        // Later members overwrite earlier ones; null keeps a string and clears the pointer.
        assert_eq!(
            decode(r#"[{"key": "a", "Key": "b", "key": null, "tolerationSeconds": 5, "tolerationseconds": null}]"#),
            Some(vec![json!({"key": "b"})])
        );
        // What Go's decoder refuses, and names Go may fold that this model does not.
        for refused in [
            "",
            "{}",
            r#""[]""#,
            "[1]",
            r#"[{"key": 1}]"#,
            r#"[{"key": 1, "key": "a"}]"#,
            r#"[{"tolerationSeconds": 1.5}]"#,
            r#"[{"tolerationSeconds": "5"}]"#,
            r#"[{"tolerationSeconds": 9223372036854775808}]"#,
            "[] []",
            r#"[{"\u212aey": "k"}]"#,
        ] {
            assert_eq!(decode(refused), None, "{refused}");
        }
    }
}
