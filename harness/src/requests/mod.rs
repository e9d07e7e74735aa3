//! Requests: what the suite sends, built for the resources a webhook's rules name, as a cluster would
//! send them. [`resources`](ApiResources) are the apiserver's resources (every built-in of the
//! targeted version, and the custom resources of the CRDs given); [`plan`] is the fixed set a run
//! sends to every webhook; [`generated`] draws varied requests for the properties.

mod case;
mod conditions;
mod decoded;
mod fit;
mod fixtures;
pub(crate) mod generated;
mod generation;
mod managed_fields;
mod objects;
mod one_of;
mod owned;
mod pattern;
mod plan;
mod resources;
mod review;
mod schema;
pub(crate) mod seeded;
mod string_map;
mod strings;

pub use case::RequestCase;
pub(crate) use conditions::{outcomes as condition_outcomes, tally as tally_conditions};
pub(crate) use fit::{fit as fit_selectors, Selectors};
#[cfg(test)]
pub(crate) use objects::Variant;
pub(crate) use objects::{connect_options, created, scale, stored, NAMESPACE};
#[cfg(test)]
pub(crate) use plan::admission_spec;
pub use plan::plan;
pub(crate) use plan::{candidates, plan_in};
#[cfg(test)]
pub(crate) use resources::Selected;
pub(crate) use resources::{
    built_ins, selected, selected_by_rules, ApiResources, Origin, Resource, SubObject, Subresource,
};
#[cfg(test)]
pub(crate) use review::admission_review;
pub(crate) use review::{default_user, AdmissionSpec};
pub(crate) use schema::admit as admit_custom_resource;
pub(crate) use schema::summary as schema_summary;

/// What the apiserver's validation says of the object `spec` sends, as it is (an UPDATE of
/// `/status` through the kind's status strategy): `None` when it accepts it (the tests hold the
/// suite's own objects to it).
#[cfg(test)]
fn refusal_of(spec: &AdmissionSpec) -> Option<String> {
    use crate::admission::Operation;
    let known = crate::kinds::RESOURCES.iter().find(|k| k.group == spec.kind.group && k.kind == spec.kind.kind);
    let scope = apiserver_validation::Scope {
        group: &spec.kind.group,
        kind: &spec.kind.kind,
        resource: &spec.resource.resource,
        namespaced: known.is_some_and(|k| k.namespaced),
        built_in: known.is_some(),
        request_namespace: spec.namespace.as_deref().unwrap_or(""),
    };
    let result = match (spec.operation, spec.sub_resource.as_deref()) {
        (Operation::Create, _) => apiserver_validation::validate_object_create(&scope, &spec.object),
        (_, Some("status")) => {
            apiserver_validation::validate_object_status_update(&scope, &spec.object, &spec.old_object)
        }
        _ => apiserver_validation::validate_object_update(&scope, &spec.object, &spec.old_object),
    };
    result.err().map(|r| r.message(&scope, &spec.name))
}

/// `check` on every planned request and `generated` generated ones of each webhook of the
/// reference webhook's manifest (the first error fails the test).
#[cfg(test)]
pub(crate) fn each_reference_case(generated: u32, check: impl Fn(&crate::requests::RequestCase) -> Result<(), String>) {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let manifest = crate::config::Manifest::parse(std::path::Path::new("r.yaml"), reference_webhook::MANIFEST)
        .expect("the reference manifest parses");
    for webhook in &manifest.webhooks {
        for case in crate::requests::plan_in(webhook, &crate::requests::ApiResources::built_in()) {
            check(&case).unwrap();
        }
        let strategy = crate::requests::generated::requests(webhook, crate::requests::generated::Scope::All).unwrap();
        let mut runner = TestRunner::new_with_rng(
            Config { cases: generated, failure_persistence: None, ..Config::default() },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        runner.run(&strategy, |case| check(&case).map_err(proptest::test_runner::TestCaseError::fail)).unwrap();
    }
}
