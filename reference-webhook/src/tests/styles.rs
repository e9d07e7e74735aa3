//! Harmless response styles (reordered operations, restated unchanged values): a different patch
//! that reaches the same object.

use super::{apply, bare_pod, create, patch_of};
use crate::review::{Endpoint, V1};

#[test]
fn harmless_styles_reach_the_same_object() {
    use crate::Style;
    let first = create(V1, bare_pod());
    let parsed = crate::review::parse_review(&serde_json::to_vec(&first).unwrap()).unwrap();
    let plain = crate::review::respond(Endpoint::Mutate, &parsed, None);
    let reordered = crate::review::respond_styled(
        Endpoint::Mutate,
        &parsed,
        None,
        Style { reorder_ops: true, restate_unchanged: false, ..Style::default() },
    );
    assert_ne!(patch_of(&plain["response"]), patch_of(&reordered["response"]));
    let result = apply(&bare_pod(), &patch_of(&plain["response"]));
    assert_eq!(result, apply(&bare_pod(), &patch_of(&reordered["response"])));
    let again = crate::review::parse_review(&serde_json::to_vec(&create(V1, result.clone())).unwrap()).unwrap();
    let restated = crate::review::respond_styled(
        Endpoint::Mutate,
        &again,
        None,
        Style { reorder_ops: false, restate_unchanged: true, ..Style::default() },
    );
    assert_eq!(apply(&result, &patch_of(&restated["response"])), result);
}
