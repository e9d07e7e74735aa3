//! Checks on the HTTP exchange itself: connection, deadline, status, Content-Type, body.

use super::media_type::parse_media_type;
use super::{calling_error, Check, Exchange};
use crate::client::{FailureKind, Transport};

fn failure_check(x: &Exchange, kinds: &[FailureKind]) -> Check {
    match x.transport {
        Transport::Failed(f) if kinds.contains(&f.kind) => Check::violated(
            format!("{:?}: {}", f.kind, f.message),
            calling_error(
                &x.webhook.name,
                &format!(
                    "failed to call webhook: Post \"{}\": {}",
                    x.call_url(),
                    go_transport_text(f.kind, &f.message)
                ),
            ),
        ),
        _ => Check::Pass,
    }
}

fn go_transport_text(kind: FailureKind, message: &str) -> String {
    match kind {
        FailureKind::Deadline => "context deadline exceeded".into(),
        FailureKind::Closed => "EOF".into(),
        _ => message.to_string(),
    }
}

/// transport.connect
pub fn connect(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Connect, FailureKind::Tls])
}

/// transport.answer
pub fn answer(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Closed])
}

/// transport.deadline
pub fn deadline(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Deadline])
}

/// transport.status
pub fn status(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    if (200..=206).contains(&a.status) {
        return Check::Pass;
    }
    let body = String::from_utf8_lossy(&a.body);
    let text = match a.status {
        400 => "the server rejected our request for an unknown reason".to_string(),
        500 => format!("an error on the server ({:?}) has prevented the request from succeeding", body.trim()),
        s => format!("the server responded with the status code {s} but did not return more information"),
    };
    Check::violated(
        format!("HTTP status {} (the apiserver decodes only 200–206); body: {}", a.status, super::snippet(&body)),
        calling_error(&x.webhook.name, &format!("failed to call webhook: {text}")),
    )
}

/// transport.content-type
pub fn content_type(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    match a.content_type.as_deref() {
        None | Some("") => Check::Pass,
        Some(ct) => match parse_media_type(ct) {
            Ok(_) => Check::Pass,
            Err(e) => Check::violated(
                format!("Content-Type {ct:?} does not parse as a media type: {e}"),
                format!("Internal error occurred: failed calling webhook {:?}: {e}", x.webhook.name),
            ),
        },
    }
}

/// transport.content-type-json
pub fn content_type_json(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    match a.content_type.as_deref() {
        None | Some("") => Check::violated_plain("no Content-Type header; send application/json"),
        Some(ct) => match parse_media_type(ct) {
            Ok(t) if t == "application/json" => Check::Pass,
            Ok(t) => Check::violated_plain(format!(
                "Content-Type {t:?}; the apiserver reads it as JSON anyway, but send application/json"
            )),
            Err(_) => Check::na("Content-Type does not parse (transport.content-type)"),
        },
    }
}

/// review.body
pub fn body(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    let Some(parsed) = x.body_json() else { return Check::na("status not decoded") };
    if a.body.is_empty() {
        let ct = a.content_type.clone().unwrap_or_default();
        return Check::violated(
            "empty body".to_string(),
            calling_error(
                &x.webhook.name,
                &format!(
                    "failed to call webhook: 0-length response with status code: {} and content type: {ct}",
                    a.status
                ),
            ),
        );
    }
    match parsed {
        Err(e) => Check::violated(
            format!("body is not JSON ({e}): {}", super::snippet(&String::from_utf8_lossy(&a.body))),
            calling_error(&x.webhook.name, "failed to call webhook: couldn't get version/kind; json parse error"),
        ),
        Ok(v) if !v.is_object() => Check::violated(
            format!("body is JSON but not an object: {}", super::snippet(&v.to_string())),
            calling_error(&x.webhook.name, "failed to call webhook: couldn't get version/kind; json parse error: json: cannot unmarshal into Go value of type struct"),
        ),
        Ok(_) => Check::Pass,
    }
}
