//! `webhook-conformance rules`: the catalog, grouped by what each rule judges.

use webhook_harness::rules::{of_kind, RuleKind};

/// Print every rule: id, severity, statement, source.
pub fn print_rules() {
    for (i, kind) in RuleKind::ALL.into_iter().enumerate() {
        if i > 0 {
            println!();
        }
        println!("{}", kind.title());
        for r in of_kind(kind) {
            let lenient = if r.lenient_in_v1beta1() { " [WARN only for admission.k8s.io/v1beta1]" } else { "" };
            println!("{:28} {:4}  {}{}\n{:35}source: {}", r.id, r.severity, r.statement, lenient, "", r.source);
        }
    }
}
