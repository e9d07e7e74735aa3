//! Generated requests: [`requests`] is a proptest strategy of [`RequestCase`]s inside what a webhook's rules select:
//! every (resource, subresource, operation) target, every listed AdmissionReview version, dryRun
//! true/false, several users, and objects built from the fixtures of `requests::objects` and then
//! varied (labels/annotations absent, `{}` or many, keys with `/` and `~`, 0..n containers, init and
//! ephemeral containers, volumes, env, unknown fields, unicode values, rarely a large object), then
//! decoded as the apiserver decodes them: a built-in kind through its type and a custom resource of a
//! CRD through its schema drop the unknown fields (they reach a webhook only for custom resources
//! without a CRD, or under `x-kubernetes-preserve-unknown-fields`), and a CRD's defaults are filled.
//! Shrinking leads to small requests: the first target, the primary version, no dry run, bare
//! objects without containers.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::SBoxedStrategy;
use serde_json::{json, Map, Value};

use super::case::RequestCase;
use super::conditions::steer;
use super::fit::{fit as fit_selectors, move_to_namespace, Selectors};
use super::fixtures::JobWrite;
pub(crate) use super::objects::pod_spec_path;
use super::objects::{conform, new_object, pod_spec_mut, varied_object, Variant};
use super::one_of::{one_of, weighted};
use super::owned::{self, Maker};
use super::plan::admission_spec_from;
use super::resources::{selected, ApiResources, Origin, Selected};
use super::review::default_user;
use super::strings::{chars, printable_ranges};
use crate::admission::{Operation, ReviewVersion, UserInfo};
use crate::conditions::MatchConditions;
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
    /// Does a request of this shape belong to the scope?
    pub fn admits_request(self, r: &RequestCase) -> bool {
        let op = r.spec.operation;
        match self {
            Scope::All => true,
            Scope::WithObject => matches!(op, Operation::Create | Operation::Update) && !r.object().is_null(),
            Scope::Operations => matches!(op, Operation::Delete | Operation::Connect) || r.spec.sub_resource.is_some(),
        }
    }

    fn admits(self, t: &Selected) -> bool {
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
pub(crate) struct ContainerShape {
    pub image: String,
    pub env: Vec<(String, String)>,
    pub unknown_field: bool,
    /// `securityContext`, when set: what policies judge (privileged, capabilities, root, …).
    pub security: Option<Value>,
    /// `resources`, when set (limits, requests, both).
    pub resources: Option<Value>,
}

/// What a pod may ask of its node: what policies judge at pod level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HostAccess {
    pub host_network: bool,
    pub host_pid: bool,
    pub host_ipc: bool,
    /// A `hostPath` volume.
    pub host_path: bool,
    /// `securityContext.runAsNonRoot` at pod level, when set.
    pub run_as_non_root: Option<bool>,
}

/// How a fixture object is varied.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// `None`: no labels map; `Some(empty)`: `labels: {}`.
    pub labels: Option<BTreeMap<String, String>>,
    pub annotations: Option<BTreeMap<String, String>>,
    pub containers: Vec<ContainerShape>,
    pub init_containers: Vec<ContainerShape>,
    pub ephemeral_containers: Vec<ContainerShape>,
    pub volumes: usize,
    pub extra_fields: bool,
    /// A large annotation value (hundreds of KiB, inside the apiserver's 256 KiB for all annotations).
    pub large: bool,
    /// Pod-level host access and security.
    pub host: HostAccess,
    /// Another namespace than the default one (policies often judge `kube-system`, `default`).
    pub namespace: Option<&'static str>,
    /// Made by a controller: `generateName`, a controller `ownerReference`, and on CREATE no name
    /// (none in the request, none in the object before mutating admission).
    pub controller_made: bool,
    /// On a Job's `/status` UPDATE, which write of the Job controller it is.
    pub job_write: JobWrite,
}

/// The annotation that makes an object large.
pub const LARGE_ANNOTATION: &str = "suite.conformance.example/large";
/// Its size: with the largest generated annotation map (48 short entries) the total of keys and
/// values stays under the apiserver's 256 KiB (`ValidateAnnotationsSize`).
const LARGE_BYTES: usize = 200 * 1024;

const LOWER: &[std::ops::RangeInclusive<char>] = &['a'..='z'];
const LOWER_DIGIT: &[std::ops::RangeInclusive<char>] = &['a'..='z', '0'..='9'];
const LOWER_DIGIT_DASH: &[std::ops::RangeInclusive<char>] = &['a'..='z', '0'..='9', '-'..='-'];
const UPPER: &[std::ops::RangeInclusive<char>] = &['A'..='Z'];

/// A qualified-name part: alphanumeric at both ends, `-` `_` `.` inside, at most 63 characters.
fn name_part() -> impl Strategy<Value = String> + Clone {
    one_of(vec![
        (1, chars(LOWER, 1..=8).sboxed()),
        (
            1,
            (chars(LOWER, 1..=6), chars(LOWER_DIGIT_DASH, 0..=6), chars(LOWER_DIGIT, 1..=2))
                .prop_map(|(a, b, c)| [a, b, c].concat())
                .sboxed(),
        ),
    ])
}

/// Label and annotation keys as the apiserver accepts them (`[prefix/]name`, qualified names), the
/// ones policies commonly look at among them.
fn key() -> impl Strategy<Value = String> {
    one_of(vec![
        (4, name_part().sboxed()),
        (2, (chars(LOWER, 1..=6), name_part()).prop_map(|(a, b)| [a.as_str(), ".example/", &b].concat()).sboxed()),
        (
            1,
            prop::sample::select(vec![
                "app",
                "app.kubernetes.io/name",
                "app.kubernetes.io/managed-by",
                "team",
                "env",
                "version",
                "sidecar.istio.io/inject",
                "kubernetes.io/description",
                "prometheus.io/scrape",
                "pod-security.kubernetes.io/enforce",
            ])
            .prop_map(String::from)
            .sboxed(),
        ),
        (1, Just("conformance.example/mutated".to_string()).sboxed()),
    ])
}

/// Label values as the apiserver accepts them (empty, or alphanumeric at both ends, at most 63).
fn label_value() -> impl Strategy<Value = String> {
    one_of(vec![
        (3, chars(LOWER_DIGIT, 1..=8).sboxed()),
        (1, Just(String::new()).sboxed()),
        (
            1,
            prop::sample::select(vec!["true", "false", "prod", "staging", "dev", "v1.2.3", "Frontend_2"])
                .prop_map(String::from)
                .sboxed(),
        ),
    ])
}

fn value() -> impl Strategy<Value = String> {
    one_of(vec![
        (1, chars(LOWER_DIGIT, 0..=8).sboxed()),
        (1, Just(String::new()).sboxed()),
        (1, Just("héllo ✓".to_string()).sboxed()),
        (1, chars(printable_ranges(), 0..=12).sboxed()),
    ])
}

fn string_map<V: Strategy<Value = String> + Send + Sync + 'static>(
    values: fn() -> V,
) -> impl Strategy<Value = Option<BTreeMap<String, String>>> {
    one_of(vec![
        (4, Just(None).sboxed()),
        (1, Just(Some(BTreeMap::new())).sboxed()),
        (4, super::string_map::btree_map(key(), values(), 1..6).prop_map(Some).sboxed()),
        (1, super::string_map::btree_map(key(), values(), 20..48).prop_map(Some).sboxed()),
    ])
}

/// Images as policies judge them: pinned tags, `:latest`, no tag, digests, other registries.
const IMAGES: &[&str] = &[
    "registry.example/app:1.0",
    "registry.example/app:latest",
    "registry.example/app",
    "registry.example/app@sha256:4c4bd5ac3b1b8a2c7e5fb6e95b3f1a86e0e3a9b1c6f2e8d7a5b4c3d2e1f0a9b8",
    "docker.io/library/nginx:1.27",
    "registry.example:5000/team/app:v2.3.1",
    "registry.example/ünï:2",
];

/// `securityContext` of a container: absent first (what shrinking leads to), then what policies judge.
fn security_context() -> impl Strategy<Value = Option<Value>> {
    weighted(vec![
        (8, None),
        (1, Some(json!({"privileged": true}))),
        (1, Some(json!({"privileged": false, "allowPrivilegeEscalation": false}))),
        (1, Some(json!({"runAsUser": 0}))),
        (1, Some(json!({"runAsNonRoot": true, "runAsUser": 1000, "readOnlyRootFilesystem": true}))),
        (1, Some(json!({"capabilities": {"add": ["NET_ADMIN", "SYS_ADMIN"]}}))),
        (1, Some(json!({"capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}))),
    ])
}

/// `resources` of a container: absent, limits, requests, both.
fn resources() -> impl Strategy<Value = Option<Value>> {
    weighted(vec![
        (3, None),
        (1, Some(json!({"limits": {"cpu": "500m", "memory": "128Mi"}}))),
        (1, Some(json!({"requests": {"cpu": "100m", "memory": "64Mi"}}))),
        (1, Some(json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "250m", "memory": "256Mi"}}))),
    ])
}

fn container() -> impl Strategy<Value = ContainerShape> {
    (
        prop::sample::select(IMAGES),
        prop::collection::vec((chars(UPPER, 1..=6), value()), 0..3),
        any::<bool>(),
        security_context(),
        resources(),
    )
        .prop_map(|(image, env, unknown_field, security, resources)| ContainerShape {
            image: image.to_string(),
            env,
            unknown_field,
            security,
            resources,
        })
}

fn host_access() -> impl Strategy<Value = HostAccess> {
    let none = HostAccess::default();
    weighted(vec![
        (8, none.clone()),
        (1, HostAccess { host_network: true, ..none.clone() }),
        (1, HostAccess { host_pid: true, host_ipc: true, ..none.clone() }),
        (1, HostAccess { host_path: true, ..none.clone() }),
        (1, HostAccess { run_as_non_root: Some(true), ..none.clone() }),
        (1, HostAccess { run_as_non_root: Some(false), ..none }),
    ])
}

fn namespace() -> impl Strategy<Value = Option<&'static str>> {
    weighted(vec![(6, None), (1, Some("default")), (1, Some("kube-system")), (1, Some("team-a")), (1, Some("prod"))])
}

/// The strategy of object variations.
pub(crate) fn shapes() -> impl Strategy<Value = Shape> {
    (
        string_map(label_value),
        string_map(value),
        prop::collection::vec(container(), 0..4),
        prop::collection::vec(container(), 0..2),
        prop::collection::vec(container(), 0..2),
        0usize..3,
        any::<bool>(),
        weighted(vec![(30, false), (1, true)]),
        host_access(),
        namespace(),
        weighted(vec![(3, false), (1, true)]),
        job_writes(),
    )
        .prop_map(
            |(
                labels,
                annotations,
                containers,
                init_containers,
                ephemeral_containers,
                volumes,
                extra_fields,
                large,
                host,
                namespace,
                controller_made,
                job_write,
            )| Shape {
                labels,
                annotations,
                containers,
                init_containers,
                ephemeral_containers,
                volumes,
                extra_fields,
                large,
                host,
                namespace,
                controller_made,
                job_write,
            },
        )
}

/// The Job controller's writes through `/status`, the first one most often; shrinks to it.
fn job_writes() -> impl Strategy<Value = JobWrite> {
    weighted(vec![
        (3, JobWrite::Started),
        (2, JobWrite::Progress),
        (2, JobWrite::Succeeded),
        (2, JobWrite::Failed),
        (1, JobWrite::Indexed),
        (1, JobWrite::FailedIndex),
    ])
}

/// Is `target` the UPDATE of a Job's `/status`?
fn job_status_update(target: &Selected) -> bool {
    let r = &target.resource;
    r.group == "batch"
        && r.kind == "Job"
        && matches!(r.origin, Origin::BuiltIn)
        && target.operation == Operation::Update
        && target.subresource.is_some_and(|s| s.name == "status")
}

fn users() -> impl Strategy<Value = UserInfo> {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    weighted(vec![
        (1, default_user()),
        (
            1,
            UserInfo {
                username: "system:serviceaccount:conformance-test:deployer".into(),
                uid: Some("a1b2c3d4-0000-4000-8000-000000000002".into()),
                groups: strings(&[
                    "system:serviceaccounts",
                    "system:serviceaccounts:conformance-test",
                    "system:authenticated",
                ]),
                extra: Default::default(),
            },
        ),
        (
            1,
            UserInfo {
                username: "jöhn@example.com".into(),
                uid: None,
                groups: strings(&["system:authenticated"]),
                extra: [("scopes.example.com/x".to_string(), strings(&["read", "wrïte"]))].into_iter().collect(),
            },
        ),
    ])
}

/// The containers of `shapes` as JSON, named `prefix` and their index; with `resources` or
/// without (an ephemeral container holds none). The shapes' strings and values are moved in.
fn containers_json(prefix: &str, shapes: Vec<ContainerShape>, unknown_fields: bool, resources: bool) -> Value {
    Value::Array(
        shapes
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let mut o = Map::with_capacity(6);
                o.insert("name".into(), Value::String(format!("{prefix}{i}")));
                o.insert("image".into(), Value::String(c.image));
                if !c.env.is_empty() {
                    let env = c.env.into_iter().map(|(n, v)| {
                        let mut var = Map::with_capacity(2);
                        var.insert("name".into(), Value::String(n));
                        var.insert("value".into(), Value::String(v));
                        Value::Object(var)
                    });
                    o.insert("env".into(), Value::Array(env.collect()));
                }
                if c.unknown_field && unknown_fields {
                    o.insert("unknownField".into(), json!({"x": [1, "two"]}));
                }
                if let Some(security) = c.security {
                    o.insert("securityContext".into(), security);
                }
                if let Some(r) = c.resources.filter(|_| resources) {
                    o.insert("resources".into(), r);
                }
                Value::Object(o)
            })
            .collect(),
    )
}

/// A string map as a JSON object, in the map's order (what `serde_json` makes of it), its strings
/// moved in.
fn string_map_json(map: BTreeMap<String, String>) -> Value {
    let mut o = Map::with_capacity(map.len());
    o.extend(map.into_iter().map(|(k, v)| (k, Value::String(v))));
    Value::Object(o)
}

/// Vary `object` (a fixture of `kind`) by `shape`.
pub(crate) fn apply_shape(object: &mut Value, kind: &str, shape: Shape) {
    apply_shape_with(object, kind, shape, true);
}

/// Vary `object` by `shape`, with the shape's unknown fields or without them (what the typed
/// decoding of a built-in kind leaves of them).
fn apply_shape_with(object: &mut Value, kind: &str, shape: Shape, unknown_fields: bool) {
    let extra_fields = shape.extra_fields && unknown_fields;
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for (field, map) in [("labels", shape.labels), ("annotations", shape.annotations)] {
            match map {
                None => {
                    meta.remove(field);
                }
                Some(m) => {
                    meta.insert(field.into(), string_map_json(m));
                }
            }
        }
        if shape.large {
            let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
            annotations[LARGE_ANNOTATION] = Value::String("x".repeat(LARGE_BYTES));
        }
        if extra_fields {
            meta.insert("x-unknown-meta".into(), json!("ignored by the apiserver"));
        }
    }
    if extra_fields {
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
    spec.insert("containers".into(), containers_json("c", shape.containers, unknown_fields, true));
    if !shape.init_containers.is_empty() {
        spec.insert("initContainers".into(), containers_json("init", shape.init_containers, unknown_fields, true));
    }
    if kind == "Pod" && !shape.ephemeral_containers.is_empty() {
        // An ephemeral container holds no resources (nor ports or probes): the apiserver refuses them.
        let ephemeral = containers_json("debug", shape.ephemeral_containers, unknown_fields, false);
        spec.insert("ephemeralContainers".into(), ephemeral);
    }
    let host = &shape.host;
    for (field, on) in [("hostNetwork", host.host_network), ("hostPID", host.host_pid), ("hostIPC", host.host_ipc)] {
        if on {
            spec.insert(field.into(), json!(true));
        }
    }
    if let Some(non_root) = host.run_as_non_root {
        spec.insert("securityContext".into(), json!({"runAsNonRoot": non_root}));
    }
    let mut volumes: Vec<Value> =
        (0..shape.volumes).map(|i| json!({"name": format!("vol{i}"), "emptyDir": {}})).collect();
    if host.host_path {
        volumes.push(json!({"name": "host", "hostPath": {"path": "/var/run/docker.sock", "type": "Socket"}}));
    }
    if !volumes.is_empty() {
        spec.insert("volumes".into(), Value::Array(volumes));
    }
}

/// `fixture` (of `kind`) with the members [`apply_shape_with`] sets whatever the shape, its labels,
/// annotations and pod spec containers, `null` where it holds them: the shape replaces or removes
/// them where they stand, so the shaped object is the same, and the fixture's own are not copied
/// at each draw only to be dropped.
fn unshaped(mut fixture: Value, kind: &str) -> Value {
    if let Some(meta) = fixture.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["labels", "annotations"] {
            if let Some(member) = meta.get_mut(field) {
                *member = Value::Null;
            }
        }
    }
    if let Some(containers) = pod_spec_mut(&mut fixture, kind).and_then(|spec| spec.get_mut("containers")) {
        *containers = Value::Null;
    }
    fixture
}

/// A validating webhook is called after the apiserver's validation, so what it sees of a pod spec
/// has a container and, on a pod CREATE, no ephemeral containers (they are added only through
/// their subresource). A mutating webhook, called before validation, gets the shapes as drawn: a
/// request invalid on its own still reaches it.
fn as_validated(object: &mut Value, kind: &str, operation: Operation) {
    let Some(spec) = pod_spec_mut(object, kind) else { return };
    if spec.get("containers").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        spec.insert("containers".into(), json!([{"name": "c0", "image": IMAGES[0]}]));
    }
    if kind == "Pod" && operation == Operation::Create {
        spec.remove("ephemeralContainers");
    }
}

/// The name of generated objects.
const GENERATED_NAME: &str = "demo-gen";
/// The name the registry gives a generated object sent with `generateName: demo-gen-`.
const GENERATED_NAME_BY_REGISTRY: &str = "demo-gen-x2k9p";

/// One generated request for `target` from `fresh`, the bare fixture of `target`'s resource named [`GENERATED_NAME`] (built,
/// and passed through its k8s-openapi type, once per target rather than once per draw).
#[allow(clippy::too_many_arguments)]
fn build_from(
    kind: WebhookKind,
    selectors: &Selectors,
    conditions: &MatchConditions,
    target: &Selected,
    mut fresh: Value,
    shape: Shape,
    version: ReviewVersion,
    primary: bool,
    dry_run: bool,
    user: UserInfo,
) -> Option<RequestCase> {
    // A controller-made object is named by the registry: `<generateName>` and five characters.
    let controller_made = shape.controller_made && !target.resource.review && target.subresource.is_none();
    let namespace = shape.namespace;
    let job_write = job_status_update(target).then_some(shape.job_write);
    let name = if controller_made { GENERATED_NAME_BY_REGISTRY } else { GENERATED_NAME };
    // What survives the apiserver's decoding: the kind's fields, or the CRD's schema. A built-in
    // kind's fixture is already what its type holds, and the shape adds only fields of the type
    // besides the unknown ones, which the typed decoding drops (a test holds the shortcut to the
    // round trip through the type).
    match target.resource.origin {
        Origin::BuiltIn => apply_shape_with(&mut fresh, &target.resource.kind, shape, false),
        _ => {
            apply_shape(&mut fresh, &target.resource.kind, shape);
            conform(&target.resource, &mut fresh);
        }
    }
    if kind == WebhookKind::Validating {
        as_validated(&mut fresh, &target.resource.kind, target.operation);
    }
    if controller_made {
        if let Some(meta) = fresh.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("name".into(), json!(name));
            meta.insert("generateName".into(), json!(format!("{GENERATED_NAME}-")));
            meta.insert("ownerReferences".into(), json!([Maker::ReplicaSet.owner_reference()]));
        }
    }
    // The Job's spec is the write's in the stored and the written object alike.
    if let (Some(write), Some(spec)) = (job_write, fresh.get_mut("spec").and_then(Value::as_object_mut)) {
        if let Value::Object(set) = write.spec() {
            spec.extend(set);
        }
    }
    let mut spec = admission_spec_from(target, fresh, name, kind);
    if let Some(write) = job_write {
        let (stored, written) = write.statuses();
        match stored {
            Some(status) => spec.old_object["status"] = status,
            None => {
                if let Some(old) = spec.old_object.as_object_mut() {
                    old.remove("status");
                }
            }
        }
        spec.object["status"] = written;
    }
    if controller_made && target.operation == Operation::Create {
        spec.name = String::new();
        if kind == WebhookKind::Mutating {
            owned::without_name(&mut spec.object);
        }
    }
    spec.dry_run = dry_run;
    spec.user = user;
    if let Some(ns) = namespace {
        move_to_namespace(&mut spec, ns);
    }
    // Only what the webhook's namespaceSelector, objectSelector and matchConditions let through
    // reaches it.
    if !fit_selectors(selectors, &mut spec) || !steer(conditions, selectors, &mut spec) {
        return None;
    }
    super::managed_fields::record(&mut spec);
    Some(
        RequestCase::new(format!("{} (generated)", target.describe()), version, primary, spec)
            .with_schema(target.resource.crd_schema()),
    )
}

/// Generated requests for `webhook` within `scope`, among the built-in resources; `None` when its
/// rules select no such target.
#[cfg(test)]
pub(crate) fn requests(webhook: &WebhookSpec, scope: Scope) -> Option<SBoxedStrategy<RequestCase>> {
    requests_in(webhook, scope, &ApiResources::built_in())
}

/// What one draw picks before the request is built: the target's index, its full or bare fixture,
/// the shape, the review version, dryRun and the user.
type Draw = (usize, bool, Shape, ReviewVersion, bool, UserInfo);

/// Builds the request of a draw; `None` when the webhook's selectors or matchConditions leave it out.
type Build = std::sync::Arc<dyn Fn(Draw) -> Option<RequestCase> + Send + Sync>;

/// The draws and how a request is built from one (shared, not copied, by a clone).
#[derive(Clone)]
struct Recipe {
    draws: SBoxedStrategy<Draw>,
    build: Build,
}

impl std::fmt::Debug for Recipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recipe")
    }
}

/// `prop_filter_map` of the draws by the build, with each request built once per value of the
/// draw's tree rather than on every look at it (proptest's filter-map builds it again each time
/// `current` is called): the same requests, in the same order, shrinking the same way.
impl Strategy for Recipe {
    type Tree = Built;
    type Value = RequestCase;

    fn new_tree(&self, runner: &mut proptest::test_runner::TestRunner) -> proptest::strategy::NewTree<Self> {
        loop {
            let source = self.draws.new_tree(runner)?;
            if let Some(current) = (self.build)(source.current()) {
                return Ok(Built { source, build: self.build.clone(), current });
            }
            runner.reject_local(LEFT_OUT)?;
        }
    }
}

/// The tree of a [`Recipe`]: the draw's tree and the request built from its current value.
pub(crate) struct Built {
    source: Box<dyn proptest::strategy::ValueTree<Value = Draw>>,
    build: Build,
    current: RequestCase,
}

impl std::fmt::Debug for Built {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Built").field("current", &self.current.label).finish()
    }
}

impl Built {
    /// Build the source's current value; like proptest's filter-map, complicate the source until
    /// it builds.
    fn rebuild(&mut self) {
        loop {
            if let Some(case) = (self.build)(self.source.current()) {
                self.current = case;
                return;
            }
            assert!(self.source.complicate(), "Unable to complicate filtered strategy back into acceptable value");
        }
    }
}

impl proptest::strategy::ValueTree for Built {
    type Value = RequestCase;

    fn current(&self) -> RequestCase {
        self.current.clone()
    }

    fn simplify(&mut self) -> bool {
        if !self.source.simplify() {
            return false;
        }
        self.rebuild();
        true
    }

    fn complicate(&mut self) -> bool {
        if !self.source.complicate() {
            return false;
        }
        self.rebuild();
        true
    }
}

/// Why a draw is left out.
const LEFT_OUT: &str = "the webhook's selectors or matchConditions leave this request out";

/// Generated requests for `webhook` within `scope`, among the resources of `api`; `None` when its
/// rules select no such target.
pub(crate) fn requests_in(
    webhook: &WebhookSpec,
    scope: Scope,
    api: &ApiResources,
) -> Option<SBoxedStrategy<RequestCase>> {
    Some(recipe(webhook, scope, api)?.sboxed())
}

fn recipe(webhook: &WebhookSpec, scope: Scope, api: &ApiResources) -> Option<Recipe> {
    let selectors = Selectors::of(webhook);
    let conditions = webhook.conditions.clone();
    // Targets no object can reach through the selectors (e.g. /scale under a label-requiring
    // objectSelector) or the matchConditions are left out.
    let targets: Vec<Selected> = selected(webhook, api)
        .into_iter()
        .filter(|t| scope.admits(t))
        .filter(|t| {
            let mut spec = admission_spec_from(
                t,
                new_object(&t.resource, Variant::Bare, GENERATED_NAME),
                GENERATED_NAME,
                webhook.kind,
            );
            fit_selectors(&selectors, &mut spec) && steer(&conditions, &selectors, &mut spec)
        })
        .collect();
    if targets.is_empty() {
        return None;
    }
    let versions = webhook.review_versions();
    let primary = webhook.primary_review_version();
    let kind = webhook.kind;
    // The bare and the full (labelled) fixture of each target, built once: `new_object` builds
    // them through their typed k8s-openapi struct or their CRD's schema, which does not depend on
    // the draw. What every shape sets in them is left out (`null` where it stands).
    let fixtures: Vec<(Selected, [Value; 2])> = targets
        .into_iter()
        .map(|t| {
            let bare = new_object(&t.resource, Variant::Bare, GENERATED_NAME);
            let full = new_object(&t.resource, Variant::Labelled, GENERATED_NAME);
            let [bare, full] = [bare, full].map(|f| unshaped(f, &t.resource.kind));
            (t, [bare, full])
        })
        .collect();
    let indices: Vec<usize> = (0..fixtures.len()).collect();
    let draws = (
        prop::sample::select(indices),
        any::<bool>(),
        shapes(),
        prop::sample::select(versions),
        any::<bool>(),
        users(),
    )
        .sboxed();
    let build: Build = std::sync::Arc::new(move |(index, full, shape, version, dry_run, user): Draw| {
        let is_primary = version == primary;
        let (target, [bare, labelled]) = &fixtures[index];
        let fresh = match target.resource.origin {
            // A custom resource's fields vary with the draw (over its CRD's schema); the seed is
            // taken from what was drawn, so the draws and their shrinking stay as they are.
            Origin::Crd(_) => {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (index, full, format!("{shape:?}"), dry_run, &user.username).hash(&mut h);
                let variant = if full { Variant::Labelled } else { Variant::Bare };
                varied_object(&target.resource, variant, GENERATED_NAME, h.finish())
            }
            _ => if full { labelled } else { bare }.clone(),
        };
        build_from(kind, &selectors, &conditions, target, fresh, shape, version, is_primary, dry_run, user)
    });
    Some(Recipe { draws, build })
}

/// A runner whose random numbers come from `seed`.
fn seeded_runner(seed: u64) -> proptest::test_runner::TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &bytes);
    let config =
        proptest::test_runner::Config { failure_persistence: None, ..proptest::test_runner::Config::default() };
    proptest::test_runner::TestRunner::new_with_rng(config, rng)
}

/// Draws generated requests one by one (no shrinking), e.g. for load: the same requests, in the
/// same order, as the strategy of [`requests`] draws from the same runner, each built once.
pub struct Sampler {
    runner: proptest::test_runner::TestRunner,
    recipe: Recipe,
}

impl Sampler {
    /// Draws from the generated requests of `webhook` within `scope`, from `seed`; `None` when its rules select no such request.
    pub fn new(webhook: &WebhookSpec, scope: Scope, seed: u64) -> Option<Sampler> {
        Some(Sampler { runner: seeded_runner(seed), recipe: recipe(webhook, scope, &ApiResources::built_in())? })
    }

    /// A sampler drawing the same webhook's requests from `seed`, sharing this one's targets and
    /// fixtures (built once, as a campaign builds them once for all its workers): the draws of
    /// [`Sampler::new`] with `seed`.
    pub fn reseeded(&self, seed: u64) -> Sampler {
        Sampler { runner: seeded_runner(seed), recipe: self.recipe.clone() }
    }

    /// The next generated request.
    pub fn draw(&mut self) -> RequestCase {
        self.recipe.new_tree(&mut self.runner).expect("the webhook's selectors let some requests through").current
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
    use crate::requests::AdmissionSpec;
    use crate::requests::ApiResources;
    use proptest::test_runner::{Config, TestRunner};

    fn reference() -> Manifest {
        Manifest::parse(std::path::Path::new("reference.yaml"), reference_webhook::MANIFEST).unwrap()
    }

    fn deterministic() -> proptest::test_runner::TestRng {
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha)
    }

    /// What a drawn request is, its fresh uid aside.
    fn drawn(sampler: &mut Sampler) -> (String, AdmissionSpec, ReviewVersion) {
        let case = sampler.draw();
        (case.label, case.spec, case.review.api_version)
    }

    #[test]
    fn a_sampler_draws_the_same_requests_from_the_same_seed() {
        let webhook = reference().webhooks[0].clone();
        let draws = |seed| {
            let mut sampler = Sampler::new(&webhook, Scope::All, seed).unwrap();
            (0..60).map(|_| drawn(&mut sampler)).collect::<Vec<_>>()
        };
        let (first, again, other) = (draws(3), draws(3), draws(4));
        assert_eq!(first, again, "the same seed, the same requests");
        assert_ne!(first, other, "another seed, other requests");
        let mut reseeded = Sampler::new(&webhook, Scope::All, 4).unwrap().reseeded(3);
        assert_eq!((0..60).map(|_| drawn(&mut reseeded)).collect::<Vec<_>>(), first, "reseeded: the seed's requests");
        let labels: std::collections::BTreeSet<_> = first.iter().map(|d| &d.0).collect();
        assert!(labels.len() > 5, "the draws vary over the targets: {labels:?}");
    }

    /// The reviews as sent are what `serde_json` writes for them, byte for byte, over the
    /// generated and planned requests of every webhook of the reference manifest.
    #[test]
    fn generated_and_planned_reviews_are_sent_as_serde_json_writes_them() {
        let mut compared = 0;
        for (i, webhook) in reference().webhooks.iter().enumerate() {
            let mut cases = crate::requests::plan(webhook);
            if let Some(mut sampler) = Sampler::new(webhook, Scope::All, i as u64) {
                cases.extend((0..300).map(|_| sampler.draw()));
            }
            for case in cases {
                let theirs = serde_json::to_vec(&case.review).unwrap();
                assert!(case.review.to_bytes() == theirs, "{}: {}", case.label, String::from_utf8_lossy(&theirs));
                compared += 1;
            }
        }
        assert!(compared > 700, "{compared} reviews compared");
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
    fn generated_requests_satisfy_the_match_conditions() {
        let mut webhook = reference().webhooks[1].clone();
        let raw = vec![
            serde_json::json!({"name": "humans", "expression": "!request.userInfo.username.startsWith('system:serviceaccount:')"}),
            serde_json::json!({"name": "no-connect", "expression": "request.operation != 'CONNECT'"}),
        ];
        webhook.conditions = crate::conditions::MatchConditions::compile(&raw, None);
        let strategy = requests(&webhook, Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 150, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        let users = std::sync::Mutex::new(std::collections::HashSet::new());
        runner
            .run(&strategy, |case| {
                users.lock().unwrap().insert(case.spec.user.username.clone());
                prop_assert!(!case.spec.user.username.starts_with("system:serviceaccount:"), "{}", case.label);
                prop_assert!(case.spec.operation != Operation::Connect, "{}", case.label);
                Ok(())
            })
            .unwrap();
        assert!(users.into_inner().unwrap().len() >= 2, "the other users are still drawn");
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
            let nameless = std::sync::Mutex::new(0usize);
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
                            let validating = webhook.kind == WebhookKind::Validating;
                            let filled = meta.get("uid").is_some() && meta.get("creationTimestamp").is_some();
                            prop_assert_eq!(filled, validating, "{}", case.label);
                            // generation only where the kind's strategy sets it.
                            let generation = validating && super::super::generation::set_on_create(&case.spec.object);
                            prop_assert_eq!(meta.get("generation").is_some(), generation, "{}", case.label);
                            // Admission runs before storage: no resourceVersion on a CREATE.
                            prop_assert!(meta.get("resourceVersion").is_none(), "{}", case.label);
                            // A controller-made object: no name in the request, nor in the object
                            // before the registry generates it (after mutating admission).
                            if let Some(prefix) = meta.get("generateName").and_then(Value::as_str) {
                                *nameless.lock().unwrap() += 1;
                                prop_assert!(r.get("name").is_none(), "{}", case.label);
                                prop_assert_eq!(meta.get("name").is_some(), webhook.kind == WebhookKind::Validating);
                                prop_assert_eq!(prefix, "demo-gen-");
                                prop_assert_eq!(&meta["ownerReferences"][0]["controller"], true);
                            }
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
            assert!(nameless.into_inner().unwrap() > 0, "{}: no controller-made CREATE drawn", webhook.name);
        }
    }

    /// Runs `cases` requests generated for `webhook` and asserts that the apiserver's validation
    /// accepts every one `judged` selects; the kind and subresource of each, in order.
    fn accepted_kinds(
        webhook: &WebhookSpec,
        cases: u32,
        judged: impl Fn(&AdmissionSpec) -> bool,
    ) -> Vec<(String, Option<String>)> {
        let strategy = requests(webhook, Scope::All).unwrap();
        let mut runner =
            TestRunner::new_with_rng(Config { cases, failure_persistence: None, ..Config::default() }, deterministic());
        let kinds = std::sync::Mutex::new(Vec::new());
        runner
            .run(&strategy, |case| {
                let spec = &case.spec;
                if !judged(spec) {
                    return Ok(());
                }
                kinds.lock().unwrap().push((spec.kind.kind.clone(), spec.sub_resource.clone()));
                let refusal = super::super::refusal_of(spec);
                prop_assert!(refusal.is_none(), "{}: {}", case.label, refusal.unwrap_or_default());
                Ok(())
            })
            .unwrap();
        kinds.into_inner().unwrap()
    }

    fn creates_or_updates(spec: &AdmissionSpec) -> bool {
        matches!(spec.operation, Operation::Create | Operation::Update)
    }

    /// A validating webhook is called after the apiserver's validation: every object generated for
    /// one passes it (metadata of every kind, spec of the kinds whose spec is modelled).
    #[test]
    fn objects_sent_to_a_validating_webhook_pass_the_apiservers_validation() {
        let m = reference();
        let webhook = m.webhooks.iter().find(|w| w.kind == WebhookKind::Validating).unwrap();
        let judged = accepted_kinds(webhook, 300, |spec| {
            let status = spec.sub_resource.as_deref() == Some("status")
                && apiserver_validation::status_modelled(&spec.kind.group, &spec.kind.kind);
            (spec.sub_resource.is_none() || status) && creates_or_updates(spec)
        });
        assert!(judged.len() > 50);
        assert!(judged.iter().any(|(kind, sub)| kind == "Pod" && sub.as_deref() == Some("status")));
    }

    /// The generated `/status` UPDATEs of the workloads whose status strategy is modelled pass
    /// that strategy's reset and validation.
    #[test]
    fn generated_workload_status_updates_pass_the_apiservers_validation() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: s}\nwebhooks:\n  - name: s.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules:\n      - {operations: [UPDATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments/status, replicasets/status, statefulsets/status, daemonsets/status]}\n      - {operations: [UPDATE], apiGroups: [batch], apiVersions: [v1], resources: [jobs/status, cronjobs/status]}\n";
        let webhook = Manifest::parse(std::path::Path::new("s.yaml"), text).unwrap().webhooks.remove(0);
        let judged = accepted_kinds(&webhook, 200, |spec| {
            spec.sub_resource.as_deref() == Some("status") && spec.operation == Operation::Update
        });
        let kinds: std::collections::BTreeSet<&str> = judged.iter().map(|(kind, _)| kind.as_str()).collect();
        assert_eq!(Vec::from_iter(kinds), ["CronJob", "DaemonSet", "Deployment", "Job", "ReplicaSet", "StatefulSet"]);
    }

    /// What the Job controller wrote in `status` (a generated Job `/status` UPDATE's new object).
    fn job_write_of(status: &Value) -> &'static str {
        let condition = |kind: &str| {
            status["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
        };
        let uncounted = |list: &str| status["uncountedTerminatedPods"][list].as_array().is_some_and(|l| !l.is_empty());
        if condition("Complete") {
            "completed"
        } else if condition("Failed") {
            "failed"
        } else if status["failedIndexes"].as_str().is_some_and(|f| !f.is_empty()) {
            "failed index"
        } else if status["completedIndexes"].as_str().is_some_and(|c| !c.is_empty()) {
            "indexed"
        } else if uncounted("succeeded") || uncounted("failed") {
            "progress"
        } else {
            "started"
        }
    }

    /// The generated Job `/status` UPDATEs are the Job controller's writes, each over the status
    /// it wrote before: started, progress, completed, failed, indexed and failed index all drawn,
    /// the spec the same in both objects, and every one accepted by the apiserver's validation
    /// (`ValidateJobUpdateStatus`); the same pair the other way round (a terminal condition or
    /// a count taken back) is refused.
    #[test]
    fn generated_job_status_updates_are_the_job_controllers_writes() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: j}\nwebhooks:\n  - name: j.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules:\n      - {operations: [UPDATE], apiGroups: [batch], apiVersions: [v1], resources: [jobs/status]}\n";
        let webhook = Manifest::parse(std::path::Path::new("j.yaml"), text).unwrap().webhooks.remove(0);
        let strategy = requests(&webhook, Scope::All).unwrap();
        let config = Config { cases: 120, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(config, deterministic());
        let seen = std::sync::Mutex::new(std::collections::BTreeMap::<&str, usize>::new());
        runner
            .run(&strategy, |case| {
                let spec = &case.spec;
                prop_assert_eq!(spec.sub_resource.as_deref(), Some("status"));
                prop_assert_eq!(&spec.object["spec"], &spec.old_object["spec"]);
                let write = job_write_of(&spec.object["status"]);
                *seen.lock().unwrap().entry(write).or_default() += 1;
                let refusal = super::super::refusal_of(spec);
                prop_assert!(refusal.is_none(), "{write}: {}", refusal.unwrap_or_default());
                let mut back = spec.clone();
                back.old_object["status"] = spec.object["status"].clone();
                back.object["status"] = spec.old_object.get("status").cloned().unwrap_or_else(|| json!({}));
                prop_assert!(super::super::refusal_of(&back).is_some(), "{write} taken back is accepted");
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner().unwrap();
        let writes: Vec<&str> = seen.keys().copied().collect();
        assert_eq!(writes, ["completed", "failed", "failed index", "indexed", "progress", "started"], "{seen:?}");
    }

    /// The generated Services, Namespaces, ServiceAccounts and Ingresses (whose spec the
    /// validation models) pass the apiserver's validation too.
    #[test]
    fn generated_objects_of_the_service_and_ingress_kinds_pass_the_apiservers_validation() {
        let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: k}\nwebhooks:\n  - name: k.example.com\n    admissionReviewVersions: [v1]\n    sideEffects: None\n    clientConfig: {url: \"https://hook.example.com/\"}\n    rules:\n      - {operations: [CREATE, UPDATE], apiGroups: [\"\"], apiVersions: [v1], resources: [services, namespaces, serviceaccounts]}\n      - {operations: [CREATE, UPDATE], apiGroups: [networking.k8s.io], apiVersions: [v1], resources: [ingresses]}\n";
        let webhook = Manifest::parse(std::path::Path::new("k.yaml"), text).unwrap().webhooks.remove(0);
        let judged = accepted_kinds(&webhook, 300, |spec| spec.sub_resource.is_none() && creates_or_updates(spec));
        let kinds: std::collections::BTreeSet<&str> = judged.iter().map(|(kind, _)| kind.as_str()).collect();
        assert_eq!(kinds.len(), 4, "{kinds:?}");
    }

    /// Where `fields` (a FieldsV1) and `value` (at `at`) disagree: a field of the value no entry
    /// covers, or an entry naming a field or list item the value lacks.
    fn uncovered(fields: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
        let f = fields.as_object().unwrap();
        if f.keys().all(|k| k == ".") {
            return; // owned whole (a leaf or an atomic value)
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    let skip = (at.is_empty() && ["apiVersion", "kind", "status"].contains(&k.as_str()))
                        || (at == ".metadata"
                            && [
                                "name",
                                "namespace",
                                "uid",
                                "creationTimestamp",
                                "generation",
                                "managedFields",
                                "resourceVersion",
                            ]
                            .contains(&k.as_str()));
                    match f.get(&format!("f:{k}")) {
                        Some(sub) => uncovered(sub, v, &format!("{at}.{k}"), problems),
                        None if !skip && tracked(v, &format!("{at}.{k}")) => {
                            problems.push(format!("{at}.{k} is not in managedFields"))
                        }
                        None => {}
                    }
                }
                for k in f.keys().filter(|k| *k != ".") {
                    if !k.strip_prefix("f:").is_some_and(|name| map.contains_key(name)) {
                        problems.push(format!("{at}: managedFields names {k}, which the object lacks"));
                    }
                }
            }
            Value::Array(items) => {
                let matches = |k: &str, item: &Value| match (k.strip_prefix("k:"), k.strip_prefix("v:")) {
                    (Some(key), _) => serde_json::from_str::<serde_json::Map<String, Value>>(key)
                        .is_ok_and(|key| key.iter().all(|(n, v)| item.get(n) == Some(v))),
                    (_, Some(v)) => serde_json::from_str::<Value>(v).is_ok_and(|v| &v == item),
                    _ => false,
                };
                for (i, item) in items.iter().enumerate() {
                    match f.iter().find(|(k, _)| matches(k, item)) {
                        Some((k, sub)) => uncovered(sub, item, &format!("{at}[{k}]"), problems),
                        None => problems.push(format!("{at}[{i}] is not in managedFields")),
                    }
                }
                for k in f.keys().filter(|k| *k != ".") {
                    if !items.iter().any(|item| matches(k, item)) {
                        problems.push(format!("{at}: managedFields names {k}, which the list lacks"));
                    }
                }
            }
            _ => problems.push(format!("{at}: managedFields describes fields of a scalar")),
        }
    }

    /// Does `value` (at `at`) hold anything the field manager tracks? Not the registry's metadata
    /// alone, nor an empty list (neither the empty object's `null` nor a list has changed).
    fn tracked(value: &Value, at: &str) -> bool {
        match value {
            Value::Object(m) if at == ".metadata" => m.keys().any(|k| {
                !["name", "namespace", "uid", "creationTimestamp", "generation", "managedFields", "resourceVersion"]
                    .contains(&k.as_str())
            }),
            Value::Array(items) => !items.is_empty(),
            Value::Object(m) => m.is_empty() || m.iter().any(|(k, v)| tracked(v, &format!("{at}.{k}"))),
            _ => true,
        }
    }

    /// The FieldsV1 of a generated pod's managedFields entry covers every field path of the pod,
    /// and names nothing the pod lacks, in every phase and operation that carries the pod.
    #[test]
    fn a_generated_pods_managed_fields_cover_every_field_of_it() {
        let m = reference();
        for webhook in &m.webhooks {
            let strategy = requests(webhook, Scope::All).unwrap();
            let mut runner = TestRunner::new_with_rng(
                Config { cases: 150, failure_persistence: None, ..Config::default() },
                deterministic(),
            );
            let seen = std::sync::Mutex::new(0usize);
            runner
                .run(&strategy, |case| {
                    if case.spec.resource.resource != "pods" || case.spec.sub_resource.is_some() {
                        return Ok(());
                    }
                    let objects = [(true, &case.spec.object), (false, &case.spec.old_object)];
                    for (new, object) in objects.into_iter().filter(|(_, o)| !o.is_null()) {
                        let entries = object["metadata"]["managedFields"].as_array();
                        prop_assert!(entries.is_some_and(|e| !e.is_empty()), "{}: no managedFields", case.label);
                        let created = &entries.unwrap()[0];
                        prop_assert_eq!(&created["manager"], "kubectl-create");
                        if case.spec.operation == Operation::Update && new {
                            // An UPDATE keeps the stored entry and adds one for the annotation it changed.
                            let old = &case.spec.old_object["metadata"]["managedFields"];
                            prop_assert_eq!(created, &old[0]);
                            let changed = entries.unwrap().last().unwrap();
                            prop_assert_eq!(&changed["manager"], "kubectl-annotate");
                            let annotations = &changed["fieldsV1"]["f:metadata"]["f:annotations"];
                            prop_assert!(annotations.get("f:suite.conformance.example/revision").is_some());
                            continue;
                        }
                        let mut problems = Vec::new();
                        uncovered(&created["fieldsV1"], object, "", &mut problems);
                        prop_assert!(problems.is_empty(), "{}: {problems:#?}\n{}", case.label, created["fieldsV1"]);
                        *seen.lock().unwrap() += 1;
                    }
                    Ok(())
                })
                .unwrap();
            assert!(seen.into_inner().unwrap() > 10, "{}: too few pods drawn", webhook.name);
        }
    }

    /// A qualified name as the apiserver validates label and annotation keys.
    fn valid_key(key: &str) -> bool {
        let (prefix, name) = key.rsplit_once('/').map(|(p, n)| (Some(p), n)).unwrap_or((None, key));
        let name_ok = !name.is_empty()
            && name.len() <= 63
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric());
        let prefix_ok = prefix.is_none_or(|p| {
            p.len() <= 253
                && p.split('.').all(|l| {
                    !l.is_empty() && l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                })
        });
        name_ok && prefix_ok
    }

    fn valid_label_value(v: &str) -> bool {
        v.is_empty()
            || (v.len() <= 63
                && v.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                && v.starts_with(|c: char| c.is_ascii_alphanumeric())
                && v.ends_with(|c: char| c.is_ascii_alphanumeric()))
    }

    #[test]
    fn generated_objects_stay_inside_the_apiservers_limits_and_reach_what_policies_judge() {
        let m = reference();
        let strategy = requests(&m.webhooks[1], Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 600, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
        runner
            .run(&strategy, |case| {
                let object = if case.object().is_null() { &case.spec.old_object } else { case.object() };
                let meta = &object["metadata"];
                if let Some(labels) = meta["labels"].as_object() {
                    for (k, v) in labels {
                        prop_assert!(valid_key(k), "label key {k:?}");
                        prop_assert!(valid_label_value(v.as_str().unwrap_or("?")), "label value {v}");
                    }
                }
                if let Some(annotations) = meta["annotations"].as_object() {
                    let total: usize =
                        annotations.iter().map(|(k, v)| k.len() + v.as_str().map(str::len).unwrap_or(0)).sum();
                    prop_assert!(total <= 256 * 1024, "annotations total {total} bytes");
                    for k in annotations.keys() {
                        prop_assert!(valid_key(k), "annotation key {k:?}");
                    }
                }
                let text = object.to_string();
                let mut seen = seen.lock().unwrap();
                for (mark, what) in [
                    ("\"privileged\":true", "privileged"),
                    ("\"hostNetwork\":true", "hostNetwork"),
                    ("\"hostPID\":true", "hostPID"),
                    ("\"hostPath\"", "hostPath"),
                    ("\"runAsUser\":0", "runAsUser 0"),
                    ("\"runAsNonRoot\":true", "runAsNonRoot"),
                    ("\"NET_ADMIN\"", "capabilities"),
                    (":latest\"", ":latest"),
                    ("@sha256:", "digest"),
                    ("\"limits\"", "limits"),
                ] {
                    if text.contains(mark) {
                        seen.insert(what.to_string());
                    }
                }
                if let Some(ns) = &case.spec.namespace {
                    seen.insert(format!("namespace {ns}"));
                }
                if case.review.to_value()["request"]["dryRun"] == true {
                    seen.insert("dryRun".into());
                }
                Ok(())
            })
            .unwrap();
        let seen = seen.into_inner().unwrap();
        for what in [
            "privileged",
            "hostNetwork",
            "hostPID",
            "hostPath",
            "runAsUser 0",
            "runAsNonRoot",
            "capabilities",
            ":latest",
            "digest",
            "limits",
            "namespace default",
            "namespace conformance-test",
            "dryRun",
        ] {
            assert!(seen.contains(what), "no generated request has {what}: {seen:?}");
        }
        assert!(!seen.contains("namespace kube-system"), "the reference's namespaceSelector keeps kube-system out");
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

    const GADGET_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
    - name: v1
      served: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer, minimum: 1}
                color: {type: string, enum: [red, blue], default: red}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
            status: {type: object, properties: {ready: {type: boolean}}}
"#;

    /// Generated objects of a custom resource with a CRD are valid against its schema and never
    /// carry a field it prunes; without the CRD the same generator's unknown fields go through.
    #[test]
    fn generated_custom_resources_follow_their_crd_and_are_pruned() {
        let crds = crate::config::Crd::parse(std::path::Path::new("g.yaml"), GADGET_CRD).unwrap();
        let schema = crds[0].versions[0].schema.clone();
        let mut webhook = reference().webhooks[1].clone();
        webhook.rules = vec![crate::config::RuleWithOperations {
            operations: vec!["*".into()],
            api_groups: vec!["example.com".into()],
            api_versions: vec!["v1".into()],
            resources: vec!["gadgets".into(), "gadgets/status".into()],
            scope: None,
        }];
        let seen_unknown = |api: &ApiResources, strict: bool| {
            let strategy = requests_in(&webhook, Scope::All, api).unwrap();
            let mut runner = TestRunner::new_with_rng(
                Config { cases: 200, failure_persistence: None, ..Config::default() },
                deterministic(),
            );
            let seen = std::sync::atomic::AtomicUsize::new(0);
            runner
                .run(&strategy, |case| {
                    for object in [&case.spec.object, &case.spec.old_object].into_iter().filter(|o| !o.is_null()) {
                        if object.get("x-unknown").is_some() || object["metadata"].get("x-unknown-meta").is_some() {
                            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        if strict {
                            let checked = super::super::schema::conforms(&schema, object);
                            prop_assert!(checked.is_ok(), "{}: {checked:?}\n{object:#}", case.label);
                            prop_assert!(object["spec"]["color"].is_string(), "defaults are filled");
                            let refused = apiserver_validation::crd::validate_custom_resource(&schema, object);
                            prop_assert!(
                                refused.is_empty(),
                                "{}: the apiserver refuses {refused:?}\n{object:#}",
                                case.label
                            );
                            prop_assert!(case.schema.is_some(), "{}: the request knows its CRD's schema", case.label);
                        }
                    }
                    Ok(())
                })
                .unwrap();
            seen.into_inner()
        };
        assert_eq!(seen_unknown(&ApiResources::with_crds(&crds), true), 0);
        assert!(seen_unknown(&ApiResources::built_in(), false) > 0, "the generator does draw unknown fields");
    }

    /// Generated custom resources vary over their schema: not the one object a fixture is.
    #[test]
    fn generated_custom_resources_vary_over_their_schema() {
        let crds = crate::config::Crd::parse(std::path::Path::new("g.yaml"), GADGET_CRD).unwrap();
        let mut webhook = reference().webhooks[1].clone();
        webhook.rules = vec![crate::config::RuleWithOperations {
            operations: vec!["CREATE".into()],
            api_groups: vec!["example.com".into()],
            api_versions: vec!["v1".into()],
            resources: vec!["gadgets".into()],
            scope: None,
        }];
        let strategy = requests_in(&webhook, Scope::All, &ApiResources::with_crds(&crds)).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: 100, failure_persistence: None, ..Config::default() },
            deterministic(),
        );
        let seen = std::sync::Mutex::new((std::collections::BTreeSet::new(), std::collections::BTreeSet::new()));
        runner
            .run(&strategy, |case| {
                let spec = &case.spec.object["spec"];
                let mut seen = seen.lock().unwrap();
                seen.0.insert(spec["size"].as_i64().unwrap());
                seen.1.insert(spec["color"].as_str().unwrap().to_string());
                Ok(())
            })
            .unwrap();
        let (sizes, colors) = seen.into_inner().unwrap();
        assert!(sizes.contains(&1) && sizes.len() > 2, "sizes at the minimum and beyond: {sizes:?}");
        assert_eq!(colors.into_iter().collect::<Vec<_>>(), ["blue", "red"], "every enum value");
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

#[cfg(test)]
mod typed_shapes {
    use super::*;
    use crate::requests::resources::built_ins;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    /// The shortcut of `build_from` for built-in kinds (the shape without its unknown fields, no
    /// round trip through the type) makes what the round trip makes, for every built-in resource.
    #[test]
    fn a_shaped_fixture_is_what_its_type_holds() {
        let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
        let mut runner = TestRunner::new_with_rng(Config::default(), rng);
        let shapes = shapes();
        let mut problems = Vec::new();
        for resource in built_ins() {
            for variant in [Variant::Bare, Variant::Labelled] {
                let fixture = new_object(resource, variant, GENERATED_NAME);
                for _ in 0..12 {
                    let shape = shapes.new_tree(&mut runner).unwrap().current();
                    let mut fast = fixture.clone();
                    apply_shape_with(&mut fast, &resource.kind, shape.clone(), false);
                    let mut typed = fixture.clone();
                    apply_shape(&mut typed, &resource.kind, shape);
                    conform(resource, &mut typed);
                    if fast != typed {
                        problems.push(format!("{} {variant:?}:\n  fast  {fast}\n  typed {typed}", resource.kind));
                        break;
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
