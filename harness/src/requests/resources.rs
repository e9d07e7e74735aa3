//! The resources the suite knows how to present, and how a webhook's `rules` select among them.

use crate::admission::{Gvk, Operation};
use crate::config::RuleWithOperations;

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

/// A resource of the apiserver: where it lives and what it holds.
#[derive(Clone, Debug)]
pub struct Resource {
    pub group: String,
    pub version: String,
    /// Plural name, e.g. `pods`.
    pub plural: String,
    pub kind: String,
    pub namespaced: bool,
    /// False for custom resources the suite only knows from the manifest (presented as plain JSON).
    pub built_in: bool,
    pub subresources: Vec<Subresource>,
}

impl Resource {
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }
}

use Operation::*;
const STATUS: Subresource = Subresource { name: "status", operations: &[Update], object: SubObject::Parent };
const SCALE: Subresource = Subresource { name: "scale", operations: &[Update], object: SubObject::Scale };

fn built_in(group: &str, version: &str, plural: &str, kind: &str, namespaced: bool, subs: &[Subresource]) -> Resource {
    Resource {
        group: group.into(),
        version: version.into(),
        plural: plural.into(),
        kind: kind.into(),
        namespaced,
        built_in: true,
        subresources: subs.to_vec(),
    }
}

/// The built-in resources the suite presents with typed objects.
pub fn built_ins() -> Vec<Resource> {
    vec![
        built_in(
            "",
            "v1",
            "pods",
            "Pod",
            true,
            &[
                STATUS,
                Subresource { name: "ephemeralcontainers", operations: &[Update], object: SubObject::Parent },
                Subresource {
                    name: "exec",
                    operations: &[Connect],
                    object: SubObject::ConnectOptions("PodExecOptions"),
                },
                Subresource {
                    name: "attach",
                    operations: &[Connect],
                    object: SubObject::ConnectOptions("PodAttachOptions"),
                },
                Subresource {
                    name: "portforward",
                    operations: &[Connect],
                    object: SubObject::ConnectOptions("PodPortForwardOptions"),
                },
                Subresource {
                    name: "eviction",
                    operations: &[Create],
                    object: SubObject::Created("policy", "v1", "Eviction"),
                },
            ],
        ),
        built_in("", "v1", "configmaps", "ConfigMap", true, &[]),
        built_in("", "v1", "secrets", "Secret", true, &[]),
        built_in(
            "",
            "v1",
            "services",
            "Service",
            true,
            &[
                STATUS,
                Subresource {
                    name: "proxy",
                    operations: &[Connect],
                    object: SubObject::ConnectOptions("ServiceProxyOptions"),
                },
            ],
        ),
        built_in("", "v1", "serviceaccounts", "ServiceAccount", true, &[]),
        built_in("", "v1", "namespaces", "Namespace", false, &[STATUS]),
        built_in("apps", "v1", "deployments", "Deployment", true, &[STATUS, SCALE]),
        built_in("apps", "v1", "replicasets", "ReplicaSet", true, &[STATUS, SCALE]),
        built_in("apps", "v1", "statefulsets", "StatefulSet", true, &[STATUS, SCALE]),
        built_in("apps", "v1", "daemonsets", "DaemonSet", true, &[STATUS]),
        built_in("batch", "v1", "jobs", "Job", true, &[STATUS]),
        built_in("batch", "v1", "cronjobs", "CronJob", true, &[STATUS]),
        built_in("networking.k8s.io", "v1", "ingresses", "Ingress", true, &[STATUS]),
    ]
}

/// One (resource, subresource, operation) the apiserver would send to a webhook with these rules.
#[derive(Clone, Debug)]
pub struct Target {
    pub resource: Resource,
    pub subresource: Option<Subresource>,
    pub operation: Operation,
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

/// A custom resource named by a rule: kind guessed from the plural (`widgets` → `Widget`).
fn custom_resource(group: &str, version: &str, plural: &str, namespaced: bool) -> Resource {
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
        built_in: false,
        subresources: vec![STATUS, SCALE],
    }
}

/// Every target a webhook's rules select, without duplicates, in a stable order.
pub fn targets_for(rules: &[RuleWithOperations]) -> Vec<Target> {
    let known = built_ins();
    let mut out: Vec<Target> = Vec::new();
    let push = |t: Target, out: &mut Vec<Target>| {
        let dup = out.iter().any(|o| {
            o.resource.group == t.resource.group
                && o.resource.plural == t.resource.plural
                && o.subresource.map(|s| s.name) == t.subresource.map(|s| s.name)
                && o.operation == t.operation
        });
        if !dup {
            out.push(t);
        }
    };
    for rule in rules {
        let ops = operations_of(rule);
        let mut candidates: Vec<Resource> = known
            .iter()
            .filter(|r| matches_list(&rule.api_groups, &r.group) && matches_list(&rule.api_versions, &r.version))
            .cloned()
            .collect();
        // Resources named explicitly in a group the suite does not know: custom resources.
        for group in &rule.api_groups {
            if group == "*" || known.iter().any(|r| &r.group == group) {
                continue;
            }
            let version = rule.api_versions.iter().find(|v| *v != "*").cloned().unwrap_or_else(|| "v1".into());
            for entry in &rule.resources {
                let plural = entry.split('/').next().unwrap_or(entry);
                if plural != "*" {
                    let namespaced = rule.scope.as_deref() != Some("Cluster");
                    candidates.push(custom_resource(group, &version, plural, namespaced));
                }
            }
        }
        for resource in candidates {
            if !scope_matches(rule, resource.namespaced) {
                continue;
            }
            for entry in &rule.resources {
                if resource_entry_matches(entry, &resource.plural, None) {
                    for &op in &ops {
                        if op != Operation::Connect {
                            push(Target { resource: resource.clone(), subresource: None, operation: op }, &mut out);
                        }
                    }
                }
                for sub in &resource.subresources {
                    if resource_entry_matches(entry, &resource.plural, Some(sub.name)) {
                        for &op in sub.operations.iter().filter(|op| ops.contains(op)) {
                            push(
                                Target { resource: resource.clone(), subresource: Some(*sub), operation: op },
                                &mut out,
                            );
                        }
                    }
                }
            }
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

    fn names(ts: &[Target]) -> Vec<String> {
        ts.iter()
            .map(|t| match t.subresource {
                Some(s) => format!("{} {}/{}", t.operation, t.resource.plural, s.name),
                None => format!("{} {}", t.operation, t.resource.plural),
            })
            .collect()
    }

    #[test]
    fn plain_resource_excludes_subresources_and_connect() {
        let ts = targets_for(&[rule(&[""], &["pods"], &["*"], None)]);
        assert_eq!(names(&ts), vec!["CREATE pods", "UPDATE pods", "DELETE pods"]);
    }

    #[test]
    fn subresource_entries() {
        let ts = targets_for(&[rule(&[""], &["pods/exec", "pods/status"], &["*"], None)]);
        assert_eq!(names(&ts), vec!["CONNECT pods/exec", "UPDATE pods/status"]);
        let ts = targets_for(&[rule(&["apps"], &["*/scale"], &["UPDATE"], None)]);
        assert_eq!(
            names(&ts),
            vec!["UPDATE deployments/scale", "UPDATE replicasets/scale", "UPDATE statefulsets/scale"]
        );
        let ts = targets_for(&[rule(&[""], &["pods/*"], &["CONNECT"], None)]);
        assert_eq!(names(&ts), vec!["CONNECT pods/exec", "CONNECT pods/attach", "CONNECT pods/portforward"]);
    }

    #[test]
    fn scope_filters_cluster_and_namespaced() {
        let ts = targets_for(&[rule(&[""], &["*"], &["CREATE"], Some("Cluster"))]);
        assert_eq!(names(&ts), vec!["CREATE namespaces"]);
        let ts = targets_for(&[rule(&[""], &["namespaces", "pods"], &["CREATE"], Some("Namespaced"))]);
        assert_eq!(names(&ts), vec!["CREATE pods"]);
    }

    #[test]
    fn custom_resources_from_unknown_groups() {
        let ts = targets_for(&[rule(&["example.com"], &["widgets", "policies"], &["CREATE"], None)]);
        assert_eq!(ts.len(), 2);
        assert_eq!(ts[0].resource.kind, "Widget");
        assert_eq!(ts[1].resource.kind, "Policy");
        assert!(!ts[0].resource.built_in);
    }
}
