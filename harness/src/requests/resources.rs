//! The resources of the apiserver the suite plays: every built-in resource of the targeted version
//! (`kinds::RESOURCES`) with the subresources the apiserver admits, the custom resources of the CRDs
//! given, and how a webhook's `rules` select among them (`generic/webhook.go` ShouldCallHook,
//! `predicates/rules/rules.go` Matcher).

use std::sync::{Arc, OnceLock};

use crate::admission::{Gvk, Operation};
use crate::config::{Crd, RuleWithOperations, WebhookSpec};
use crate::kinds::{KindInfo, RESOURCES};

/// What object a subresource request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubObject {
    /// The parent kind (e.g. `pods/status` carries a Pod).
    Parent,
    /// `autoscaling/v1` Scale.
    Scale,
    /// A connect options object of `core/v1` (e.g. `PodExecOptions`).
    ConnectOptions(&'static str),
    /// Another kind created through the subresource: (group, version, kind).
    Created(&'static str, &'static str, &'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Subresource {
    pub name: &'static str,
    pub operations: &'static [Operation],
    pub object: SubObject,
}

/// Where the suite's knowledge of a resource's objects comes from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// A built-in kind: objects are typed with k8s-openapi.
    BuiltIn,
    /// A custom resource of a CRD given (`--crd`): objects follow this version's `openAPIV3Schema`.
    Crd(Arc<serde_json::Value>),
    /// A custom resource the suite only knows from a webhook's rules: plain JSON, its shape a guess.
    Guessed,
}

/// A resource of the apiserver: where it lives and what it holds.
#[derive(Clone, Debug)]
pub struct Resource {
    pub group: String,
    pub version: String,
    /// Plural name, e.g. `pods`.
    pub plural: String,
    pub kind: String,
    pub namespaced: bool,
    pub origin: Origin,
    /// The operations the resource itself admits (not its subresources).
    pub operations: &'static [Operation],
    /// A review (TokenReview, SubjectAccessReview, …): created and answered, never stored, no name.
    pub review: bool,
    pub subresources: Vec<Subresource>,
}

impl Resource {
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }

    pub fn is_built_in(&self) -> bool {
        matches!(self.origin, Origin::BuiltIn)
    }

    /// The structural schema of this version, for a custom resource of a CRD given.
    pub fn crd_schema(&self) -> Option<Arc<serde_json::Value>> {
        match &self.origin {
            Origin::Crd(schema) => Some(schema.clone()),
            _ => None,
        }
    }

    /// Same resource (group and plural), whatever the version.
    fn same_as(&self, other: &Resource) -> bool {
        self.group == other.group && self.plural == other.plural
    }
}

use Operation::*;
const CUD: &[Operation] = &[Create, Update, Delete];
const STATUS: Subresource = Subresource { name: "status", operations: &[Update], object: SubObject::Parent };
const SCALE: Subresource = Subresource { name: "scale", operations: &[Update], object: SubObject::Scale };

const fn connect(name: &'static str, options: &'static str) -> Subresource {
    Subresource { name, operations: &[Connect], object: SubObject::ConnectOptions(options) }
}

const fn parent_update(name: &'static str) -> Subresource {
    Subresource { name, operations: &[Update], object: SubObject::Parent }
}

const fn creates(name: &'static str, group: &'static str, version: &'static str, kind: &'static str) -> Subresource {
    Subresource { name, operations: &[Create], object: SubObject::Created(group, version, kind) }
}

/// The subresources the apiserver admits for the built-in resource `plural` of `group`: the REST
/// storage maps of kube-apiserver 1.36 (`pkg/registry/core/rest/storage_core.go` and
/// `storage_core_generic.go`, `pkg/registry/apps/rest/storage_apps.go`,
/// `pkg/registry/certificates/rest/storage_certificates.go`, and the other groups' `storage_*.go`,
/// where every kind with a status has a `/status`). `pods/log` is GET only: never admitted.
fn subresources_of(group: &str, plural: &str) -> Vec<Subresource> {
    match (group, plural) {
        ("", "pods") => vec![
            STATUS,
            parent_update("ephemeralcontainers"),
            parent_update("resize"),
            creates("binding", "", "v1", "Binding"),
            creates("eviction", "policy", "v1", "Eviction"),
            connect("exec", "PodExecOptions"),
            connect("attach", "PodAttachOptions"),
            connect("portforward", "PodPortForwardOptions"),
            connect("proxy", "PodProxyOptions"),
        ],
        ("", "replicationcontrollers") => vec![STATUS, SCALE],
        ("", "services") => vec![STATUS, connect("proxy", "ServiceProxyOptions")],
        ("", "nodes") => vec![STATUS, connect("proxy", "NodeProxyOptions")],
        ("", "namespaces") => vec![STATUS, parent_update("finalize")],
        ("", "serviceaccounts") => vec![creates("token", "authentication.k8s.io", "v1", "TokenRequest")],
        ("", "persistentvolumes" | "persistentvolumeclaims" | "resourcequotas") => vec![STATUS],
        ("apps", "deployments" | "statefulsets" | "replicasets") => vec![STATUS, SCALE],
        ("certificates.k8s.io", "certificatesigningrequests") => vec![STATUS, parent_update("approval")],
        ("apps", "daemonsets")
        | ("batch", "jobs" | "cronjobs")
        | ("autoscaling", "horizontalpodautoscalers")
        | ("policy", "poddisruptionbudgets")
        | ("certificates.k8s.io", "podcertificaterequests")
        | ("networking.k8s.io", "ingresses" | "servicecidrs")
        | ("resource.k8s.io", "resourceclaims" | "devicetaintrules" | "resourcepoolstatusrequests")
        | ("flowcontrol.apiserver.k8s.io", "flowschemas" | "prioritylevelconfigurations")
        | ("storage.k8s.io", "volumeattachments")
        | ("internal.apiserver.k8s.io", "storageversions")
        | ("storagemigration.k8s.io", "storageversionmigrations")
        | ("scheduling.k8s.io", "podgroups")
        | ("apiextensions.k8s.io", "customresourcedefinitions")
        | ("apiregistration.k8s.io", "apiservices") => vec![STATUS],
        _ => Vec::new(),
    }
}

/// Why the apiserver never sends requests for a built-in kind to a webhook, if it never does.
pub(crate) fn never_sent(kind: &KindInfo) -> Option<&'static str> {
    const EXEMPT: [&str; 6] = [
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ];
    if kind.group == "admissionregistration.k8s.io" && EXEMPT.contains(&kind.kind) {
        // predicates/rules/rules.go IsExemptAdmissionConfigurationResource: by kind, every version
        // and subresource.
        return Some("admission configuration: exempt from webhooks");
    }
    if kind.group.is_empty() && kind.kind == "ComponentStatus" {
        return Some("read-only (get, list): never admitted");
    }
    None
}

/// The reviews: created and answered in the request, never stored (`pkg/registry/authentication`,
/// `pkg/registry/authorization`); admitted as CREATE.
fn is_review(kind: &KindInfo) -> bool {
    matches!(kind.group, "authentication.k8s.io" | "authorization.k8s.io")
}

fn from_kind(kind: &KindInfo) -> Resource {
    let review = is_review(kind);
    // Bindings are create-only (`pkg/registry/core/pod/storage` BindingREST).
    let create_only = review || (kind.group.is_empty() && kind.kind == "Binding");
    Resource {
        group: kind.group.into(),
        version: kind.version.into(),
        plural: kind.plural.into(),
        kind: kind.kind.into(),
        namespaced: kind.namespaced,
        origin: Origin::BuiltIn,
        operations: if create_only { &[Create] } else { CUD },
        review,
        subresources: subresources_of(kind.group, kind.plural),
    }
}

/// Every built-in resource of the targeted version the apiserver sends to webhooks, with its
/// subresources.
pub(crate) fn built_ins() -> &'static [Resource] {
    static ALL: OnceLock<Vec<Resource>> = OnceLock::new();
    ALL.get_or_init(|| RESOURCES.iter().filter(|k| never_sent(k).is_none()).map(from_kind).collect())
}

/// The resources of the apiserver the suite plays: the built-ins and the custom resources of the
/// CRDs given.
#[derive(Clone, Debug)]
pub struct ApiResources {
    resources: Vec<Resource>,
}

impl ApiResources {
    /// The built-in resources only.
    pub fn built_in() -> ApiResources {
        ApiResources { resources: built_ins().to_vec() }
    }

    /// The built-in resources and every served version of these CRDs.
    pub fn with_crds(crds: &[Crd]) -> ApiResources {
        let mut api = ApiResources::built_in();
        for crd in crds {
            for v in crd.versions.iter().filter(|v| v.served) {
                let mut subresources = Vec::new();
                if v.status {
                    subresources.push(STATUS);
                }
                if v.scale {
                    subresources.push(SCALE);
                }
                api.resources.retain(|r| !(r.group == crd.group && r.plural == crd.plural && r.version == v.name));
                api.resources.push(Resource {
                    group: crd.group.clone(),
                    version: v.name.clone(),
                    plural: crd.plural.clone(),
                    kind: crd.kind.clone(),
                    namespaced: crd.namespaced,
                    origin: Origin::Crd(v.schema.clone()),
                    operations: CUD,
                    review: false,
                    subresources,
                });
            }
        }
        api
    }

    /// Every resource.
    pub fn all(&self) -> &[Resource] {
        &self.resources
    }

    /// The resource `plural` of `group` in `version`.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<&Resource> {
        self.resources.iter().find(|r| r.group == group && r.version == version && r.plural == plural)
    }

    fn knows(&self, group: &str, plural: &str) -> bool {
        self.resources.iter().any(|r| r.group == group && r.plural == plural)
            || RESOURCES.iter().any(|k| k.group == group && k.plural == plural)
    }

    /// The resources a request for `resource` could have been made in and converted from under
    /// `matchPolicy: Equivalent`: its other versions, and for events the other group they share
    /// storage with. The apiserver's equivalence is by storage (`apiserver/pkg/server/config.go`
    /// Complete: the identity of a resource is its storage prefix; `pkg/kubeapiserver/
    /// default_storage_factory_builder.go` AddCohabitatingResources puts events.k8s.io events with
    /// core events).
    pub fn equivalents(&self, resource: &Resource) -> Vec<&Resource> {
        let events = |r: &Resource| r.plural == "events" && matches!(r.group.as_str(), "" | "events.k8s.io");
        self.resources
            .iter()
            .filter(|r| r.version != resource.version || r.group != resource.group)
            .filter(|r| r.same_as(resource) || (events(r) && events(resource)))
            .collect()
    }
}

/// One (resource, subresource, operation) the apiserver would send to a webhook with these rules.
#[derive(Clone, Debug)]
pub(crate) struct Selected {
    pub resource: Resource,
    pub subresource: Option<Subresource>,
    pub operation: Operation,
    /// A rule names the resource itself (not only through `*`).
    pub named: bool,
    /// Under `matchPolicy: Equivalent`, the resource the user's request was made in (then converted
    /// to `resource`, which the webhook registered for): `requestKind`/`requestResource`.
    pub converted_from: Option<Resource>,
}

impl Selected {
    /// `CREATE pods`, `UPDATE deployments/scale`, `CREATE resourceclaims (from v1beta1)`.
    pub(crate) fn describe(&self) -> String {
        let what = match self.subresource {
            Some(s) => format!("{} {}/{}", self.operation, self.resource.plural, s.name),
            None => format!("{} {}", self.operation, self.resource.plural),
        };
        match &self.converted_from {
            Some(from) if from.group == self.resource.group => format!("{what} (from {})", from.version),
            Some(from) => format!("{what} (from {}/{})", from.group, from.version),
            None => what,
        }
    }
}

fn matches_list(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

fn scope_matches(rule: &RuleWithOperations, namespaced: bool) -> bool {
    match rule.scope.as_deref() {
        None | Some("*") => true,
        Some("Namespaced") => namespaced,
        Some("Cluster") => !namespaced,
        Some(_) => false,
    }
}

fn operations_of(rule: &RuleWithOperations) -> Vec<Operation> {
    if rule.operations.iter().any(|o| o == "*") {
        return Operation::ALL.to_vec();
    }
    Operation::ALL.iter().copied().filter(|op| rule.operations.iter().any(|o| o == op.as_str())).collect()
}

/// Does a rule's resource entry (`pods`, `pods/status`, `pods/*`, `*`, `*/*`, `*/scale`) select
/// `plural` with `sub`?
fn resource_entry_matches(entry: &str, plural: &str, sub: Option<&str>) -> bool {
    let (res, entry_sub) = match entry.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (entry, None),
    };
    if res != "*" && res != plural {
        return false;
    }
    match (entry_sub, sub) {
        (None, None) => true,
        (None, Some(_)) => false,
        (Some("*"), _) => true,
        (Some(s), Some(t)) => s == t,
        (Some(_), None) => false,
    }
}

/// A custom resource named by a rule that no CRD describes: kind guessed from the plural
/// (`widgets` → `Widget`).
fn guessed_resource(group: &str, version: &str, plural: &str, namespaced: bool) -> Resource {
    let singular = if let Some(stem) = plural.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = plural.strip_suffix("ses") {
        format!("{stem}s")
    } else {
        plural.strip_suffix('s').unwrap_or(plural).to_string()
    };
    let mut chars = singular.chars();
    let kind = match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => "Object".to_string(),
    };
    Resource {
        group: group.into(),
        version: version.into(),
        plural: plural.into(),
        kind,
        namespaced,
        origin: Origin::Guessed,
        operations: CUD,
        review: false,
        subresources: vec![STATUS, SCALE],
    }
}

fn same_target(a: &Selected, b: &Selected) -> bool {
    a.resource.group == b.resource.group
        && a.resource.version == b.resource.version
        && a.resource.plural == b.resource.plural
        && a.subresource.map(|s| s.name) == b.subresource.map(|s| s.name)
        && a.operation == b.operation
        && a.converted_from.as_ref().map(|r| (&r.group, &r.version))
            == b.converted_from.as_ref().map(|r| (&r.group, &r.version))
}

/// Every target these rules select exactly, without duplicates, in a stable order.
pub(crate) fn selected_by_rules(rules: &[RuleWithOperations], api: &ApiResources) -> Vec<Selected> {
    let mut out: Vec<Selected> = Vec::new();
    for rule in rules {
        let ops = operations_of(rule);
        let mut candidates: Vec<Resource> = api
            .all()
            .iter()
            .filter(|r| matches_list(&rule.api_groups, &r.group) && matches_list(&rule.api_versions, &r.version))
            .cloned()
            .collect();
        // Resources named explicitly outside the built-in groups that no CRD defines: custom
        // resources the suite only knows by name. (A built-in group's plural that it does not serve
        // is just never requested.)
        let built_in_group = |g: &str| RESOURCES.iter().any(|k| k.group == g);
        for group in rule.api_groups.iter().filter(|g| *g != "*" && !built_in_group(g)) {
            let version = rule.api_versions.iter().find(|v| *v != "*").cloned().unwrap_or_else(|| "v1".into());
            for entry in &rule.resources {
                let plural = entry.split('/').next().unwrap_or(entry);
                if plural != "*"
                    && !api.knows(group, plural)
                    && !candidates.iter().any(|r| &r.group == group && r.plural == plural)
                {
                    let namespaced = rule.scope.as_deref() != Some("Cluster");
                    candidates.push(guessed_resource(group, &version, plural, namespaced));
                }
            }
        }
        for resource in candidates {
            if !scope_matches(rule, resource.namespaced) {
                continue;
            }
            for entry in &rule.resources {
                let named = !entry.starts_with('*');
                let mut push = |t: Selected| match out.iter_mut().find(|o| same_target(o, &t)) {
                    Some(existing) => existing.named |= t.named,
                    None => out.push(t),
                };
                if resource_entry_matches(entry, &resource.plural, None) {
                    for &op in ops.iter().filter(|op| resource.operations.contains(op)) {
                        push(Selected {
                            resource: resource.clone(),
                            subresource: None,
                            operation: op,
                            named,
                            converted_from: None,
                        });
                    }
                }
                for sub in &resource.subresources {
                    if resource_entry_matches(entry, &resource.plural, Some(sub.name)) {
                        for &op in sub.operations.iter().filter(|op| ops.contains(op)) {
                            push(Selected {
                                resource: resource.clone(),
                                subresource: Some(*sub),
                                operation: op,
                                named,
                                converted_from: None,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every target the apiserver would send `webhook`: those its rules select, and under
/// `matchPolicy: Equivalent` (the default) requests made in an equivalent resource its rules do not
/// select, converted to one they do (`generic/webhook.go` ShouldCallHook: the first rule-matching
/// equivalent of the request's resource).
pub(crate) fn selected(webhook: &WebhookSpec, api: &ApiResources) -> Vec<Selected> {
    let mut out = selected_by_rules(&webhook.rules, api);
    if webhook.match_policy.as_deref() == Some("Exact") {
        return out;
    }
    let exact = out.clone();
    let same = |a: &Resource, b: &Resource| a.same_as(b) && a.version == b.version;
    for t in exact.iter().filter(|t| t.subresource.is_none()) {
        for other in api.equivalents(&t.resource) {
            // A request the rules select as it is goes unconverted; one converted already, once.
            let selected =
                exact.iter().any(|e| e.subresource.is_none() && e.operation == t.operation && same(&e.resource, other));
            let converted = out
                .iter()
                .any(|o| o.operation == t.operation && o.converted_from.as_ref().is_some_and(|f| same(f, other)));
            if selected || converted {
                continue;
            }
            out.push(Selected { converted_from: Some(other.clone()), named: t.named, ..t.clone() });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(groups: &[&str], resources: &[&str], ops: &[&str], scope: Option<&str>) -> RuleWithOperations {
        RuleWithOperations {
            operations: ops.iter().map(|s| s.to_string()).collect(),
            api_groups: groups.iter().map(|s| s.to_string()).collect(),
            api_versions: vec!["*".into()],
            resources: resources.iter().map(|s| s.to_string()).collect(),
            scope: scope.map(String::from),
        }
    }

    fn names(ts: &[Selected]) -> Vec<String> {
        ts.iter().map(Selected::describe).collect()
    }

    fn api() -> ApiResources {
        ApiResources::built_in()
    }

    #[test]
    fn plain_resource_excludes_subresources_and_connect() {
        let ts = selected_by_rules(&[rule(&[""], &["pods"], &["*"], None)], &api());
        assert_eq!(names(&ts), vec!["CREATE pods", "UPDATE pods", "DELETE pods"]);
        assert!(ts.iter().all(|t| t.named));
    }

    #[test]
    fn subresource_entries() {
        let ts = selected_by_rules(&[rule(&[""], &["pods/exec", "pods/status"], &["*"], None)], &api());
        assert_eq!(names(&ts), vec!["CONNECT pods/exec", "UPDATE pods/status"]);
        let ts = selected_by_rules(&[rule(&["apps"], &["*/scale"], &["UPDATE"], None)], &api());
        assert_eq!(
            names(&ts),
            vec!["UPDATE deployments/scale", "UPDATE replicasets/scale", "UPDATE statefulsets/scale"]
        );
        let ts = selected_by_rules(&[rule(&[""], &["pods/*"], &["CONNECT"], None)], &api());
        assert!(ts.iter().all(|t| t.subresource.is_some()), "pods admits no CONNECT itself");
        assert_eq!(
            names(&ts),
            vec!["CONNECT pods/exec", "CONNECT pods/attach", "CONNECT pods/portforward", "CONNECT pods/proxy"]
        );
        let ts = selected_by_rules(&[rule(&["*"], &["*/scale"], &["*"], None)], &api());
        assert_eq!(
            names(&ts),
            vec![
                "UPDATE replicationcontrollers/scale",
                "UPDATE deployments/scale",
                "UPDATE replicasets/scale",
                "UPDATE statefulsets/scale"
            ]
        );
        // `pods/*` also selects pods itself: `*` matches the empty subresource too
        // (predicates/rules/rules.go Matcher.resource, splitResource).
        let ts = selected_by_rules(&[rule(&[""], &["pods/*"], &["CREATE"], None)], &api());
        assert_eq!(names(&ts), vec!["CREATE pods", "CREATE pods/binding", "CREATE pods/eviction"]);
        assert_eq!(ts[2].subresource.unwrap().object, SubObject::Created("policy", "v1", "Eviction"));
    }

    #[test]
    fn scope_filters_cluster_and_namespaced() {
        let ts = selected_by_rules(&[rule(&[""], &["*"], &["CREATE"], Some("Cluster"))], &api());
        assert_eq!(names(&ts), vec!["CREATE namespaces", "CREATE nodes", "CREATE persistentvolumes"]);
        assert!(ts.iter().all(|t| !t.named));
        let ts = selected_by_rules(&[rule(&[""], &["namespaces", "pods"], &["CREATE"], Some("Namespaced"))], &api());
        assert_eq!(names(&ts), vec!["CREATE pods"]);
    }

    #[test]
    fn every_resource_of_every_group_under_a_wildcard_and_no_webhook_configuration() {
        let ts = selected_by_rules(&[rule(&["*"], &["*", "*/*"], &["*"], None)], &api());
        for kind in RESOURCES {
            let sent = ts.iter().any(|t| {
                t.resource.group == kind.group && t.resource.version == kind.version && t.resource.plural == kind.plural
            });
            assert_eq!(sent, never_sent(kind).is_none(), "{} {}/{}", kind.kind, kind.group, kind.version);
        }
        assert!(ts.iter().all(|t| t.resource.group != "admissionregistration.k8s.io"), "all exempt in 1.36");
        let reviews: Vec<_> = ts.iter().filter(|t| t.resource.review).map(|t| t.operation).collect();
        assert!(!reviews.is_empty() && reviews.iter().all(|o| *o == Create), "reviews are CREATE only");
        let named = selected_by_rules(
            &[rule(&["admissionregistration.k8s.io"], &["validatingwebhookconfigurations"], &["*"], None)],
            &api(),
        );
        assert!(named.is_empty(), "webhook configurations are never sent");
    }

    /// The README's table of the resources and subresources the suite builds, from the catalog.
    fn readme_table() -> String {
        let mut out = String::from(
            "| group/version | kind | resource | scope | operations | subresources |\n|---|---|---|---|---|---|\n",
        );
        for kind in RESOURCES {
            let gv = if kind.group.is_empty() {
                kind.version.to_string()
            } else {
                format!("{}/{}", kind.group, kind.version)
            };
            let scope = if kind.namespaced { "Namespaced" } else { "Cluster" };
            let (ops, subs) = match never_sent(kind) {
                Some(why) => (format!("never sent: {why}"), String::new()),
                None => {
                    let r = from_kind(kind);
                    let ops: Vec<_> = r.operations.iter().map(|o| o.as_str()).collect();
                    let subs: Vec<String> = r
                        .subresources
                        .iter()
                        .map(|s| match s.object {
                            SubObject::Parent => s.name.to_string(),
                            SubObject::Scale => format!("{} → Scale", s.name),
                            SubObject::ConnectOptions(k) => format!("{} → {k} (CONNECT)", s.name),
                            SubObject::Created(_, _, k) => format!("{} → {k} (CREATE)", s.name),
                        })
                        .collect();
                    let ops = if r.review {
                        format!("{} (review: no name, never stored)", ops.join(" "))
                    } else {
                        ops.join(" ")
                    };
                    (ops, subs.join(", "))
                }
            };
            out.push_str(&format!("| {gv} | {} | {} | {scope} | {ops} | {subs} |\n", kind.kind, kind.plural));
        }
        out
    }

    #[test]
    fn the_readme_table_lists_every_resource_the_suite_builds() {
        let readme = include_str!("../../../README.md");
        let (begin, end) = ("<!-- resources:begin -->\n", "<!-- resources:end -->");
        let start = readme.find(begin).expect("the README has the resources table") + begin.len();
        let stop = readme[start..].find(end).expect("the table ends") + start;
        let expected = readme_table();
        assert!(readme[start..stop] == expected, "the README's table is out of date; it should read:\n{expected}");
        assert_eq!(expected.lines().count(), 2 + 95);
    }

    #[test]
    fn guessed_custom_resources_from_unknown_groups() {
        let ts = selected_by_rules(&[rule(&["example.com"], &["widgets", "policies"], &["CREATE"], None)], &api());
        assert_eq!(ts.len(), 2);
        assert_eq!(ts[0].resource.kind, "Widget");
        assert_eq!(ts[1].resource.kind, "Policy");
        assert!(matches!(ts[0].resource.origin, Origin::Guessed));
    }

    #[test]
    fn crds_replace_the_guess() {
        let crds = crate::config::Crd::parse(
            std::path::Path::new("c.yaml"),
            r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.com
  scope: Cluster
  names: {plural: policies, kind: NetworkRule}
  versions:
    - {name: v1, served: true, schema: {openAPIV3Schema: {type: object}}, subresources: {scale: {}}}
    - {name: v2, served: true, schema: {openAPIV3Schema: {type: object}}}
    - {name: v0, served: false, schema: {openAPIV3Schema: {type: object}}}
"#,
        )
        .unwrap();
        let api = ApiResources::with_crds(&crds);
        let mut r = rule(&["example.com"], &["policies", "policies/scale", "policies/status"], &["*"], None);
        r.api_versions = vec!["v1".into()];
        let ts = selected_by_rules(std::slice::from_ref(&r), &api);
        assert_eq!(names(&ts), vec!["CREATE policies", "UPDATE policies", "DELETE policies", "UPDATE policies/scale"]);
        assert_eq!(ts[0].resource.kind, "NetworkRule");
        assert!(!ts[0].resource.namespaced);
        assert!(matches!(ts[0].resource.origin, Origin::Crd(_)));
        let mut webhook = crate::config::Manifest::parse(std::path::Path::new("m.yaml"), reference_webhook::MANIFEST)
            .unwrap()
            .webhooks[0]
            .clone();
        webhook.rules = vec![r];
        let all = selected(&webhook, &api);
        let converted: Vec<_> = all.iter().filter(|t| t.converted_from.is_some()).map(Selected::describe).collect();
        assert_eq!(
            converted,
            vec!["CREATE policies (from v2)", "UPDATE policies (from v2)", "DELETE policies (from v2)"]
        );
        webhook.match_policy = Some("Exact".into());
        assert!(selected(&webhook, &api).iter().all(|t| t.converted_from.is_none()));
    }

    #[test]
    fn equivalent_versions_and_groups() {
        let api = api();
        let mut webhook = crate::config::Manifest::parse(std::path::Path::new("m.yaml"), reference_webhook::MANIFEST)
            .unwrap()
            .webhooks[0]
            .clone();
        let mut r = rule(&["autoscaling", ""], &["horizontalpodautoscalers", "events"], &["CREATE"], None);
        r.api_versions = vec!["v2".into(), "v1".into()];
        webhook.rules = vec![r];
        let ts = selected(&webhook, &api);
        // autoscaling/v1 and /v2 are both selected: nothing converted; events.k8s.io events are.
        assert_eq!(
            names(&ts),
            vec![
                "CREATE events",
                "CREATE horizontalpodautoscalers",
                "CREATE horizontalpodautoscalers",
                "CREATE events (from events.k8s.io/v1)"
            ]
        );
        let from = ts[3].converted_from.as_ref().unwrap();
        assert_eq!((from.group.as_str(), from.kind.as_str()), ("events.k8s.io", "Event"));
    }
}
