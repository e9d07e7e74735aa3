//! Regression files: the minimal failing requests of a property, saved and replayed first on the
//! next run.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::admission::AdmissionReview;
use crate::config::WebhookSpec;
use crate::requests::RequestCase;

pub(super) fn regressions_file(dir: &Path, webhook: &str, property: &str) -> PathBuf {
    let clean = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect::<String>()
    };
    dir.join(format!("{}--{}.json", clean(webhook), clean(property)))
}

fn load_regressions(file: &Path) -> Vec<Value> {
    std::fs::read(file).ok().and_then(|b| serde_json::from_slice::<Vec<Value>>(&b).ok()).unwrap_or_default()
}

pub(super) fn save_regression(file: &Path, review: &Value) -> std::io::Result<()> {
    let mut saved = load_regressions(file);
    let mut key = review.clone();
    key["request"]["uid"] = json!("");
    let unseen = saved.iter().all(|s| {
        let mut s = s.clone();
        s["request"]["uid"] = json!("");
        s != key
    });
    if unseen {
        saved.push(review.clone());
        let len = saved.len();
        saved.drain(..len.saturating_sub(20));
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, serde_json::to_vec_pretty(&saved).unwrap_or_default())?;
    }
    Ok(())
}

/// The saved regressions of `file` as requests (a file that does not read is no regressions).
pub(super) fn saved_requests(file: &Path, webhook: &WebhookSpec) -> Vec<RequestCase> {
    load_regressions(file)
        .into_iter()
        .filter_map(|v| serde_json::from_value::<AdmissionReview>(v).ok())
        .map(|review| {
            let primary = review.api_version == webhook.primary_review_version();
            RequestCase::from_review(&review, "saved regression".into(), primary)
        })
        .collect()
}
