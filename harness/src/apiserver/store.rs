//! The objects the recording API holds, and its answers to each call, as the kube-apiserver answers
//! them: discovery of the targeted version's kinds (k8s-openapi's, `kinds::RESOURCES`), GET / LIST /
//! WATCH, and writes (POST, PUT, PATCH of the four types, DELETE) with the apiserver's `Status`
//! errors (400 BadRequest, 404 NotFound, 409 AlreadyExists / Conflict, 415, 422 Invalid), and
//! `dryRun=All` answered without storing anything (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/`
//! `create.go`, `update.go`, `patch.go`, `delete.go`, `rest.go`).
//!
//! Namespaces: `default`, `kube-system`, `kube-public` and `kube-node-lease` are listed; a GET of any
//! other namespace that was not deleted answers it as existing (the namespaces of the admission
//! requests the suite sends exist in the cluster it plays), labelled `kubernetes.io/metadata.name`.
//! Objects of every other kind start absent: the store holds what the webhook writes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::kinds::{KindInfo, RESOURCES};

/// The version `/version` reports (the one `kinds::RESOURCES` comes from).
const MAJOR: &str = "1";
const MINOR: &str = "36";

/// The namespaces listed from the start.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// What the server answers: a status and a JSON body, or a watch stream's first events.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Answer {
    /// A JSON document.
    Json { status: u16, body: Value },
    /// A watch: these events (one JSON document each), then nothing until the deadline.
    Watch { events: Vec<Value>, timeout_seconds: Option<u64> },
    /// Plain text (`/healthz`).
    Text { status: u16, body: String },
}

impl Answer {
    /// The HTTP status.
    pub(crate) fn status(&self) -> u16 {
        match self {
            Answer::Json { status, .. } | Answer::Text { status, .. } => *status,
            Answer::Watch { .. } => 200,
        }
    }
}

/// A call as the store sees it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Call<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub content_type: &'a str,
    pub body: &'a [u8],
}

/// The apiserver's `Status` of a failure.
pub(crate) fn status(code: u16, reason: &str, message: impl Into<String>, details: Option<Value>) -> Answer {
    let mut body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message.into(), "reason": reason, "code": code,
    });
    if let Some(d) = details {
        body["details"] = d;
    }
    Answer::Json { status: code, body }
}

fn not_found_path() -> Answer {
    status(404, "NotFound", "the server could not find the requested resource", Some(json!({})))
}

fn bad_request(message: impl Into<String>) -> Answer {
    status(400, "BadRequest", message, None)
}

/// Which resource a path names.
#[derive(Clone, Debug)]
struct Target {
    kind: &'static KindInfo,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<String>,
}

type Key = (String, String, &'static str, String, String);

/// The objects written so far, and the resourceVersion counter.
#[derive(Debug)]
pub(crate) struct Store {
    objects: BTreeMap<Key, Value>,
    deleted_namespaces: BTreeSet<String>,
    version: u64,
}

impl Default for Store {
    fn default() -> Self {
        Store { objects: BTreeMap::new(), deleted_namespaces: BTreeSet::new(), version: 1000 }
    }
}

fn api_version(k: &KindInfo) -> String {
    if k.group.is_empty() {
        k.version.to_string()
    } else {
        format!("{}/{}", k.group, k.version)
    }
}

fn kinds_of<'a>(group: &'a str, version: &'a str) -> impl Iterator<Item = &'static KindInfo> + 'a {
    RESOURCES.iter().filter(move |k| k.group == group && k.version == version)
}

fn query_value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query.split('&').filter_map(|kv| kv.split_once('=').or(Some((kv, "")))).find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the call asks for a dry run: `Ok(true)` for `dryRun=All`, an error Status for any other
/// value (`rest.go` `DryRun` validation: only `All`).
pub(crate) fn dry_run(query: &str) -> Result<bool, Answer> {
    match query_value(query, "dryRun").map(percent_decode) {
        None => Ok(false),
        Some(v) if v == "All" => Ok(true),
        Some(v) if v.is_empty() => Ok(false),
        Some(v) => Err(status(
            400,
            "BadRequest",
            format!("dryRun: Unsupported value: \"{v}\": supported values: \"All\""),
            None,
        )),
    }
}

impl Store {
    /// Answer one (authenticated) call.
    pub(crate) fn answer(&mut self, call: &Call<'_>) -> Answer {
        let path = call.path.trim_end_matches('/');
        match path {
            "/version" => return self.version_info(),
            "/healthz" | "/readyz" | "/livez" => return Answer::Text { status: 200, body: "ok".into() },
            "/api" => return Answer::Json { status: 200, body: api_versions() },
            "/apis" => return Answer::Json { status: 200, body: api_groups() },
            _ => {}
        }
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        let (group, version, rest) = match segments.as_slice() {
            ["api", version, rest @ ..] => ("", *version, rest),
            ["apis", group] => {
                return api_group(group).map_or_else(not_found_path, |g| Answer::Json { status: 200, body: g })
            }
            ["apis", group, version, rest @ ..] => (*group, *version, rest),
            _ => return not_found_path(),
        };
        if kinds_of(group, version).next().is_none() {
            return not_found_path();
        }
        if rest.is_empty() {
            return match call.method {
                "GET" => Answer::Json { status: 200, body: resource_list(group, version) },
                _ => method_not_allowed(),
            };
        }
        let Some(target) = resolve(group, version, rest) else { return not_found_path() };
        let dry = match dry_run(call.query) {
            Ok(d) => d,
            Err(e) => return e,
        };
        match (call.method, &target.name, &target.subresource) {
            ("GET", None, _) if query_value(call.query, "watch").is_some_and(|v| v == "true" || v == "1") => {
                self.watch(&target, call.query)
            }
            ("GET", None, _) => self.list(&target, call.query),
            ("GET", Some(_), _) => self.get(&target),
            ("POST", None, _) => self.create(&target, call, dry),
            ("PUT", Some(_), _) => self.update(&target, call, dry),
            ("PATCH", Some(_), _) => self.patch(&target, call, dry),
            ("DELETE", Some(_), None) => self.delete(&target, dry),
            ("DELETE", None, _) => self.delete_collection(&target, call.query, dry),
            ("POST", Some(_), Some(_)) => self.create_subresource(&target, call),
            _ => method_not_allowed(),
        }
    }

    fn version_info(&self) -> Answer {
        Answer::Json {
            status: 200,
            body: json!({
                "major": MAJOR, "minor": MINOR, "gitVersion": format!("v{MAJOR}.{MINOR}.0"),
                "gitCommit": "", "gitTreeState": "clean", "buildDate": "1970-01-01T00:00:00Z",
                "goVersion": "go1.25", "compiler": "gc", "platform": "linux/amd64",
            }),
        }
    }

    fn key(target: &Target, name: &str) -> Key {
        (
            target.kind.group.to_string(),
            target.kind.version.to_string(),
            target.kind.plural,
            target.namespace.clone().unwrap_or_default(),
            name.to_string(),
        )
    }

    fn next_version(&mut self) -> String {
        self.version += 1;
        self.version.to_string()
    }

    fn is_namespace(target: &Target) -> bool {
        target.kind.group.is_empty() && target.kind.plural == "namespaces"
    }

    fn implicit_namespace(&self, name: &str) -> Option<Value> {
        (!self.deleted_namespaces.contains(name)).then(|| {
            json!({
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {
                    "name": name, "uid": stable_uid(name),
                    "resourceVersion": "1", "creationTimestamp": "2024-01-01T00:00:00Z",
                    "labels": {"kubernetes.io/metadata.name": name},
                },
                "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"},
            })
        })
    }

    fn lookup(&self, target: &Target, name: &str) -> Option<Value> {
        if let Some(v) = self.objects.get(&Self::key(target, name)) {
            return Some(v.clone());
        }
        if Self::is_namespace(target) {
            return self.implicit_namespace(name);
        }
        None
    }

    fn not_found(target: &Target, name: &str) -> Answer {
        let resource = qualified(target.kind);
        status(
            404,
            "NotFound",
            format!("{resource} \"{name}\" not found"),
            Some(json!({"name": name, "group": target.kind.group, "kind": target.kind.plural})),
        )
    }

    fn get(&self, target: &Target) -> Answer {
        let name = target.name.as_deref().unwrap_or_default();
        match self.lookup(target, name) {
            Some(mut obj) => match target.subresource.as_deref() {
                None | Some("status") => {
                    fill_type(&mut obj, target.kind);
                    Answer::Json { status: 200, body: obj }
                }
                Some(_) => not_found_path(),
            },
            None => Self::not_found(target, name),
        }
    }

    fn items(&self, target: &Target, query: &str) -> Vec<Value> {
        let selector = query_value(query, "labelSelector").map(percent_decode).unwrap_or_default();
        let field = query_value(query, "fieldSelector").map(percent_decode).unwrap_or_default();
        let mut items: Vec<Value> = self
            .objects
            .iter()
            .filter(|((g, v, p, ns, _), _)| {
                *g == target.kind.group
                    && *v == target.kind.version
                    && *p == target.kind.plural
                    && target.namespace.as_ref().is_none_or(|n| n == ns)
            })
            .map(|(_, o)| o.clone())
            .collect();
        if Self::is_namespace(target) {
            for n in NAMESPACES {
                if !items.iter().any(|o| o["metadata"]["name"] == n) {
                    items.extend(self.implicit_namespace(n));
                }
            }
        }
        items.retain(|o| labels_match(&selector, &o["metadata"]["labels"]) && fields_match(&field, o));
        for o in &mut items {
            fill_type(o, target.kind);
        }
        items
    }

    fn list(&self, target: &Target, query: &str) -> Answer {
        let items = self.items(target, query);
        Answer::Json {
            status: 200,
            body: json!({
                "kind": format!("{}List", target.kind.kind), "apiVersion": api_version(target.kind),
                "metadata": {"resourceVersion": self.version.to_string()}, "items": items,
            }),
        }
    }

    fn watch(&self, target: &Target, query: &str) -> Answer {
        let from = query_value(query, "resourceVersion").unwrap_or_default();
        let events = if from.is_empty() || from == "0" {
            self.items(target, query).into_iter().map(|o| json!({"type": "ADDED", "object": o})).collect()
        } else {
            Vec::new()
        };
        Answer::Watch { events, timeout_seconds: query_value(query, "timeoutSeconds").and_then(|t| t.parse().ok()) }
    }

    /// The body as an object of the target's kind, or the apiserver's refusal.
    fn decode(target: &Target, call: &Call<'_>) -> Result<Map<String, Value>, Answer> {
        let media = call.content_type.split(';').next().unwrap_or_default().trim();
        let value: Value = match media {
            "" | "application/json" | "*/*" => serde_json::from_slice(call.body).map_err(|e| {
                bad_request(format!("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf: {e}"))
            })?,
            "application/yaml" => serde_yaml::from_slice(call.body)
                .map_err(|e| bad_request(format!("error converting YAML to JSON: {e}")))?,
            other => return Err(unsupported_media(other)),
        };
        let Value::Object(mut obj) = value else {
            return Err(bad_request("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"));
        };
        check_type(&obj, target.kind)?;
        if !obj.get("metadata").is_none_or(Value::is_object) {
            return Err(bad_request("metadata: expected an object"));
        }
        obj.entry("metadata").or_insert_with(|| json!({}));
        Ok(obj)
    }

    fn namespace_of(target: &Target, obj: &mut Map<String, Value>) -> Result<(), Answer> {
        let meta = obj.get_mut("metadata").and_then(Value::as_object_mut).expect("decode makes metadata");
        match (&target.namespace, meta.get("namespace").and_then(Value::as_str)) {
            (Some(path), Some(body)) if !body.is_empty() && body != path => Err(bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            )),
            (Some(path), _) => {
                meta.insert("namespace".into(), json!(path));
                Ok(())
            }
            (None, _) => {
                meta.remove("namespace");
                Ok(())
            }
        }
    }

    fn create(&mut self, target: &Target, call: &Call<'_>, dry: bool) -> Answer {
        let mut obj = match Self::decode(target, call) {
            Ok(o) => o,
            Err(e) => return e,
        };
        if let Err(e) = Self::namespace_of(target, &mut obj) {
            return e;
        }
        let meta = obj.get_mut("metadata").and_then(Value::as_object_mut).expect("decode makes metadata");
        let mut name = meta.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            match meta.get("generateName").and_then(Value::as_str) {
                Some(prefix) if !prefix.is_empty() => {
                    name = format!("{prefix}{}", &uuid::Uuid::new_v4().simple().to_string()[..5]);
                    meta.insert("name".into(), json!(name));
                }
                _ => {
                    return status(
                        422,
                        "Invalid",
                        format!(
                            "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
                            target.kind.kind
                        ),
                        Some(
                            json!({"kind": target.kind.kind, "group": target.kind.group, "causes": [{"reason": "FieldValueRequired", "message": "Required value: name or generateName is required", "field": "metadata.name"}]}),
                        ),
                    )
                }
            }
        }
        if self.objects.contains_key(&Self::key(target, &name))
            || (Self::is_namespace(target) && (NAMESPACES.contains(&name.as_str())))
        {
            return status(
                409,
                "AlreadyExists",
                format!("{} \"{name}\" already exists", qualified(target.kind)),
                Some(json!({"name": name, "group": target.kind.group, "kind": target.kind.plural})),
            );
        }
        meta.insert("uid".into(), json!(uuid::Uuid::new_v4().to_string()));
        meta.insert("creationTimestamp".into(), json!(now()));
        meta.remove("deletionTimestamp");
        let mut obj = Value::Object(obj);
        fill_type(&mut obj, target.kind);
        if !dry {
            obj["metadata"]["resourceVersion"] = json!(self.next_version());
            self.objects.insert(Self::key(target, &name), obj.clone());
            if Self::is_namespace(target) {
                self.deleted_namespaces.remove(&name);
            }
        }
        Answer::Json { status: 201, body: obj }
    }

    fn create_subresource(&mut self, target: &Target, call: &Call<'_>) -> Answer {
        // Subresources created by POST (eviction, token, binding) change nothing the store holds;
        // the body must still be an object.
        match serde_json::from_slice::<Value>(call.body) {
            Ok(Value::Object(o)) => {
                let name = target.name.as_deref().unwrap_or_default();
                if self.lookup(target, name).is_none() {
                    return Self::not_found(target, name);
                }
                Answer::Json { status: 201, body: Value::Object(o) }
            }
            _ => bad_request("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"),
        }
    }

    /// Store `obj` as the new state of `name` (keeping uid and creationTimestamp), or not under dry run.
    fn replace(&mut self, target: &Target, name: &str, old: &Value, mut obj: Value, dry: bool) -> Answer {
        for field in ["uid", "creationTimestamp"] {
            obj["metadata"][field] = old["metadata"][field].clone();
        }
        obj["metadata"]["name"] = json!(name);
        if let Some(ns) = &target.namespace {
            obj["metadata"]["namespace"] = json!(ns);
        }
        fill_type(&mut obj, target.kind);
        if dry {
            obj["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        } else {
            obj["metadata"]["resourceVersion"] = json!(self.next_version());
            self.objects.insert(Self::key(target, name), obj.clone());
        }
        Answer::Json { status: 200, body: obj }
    }

    fn update(&mut self, target: &Target, call: &Call<'_>, dry: bool) -> Answer {
        let name = target.name.clone().unwrap_or_default();
        let mut obj = match Self::decode(target, call) {
            Ok(o) => o,
            Err(e) => return e,
        };
        if let Err(e) = Self::namespace_of(target, &mut obj) {
            return e;
        }
        let body_name = obj["metadata"].get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        if body_name != name {
            return bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            ));
        }
        let Some(old) = self.lookup(target, &name) else { return Self::not_found(target, &name) };
        let given = obj["metadata"].get("resourceVersion").and_then(Value::as_str).unwrap_or_default();
        if !given.is_empty() && Some(given) != old["metadata"]["resourceVersion"].as_str() {
            return conflict(target, &name);
        }
        let mut new = Value::Object(obj);
        if target.subresource.as_deref() == Some("status") {
            // The status subresource keeps everything but the status.
            let mut kept = old.clone();
            kept["status"] = new["status"].take();
            new = kept;
        }
        self.replace(target, &name, &old, new, dry)
    }

    fn patch(&mut self, target: &Target, call: &Call<'_>, dry: bool) -> Answer {
        let name = target.name.clone().unwrap_or_default();
        let media = call.content_type.split(';').next().unwrap_or_default().trim();
        let old = self.lookup(target, &name);
        let parse = |body: &[u8]| -> Result<Value, Answer> {
            serde_json::from_slice(body).map_err(|e| bad_request(format!("error decoding patch: {e}")))
        };
        let patched = match media {
            "application/json-patch+json" => {
                let Some(old) = &old else { return Self::not_found(target, &name) };
                let ops = match parse(call.body).and_then(|v| {
                    serde_json::from_value::<json_patch::Patch>(v)
                        .map_err(|e| bad_request(format!("error decoding patch: {e}")))
                }) {
                    Ok(p) => p,
                    Err(e) => return e,
                };
                let mut doc = old.clone();
                if let Err(e) = json_patch::patch(&mut doc, &ops) {
                    return status(
                        422,
                        "Invalid",
                        format!("the server rejected our request due to an error in our request: {e}"),
                        None,
                    );
                }
                doc
            }
            "application/merge-patch+json" | "application/strategic-merge-patch+json" => {
                let Some(old) = &old else { return Self::not_found(target, &name) };
                let patch = match parse(call.body) {
                    Ok(Value::Object(p)) => Value::Object(p),
                    Ok(_) => return bad_request("error decoding patch: the patch is not a JSON object"),
                    Err(e) => return e,
                };
                let mut doc = old.clone();
                json_patch::merge(&mut doc, &patch);
                doc
            }
            "application/apply-patch+yaml" | "application/apply-patch+cbor" => {
                if query_value(call.query, "fieldManager").is_none_or(str::is_empty) {
                    return bad_request("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
                }
                let patch: Value = match serde_yaml::from_slice(call.body) {
                    Ok(v @ Value::Object(_)) => v,
                    Ok(_) => return bad_request("error decoding YAML: the apply configuration is not an object"),
                    Err(e) => return bad_request(format!("error decoding YAML: {e}")),
                };
                if let Value::Object(o) = &patch {
                    if let Err(e) = check_type(o, target.kind) {
                        return e;
                    }
                }
                match &old {
                    Some(old) => {
                        let mut doc = old.clone();
                        json_patch::merge(&mut doc, &patch);
                        doc
                    }
                    None => {
                        let mut created = patch;
                        created["metadata"]["name"] = json!(name);
                        created["metadata"]["uid"] = json!(uuid::Uuid::new_v4().to_string());
                        created["metadata"]["creationTimestamp"] = json!(now());
                        let blank = created.clone();
                        let answer = self.replace(target, &name, &blank, created, dry);
                        return match answer {
                            Answer::Json { body, .. } => Answer::Json { status: 201, body },
                            other => other,
                        };
                    }
                }
            }
            other => return unsupported_media(other),
        };
        let old = old.expect("every arm without an old object returned");
        if !patched.is_object() || !patched["metadata"].is_object() {
            return status(422, "Invalid", "the patched object is not an object with metadata", None);
        }
        self.replace(target, &name, &old, patched, dry)
    }

    fn delete(&mut self, target: &Target, dry: bool) -> Answer {
        let name = target.name.clone().unwrap_or_default();
        let Some(mut old) = self.lookup(target, &name) else { return Self::not_found(target, &name) };
        if !dry {
            self.objects.remove(&Self::key(target, &name));
            if Self::is_namespace(target) {
                self.deleted_namespaces.insert(name);
            }
        }
        fill_type(&mut old, target.kind);
        Answer::Json { status: 200, body: old }
    }

    fn delete_collection(&mut self, target: &Target, query: &str, dry: bool) -> Answer {
        let items = self.items(target, query);
        if !dry {
            for o in &items {
                let name = o["metadata"]["name"].as_str().unwrap_or_default();
                self.objects.remove(&Self::key(target, name));
            }
        }
        Answer::Json {
            status: 200,
            body: json!({"kind": format!("{}List", target.kind.kind), "apiVersion": api_version(target.kind),
                         "metadata": {"resourceVersion": self.version.to_string()}, "items": items}),
        }
    }
}

fn conflict(target: &Target, name: &str) -> Answer {
    status(
        409,
        "Conflict",
        format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
            qualified(target.kind)
        ),
        Some(json!({"name": name, "group": target.kind.group, "kind": target.kind.plural})),
    )
}

fn method_not_allowed() -> Answer {
    status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", Some(json!({})))
}

fn unsupported_media(media: &str) -> Answer {
    status(415, "UnsupportedMediaType", format!("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got {media:?}; the recording API does not decode protobuf or CBOR)"), None)
}

/// `configmaps` or `deployments.apps`, as the apiserver names a resource in its messages.
fn qualified(k: &KindInfo) -> String {
    if k.group.is_empty() {
        k.plural.to_string()
    } else {
        format!("{}.{}", k.plural, k.group)
    }
}

fn check_type(obj: &Map<String, Value>, kind: &KindInfo) -> Result<(), Answer> {
    if let Some(k) = obj.get("kind").and_then(Value::as_str) {
        if !k.is_empty() && k != kind.kind {
            return Err(bad_request(format!(
                "the API version in the data ({}) does not match the expected API version ({}) or kind {k:?} is not {:?}",
                obj.get("apiVersion").and_then(Value::as_str).unwrap_or_default(),
                api_version(kind),
                kind.kind
            )));
        }
    }
    if let Some(v) = obj.get("apiVersion").and_then(Value::as_str) {
        if !v.is_empty() && v != api_version(kind) {
            return Err(bad_request(format!(
                "the API version in the data ({v}) does not match the expected API version ({})",
                api_version(kind)
            )));
        }
    }
    Ok(())
}

fn fill_type(obj: &mut Value, kind: &KindInfo) {
    if let Value::Object(o) = obj {
        o.insert("apiVersion".into(), json!(api_version(kind)));
        o.insert("kind".into(), json!(kind.kind));
    }
}

/// The same uid for the same name, every time it is asked for.
fn stable_uid(name: &str) -> String {
    use std::hash::{Hash, Hasher};
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (salt, name).hash(&mut h);
        h.finish()
    };
    uuid::Uuid::from_u64_pair(half(1), half(2)).to_string()
}

fn now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `a=b,c!=d,e,!f` (equality-based label selectors; a set-based term matches nothing it cannot read).
fn labels_match(selector: &str, labels: &Value) -> bool {
    selector.split(',').map(str::trim).filter(|t| !t.is_empty()).all(|term| {
        let get = |k: &str| labels.get(k.trim()).and_then(Value::as_str);
        if let Some((k, v)) = term.split_once("!=") {
            get(k) != Some(v.trim())
        } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
            get(k) == Some(v.trim())
        } else if let Some(k) = term.strip_prefix('!') {
            get(k).is_none()
        } else if term.contains(' ') {
            false
        } else {
            get(term).is_some()
        }
    })
}

/// `metadata.name=x`, `metadata.namespace=y` field selectors.
fn fields_match(selector: &str, obj: &Value) -> bool {
    selector.split(',').map(str::trim).filter(|t| !t.is_empty()).all(|term| {
        let (field, want, equal) = match term.split_once("!=") {
            Some((f, v)) => (f, v, false),
            None => match term.split_once("==").or_else(|| term.split_once('=')) {
                Some((f, v)) => (f, v, true),
                None => return false,
            },
        };
        let got = field.split('.').fold(obj, |v, k| &v[k]).as_str().unwrap_or_default();
        (got == want) == equal
    })
}

fn resolve(group: &str, version: &str, rest: &[&str]) -> Option<Target> {
    let find = |plural: &str| kinds_of(group, version).find(|k| k.plural == plural);
    let namespaced_path = rest.len() >= 3 && rest[0] == "namespaces" && find(rest[2]).is_some_and(|k| k.namespaced);
    let (namespace, rest) = if namespaced_path { (Some(rest[1].to_string()), &rest[2..]) } else { (None, rest) };
    let kind = find(rest[0])?;
    if namespace.is_none() && kind.namespaced && rest.len() > 1 {
        // A namespaced kind's object is only reached through its namespace.
        return None;
    }
    match rest {
        [_] => Some(Target { kind, namespace, name: None, subresource: None }),
        [_, name] => Some(Target { kind, namespace, name: Some(name.to_string()), subresource: None }),
        [_, name, sub] => {
            Some(Target { kind, namespace, name: Some(name.to_string()), subresource: Some(sub.to_string()) })
        }
        _ => None,
    }
}

fn api_versions() -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
}

fn group_versions(group: &str) -> Vec<&'static str> {
    let mut versions: Vec<&'static str> = Vec::new();
    for k in RESOURCES.iter().filter(|k| k.group == group) {
        if !versions.contains(&k.version) {
            versions.push(k.version);
        }
    }
    // The stable version is preferred, as the apiserver prefers it.
    versions.sort_by_key(|v| (!(v.starts_with('v') && v[1..].chars().all(|c| c.is_ascii_digit())), v.to_string()));
    versions
}

fn api_group(group: &str) -> Option<Value> {
    let versions = group_versions(group);
    let preferred = versions.first()?;
    let list: Vec<Value> =
        versions.iter().map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v})).collect();
    Some(json!({
        "kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": list,
        "preferredVersion": {"groupVersion": format!("{group}/{preferred}"), "version": preferred},
    }))
}

fn api_groups() -> Value {
    let mut groups: Vec<&str> = Vec::new();
    for k in RESOURCES.iter().filter(|k| !k.group.is_empty()) {
        if !groups.contains(&k.group) {
            groups.push(k.group);
        }
    }
    let groups: Vec<Value> = groups.into_iter().filter_map(api_group).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

fn resource_list(group: &str, version: &str) -> Value {
    let verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
    let mut resources: Vec<Value> = Vec::new();
    for k in kinds_of(group, version) {
        resources.push(json!({
            "name": k.plural, "singularName": k.kind.to_lowercase(), "namespaced": k.namespaced,
            "kind": k.kind, "verbs": verbs,
        }));
        resources.push(json!({
            "name": format!("{}/status", k.plural), "singularName": "", "namespaced": k.namespaced,
            "kind": k.kind, "verbs": ["get", "patch", "update"],
        }));
    }
    let gv = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(method: &'a str, path: &'a str, query: &'a str, content_type: &'a str, body: &'a str) -> Call<'a> {
        Call { method, path, query, content_type, body: body.as_bytes() }
    }

    fn json_of(a: Answer) -> (u16, Value) {
        match a {
            Answer::Json { status, body } => (status, body),
            other => panic!("not JSON: {other:?}"),
        }
    }

    const CM: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}"#;
    const CMS: &str = "/api/v1/namespaces/ns/configmaps";

    #[test]
    fn create_get_conflict_and_missing_as_the_apiserver_answers() {
        let mut s = Store::default();
        let (code, created) = json_of(s.answer(&call("POST", CMS, "", "application/json", CM)));
        assert_eq!(code, 201);
        assert!(created["metadata"]["uid"].as_str().is_some_and(|u| u.len() == 36));
        assert!(created["metadata"]["resourceVersion"].as_str().is_some());
        assert!(created["metadata"]["creationTimestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert_eq!(created["metadata"]["namespace"], "ns");
        let (code, again) = json_of(s.answer(&call("POST", CMS, "", "application/json", CM)));
        assert_eq!((code, again["reason"].as_str()), (409, Some("AlreadyExists")));
        assert_eq!(again["message"], "configmaps \"a\" already exists");
        let (code, got) = json_of(s.answer(&call("GET", &format!("{CMS}/a"), "", "", "")));
        assert_eq!((code, &got["data"]["k"]), (200, &json!("v")));
        let (code, missing) = json_of(s.answer(&call("GET", &format!("{CMS}/b"), "", "", "")));
        assert_eq!(
            (code, missing["kind"].as_str(), missing["reason"].as_str()),
            (404, Some("Status"), Some("NotFound"))
        );
        assert_eq!(missing["message"], "configmaps \"b\" not found");
        let (code, list) = json_of(s.answer(&call("GET", CMS, "", "", "")));
        assert_eq!(
            (code, list["kind"].as_str(), list["items"].as_array().map(Vec::len)),
            (200, Some("ConfigMapList"), Some(1))
        );
    }

    #[test]
    fn dry_run_answers_without_storing() {
        let mut s = Store::default();
        let (code, created) = json_of(s.answer(&call("POST", CMS, "dryRun=All", "application/json", CM)));
        assert_eq!(code, 201);
        assert_eq!(created["metadata"]["name"], "a");
        let (code, _) = json_of(s.answer(&call("GET", &format!("{CMS}/a"), "", "", "")));
        assert_eq!(code, 404);
        let (code, bad) = json_of(s.answer(&call("POST", CMS, "dryRun=Yes", "application/json", CM)));
        assert_eq!((code, bad["reason"].as_str()), (400, Some("BadRequest")));
    }

    #[test]
    fn updates_patches_and_deletes() {
        let mut s = Store::default();
        json_of(s.answer(&call("POST", CMS, "", "application/json", CM)));
        let item = format!("{CMS}/a");
        let (code, merged) =
            json_of(s.answer(&call("PATCH", &item, "", "application/merge-patch+json", r#"{"data":{"x":"y"}}"#)));
        assert_eq!((code, &merged["data"]), (200, &json!({"k": "v", "x": "y"})));
        let (code, patched) = json_of(s.answer(&call(
            "PATCH",
            &item,
            "",
            "application/json-patch+json",
            r#"[{"op":"remove","path":"/data/k"}]"#,
        )));
        assert_eq!((code, &patched["data"]), (200, &json!({"x": "y"})));
        let stale = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}"#;
        let (code, conflict) = json_of(s.answer(&call("PUT", &item, "", "application/json", stale)));
        assert_eq!((code, conflict["reason"].as_str()), (409, Some("Conflict")));
        let (code, _) =
            json_of(s.answer(&call("PATCH", &format!("{CMS}/b"), "", "application/merge-patch+json", "{}")));
        assert_eq!(code, 404);
        let (code, applied) = json_of(s.answer(&call(
            "PATCH",
            &format!("{CMS}/c"),
            "fieldManager=me",
            "application/apply-patch+yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n",
        )));
        assert_eq!((code, &applied["data"]), (201, &json!({"a": "b"})));
        let (code, _) = json_of(s.answer(&call("DELETE", &item, "", "", "")));
        assert_eq!(code, 200);
        let (code, _) = json_of(s.answer(&call("DELETE", &item, "", "", "")));
        assert_eq!(code, 404);
    }

    #[test]
    fn garbage_is_a_bad_request_and_unknown_paths_not_found() {
        let mut s = Store::default();
        for body in ["{not json", "[1,2]", "\"x\""] {
            let (code, st) = json_of(s.answer(&call("POST", CMS, "", "application/json", body)));
            assert_eq!(
                (code, st["kind"].as_str(), st["reason"].as_str()),
                (400, Some("Status"), Some("BadRequest")),
                "{body}"
            );
        }
        let (code, st) = json_of(s.answer(&call("POST", CMS, "", "application/vnd.kubernetes.protobuf", "x")));
        assert_eq!((code, st["reason"].as_str()), (415, Some("UnsupportedMediaType")));
        let wrong = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}}"#;
        assert_eq!(s.answer(&call("POST", CMS, "", "application/json", wrong)).status(), 400);
        let (code, st) = json_of(s.answer(&call("POST", CMS, "", "application/json", r#"{"metadata":{}}"#)));
        assert_eq!((code, st["reason"].as_str()), (422, Some("Invalid")));
        assert_eq!(s.answer(&call("GET", "/api/v1/nothings", "", "", "")).status(), 404);
        assert_eq!(s.answer(&call("GET", "/apis/nope/v1", "", "", "")).status(), 404);
    }

    #[test]
    fn discovery_and_namespaces() {
        let mut s = Store::default();
        let (_, groups) = json_of(s.answer(&call("GET", "/apis", "", "", "")));
        let apps = groups["groups"].as_array().unwrap().iter().find(|g| g["name"] == "apps").unwrap();
        assert_eq!(apps["preferredVersion"]["version"], "v1");
        let (_, core) = json_of(s.answer(&call("GET", "/api/v1", "", "", "")));
        assert!(core["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "configmaps" && r["namespaced"] == true));
        let (code, ns) = json_of(s.answer(&call("GET", "/api/v1/namespaces/team-a", "", "", "")));
        assert_eq!((code, &ns["metadata"]["labels"]["kubernetes.io/metadata.name"]), (200, &json!("team-a")));
        let (_, list) = json_of(s.answer(&call(
            "GET",
            "/api/v1/namespaces",
            "labelSelector=kubernetes.io%2Fmetadata.name%3Ddefault",
            "",
            "",
        )));
        assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
        assert_eq!(s.answer(&call("DELETE", "/api/v1/namespaces/team-a", "", "", "")).status(), 200);
        assert_eq!(s.answer(&call("GET", "/api/v1/namespaces/team-a", "", "", "")).status(), 404);
        match s.answer(&call("GET", "/api/v1/namespaces", "watch=true", "", "")) {
            Answer::Watch { events, .. } => assert_eq!(events.len(), NAMESPACES.len()),
            other => panic!("{other:?}"),
        }
    }
}
