//! Harmless response styles (reordered operations, restated unchanged values): a different patch
//! that reaches the same object.

use super::{apply, assert_no_patch, bare_pod, create, patch_of};
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

/// The `image_volume` style adds its volume to a created pod (the list too when there is none),
/// once, and leaves every other request as the plain webhook answers it.
#[test]
fn the_image_volume_style_adds_one_volume_to_created_pods() {
    use crate::mutate::{image_volume, IMAGE_VOLUME};
    use crate::Style;
    let style = Style { image_volume: true, ..Style::default() };
    let respond = |object: &serde_json::Value| {
        let review = create(V1, object.clone());
        let parsed = crate::review::parse_review(&serde_json::to_vec(&review).unwrap()).unwrap();
        crate::review::respond_styled(Endpoint::Mutate, &parsed, None, style)["response"].clone()
    };
    let answer = |object: &serde_json::Value| apply(object, &patch_of(&respond(object)));
    let result = answer(&bare_pod());
    assert_eq!(result["spec"]["volumes"], serde_json::json!([image_volume()]));
    let mut with_volume = bare_pod();
    with_volume["spec"]["volumes"] = serde_json::json!([{"name": "data", "emptyDir": {}}]);
    let result = answer(&with_volume);
    assert_eq!(result["spec"]["volumes"], serde_json::json!([{"name": "data", "emptyDir": {}}, image_volume()]));
    // Already there, and the plain webhook's mutation too: no patch at all.
    assert_no_patch(&respond(&result));
    assert_eq!(image_volume()["name"], IMAGE_VOLUME);
}
