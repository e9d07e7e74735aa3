//! What kubectl prints of the apiserver's refusal of an object (`kubectl/pkg/cmd/util/helpers.go`
//! `checkErr`), and the refusal in a few words for a finding's detail.

use apiserver_validation::Refusal;

/// The line kubectl prints for a 422 (`cmdutil.checkErr`: `The <Kind> "<name>" is invalid: `
/// then the causes, one alone on the same line, several each on a line of their own after `* `).
pub(crate) fn kubectl_line(kind: &str, name: &str, refusal: &Refusal, apiserver_says: &str) -> String {
    match refusal {
        Refusal::Invalid(errs) => {
            let prefix = format!("The {kind} {name:?} is invalid: ");
            let causes: Vec<String> = errs.iter().map(ToString::to_string).collect();
            match causes.as_slice() {
                [one] => format!("{prefix}{one}"),
                many => format!("{prefix}\n* {}", many.join("\n* ")),
            }
        }
        Refusal::BadRequest(_) => format!("Error from server (BadRequest): {apiserver_says}"),
        Refusal::Conflict(_) => format!("Error from server (Conflict): {apiserver_says}"),
    }
}

/// The refusal in a few words: `invalid <field>, <field>` for a 422, else the apiserver's message.
pub(crate) fn in_brief(refusal: &Refusal) -> String {
    match refusal {
        Refusal::Invalid(errs) => {
            let mut fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
            fields.dedup();
            format!("invalid {}", fields.join(", "))
        }
        Refusal::BadRequest(m) | Refusal::Conflict(m) => m.clone(),
    }
}
