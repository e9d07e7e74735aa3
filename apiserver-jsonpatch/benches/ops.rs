//! Throughput of `apply` and `leniencies` on typical admission patches: a ~4 KiB pod with a 3-op
//! patch, the same pod carrying a 256 KiB annotation, and a patch with a `move`, a `test` and a
//! `copy`. Prints operations per second.
//!
//!     cargo bench -p apiserver-jsonpatch --bench ops
//!
//! `JP_BENCH_MS` (default 600) is the measuring time per figure; `JP_BENCH_FILTER` keeps only the
//! figures whose label contains it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use apiserver_jsonpatch::{apply, decode_patch, leniencies, Patch};
use serde_json::{json, Value};

fn pod(large: bool) -> Value {
    let containers: Vec<Value> = (0..6)
        .map(|i| {
            json!({
                "name": format!("app-{i}"),
                "image": "registry.example/app:1.0",
                "args": ["--port=8080", "--verbose", "--config=/etc/app/config.yaml"],
                "env": [
                    {"name": "MODE", "value": "production"},
                    {"name": "REPLICA", "value": format!("{i}")},
                    {"name": "GREETING", "value": "héllo ✓ <b>&amp;</b>"}
                ],
                "ports": [{"containerPort": 8080 + i, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": 0.25, "memory": "64Mi"}},
                "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": true}]
            })
        })
        .collect();
    let mut annotations = json!({
        "kubectl.kubernetes.io/last-applied": "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}",
        "example.com/owner": "team-a",
    });
    if large {
        annotations["suite.conformance.example/large"] = json!("x".repeat(256 * 1024));
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-0",
            "namespace": "conformance-test",
            "uid": "a1b2c3d4-0000-4000-8000-000000000001",
            "labels": {"app": "web", "tier": "frontend", "example.com/v": "1"},
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "x", "controller": true}]
        },
        "spec": {
            "containers": containers,
            "volumes": [{"name": "config", "configMap": {"name": "app-config"}}],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
        },
        "status": {"phase": "Pending", "qosClass": "Burstable"}
    })
}

fn patch(ops: Value) -> Patch {
    decode_patch(&serde_json::to_vec(&ops).unwrap()).unwrap()
}

fn rate(label: &str, budget: Duration, mut f: impl FnMut()) {
    if let Ok(filter) = std::env::var("JP_BENCH_FILTER") {
        if !label.contains(&filter) {
            return;
        }
    }
    // Warm up, then count iterations within the budget.
    let warm = Instant::now();
    while warm.elapsed() < budget / 5 {
        f();
    }
    let started = Instant::now();
    let mut n = 0u64;
    while started.elapsed() < budget {
        f();
        n += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!("  {label:<60} {:>10.0} ops/s  ({:>8.1} µs/op)", n as f64 / secs, secs * 1e6 / n as f64);
}

fn main() {
    let budget = Duration::from_millis(std::env::var("JP_BENCH_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(600));
    let typical = patch(json!([
        {"op": "add", "path": "/metadata/labels/conformance.example~1mutated", "value": "true"},
        {"op": "add", "path": "/metadata/annotations/conformance.example~1reviewed-by", "value": "reference-webhook"},
        {"op": "add", "path": "/spec/containers/-", "value": {"name": "sidecar", "image": "registry.example/sidecar:1.0"}}
    ]));
    let mixed = patch(json!([
        {"op": "test", "path": "/metadata/labels/app", "value": "web"},
        {"op": "replace", "path": "/metadata/labels/tier", "value": "backend"},
        {"op": "copy", "from": "/spec/containers/0/env", "path": "/spec/containers/1/env"},
        {"op": "move", "from": "/spec/containers/2", "path": "/spec/containers/-"},
        {"op": "remove", "path": "/spec/containers/-1/ports"}
    ]));
    for (name, doc) in [("4 KiB pod", pod(false)), ("256 KiB pod", pod(true))] {
        let size = serde_json::to_vec(&doc).unwrap().len();
        println!("{name} ({size} bytes of JSON):");
        rate(&format!("(reference: serde_json to_vec + from_slice) [{name}]"), budget, || {
            let bytes = serde_json::to_vec(black_box(&doc)).unwrap();
            black_box(serde_json::from_slice::<Value>(&bytes).unwrap());
        });
        for (pname, p) in [("3-op add patch", &typical), ("5-op test/replace/copy/move/remove", &mixed)] {
            apply(&doc, p).expect("the patch applies");
            rate(&format!("apply       {pname} [{name}]"), budget, || {
                black_box(apply(black_box(&doc), p).unwrap());
            });
            rate(&format!("leniencies  {pname} [{name}]"), budget, || {
                black_box(leniencies(black_box(&doc), p));
            });
        }
    }
}
