//! The `resource.Quantity` fields of a built-in kind's object, found by decoding the object with its
//! k8s-openapi type (whose `Quantity` asks the decoder for the newtype struct `"Quantity"`) and
//! refused as the apiserver's decoder refuses them: `Quantity.UnmarshalJSON` runs `ParseQuantity`
//! on the trimmed string (k8s.io/apimachinery/pkg/api/resource/quantity.go), while k8s-openapi's
//! `Quantity` keeps any string.

use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// A decode error, with the path of the field it was raised at when it is a quantity's.
#[derive(Debug)]
pub(crate) struct WalkError {
    /// Path segments, innermost first.
    path: Vec<String>,
    message: String,
    quantity: bool,
}

impl WalkError {
    fn at(mut self, segment: String) -> WalkError {
        self.path.push(segment);
        self
    }

    /// Whether the error is a quantity that `ParseQuantity` refuses.
    pub(crate) fn is_quantity(&self) -> bool {
        self.quantity
    }
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut path = String::new();
        for segment in self.path.iter().rev() {
            if !segment.starts_with('[') && !path.is_empty() {
                path.push('.');
            }
            path.push_str(segment);
        }
        if path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{path}: {}", self.message)
        }
    }
}

impl std::error::Error for WalkError {}

impl de::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError { path: Vec::new(), message: msg.to_string(), quantity: false }
    }
}

/// Whether `value` decodes as `T`, refusing every Quantity-typed field whose string `ParseQuantity`
/// refuses. What a `FieldsV1` holds is not copied: any JSON decodes as one (Go's
/// `FieldsV1.UnmarshalJSON` keeps the bytes as they are, k8s-openapi's holds any
/// `serde_json::Value`), so the decoded value, which would lack it, is not returned.
pub(crate) fn decode<T: DeserializeOwned>(value: &Value) -> Result<(), WalkError> {
    T::deserialize(Walk(value)).map(drop)
}

struct Walk<'a>(&'a Value);

impl<'de> Deserializer<'de> for Walk<'de> {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visitor.visit_seq(Items { items: items.iter().enumerate() }),
            Value::Object(map) => visitor.visit_map(Members { members: map.iter(), pending: None }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        if name == "FieldsV1" {
            return visitor.visit_newtype_struct(Walk(&Value::Null));
        }
        if name == "Quantity" {
            if let Value::String(s) = self.0 {
                if let Err(e) = apiserver_validation::quantity::accepts(s) {
                    return Err(WalkError { path: Vec::new(), message: e.to_string(), quantity: true });
                }
            }
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.0.deserialize_enum(name, variants, visitor).map_err(de::Error::custom)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct Items<'a> {
    items: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = WalkError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, WalkError> {
        match self.items.next() {
            None => Ok(None),
            Some((i, item)) => seed.deserialize(Walk(item)).map(Some).map_err(|e| e.at(format!("[{i}]"))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Members<'a> {
    members: serde_json::map::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = WalkError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, WalkError> {
        match self.members.next() {
            None => Ok(None),
            Some((key, value)) => {
                self.pending = Some((key, value));
                seed.deserialize(BorrowedStrDeserializer::new(key)).map(Some)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, WalkError> {
        let (key, value) = self.pending.take().ok_or_else(|| de::Error::custom("a value without its key"))?;
        seed.deserialize(Walk(value)).map_err(|e| e.at(key.to_string()))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::{LimitRange, PersistentVolumeClaim, Pod, ResourceQuota};
    use serde_json::json;

    use super::*;

    const FORMAT: &str = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

    #[test]
    fn refuses_the_quantities_parse_quantity_refuses_wherever_the_type_has_one() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "a", "image": "i"},
                           {"name": "b", "image": "i", "resources": {"limits": {"cpu": "lots"}}}]}});
        let e = decode::<Pod>(&pod).unwrap_err();
        assert!(e.is_quantity());
        assert_eq!(e.to_string(), format!("spec.containers[1].resources.limits.cpu: {FORMAT}"));

        let cases = [
            (
                json!({"spec": {"overhead": {"memory": "1ki"}}}),
                "spec.overhead.memory: unable to parse quantity's suffix",
            ),
            (
                json!({"spec": {"containers": [], "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "Ei"}}]}}),
                "spec.volumes[0].emptyDir.sizeLimit: unable to parse numeric part of quantity",
            ),
            (
                json!({"spec": {"containers": [], "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1 m"}}}]}}),
                "spec.initContainers[0].resources.requests.cpu",
            ),
        ];
        for (object, wanted) in cases {
            let e = decode::<Pod>(&object).unwrap_err();
            assert!(e.is_quantity() && e.to_string().starts_with(wanted), "{e}");
        }
        let quota = json!({"spec": {"hard": {"pods": "ten"}}});
        assert!(decode::<ResourceQuota>(&quota).unwrap_err().to_string().starts_with("spec.hard.pods: "));
        let limits = json!({"spec": {"limits": [{"type": "Container", "max": {"cpu": "x"}}]}});
        assert!(decode::<LimitRange>(&limits).unwrap_err().to_string().starts_with("spec.limits[0].max.cpu: "));
        let pvc = json!({"spec": {"resources": {"requests": {"storage": "1GB"}}}});
        assert!(decode::<PersistentVolumeClaim>(&pvc).unwrap_err().is_quantity());
    }

    #[test]
    fn accepts_what_go_accepts_and_strings_that_are_not_quantities() {
        let pod = json!({"metadata": {"name": "lots", "labels": {"cpu": "lots"}}, "spec": {"containers": [
            {"name": "a", "image": "i", "env": [{"name": "CPU", "value": "lots"}],
             "resources": {"limits": {"cpu": "1.G", "memory": 5}, "requests": {"cpu": " 100m "}}}]}});
        assert!(decode::<Pod>(&pod).is_ok());
    }

    #[test]
    fn a_fields_v1_decodes_whatever_it_holds_and_the_rest_of_its_entry_is_decoded() {
        let held =
            [json!({"f:metadata": {"f:labels": {".": {}, "f:cpu": {}}}}), json!([1, "x"]), json!("lots"), json!(3)];
        for fields in held {
            let pod = json!({"metadata": {"managedFields": [{"manager": "m", "fieldsType": "FieldsV1", "fieldsV1": fields}]}});
            assert!(decode::<Pod>(&pod).is_ok(), "{pod}");
        }
        let pod = json!({"metadata": {"managedFields": [{"manager": 1, "fieldsV1": {"f:spec": {}}}]}});
        assert!(decode::<Pod>(&pod).unwrap_err().to_string().starts_with("metadata.managedFields[0].manager: "));
    }

    #[test]
    fn other_errors_are_not_quantity_errors() {
        let pod = json!({"metadata": {"annotations": {"a": 1}}});
        let e = decode::<Pod>(&pod).unwrap_err();
        assert!(!e.is_quantity(), "{e}");
    }
}
