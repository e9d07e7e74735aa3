//! Checks on the HTTP exchange itself: connection, deadline, status, Content-Type, body.

use super::media_type::parse_media_type;
use super::{calling_error, Check, Exchange};
use crate::client::{FailureKind, Transport};
use crate::decoder::{Framing, Rejected};

fn failure_check(x: &Exchange, kinds: &[FailureKind]) -> Check {
    match x.transport {
        Transport::Failed(f) if kinds.contains(&f.kind) => Check::violated(
            format!("{:?}: {}", f.kind, f.message),
            calling_error(
                &x.webhook.name,
                &format!(
                    "failed to call webhook: Post \"{}\": {}",
                    x.call_url(),
                    f.go_error.clone().unwrap_or_else(|| go_transport_text(f.kind, &f.message))
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
        FailureKind::PlainHttp => "http: server gave HTTP response to HTTPS client".into(),
        _ => message.to_string(),
    }
}

/// transport.connect
pub(crate) fn connect(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Connect, FailureKind::Tls, FailureKind::PlainHttp])
}

/// transport.answer
pub(crate) fn answer(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Closed])
}

/// transport.deadline
pub(crate) fn deadline(x: &Exchange) -> Check {
    failure_check(x, &[FailureKind::Deadline])
}

/// transport.status
pub(crate) fn status(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    if (200..=206).contains(&a.status) {
        return Check::Pass;
    }
    let body = String::from_utf8_lossy(&a.body);
    let (_, text) = super::http_status::webhook_error(a.status, &a.body, a.content_type.as_deref());
    let credentials = match a.status {
        401 | 403 => " (the webhook refuses the caller: an apiserver presents only the credentials its AdmissionConfiguration's kubeconfig gives it; the suite takes them from --token, --client-cert or --admission-config)",
        _ => "",
    };
    Check::violated(
        format!(
            "HTTP status {} (the apiserver decodes only 200–206){credentials}; body: {}",
            a.status,
            super::snippet(&body)
        ),
        calling_error(&x.webhook.name, &format!("failed to call webhook: {text}")),
    )
}

/// transport.content-type
pub(crate) fn content_type(x: &Exchange) -> Check {
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
pub(crate) fn content_type_json(x: &Exchange) -> Check {
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
pub(crate) fn body(x: &Exchange) -> Check {
    let Some(a) = x.answer() else { return Check::na("no HTTP answer") };
    let Some(reading) = x.reading() else { return Check::na("status not decoded") };
    let fail = |detail: String, reason: String| {
        Check::violated(detail, calling_error(&x.webhook.name, &format!("failed to call webhook: {reason}")))
    };
    let shown = || super::snippet(&String::from_utf8_lossy(&a.body));
    match &reading.result {
        Err(Rejected::Empty) => fail(
            "empty body".to_string(),
            format!(
                "0-length response with status code: {} and content type: {}",
                a.status,
                a.content_type.clone().unwrap_or_default()
            ),
        ),
        Err(Rejected::Syntax(message)) if message.ends_with("exceeded max depth") => fail(
            format!(
                "the body nests arrays and objects more than 10000 deep, past the limit of the apiserver's JSON decoder ({message}): {}",
                shown()
            ),
            format!("couldn't get version/kind; json parse error: {message}"),
        ),
        Err(Rejected::Syntax(message)) => fail(
            format!("body is not JSON as the apiserver's decoder reads it ({message}): {}", shown()),
            format!("couldn't get version/kind; json parse error: {message}"),
        ),
        Err(Rejected::NotAnObject(message)) => fail(
            format!("body is not a JSON object ({message}): {}", shown()),
            format!("couldn't get version/kind; json parse error: {message}"),
        ),
        Err(Rejected::TooDeep(message)) => fail(
            format!(
                "read as YAML (the body does not start with '{{'), it nests collections more than 10000 deep, past the limit of go-yaml, the apiserver's YAML reader ({message}): {}",
                shown()
            ),
            message.clone(),
        ),
        Err(Rejected::Yaml(_)) | Err(Rejected::Unread(_)) | Err(Rejected::Protobuf) => {
            Check::na("the apiserver reads it with its YAML or protobuf decoder (review.json)")
        }
        Ok(_) => Check::Pass,
    }
}

/// review.json: the body is JSON, not something the apiserver's YAML or protobuf decoder takes.
pub(crate) fn json_framing(x: &Exchange) -> Check {
    let Some(reading) = x.reading() else { return Check::na("status not decoded") };
    let what = match (&reading.framing, &reading.result) {
        (Framing::Json, _) => return Check::Pass,
        (Framing::Protobuf, _) => {
            return Check::violated_plain(
                "the body starts with the protobuf envelope prefix k8s\\x00: the apiserver decodes it as protobuf, which the suite does not reproduce",
            )
        }
        (Framing::Yaml, Ok(_)) => "read as YAML, it decodes; verdicts on it are WARN only, as the suite's YAML reading (YAML 1.2) may differ from the apiserver's (YAML 1.1: yes/no/on/off are booleans, duplicate keys replace, a second document is ignored)".to_string(),
        (Framing::Yaml, Err(Rejected::Yaml(e))) => {
            format!("the suite's YAML reader rejects it ({e}); the apiserver's, also derived from libyaml, most likely does too")
        }
        (Framing::Yaml, Err(Rejected::Unread(why))) => format!("the suite does not read it: {why}"),
        (Framing::Yaml, Err(_)) => "read as YAML, it is not a mapping".to_string(),
    };
    Check::violated_plain(format!(
        "the body does not start with '{{' (after whitespace), so the apiserver hands it to its YAML decoder, not its JSON one: {what}"
    ))
}
