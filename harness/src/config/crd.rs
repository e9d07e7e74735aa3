//! CustomResourceDefinitions (`--crd FILE`): which custom resources exist, their scope, versions,
//! subresources and, per version, the structural schema (`openAPIV3Schema`) the apiserver holds their
//! objects to. Only `apiextensions.k8s.io/v1` is read: v1beta1 CRDs are not served since 1.22.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::documents::{decode_strict, type_error};
use super::fields::Objects;
use crate::error::ManifestError;

/// One version of a custom resource.
#[derive(Clone, Debug)]
pub struct CrdVersion {
    /// e.g. `v1`.
    pub name: String,
    /// Whether the apiserver serves it (only served versions are ever requested).
    pub served: bool,
    /// Its `openAPIV3Schema`.
    pub schema: Arc<Value>,
    /// `subresources.status` is set.
    pub status: bool,
    /// `subresources.scale` is set.
    pub scale: bool,
}

/// A CustomResourceDefinition as the suite uses it.
#[derive(Clone, Debug)]
pub struct Crd {
    /// The file it was read from.
    pub file: PathBuf,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// `spec.scope` is `Namespaced`.
    pub namespaced: bool,
    /// `spec.versions`, in order.
    pub versions: Vec<CrdVersion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawDocument {
    api_version: Option<String>,
    kind: Option<String>,
    spec: Option<RawSpec>,
    items: Option<Vec<serde_yaml::Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSpec {
    group: Option<String>,
    names: Option<RawNames>,
    scope: Option<String>,
    #[serde(default)]
    versions: Vec<RawVersion>,
}

#[derive(Deserialize)]
struct RawNames {
    plural: Option<String>,
    kind: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawVersion {
    name: Option<String>,
    #[serde(default)]
    served: bool,
    schema: Option<RawSchema>,
    subresources: Option<RawSubresources>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSchema {
    #[serde(rename = "openAPIV3Schema")]
    open_api_v3_schema: Option<Value>,
}

#[derive(Deserialize)]
struct RawSubresources {
    status: Option<Value>,
    scale: Option<Value>,
}

impl Crd {
    /// Every CustomResourceDefinition in the YAML file `path` (documents of other kinds are skipped);
    /// a file with none is an error.
    pub fn load(path: &Path) -> Result<Vec<Crd>, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|e| ManifestError {
            file: path.to_path_buf(),
            location: String::new(),
            message: format!("cannot read the CustomResourceDefinition file: {e}"),
        })?;
        Crd::parse(path, &text)
    }

    /// Parse CRD YAML; `file` names it in errors.
    pub fn parse(file: &Path, text: &str) -> Result<Vec<Crd>, ManifestError> {
        let err = |location: String, message: String| ManifestError { file: file.to_path_buf(), location, message };
        let mut out = Vec::new();
        // Fields the apiserver does not know are refused before its validation runs.
        let documents: Vec<(usize, RawDocument)> = decode_strict(file, text, Objects::CustomResourceDefinitions)?;
        for (number, doc) in documents {
            collect(file, number, doc, &mut out)?;
        }
        if out.is_empty() {
            return Err(err(String::new(), "no apiextensions.k8s.io/v1 CustomResourceDefinition found".into()));
        }
        Ok(out)
    }
}

fn collect(file: &Path, doc_number: usize, doc: RawDocument, out: &mut Vec<Crd>) -> Result<(), ManifestError> {
    let err = |location: String, message: String| ManifestError { file: file.to_path_buf(), location, message };
    let kind = doc.kind.unwrap_or_default();
    if kind.ends_with("List") {
        for (i, item) in doc.items.unwrap_or_default().into_iter().enumerate() {
            let raw: RawDocument = serde_path_to_error::deserialize(item).map_err(|e| {
                let (path, message) = type_error(e);
                let path = path.map(|p| format!(".{p}")).unwrap_or_default();
                err(format!("document {doc_number}, items[{i}]{path}"), message)
            })?;
            collect(file, doc_number, raw, out)?;
        }
        return Ok(());
    }
    if kind != "CustomResourceDefinition" {
        return Ok(());
    }
    let at = |field: &str| format!("document {doc_number} (CustomResourceDefinition), {field}");
    match doc.api_version.as_deref() {
        Some("apiextensions.k8s.io/v1") => {}
        other => {
            return Err(err(
                at("apiVersion"),
                format!("{other:?}: only apiextensions.k8s.io/v1 is served (v1beta1 was removed in 1.22)"),
            ))
        }
    }
    let spec = doc.spec.ok_or_else(|| err(at("spec"), "required".into()))?;
    let group = spec.group.filter(|g| !g.is_empty()).ok_or_else(|| err(at("spec.group"), "required".into()))?;
    let names = spec.names.ok_or_else(|| err(at("spec.names"), "required".into()))?;
    let plural =
        names.plural.filter(|p| !p.is_empty()).ok_or_else(|| err(at("spec.names.plural"), "required".into()))?;
    let kind = names.kind.filter(|k| !k.is_empty()).ok_or_else(|| err(at("spec.names.kind"), "required".into()))?;
    let namespaced = match spec.scope.as_deref() {
        Some("Namespaced") => true,
        Some("Cluster") => false,
        other => return Err(err(at("spec.scope"), format!("{other:?}: expected Namespaced or Cluster"))),
    };
    if spec.versions.is_empty() {
        return Err(err(at("spec.versions"), "required: at least one version".into()));
    }
    let mut versions = Vec::new();
    for (i, v) in spec.versions.into_iter().enumerate() {
        let field = |f: &str| at(&format!("spec.versions[{i}].{f}"));
        let name = v.name.filter(|n| !n.is_empty()).ok_or_else(|| err(field("name"), "required".into()))?;
        let schema = v
            .schema
            .and_then(|s| s.open_api_v3_schema)
            .ok_or_else(|| err(field("schema.openAPIV3Schema"), "required in apiextensions.k8s.io/v1".into()))?;
        check_structural(&schema, "")
            .map_err(|(path, message)| err(field(&format!("schema.openAPIV3Schema{path}")), message))?;
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(err(field("schema.openAPIV3Schema.type"), "must be object at the root".into()));
        }
        let subresources = v.subresources;
        versions.push(CrdVersion {
            name,
            served: v.served,
            schema: Arc::new(schema),
            status: subresources.as_ref().is_some_and(|s| s.status.is_some()),
            scale: subresources.as_ref().is_some_and(|s| s.scale.is_some()),
        });
    }
    out.push(Crd { file: file.to_path_buf(), group, plural, kind, namespaced, versions });
    Ok(())
}

/// The parts of a schema the suite reads must have the shape a structural schema gives them.
fn check_structural(schema: &Value, path: &str) -> Result<(), (String, String)> {
    let Some(map) = schema.as_object() else {
        return Err((path.to_string(), "a schema must be an object".into()));
    };
    if let Some(t) = map.get("type") {
        let known = ["object", "array", "string", "integer", "number", "boolean"];
        if !t.as_str().is_some_and(|t| known.contains(&t)) {
            return Err((format!("{path}.type"), format!("{t}: not one of {}", known.join(", "))));
        }
    }
    for flag in ["x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource"]
    {
        if map.get(flag).is_some_and(|v| !v.is_boolean()) {
            return Err((format!("{path}.{flag}"), "must be true or false".into()));
        }
    }
    if let Some(props) = map.get("properties") {
        let Some(props) = props.as_object() else {
            return Err((format!("{path}.properties"), "must be a map of schemas".into()));
        };
        for (name, sub) in props {
            check_structural(sub, &format!("{path}.properties.{name}"))?;
        }
    }
    if let Some(items) = map.get("items") {
        check_structural(items, &format!("{path}.items"))?;
    }
    match map.get("additionalProperties") {
        None | Some(Value::Bool(_)) => {}
        Some(sub) => check_structural(sub, &format!("{path}.additionalProperties"))?,
    }
    if let Some(required) = map.get("required") {
        if !required.as_array().is_some_and(|r| r.iter().all(Value::is_string)) {
            return Err((format!("{path}.required"), "must be a list of property names".into()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDGETS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer}
"#;

    #[test]
    fn reads_group_names_scope_versions_and_schemas() {
        let crds = Crd::parse(Path::new("w.yaml"), WIDGETS).unwrap();
        assert_eq!(crds.len(), 1);
        let w = &crds[0];
        assert_eq!(
            (w.group.as_str(), w.plural.as_str(), w.kind.as_str(), w.namespaced),
            ("example.com", "widgets", "Widget", true)
        );
        assert_eq!(w.versions[0].name, "v1");
        assert!(w.versions[0].served && w.versions[0].status && !w.versions[0].scale);
        assert_eq!(w.versions[0].schema["properties"]["spec"]["required"][0], "size");
    }

    #[test]
    fn unknown_fields_outside_the_schema_are_named_with_their_lines() {
        let bad = WIDGETS
            .replace("      served: true\n", "      servd: true\n")
            .replace("subresources: {status: {}}", "subresources: {status: {}, scales: {}}")
            .replace("names: {plural: widgets,", "names: {plurals: widgets,");
        let e = Crd::parse(Path::new("w.yaml"), &bad).unwrap_err().to_string();
        assert!(e.starts_with("w.yaml: 3 unknown fields, which the apiserver refuses"), "{e}");
        assert!(e.contains("w.yaml:8: spec.names.plurals: did you mean `plural`?"), "{e}");
        assert!(e.contains("w.yaml:11: spec.versions[0].servd: did you mean `served`?"), "{e}");
        assert!(e.contains("w.yaml:13: spec.versions[0].subresources.scales: did you mean `scale`?"), "{e}");
        assert!(e.contains("apiserver says: CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field \"spec.names.plurals\""), "{e}");
        // The status subresource takes no fields; every field of v1's types is known.
        let e = Crd::parse(Path::new("w.yaml"), &WIDGETS.replace("status: {}", "status: {enabled: true}")).unwrap_err();
        assert!(e.to_string().contains("spec.versions[0].subresources.status.enabled"), "{e}");
        let full = WIDGETS.replace(
            "      storage: true\n",
            "      storage: true\n      deprecated: false\n      additionalPrinterColumns: [{name: Size, type: integer, jsonPath: .spec.size, priority: 0}]\n      selectableFields: [{jsonPath: .spec.size}]\n",
        ).replace("  group: example.com\n", "  group: example.com\n  conversion: {strategy: None}\n  preserveUnknownFields: false\n");
        assert_eq!(Crd::parse(Path::new("w.yaml"), &full).unwrap().len(), 1);
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let e = Crd::parse(
            Path::new("w.yaml"),
            &WIDGETS.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("w.yaml: document 1 (CustomResourceDefinition), apiVersion"), "{e}");
        let e = Crd::parse(Path::new("w.yaml"), &WIDGETS.replace("size: {type: integer}", "size: {type: int}"))
            .unwrap_err();
        assert!(
            e.to_string().contains("spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type"),
            "{e}"
        );
        let e = Crd::parse(Path::new("w.yaml"), "kind: ConfigMap\napiVersion: v1\n").unwrap_err();
        assert!(e.to_string().contains("no apiextensions.k8s.io/v1 CustomResourceDefinition"), "{e}");
        let e = Crd::parse(Path::new("w.yaml"), &WIDGETS.replace("scope: Namespaced", "scope: Global")).unwrap_err();
        assert!(e.to_string().contains("spec.scope"), "{e}");
    }
}
