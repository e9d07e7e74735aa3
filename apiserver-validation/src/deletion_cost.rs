//! `pkg/apis/core/helper` `GetDeletionCostFromPodAnnotations`: how the apiserver reads a pod's
//! deletion cost annotation, which [`crate::pod_annotations`] validates and
//! [`crate::scheduling::PodOptions::with_old_meta`] reads on the old object.

/// `core.PodDeletionCost`.
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// Whether `GetDeletionCostFromPodAnnotations` reads `value`: `validFirstDigit` (no `+`, no
/// leading zero but `0` itself), then `strconv.ParseInt(value, 10, 32)`.
pub fn deletion_cost_valid(value: &str) -> bool {
    let b = value.as_bytes();
    let first_ok = match b.first() {
        None => false,
        Some(b'-') => true,
        Some(b'0') => value == "0",
        Some(c) => c.is_ascii_digit(),
    };
    let digits = value.strip_prefix('-').unwrap_or(value);
    first_ok
        && !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && value.parse::<i64>().is_ok_and(|n| i32::try_from(n).is_ok())
}
