//! What the property step records of one property's run against one webhook.

use crate::checks::Observation;
use crate::rules::Rule;

/// A failing property's evidence.
#[derive(Clone, Debug)]
pub struct Failure {
    /// What broke, in one line.
    pub message: String,
    /// The minimal failing case's calls.
    pub observation: Observation,
    /// The seed of the runner that found it (none for a replayed regression or a static check).
    pub seed: Option<u64>,
}

/// One property's run against one webhook (its verdict is in the run's list of findings, about
/// [`Subject::Property`](crate::verdict::Subject::Property)).
#[derive(Clone, Debug)]
pub struct PropertyRecord {
    /// The property.
    pub rule: &'static Rule,
    /// The webhook.
    pub webhook: String,
    /// Generated cases judged (shrinking steps not counted).
    pub cases: u64,
    /// Why it was skipped, or how the failure was found.
    pub note: Option<String>,
    /// The evidence of a breach.
    pub failure: Option<Failure>,
}

impl PropertyRecord {
    /// What the verdict rests on: `N generated cases`, or the manifest (see [`Rule::extent`]).
    pub fn extent(&self) -> String {
        self.rule.extent(self.cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A property judged on the configuration says so instead of counting cases it never had.
    #[test]
    fn the_extent_of_a_property_is_its_cases_or_the_manifest() {
        let record = |id: &str, cases| PropertyRecord {
            rule: crate::rules::rule(id).expect("a catalog rule"),
            webhook: "w".into(),
            cases,
            note: None,
            failure: None,
        };
        assert_eq!(record("property.dry-run-config", 0).extent(), "judged on the manifest");
        assert_eq!(record("property.idempotent", 16).extent(), "16 generated cases");
        assert_eq!(record("property.dry-run", 0).extent(), "0 generated cases");
    }
}
