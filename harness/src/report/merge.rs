//! Merging JSON reports into one: the shards of a campaign (`fuzz --shard I/N`) or reports of
//! separate runs (e.g. one per webhook).
//!
//! Shards must be complete: every shard of the campaign exactly once, all of one seed, so that the
//! merged verdict covers every case the campaign planned. The merged report has the JSON report's
//! format: FAIL when any report FAILs; requests and generated cases add up; each rule keeps its
//! worst outcome per webhook, with the evidence of the report where it was worst (and which shard
//! that was); lint findings and cases are the same in every shard and are kept once, worst first.
//! Fields this version does not know are kept from the first report.

use serde_json::{json, Map, Value};

use crate::error::ReportError;
use crate::verdict::Outcome;

fn outcome(v: &Value) -> Outcome {
    serde_json::from_value(v.get("outcome").cloned().unwrap_or(Value::Null)).unwrap_or(Outcome::Skip)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn shard_of(v: &Value) -> Option<(u64, u64)> {
    let s = v.get("shard")?;
    Some((s.get("index")?.as_u64()?, s.get("count")?.as_u64()?))
}

/// Check that the reports are either all unsharded, or every shard of one campaign exactly once.
fn check_shards(reports: &[(String, &Value)]) -> Result<(), ReportError> {
    let shards: Vec<Option<(u64, u64)>> = reports.iter().map(|(_, v)| shard_of(v)).collect();
    if shards.iter().all(Option::is_none) {
        return Ok(());
    }
    if let Some(i) = shards.iter().position(Option::is_none) {
        return Err(ReportError::NotAShard { name: reports[i].0.clone() });
    }
    let count = shards[0].map(|(_, n)| n).unwrap_or_default();
    let seed = reports[0].1.get("seed");
    for ((name, v), shard) in reports.iter().zip(&shards) {
        let (index, n) = shard.expect("checked above");
        if n != count {
            return Err(ReportError::ShardCount {
                name: name.clone(),
                index,
                count: n,
                first: reports[0].0.clone(),
                first_count: count,
            });
        }
        if v.get("seed") != seed {
            return Err(ReportError::Seed {
                name: name.clone(),
                seed: v.get("seed").cloned().unwrap_or(Value::Null).to_string(),
                first: reports[0].0.clone(),
                first_seed: seed.cloned().unwrap_or(Value::Null).to_string(),
            });
        }
    }
    for index in 1..=count {
        let with: Vec<&str> = reports
            .iter()
            .zip(&shards)
            .filter(|(_, s)| s.map(|(i, _)| i) == Some(index))
            .map(|((name, _), _)| name.as_str())
            .collect();
        match with.len() {
            0 => return Err(ReportError::MissingShard { index, count }),
            1 => {}
            _ => {
                let names = with.into_iter().map(str::to_string).collect();
                return Err(ReportError::ShardTwice { index, count, names });
            }
        }
    }
    Ok(())
}

/// Entries of `key` of every report, grouped by `id`, in first-seen order; each with its report's
/// shard label.
fn grouped<'a>(
    reports: &'a [(String, &'a Value)],
    key: &str,
    id: impl Fn(&Value) -> String,
) -> Vec<Vec<(&'a Value, Option<String>)>> {
    let mut order: Vec<String> = Vec::new();
    let mut groups: Vec<Vec<(&Value, Option<String>)>> = Vec::new();
    for (_, report) in reports {
        let label = shard_of(report).map(|(i, n)| format!("shard {i}/{n}"));
        for entry in report.get(key).and_then(Value::as_array).into_iter().flatten() {
            let k = id(entry);
            match order.iter().position(|o| o == &k) {
                Some(i) => groups[i].push((entry, label.clone())),
                None => {
                    order.push(k);
                    groups.push(vec![(entry, label.clone())]);
                }
            }
        }
    }
    groups
}

/// The entry with the worst outcome (the first of those).
fn worst<'a>(group: &[(&'a Value, Option<String>)]) -> (&'a Value, Option<String>) {
    let w = Outcome::worst(group.iter().map(|(v, _)| outcome(v)));
    group.iter().find(|(v, _)| outcome(v) == w).cloned().unwrap_or_else(|| group[0].clone())
}

fn rule_and(other: &'static str) -> impl Fn(&Value) -> String {
    move |v| format!("{}\u{0}{}", text(v, "rule"), v.get(other).map(Value::to_string).unwrap_or_default())
}

fn merge_results(reports: &[(String, &Value)]) -> Vec<Value> {
    grouped(reports, "results", rule_and("webhook"))
        .into_iter()
        .map(|group| {
            let (w, _) = worst(&group);
            let mut merged = w.clone();
            if w.get("counts").is_some() {
                let mut counts = Map::new();
                for (v, _) in &group {
                    for (k, n) in v.get("counts").and_then(Value::as_object).into_iter().flatten() {
                        let sum = counts.get(k).and_then(Value::as_u64).unwrap_or(0) + n.as_u64().unwrap_or(0);
                        counts.insert(k.clone(), json!(sum));
                    }
                }
                merged["counts"] = Value::Object(counts);
                let mut breaches: Vec<Value> = group
                    .iter()
                    .flat_map(|(v, _)| v.get("breaches").and_then(Value::as_array).cloned().unwrap_or_default())
                    .collect();
                breaches.sort_by_key(|b| std::cmp::Reverse(outcome(b)));
                breaches.truncate(5);
                merged["breaches"] = Value::Array(breaches);
            }
            merged
        })
        .collect()
}

fn merge_properties(reports: &[(String, &Value)]) -> Vec<Value> {
    grouped(reports, "properties", rule_and("webhook"))
        .into_iter()
        .map(|group| {
            let (w, label) = worst(&group);
            let mut merged = w.clone();
            merged["cases"] =
                json!(group.iter().map(|(v, _)| v.get("cases").and_then(Value::as_u64).unwrap_or(0)).sum::<u64>());
            if let (Some(label), true) = (label, matches!(outcome(w), Outcome::Fail | Outcome::Warn)) {
                let note = match w.get("note").and_then(Value::as_str) {
                    Some(n) => format!("{label}: {n}"),
                    None => format!("found by {label}"),
                };
                merged["note"] = json!(note);
            } else if outcome(w) == Outcome::Pass {
                merged["note"] = Value::Null;
            }
            merged
        })
        .collect()
}

/// Per webhook, per operation and resource: the counts added up.
fn merge_coverage(reports: &[(String, &Value)]) -> Value {
    let mut merged = Map::new();
    for (_, report) in reports {
        for (webhook, rows) in report.get("coverage").and_then(Value::as_object).into_iter().flatten() {
            let into = merged.entry(webhook.clone()).or_insert_with(|| json!([])).as_array_mut().expect("an array");
            for row in rows.as_array().into_iter().flatten() {
                let key = |r: &Value| (text(r, "operation").to_string(), text(r, "resource").to_string());
                match into.iter_mut().find(|r| key(r) == key(row)) {
                    None => into.push(row.clone()),
                    Some(r) => {
                        for (k, n) in row.as_object().into_iter().flatten() {
                            if let (Some(a), Some(b)) = (r.get(k).and_then(Value::as_u64), n.as_u64()) {
                                r[k] = json!(a + b);
                            }
                        }
                    }
                }
            }
        }
    }
    Value::Object(merged)
}

fn merge_worst(reports: &[(String, &Value)], key: &str, id: impl Fn(&Value) -> String) -> Vec<Value> {
    grouped(reports, key, id).into_iter().map(|group| worst(&group).0.clone()).collect()
}

/// A flat finding's rule and subject, without the subject's place in its own report's records.
fn finding_key(v: &Value) -> String {
    let mut subject = v.get("subject").cloned().unwrap_or(Value::Null);
    if let Some(s) = subject.as_object_mut() {
        s.remove("index");
    }
    format!("{}\u{0}{subject}", text(v, "rule"))
}

fn unique_strings(reports: &[(String, &Value)], key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, v) in reports {
        let items: Vec<String> = match v.get(key) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => Vec::new(),
        };
        for s in items {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// One report of `reports` (each with the name errors use, e.g. its file).
pub(crate) fn merge(reports: &[(String, &Value)]) -> Result<Value, ReportError> {
    if reports.is_empty() {
        return Err(ReportError::NoReports);
    }
    for (name, v) in reports {
        if !v.get("verdict").is_some_and(Value::is_string) {
            return Err(ReportError::NotAReportNamed { name: name.clone() });
        }
    }
    check_shards(reports)?;
    let fail = reports.iter().any(|(_, v)| text(v, "verdict") == "fail");
    let seeds: Vec<&Value> = reports.iter().map(|(_, v)| v.get("seed").unwrap_or(&Value::Null)).collect();
    let seed = if seeds.iter().all(|s| *s == seeds[0]) { seeds[0].clone() } else { Value::Null };
    let mut merged = reports[0].1.as_object().cloned().unwrap_or_default();
    let sum = |key: &str| reports.iter().map(|(_, v)| v.get(key).and_then(Value::as_u64).unwrap_or(0)).sum::<u64>();
    let max = |key: &str| reports.iter().map(|(_, v)| v.get(key).and_then(Value::as_u64).unwrap_or(0)).max();
    merged.insert("verdict".into(), json!(if fail { "fail" } else { "pass" }));
    merged.insert("seed".into(), seed);
    merged.insert("target".into(), json!(unique_strings(reports, "target").join("; ")));
    merged.insert("requests".into(), json!(sum("requests")));
    merged.insert("duration_ms".into(), json!(max("duration_ms")));
    merged.insert("notes".into(), json!(unique_strings(reports, "notes")));
    merged.insert("results".into(), json!(merge_results(reports)));
    merged.insert("properties".into(), json!(merge_properties(reports)));
    merged.insert("lint".into(), json!(merge_worst(reports, "lint", rule_and("webhook"))));
    merged.insert("coverage".into(), merge_coverage(reports));
    merged.insert("contract_cases".into(), json!(sum("contract_cases")));
    merged.insert("coverage_findings".into(), json!(merge_worst(reports, "coverage_findings", rule_and("webhook"))));
    merged.insert("side_effects".into(), json!(merge_worst(reports, "side_effects", rule_and("webhook"))));
    merged.insert(
        "cases".into(),
        json!(merge_worst(reports, "cases", |v| format!("{}\u{0}{}", text(v, "case"), text(v, "file")))),
    );
    // The flat list, when every report has one (else the renderers read the per-kind sections).
    if reports.iter().all(|(_, v)| v.get("findings").is_some_and(Value::is_array)) {
        merged.insert("findings".into(), json!(merge_worst(reports, "findings", finding_key)));
    } else {
        merged.remove("findings");
    }
    merged.insert("shard".into(), Value::Null);
    merged.insert("merged".into(), json!(reports.len()));
    merged.insert(
        "reports".into(),
        json!(reports
            .iter()
            .map(|(name, v)| json!({
                "name": name,
                "shard": v.get("shard").cloned().unwrap_or(Value::Null),
                "verdict": v.get("verdict"),
                "requests": v.get("requests"),
                "target": v.get("target"),
            }))
            .collect::<Vec<_>>()),
    );
    Ok(Value::Object(merged))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(index: u64, count: u64, verdict: &str, cases: u64, outcome: &str) -> Value {
        json!({
            "verdict": verdict, "seed": 7, "target": "url: https://hook.ns.svc:443", "requests": cases * 2,
            "duration_ms": 1000 * index, "notes": ["n"], "results": [], "lint": [], "cases": [],
            "shard": {"index": index, "count": count},
            "properties": [{"rule": "property.idempotent", "webhook": "a.example.com", "outcome": outcome,
                            "cases": cases, "note": (outcome == "fail").then_some("found by round 0; --seed 7 --shard 2/3 replays the run"),
                            "detail": (outcome == "fail").then_some("the second answer differs")}],
            "future_field": {"kept": index},
        })
    }

    fn named(values: &[Value]) -> Vec<(String, &Value)> {
        values.iter().enumerate().map(|(i, v)| (format!("r{}.json", i + 1), v)).collect()
    }

    #[test]
    fn shards_merge_into_one_verdict() {
        let reports =
            vec![shard(1, 3, "pass", 10, "pass"), shard(2, 3, "fail", 4, "fail"), shard(3, 3, "pass", 9, "pass")];
        let m = merge(&named(&reports)).unwrap();
        assert_eq!(m["verdict"], "fail");
        assert_eq!(m["requests"], 46);
        assert_eq!(m["duration_ms"], 3000);
        assert_eq!(m["seed"], 7);
        assert_eq!(m["merged"], 3);
        assert_eq!(m["shard"], Value::Null);
        assert_eq!(m["notes"], json!(["n"]));
        assert_eq!(m["future_field"], json!({"kept": 1}));
        let p = &m["properties"][0];
        assert_eq!((p["outcome"].as_str(), p["cases"].as_u64()), (Some("fail"), Some(23)));
        assert_eq!(p["detail"], "the second answer differs");
        assert!(p["note"].as_str().unwrap().starts_with("shard 2/3: found by round 0"), "{p}");

        let passing = vec![shard(2, 2, "pass", 3, "pass"), shard(1, 2, "pass", 3, "skip")];
        let m = merge(&named(&passing)).unwrap();
        assert_eq!(m["verdict"], "pass");
        assert_eq!(
            (m["properties"][0]["outcome"].as_str(), m["properties"][0]["cases"].as_u64()),
            (Some("pass"), Some(6))
        );
    }

    #[test]
    fn a_campaign_needs_every_shard_once_and_one_seed() {
        let missing = vec![shard(1, 3, "pass", 1, "pass"), shard(3, 3, "pass", 1, "pass")];
        assert!(merge(&named(&missing)).unwrap_err().to_string().contains("shard 2/3 is missing"));
        let twice =
            vec![shard(1, 2, "pass", 1, "pass"), shard(1, 2, "pass", 1, "pass"), shard(2, 2, "pass", 1, "pass")];
        let e = merge(&named(&twice)).unwrap_err().to_string();
        assert!(e.contains("shard 1/2 is given twice (r1.json, r2.json)"), "{e}");
        let mut other_seed = shard(2, 2, "pass", 1, "pass");
        other_seed["seed"] = json!(8);
        let e = merge(&named(&[shard(1, 2, "pass", 1, "pass"), other_seed])).unwrap_err().to_string();
        assert!(e.contains("share --seed"), "{e}");
        let e =
            merge(&named(&[shard(1, 2, "pass", 1, "pass"), shard(2, 3, "pass", 1, "pass")])).unwrap_err().to_string();
        assert!(e.contains("of 2 shards"), "{e}");
        let mut plain = shard(2, 2, "pass", 1, "pass");
        plain["shard"] = Value::Null;
        assert!(merge(&named(&[shard(1, 2, "pass", 1, "pass"), plain]))
            .unwrap_err()
            .to_string()
            .contains("not a shard"));
        assert!(merge(&named(&[json!({"something": "else"})]))
            .unwrap_err()
            .to_string()
            .contains("not a webhook-conformance"));
    }

    #[test]
    fn exchange_counts_add_up_and_breaches_keep_the_worst() {
        let report = |fail: u64, outcome: &str| {
            json!({"verdict": if fail > 0 { "fail" } else { "pass" }, "results": [{
                "rule": "transport.status", "webhook": "a", "outcome": outcome,
                "counts": {"pass": 10, "fail": fail, "warn": 0, "skip": 1},
                "breaches": (0..fail).map(|i| json!({"outcome": "fail", "request": format!("r{i}")})).collect::<Vec<_>>(),
            }]})
        };
        let m = merge(&named(&[report(0, "pass"), report(7, "fail")])).unwrap();
        let r = &m["results"][0];
        assert_eq!(r["outcome"], "fail");
        assert_eq!(r["counts"], json!({"pass": 20, "fail": 7, "warn": 0, "skip": 2}));
        assert_eq!(r["breaches"].as_array().unwrap().len(), 5);
    }

    #[test]
    fn flat_findings_keep_the_worst_outcome_per_rule_and_subject() {
        let finding = |rule: &str, index: u64, request: &str, outcome: &str| {
            json!({"rule": rule, "outcome": outcome, "subject": {"kind": "exchange", "index": index,
                "webhook": "a", "request": request, "version": "v1"}})
        };
        let one = json!({"verdict": "pass", "findings": [
            finding("response.uid", 0, "CREATE pods", "pass"),
            finding("response.uid", 1, "UPDATE pods", "pass"),
            {"rule": "manifest.timeout", "outcome": "warn", "subject": {"kind": "manifest", "webhook": "a"}},
        ]});
        let two = json!({"verdict": "fail", "findings": [
            finding("response.uid", 5, "CREATE pods", "fail"),
            finding("response.uid", 6, "DELETE pods", "pass"),
            {"rule": "manifest.timeout", "outcome": "pass", "subject": {"kind": "manifest", "webhook": "a"}},
        ]});
        let m = merge(&named(&[one.clone(), two])).unwrap();
        let flat = m["findings"].as_array().unwrap();
        let of = |rule: &str, request: Option<&str>| {
            let found: Vec<&Value> =
                flat.iter().filter(|f| f["rule"] == rule && f["subject"]["request"].as_str() == request).collect();
            assert_eq!(found.len(), 1, "one {rule} {request:?} in {flat:?}");
            found[0]["outcome"].as_str().unwrap().to_string()
        };
        assert_eq!(flat.len(), 4, "{flat:?}");
        assert_eq!(of("response.uid", Some("CREATE pods")), "fail");
        assert_eq!(of("response.uid", Some("UPDATE pods")), "pass");
        assert_eq!(of("response.uid", Some("DELETE pods")), "pass");
        assert_eq!(of("manifest.timeout", None), "warn");
        // A report without the list: the merge has none, its renderers read the sections.
        let old = json!({"verdict": "pass", "results": []});
        assert!(merge(&named(&[one, old])).unwrap().get("findings").is_none());
    }

    #[test]
    fn coverage_adds_up() {
        let report = |sent: u64, outcome: &str| {
            json!({"verdict": "pass", "contract_cases": sent, "coverage": {"a": [
                {"operation": "CREATE", "resource": "pods", "sent": sent, "allowed": sent, "patched": 0, "denied": 0, "unusable": 0}]},
                "coverage_findings": [{"rule": "coverage.requests", "webhook": "a", "outcome": outcome}]})
        };
        let mut other = report(1, "pass");
        other["coverage"]["a"]
            .as_array_mut()
            .unwrap()
            .push(json!({"operation": "DELETE", "resource": "pods", "sent": 2}));
        let m = merge(&named(&[report(3, "pass"), other])).unwrap();
        assert_eq!(m["contract_cases"], 4);
        let rows = m["coverage"]["a"].as_array().unwrap();
        assert_eq!((rows[0]["sent"].as_u64(), rows[0]["allowed"].as_u64()), (Some(4), Some(4)));
        assert_eq!(rows[1]["sent"], 2);
        let m = merge(&named(&[report(3, "pass"), report(0, "fail")])).unwrap();
        assert_eq!(m["coverage_findings"][0]["outcome"], "fail");
    }
}
