//! Every defect of the reference webhook is caught by its own rule and by no unrelated FAIL rule,
//! while the correct reference webhook passes every rule.

use reference_webhook::{Defect, Style};
use webhook_conformance::embedded;
use webhook_harness::{Budget, Manifest, Outcome, Report, Suite, Verdict};

fn manifest_for(defect: Option<Defect>) -> Manifest {
    let mut manifest = embedded::reference_manifest();
    if defect == Some(Defect::Hang) {
        // Keep the run short: the apiserver gives up after timeoutSeconds.
        for w in &mut manifest.webhooks {
            w.timeout_seconds = 1;
        }
    }
    if defect == Some(Defect::AnnotationsOverflow) {
        // Each answer carries a 256 KiB annotation, also on the ConfigMaps near 1 MiB: a debug build
        // on a loaded machine may need more than the bundled 5 s for them. 10 s is the most
        // `manifest.timeout` leaves without a WARN.
        for w in &mut manifest.webhooks {
            w.timeout_seconds = 10;
        }
    }
    manifest
}

async fn run_with(manifest: Manifest, defect: Option<Defect>) -> Report {
    let mut suite = Suite::new(manifest).target(embedded::target(defect, Style::default())).concurrency(64);
    if defect == Some(Defect::Hang) {
        // Every call waits out its deadline: the planned requests show it; generated ones add time only.
        suite = suite.budget(Budget::NONE);
    }
    suite.run().await.expect("run completes")
}

async fn run_reference(defect: Option<Defect>) -> Report {
    run_with(manifest_for(defect), defect).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reference_webhook_passes_every_rule_without_warnings() {
    let report = run_reference(None).await;
    assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
    assert!(report.warned_rules().is_empty(), "{}", report.render_text());
    assert!(report.exchanges().len() > 50, "the default plan sends a real number of requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_write_to_a_field_whose_validation_is_not_modelled_passes_and_is_named() {
    let style = Style { image_volume: true, ..Style::default() };
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(None, style))
        .budget(Budget::cases(8))
        .seed(3)
        .run()
        .await
        .expect("run completes");
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    assert!(report.warned_rules().is_empty(), "{text}");
    let named = report.records().target.notes.iter().find(|n| n.contains("Pod spec.volumes[*].image"));
    let note = named.unwrap_or_else(|| panic!("no note names the unjudged field:\n{text}"));
    assert!(note.starts_with("mutate.reference.conformance.example: its patches wrote fields"), "{note}");
    assert!(text.contains(note.as_str()), "the report prints the note:\n{text}");
    // The honest webhook's own writes are all judged: no such note.
    let honest = run_reference(None).await;
    assert!(
        !honest.records().target.notes.iter().any(|n| n.contains("its patches wrote fields")),
        "{}",
        honest.render_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_defect_is_caught_by_its_rule_only() {
    let mut problems = Vec::new();
    // A defect of recorded shapes is out of reach of a default run's few generated requests: the
    // next test runs it from a recorded case.
    for &defect in Defect::ALL.iter().filter(|d| {
        !d.needs_recorded_shapes() && !d.needs_custom_resource() && !d.needs_service() && !d.needs_pod_status()
    }) {
        let report = run_reference(Some(defect)).await;
        let failed = report.failed_rules();
        let warned = report.warned_rules();
        let property = |r: &&str| r.starts_with("property.");
        let ok = match defect.level() {
            // Property defects show across calls, and the default run makes those calls: the defect's
            // property (and possibly other properties it breaks too) but no per-answer rule.
            level if defect.is_property() => {
                let caught = if level == "FAIL" { &failed } else { &warned };
                caught.contains(&defect.rule())
                    && failed.iter().chain(&warned).all(property)
                    && (report.verdict() == Verdict::Fail) == (level == "FAIL" || !failed.is_empty())
            }
            // A property may FAIL too, for the same rule broken only on a request it derived (the
            // webhook's own result admitted again): that is the property's own finding.
            "FAIL" => {
                let derived_only = |id: &&str| {
                    property(id)
                        && report.properties().iter().filter(|p| p.rule.id == *id).all(|p| {
                            p.failure.as_ref().is_none_or(|f| {
                                f.message.contains("which the request itself does not")
                                    && f.message.contains(defect.rule())
                            })
                        })
                };
                failed[0] == defect.rule() && failed[1..].iter().all(derived_only) && report.verdict() == Verdict::Fail
            }
            _ => failed.is_empty() && warned == vec![defect.rule()] && report.verdict() == Verdict::Pass,
        };
        if !ok {
            problems.push(format!(
                "{defect} ({} {}): failed {failed:?}, warned {warned:?}\n{}",
                defect.level(),
                defect.rule(),
                report.render_text()
            ));
        }
    }
    assert!(problems.is_empty(), "{} defect(s) misjudged:\n{}", problems.len(), problems.join("\n\n"));
}

/// The bundled manifest with its mutating webhook registered for the `widgets` of
/// `tests/data/crd/widgets.yaml` too.
fn reference_with_widgets() -> Manifest {
    let rule = "      - apiGroups: [\"apps\"]\n";
    assert!(reference_webhook::MANIFEST.contains(rule));
    let text = reference_webhook::MANIFEST.replacen(
        rule,
        &format!("      - apiGroups: [\"example.com\"]\n        apiVersions: [\"v1\"]\n        operations: [\"CREATE\", \"UPDATE\"]\n        resources: [\"widgets\"]\n        scope: Namespaced\n{rule}"),
        1,
    );
    Manifest::parse("widgets.yaml".as_ref(), &text).unwrap()
}

async fn run_with_widgets(defect: Option<Defect>) -> Report {
    let crd = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/crd/widgets.yaml");
    Suite::new(reference_with_widgets())
        .crds(&[crd])
        .unwrap()
        .target(embedded::target(defect, Style::default()))
        .concurrency(64)
        .run()
        .await
        .expect("run completes")
}

/// A case file's custom resource of a CRD given is held to the CRD's schema, as the generated
/// ones are: the out-of-range defect FAILs `object.valid` on the case's own exchange.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_case_files_custom_resource_is_held_to_its_crds_schema() {
    let dir = tempfile::tempdir().unwrap();
    let case = "operation: CREATE\nresource: example.com/v1/widgets\nobject:\n  apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w, namespace: team-a}\n  spec: {replicas: 2}\nexpect:\n  decision: allowed\n";
    std::fs::write(dir.path().join("widget.yaml"), case).unwrap();
    let crd = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/crd/widgets.yaml");
    let run = |defect: Option<Defect>| {
        Suite::new(reference_with_widgets())
            .crds(std::slice::from_ref(&crd))
            .unwrap()
            .cases_dir(dir.path())
            .unwrap()
            .budget(Budget::NONE)
            .target(embedded::target(defect, Style::default()))
            .run()
    };
    let case_verdict = |report: &Report| -> Vec<(Outcome, String)> {
        report
            .records()
            .exchange_findings()
            .filter(|(x, f)| x.case.label.starts_with("case widget") && f.rule == "object.valid")
            .map(|(_, f)| (f.outcome(), f.detail.clone().unwrap_or_default()))
            .collect()
    };
    let honest = run(None).await.expect("run completes");
    let verdicts = case_verdict(&honest);
    assert!(!verdicts.is_empty() && verdicts.iter().all(|(o, _)| *o == Outcome::Pass), "{}", honest.render_text());
    let broken = run(Some(Defect::CustomResourceOutOfRange)).await.expect("run completes");
    let verdicts = case_verdict(&broken);
    assert!(
        verdicts.iter().any(|(o, d)| *o == Outcome::Fail && d.contains("spec.replicas")),
        "{verdicts:?}\n{}",
        broken.render_text()
    );
}

/// With a CRD given, the reference webhook's mutations of a custom resource pass; a defect that
/// breaks the CRD's schema or its CEL rule FAILs `object.valid`, one whose field the apiserver prunes WARNs
/// `object.pruned`, and nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_resource_defects_are_caught_by_their_rule_only() {
    let report = run_with_widgets(None).await;
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    assert!(report.warned_rules().is_empty(), "{text}");
    let widgets =
        report.exchanges().iter().filter(|e| e.case.schema.is_some() && e.case.spec.resource.resource == "widgets");
    assert!(widgets.count() > 3, "widgets are sent, knowing their schema: {text}");
    let defects: Vec<Defect> = Defect::ALL.iter().copied().filter(Defect::needs_custom_resource).collect();
    assert!(!defects.is_empty());
    for defect in defects {
        let report = run_with_widgets(Some(defect)).await;
        let text = report.render_text();
        let (failed, warned) = (report.failed_rules(), report.warned_rules());
        if defect.level() == "FAIL" {
            assert_eq!(failed, vec![defect.rule()], "{defect}: {text}");
            assert_eq!(report.verdict(), Verdict::Fail, "{defect}: {text}");
        } else {
            assert!(failed.is_empty(), "{defect}: {failed:?}\n{text}");
            assert_eq!(warned, vec![defect.rule()], "{defect}: {text}");
        }
        // Without the defect the same rule passes on the same requests (above); with it, the
        // finding names what the apiserver does.
        let said: Vec<String> = report
            .records()
            .exchange_findings()
            .filter(|(_, f)| f.rule == defect.rule() && matches!(f.outcome(), Outcome::Fail | Outcome::Warn))
            .map(|(_, f)| {
                format!("{} {}", f.detail.clone().unwrap_or_default(), f.apiserver_message.clone().unwrap_or_default())
            })
            .collect();
        let expected = match defect {
            Defect::CustomResourceOutOfRange => "Widget.example.com \"",
            Defect::CustomResourceBreaksRule => "spec: Invalid value: a fast widget runs at most 5 replicas",
            _ => "/spec/conformanceInjected",
        };
        assert!(!said.is_empty() && said.iter().all(|s| s.contains(expected)), "{defect}: {said:?}");
        if defect == Defect::CustomResourceOutOfRange {
            assert!(
                said[0].contains(
                    "spec.replicas: Invalid value: 1000: spec.replicas in body should be less than or equal to 10"
                ),
                "{said:?}"
            );
        }
    }
}

/// The bundled manifest with its mutating webhook's core rule listing `resources` instead of
/// `pods` and `configmaps`.
fn reference_with_core_resources(resources: &str) -> Manifest {
    let listed = "        resources: [\"pods\", \"configmaps\"]\n";
    assert!(reference_webhook::MANIFEST.contains(listed));
    let text = reference_webhook::MANIFEST.replacen(listed, &format!("        resources: [{resources}]\n"), 1);
    Manifest::parse("core-resources.yaml".as_ref(), &text).unwrap()
}

/// The bundled manifest with its mutating webhook registered for `services` too.
fn reference_with_services() -> Manifest {
    reference_with_core_resources("\"pods\", \"configmaps\", \"services\"")
}

/// The planned requests of [`reference_with_services`] (no generated ones: the planned Services
/// show the defect, and the run stays light beside the other tests of this file).
async fn run_with_services(defect: Option<Defect>) -> Report {
    Suite::new(reference_with_services())
        .target(embedded::target(defect, Style::default()))
        .concurrency(64)
        .budget(Budget::NONE)
        .run()
        .await
        .expect("run completes")
}

/// With Services sent to the mutating webhook, the reference webhook's mutations of them pass;
/// a defect that breaks a Service's spec FAILs `object.valid` and nothing else, and the finding
/// carries the apiserver's message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_defects_are_caught_by_their_rule_only() {
    let report = run_with_services(None).await;
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    assert!(report.warned_rules().is_empty(), "{text}");
    let services = report.exchanges().iter().filter(|e| e.case.spec.resource.resource == "services").count();
    assert!(services > 3, "services are sent: {text}");
    let defects: Vec<Defect> = Defect::ALL.iter().copied().filter(Defect::needs_service).collect();
    assert!(!defects.is_empty());
    for defect in defects {
        let report = run_with_services(Some(defect)).await;
        let text = report.render_text();
        assert_eq!(report.failed_rules(), vec![defect.rule()], "{defect}: {text}");
        // The same breach on a v1beta1 review is a WARN of the same rule (only an older apiserver
        // sends v1beta1 to this webhook).
        assert!(report.warned_rules().iter().all(|r| *r == defect.rule()), "{defect}: {text}");
        assert_eq!(report.verdict(), Verdict::Fail, "{defect}: {text}");
        let said: Vec<String> = report
            .records()
            .exchange_findings()
            .filter(|(_, f)| f.rule == defect.rule() && matches!(f.outcome(), Outcome::Fail | Outcome::Warn))
            .map(|(_, f)| f.apiserver_message.clone().unwrap_or_default())
            .collect();
        assert!(
            !said.is_empty()
                && said.iter().all(|s| s.contains("Invalid value: 70000: must be between 1 and 65535, inclusive")),
            "{defect}: {said:?}"
        );
    }
}

/// The bundled manifest with its mutating webhook registered for `pods/status` too.
fn reference_with_pod_status() -> Manifest {
    reference_with_core_resources("\"pods\", \"pods/status\", \"configmaps\"")
}

async fn run_with_pod_status(defect: Option<Defect>) -> Report {
    Suite::new(reference_with_pod_status())
        .target(embedded::target(defect, Style::default()))
        .concurrency(64)
        .run()
        .await
        .expect("run completes")
}

/// With UPDATEs of a pod's `/status` sent to the mutating webhook, the reference webhook's writes
/// there (its label and annotation, which the pod status strategy keeps) pass without a warning; a
/// defect that writes into the spec on such an UPDATE WARNs `object.status-reset` only, naming the
/// dropped write, and `object.valid` passes (the object the registry keeps is valid).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_status_defects_are_caught_by_their_rule_only() {
    let status_updates = |report: &Report| {
        report
            .exchanges()
            .iter()
            .filter(|e| {
                e.case.spec.resource.resource == "pods"
                    && e.case.spec.sub_resource.as_deref() == Some("status")
                    && e.case.spec.operation == webhook_harness::Operation::Update
                    && e.webhook.name.starts_with("mutate.")
            })
            .count()
    };
    let report = run_with_pod_status(None).await;
    let text = report.render_text();
    assert_eq!(report.verdict(), Verdict::Pass, "{text}");
    assert!(report.warned_rules().is_empty(), "{text}");
    assert!(status_updates(&report) > 3, "pods/status UPDATEs are sent to the mutating webhook: {text}");
    let defects: Vec<Defect> = Defect::ALL.iter().copied().filter(Defect::needs_pod_status).collect();
    assert!(!defects.is_empty());
    for defect in defects {
        assert_eq!(defect.level(), "WARN", "{defect}");
        let report = run_with_pod_status(Some(defect)).await;
        let text = report.render_text();
        assert_eq!(report.verdict(), Verdict::Pass, "{defect}: {text}");
        assert!(report.failed_rules().is_empty(), "{defect}: {:?}\n{text}", report.failed_rules());
        assert_eq!(report.warned_rules(), vec![defect.rule()], "{defect}: {text}");
        let warned: Vec<(String, String)> = report
            .records()
            .exchange_findings()
            .filter(|(_, f)| f.rule == defect.rule() && f.outcome() == Outcome::Warn)
            .map(|(e, f)| (e.case.spec.sub_resource.clone().unwrap_or_default(), f.detail.clone().unwrap_or_default()))
            .collect();
        assert!(!warned.is_empty(), "{defect}: {text}");
        for (sub_resource, detail) in &warned {
            assert_eq!(sub_resource, "status", "{defect}: {detail}");
            assert!(
                detail.starts_with("the patch writes /spec/containers")
                    && detail.contains("which the registry puts back from the stored Pod on a /status UPDATE"),
                "{defect}: {detail}"
            );
        }
        // The same UPDATEs are judged by object.valid, which passes on what the registry keeps.
        let valid = report
            .records()
            .exchange_findings()
            .filter(|(e, f)| {
                f.rule == "object.valid"
                    && e.case.spec.sub_resource.as_deref() == Some("status")
                    && f.outcome() == Outcome::Pass
            })
            .count();
        assert!(valid > 0, "{defect}: {text}");
    }
}

/// A defect that shows only on a shape generation seldom draws is caught by its property, and by no
/// per-answer rule, when generation starts from a recorded case of that shape.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_defect_of_recorded_shapes_is_caught_by_its_rule_only_from_seed_cases() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/seeded");
    let defects: Vec<Defect> = Defect::ALL.iter().copied().filter(Defect::needs_recorded_shapes).collect();
    assert!(!defects.is_empty());
    for defect in defects {
        let report = Suite::new(embedded::reference_manifest())
            .target(embedded::target(Some(defect), Style::default()))
            .cases_dir(&seeds)
            .unwrap()
            .seeded_generation(true)
            .seed(11)
            .budget(Budget::cases(64))
            .concurrency(1)
            .run()
            .await
            .expect("run completes");
        let text = report.render_text();
        let failed = report.failed_rules();
        assert!(failed.contains(&defect.rule()), "{defect}: {text}");
        assert!(failed.iter().chain(&report.warned_rules()).all(|r| r.starts_with("property.")), "{defect}: {text}");
        assert_eq!(report.verdict(), Verdict::Fail, "{defect}: {text}");
    }
}

/// A webhook that closes each connection after one answer: the calls that find the connection
/// closed are `transport.answer`'s finding, whichever call of a property they were; no property
/// FAILs for them, and the properties say which cases they could not judge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_each_connection_after_one_answer_fails_transport_answer_and_no_property() {
    // One request at a time, as a plain client would send them: each connection serves one answer
    // and the next request on it finds it closed, so every other call gets no answer, never three
    // in a row, and the webhook is called throughout the run.
    let report = Suite::new(embedded::reference_manifest())
        .target(embedded::target(Some(Defect::CloseAfterAnswer), Style::default()))
        .concurrency(1)
        .run()
        .await
        .expect("run completes");
    let text = report.render_text();
    assert_eq!(report.failed_rules(), vec!["transport.answer"], "{text}");
    // Requests in the version a cluster does not send only WARN.
    assert!(report.warned_rules().iter().all(|r| *r == "transport.answer"), "{text}");
    let not_judged: Vec<_> = report
        .properties()
        .iter()
        .filter(|p| p.note.as_deref().is_some_and(|n| n.contains("not judged")))
        .map(|p| p.rule.id)
        .collect();
    assert!(!not_judged.is_empty(), "the properties say which cases they could not judge: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v1beta1_leniency_turns_uid_and_gvk_breaches_into_warnings() {
    // A manifest that lists only v1beta1: that is what a cluster sends, and v1beta1 answers are not
    // checked for uid or apiVersion/kind.
    let text = reference_webhook::MANIFEST.replace("[\"v1\", \"v1beta1\"]", "[\"v1beta1\"]");
    let manifest = Manifest::parse("v1beta1.yaml".as_ref(), &text).unwrap();
    for defect in [
        Defect::NoUid,
        Defect::NoApiVersionKind,
        Defect::PatchWithoutType,
        Defect::MimePatchType,
        Defect::ValidatingPatch,
    ] {
        let report = run_with(manifest.clone(), Some(defect)).await;
        assert_eq!(report.verdict(), Verdict::Pass, "{defect}: {}", report.render_text());
        assert!(report.warned_rules().contains(&defect.rule()), "{defect}: {:?}", report.warned_rules());
    }
    // Under v1 the same breaches FAIL.
    let report = run_with(embedded::reference_manifest(), Some(Defect::NoUid)).await;
    assert_eq!(report.failed_rules(), vec!["response.uid"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_conditions_are_evaluated_and_reported_per_webhook() {
    let text = reference_webhook::MANIFEST.replacen(
        "    reinvocationPolicy: IfNeeded\n",
        "    reinvocationPolicy: IfNeeded\n    matchConditions:\n      - name: not-kube-system\n        expression: \"request.namespace != 'kube-system'\"\n",
        1,
    );
    let manifest = Manifest::parse("mc.yaml".as_ref(), &text).unwrap();
    let report = run_with(manifest, None).await;
    assert_eq!(report.verdict(), Verdict::Pass, "{}", report.render_text());
    let notes = &report.records().target.notes;
    let note = notes
        .iter()
        .find(|n| n.starts_with("mutate.reference.conformance.example: matchConditions evaluated"))
        .unwrap();
    assert!(
        note.contains("planned requests") && note.contains("sent as built") && !note.contains("not sent"),
        "{note}"
    );
    assert!(!notes.iter().any(|n| n.starts_with("validate.")), "the validating webhook has no conditions: {notes:?}");
}

/// A webhook that cannot take a pod without a name fails only on the pods controllers make (and
/// on generated pod CREATEs that, like theirs, carry only a generateName): every other request is
/// answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_that_needs_a_pod_name_fails_on_the_pods_controllers_make() {
    let report = run_reference(Some(Defect::NamelessPod)).await;
    assert_eq!(report.failed_rules(), vec!["transport.status"], "{}", report.render_text());
    let failed: Vec<_> = report
        .records()
        .exchange_findings()
        .filter(|(_, f)| f.rule == "transport.status" && f.outcome() == Outcome::Fail)
        .map(|(e, _)| e)
        .collect();
    assert!(failed.iter().any(|e| e.case.label.starts_with("CREATE pods (made by a ")));
    for e in &failed {
        let meta = &e.case.spec.object["metadata"];
        let nameless = meta.get("name").and_then(|n| n.as_str()).is_none_or(str::is_empty)
            && meta.get("generateName").and_then(|n| n.as_str()).is_some_and(|g| !g.is_empty());
        assert!(
            e.case.label.starts_with("CREATE pods (made by a ")
                || (e.case.label == "CREATE pods (generated)" && nameless),
            "{}: {meta}",
            e.case.label
        );
    }
    // The report says which controller such a refusal leaves stuck.
    let text = report.render_text();
    assert!(text.contains("in a cluster: the ReplicaSet ") && text.contains("cannot create its pods"), "{text}");
    // And what kubectl prints for the failed call.
    let kubectl = "kubectl prints: Error from server (InternalError): Internal error occurred: failed calling webhook";
    assert!(text.contains(kubectl), "{text}");
}
