//! Generated requests that start from the run's cases (recorded traffic, most usefully): each draw
//! is a case's request with a few mutations of its object — labels and annotations added or
//! dropped, a container copied or dropped, a replica count changed, a large annotation — and
//! shrinks toward the case's request as it was (no mutation at all).

use proptest::prelude::*;
use proptest::strategy::SBoxedStrategy;
use serde_json::{json, Value};

use super::case::RequestCase;
use super::conditions::steer;
use super::fit::{fit as fit_selectors, Selectors};
use super::objects::pod_spec_path;
use crate::admission::Operation;
use crate::config::WebhookSpec;

/// One change to a recorded object.
#[derive(Clone, Debug)]
enum Mutation {
    /// Set a label.
    Label(&'static str, &'static str),
    /// Drop every label.
    NoLabels,
    /// Set an annotation.
    Annotation(&'static str, &'static str),
    /// Drop every annotation.
    NoAnnotations,
    /// An annotation of this many bytes.
    Large(usize),
    /// Append a copy of the container at this position (modulo their number), renamed.
    CopyContainer(usize),
    /// Drop the container at this position (modulo their number), keeping one at least.
    DropContainer(usize),
    /// Set `spec.replicas` where the object has it.
    Replicas(i64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let keys = prop::sample::select(vec!["app", "tier", "example.com/team", "conformance.example/seeded", "version"]);
    let values = prop::sample::select(vec!["", "web", "v2", "true", "a-b.c_d"]);
    prop_oneof![
        3 => (keys.clone(), values.clone()).prop_map(|(k, v)| Mutation::Label(k, v)),
        1 => Just(Mutation::NoLabels),
        3 => (keys, values).prop_map(|(k, v)| Mutation::Annotation(k, v)),
        1 => Just(Mutation::NoAnnotations),
        1 => prop::sample::select(vec![1024usize, 64 * 1024, 200 * 1024]).prop_map(Mutation::Large),
        2 => (0usize..8).prop_map(Mutation::CopyContainer),
        2 => (0usize..8).prop_map(Mutation::DropContainer),
        1 => prop::sample::select(vec![0i64, 1, 3, 100]).prop_map(Mutation::Replicas),
    ]
}

fn metadata_map<'a>(object: &'a mut Value, field: &str) -> Option<&'a mut serde_json::Map<String, Value>> {
    let meta = object.get_mut("metadata")?.as_object_mut()?;
    meta.entry(field).or_insert_with(|| json!({})).as_object_mut()
}

fn containers(object: &mut Value) -> Option<&mut Vec<Value>> {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    let mut spec = object;
    for step in pod_spec_path(&kind)? {
        spec = spec.get_mut(*step)?;
    }
    spec.get_mut("containers")?.as_array_mut()
}

fn apply(object: &mut Value, m: &Mutation) {
    match m {
        Mutation::Label(k, v) => {
            if let Some(labels) = metadata_map(object, "labels") {
                labels.insert(k.to_string(), json!(v));
            }
        }
        Mutation::Annotation(k, v) => {
            if let Some(a) = metadata_map(object, "annotations") {
                a.insert(k.to_string(), json!(v));
            }
        }
        Mutation::NoLabels | Mutation::NoAnnotations => {
            let field = if matches!(m, Mutation::NoLabels) { "labels" } else { "annotations" };
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove(field);
            }
        }
        Mutation::Large(bytes) => {
            if let Some(a) = metadata_map(object, "annotations") {
                a.insert("conformance.example/seeded-large".into(), json!("x".repeat(*bytes)));
            }
        }
        Mutation::CopyContainer(i) => {
            if let Some(list) = containers(object).filter(|l| !l.is_empty()) {
                let mut copy = list[i % list.len()].clone();
                let name = format!("{}-copy{}", copy["name"].as_str().unwrap_or("c"), list.len());
                copy["name"] = json!(name);
                list.push(copy);
            }
        }
        Mutation::DropContainer(i) => {
            if let Some(list) = containers(object).filter(|l| l.len() > 1) {
                let at = i % list.len();
                list.remove(at);
            }
        }
        Mutation::Replicas(n) => {
            if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
                if spec.contains_key("replicas") {
                    spec.insert("replicas".into(), json!(n));
                }
            }
        }
    }
}

/// Requests for `webhook` that start from `seeds` (the requests the run's cases sent it); `None`
/// without seeds. A mutated request the webhook's selectors or matchConditions would not let
/// through is drawn as its seed unchanged.
pub(crate) fn from_seeds(webhook: &WebhookSpec, seeds: Vec<RequestCase>) -> Option<SBoxedStrategy<RequestCase>> {
    if seeds.is_empty() {
        return None;
    }
    let selectors = Selectors::of(webhook);
    let conditions = webhook.conditions.clone();
    let indices: Vec<usize> = (0..seeds.len()).collect();
    Some(
        (prop::sample::select(indices), prop::collection::vec(mutation(), 0..5))
            .prop_map(move |(index, mutations)| {
                let seed = &seeds[index];
                let mut spec = seed.spec.clone();
                let target = if spec.operation == Operation::Delete { &mut spec.old_object } else { &mut spec.object };
                if target.is_null() || spec.sub_resource.is_some() {
                    return seed.clone();
                }
                for m in &mutations {
                    apply(target, m);
                }
                if !fit_selectors(&selectors, &mut spec) || !steer(&conditions, &selectors, &mut spec) {
                    return seed.clone();
                }
                // A mutated object is the suite's own: sent as the decoder defaults it. Without a
                // mutation the draw is the case's request, sent as the case holds it.
                if !mutations.is_empty() {
                    super::decoded::default_objects(&mut spec, seed.schema.as_deref());
                }
                let label = format!("{} (mutated: {} change(s))", seed.label, mutations.len());
                RequestCase::new(label, seed.version(), seed.primary, spec).with_schema(seed.schema.clone())
            })
            .sboxed(),
    )
}

/// `generated` (the generator's own requests, if the webhook's rules select any) with draws from
/// `seeds` mixed in: three in four draws start from a seed.
pub(crate) fn with_seeds(
    generated: Option<SBoxedStrategy<RequestCase>>,
    webhook: &WebhookSpec,
    seeds: Vec<RequestCase>,
) -> Option<SBoxedStrategy<RequestCase>> {
    match (generated, from_seeds(webhook, seeds)) {
        (Some(g), Some(s)) => Some(prop_oneof![1 => g, 3 => s].sboxed()),
        (g, s) => s.or(g),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn draws_are_mutations_of_the_seed_and_shrink_back_to_it() {
        let manifest = crate::config::Manifest::parse(
            std::path::Path::new("m.yaml"),
            "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\nwebhooks:\n- name: m.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig: {url: https://m.example.com/}\n  rules: [{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]\n",
        )
        .unwrap();
        let webhook = &manifest.webhooks[0];
        let object = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "recorded", "namespace": "team-a", "labels": {"owner": "recorded-team"}},
            "spec": {"containers": [{"name": "app", "image": "registry.example/recorded:7"}]}});
        let case = crate::cases::parse(
            std::path::Path::new("recorded.yaml"),
            &serde_yaml::to_string(&json!({"operation": "CREATE", "object": object})).unwrap(),
        )
        .unwrap();
        let seed = crate::cases::request_case(&case, webhook, &case.object);
        let strategy = from_seeds(webhook, vec![seed.clone()]).unwrap();
        let mut runner = TestRunner::deterministic();
        let mut changed = 0;
        for _ in 0..64 {
            let mut tree = strategy.new_tree(&mut runner).unwrap();
            let drawn = tree.current();
            // Every draw keeps what only the recorded object has.
            assert!(drawn.spec.object.to_string().contains("registry.example/recorded:7"), "{}", drawn.spec.object);
            // A mutated object is sent defaulted; the case's own object as the case holds it.
            let mutated = drawn.label.contains("(mutated: ") && !drawn.label.contains("(mutated: 0 change(s))");
            assert_eq!(drawn.sent_defaulted(), mutated, "{}", drawn.label);
            let restart = drawn.spec.object["spec"].get("restartPolicy");
            assert_eq!(restart, mutated.then(|| json!("Always")).as_ref(), "{}: {}", drawn.label, drawn.spec.object);
            if mutated {
                assert_eq!(drawn.spec.object["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");
            }
            if drawn.spec.object != seed.spec.object {
                changed += 1;
                // Shrinking all the way gives the recorded object back.
                while tree.simplify() {}
                assert_eq!(tree.current().spec.object, seed.spec.object);
            }
        }
        assert!(changed > 32, "only {changed} of 64 draws changed the recorded object");
    }
}
