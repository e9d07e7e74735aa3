//! Where each webhook of a manifest is written: the line of its entry under `webhooks:`, for reports
//! that point at the manifest (GitHub annotations, SARIF).
//!
//! The manifest's values come from serde_yaml, which keeps no positions; this module reads the same
//! text once more as YAML events with their positions: per webhook, the line its entry starts on, and
//! each document as a tree of nodes with lines (for the unknown fields, `fields.rs`).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, Span};

/// A webhook's key: (kind, the configuration's `metadata.name`, the webhook's name).
pub(crate) type WebhookKey = (String, String, String);

/// A YAML node; scalars and mappings with the line (1-based) they start on (aliases are kept as
/// leaves without content).
pub(crate) enum Node {
    /// A scalar and its line.
    Scalar(String, usize),
    /// A sequence's items.
    Sequence(Vec<Node>),
    /// A mapping's entries (key, value) and its line.
    Mapping(Vec<(Node, Node)>, usize),
    /// An alias or anything else without content.
    Other,
}

impl Node {
    /// The value of the mapping entry `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Mapping(entries, _) => {
                entries.iter().find(|(k, _)| matches!(k, Node::Scalar(s, _) if s == key)).map(|(_, v)| v)
            }
            _ => None,
        }
    }

    /// A scalar's text.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Node::Scalar(s, _) => Some(s),
            _ => None,
        }
    }
}

type Events<'a> = std::iter::Peekable<Parser<'a, saphyr_parser::StrInput<'a>>>;

/// The node starting with `event`; `None` when the text stops being YAML (then no lines are known).
fn node(first: (Event<'_>, Span), events: &mut Events<'_>) -> Option<Node> {
    let line = first.1.start.line();
    Some(match first.0 {
        Event::Scalar(value, ..) => Node::Scalar(value.into_owned(), line),
        Event::SequenceStart(..) => {
            let mut items = Vec::new();
            loop {
                let next = events.next()?.ok()?;
                if matches!(next.0, Event::SequenceEnd) {
                    break;
                }
                items.push(node(next, events)?);
            }
            Node::Sequence(items)
        }
        Event::MappingStart(..) => {
            let mut entries = Vec::new();
            loop {
                let next = events.next()?.ok()?;
                if matches!(next.0, Event::MappingEnd) {
                    break;
                }
                let key = node(next, events)?;
                let value = node(events.next()?.ok()?, events)?;
                entries.push((key, value));
            }
            Node::Mapping(entries, line)
        }
        _ => Node::Other,
    })
}

/// Record the webhooks of one document (or of each item of a `List`).
fn collect(doc: &Node, out: &mut HashMap<WebhookKey, usize>) {
    if let Some(Node::Sequence(items)) = doc.get("items") {
        for item in items {
            collect(item, out);
        }
    }
    let kind = doc.get("kind").and_then(Node::text).unwrap_or_default();
    let configuration = doc.get("metadata").and_then(|m| m.get("name")).and_then(Node::text).unwrap_or_default();
    let Some(Node::Sequence(webhooks)) = doc.get("webhooks") else { return };
    for webhook in webhooks {
        if let (Node::Mapping(_, line), Some(name)) = (webhook, webhook.get("name").and_then(Node::text)) {
            out.entry((kind.to_string(), configuration.to_string(), name.to_string())).or_insert(*line);
        }
    }
}

/// The root node of each document of `text`, in order (an empty document is `Node::Other`); `None`
/// when the text does not read as YAML events.
pub(crate) fn documents(text: &str) -> Option<Vec<Node>> {
    let mut out = Vec::new();
    let mut events: Events<'_> = Parser::new_from_str(text).peekable();
    loop {
        let event = events.next()?.ok()?;
        match event.0 {
            Event::StreamEnd => return Some(out),
            Event::DocumentStart(_) => out.push(Node::Other),
            Event::MappingStart(..) | Event::SequenceStart(..) | Event::Scalar(..) => {
                let root = node(event, &mut events)?;
                match out.last_mut() {
                    Some(last) => *last = root,
                    None => out.push(root),
                }
            }
            _ => {}
        }
    }
}

/// The line (1-based) each webhook's entry starts on, by (kind, configuration, name). Text that does
/// not read as YAML events gives no lines.
pub(crate) fn webhook_lines(text: &str) -> HashMap<WebhookKey, usize> {
    let mut out = HashMap::new();
    for doc in documents(text).unwrap_or_default() {
        collect(&doc, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: &str, configuration: &str, name: &str) -> WebhookKey {
        (kind.into(), configuration.into(), name.into())
    }

    #[test]
    fn block_flow_list_and_multi_document_entries() {
        let text = "\
# a comment
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: first.example.com
webhooks:
  - name: first.example.com
    sideEffects: None
  -
    sideEffects: None
    name: second.example.com
---
apiVersion: v1
kind: List
items:
  - kind: ValidatingWebhookConfiguration
    metadata: {name: checks}
    webhooks: [{name: flow.example.com}, {name: \"quoted.example.com\"}]
";
        let lines = webhook_lines(text);
        assert_eq!(lines.get(&key("MutatingWebhookConfiguration", "first.example.com", "first.example.com")), Some(&7));
        assert_eq!(
            lines.get(&key("MutatingWebhookConfiguration", "first.example.com", "second.example.com")),
            Some(&10)
        );
        assert_eq!(lines.get(&key("ValidatingWebhookConfiguration", "checks", "flow.example.com")), Some(&18));
        assert_eq!(lines.get(&key("ValidatingWebhookConfiguration", "checks", "quoted.example.com")), Some(&18));
        assert_eq!(lines.len(), 4);
    }

    #[test]
    fn text_that_is_not_yaml_gives_no_lines() {
        assert!(webhook_lines("webhooks: [\n  - name: x\n").is_empty());
    }
}
