//! Generated requests: [`requests`] is a proptest strategy of [`RequestCase`]s inside what a webhook's rules select:
//! every (resource, subresource, operation) target, every listed AdmissionReview version, dryRun
//! true/false, several users, and objects built from the fixtures of `requests::objects` and then
//! varied (labels/annotations absent, `{}` or many, keys with `/` and `~`, 0..n containers, init and
//! ephemeral containers, volumes, env, unknown fields, unicode values, rarely a large object).
//! Shrinking leads to small requests: the first target, the primary version, no dry run, bare
//! objects without containers.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::SBoxedStrategy;
use serde_json::{json, Map, Value};

use super::case::RequestCase;
use super::fit::{fit as fit_selectors, Selectors};
use super::objects::{new_object, Variant};
use super::plan::admission_spec_from;
use super::resources::{targets_for, Target};
use super::review::default_user;
use crate::admission::{Operation, ReviewVersion, UserInfo};
use crate::config::{WebhookKind, WebhookSpec};

/// Which of the targets a strategy draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every target the rules select.
    All,
    /// Targets whose request carries an object (CREATE/UPDATE, subresources included).
    WithObject,
    /// DELETE (null object), CONNECT, and subresource requests.
    Operations,
}

impl Scope {
    fn admits(self, t: &Target) -> bool {
        match self {
            Scope::All => true,
            Scope::WithObject => matches!(t.operation, Operation::Create | Operation::Update),
            Scope::Operations => {
                matches!(t.operation, Operation::Delete | Operation::Connect) || t.subresource.is_some()
            }
        }
    }
}

/// One container as generated.
#[derive(Clone, Debug)]
pub struct ContainerShape {
    pub image: String,
    pub env: Vec<(String, String)>,
    pub unknown_field: bool,
}

/// How a fixture object is varied.
#[derive(Clone, Debug)]
pub struct Shape {
    /// `None`: no labels map; `Some(empty)`: `labels: {}`.
    pub labels: Option<BTreeMap<String, String>>,
    pub annotations: Option<BTreeMap<String, String>>,
    pub containers: Vec<ContainerShape>,
    pub init_containers: Vec<ContainerShape>,
    pub ephemeral_containers: Vec<ContainerShape>,
    pub volumes: usize,
    pub extra_fields: bool,
    /// A large annotation value (hundreds of KiB).
    pub large: bool,
}

/// The annotation that makes an object large.
pub const LARGE_ANNOTATION: &str = "suite.conformance.example/large";
const LARGE_BYTES: usize = 256 * 1024;

/// `len` characters of `ranges` (what the regex `[..]{lo,hi}` draws, without parsing a regex on
/// every draw; shrinks towards the first character and the shortest length).
fn chars(
    ranges: &'static [std::ops::RangeInclusive<char>],
    len: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = String> + Clone {
    prop::collection::vec(prop::char::ranges(std::borrow::Cow::Borrowed(ranges)), len).prop_map(String::from_iter)
}

const LOWER: &[std::ops::RangeInclusive<char>] = &['a'..='z'];
const LOWER_DIGIT: &[std::ops::RangeInclusive<char>] = &['a'..='z', '0'..='9'];
const LOWER_DIGIT_DASH: &[std::ops::RangeInclusive<char>] = &['a'..='z', '0'..='9', '-'..='-'];
const UPPER: &[std::ops::RangeInclusive<char>] = &['A'..='Z'];

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        chars(LOWER, 1..=8),
        (chars(LOWER, 1..=6), chars(LOWER_DIGIT_DASH, 1..=8)).prop_map(|(a, b)| format!("{a}.example/{b}")),
        (chars(LOWER, 1..=4), chars(LOWER_DIGIT, 1..=4)).prop_map(|(a, b)| format!("{a}~{b}")),
        (chars(LOWER, 1..=3), chars(LOWER, 1..=3)).prop_map(|(a, b)| format!("example.com/{a}~1{b}")),
        Just("conformance.example/mutated".to_string()),
    ]
}

/// Printable unicode (`\PC{0,12}`): the regex is parsed once here, not on every draw.
fn printable() -> &'static proptest::string::RegexGeneratorStrategy<String> {
    static PRINTABLE: std::sync::OnceLock<proptest::string::RegexGeneratorStrategy<String>> =
        std::sync::OnceLock::new();
    PRINTABLE.get_or_init(|| proptest::string::string_regex("\\PC{0,12}").expect("a valid regex"))
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![chars(LOWER_DIGIT, 0..=8), Just(String::new()), Just("héllo ✓".to_string()), printable(),]
}

fn string_map() -> impl Strategy<Value = Option<BTreeMap<String, String>>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some(BTreeMap::new())),
        4 => prop::collection::btree_map(key(), value(), 1..6).prop_map(Some),
        1 => prop::collection::btree_map(key(), value(), 20..48).prop_map(Some),
    ]
}

fn container() -> impl Strategy<Value = ContainerShape> {
    (
        prop::sample::select(vec!["registry.example/app:1.0", "registry.example/app:latest", "registry.example/ünï:2"]),
        prop::collection::vec((chars(UPPER, 1..=6), value()), 0..3),
        any::<bool>(),
    )
        .prop_map(|(image, env, unknown_field)| ContainerShape { image: image.to_string(), env, unknown_field })
}

/// The strategy of object variations.
pub fn shapes() -> impl Strategy<Value = Shape> {
    (
        string_map(),
        string_map(),
        prop::collection::vec(container(), 0..4),
        prop::collection::vec(container(), 0..2),
        prop::collection::vec(container(), 0..2),
        0usize..3,
        any::<bool>(),
        prop_oneof![30 => Just(false), 1 => Just(true)],
    )
        .prop_map(
            |(labels, annotations, containers, init_containers, ephemeral_containers, volumes, extra_fields, large)| {
                Shape {
                    labels,
                    annotations,
                    containers,
                    init_containers,
                    ephemeral_containers,
                    volumes,
                    extra_fields,
                    large,
                }
            },
        )
}

fn users() -> impl Strategy<Value = UserInfo> {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    prop_oneof![
        Just(default_user()),
        Just(UserInfo {
            username: "system:serviceaccount:conformance-test:deployer".into(),
            uid: Some("a1b2c3d4-0000-4000-8000-000000000002".into()),
            groups: strings(&[
                "system:serviceaccounts",
                "system:serviceaccounts:conformance-test",
                "system:authenticated"
            ]),
            extra: Default::default(),
        }),
        Just(UserInfo {
            username: "jöhn@example.com".into(),
            uid: None,
            groups: strings(&["system:authenticated"]),
            extra: [("scopes.example.com/x".to_string(), strings(&["read", "wrïte"]))].into_iter().collect(),
        }),
    ]
}

/// The JSON path of the pod spec inside an object of `kind`, if it holds one.
pub fn pod_spec_path(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "Pod" => &["spec"],
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    })
}

fn containers_json(prefix: &str, shapes: &[ContainerShape]) -> Value {
    Value::Array(
        shapes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut o = json!({"name": format!("{prefix}{i}"), "image": c.image});
                if !c.env.is_empty() {
                    o["env"] = Value::Array(c.env.iter().map(|(n, v)| json!({"name": n, "value": v})).collect());
                }
                if c.unknown_field {
                    o["unknownField"] = json!({"x": [1, "two"]});
                }
                o
            })
            .collect(),
    )
}

/// Vary `object` (a fixture of `kind`) by `shape`.
pub fn apply_shape(object: &mut Value, kind: &str, shape: &Shape) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for (field, map) in [("labels", &shape.labels), ("annotations", &shape.annotations)] {
            match map {
                None => {
                    meta.remove(field);
                }
                Some(m) => {
                    meta.insert(field.into(), json!(m));
                }
            }
        }
        if shape.large {
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            annotations[LARGE_ANNOTATION] = json!("x".repeat(LARGE_BYTES));
        }
        if shape.extra_fields {
            meta.insert("x-unknown-meta".into(), json!("ignored by the apiserver"));
        }
    }
    if shape.extra_fields {
        object["x-unknown"] = json!({"nested": [1, "two", {"ü": null}]});
    }
    let Some(path) = pod_spec_path(kind) else { return };
    let mut spec = &mut *object;
    for step in path {
        match spec.get_mut(*step) {
            Some(next) => spec = next,
            None => return,
        }
    }
    let Some(spec) = spec.as_object_mut() else { return };
    spec.insert("containers".into(), containers_json("c", &shape.containers));
    if !shape.init_containers.is_empty() {
        spec.insert("initContainers".into(), containers_json("init", &shape.init_containers));
    }
    if kind == "Pod" && !shape.ephemeral_containers.is_empty() {
        spec.insert("ephemeralContainers".into(), containers_json("debug", &shape.ephemeral_containers));
    }
    if shape.volumes > 0 {
        let volumes: Vec<Value> =
            (0..shape.volumes).map(|i| json!({"name": format!("vol{i}"), "emptyDir": {}})).collect();
        spec.insert("volumes".into(), Value::Array(volumes));
    }
}

/// The name of generated objects.
const GENERATED_NAME: &str = "demo-gen";

/// One generated request for `target` from `fresh`, the bare fixture of `target`'s resource named [`GENERATED_NAME`] (built,
/// and passed through its k8s-openapi type, once per target rather than once per draw).
#[allow(clippy::too_many_arguments)]
fn build_from(
    kind: WebhookKind,
    selectors: &Selectors,
    target: &Target,
    mut fresh: Value,
    shape: &Shape,
    version: ReviewVersion,
    primary: bool,
    dry_run: bool,
    user: UserInfo,
) -> Option<RequestCase> {
    let name = GENERATED_NAME;
    apply_shape(&mut fresh, &target.resource.kind, shape);
    let mut spec = admission_spec_from(target, fresh, name, kind);
    spec.dry_run = dry_run;
    spec.user = user;
    // Only what the webhook's namespaceSelector and objectSelector let through reaches it.
    if !fit_selectors(selectors, &mut spec) {
        return None;
    }
    let what = match target.subresource {
        Some(s) => format!("{} {}/{}", target.operation, target.resource.plural, s.name),
        None => format!("{} {}", target.operation, target.resource.plural),
    };
    Some(RequestCase::new(format!("{what} (generated)"), version, primary, spec))
}

/// Generated requests for `webhook` within `scope`; `None` when its rules select no such target.
pub fn requests(webhook: &WebhookSpec, scope: Scope) -> Option<SBoxedStrategy<RequestCase>> {
    let selectors = Selectors::of(webhook);
    // Targets no object can reach through the selectors (e.g. /scale under a label-requiring
    // objectSelector) are left out.
    let targets: Vec<Target> = targets_for(&webhook.rules)
        .into_iter()
        .filter(|t| scope.admits(t))
        .filter(|t| {
            let mut spec = admission_spec_from(
                t,
                new_object(&t.resource, Variant::Bare, GENERATED_NAME),
                GENERATED_NAME,
                webhook.kind,
            );
            fit_selectors(&selectors, &mut spec)
        })
        .collect();
    if targets.is_empty() {
        return None;
    }
    let versions = webhook.review_versions();
    let primary = webhook.primary_review_version();
    let kind = webhook.kind;
    // The bare fixture of each target, built once: `new_object` round-trips it through its typed
    // k8s-openapi struct, which does not depend on the draw.
    let fixtures: std::sync::Arc<Vec<(Target, Value)>> = std::sync::Arc::new(
        targets
            .into_iter()
            .map(|t| {
                let fresh = new_object(&t.resource, Variant::Bare, GENERATED_NAME);
                (t, fresh)
            })
            .collect(),
    );
    let indices: Vec<usize> = (0..fixtures.len()).collect();
    Some(
        (prop::sample::select(indices), shapes(), prop::sample::select(versions), any::<bool>(), users())
            .prop_filter_map(
                "the webhook's selectors leave this object out",
                move |(index, shape, version, dry_run, user)| {
                    let is_primary = version == primary;
                    let (target, fresh) = &fixtures[index];
                    build_from(kind, &selectors, target, fresh.clone(), &shape, version, is_primary, dry_run, user)
                },
            )
            .sboxed(),
    )
}

/// Draws generated requests one by one (no shrinking), e.g. for load.
pub struct Sampler {
    runner: proptest::test_runner::TestRunner,
    strategy: SBoxedStrategy<RequestCase>,
}

impl Sampler {
    /// Draws from the generated requests of `webhook` within `scope`, from `seed`; `None` when its rules select no such request.
    pub fn new(webhook: &WebhookSpec, scope: Scope, seed: u64) -> Option<Sampler> {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &bytes);
        let runner = proptest::test_runner::TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng);
        Some(Sampler { runner, strategy: requests(webhook, scope)? })
    }

    /// The next generated request.
    pub fn draw(&mut self) -> RequestCase {
        use proptest::strategy::ValueTree;
        self.strategy.new_tree(&mut self.runner).expect("the strategy never rejects").current()
    }
}

/// Count of entries of a JSON object member (0 when absent).
pub fn map_len(object: &Value, field: &str) -> usize {
    object.get("metadata").and_then(|m| m.get(field)).and_then(Value::as_object).map(Map::len).unwrap_or(0)
}

/// The containers of an object's pod spec (empty when it holds none).
pub fn containers_of(object: &Value) -> Vec<Value> {
    let Some(kind) = object.get("kind").and_then(Value::as_str) else { return Vec::new() };
    let Some(path) = pod_spec_path(kind) else { return Vec::new() };
    let mut spec = object;
    for step in path {
        match spec.get(*step) {
            Some(next) => spec = next,
            None => return Vec::new(),
        }
    }
    spec.get("containers").and_then(Value::as_array).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Manifest;
    use crate::kinds::decodes_as;
    use proptest::test_runner::{Config, TestRunner};

    fn reference() -> Manifest {
        Manifest::parse(std::path::Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap()
    }

    fn deterministic() -> proptest::test_runner::TestRng {
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha)
    }

    #[test]
    fn generated_requests_pass_the_webhooks_selectors() {
        let mut webhook = reference().webhooks[0].clone();
        webhook.object_selector = Some(serde_json::json!({"matchLabels": {"inject": "yes"}}));
        let strategy = requests(&webhook, Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 100, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        runner
            .run(&strategy, |case| {
                prop_assert!(case.spec.kind.kind != "Scale", "a Scale carries no labels: never selected");
                let object = if case.object().is_null() { &case.spec.old_object } else { case.object() };
                prop_assert_eq!(&object["metadata"]["labels"]["inject"], "yes", "{}", case.label);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn generated_objects_decode_and_have_the_fields_of_their_operation() {
        let m = reference();
        for webhook in &m.webhooks {
            let strategy = requests(webhook, Scope::All).unwrap();
            let mut runner = TestRunner::new_with_rng(
                Config { cases: 150, failure_persistence: None, ..Config::default() },
                deterministic(),
            );
            let seen_ops = std::sync::Mutex::new(std::collections::HashSet::new());
            runner
                .run(&strategy, |case| {
                    seen_ops.lock().unwrap().insert(case.spec.operation);
                    let r = &case.review.to_value()["request"];
                    for field in ["object", "oldObject"] {
                        let v = &r[field];
                        if !v.is_null() {
                            if let Some(result) = decodes_as(&case.spec.kind, v) {
                                prop_assert!(result.is_ok(), "{field} of {} does not decode: {result:?}", case.label);
                            }
                        }
                    }
                    let meta = &case.spec.object["metadata"];
                    match case.spec.operation {
                        Operation::Create if case.spec.sub_resource.is_none() => {
                            prop_assert!(r["oldObject"].is_null());
                            let filled = meta.get("uid").is_some()
                                && meta.get("creationTimestamp").is_some()
                                && meta.get("generation").is_some();
                            prop_assert_eq!(filled, webhook.kind == WebhookKind::Validating, "{}", case.label);
                        }
                        Operation::Update if case.spec.sub_resource.is_none() => {
                            prop_assert!(meta["resourceVersion"].is_string());
                            prop_assert!(r["oldObject"].is_object());
                            prop_assert_eq!(&r["options"]["kind"], "UpdateOptions");
                        }
                        Operation::Delete => {
                            prop_assert!(r["object"].is_null());
                            prop_assert!(r["oldObject"].is_object());
                        }
                        Operation::Connect => prop_assert!(r["options"].is_null() && r["oldObject"].is_null()),
                        _ => {}
                    }
                    prop_assert!(r["dryRun"].is_boolean());
                    Ok(())
                })
                .unwrap();
            let seen_ops = seen_ops.into_inner().unwrap();
            assert!(seen_ops.len() >= 3, "{}: {seen_ops:?}", webhook.name);
        }
    }

    #[test]
    fn shrinking_leads_to_a_bare_small_request() {
        let m = reference();
        let strategy = requests(&m.webhooks[0], Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 200, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        // Fails for any pod with at least one label: the minimal case has exactly one label and no containers.
        let result = runner.run(&strategy, |case| {
            prop_assert!(!(case.object()["kind"] == "Pod" && map_len(case.object(), "labels") > 0));
            Ok(())
        });
        let Err(proptest::test_runner::TestError::Fail(_, minimal)) = result else {
            panic!("expected a failure: {result:?}")
        };
        assert_eq!(map_len(minimal.object(), "labels"), 1);
        // An UPDATE's object carries the one annotation the user changed (objects::updated).
        let expected = usize::from(minimal.spec.operation == Operation::Update);
        assert_eq!(map_len(minimal.object(), "annotations"), expected, "{:#}", minimal.object());
        assert!(containers_of(minimal.object()).is_empty());
        assert_eq!(minimal.version(), ReviewVersion::V1);
        assert!(!minimal.spec.dry_run);
    }

    #[test]
    fn saved_reviews_rebuild_the_same_request() {
        let m = reference();
        let strategy = requests(&m.webhooks[1], Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 30, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        runner
            .run(&strategy, |case| {
                let sent: crate::admission::AdmissionReview = serde_json::from_slice(&case.review.to_bytes()).unwrap();
                let back = RequestCase::from_review(&sent, case.label.clone(), case.primary);
                let mut a = case.review.clone();
                let mut b = back.review.clone();
                a.request.uid.clear();
                b.request.uid.clear();
                prop_assert_eq!(a, b);
                Ok(())
            })
            .unwrap();
    }
}
