//! An Ingress as kubernetes/kubernetes `pkg/apis/networking/validation/validation.go` validates it
//! (release-1.36): `ValidateIngressCreate`, `ValidateIngressUpdate`, `validateIngress`,
//! `ValidateIngressSpec`, `validateIngressRules` (hosts: no IP address, wildcard or plain DNS
//! subdomain), `validateHTTPIngressRuleValue`, `validateHTTPIngressPath` (pathType enum, absolute
//! paths, forbidden sequences and suffixes), `validateIngressBackend` (a resource or a service,
//! the service's name a DNS label under `RelaxedServiceNameValidation`, on by default, its port
//! a name or a number, exactly one), `validateIngressTypedLocalObjectReference` (a resource
//! backend: `apiGroup`, when set, a DNS subdomain; `kind` and `name` required, each a path segment
//! name by apimachinery `content.IsPathSegmentName`), `validateIngressTLS` (hosts, secret names)
//! and the ingress class name. On update the options Go derives from the old object apply: an old
//! invalid TLS secret name or an old wildcard rule with an invalid value lets those stay.
//! networking/v1 has no defaults for an Ingress.
//!
//! The resource backend was written from kubernetes/kubernetes `master` as the code index holds it
//! (`IsPathSegmentName` of `pkg/api/validate/content/path.go`); release-1.36's own text could not
//! be read. The messages are those of the older `path.IsValidPathSegmentName` too.

use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::kinds::NameRule;
use crate::lookup::Lookup;

const PATH_TYPES: &[&str] = &["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_PATH_SEQUENCES: &[&str] = &["//", "/./", "/../", "%2f", "%2F"];
const INVALID_PATH_SUFFIXES: &[&str] = &["/..", "/."];
/// `annotationIngressClass`.
pub const INGRESS_CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";
const WILDCARD_FMT: &str = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const WILDCARD_ERR: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

/// The options `ValidateIngressUpdate` derives from the old object (all off on create).
#[derive(Clone, Copy, Debug, Default)]
struct Options {
    allow_invalid_secret_name: bool,
    allow_invalid_wildcard_host_rule: bool,
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.member(key).and_then(Value::as_str).unwrap_or("")
}

fn items<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.member(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn invalid_each(path: &str, value: &str, msgs: Vec<String>) -> Vec<FieldError> {
    msgs.into_iter().map(|m| FieldError::invalid(path, BadValue::Str(value.into()), m)).collect()
}

/// `IsWildcardDNS1123Subdomain`.
pub fn is_wildcard_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > content::DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(content::max_len_error(content::DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    // The regex alone: the subdomain's own length limit is not the wildcard's.
    let too_long = content::max_len_error(content::DNS1123_SUBDOMAIN_MAX_LENGTH);
    let valid =
        value.strip_prefix("*.").is_some_and(|rest| content::is_dns1123_subdomain(rest).iter().all(|m| *m == too_long));
    if !valid {
        errs.push(content::regex_error(WILDCARD_ERR, WILDCARD_FMT, &["*.example.com"]));
    }
    errs
}

/// `netutils.ParseIPSloppy(host) != nil`: an IPv4 address (its fields of any number of digits,
/// leading zeros allowed, as Go 1.16's `parseIPv4` reads them) or an IPv6 one.
fn is_ip(host: &str) -> bool {
    crate::ip::parse_sloppy(host).is_some()
}

/// `validateIngressTypedLocalObjectReference` of a resource backend (not null).
fn typed_local_object_reference(r: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(group) = r.member("apiGroup").and_then(Value::as_str) {
        errs.extend(invalid_each(&format!("{path}.apiGroup"), group, content::is_dns1123_subdomain(group)));
    }
    for member in ["kind", "name"] {
        let value = text(r, member);
        let at = format!("{path}.{member}");
        if value.is_empty() {
            errs.push(FieldError::required(&at, ""));
        } else {
            errs.extend(invalid_each(&at, value, content::is_path_segment_name(value)));
        }
    }
    errs
}

/// `validateIngressBackend`.
fn backend(b: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let resource = b.member("resource").is_some_and(|v| !v.is_null());
    let service = b.member("service").filter(|v| !v.is_null());
    match (resource, service) {
        (true, Some(_)) => errs.push(FieldError::invalid(
            path,
            BadValue::Str(String::new()),
            "cannot set both resource and service backends",
        )),
        (true, None) => errs.extend(typed_local_object_reference(b.field("resource"), &format!("{path}.resource"))),
        (false, Some(svc)) => {
            let name = text(svc, "name");
            let name_path = format!("{path}.service.name");
            if name.is_empty() {
                errs.push(FieldError::required(&name_path, ""));
            } else {
                errs.extend(invalid_each(&name_path, name, NameRule::DnsLabel.check(name, false)));
            }
            let port = svc.member("port").unwrap_or(&Value::Null);
            let port_name = text(port, "name");
            let number = port.member("number").and_then(Value::as_i64).unwrap_or(0);
            match (port_name.is_empty(), number == 0) {
                (false, false) => errs.push(FieldError::invalid(
                    path,
                    BadValue::Str(String::new()),
                    "cannot set both port name & port number",
                )),
                (false, true) => errs.extend(invalid_each(
                    &format!("{path}.service.port.name"),
                    port_name,
                    crate::pod::port_name(port_name),
                )),
                (true, false) => {
                    if !(1..=65535).contains(&number) {
                        errs.push(FieldError::invalid(
                            &format!("{path}.service.port.number"),
                            BadValue::Int(number),
                            "must be between 1 and 65535, inclusive",
                        ));
                    }
                }
                (true, true) => errs.push(FieldError::required(path, "port name or number is required")),
            }
        }
        (false, None) => errs.push(FieldError::invalid(
            path,
            BadValue::Str(String::new()),
            "resource or service backend is required",
        )),
    }
    errs
}

/// `validateHTTPIngressPath`.
fn http_path(p: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(path_type) = p.member("pathType").and_then(Value::as_str) else {
        return vec![FieldError::required(&format!("{path}.pathType"), "pathType must be specified")];
    };
    let value = text(p, "path");
    let at = format!("{path}.path");
    let absolute = |errs: &mut Vec<FieldError>| {
        if !value.starts_with('/') {
            errs.push(FieldError::invalid(&at, BadValue::Str(value.into()), "must be an absolute path"));
        }
    };
    match path_type {
        "Exact" | "Prefix" => {
            absolute(&mut errs);
            if !value.is_empty() {
                for seq in INVALID_PATH_SEQUENCES.iter().filter(|s| value.contains(**s)) {
                    errs.push(FieldError::invalid(
                        &at,
                        BadValue::Str(value.into()),
                        format!("must not contain '{seq}'"),
                    ));
                }
                for suffix in INVALID_PATH_SUFFIXES.iter().filter(|s| value.ends_with(**s)) {
                    errs.push(FieldError::invalid(
                        &at,
                        BadValue::Str(value.into()),
                        format!("cannot end with '{suffix}'"),
                    ));
                }
            }
        }
        "ImplementationSpecific" => {
            if !value.is_empty() {
                absolute(&mut errs);
            }
        }
        other => {
            errs.push(FieldError::not_supported(&format!("{path}.pathType"), BadValue::Str(other.into()), PATH_TYPES))
        }
    }
    errs.extend(backend(p.member("backend").unwrap_or(&Value::Null), &format!("{path}.backend")));
    errs
}

/// `validateIngressRuleValue`.
fn rule_value(rule: &Value, path: &str) -> Vec<FieldError> {
    let Some(http) = rule.member("http").filter(|v| !v.is_null()) else { return Vec::new() };
    let mut errs = Vec::new();
    let paths = items(http, "paths");
    if paths.is_empty() {
        errs.push(FieldError::required(&format!("{path}.http.paths"), ""));
    }
    for (i, p) in paths.iter().enumerate() {
        errs.extend(http_path(p, &format!("{path}.http.paths[{i}]")));
    }
    errs
}

/// `validateIngressRules`.
fn rules(rules: &[Value], opts: Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let path = format!("spec.rules[{i}]");
        let host = text(rule, "host");
        let mut wildcard = false;
        if !host.is_empty() {
            let host_path = format!("{path}.host");
            if is_ip(host) {
                errs.push(FieldError::invalid(
                    &host_path,
                    BadValue::Str(host.into()),
                    "must be a DNS name, not an IP address",
                ));
            }
            if host.contains('*') {
                errs.extend(invalid_each(&host_path, host, is_wildcard_dns1123_subdomain(host)));
                wildcard = true;
            } else {
                errs.extend(invalid_each(&host_path, host, content::is_dns1123_subdomain(host)));
            }
        }
        if !wildcard || !opts.allow_invalid_wildcard_host_rule {
            errs.extend(rule_value(rule, &path));
        }
    }
    errs
}

/// `validateTLSSecretName`: an empty name is allowed, another one is a Secret's name.
fn tls_secret_name(name: &str) -> Vec<String> {
    if name.is_empty() {
        Vec::new()
    } else {
        NameRule::DnsSubdomain.check(name, false)
    }
}

/// `validateIngressTLS`.
fn tls(entries: &[Value], opts: Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (t, entry) in entries.iter().enumerate() {
        for (i, host) in items(entry, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or("");
            let path = format!("spec.tls[{t}].hosts[{i}]");
            if host.contains('*') {
                errs.extend(invalid_each(&path, host, is_wildcard_dns1123_subdomain(host)));
            } else {
                errs.extend(invalid_each(&path, host, content::is_dns1123_subdomain(host)));
            }
        }
        if !opts.allow_invalid_secret_name {
            let name = text(entry, "secretName");
            errs.extend(invalid_each(&format!("spec.tls[{t}].secretName"), name, tls_secret_name(name)));
        }
    }
    errs
}

/// `ValidateIngressSpec`.
fn ingress_spec(spec: &Value, opts: Options) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rule_list = items(spec, "rules");
    let default_backend = spec.member("defaultBackend").filter(|v| !v.is_null());
    if rule_list.is_empty() && default_backend.is_none() {
        let value = match spec.member("rules") {
            Some(Value::Array(_)) => "[]",
            _ => "null",
        };
        errs.push(FieldError::invalid(
            "spec",
            BadValue::Json(value.into()),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(b) = default_backend {
        errs.extend(backend(b, "spec.defaultBackend"));
    }
    errs.extend(rules(rule_list, opts));
    errs.extend(tls(items(spec, "tls"), opts));
    if let Some(class) = spec.member("ingressClassName").and_then(Value::as_str) {
        errs.extend(invalid_each("spec.ingressClassName", class, NameRule::DnsSubdomain.check(class, false)));
    }
    errs
}

fn spec_of(ingress: &Value) -> &Value {
    ingress.member("spec").unwrap_or(&Value::Null)
}

/// `ValidateIngressCreate` without the metadata: the spec, then the class annotation against
/// `ingressClassName`.
pub fn validate_ingress_create(ingress: &Value) -> Vec<FieldError> {
    let mut errs = ingress_spec(spec_of(ingress), Options::default());
    let annotation = ingress.at("/metadata/annotations").and_then(|a| a.member(INGRESS_CLASS_ANNOTATION));
    let class = spec_of(ingress).member("ingressClassName").and_then(Value::as_str);
    if let (Some(a), Some(c)) = (annotation.and_then(Value::as_str), class) {
        if a != c {
            errs.push(FieldError::invalid(
                &format!("annotations.{INGRESS_CLASS_ANNOTATION}"),
                BadValue::Str(a.into()),
                "must match `ingressClassName` when both are specified",
            ));
        }
    }
    errs
}

/// `ValidateIngressUpdate` without the metadata: the spec, with the options the old object allows.
pub fn validate_ingress_update(ingress: &Value, old: &Value) -> Vec<FieldError> {
    let old_spec = spec_of(old);
    let opts = Options {
        allow_invalid_secret_name: items(old_spec, "tls")
            .iter()
            .any(|t| !tls_secret_name(text(t, "secretName")).is_empty()),
        allow_invalid_wildcard_host_rule: items(old_spec, "rules")
            .iter()
            .any(|r| text(r, "host").contains('*') && !rule_value(r, "").is_empty()),
    };
    ingress_spec(spec_of(ingress), opts)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::field::texts;

    fn ingress(path: Value) -> Value {
        json!({"metadata": {"name": "web"}, "spec": {"rules": [{"host": "web.example.com", "http": {"paths": [path]}}]}})
    }

    #[test]
    fn a_prefix_path_is_absolute_and_its_backend_names_a_port() {
        let good = ingress(json!({"path": "/", "pathType": "Prefix",
                                  "backend": {"service": {"name": "web", "port": {"number": 80}}}}));
        assert!(validate_ingress_create(&good).is_empty());
        let bad =
            ingress(json!({"path": "api", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {}}}}));
        assert_eq!(
            texts(&validate_ingress_create(&bad)),
            [
                "spec.rules[0].http.paths[0].path: Invalid value: \"api\": must be an absolute path",
                "spec.rules[0].http.paths[0].backend: Required value: port name or number is required"
            ]
        );
    }

    #[test]
    fn path_type_is_required_and_one_of_three() {
        let none = ingress(json!({"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}}));
        assert_eq!(
            texts(&validate_ingress_create(&none)),
            ["spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"]
        );
        let odd = ingress(
            json!({"path": "/", "pathType": "Regex", "backend": {"service": {"name": "web", "port": {"number": 80}}}}),
        );
        assert_eq!(
            texts(&validate_ingress_create(&odd)),
            ["spec.rules[0].http.paths[0].pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""]
        );
    }

    #[test]
    fn hosts_are_names_and_wildcards_start_with_a_star_label() {
        assert!(is_wildcard_dns1123_subdomain("*.example.com").is_empty());
        assert_eq!(is_wildcard_dns1123_subdomain("*example.com").len(), 1);
        assert!(is_ip("10.0.0.1") && is_ip("::1") && is_ip("010.0.0.1") && !is_ip("web.example.com"));
        // Go 1.16's parseIPv4 takes a field of any number of digits.
        assert!(is_ip("0010.0.0.1") && is_ip("::ffff:010.0.0.1") && !is_ip("0256.0.0.1"));
        let mut i = ingress(
            json!({"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}),
        );
        i["spec"]["rules"][0]["host"] = json!("10.0.0.1");
        assert_eq!(
            texts(&validate_ingress_create(&i)),
            ["spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address"]
        );
    }

    #[test]
    fn a_resource_backend_names_a_kind_and_an_object_by_path_segments() {
        let with = |resource: Value| json!({"spec": {"defaultBackend": {"resource": resource}}});
        let good = with(json!({"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static-assets"}));
        assert!(validate_ingress_create(&good).is_empty());
        // No apiGroup (the core group) is fine, and so are names a DNS rule would refuse.
        assert!(validate_ingress_create(&with(json!({"kind": "Bucket", "name": "Static_Assets"}))).is_empty());
        assert_eq!(
            texts(&validate_ingress_create(&with(json!({})))),
            ["spec.defaultBackend.resource.kind: Required value", "spec.defaultBackend.resource.name: Required value"]
        );
        assert_eq!(
            texts(&validate_ingress_create(&with(json!({"apiGroup": "", "kind": "..", "name": "a/b%"})))),
            [
                "spec.defaultBackend.resource.apiGroup: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.defaultBackend.resource.kind: Invalid value: \"..\": may not be '..'",
                "spec.defaultBackend.resource.name: Invalid value: \"a/b%\": may not contain '/'",
                "spec.defaultBackend.resource.name: Invalid value: \"a/b%\": may not contain '%'"
            ]
        );
        assert_eq!(content::is_path_segment_name("."), ["may not be '.'"]);
        assert!(content::is_path_segment_name("").is_empty() && content::is_path_segment_name("..a").is_empty());
        // Both sources: one error, the resource not examined.
        let both = json!({"spec": {"defaultBackend": {"resource": {}, "service": {"name": "web"}}}});
        assert_eq!(
            texts(&validate_ingress_create(&both)),
            ["spec.defaultBackend: Invalid value: \"\": cannot set both resource and service backends"]
        );
    }

    #[test]
    fn an_old_invalid_secret_name_may_stay() {
        let old = json!({"spec": {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}},
                                  "tls": [{"secretName": "Bad_Name"}]}});
        assert!(validate_ingress_update(&old, &old).is_empty());
        assert_eq!(validate_ingress_create(&old).len(), 1);
    }
}
