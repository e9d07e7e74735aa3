//! The type check the apiserver runs when a webhook configuration is created
//! (`pkg/apis/admissionregistration/validation/validation.go` validateMatchConditionsExpression →
//! `k8s.io/apiserver/pkg/admission/plugin/cel/compile.go` CompileCELExpression): cel-go compiles the
//! trimmed expression with `request` typed (`BuildRequestType`: `kubernetes.AdmissionRequest`, its
//! `kubernetes.UserInfo`, `kubernetes.GroupVersionKind` and `kubernetes.GroupVersionResource`),
//! `authorizer` typed (`k8s.io/apiserver/pkg/cel/library/authz.go`), `object` and `oldObject` dyn,
//! and refuses the configuration on a type error or on an expression not typed bool.
//!
//! The `cel` crate parses but does not type-check, so this is a small static checker over its AST.
//! It reports only what it is sure cel-go reports: a field `request` does not declare (`undefined
//! field 'nme'`), an operator or a standard function applied to types it has no overload for
//! (`found no matching overload for '_==_' applied to '(string, int)'`), and a result that is not
//! bool (`must evaluate to bool but got string`). Whatever it does not model (functions of the
//! Kubernetes libraries, conversions' arguments, `null` next to a primitive) is left unknown and
//! never refused: a configuration the apiserver accepts is never called refused here.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, SourceInfo};
use cel::Program;

/// A CEL type as cel-go's checker infers it; `Unknown` is what this checker does not model.
#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Unknown,
    Dyn,
    Error,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Timestamp,
    Duration,
    Type,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    /// A declared object type (`kubernetes.UserInfo`, `kubernetes.authorization.Decision`, …).
    Object(&'static str),
}

const REQUEST: &str = "kubernetes.AdmissionRequest";
const USER_INFO: &str = "kubernetes.UserInfo";
const GVK: &str = "kubernetes.GroupVersionKind";
const GVR: &str = "kubernetes.GroupVersionResource";
const AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
const PATH_CHECK: &str = "kubernetes.authorization.PathCheck";
const GROUP_CHECK: &str = "kubernetes.authorization.GroupCheck";
const RESOURCE_CHECK: &str = "kubernetes.authorization.ResourceCheck";
const DECISION: &str = "kubernetes.authorization.Decision";

fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

/// The fields of a declared object type (`compile.go` BuildRequestType), `None` for a type
/// without fields (the authorizer's, selected through functions).
fn fields(object: &str) -> Option<Vec<(&'static str, Ty)>> {
    let s = || Ty::String;
    Some(match object {
        REQUEST => vec![
            ("kind", Ty::Object(GVK)),
            ("resource", Ty::Object(GVR)),
            ("subResource", s()),
            ("requestKind", Ty::Object(GVK)),
            ("requestResource", Ty::Object(GVR)),
            ("requestSubResource", s()),
            ("name", s()),
            ("namespace", s()),
            ("operation", s()),
            ("userInfo", Ty::Object(USER_INFO)),
            ("dryRun", Ty::Bool),
            ("options", Ty::Dyn),
        ],
        USER_INFO => vec![
            ("username", s()),
            ("uid", s()),
            ("groups", list(s())),
            ("extra", Ty::Map(Box::new(s()), Box::new(list(s())))),
        ],
        GVK => vec![("group", s()), ("version", s()), ("kind", s())],
        GVR => vec![("group", s()), ("version", s()), ("resource", s())],
        _ => return None,
    })
}

impl Ty {
    /// cel-go's `FormatCELType`.
    fn name(&self) -> String {
        match self {
            Ty::Unknown | Ty::Dyn => "dyn".into(),
            Ty::Error => "*error*".into(),
            Ty::Null => "null_type".into(),
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Uint => "uint".into(),
            Ty::Double => "double".into(),
            Ty::String => "string".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Timestamp => "google.protobuf.Timestamp".into(),
            Ty::Duration => "google.protobuf.Duration".into(),
            Ty::Type => "type".into(),
            Ty::List(e) => format!("list({})", e.name()),
            Ty::Map(k, v) => format!("map({}, {})", k.name(), v.name()),
            Ty::Object(n) => (*n).into(),
        }
    }

    /// Whether the checker cannot tell (dyn, unknown, or an error already reported).
    fn open(&self) -> bool {
        matches!(self, Ty::Unknown | Ty::Dyn | Ty::Error)
    }

    fn is(&self, other: &Ty) -> bool {
        self.open() || self == other
    }

    fn numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Uint | Ty::Double)
    }
}

/// Whether a type parameter can be bound to both `a` and `b` (cel-go `isAssignable`), leniently:
/// `null` next to anything is left to the apiserver.
fn unify(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        _ if a.open() || b.open() => true,
        (Ty::Null, _) | (_, Ty::Null) => true,
        (Ty::List(x), Ty::List(y)) => unify(x, y),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => unify(k1, k2) && unify(v1, v2),
        _ => a == b,
    }
}

/// The more specific of two unifiable types (the element of `[a, b]`).
fn join(a: &Ty, b: &Ty) -> Ty {
    if a == b {
        a.clone()
    } else if matches!(a, Ty::Unknown) || matches!(b, Ty::Unknown) {
        Ty::Unknown
    } else {
        Ty::Dyn
    }
}

/// One type error, where cel-go reports it.
struct Issue {
    offset: usize,
    message: String,
}

struct Checker<'a> {
    info: &'a SourceInfo,
    issues: Vec<Issue>,
    scopes: Vec<(String, Ty)>,
}

impl Checker<'_> {
    fn report(&mut self, e: &IdedExpr, message: String) {
        let offset = self.info.offset_for(e.id).map(|(start, _)| start as usize).unwrap_or(0);
        self.issues.push(Issue { offset, message });
    }

    fn no_overload(&mut self, e: &IdedExpr, function: &str, args: &[Ty], instance: bool) -> Ty {
        let names: Vec<String> = args.iter().map(Ty::name).collect();
        let signature = if instance {
            format!("{}.({})", names[0], names[1..].join(", "))
        } else {
            format!("({})", names.join(", "))
        };
        self.report(e, format!("found no matching overload for '{function}' applied to '{signature}'"));
        Ty::Error
    }

    fn ident(&self, name: &str) -> Ty {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return t.clone();
        }
        match name {
            "object" | "oldObject" => Ty::Dyn,
            "request" => Ty::Object(REQUEST),
            "authorizer" => Ty::Object(AUTHORIZER),
            "int" | "uint" | "double" | "bool" | "string" | "bytes" | "list" | "map" | "null_type" | "type" => Ty::Type,
            _ => Ty::Unknown,
        }
    }

    fn check(&mut self, e: &IdedExpr) -> Ty {
        match &e.expr {
            Expr::Unspecified => Ty::Unknown,
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => Ty::Bool,
                LiteralValue::Bytes(_) => Ty::Bytes,
                LiteralValue::Double(_) => Ty::Double,
                LiteralValue::Int(_) => Ty::Int,
                LiteralValue::Null => Ty::Null,
                LiteralValue::String(_) => Ty::String,
                LiteralValue::UInt(_) => Ty::Uint,
            },
            Expr::Ident(name) => self.ident(name),
            Expr::Select(s) => {
                // `authorizer.requestResource` is a variable of its own.
                if let Expr::Ident(root) = &s.operand.expr {
                    if root == "authorizer" && s.field == "requestResource" && !self.shadowed(root) {
                        return Ty::Object(RESOURCE_CHECK);
                    }
                }
                let operand = self.check(&s.operand);
                let selected = self.select(e, &operand, &s.field);
                if s.test {
                    Ty::Bool
                } else {
                    selected
                }
            }
            Expr::List(l) => {
                let mut element: Option<Ty> = None;
                for x in &l.elements {
                    let t = self.check(x);
                    element = Some(match element {
                        None => t,
                        Some(prev) => join(&prev, &t),
                    });
                }
                list(element.unwrap_or(Ty::Unknown))
            }
            Expr::Map(m) => {
                let mut key: Option<Ty> = None;
                let mut value: Option<Ty> = None;
                for entry in &m.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(kv) => {
                            let k = self.check(&kv.key);
                            let v = self.check(&kv.value);
                            key = Some(key.map_or(k.clone(), |p| join(&p, &k)));
                            value = Some(value.map_or(v.clone(), |p| join(&p, &v)));
                        }
                        EntryExpr::StructField(f) => {
                            self.check(&f.value);
                        }
                    }
                }
                Ty::Map(Box::new(key.unwrap_or(Ty::Unknown)), Box::new(value.unwrap_or(Ty::Unknown)))
            }
            Expr::Struct(s) => {
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        self.check(&f.value);
                    }
                }
                Ty::Unknown
            }
            Expr::Comprehension(c) => {
                let range = self.check(&c.iter_range);
                let (first, second) = match &range {
                    Ty::List(elem) => (Ty::Int, (**elem).clone()),
                    Ty::Map(k, v) => ((**k).clone(), (**v).clone()),
                    _ => (Ty::Dyn, Ty::Dyn),
                };
                let init = self.check(&c.accu_init);
                let before = self.scopes.len();
                match &c.iter_var2 {
                    Some(v2) => {
                        self.scopes.push((c.iter_var.clone(), first));
                        self.scopes.push((v2.clone(), second));
                    }
                    // One variable: a list's element, a map's key.
                    None => self
                        .scopes
                        .push((c.iter_var.clone(), if matches!(range, Ty::List(_)) { second } else { first })),
                }
                self.scopes.push((c.accu_var.clone(), init.clone()));
                self.check(&c.loop_cond);
                let step = self.check(&c.loop_step);
                let accu = if step.open() || !unify(&init, &step) { init } else { step };
                let last = self.scopes.len() - 1;
                self.scopes[last].1 = accu;
                let result = self.check(&c.result);
                self.scopes.truncate(before);
                result
            }
            Expr::Call(call) => {
                let target = call.target.as_ref().map(|t| self.check(t));
                let args: Vec<Ty> = call.args.iter().map(|a| self.check(a)).collect();
                self.call(e, &call.func_name, target, args)
            }
        }
    }

    fn shadowed(&self, name: &str) -> bool {
        self.scopes.iter().any(|(n, _)| n == name)
    }

    fn select(&mut self, e: &IdedExpr, operand: &Ty, field: &str) -> Ty {
        match operand {
            Ty::Object(name) => match fields(name) {
                Some(declared) => match declared.into_iter().find(|(n, _)| *n == field) {
                    Some((_, t)) => t,
                    None => {
                        self.report(e, format!("undefined field '{field}'"));
                        Ty::Error
                    }
                },
                None => Ty::Unknown,
            },
            Ty::Map(_, v) => (**v).clone(),
            Ty::Dyn => Ty::Dyn,
            _ => Ty::Unknown,
        }
    }

    fn call(&mut self, e: &IdedExpr, function: &str, target: Option<Ty>, args: Vec<Ty>) -> Ty {
        if let Some(receiver) = target {
            return self.member(e, function, receiver, args);
        }
        let all = |want: &Ty| args.iter().all(|a| a.is(want));
        match (function, args.as_slice()) {
            ("_&&_" | "_||_", [_, _]) | ("!_", [_]) => {
                if all(&Ty::Bool) {
                    Ty::Bool
                } else {
                    self.no_overload(e, function, &args, false)
                }
            }
            ("@not_strictly_false", [_]) => Ty::Bool,
            ("_==_" | "_!=_", [a, b]) => {
                if unify(a, b) {
                    Ty::Bool
                } else {
                    self.no_overload(e, function, &args, false)
                }
            }
            ("_<_" | "_<=_" | "_>_" | "_>=_", [a, b]) => {
                let comparable = a.open()
                    || b.open()
                    || (a.numeric() && b.numeric())
                    || (a == b && matches!(a, Ty::String | Ty::Bytes | Ty::Bool | Ty::Timestamp | Ty::Duration));
                if comparable {
                    Ty::Bool
                } else {
                    self.no_overload(e, function, &args, false)
                }
            }
            ("_+_" | "_-_" | "_*_" | "_/_" | "_%_", [a, b]) => self.arithmetic(e, function, a, b),
            ("-_", [a]) => match a {
                _ if a.open() => a.clone(),
                Ty::Int | Ty::Double => a.clone(),
                _ => self.no_overload(e, function, &args, false),
            },
            ("_?_:_", [c, a, b]) => {
                if !c.is(&Ty::Bool) {
                    return self.no_overload(e, function, &args, false);
                }
                if a == b {
                    a.clone()
                } else {
                    // Whether cel-go's join makes this dyn or refuses it is not modelled.
                    Ty::Unknown
                }
            }
            ("@in", [x, container]) => match container {
                Ty::List(elem) if !unify(x, elem) => self.no_overload(e, function, &args, false),
                Ty::Map(key, _) if !unify(x, key) => self.no_overload(e, function, &args, false),
                Ty::List(_) | Ty::Map(..) => Ty::Bool,
                _ if container.open() => Ty::Bool,
                _ => self.no_overload(e, function, &args, false),
            },
            ("_[_]", [container, index]) => match container {
                Ty::List(elem) if index.is(&Ty::Int) || index.numeric() => (**elem).clone(),
                Ty::Map(key, value) if unify(index, key) => (**value).clone(),
                Ty::List(_) | Ty::Map(..) => self.no_overload(e, function, &args, false),
                _ if container.open() => Ty::Dyn,
                _ => self.no_overload(e, function, &args, false),
            },
            ("size", [a]) => self.size(e, a),
            ("matches", [a, b]) => self.string_predicate(e, function, a, b, false),
            ("int", [_]) => Ty::Int,
            ("uint", [_]) => Ty::Uint,
            ("double", [_]) => Ty::Double,
            ("string", [_]) => Ty::String,
            ("bool", [_]) => Ty::Bool,
            ("bytes", [_]) => Ty::Bytes,
            ("dyn", [_]) => Ty::Dyn,
            ("type", [_]) => Ty::Type,
            ("timestamp", [_]) => Ty::Timestamp,
            ("duration", [_]) => Ty::Duration,
            _ => Ty::Unknown,
        }
    }

    fn arithmetic(&mut self, e: &IdedExpr, function: &str, a: &Ty, b: &Ty) -> Ty {
        if a.open() || b.open() {
            // Which overload dyn selects (and so the result) is not modelled.
            return Ty::Unknown;
        }
        let same = a == b;
        let result = match (function, a, b) {
            ("_+_" | "_-_" | "_*_" | "_/_", _, _) if same && a.numeric() => Some(a.clone()),
            ("_%_", _, _) if same && matches!(a, Ty::Int | Ty::Uint) => Some(a.clone()),
            ("_+_", Ty::String, Ty::String) | ("_+_", Ty::Bytes, Ty::Bytes) => Some(a.clone()),
            ("_+_", Ty::List(x), Ty::List(y)) if unify(x, y) => Some(list(join(x, y))),
            ("_+_", Ty::Timestamp, Ty::Duration) | ("_+_", Ty::Duration, Ty::Timestamp) => Some(Ty::Timestamp),
            ("_+_" | "_-_", Ty::Duration, Ty::Duration) => Some(Ty::Duration),
            ("_-_", Ty::Timestamp, Ty::Timestamp) => Some(Ty::Duration),
            ("_-_", Ty::Timestamp, Ty::Duration) => Some(Ty::Timestamp),
            _ => None,
        };
        match result {
            Some(t) => t,
            None => self.no_overload(e, function, &[a.clone(), b.clone()], false),
        }
    }

    fn size(&mut self, e: &IdedExpr, a: &Ty) -> Ty {
        match a {
            _ if a.open() => Ty::Int,
            Ty::String | Ty::Bytes | Ty::List(_) | Ty::Map(..) => Ty::Int,
            _ => self.no_overload(e, "size", std::slice::from_ref(a), false),
        }
    }

    fn string_predicate(&mut self, e: &IdedExpr, function: &str, receiver: &Ty, arg: &Ty, instance: bool) -> Ty {
        if receiver.is(&Ty::String) && arg.is(&Ty::String) {
            Ty::Bool
        } else {
            self.no_overload(e, function, &[receiver.clone(), arg.clone()], instance)
        }
    }

    /// A call `receiver.function(args)`: the standard string functions and the authorizer's.
    fn member(&mut self, e: &IdedExpr, function: &str, receiver: Ty, args: Vec<Ty>) -> Ty {
        let one_string = args.len() == 1 && args[0].is(&Ty::String);
        let wrong = |c: &mut Self| {
            let mut all = vec![receiver.clone()];
            all.extend(args.iter().cloned());
            c.no_overload(e, function, &all, true)
        };
        match (&receiver, function) {
            (Ty::Object(AUTHORIZER), "path") => {
                if one_string {
                    Ty::Object(PATH_CHECK)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(AUTHORIZER), "group") => {
                if one_string {
                    Ty::Object(GROUP_CHECK)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(AUTHORIZER), "serviceAccount") => {
                if args.len() == 2 && args.iter().all(|a| a.is(&Ty::String)) {
                    Ty::Object(AUTHORIZER)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(GROUP_CHECK), "resource") => {
                if one_string {
                    Ty::Object(RESOURCE_CHECK)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(RESOURCE_CHECK), "subresource" | "namespace" | "name" | "fieldSelector" | "labelSelector") => {
                if one_string {
                    Ty::Object(RESOURCE_CHECK)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(RESOURCE_CHECK | PATH_CHECK), "check") => {
                if one_string {
                    Ty::Object(DECISION)
                } else {
                    wrong(self)
                }
            }
            (Ty::Object(DECISION), "allowed" | "errored") if args.is_empty() => Ty::Bool,
            (Ty::Object(DECISION), "reason" | "error") if args.is_empty() => Ty::String,
            (_, "contains" | "startsWith" | "endsWith" | "matches") if args.len() == 1 => {
                if matches!(receiver, Ty::String) {
                    self.string_predicate(e, function, &receiver, &args[0], true)
                } else {
                    // On dyn, or on a type another library may declare it for: not modelled.
                    Ty::Unknown
                }
            }
            (_, "size") if args.is_empty() => {
                if receiver.open() {
                    Ty::Int
                } else {
                    self.size(e, &receiver)
                }
            }
            (Ty::String, "lowerAscii" | "upperAscii" | "trim") if args.is_empty() => Ty::String,
            _ => Ty::Unknown,
        }
    }
}

/// Why the apiserver refuses to compile an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// cel-go's messages, without their place (`undefined field 'nme'`), or `typed string, not bool`.
    pub summary: String,
    /// The apiserver's words: `compilation failed: ERROR: <input>:1:27: …` with cel-go's snippet and
    /// caret, or `must evaluate to bool but got string`.
    pub apiserver: String,
}

/// Type-check `program`, parsed from `source` (the expression trimmed, as the apiserver compiles it).
pub(crate) fn check(program: &Program, source: &str) -> Result<(), Refusal> {
    let mut checker = Checker { info: program.source_info(), issues: Vec::new(), scopes: Vec::new() };
    let result = checker.check(program.expression());
    if !checker.issues.is_empty() {
        let mut issues = checker.issues;
        issues.sort_by_key(|i| i.offset);
        let shown: Vec<String> = issues.iter().map(|i| display(source, i)).collect();
        let messages: Vec<&str> = issues.iter().map(|i| i.message.as_str()).collect();
        return Err(Refusal {
            summary: messages.join("; "),
            apiserver: format!("compilation failed: {}", shown.join("\n")),
        });
    }
    match result {
        Ty::Bool | Ty::Unknown | Ty::Error => Ok(()),
        other => Err(Refusal {
            summary: format!("typed {}, not bool", other.name()),
            apiserver: format!("must evaluate to bool but got {}", other.name()),
        }),
    }
}

/// cel-go's `Error.ToDisplayString`: `ERROR: <input>:line:column: message`, then the line and a
/// caret under the column.
fn display(source: &str, issue: &Issue) -> String {
    let chars: Vec<char> = source.chars().collect();
    let offset = issue.offset.min(chars.len());
    let line_start = chars[..offset].iter().rposition(|c| *c == '\n').map_or(0, |p| p + 1);
    let line_number = chars[..offset].iter().filter(|c| **c == '\n').count() + 1;
    let column = offset - line_start;
    let line: String = chars[line_start..].iter().take_while(|c| **c != '\n').collect();
    let snippet = line.replace('\t', " ");
    let mut caret = String::new();
    for c in snippet.chars().take(column) {
        caret.push(if c.len_utf8() > 1 { '\u{FF0E}' } else { '.' });
    }
    caret.push(match snippet.chars().nth(column) {
        Some(c) if c.len_utf8() > 1 => '\u{FF3E}',
        _ => '^',
    });
    format!("ERROR: <input>:{line_number}:{}: {}\n | {snippet}\n | {caret}", column + 1, issue.message)
}
