//! How long the suite takes to read one answer body, for the deepest and largest answers a hostile
//! webhook can send: every exchange rule judges each body once, as a run does (the body read as the
//! apiserver's decoder reads it, JSON or YAML path). Prints the time per body and per 100 KB.
//! `cargo bench -p webhook-harness --bench read_answers`.

use std::time::{Duration, Instant};

use webhook_harness::lowlevel::{evaluate, plan, Exchange, HttpAnswer, Transport};
use webhook_harness::{Manifest, Outcome};

const MANIFEST: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: bench}
webhooks:
  - name: bench.decoder.example
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    clientConfig: {url: "https://127.0.0.1:8443/validate"}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
"#;

fn review(extra: &str) -> String {
    format!(
        r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{{"uid":"u","allowed":true{extra}}}}}"#
    )
}

fn repeat(s: &str, n: usize) -> String {
    s.repeat(n)
}

/// The hostile answers: a name and the body.
fn answers() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for depth in [129, 10_000, 10_001, 100_000] {
        out.push((format!("YAML flow sequence {depth} deep"), (repeat("[", depth) + &repeat("]", depth)).into_bytes()));
    }
    for depth in [10_000, 100_000] {
        out.push((format!("YAML block sequence {depth} deep (one line)"), (repeat("- ", depth) + "x\n").into_bytes()));
        out.push((
            format!("YAML flow mapping {depth} deep"),
            format!("a: {}1{}\n", repeat("{a: ", depth), repeat("}", depth)).into_bytes(),
        ));
        out.push((
            format!("YAML flow sequence of mappings {depth} deep"),
            (repeat("[{a: ", depth) + &repeat("}]", depth)).into_bytes(),
        ));
    }
    let block: String = (0..300).map(|i| format!("{}a{i}:\n", " ".repeat(i))).collect();
    out.push(("YAML block mapping 300 deep".into(), format!("{block}{}x\n", " ".repeat(300)).into_bytes()));
    for depth in [9_998, 100_000] {
        out.push((
            format!("JSON, unknown member an array {depth} deep"),
            review(&format!(r#","x":{}{}"#, repeat("[", depth), repeat("]", depth))).into_bytes(),
        ));
        out.push((
            format!("JSON, unknown member an object {depth} deep"),
            review(&format!(r#","x":{}1{}"#, repeat(r#"{"a":"#, depth), repeat("}", depth))).into_bytes(),
        ));
        out.push((
            format!("BOM + JSON (YAML path), unknown member an array {depth} deep"),
            ("\u{feff}".to_string() + &review(&format!(r#","x":{}{}"#, repeat("[", depth), repeat("]", depth))))
                .into_bytes(),
        ));
    }
    out.push((
        "JSON, a 2 MiB unknown string".into(),
        review(&format!(r#","x":"{}""#, "a".repeat(2 << 20))).into_bytes(),
    ));
    let warnings: Vec<String> = (0..20_000).map(|i| format!("\"w{i}\"")).collect();
    out.push(("JSON, 20000 warnings".into(), review(&format!(r#","warnings":[{}]"#, warnings.join(","))).into_bytes()));
    let items: String = (0..20_000).map(|i| format!("- item{i}\n")).collect();
    out.push(("YAML block sequence of 20000 items".into(), items.into_bytes()));
    for n in [5_000, 10_000, 20_000] {
        let entries: String = (0..n).map(|i| format!("k{i}: v{i}\n")).collect();
        out.push((
            format!("YAML mapping of {n} entries"),
            format!(
                "apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\n{entries}response: {{uid: u, allowed: true}}\n"
            )
            .into_bytes(),
        ));
    }
    out
}

fn main() {
    let manifest = Manifest::parse("bench.yaml".as_ref(), MANIFEST).unwrap();
    let spec = &manifest.webhooks[0];
    let case = plan(spec).into_iter().find(|c| c.primary).unwrap();
    println!("reading one answer body (every exchange rule), median of the rounds:");
    for (name, body) in answers() {
        let size = body.len();
        let transport = Transport::Answered(HttpAnswer {
            status: 200,
            content_type: Some("application/json".into()),
            body,
            http_version: "HTTP/1.1".into(),
            elapsed: Duration::ZERO,
        });
        let mut times = Vec::new();
        let mut verdict = String::new();
        let budget = Instant::now();
        while times.len() < 15 && (times.is_empty() || budget.elapsed() < Duration::from_secs(10)) {
            let start = Instant::now();
            let view = Exchange::new(spec, &case, &transport, "https://127.0.0.1:8443/validate");
            let findings = evaluate(&view);
            times.push(start.elapsed());
            verdict = findings
                .iter()
                .find(|f| f.outcome() == Outcome::Fail)
                .or_else(|| findings.iter().find(|f| f.outcome() == Outcome::Warn))
                .map(|f| format!("{} {:?}", f.rule, f.outcome()))
                .unwrap_or_else(|| "PASS".into());
        }
        times.sort();
        let median = times[times.len() / 2];
        let per_100k = median.as_secs_f64() * 1e3 * 102_400.0 / size as f64;
        println!(
            "  {name:<58} {:>8.1} KB {:>9.3} ms {:>9.3} ms/100 KB  ({} rounds; first finding: {verdict})",
            size as f64 / 1024.0,
            median.as_secs_f64() * 1e3,
            per_100k,
            times.len()
        );
    }
}
