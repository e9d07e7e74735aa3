//! Custom resources as their CRD's structural schema makes them: objects that are valid against the
//! version's `openAPIV3Schema`, and what the apiserver does to every object of a custom resource when
//! it decodes it, before any webhook sees it (`apiextensions-apiserver/pkg/apiserver/
//! customresource_handler.go`, `unstructuredSchemaCoercer.apply` and `unstructuredDefaulter`):
//!
//! 1. `metadata` is decoded as ObjectMeta (unknown fields dropped);
//! 2. unknown fields are pruned (`schema/pruning/algorithm.go`, `PruneWithOptions` with
//!    `isResourceRoot`): apiVersion, kind and metadata are kept at the root and in
//!    `x-kubernetes-embedded-resource` objects, `x-kubernetes-preserve-unknown-fields` keeps what it
//!    covers (still pruning inside the properties it names);
//! 3. nulls the schema does not allow and has no default for are dropped
//!    (`schema/defaulting/prunenulls.go`, `PruneNonNullableNullsWithoutDefaults`);
//! 4. the metadata of embedded resources is decoded as ObjectMeta (`schema/objectmeta/coerce.go`);
//! 5. defaults are filled (`schema/defaulting/algorithm.go`, `Default`).
//!
//! Only what structural schemas need is read: `type`, `properties`, `items`, `required`, `enum`,
//! `default`, `nullable`, `additionalProperties`, the three `x-kubernetes-*` flags, and for values the
//! bounds `minimum`/`maximum`, `minLength`/`maxLength`, `minItems`/`maxItems`, `format` and
//! `pattern` (strings drawn to match it: [`super::pattern`]).

use serde_json::{json, Map, Value};

/// Keys the pruning keeps at a resource root and in embedded resources.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// How deep optional fields are filled in a full instance.
const FULL_DEPTH: usize = 8;

fn flag(schema: &Value, name: &str) -> bool {
    schema.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// The schema of member `key` of an object of `schema`: its property, else `additionalProperties`
/// (`Some(None)` when that is `true`: any value, no schema below), else `None` (unknown).
fn member_schema<'a>(schema: &'a Value, key: &str) -> Option<Option<&'a Value>> {
    if let Some(p) = properties(schema).and_then(|p| p.get(key)) {
        return Some(Some(p));
    }
    match schema.get("additionalProperties") {
        Some(Value::Bool(true)) => Some(None),
        Some(Value::Bool(false)) | None => None,
        Some(s) => Some(Some(s)),
    }
}

/// The fields of a valid object of the custom resource other than apiVersion, kind and metadata
/// (and status, which clients do not send): `spec` and what the schema requires, every optional
/// field too when `full`.
pub(crate) fn instance(schema: &Value, full: bool) -> Map<String, Value> {
    let mut out = Map::new();
    let required = required(schema);
    if let Some(props) = properties(schema) {
        for (name, sub) in props {
            if META_FIELDS.contains(&name.as_str()) || name == "status" {
                continue;
            }
            if required.contains(&name.as_str()) || full || name == "spec" {
                out.insert(name.clone(), value(sub, full, 1));
            }
        }
    }
    out
}

/// The fields of a valid object of the custom resource (as [`instance`]) with values that vary with
/// `seed`: any of an enum's values, integers and numbers at and near their bounds, strings from
/// `minLength` up to `maxLength`, optional fields present or absent, arrays and maps of several
/// sizes within `minItems`/`maxItems` and `minProperties`/`maxProperties`, strings drawn to match
/// their `pattern`. A `format` keeps the string [`instance`] gives (which the suite does not vary).
pub(crate) fn varied(schema: &Value, seed: u64) -> Map<String, Value> {
    let mut draw = Draw(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut out = Map::new();
    let required = required(schema);
    if let Some(props) = properties(schema) {
        for (name, sub) in props {
            if META_FIELDS.contains(&name.as_str()) || name == "status" {
                continue;
            }
            if required.contains(&name.as_str()) || name == "spec" || draw.chance() {
                out.insert(name.clone(), varied_value(sub, &mut draw, 1));
            }
        }
    }
    out
}

/// What [`varied`] draws from `schema`, in a line: each leaf field of the resource (below
/// `spec` and the other top-level fields, at most `limit` of them) and the values it takes.
pub(crate) fn summary(schema: &Value, limit: usize) -> String {
    fn walk(schema: &Value, path: &str, required: bool, out: &mut Vec<String>, depth: usize) {
        let optional = if required { "" } else { ", or absent" };
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let shown: Vec<String> = values.iter().map(Value::to_string).collect();
            out.push(format!("{path}: one of {}{optional}", shown.join(", ")));
            return;
        }
        let kind = schema.get("type").and_then(Value::as_str).unwrap_or("object");
        let what = match kind {
            "integer" | "number" => {
                let (lo, hi) = bounds(schema);
                let show = |b: Option<f64>| b.map_or("…".to_string(), |n| n.to_string());
                format!("{kind} {}..{} at and near its bounds", show(lo), show(hi))
            }
            "string" if schema.get("format").is_some() => "string, one value (format)".to_string(),
            "string" if schema.get("pattern").is_some() => "string matching its pattern".to_string(),
            "string" => format!(
                "string of {} to {} characters",
                count(schema, "minLength").unwrap_or(0),
                count(schema, "maxLength").map_or("20".to_string(), |n| n.to_string())
            ),
            "boolean" => "true or false".to_string(),
            "array" => {
                let min = count(schema, "minItems").unwrap_or(0);
                let items = schema.get("items").cloned().unwrap_or(Value::Null);
                if depth < 4 {
                    walk(&items, &format!("{path}[]"), true, out, depth + 1);
                }
                format!("{min} to {} items", count(schema, "maxItems").unwrap_or(min + 3).min(min + 3).max(min))
            }
            _ if flag(schema, "x-kubernetes-preserve-unknown-fields")
                || flag(schema, "x-kubernetes-embedded-resource")
                || flag(schema, "x-kubernetes-int-or-string") =>
            {
                "as the bare and full objects hold it".to_string()
            }
            _ => {
                let required = self::required(schema);
                if let Some(props) = properties(schema).filter(|_| depth < 4) {
                    for (name, sub) in props {
                        walk(sub, &format!("{path}.{name}"), required.contains(&name.as_str()), out, depth + 1);
                    }
                }
                match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) | None => return,
                    _ => "0 to 3 entries".to_string(),
                }
            }
        };
        out.push(format!("{path}: {what}{optional}"));
    }
    let mut out = Vec::new();
    let required = required(schema);
    if let Some(props) = properties(schema) {
        for (name, sub) in props {
            if META_FIELDS.contains(&name.as_str()) || name == "status" {
                continue;
            }
            walk(sub, name, required.contains(&name.as_str()) || name == "spec", &mut out, 1);
        }
    }
    let more = out.len().saturating_sub(limit);
    out.truncate(limit);
    if more > 0 {
        out.push(format!("{more} more"));
    }
    out.join("; ")
}

/// A small deterministic generator (splitmix64): the same seed, the same object.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// An index below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn pick<T: Clone>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())].clone()
    }
}

fn varied_value(schema: &Value, draw: &mut Draw, depth: usize) -> Value {
    if let Some(values) = schema.get("enum").and_then(Value::as_array).filter(|e| !e.is_empty()) {
        return draw.pick(values);
    }
    if flag(schema, "x-kubernetes-int-or-string") || depth > FULL_DEPTH {
        return value(schema, false, depth);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") | None => varied_object(schema, draw, depth),
        Some("array") => {
            let min = count(schema, "minItems").unwrap_or(0);
            let max = count(schema, "maxItems").unwrap_or(min + 3).min(min + 3).max(min);
            let n = min + draw.below(max - min + 1);
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array((0..n).map(|i| distinct_within(varied_value(&items, draw, depth + 1), i, &items)).collect())
        }
        Some("string") if schema.get("pattern").is_some() || schema.get("format").is_some() => {
            patterned(schema, draw).unwrap_or_else(|| string(schema))
        }
        Some("string") => {
            let min = count(schema, "minLength").unwrap_or(0);
            let max = count(schema, "maxLength").unwrap_or(min.max(12) + 8).max(min);
            let lengths = [min, max, min + (max - min) / 2, (min + 1).min(max), max.saturating_sub(1).max(min)];
            let n = draw.pick(&lengths);
            let alphabet: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789-".chars().collect();
            let mut s: String = (0..n).map(|_| draw.pick(&alphabet)).collect();
            if s.starts_with('-') {
                s.replace_range(0..1, "a");
            }
            Value::String(s)
        }
        Some("integer") => {
            let (lo, hi) = bounds(schema);
            let lo = lo.map(f64::ceil).unwrap_or(-1_000_000.0);
            let hi = hi.map(f64::floor).unwrap_or(1_000_000.0).max(lo);
            let candidates = [lo, hi, lo + 1.0, hi - 1.0, (lo + hi) / 2.0, 0.0, 1.0, 3.0];
            let inside: Vec<f64> = candidates.iter().copied().filter(|n| *n >= lo && *n <= hi).collect();
            json!(draw.pick(&inside).trunc() as i64)
        }
        Some("number") => {
            let (lo, hi) = bounds(schema);
            let lo = lo.unwrap_or(-1_000_000.0);
            let hi = hi.unwrap_or(1_000_000.0).max(lo);
            let candidates = [lo, hi, (lo + hi) / 2.0, 0.5, 1.0];
            let inside: Vec<f64> = candidates.iter().copied().filter(|n| *n >= lo && *n <= hi).collect();
            json!(draw.pick(&inside))
        }
        Some("boolean") => json!(draw.chance()),
        Some(_) => Value::Null,
    }
}

/// Array items after the first differ (for lists that are sets or maps keyed by a string), each
/// string within its `maxLength`: the index replaces the string's last characters rather than
/// lengthening it. Enum values are kept as they are.
fn distinct_within(mut item: Value, index: usize, schema: &Value) -> Value {
    if index == 0 || schema.get("enum").is_some() {
        return item;
    }
    let mark = |s: &mut String, schema: Option<&Value>| {
        let suffix = index.to_string();
        let max = schema.and_then(|x| count(x, "maxLength")).unwrap_or(usize::MAX);
        let keep = max.saturating_sub(suffix.len()).min(s.chars().count());
        *s = s.chars().take(keep).collect::<String>() + &suffix;
    };
    match &mut item {
        Value::String(s) => mark(s, Some(schema)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if let Value::String(s) = v {
                    mark(s, properties(schema).and_then(|p| p.get(k)));
                }
            }
        }
        _ => {}
    }
    item
}

fn varied_object(schema: &Value, draw: &mut Draw, depth: usize) -> Value {
    if flag(schema, "x-kubernetes-embedded-resource") || flag(schema, "x-kubernetes-preserve-unknown-fields") {
        return value(schema, draw.chance(), depth);
    }
    let mut out = Map::new();
    let required = required(schema);
    if let Some(props) = properties(schema) {
        for (name, sub) in props {
            if required.contains(&name.as_str()) || draw.chance() {
                out.insert(name.clone(), varied_value(sub, draw, depth + 1));
            }
        }
    }
    let min = count(schema, "minProperties").unwrap_or(0);
    let max = count(schema, "maxProperties").unwrap_or(usize::MAX);
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) | None => {}
        Some(Value::Bool(true)) => {
            if out.len() < min || (draw.chance() && out.len() < max) {
                out.insert("key".into(), json!("value"));
            }
        }
        Some(sub) => {
            let extra = draw.below(4);
            let mut i = 0;
            while (out.len() < min || i < extra) && out.len() < max {
                out.insert(format!("key{i}"), varied_value(sub, draw, depth + 1));
                i += 1;
            }
        }
    }
    Value::Object(out)
}

/// A status as the controller writes it through `/status`, when the schema has one.
pub(crate) fn status_instance(schema: &Value) -> Option<Value> {
    properties(schema)?.get("status").map(|s| value(s, true, 1))
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn count(schema: &Value, key: &str) -> Option<usize> {
    schema.get(key).and_then(Value::as_u64).map(|n| n as usize)
}

/// A valid value of `schema`: its default or first enum value when it has one, else one built from
/// its type; optional members only when `full` (and not deeper than [`FULL_DEPTH`]).
fn value(schema: &Value, full: bool, depth: usize) -> Value {
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if flag(schema, "x-kubernetes-int-or-string") {
        return json!(1);
    }
    let full_here = full && depth < FULL_DEPTH;
    match schema.get("type").and_then(Value::as_str) {
        Some("object") | None => object(schema, full_here, depth),
        Some("array") => {
            let min = count(schema, "minItems").unwrap_or(0);
            let max = count(schema, "maxItems").unwrap_or(usize::MAX);
            let n = min.max(usize::from(full_here)).min(max);
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array((0..n).map(|i| distinct_within(value(&items, full, depth + 1), i, &items)).collect())
        }
        Some("string") => string(schema),
        Some("integer") => {
            let (lo, hi) = bounds(schema);
            let n = within(lo.map(f64::ceil).unwrap_or(1.0), hi.map(f64::floor));
            json!(n as i64)
        }
        Some("number") => {
            let (lo, hi) = bounds(schema);
            json!(within(lo.unwrap_or(1.0), hi))
        }
        Some("boolean") => json!(full_here),
        Some(_) => Value::Null,
    }
}

/// `(lowest, highest)` allowed by `minimum`/`maximum` and their exclusive flags.
fn bounds(schema: &Value) -> (Option<f64>, Option<f64>) {
    let lo = number(schema, "minimum").map(|m| if flag(schema, "exclusiveMinimum") { m + 1.0 } else { m });
    let hi = number(schema, "maximum").map(|m| if flag(schema, "exclusiveMaximum") { m - 1.0 } else { m });
    (lo, hi)
}

/// `n`, or `highest` when that is lower.
fn within(n: f64, highest: Option<f64>) -> f64 {
    match highest {
        Some(h) if n > h => h,
        _ => n,
    }
}

fn object(schema: &Value, full: bool, depth: usize) -> Value {
    let mut out = Map::new();
    if flag(schema, "x-kubernetes-embedded-resource") {
        out.insert("apiVersion".into(), json!("v1"));
        out.insert("kind".into(), json!("ConfigMap"));
        out.insert("metadata".into(), json!({"name": "embedded"}));
    }
    let required = required(schema);
    if let Some(props) = properties(schema) {
        for (name, sub) in props {
            if out.contains_key(name) {
                continue;
            }
            if required.contains(&name.as_str()) || full {
                out.insert(name.clone(), value(sub, full, depth + 1));
            }
        }
    }
    let min = count(schema, "minProperties").unwrap_or(0);
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) | None => {}
        Some(Value::Bool(true)) => {
            if full || out.len() < min {
                out.insert("key".into(), json!("value"));
            }
        }
        Some(sub) => {
            let mut i = 0;
            while (full && i == 0) || out.len() < min {
                out.insert(format!("key{i}"), value(sub, full, depth + 1));
                i += 1;
            }
        }
    }
    if out.is_empty() && properties(schema).is_none() && flag(schema, "x-kubernetes-preserve-unknown-fields") && full {
        out.insert("setting".into(), json!("kept as written"));
    }
    Value::Object(out)
}

/// A string matching the schema's `pattern` within its length bounds (none with a `format`,
/// which gives its own value, or when the draw reaches no such string).
fn patterned(schema: &Value, draw: &mut Draw) -> Option<Value> {
    if schema.get("format").is_some() {
        return None;
    }
    let pattern = schema.get("pattern")?.as_str()?;
    let min = count(schema, "minLength").unwrap_or(0);
    let max = count(schema, "maxLength").unwrap_or(usize::MAX);
    super::pattern::matching(pattern, min, max, &mut |n| draw.below(n)).map(Value::String)
}

fn string(schema: &Value) -> Value {
    if let Some(matching) = patterned(schema, &mut Draw(0x5eed)) {
        return matching;
    }
    let base = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("byte") => "ZXhhbXBsZQ==",
        Some("uri") | Some("url") => "https://example.com/",
        Some("email") => "owner@example.com",
        Some("ipv4") | Some("ip") => "192.0.2.10",
        Some("ipv6") => "2001:db8::10",
        Some("cidr") => "192.0.2.0/24",
        Some("uuid") => "5d3e1c9a-6a8f-4c0e-9a6e-0000000000ee",
        Some("duration") => "30s",
        Some("hostname") => "example.com",
        _ => "example",
    };
    let mut s = base.to_string();
    if let Some(min) = count(schema, "minLength") {
        while s.chars().count() < min {
            s.push('x');
        }
    }
    if let Some(max) = count(schema, "maxLength") {
        s = s.chars().take(max).collect();
    }
    Value::String(s)
}

/// What the apiserver does to an object of the custom resource when decoding it (steps 1–5 of the
/// module documentation), in place.
pub(crate) fn admit(schema: &Value, object: &mut Value) {
    coerce_metadata(object);
    prune(object, Some(schema), true);
    drop_non_nullable_nulls(object, Some(schema));
    coerce_embedded_metadata(object, Some(schema), true);
    default(object, Some(schema));
}

fn coerce_metadata(object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata") {
        if let Ok(coerced) = crate::kinds::object_meta(meta) {
            *meta = coerced;
        }
    }
}

/// `pruning.PruneWithOptions`: remove members `schema` does not specify.
fn prune(x: &mut Value, schema: Option<&Value>, embedded: bool) {
    if let Some(s) = schema {
        if flag(s, "x-kubernetes-preserve-unknown-fields") {
            skip_prune(x, s, embedded || flag(s, "x-kubernetes-embedded-resource"));
            return;
        }
    }
    match x {
        Value::Object(map) => {
            let Some(s) = schema else {
                map.clear();
                return;
            };
            let embedded = embedded || flag(s, "x-kubernetes-embedded-resource");
            map.retain(|k, _| (embedded && META_FIELDS.contains(&k.as_str())) || member_schema(s, k).is_some());
            for (k, v) in map.iter_mut() {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                if let Some(sub) = member_schema(s, k) {
                    prune(v, sub, false);
                }
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.get("items"));
            for v in items {
                prune(v, item_schema, false);
            }
        }
        _ => {}
    }
}

/// `skipPrune`: under `x-kubernetes-preserve-unknown-fields`, keep unknown members but prune inside
/// the known ones.
fn skip_prune(x: &mut Value, schema: &Value, embedded: bool) {
    match x {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                if let Some(sub) = member_schema(schema, k) {
                    prune(v, sub, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for v in items {
                    skip_prune(v, item_schema, flag(item_schema, "x-kubernetes-embedded-resource"));
                }
            }
        }
        _ => {}
    }
}

/// `PruneNonNullableNullsWithoutDefaults`.
fn drop_non_nullable_nulls(x: &mut Value, schema: Option<&Value>) {
    match x {
        Value::Object(map) => {
            map.retain(|k, v| {
                let sub = schema.and_then(|s| member_schema(s, k)).flatten();
                !(v.is_null() && sub.is_some_and(|s| !flag(s, "nullable") && s.get("default").is_none()))
            });
            for (k, v) in map.iter_mut() {
                let sub = schema.and_then(|s| member_schema(s, k)).flatten();
                drop_non_nullable_nulls(v, sub);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.get("items"));
            for v in items {
                drop_non_nullable_nulls(v, item_schema);
            }
        }
        _ => {}
    }
}

/// `objectmeta.Coerce`: the metadata of embedded resources is decoded as ObjectMeta.
fn coerce_embedded_metadata(x: &mut Value, schema: Option<&Value>, root: bool) {
    let Some(s) = schema else { return };
    match x {
        Value::Object(map) => {
            if !root && flag(s, "x-kubernetes-embedded-resource") {
                if let Some(meta) = map.get_mut("metadata") {
                    if let Ok(coerced) = crate::kinds::object_meta(meta) {
                        *meta = coerced;
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if root && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                coerce_embedded_metadata(v, member_schema(s, k).flatten(), false);
            }
        }
        Value::Array(items) => {
            for v in items {
                coerce_embedded_metadata(v, s.get("items"), false);
            }
        }
        _ => {}
    }
}

/// `defaulting.Default`: absent members (and non-nullable nulls) that have a default get it; then
/// every member, defaulted ones included, is defaulted in turn.
fn default(x: &mut Value, schema: Option<&Value>) {
    let Some(s) = schema else { return };
    match x {
        Value::Object(map) => {
            if let Some(props) = properties(s) {
                for (k, prop) in props {
                    let Some(d) = prop.get("default") else { continue };
                    let missing = match map.get(k) {
                        None => true,
                        Some(v) => v.is_null() && !flag(prop, "nullable"),
                    };
                    if missing {
                        map.insert(k.clone(), d.clone());
                    }
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = properties(s).and_then(|p| p.get(k)) {
                    default(v, Some(prop));
                } else if let Some(add) = s.get("additionalProperties").filter(|a| a.is_object()) {
                    if v.is_null() && !flag(add, "nullable") {
                        if let Some(d) = add.get("default") {
                            *v = d.clone();
                        }
                    }
                    default(v, Some(add));
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.get("items") {
                for v in items {
                    if v.is_null() && !flag(item_schema, "nullable") {
                        if let Some(d) = item_schema.get("default") {
                            *v = d.clone();
                        }
                    }
                    default(v, Some(item_schema));
                }
            }
        }
        _ => {}
    }
}

/// Where an object is not what the apiserver would accept for a schema, and why.
#[cfg(test)]
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("{path}: {why}")]
pub(crate) struct Nonconformity {
    /// The field path, e.g. `.spec.size`.
    pub path: String,
    /// What is wrong there.
    pub why: Why,
}

/// What is wrong with a value for its schema.
#[cfg(test)]
#[derive(Debug, PartialEq, thiserror::Error)]
pub(crate) enum Why {
    /// `null` where the schema is not `nullable`.
    #[error("null")]
    Null,
    /// A value outside `enum`.
    #[error("{0} not in the enum")]
    NotInEnum(Box<Value>),
    /// Neither an integer nor a string for `x-kubernetes-int-or-string`.
    #[error("not int-or-string")]
    NotIntOrString,
    /// A value of another `type`.
    #[error("{value} is not of type {ty}")]
    Type {
        /// The value.
        value: Box<Value>,
        /// The schema's type.
        ty: Box<Value>,
    },
    /// A `required` member is missing.
    #[error("required")]
    Required,
    /// A member no schema describes or preserves.
    #[error("not in the schema")]
    Unknown,
}

/// Why `object` is not what the apiserver would accept for `schema` (types, required members,
/// enums, unknown members where nothing preserves them), or `Ok`: what a strict validating webhook
/// checks, for the suite's own tests.
#[cfg(test)]
pub(crate) fn conforms(schema: &Value, object: &Value) -> Result<(), Nonconformity> {
    fn check(s: &Value, x: &Value, path: &str, root: bool) -> Result<(), Nonconformity> {
        let at = |path: &str, why| Nonconformity { path: path.to_string(), why };
        if x.is_null() {
            return if flag(s, "nullable") { Ok(()) } else { Err(at(path, Why::Null)) };
        }
        if let Some(e) = s.get("enum").and_then(Value::as_array) {
            if !e.contains(x) {
                return Err(at(path, Why::NotInEnum(Box::new(x.clone()))));
            }
        }
        if flag(s, "x-kubernetes-int-or-string") {
            return if x.is_i64() || x.is_string() { Ok(()) } else { Err(at(path, Why::NotIntOrString)) };
        }
        let ok = match s.get("type").and_then(Value::as_str) {
            Some("object") => x.is_object(),
            Some("array") => x.is_array(),
            Some("string") => x.is_string(),
            Some("integer") => x.is_i64() || x.is_u64(),
            Some("number") => x.is_number(),
            Some("boolean") => x.is_boolean(),
            _ => true,
        };
        if !ok {
            return Err(at(path, Why::Type { value: Box::new(x.clone()), ty: Box::new(s["type"].clone()) }));
        }
        if let Some(map) = x.as_object() {
            for r in required(s) {
                if !map.contains_key(r) {
                    return Err(at(&format!("{path}.{r}"), Why::Required));
                }
            }
            let embedded = root || flag(s, "x-kubernetes-embedded-resource");
            for (k, v) in map {
                if embedded && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                match member_schema(s, k) {
                    Some(Some(sub)) => check(sub, v, &format!("{path}.{k}"), false)?,
                    Some(None) => {}
                    None if flag(s, "x-kubernetes-preserve-unknown-fields") => {}
                    None => return Err(at(&format!("{path}.{k}"), Why::Unknown)),
                }
            }
        }
        if let (Some(items), Some(list)) = (s.get("items"), x.as_array()) {
            for (i, v) in list.iter().enumerate() {
                check(items, v, &format!("{path}[{i}]"), false)?;
            }
        }
        Ok(())
    }
    check(schema, object, "", true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["size", "mode"],
                    "properties": {
                        "size": {"type": "integer", "minimum": 3, "maximum": 9},
                        "mode": {"type": "string", "enum": ["fast", "safe"]},
                        "replicas": {"type": "integer", "default": 1},
                        "port": {"x-kubernetes-int-or-string": true},
                        "tags": {"type": "array", "minItems": 2, "items": {"type": "string", "maxLength": 4}},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "settings": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                                     "properties": {"level": {"type": "object", "properties": {"n": {"type": "integer"}}}}},
                        "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                                     "properties": {"data": {"type": "object", "properties": {"k": {"type": "string"}}}}},
                        "note": {"type": "string", "nullable": true},
                        "owner": {"type": "string", "format": "email"},
                        "limits": {"type": "object", "default": {}, "properties": {"cpu": {"type": "string", "default": "1"}}}
                    }
                },
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
            }
        })
    }

    fn object(body: Map<String, Value>) -> Value {
        let mut o = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        o.as_object_mut().unwrap().extend(body);
        o
    }

    #[test]
    fn varied_instances_cover_the_schema_and_stay_valid() {
        let s = schema();
        let (mut sizes, mut modes, mut tag_counts, mut tag_lengths) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut with_tags, mut without_tags, mut label_counts) = (0, 0, Vec::new());
        for seed in 0..300 {
            let mut o = object(varied(&s, seed));
            admit(&s, &mut o);
            assert_eq!(conforms(&s, &o), Ok(()), "seed {seed}: {o}");
            let refused = apiserver_validation::crd::validate_custom_resource(&s, &o);
            assert!(refused.is_empty(), "seed {seed}: the apiserver refuses {refused:?}: {o}");
            assert_eq!(object(varied(&s, seed)), object(varied(&s, seed)), "the same seed, the same object");
            let spec = &o["spec"];
            let size = spec["size"].as_i64().unwrap();
            assert!((3..=9).contains(&size), "seed {seed}: size {size}");
            sizes.push(size);
            modes.push(spec["mode"].as_str().unwrap().to_string());
            assert!(spec["replicas"].as_i64().is_some(), "a default fills what is left out");
            match spec.get("tags").and_then(Value::as_array) {
                Some(tags) => {
                    with_tags += 1;
                    assert!(tags.len() >= 2, "minItems");
                    tag_counts.push(tags.len());
                    for t in tags {
                        let n = t.as_str().unwrap().chars().count();
                        assert!(n <= 4, "maxLength: {t}");
                        tag_lengths.push(n);
                    }
                }
                None => without_tags += 1,
            }
            label_counts.push(spec.get("labels").and_then(Value::as_object).map_or(0, Map::len));
        }
        for want in [3, 4, 6, 8, 9] {
            assert!(sizes.contains(&want), "size {want} (bounds and values near them) never drawn: {sizes:?}");
        }
        for want in ["fast", "safe"] {
            assert!(modes.iter().any(|m| m == want), "enum value {want} never drawn");
        }
        assert!(with_tags > 0 && without_tags > 0, "an optional field both present and absent");
        assert!(tag_counts.iter().any(|n| *n > 2), "arrays longer than minItems");
        assert!(tag_lengths.contains(&4) && tag_lengths.contains(&0), "strings up to maxLength: {tag_lengths:?}");
        assert!(label_counts.iter().any(|n| *n > 1), "maps of several entries");
    }

    #[test]
    fn the_summary_says_what_is_drawn_for_each_field() {
        let text = summary(&schema(), 40);
        for says in [
            "spec.size: integer 3..9 at and near its bounds",
            "spec.mode: one of \"fast\", \"safe\"",
            "spec.tags[]: string of 0 to 4 characters",
            "spec.tags: 2 to 5 items, or absent",
            "spec.labels: 0 to 3 entries, or absent",
            "spec.owner: string, one value (format), or absent",
        ] {
            assert!(text.contains(says), "{says:?} not in {text}");
        }
        assert!(summary(&schema(), 2).ends_with("more"));
    }

    #[test]
    fn strings_with_a_pattern_are_drawn_to_match_it() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {"spec": {
        "type": "object", "required": ["version", "image"], "properties": {
            "version": {"type": "string", "pattern": "^v[0-9]+\\.[0-9]+$", "maxLength": 8},
            "image": {"type": "string", "pattern": "^[a-z]+(/[a-z]+)*:[0-9a-f]{6}$"}
        }}}});
        let version = regex::Regex::new(r"^v[0-9]+\.[0-9]+$").unwrap();
        let image = regex::Regex::new(r"^[a-z]+(/[a-z]+)*:[0-9a-f]{6}$").unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let spec = &varied(&schema, seed)["spec"];
            let (v, i) = (spec["version"].as_str().unwrap(), spec["image"].as_str().unwrap());
            assert!(version.is_match(v) && v.len() <= 8, "{v:?}");
            assert!(image.is_match(i), "{i:?}");
            seen.insert(v.to_string());
        }
        assert!(seen.len() > 5, "the strings vary with the seed: {seen:?}");
        let bare = instance(&schema, false);
        assert!(version.is_match(bare["spec"]["version"].as_str().unwrap()), "{bare:?}");
        assert!(summary(&schema, 10).contains("spec.version: string matching its pattern"));
    }

    #[test]
    fn instances_are_valid_bare_and_full() {
        let s = schema();
        let mut bare = object(instance(&s, false));
        admit(&s, &mut bare);
        assert_eq!(conforms(&s, &bare), Ok(()));
        assert_eq!(apiserver_validation::crd::validate_custom_resource(&s, &bare), vec![]);
        assert_eq!(bare["spec"]["size"], 3, "the minimum is respected");
        assert_eq!(bare["spec"]["mode"], "fast");
        assert!(bare["spec"].get("tags").is_none(), "optional fields are left out of a bare object");
        assert_eq!(bare["spec"]["replicas"], 1, "defaults are filled");
        assert_eq!(bare["spec"]["limits"], json!({"cpu": "1"}), "defaults of defaults too");
        assert!(bare.get("status").is_none());

        let mut full = object(instance(&s, true));
        admit(&s, &mut full);
        assert_eq!(conforms(&s, &full), Ok(()));
        assert_eq!(apiserver_validation::crd::validate_custom_resource(&s, &full), vec![]);
        assert_eq!(full["spec"]["tags"].as_array().unwrap().len(), 2, "minItems");
        assert!(full["spec"]["tags"][0].as_str().unwrap().len() <= 4);
        assert_eq!(full["spec"]["template"]["kind"], "ConfigMap");
        assert!(full["spec"]["labels"].as_object().is_some_and(|m| !m.is_empty()));
        assert_eq!(full["spec"]["owner"], "owner@example.com");
        assert_eq!(status_instance(&s), Some(json!({"ready": true})));
    }

    #[test]
    fn unknown_fields_are_pruned_where_nothing_preserves_them() {
        let s = schema();
        let mut o = json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "x-unknown-meta": 1},
            "x-unknown": {"a": 1},
            "spec": {
                "size": 4, "mode": "safe", "extra": true,
                "labels": {"a": "b"},
                "settings": {"free": {"deep": [1]}, "level": {"n": 2, "drop": 1}},
                "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t", "bogus": 1},
                             "data": {"k": "v", "gone": 1}, "other": 1},
                "note": null, "owner": null
            }
        });
        admit(&s, &mut o);
        assert_eq!(
            o,
            json!({
                "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                "spec": {
                    "size": 4, "mode": "safe",
                    "labels": {"a": "b"},
                    "settings": {"free": {"deep": [1]}, "level": {"n": 2}},
                    "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "t"}, "data": {"k": "v"}},
                    "note": null,
                    "replicas": 1,
                    "limits": {"cpu": "1"}
                }
            })
        );
        assert_eq!(conforms(&s, &o), Ok(()));
    }

    #[test]
    fn a_schema_that_preserves_everything_keeps_everything() {
        let s = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
        let mut o =
            json!({"apiVersion": "example.com/v1", "kind": "Free", "metadata": {"name": "f"}, "anything": {"x": [1]}});
        let before = o.clone();
        admit(&s, &mut o);
        assert_eq!(o, before);
    }

    #[test]
    fn conforms_finds_what_a_strict_webhook_refuses() {
        let s = schema();
        let ok = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "spec": {"size": 3, "mode": "fast"}});
        assert_eq!(conforms(&s, &ok), Ok(()));
        let mut extra = ok.clone();
        extra["spec"]["bogus"] = json!(1);
        let e = conforms(&s, &extra).unwrap_err();
        assert_eq!(e, Nonconformity { path: ".spec.bogus".into(), why: Why::Unknown });
        assert_eq!(e.to_string(), ".spec.bogus: not in the schema");
        let mut wrong = ok.clone();
        wrong["spec"]["size"] = json!("3");
        let e = conforms(&s, &wrong).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.to_string()),
            (".spec.size", r#".spec.size: "3" is not of type "integer""#.into())
        );
        let mut missing = ok;
        missing["spec"].as_object_mut().unwrap().remove("mode");
        assert_eq!(conforms(&s, &missing), Err(Nonconformity { path: ".spec.mode".into(), why: Why::Required }));
    }
}
