//! The check of `case.expectation`: a case's outcome against its `expect:`.

use crate::cases::{Case, CaseRun, Decision};
use crate::verdict::Check;

/// The case's `expect:` held against what happened: a pass, or every breach, one per line.
pub(crate) fn check_expectations(case: &Case, run: &CaseRun) -> Check {
    let e = &case.expect;
    let mut breaches = Vec::new();
    if let Some(allowed) = e.allowed {
        let got = run.decision == Decision::Allowed;
        if got != allowed || run.decision == Decision::NotSelected {
            let detail = match &run.decision {
                Decision::Denied(w, m) => format!(" by {w}: {m:?}"),
                Decision::Rejected(w, r, m) => format!(" ({r} of {w}: {m})"),
                _ => String::new(),
            };
            breaches.push(format!(
                "expected the request to be {}, it was {}{detail}",
                if allowed { "allowed" } else { "denied" },
                run.decision.as_str()
            ));
        }
    }
    if let Some(sub) = &e.message {
        match &run.decision {
            Decision::Denied(_, m) | Decision::Rejected(_, _, m) if m.contains(sub.as_str()) => {}
            Decision::Denied(_, m) | Decision::Rejected(_, _, m) => {
                breaches.push(format!("expected the message to contain {sub:?}; it is {m:?}"))
            }
            other => breaches
                .push(format!("expected a denial message containing {sub:?}; the request was {}", other.as_str())),
        }
    }
    if let Some(sub) = &e.warning {
        if !run.warnings.iter().any(|w| w.contains(sub.as_str())) {
            breaches.push(format!("expected a warning containing {sub:?}; warnings: {:?}", run.warnings));
        }
    }
    for (path, value) in &e.has {
        match (run.final_object.pointer(path), value) {
            (None, _) => breaches.push(format!("expected the resulting object to have {path}; it does not")),
            (Some(got), Some(want)) if got != want => {
                breaches.push(format!("expected {path} to be {want}; it is {got}"))
            }
            _ => {}
        }
    }
    for path in &e.lacks {
        if let Some(got) = run.final_object.pointer(path) {
            breaches.push(format!("expected the resulting object to lack {path}; it is {got}"));
        }
    }
    if breaches.is_empty() {
        Check::Pass
    } else {
        Check::violated_plain(breaches.join("\n"))
    }
}
