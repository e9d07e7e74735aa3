//! What the apiserver says of a webhook's answer with a status outside 200–206: its webhook client
//! (client-go `rest`, `request.go` transformResponse → newUnstructuredResponseError) turns the
//! answer into `errors.NewGenericServerResponse` (apimachinery `pkg/api/errors/errors.go`), whose
//! message depends on the status code alone, or on the body for the codes that keep it. The body
//! counts only when it is text (`isTextResponse`: no Content-Type, or a `text/*` one), cut to 2048
//! bytes and trimmed; any other body is `unknown`. The webhook client names no resource, so no
//! `(post …)` suffix follows. A body that decodes as a failed `metav1.Status` is the error instead
//! (`Result.Error()`): its message, its reason ([`webhook_error`]).

use super::media_type::parse_media_type;

/// client-go `maxUnstructuredResponseTextBytes`.
const MAX_TEXT: usize = 2048;

/// How one status code's message is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Words {
    /// A fixed message.
    Fixed(&'static str),
    /// The server's message as it is.
    Body,
    /// The server's message, or this when it has none (`""` or `unknown`).
    BodyOr(&'static str),
}

/// One row: a status code, the StatusReason the error carries, and its message, as
/// `NewGenericServerResponse` (apimachinery `pkg/api/errors/errors.go`) writes them for a POST.
struct Row {
    code: u16,
    reason: &'static str,
    words: Words,
}

const TABLE: &[Row] = &[
    // NewGenericServerResponse: case http.StatusBadRequest
    Row {
        code: 400,
        reason: "BadRequest",
        words: Words::Fixed("the server rejected our request for an unknown reason"),
    },
    // case http.StatusUnauthorized
    Row {
        code: 401,
        reason: "Unauthorized",
        words: Words::Fixed("the server has asked for the client to provide credentials"),
    },
    // case http.StatusForbidden: "the server message has details about who is trying to perform what action"
    Row { code: 403, reason: "Forbidden", words: Words::Body },
    // case http.StatusNotFound
    Row { code: 404, reason: "NotFound", words: Words::Fixed("the server could not find the requested resource") },
    // case http.StatusMethodNotAllowed
    Row {
        code: 405,
        reason: "MethodNotAllowed",
        words: Words::Fixed("the server does not allow this method on the requested resource"),
    },
    // case http.StatusNotAcceptable
    Row {
        code: 406,
        reason: "NotAcceptable",
        words: Words::BodyOr("the server was unable to respond with a content type that the client supports"),
    },
    // case http.StatusConflict: a POST is AlreadyExists
    Row { code: 409, reason: "AlreadyExists", words: Words::Fixed("the server reported a conflict") },
    // case http.StatusUnsupportedMediaType
    Row { code: 415, reason: "UnsupportedMediaType", words: Words::Body },
    // case http.StatusUnprocessableEntity
    Row {
        code: 422,
        reason: "Invalid",
        words: Words::Fixed("the server rejected our request due to an error in our request"),
    },
    // case http.StatusTooManyRequests
    Row {
        code: 429,
        reason: "TooManyRequests",
        words: Words::Fixed("the server has received too many requests and has asked us to try again later"),
    },
    // case http.StatusServiceUnavailable
    Row {
        code: 503,
        reason: "ServiceUnavailable",
        words: Words::Fixed("the server is currently unable to handle the request"),
    },
    // case http.StatusGatewayTimeout
    Row {
        code: 504,
        reason: "Timeout",
        words: Words::Fixed(
            "the server was unable to return a response in the time allotted, but may still be processing the request",
        ),
    },
];

/// The server's message as client-go reads it (`newUnstructuredResponseError`): the body, cut to
/// 2048 bytes and trimmed, when it is text; `unknown` otherwise.
pub(crate) fn server_message(body: &[u8], content_type: Option<&str>) -> String {
    let text = match content_type {
        None | Some("") => true,
        Some(ct) => parse_media_type(ct).is_ok_and(|m| m.starts_with("text/")),
    };
    if !text {
        return "unknown".into();
    }
    let cut = &body[..body.len().min(MAX_TEXT)];
    String::from_utf8_lossy(cut).trim().to_string()
}

/// The StatusReason and message the apiserver's webhook client makes of an answer with status
/// `code` and server message `server` (from [`server_message`]).
pub(crate) fn error_for(code: u16, server: &str) -> (&'static str, String) {
    if let Some(row) = TABLE.iter().find(|r| r.code == code) {
        let message = match row.words {
            Words::Fixed(m) => m.to_string(),
            Words::Body => server.to_string(),
            Words::BodyOr(m) if server.is_empty() || server == "unknown" => m.to_string(),
            Words::BodyOr(_) => server.to_string(),
        };
        return (row.reason, message);
    }
    if code >= 500 {
        // default: code >= 500
        (
            "InternalError",
            format!("an error on the server ({}) has prevented the request from succeeding", go_quote(server)),
        )
    } else {
        ("Unknown", format!("the server responded with the status code {code} but did not return more information"))
    }
}

/// The fields of a `metav1.Status` that `Result.Error()` reads, decoded as the JSON serializer
/// decodes them (case-sensitive names, unknown fields ignored, `null` as absent).
#[derive(serde::Deserialize)]
struct Status {
    kind: Option<String>,
    status: Option<String>,
    message: Option<String>,
    reason: Option<String>,
    #[serde(rename = "code")]
    _code: Option<i32>,
}

/// Does the webhook client have a decoder for a body of `content_type` (client-go
/// `transformResponse`: no Content-Type means the client's own, `application/json`; a type its
/// negotiator does not know leaves no decoder, and the error unstructured)? The suite reads JSON
/// bodies only: a YAML or protobuf Status is not modelled.
fn decodes_json(content_type: Option<&str>) -> bool {
    match content_type {
        None | Some("") => true,
        Some(ct) => parse_media_type(ct).is_ok_and(|m| m == "application/json"),
    }
}

/// The failed Status a non-2xx `body` holds, as client-go's `Result.Error()` finds it: the body
/// decodes (the kind defaulted to nothing, so a body without `kind` does not), its kind is
/// `Status` (an unversioned kind: any apiVersion), and its `status` is `Failure` (the kind is
/// defaulted, so a bare object must not pass for one).
fn failed_status(body: &[u8], content_type: Option<&str>) -> Option<Status> {
    if body.is_empty() || !decodes_json(content_type) {
        return None;
    }
    let status: Status = serde_json::from_slice(body).ok()?;
    (status.kind.as_deref() == Some("Status") && status.status.as_deref() == Some("Failure")).then_some(status)
}

/// The StatusReason and message the apiserver's webhook client makes of a non-2xx answer with
/// status `code`, `body` and `content_type`. client-go `rest.Result.Error()` (called by `Into`)
/// prefers a failed `metav1.Status` the body decodes to: the error is then
/// `errors.FromObject(status)`, whose message is the Status's own (empty if it has none) and whose
/// reason is the Status's. Any other body gives [`error_for`]'s words.
pub(crate) fn webhook_error(code: u16, body: &[u8], content_type: Option<&str>) -> (String, String) {
    if let Some(status) = failed_status(body, content_type) {
        return (status.reason.unwrap_or_default(), status.message.unwrap_or_default());
    }
    let (reason, message) = error_for(code, &server_message(body, content_type));
    (reason.to_string(), message)
}

/// Go's `%q` of a string: double quotes, `\"` and `\\`, the usual escapes, `\x`/`\u` for the rest
/// of what is not printable.
fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '\u{FFFD}' => out.push('\u{FFFD}'),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_client_go_names_reads_as_newgenericserverresponse_writes_it() {
        let body = "nope: user x may not";
        let cases: &[(u16, &str, &str)] = &[
            (400, "BadRequest", "the server rejected our request for an unknown reason"),
            (401, "Unauthorized", "the server has asked for the client to provide credentials"),
            (403, "Forbidden", "nope: user x may not"),
            (404, "NotFound", "the server could not find the requested resource"),
            (405, "MethodNotAllowed", "the server does not allow this method on the requested resource"),
            (406, "NotAcceptable", "nope: user x may not"),
            (409, "AlreadyExists", "the server reported a conflict"),
            (415, "UnsupportedMediaType", "nope: user x may not"),
            (422, "Invalid", "the server rejected our request due to an error in our request"),
            (429, "TooManyRequests", "the server has received too many requests and has asked us to try again later"),
            (503, "ServiceUnavailable", "the server is currently unable to handle the request"),
            (
                504,
                "Timeout",
                "the server was unable to return a response in the time allotted, but may still be processing the request",
            ),
            (500, "InternalError", "an error on the server (\"nope: user x may not\") has prevented the request from succeeding"),
            (502, "InternalError", "an error on the server (\"nope: user x may not\") has prevented the request from succeeding"),
            (418, "Unknown", "the server responded with the status code 418 but did not return more information"),
            (302, "Unknown", "the server responded with the status code 302 but did not return more information"),
        ];
        for (code, reason, message) in cases {
            assert_eq!(error_for(*code, body), (*reason, message.to_string()), "{code}");
        }
        // Every row of the table is held by a case above.
        for row in TABLE {
            assert!(cases.iter().any(|(c, ..)| *c == row.code), "{}", row.code);
        }
    }

    #[test]
    fn a_406_without_a_message_says_what_was_not_acceptable() {
        for server in ["", "unknown"] {
            assert_eq!(
                error_for(406, server).1,
                "the server was unable to respond with a content type that the client supports"
            );
        }
    }

    #[test]
    fn only_a_text_body_is_the_servers_message_cut_and_trimmed() {
        assert_eq!(server_message(b"  denied \n", None), "denied");
        assert_eq!(server_message(b"denied", Some("text/plain; charset=utf-8")), "denied");
        assert_eq!(server_message(b"{\"denied\":true}", Some("application/json")), "unknown");
        assert_eq!(server_message(b"denied", Some("text/")), "unknown", "a Content-Type that does not parse");
        let long = "x".repeat(3000);
        assert_eq!(server_message(long.as_bytes(), None).len(), 2048);
        // A 403 or a 500 with a JSON body says "unknown", as the apiserver does.
        assert_eq!(error_for(403, &server_message(b"{}", Some("application/json"))).1, "unknown");
        assert_eq!(
            error_for(500, &server_message(b"{}", Some("application/json"))).1,
            "an error on the server (\"unknown\") has prevented the request from succeeding"
        );
    }

    #[test]
    fn a_failed_status_with_a_message_is_the_error_the_apiserver_reports() {
        let body = br#"{"apiVersion":"v1","kind":"Status","status":"Failure","message":"quota exceeded","reason":"Forbidden","code":403}"#;
        for ct in [None, Some("application/json"), Some("application/json; charset=utf-8")] {
            assert_eq!(webhook_error(500, body, ct), ("Forbidden".into(), "quota exceeded".into()), "{ct:?}");
        }
        // Status is unversioned: any apiVersion, or none, decodes as one.
        let body = br#"{"kind":"Status","status":"Failure","message":"no"}"#;
        assert_eq!(webhook_error(400, body, None), (String::new(), "no".into()));
    }

    #[test]
    fn a_failed_status_without_a_message_gives_an_empty_message() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError"}"#;
        assert_eq!(webhook_error(500, body, Some("application/json")), ("InternalError".into(), String::new()));
    }

    #[test]
    fn json_that_is_not_a_failed_status_gets_the_generic_words() {
        let generic = |code| error_for(code, "unknown");
        let words = |(r, m): (&str, String)| (r.to_string(), m);
        for body in [
            &br#"{"kind":"Status","status":"Success","message":"fine"}"#[..],
            br#"{"status":"Failure","message":"no kind"}"#,
            br#"{"kind":"AdmissionReview","status":"Failure","message":"x"}"#,
            br#"{"kind":"Status","status":"Failure","message":7}"#,
            br#"["kind","Status"]"#,
            b"{",
        ] {
            assert_eq!(
                webhook_error(500, body, Some("application/json")),
                words(generic(500)),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        // A JSON body without a Content-Type is also text: the generic words quote it.
        let body = br#"{"kind":"Status","status":"Success"}"#;
        assert_eq!(webhook_error(503, body, None), words(error_for(503, "")));
        assert_eq!(webhook_error(500, body, None).1, error_for(500, &String::from_utf8_lossy(body)).1);
    }

    #[test]
    fn a_text_body_is_never_read_as_a_status() {
        let body = br#"{"kind":"Status","status":"Failure","message":"quota exceeded"}"#;
        let (reason, message) = webhook_error(403, body, Some("text/plain"));
        assert_eq!((reason.as_str(), message), ("Forbidden", String::from_utf8_lossy(body).to_string()));
        assert_eq!(webhook_error(403, b"denied", Some("text/plain")), ("Forbidden".into(), "denied".into()));
        assert_eq!(webhook_error(403, b"", None), ("Forbidden".into(), String::new()));
    }

    #[test]
    fn go_quotes_as_percent_q_does() {
        assert_eq!(go_quote("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\x01é\"");
    }
}
