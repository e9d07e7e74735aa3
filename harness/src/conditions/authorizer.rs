//! The `authorizer` variable of matchConditions: the Kubernetes authz CEL library
//! (`k8s.io/apiserver/pkg/cel/library/authz.go`: `path`, `group`, `serviceAccount`, `resource`,
//! `subresource`, `namespace`, `name`, `fieldSelector`, `labelSelector`, `check`, `allowed`,
//! `reason`, `errored`, `error`, and `authorizer.requestResource`), answered from a description of
//! what the cluster allows, or reported as unknown.
//!
//! The description (`--authorizer FILE`) is YAML in RBAC's terms: grants of rules to subjects;
//! whatever no grant allows is denied.
//!
//! ```yaml
//! allow:
//!   - users: [alice]                 # and/or groups: […], serviceAccounts: [namespace/name]
//!     namespace: team-a              # optional: the rules hold in this namespace only
//!     rules:
//!       - verbs: [create, update]
//!         apiGroups: [""]
//!         resources: [pods, pods/status]
//!         resourceNames: [demo]      # optional: these names only
//!       - verbs: [get]
//!         nonResourceURLs: [/healthz]
//!   - rules: [{verbs: [breakglass], apiGroups: [admissionregistration.k8s.io], resources: ["*"]}]
//!     groups: [system:masters]
//! ```
//!
//! A grant without subjects applies to everyone. Rules match as RBAC's do
//! (`pkg/apis/rbac/v1/evaluation_helpers.go`): `*` for every verb, group, resource or name,
//! `pods/status` for a subresource, `*/status` for one of every resource, a trailing `*` in a
//! non-resource URL for a prefix. Field and label selectors are accepted and play no part.

use std::path::Path;
use std::sync::Arc;

use cel::extractors::This;
use cel::{Context, ExecutionError, FunctionContext, Value};
use serde::Deserialize;

use super::value::{get, get_str, map, string, with};
use crate::error::{Error, InputError};

/// What the cluster's authorizer answers.
#[derive(Clone, Debug, Default)]
pub enum Authorizer {
    /// Not described: a condition whose value depends on an authorization check cannot be
    /// evaluated (it is reported, never taken as true).
    #[default]
    Unknown,
    /// Described by RBAC-style grants.
    Described(Arc<Policy>),
}

/// RBAC-style grants: what the cluster allows, to whom.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// The grants; anything none of them allows is denied.
    #[serde(default)]
    pub allow: Vec<Grant>,
}

/// Rules granted to subjects (everyone when no subject is named).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Grant {
    /// User names.
    #[serde(default)]
    pub users: Vec<String>,
    /// Groups.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Service accounts as `namespace/name`.
    #[serde(default)]
    pub service_accounts: Vec<String>,
    /// The rules hold in this namespace only (as a RoleBinding's do).
    #[serde(default)]
    pub namespace: Option<String>,
    /// What is allowed.
    #[serde(default)]
    pub rules: Vec<PolicyRule>,
}

/// An RBAC PolicyRule.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PolicyRule {
    /// Verbs (`*` for all).
    #[serde(default)]
    pub verbs: Vec<String>,
    /// API groups (`""` for core, `*` for all).
    #[serde(default)]
    pub api_groups: Vec<String>,
    /// Resources, `resource/subresource`, `*/subresource` or `*`.
    #[serde(default)]
    pub resources: Vec<String>,
    /// Names (all when empty).
    #[serde(default)]
    pub resource_names: Vec<String>,
    /// Non-resource paths (a trailing `*` matches a prefix).
    #[serde(default, rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
}

/// One authorization question: who, which verb, on what.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// The user's name.
    pub user: String,
    /// The user's groups.
    pub groups: Vec<String>,
    /// The verb.
    pub verb: String,
    /// `Some(path)` for a non-resource request.
    pub path: Option<String>,
    /// API group.
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Subresource, or "".
    pub subresource: String,
    /// Namespace, or "" for the cluster scope.
    pub namespace: String,
    /// Name, or "".
    pub name: String,
}

fn any_is(list: &[String], value: &str) -> bool {
    list.iter().any(|v| v == "*" || v == value)
}

impl PolicyRule {
    fn allows(&self, a: &Attributes) -> bool {
        if !any_is(&self.verbs, &a.verb) {
            return false;
        }
        if let Some(path) = &a.path {
            return self.non_resource_urls.iter().any(|u| match u.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => u == path,
            });
        }
        let combined =
            if a.subresource.is_empty() { a.resource.clone() } else { format!("{}/{}", a.resource, a.subresource) };
        let resource_ok = self.resources.iter().any(|r| {
            r == "*"
                || *r == combined
                || (!a.subresource.is_empty() && r.strip_prefix("*/") == Some(a.subresource.as_str()))
        });
        resource_ok
            && any_is(&self.api_groups, &a.group)
            && (self.resource_names.is_empty() || self.resource_names.contains(&a.name))
    }
}

impl Grant {
    fn applies_to(&self, a: &Attributes) -> bool {
        if self.users.is_empty() && self.groups.is_empty() && self.service_accounts.is_empty() {
            return true;
        }
        self.users.contains(&a.user)
            || self.groups.iter().any(|g| a.groups.contains(g))
            || self.service_accounts.iter().any(|sa| match sa.split_once('/') {
                Some((ns, name)) => a.user == format!("system:serviceaccount:{ns}:{name}"),
                None => false,
            })
    }
}

/// Why a description of the authorizer was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// It is not the YAML of a description (an unknown field, a wrong type).
    #[error("{0}")]
    Yaml(#[source] serde_yaml::Error),
    /// A service account that is not `namespace/name`.
    #[error("allow[{grant}].serviceAccounts: {account:?} is not namespace/name")]
    ServiceAccount {
        /// The grant's index.
        grant: usize,
        /// The service account as written.
        account: String,
    },
    /// A rule that allows no verb.
    #[error("allow[{grant}].rules[{rule}]: verbs must not be empty")]
    NoVerbs {
        /// The grant's index.
        grant: usize,
        /// The rule's index in the grant.
        rule: usize,
    },
}

impl Policy {
    /// Read a description from `file`.
    pub fn load(file: &Path) -> Result<Policy, Error> {
        let what = format!("--authorizer {}", file.display());
        let text = std::fs::read_to_string(file).map_err(|e| Error::input(&what, e))?;
        Policy::parse(&text).map_err(|e| Error::input(&what, InputError::Invalid(e.into())))
    }

    /// Parse a description.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        let policy: Policy = serde_yaml::from_str(text).map_err(PolicyError::Yaml)?;
        for (grant, g) in policy.allow.iter().enumerate() {
            for sa in &g.service_accounts {
                if sa.split_once('/').is_none_or(|(ns, name)| ns.is_empty() || name.is_empty()) {
                    return Err(PolicyError::ServiceAccount { grant, account: sa.clone() });
                }
            }
            for (rule, r) in g.rules.iter().enumerate() {
                if r.verbs.is_empty() {
                    return Err(PolicyError::NoVerbs { grant, rule });
                }
            }
        }
        Ok(policy)
    }

    /// Does any grant allow `a`?
    pub fn allows(&self, a: &Attributes) -> bool {
        self.allow.iter().any(|g| {
            g.applies_to(a)
                && (g.namespace.is_none() || g.namespace.as_deref() == Some(a.namespace.as_str()))
                && g.rules.iter().any(|r| r.allows(a))
        })
    }
}

/// The message of the error a check raises when the authorizer is not described.
pub(crate) const UNKNOWN: &str = "the cluster's authorizer is not described (give --authorizer FILE)";

const TAG: &str = "__authz";

fn tagged(value: &Value, kind: &str) -> bool {
    get_str(value, TAG) == kind
}

fn typed(ftx: &FunctionContext, value: &Value, kind: &str) -> Result<(), ExecutionError> {
    if tagged(value, kind) {
        Ok(())
    } else {
        Err(ftx.error(format!("no matching overload: {}() applies to a {kind}", ftx.name)))
    }
}

fn strings(value: Option<Value>) -> Vec<String> {
    match value {
        Some(Value::List(items)) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The `authorizer` value for a request from `user` in `groups`; `request_resource` is the
/// ResourceCheck of the request itself (group, resource, subresource, namespace, name).
pub(crate) fn variable(user: &str, groups: &[String], request_resource: [&str; 5]) -> Value {
    let groups = Value::List(Arc::new(groups.iter().map(|g| string(g)).collect()));
    let principal = map(vec![(TAG, string("authorizer")), ("user", string(user)), ("groups", groups)]);
    let [group, resource, subresource, namespace, name] = request_resource;
    let check = map(vec![
        (TAG, string("resource")),
        ("principal", principal.clone()),
        ("group", string(group)),
        ("resource", string(resource)),
        ("subresource", string(subresource)),
        ("namespace", string(namespace)),
        ("name", string(name)),
    ]);
    with(&principal, "requestResource", check)
}

fn decision(allowed: bool) -> Value {
    map(vec![
        (TAG, string("decision")),
        ("allowed", Value::Bool(allowed)),
        ("reason", string("")),
        ("error", string("")),
    ])
}

fn attributes(principal: &Value, verb: &str) -> Attributes {
    Attributes {
        user: get_str(principal, "user"),
        groups: strings(get(principal, "groups")),
        verb: verb.to_string(),
        ..Attributes::default()
    }
}

/// Register the library's functions on `context`, answering checks with `authorizer`.
pub(crate) fn register(context: &mut Context<'_, '_>, authorizer: &Authorizer) -> Result<(), cel::DeclarationError> {
    let answer = authorizer.clone();
    let check = move |ftx: &FunctionContext, a: Attributes| -> Result<Value, ExecutionError> {
        match &answer {
            Authorizer::Unknown => Err(ftx.error(UNKNOWN)),
            Authorizer::Described(policy) => Ok(decision(policy.allows(&a))),
        }
    };
    context.add_function(
        "path",
        |ftx: &FunctionContext, This(this): This<Value>, path: Arc<String>| -> Result<Value, ExecutionError> {
            typed(ftx, &this, "authorizer")?;
            if path.trim().is_empty() {
                return Err(ftx.error("path must not be empty"));
            }
            Ok(map(vec![(TAG, string("pathcheck")), ("principal", this), ("path", Value::String(path))]))
        },
    )?;
    context.add_function(
        "group",
        |ftx: &FunctionContext, This(this): This<Value>, group: Arc<String>| -> Result<Value, ExecutionError> {
            typed(ftx, &this, "authorizer")?;
            Ok(map(vec![(TAG, string("groupcheck")), ("principal", this), ("group", Value::String(group))]))
        },
    )?;
    context.add_function(
        "serviceAccount",
        |ftx: &FunctionContext,
         This(this): This<Value>,
         namespace: Arc<String>,
         name: Arc<String>|
         -> Result<Value, ExecutionError> {
            typed(ftx, &this, "authorizer")?;
            let groups = [
                "system:serviceaccounts".to_string(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".to_string(),
            ];
            let groups = Value::List(Arc::new(groups.iter().map(|g| string(g)).collect()));
            let user = format!("system:serviceaccount:{namespace}:{name}");
            Ok(map(vec![(TAG, string("authorizer")), ("user", string(&user)), ("groups", groups)]))
        },
    )?;
    context.add_function(
        "resource",
        |ftx: &FunctionContext, This(this): This<Value>, resource: Arc<String>| -> Result<Value, ExecutionError> {
            typed(ftx, &this, "groupcheck")?;
            if resource.trim().is_empty() {
                return Err(ftx.error("resource must not be empty"));
            }
            Ok(map(vec![
                (TAG, string("resource")),
                ("principal", get(&this, "principal").unwrap_or(Value::Null)),
                ("group", get(&this, "group").unwrap_or(Value::Null)),
                ("resource", Value::String(resource)),
            ]))
        },
    )?;
    for field in ["subresource", "namespace", "name", "fieldSelector", "labelSelector"] {
        context.add_function(
            field,
            move |ftx: &FunctionContext,
                  This(this): This<Value>,
                  value: Arc<String>|
                  -> Result<Value, ExecutionError> {
                typed(ftx, &this, "resource")?;
                Ok(with(&this, field, Value::String(value)))
            },
        )?;
    }
    context.add_function(
        "check",
        move |ftx: &FunctionContext, This(this): This<Value>, verb: Arc<String>| -> Result<Value, ExecutionError> {
            let principal = get(&this, "principal").unwrap_or(Value::Null);
            let mut a = attributes(&principal, &verb);
            if tagged(&this, "pathcheck") {
                a.path = Some(get_str(&this, "path"));
            } else {
                typed(ftx, &this, "resource")?;
                a.group = get_str(&this, "group");
                a.resource = get_str(&this, "resource");
                a.subresource = get_str(&this, "subresource");
                a.namespace = get_str(&this, "namespace");
                a.name = get_str(&this, "name");
            }
            check(ftx, a)
        },
    )?;
    context.add_function(
        "allowed",
        |ftx: &FunctionContext, This(this): This<Value>| -> Result<Value, ExecutionError> {
            typed(ftx, &this, "decision")?;
            Ok(get(&this, "allowed").unwrap_or(Value::Bool(false)))
        },
    )?;
    context.add_function(
        "errored",
        |ftx: &FunctionContext, This(this): This<Value>| -> Result<Value, ExecutionError> {
            typed(ftx, &this, "decision")?;
            Ok(Value::Bool(!get_str(&this, "error").is_empty()))
        },
    )?;
    for field in ["reason", "error"] {
        context.add_function(
            field,
            move |ftx: &FunctionContext, This(this): This<Value>| -> Result<Value, ExecutionError> {
                typed(ftx, &this, "decision")?;
                Ok(string(&get_str(&this, field)))
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy::parse(
            r#"
allow:
  - users: [alice]
    namespace: team-a
    rules:
      - {verbs: [create], apiGroups: [""], resources: [pods, "*/status"], resourceNames: [demo]}
  - groups: [system:masters]
    rules:
      - {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
  - serviceAccounts: [kube-system/deployer]
    rules:
      - {verbs: [get], nonResourceURLs: ["/healthz*"]}
"#,
        )
        .unwrap()
    }

    fn ask(user: &str, groups: &[&str], f: impl FnOnce(&mut Attributes)) -> bool {
        let mut a = Attributes {
            user: user.into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            ..Attributes::default()
        };
        f(&mut a);
        policy().allows(&a)
    }

    #[test]
    fn grants_match_as_rbac_rules_do() {
        let pod = |verb: &str, ns: &str, name: &str, sub: &str| {
            let (verb, ns, name, sub) = (verb.to_string(), ns.to_string(), name.to_string(), sub.to_string());
            move |a: &mut Attributes| {
                a.verb = verb;
                a.resource = "pods".into();
                a.namespace = ns;
                a.name = name;
                a.subresource = sub;
            }
        };
        assert!(ask("alice", &[], pod("create", "team-a", "demo", "")));
        assert!(ask("alice", &[], pod("create", "team-a", "demo", "status")), "*/status");
        assert!(!ask("alice", &[], pod("create", "team-b", "demo", "")), "another namespace");
        assert!(!ask("alice", &[], pod("create", "team-a", "other", "")), "another name");
        assert!(!ask("alice", &[], pod("delete", "team-a", "demo", "")), "another verb");
        assert!(!ask("bob", &[], pod("create", "team-a", "demo", "")), "another user");
        assert!(ask("bob", &["system:masters"], pod("delete", "x", "y", "exec")));
        let health = |path: &str| {
            let path = path.to_string();
            move |a: &mut Attributes| {
                a.verb = "get".into();
                a.path = Some(path);
            }
        };
        assert!(ask("system:serviceaccount:kube-system:deployer", &[], health("/healthz/ready")));
        assert!(!ask("system:serviceaccount:kube-system:deployer", &[], health("/metrics")));
    }

    #[test]
    fn bad_descriptions_are_errors() {
        let refused = |text: &str| Policy::parse(text).unwrap_err();
        let sa = refused("allow: [{serviceAccounts: [deployer]}]");
        assert!(matches!(&sa, PolicyError::ServiceAccount { grant: 0, account } if account == "deployer"), "{sa:?}");
        assert!(sa.to_string().contains("namespace/name"), "{sa}");
        let verbs = refused("allow: [{rules: [{resources: [pods]}]}]");
        assert!(matches!(verbs, PolicyError::NoVerbs { grant: 0, rule: 0 }), "{verbs:?}");
        let unknown = refused("allow: [{user: alice}]");
        assert!(matches!(&unknown, PolicyError::Yaml(_)) && unknown.to_string().contains("unknown field"), "{unknown}");
        assert!(std::error::Error::source(&unknown).is_some(), "the YAML error is its source");
    }
}
