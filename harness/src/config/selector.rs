//! Label selectors (`metav1.LabelSelector`): matchLabels and matchExpressions, as the apiserver reads
//! a webhook's namespaceSelector and objectSelector (`apimachinery/pkg/apis/meta/v1/helpers.go`,
//! LabelSelectorAsSelector). One implementation serves the manifest lint and the requests.

use serde_json::{Map, Value};

/// The label every namespace carries with its own name.
pub(crate) const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed metav1.LabelSelector. `None` from [`LabelSelector::parse`] for an empty selector (it
/// selects everything).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LabelSelector {
    requirements: Vec<Requirement>,
}

/// Why a label selector does not parse (`metav1.LabelSelectorAsSelector`'s refusals).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SelectorError {
    /// A `matchLabels` value that is not a string.
    #[error("matchLabels.{0} is not a string")]
    NotAString(String),
    /// A `matchExpressions` entry without `key`.
    #[error("a matchExpression has no key")]
    NoKey,
    /// An operator the apiserver does not know.
    #[error("matchExpressions operator {0:?} is not In, NotIn, Exists or DoesNotExist")]
    Operator(Option<String>),
}

impl LabelSelector {
    /// Parse a selector; `Ok(None)` for an absent or empty one (it selects everything), an error
    /// for an operator the apiserver does not know.
    pub(crate) fn parse(value: Option<&Value>) -> Result<Option<LabelSelector>, SelectorError> {
        let Some(value) = value.filter(|v| !v.is_null()) else { return Ok(None) };
        let mut requirements = Vec::new();
        if let Some(labels) = value.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in labels {
                let v = v.as_str().ok_or_else(|| SelectorError::NotAString(k.clone()))?;
                requirements.push(Requirement::In(k.clone(), vec![v.to_string()]));
            }
        }
        for e in value.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
            let key = e.get("key").and_then(Value::as_str).ok_or(SelectorError::NoKey)?.to_string();
            let values: Vec<String> = e
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            requirements.push(match e.get("operator").and_then(Value::as_str) {
                Some("In") => Requirement::In(key, values),
                Some("NotIn") => Requirement::NotIn(key, values),
                Some("Exists") => Requirement::Exists(key),
                Some("DoesNotExist") => Requirement::DoesNotExist(key),
                other => return Err(SelectorError::Operator(other.map(str::to_string))),
            });
        }
        Ok((!requirements.is_empty()).then_some(LabelSelector { requirements }))
    }

    /// Does the selector select these labels?
    pub(crate) fn matches(&self, labels: &Map<String, Value>) -> bool {
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.requirements.iter().all(|r| match r {
            Requirement::In(k, vs) => get(k).is_some_and(|v| vs.iter().any(|x| x == v)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|v| !vs.iter().any(|x| x == v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }

    /// Change `labels` as little as needed so that the selector selects them (it may still not, when
    /// requirements contradict each other).
    pub(crate) fn satisfy(&self, labels: &mut Map<String, Value>) {
        for r in &self.requirements {
            match r {
                Requirement::In(k, vs) => {
                    let ok = labels.get(k).and_then(Value::as_str).is_some_and(|v| vs.iter().any(|x| x == v));
                    if !ok {
                        if let Some(first) = vs.first() {
                            labels.insert(k.clone(), Value::String(first.clone()));
                        }
                    }
                }
                Requirement::NotIn(k, vs) => {
                    if labels.get(k).and_then(Value::as_str).is_some_and(|v| vs.iter().any(|x| x == v)) {
                        labels.remove(k);
                    }
                }
                Requirement::Exists(k) => {
                    if !labels.contains_key(k) {
                        labels.insert(k.clone(), Value::String("conformance".into()));
                    }
                }
                Requirement::DoesNotExist(k) => {
                    labels.remove(k);
                }
            }
        }
    }

    /// The values an In requirement on `key` allows, if any.
    pub(crate) fn allowed_values(&self, key: &str) -> Option<&[String]> {
        self.requirements.iter().find_map(|r| match r {
            Requirement::In(k, vs) if k == key => Some(vs.as_slice()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn operators() {
        let s = LabelSelector::parse(Some(&json!({"matchLabels": {"a": "1"}, "matchExpressions": [
            {"key": "b", "operator": "In", "values": ["x", "y"]}, {"key": "c", "operator": "NotIn", "values": ["no"]},
            {"key": "d", "operator": "Exists"}, {"key": "e", "operator": "DoesNotExist"}]})))
        .unwrap()
        .unwrap();
        let labels = |v: Value| v.as_object().unwrap().clone();
        assert!(s.matches(&labels(json!({"a": "1", "b": "y", "d": ""}))));
        assert!(!s.matches(&labels(json!({"a": "1", "b": "y", "d": "", "e": "z"}))));
        assert!(!s.matches(&labels(json!({"a": "1", "b": "y", "c": "no", "d": ""}))));
        assert!(!s.matches(&labels(json!({"a": "2", "b": "y", "d": ""}))));
        let mut l = labels(json!({"c": "no", "e": "1"}));
        s.satisfy(&mut l);
        assert!(s.matches(&l), "{l:?}");
        assert!(LabelSelector::parse(Some(&json!({}))).unwrap().is_none(), "an empty selector selects everything");
        let e = LabelSelector::parse(Some(&json!({"matchExpressions": [{"key": "a", "operator": "Gt"}]}))).unwrap_err();
        assert_eq!(e, SelectorError::Operator(Some("Gt".into())));
        assert_eq!(e.to_string(), r#"matchExpressions operator Some("Gt") is not In, NotIn, Exists or DoesNotExist"#);
    }
}
