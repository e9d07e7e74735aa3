//! The fields a webhook configuration may hold, and the ones a manifest writes that it may not.
//!
//! The apiserver decodes a created or applied object strictly (`fieldValidation=Strict`, what
//! `kubectl apply` asks for since 1.27): a field its Go type does not have is refused with
//! `strict decoding error: unknown field "webhooks[0].sideEfects"` (k8s.io/apimachinery
//! `pkg/runtime/serializer/json/json.go` `Decode`, `pkg/runtime/error.go` `strictDecodingError`). The
//! field sets below are those of `admissionregistration.k8s.io/v1` and `v1beta1`
//! (k8s.io/api `admissionregistration/v1/types.go`, `v1beta1/types.go`: the same fields in both
//! versions, `reinvocationPolicy` on mutating webhooks only), of ObjectMeta
//! (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`) and of `apiextensions.k8s.io/v1`
//! CustomResourceDefinitions (k8s.io/apiextensions-apiserver `pkg/apis/apiextensions/v1/types.go`,
//! up to `openAPIV3Schema`, whose content is not checked here). Matching is case-sensitive, as the
//! apiserver's decoder is.

use super::kind::WebhookKind;
use super::lines::Node;

/// What a field holds, as far as the names of its fields go.
#[derive(Clone, Copy)]
enum Shape {
    /// A scalar, a list of scalars, a map whose keys are the user's (labels), or a value whose
    /// content is opaque (`fieldsV1`).
    Open,
    /// An object with these fields.
    Object(&'static [(&'static str, Shape)]),
    /// A list of this.
    List(&'static Shape),
}

use Shape::{List, Object, Open};

const OWNER_REFERENCE: Shape = Object(&[
    ("apiVersion", Open),
    ("kind", Open),
    ("name", Open),
    ("uid", Open),
    ("controller", Open),
    ("blockOwnerDeletion", Open),
]);

const MANAGED_FIELDS_ENTRY: Shape = Object(&[
    ("manager", Open),
    ("operation", Open),
    ("apiVersion", Open),
    ("time", Open),
    ("fieldsType", Open),
    ("fieldsV1", Open),
    ("subresource", Open),
]);

const OBJECT_META: Shape = Object(&[
    ("name", Open),
    ("generateName", Open),
    ("namespace", Open),
    ("selfLink", Open),
    ("uid", Open),
    ("resourceVersion", Open),
    ("generation", Open),
    ("creationTimestamp", Open),
    ("deletionTimestamp", Open),
    ("deletionGracePeriodSeconds", Open),
    ("labels", Open),
    ("annotations", Open),
    ("ownerReferences", List(&OWNER_REFERENCE)),
    ("finalizers", Open),
    ("managedFields", List(&MANAGED_FIELDS_ENTRY)),
]);

const SERVICE_REFERENCE: Shape = Object(&[("namespace", Open), ("name", Open), ("path", Open), ("port", Open)]);

const CLIENT_CONFIG: Shape = Object(&[("url", Open), ("service", SERVICE_REFERENCE), ("caBundle", Open)]);

const RULE_WITH_OPERATIONS: Shape =
    Object(&[("operations", Open), ("apiGroups", Open), ("apiVersions", Open), ("resources", Open), ("scope", Open)]);

const LABEL_SELECTOR_REQUIREMENT: Shape = Object(&[("key", Open), ("operator", Open), ("values", Open)]);

const LABEL_SELECTOR: Shape = Object(&[("matchLabels", Open), ("matchExpressions", List(&LABEL_SELECTOR_REQUIREMENT))]);

const MATCH_CONDITION: Shape = Object(&[("name", Open), ("expression", Open)]);

const VALIDATING_WEBHOOK: Shape = Object(&[
    ("name", Open),
    ("clientConfig", CLIENT_CONFIG),
    ("rules", List(&RULE_WITH_OPERATIONS)),
    ("failurePolicy", Open),
    ("matchPolicy", Open),
    ("namespaceSelector", LABEL_SELECTOR),
    ("objectSelector", LABEL_SELECTOR),
    ("sideEffects", Open),
    ("timeoutSeconds", Open),
    ("admissionReviewVersions", Open),
    ("matchConditions", List(&MATCH_CONDITION)),
]);

const MUTATING_WEBHOOK: Shape = Object(&[
    ("name", Open),
    ("clientConfig", CLIENT_CONFIG),
    ("rules", List(&RULE_WITH_OPERATIONS)),
    ("failurePolicy", Open),
    ("matchPolicy", Open),
    ("namespaceSelector", LABEL_SELECTOR),
    ("objectSelector", LABEL_SELECTOR),
    ("sideEffects", Open),
    ("timeoutSeconds", Open),
    ("admissionReviewVersions", Open),
    ("reinvocationPolicy", Open),
    ("matchConditions", List(&MATCH_CONDITION)),
]);

const VALIDATING_CONFIGURATION: Shape =
    Object(&[("apiVersion", Open), ("kind", Open), ("metadata", OBJECT_META), ("webhooks", List(&VALIDATING_WEBHOOK))]);

const MUTATING_CONFIGURATION: Shape =
    Object(&[("apiVersion", Open), ("kind", Open), ("metadata", OBJECT_META), ("webhooks", List(&MUTATING_WEBHOOK))]);

const CRD_NAMES: Shape = Object(&[
    ("plural", Open),
    ("singular", Open),
    ("shortNames", Open),
    ("kind", Open),
    ("listKind", Open),
    ("categories", Open),
]);

const CRD_VERSION: Shape = Object(&[
    ("name", Open),
    ("served", Open),
    ("storage", Open),
    ("deprecated", Open),
    ("deprecationWarning", Open),
    ("schema", Object(&[("openAPIV3Schema", Open)])),
    (
        "subresources",
        Object(&[
            ("status", Object(&[])),
            ("scale", Object(&[("specReplicasPath", Open), ("statusReplicasPath", Open), ("labelSelectorPath", Open)])),
        ]),
    ),
    (
        "additionalPrinterColumns",
        List(&Object(&[
            ("name", Open),
            ("type", Open),
            ("format", Open),
            ("description", Open),
            ("priority", Open),
            ("jsonPath", Open),
        ])),
    ),
    ("selectableFields", List(&Object(&[("jsonPath", Open)]))),
]);

const CRD_CONVERSION: Shape = Object(&[
    ("strategy", Open),
    ("webhook", Object(&[("clientConfig", CLIENT_CONFIG), ("conversionReviewVersions", Open)])),
]);

const CRD_CONDITION: Shape = Object(&[
    ("type", Open),
    ("status", Open),
    ("lastTransitionTime", Open),
    ("reason", Open),
    ("message", Open),
    ("observedGeneration", Open),
]);

const CUSTOM_RESOURCE_DEFINITION: Shape = Object(&[
    ("apiVersion", Open),
    ("kind", Open),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            ("group", Open),
            ("names", CRD_NAMES),
            ("scope", Open),
            ("versions", List(&CRD_VERSION)),
            ("conversion", CRD_CONVERSION),
            ("preserveUnknownFields", Open),
        ]),
    ),
    (
        "status",
        Object(&[
            ("conditions", List(&CRD_CONDITION)),
            ("acceptedNames", CRD_NAMES),
            ("storedVersions", Open),
            ("observedGeneration", Open),
        ]),
    ),
]);

/// Which objects of a file are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Objects {
    /// MutatingWebhookConfigurations and ValidatingWebhookConfigurations (`admissionregistration.k8s.io/v1`,
    /// `v1beta1`).
    WebhookConfigurations,
    /// CustomResourceDefinitions (`apiextensions.k8s.io/v1`).
    CustomResourceDefinitions,
}

/// A field the apiserver does not know, in one object of the manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnknownField {
    /// Its path in the object, as the apiserver names it: `webhooks[0].sideEfects`.
    pub path: String,
    /// The line (1-based) its key is written on.
    pub line: usize,
    /// What was probably meant: "did you mean `sideEffects`?", or the kind the field belongs to.
    pub hint: Option<String>,
}

/// The unknown fields of one webhook configuration of the manifest.
#[derive(Clone, Debug)]
pub(crate) struct ObjectUnknownFields {
    /// `MutatingWebhookConfiguration`, `ValidatingWebhookConfiguration` or `CustomResourceDefinition`.
    pub kind: &'static str,
    /// The version of its `apiVersion` (`v1`, `v1beta1`).
    pub version: String,
    /// Where the object sits in its document: `items[0].` inside a `List`, empty otherwise.
    pub prefix: String,
    /// Its unknown fields, in file order.
    pub fields: Vec<UnknownField>,
}

impl ObjectUnknownFields {
    /// What the apiserver answers `kubectl apply` for this object.
    pub(crate) fn apiserver_message(&self) -> String {
        let fields: Vec<String> = self.fields.iter().map(|f| format!("unknown field {:?}", f.path)).collect();
        format!(
            "{kind} in version {version:?} cannot be handled as a {kind}: strict decoding error: {}",
            fields.join(", "),
            kind = self.kind,
            version = self.version,
        )
    }
}

/// The unknown fields of every object of the kinds `objects` names in `documents` (each item of a
/// `List` too; other objects are not the suite's to judge, nor is a `List`'s own wrapper, which
/// kubectl takes apart before anything reaches the apiserver). Objects whose `apiVersion` is not one
/// the suite reads are left to the loader's other checks.
pub(crate) fn unknown_fields(documents: &[Node], objects: Objects) -> Vec<ObjectUnknownFields> {
    let mut out = Vec::new();
    for doc in documents {
        object(doc, objects, String::new(), &mut out);
    }
    out
}

fn object(doc: &Node, objects: Objects, prefix: String, out: &mut Vec<ObjectUnknownFields>) {
    let kind = doc.get("kind").and_then(Node::text).unwrap_or_default();
    if let Some(Node::Sequence(items)) = doc.get("items") {
        if kind.ends_with("List") {
            for (i, item) in items.iter().enumerate() {
                object(item, objects, format!("{prefix}items[{i}]."), out);
            }
            return;
        }
    }
    let (kind, webhook_kind, shape, group, versions): (_, _, _, _, &[&str]) = match (objects, kind) {
        (Objects::WebhookConfigurations, "MutatingWebhookConfiguration") => (
            "MutatingWebhookConfiguration",
            Some(WebhookKind::Mutating),
            MUTATING_CONFIGURATION,
            "admissionregistration.k8s.io/",
            &["v1", "v1beta1"],
        ),
        (Objects::WebhookConfigurations, "ValidatingWebhookConfiguration") => (
            "ValidatingWebhookConfiguration",
            Some(WebhookKind::Validating),
            VALIDATING_CONFIGURATION,
            "admissionregistration.k8s.io/",
            &["v1", "v1beta1"],
        ),
        (Objects::CustomResourceDefinitions, "CustomResourceDefinition") => {
            ("CustomResourceDefinition", None, CUSTOM_RESOURCE_DEFINITION, "apiextensions.k8s.io/", &["v1"])
        }
        _ => return,
    };
    let version = match doc.get("apiVersion").map(Node::text) {
        // The manifest loader reads a webhook configuration without apiVersion as v1.
        None if webhook_kind.is_some() => "v1",
        Some(Some(v)) => match v.strip_prefix(group) {
            Some(v) if versions.contains(&v) => v,
            _ => return,
        },
        _ => return,
    };
    let mut fields = Vec::new();
    walk(doc, shape, "", webhook_kind, &mut fields);
    if !fields.is_empty() {
        out.push(ObjectUnknownFields { kind, version: version.to_string(), prefix, fields });
    }
}

/// Every unknown field of `objects` as one error of `file`: each with its line, path and the field
/// probably meant, then what the apiserver answers `kubectl apply` for each object.
pub(crate) fn error(file: &std::path::Path, objects: &[ObjectUnknownFields]) -> crate::error::ManifestError {
    let count: usize = objects.iter().map(|o| o.fields.len()).sum();
    let mut message = format!(
        "{count} unknown field{}, which the apiserver refuses (strict field validation, the default of kubectl apply):",
        if count == 1 { "" } else { "s" }
    );
    for object in objects {
        for field in &object.fields {
            message.push_str(&format!("\n  {}:{}: {}{}", file.display(), field.line, object.prefix, field.path));
            if let Some(hint) = &field.hint {
                message.push_str(&format!(": {hint}"));
            }
        }
    }
    for object in objects {
        message.push_str(&format!("\n  apiserver says: {}", object.apiserver_message()));
    }
    crate::error::ManifestError { file: file.to_path_buf(), location: String::new(), message }
}

fn walk(node: &Node, shape: Shape, path: &str, kind: Option<WebhookKind>, out: &mut Vec<UnknownField>) {
    match (shape, node) {
        (Object(known), Node::Mapping(entries, _)) => {
            for (key, value) in entries {
                // `<<` merges a mapping in (YAML 1.1 merge keys, which the apiserver's YAML reader
                // applies): not a field.
                let Node::Scalar(name, line) = key else { continue };
                if name == "<<" {
                    continue;
                }
                let field_path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
                match known.iter().find(|(known_name, _)| known_name == name) {
                    Some((_, inner)) => walk(value, *inner, &field_path, kind, out),
                    None => {
                        out.push(UnknownField { hint: hint(name, known, path, kind), path: field_path, line: *line })
                    }
                }
            }
        }
        (List(item), Node::Sequence(items)) => {
            for (i, node) in items.iter().enumerate() {
                walk(node, *item, &format!("{path}[{i}]"), kind, out);
            }
        }
        // A value of another shape is a type error serde reports; an alias's content is not known.
        _ => {}
    }
}

/// What `name` probably meant among the `known` fields at `path`.
fn hint(name: &str, known: &[(&'static str, Shape)], path: &str, kind: Option<WebhookKind>) -> Option<String> {
    if kind == Some(WebhookKind::Validating) && name == "reinvocationPolicy" && path.starts_with("webhooks[") {
        return Some(
            "reinvocationPolicy is a field of MutatingWebhookConfiguration webhooks only: a validating webhook is never reinvoked"
                .into(),
        );
    }
    closest(name, known.iter().map(|(n, _)| *n)).map(|n| format!("did you mean `{n}`?"))
}

/// The candidate closest to `name`: one that differs only in case, or else the nearest in edit
/// distance when it is near enough to be a slip (1 edit in short names, up to 3 in long ones).
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str> + Clone) -> Option<&'a str> {
    let lower = name.to_lowercase();
    if let Some(same) = candidates.clone().find(|c| c.to_lowercase() == lower) {
        return Some(same);
    }
    let allowed = match name.chars().count() {
        0..=4 => 1,
        5..=10 => 2,
        _ => 3,
    };
    candidates
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edit distance counting insertions, deletions, substitutions and swaps of two neighbours (optimal
/// string alignment), in chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("sideEfects", "sideEffects"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("nmae", "name"), 1, "a swap of neighbours is one edit");
    }

    #[test]
    fn the_closest_field_is_a_near_one_or_none() {
        let fields = ["name", "namespace", "path", "port"];
        assert_eq!(closest("nmae", fields.iter().copied()), Some("name"));
        assert_eq!(closest("pt", fields.iter().copied()), None, "two edits in a short name are too many");
        assert_eq!(closest("nam", fields.iter().copied()), Some("name"));
        assert_eq!(closest("Namespace", fields.iter().copied()), Some("namespace"));
        assert_eq!(closest("namespaces", fields.iter().copied()), Some("namespace"));
        assert_eq!(closest("hostname", fields.iter().copied()), None);
    }
}
