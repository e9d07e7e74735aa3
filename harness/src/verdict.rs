//! Verdict types: what a check concludes ([`Check`]), what a rule's verdict is ([`Outcome`]), the
//! record of one verdict ([`Finding`]) and the verdict of a whole run ([`Verdict`]).
//!
//! This module imports nothing of the crate: every other module may use it.

use serde::{Deserialize, Serialize};

/// How much a breach of a rule weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// The kube-apiserver rejects the answer (or refuses the configuration): the run FAILs.
    Fail,
    /// The apiserver tolerates it, but it is wrong, risky or unportable: the run still passes.
    Warn,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Fail => "FAIL",
            Severity::Warn => "WARN",
        })
    }
}

/// The verdict of a rule on one thing it judged, or over a whole run. Ordered from best to worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The rule did not apply.
    Skip,
    /// The rule held.
    Pass,
    /// The rule was broken, and the apiserver tolerates it.
    Warn,
    /// The rule was broken, and the apiserver does not tolerate it.
    Fail,
}

impl Outcome {
    /// `FAIL`, `WARN`, `pass` or `skip`, as the text report prints it.
    pub fn tag(self) -> &'static str {
        match self {
            Outcome::Fail => "FAIL",
            Outcome::Warn => "WARN",
            Outcome::Pass => "pass",
            Outcome::Skip => "skip",
        }
    }

    /// The worst of `outcomes` that is not a skip; `Skip` when there are none.
    pub fn worst(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
        outcomes.into_iter().max().unwrap_or(Outcome::Skip)
    }
}

/// A breach of a rule: what was seen, and what the apiserver would say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// What was seen, in the suite's words.
    pub detail: String,
    /// What the kube-apiserver would answer the API client, when it says something.
    pub apiserver: Option<String>,
}

/// What one check concluded about one thing it judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The rule held.
    Pass,
    /// The rule was broken.
    Violated(Violation),
    /// The rule does not apply here (why).
    NotApplicable(String),
}

impl Check {
    /// A breach with what the apiserver would say.
    pub fn violated(detail: String, apiserver: String) -> Check {
        Check::Violated(Violation { detail, apiserver: Some(apiserver) })
    }
    /// A breach the apiserver says nothing about.
    pub fn violated_plain(detail: impl Into<String>) -> Check {
        Check::Violated(Violation { detail: detail.into(), apiserver: None })
    }
    /// The rule does not apply (why).
    pub fn na(why: impl Into<String>) -> Check {
        Check::NotApplicable(why.into())
    }
}

/// Why a breach of a FAIL rule counts as a WARN only here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Softened {
    /// The breach counts as the rule's severity says.
    No,
    /// It counts as a WARN, and the detail says why (appended in brackets).
    ToWarn(String),
}

/// What one finding judged: the thing a rule was held to. Indices point into the lists of the run's
/// records (`Records::exchanges`, `cases`, `properties`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Subject {
    /// The target as a whole (`target.ready`).
    Target,
    /// One webhook's entry in the manifest (manifest rules).
    Manifest {
        /// The webhook's name.
        webhook: String,
    },
    /// Everything the run sent to one webhook (coverage rules).
    Sent {
        /// The webhook's name.
        webhook: String,
    },
    /// What one webhook did to the recording Kubernetes API while it admitted the run's requests
    /// (side-effects rules).
    Calls {
        /// The webhook's name.
        webhook: String,
    },
    /// One request and its answer (exchange rules): `Records::exchanges[index]`.
    Exchange {
        /// Its place in the run's exchanges.
        index: usize,
    },
    /// One data-driven case's admission (case rules): `Records::cases[index]`.
    Case {
        /// Its place in the run's cases.
        index: usize,
    },
    /// One property's run against one webhook (property rules): `Records::properties[index]`.
    Property {
        /// Its place in the run's property records.
        index: usize,
    },
    /// Not placed yet: an exchange's verdicts while the run judges it, before the exchange has its
    /// place in the records.
    Unplaced,
}

/// The verdict of one rule on one thing it judged. Only [`Finding::judge`] makes one: its outcome
/// cannot be set anywhere else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's id.
    pub rule: &'static str,
    /// What the rule judged.
    #[serde(skip)]
    pub subject: Subject,
    /// Its verdict.
    outcome: Outcome,
    /// What was seen (for a breach) or why the rule did not apply (for a skip).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the kube-apiserver would say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apiserver_message: Option<String>,
}

impl Finding {
    /// The one place a check becomes an outcome: a breach is the rule's severity unless `softened`
    /// says it only counts as a WARN here; a pass passes; a rule that does not apply is a skip.
    pub fn judge(rule: &'static str, severity: Severity, check: Check, softened: Softened) -> Finding {
        let (outcome, detail, apiserver_message) = match check {
            Check::Pass => (Outcome::Pass, None, None),
            Check::NotApplicable(why) => (Outcome::Skip, Some(why), None),
            Check::Violated(v) => {
                let mut detail = v.detail;
                let outcome = match (severity, softened) {
                    (Severity::Fail, Softened::No) => Outcome::Fail,
                    (Severity::Fail, Softened::ToWarn(why)) => {
                        detail.push_str(&format!(" [{why}]"));
                        Outcome::Warn
                    }
                    (Severity::Warn, _) => Outcome::Warn,
                };
                (outcome, Some(detail), v.apiserver)
            }
        };
        Finding { rule, subject: Subject::Unplaced, outcome, detail, apiserver_message }
    }

    /// A rule that did not apply, and why: [`Finding::judge`] of [`Check::NotApplicable`].
    pub fn skip(rule: &'static str, why: impl Into<String>) -> Finding {
        Finding::judge(rule, Severity::Warn, Check::na(why), Softened::No)
    }

    /// The finding, about `subject`.
    pub fn about(mut self, subject: Subject) -> Finding {
        self.subject = subject;
        self
    }

    /// The finding, with `note` as its detail when it has none (what a pass did, e.g. the file it
    /// wrote). The outcome stays the one [`Finding::judge`] gave.
    pub fn noting(mut self, note: impl Into<String>) -> Finding {
        self.detail.get_or_insert_with(|| note.into());
        self
    }

    /// Its verdict.
    pub fn outcome(&self) -> Outcome {
        self.outcome
    }

    /// True for a FAIL or a WARN.
    pub fn is_breach(&self) -> bool {
        matches!(self.outcome, Outcome::Fail | Outcome::Warn)
    }
}

/// The verdict of a whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing FAILs (WARNs may be reported).
    Pass,
    /// At least one rule FAILs.
    Fail,
}

impl Verdict {
    /// 0 when nothing FAILs, 1 when something does.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
        }
    }
    /// `pass` or `fail`, as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
        }
    }
    /// FAIL when any outcome is a FAIL.
    pub fn of(outcomes: impl IntoIterator<Item = Outcome>) -> Verdict {
        if outcomes.into_iter().any(|o| o == Outcome::Fail) {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outcome_function() {
        let breach = || Check::violated_plain("seen");
        assert_eq!(Finding::judge("r", Severity::Fail, breach(), Softened::No).outcome(), Outcome::Fail);
        assert_eq!(Finding::judge("r", Severity::Warn, breach(), Softened::No).outcome(), Outcome::Warn);
        let soft = Finding::judge("r", Severity::Fail, breach(), Softened::ToWarn("why".into()));
        assert_eq!((soft.outcome(), soft.detail.as_deref()), (Outcome::Warn, Some("seen [why]")));
        assert_eq!(Finding::judge("r", Severity::Fail, Check::Pass, Softened::No).outcome(), Outcome::Pass);
        assert_eq!(Finding::judge("r", Severity::Fail, Check::na("n/a"), Softened::No).outcome(), Outcome::Skip);
        assert_eq!(Finding::skip("r", "n/a").outcome(), Outcome::Skip);
        assert_eq!(Outcome::worst([Outcome::Pass, Outcome::Warn, Outcome::Skip]), Outcome::Warn);
        assert_eq!(Verdict::of([Outcome::Warn, Outcome::Fail]), Verdict::Fail);
        assert_eq!(Verdict::of([Outcome::Warn]), Verdict::Pass);
    }
}
