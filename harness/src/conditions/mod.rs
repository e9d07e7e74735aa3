//! matchConditions, evaluated as the apiserver evaluates them (`admission/plugin/webhook/
//! matchconditions/matcher.go`, `admission/plugin/cel/filter.go`): every condition is a CEL
//! expression over `object`, `oldObject`, `request` and `authorizer`; a webhook is called only when
//! every condition is true. A false one skips it (even when others errored); errors without a false
//! follow the failurePolicy: `Fail` rejects the API request without calling the webhook, `Ignore`
//! skips the webhook (`generic/webhook.go` ShouldCallHook).
//!
//! The interpreter is the `cel` crate. It has no type checker: `typecheck.rs` runs the apiserver's
//! (a field `request` does not declare, an operator applied to types it has no overload for, a
//! result not typed bool refuse the configuration), a result that is not a bool at run time is an
//! error here, and an identifier that is none of the four variables is reported as the apiserver
//! reports it, a compile error. What the interpreter cannot evaluate (syntax it does not parse,
//! `cel.bind`, two-variable comprehensions, functions of the Kubernetes libraries beyond those
//! `library.rs` registers, an error of those libraries whose cel-go wording the suite does not
//! reproduce, an authorization check when the authorizer is not described) is
//! [`Outcome::Unevaluable`], and a request it decides is not taken as matching: it is reported per
//! webhook. The apiserver's cost limits are not applied.

mod authorizer;
mod calls;
mod cidr;
mod ip;
mod library;
mod quantity;
mod typecheck;
mod urls;
pub mod validation_rules;
mod value;

pub use authorizer::{Attributes, Authorizer, Grant, Policy, PolicyError, PolicyRule};
pub use typecheck::Refusal;

use std::sync::{Arc, OnceLock};

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::{Context, Env, ExecutionError, Program, Value};

use crate::admission::{AdmissionRequest, GroupVersionResource};

/// The CEL environment: the standard library and the strings extension.
pub(crate) fn environment() -> Arc<Env> {
    static ENV: OnceLock<Arc<Env>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        env.add_extension(cel::extensions::strings).expect("the strings extension declares no conflicting function");
        Arc::new(env)
    })
    .clone()
}

/// The variables a matchCondition may use (and the type names CEL itself declares).
const DECLARED: &[&str] = &[
    "object",
    "oldObject",
    "request",
    "authorizer",
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "dyn",
];

/// Macros whose two-variable form (Kubernetes 1.32+) the interpreter does not know.
const COMPREHENSIONS: &[&str] = &["all", "exists", "exists_one", "existsOne", "map", "filter"];

/// Why the suite cannot evaluate a matchCondition.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Unevaluable {
    /// The CEL interpreter does not parse it.
    #[error("the suite's CEL interpreter cannot parse it: {0}")]
    Parse(#[source] cel::ParseErrors),
    /// It uses a construct the CEL interpreter does not support (named).
    #[error("it uses {0}, which the suite's CEL interpreter does not support")]
    Unsupported(String),
    /// The apiserver's type check refuses it.
    #[error("the apiserver refuses to compile it: {}", .0.apiserver)]
    Refused(Refusal),
}

/// One matchCondition, compiled.
#[derive(Debug)]
pub struct Condition {
    /// Its name.
    pub name: String,
    /// Its expression, as written.
    pub expression: String,
    program: Result<Program, Unevaluable>,
    /// Identifiers the expression uses that no matchCondition declares (the apiserver refuses it).
    pub undeclared: Vec<String>,
    /// The string literals of the expression (values requests can be steered to).
    pub literals: Vec<String>,
    /// Why the apiserver refuses to compile it (its type check), in the apiserver's words.
    pub refused: Option<Refusal>,
}

impl Condition {
    fn compile(name: &str, expression: &str) -> Condition {
        let env = environment();
        // The apiserver compiles the expression trimmed (validateMatchCondition): columns count from there.
        let trimmed = expression.trim();
        let mut refused = None;
        let (program, undeclared, literals) = match env.compile(trimmed) {
            Err(e) => (Err(Unevaluable::Parse(e)), Vec::new(), Vec::new()),
            Ok(program) => {
                let mut walk = Walk::default();
                walk.visit(program.expression(), &mut Vec::new());
                match walk.unsupported {
                    // The construct binds names of its own: which identifiers are unbound is unknown.
                    Some(what) => (Err(Unevaluable::Unsupported(what)), Vec::new(), walk.literals),
                    None if !walk.undeclared.is_empty() => (Ok(program), walk.undeclared, walk.literals),
                    None => match typecheck::check(&program, trimmed) {
                        Ok(()) => (Ok(program), walk.undeclared, walk.literals),
                        Err(why) => {
                            refused = Some(why.clone());
                            (Err(Unevaluable::Refused(why)), walk.undeclared, walk.literals)
                        }
                    },
                }
            }
        };
        Condition { name: name.to_string(), expression: expression.to_string(), program, undeclared, literals, refused }
    }

    /// Why the suite cannot evaluate this condition at all, if it cannot.
    pub fn unevaluable(&self) -> Option<&Unevaluable> {
        self.program.as_ref().err()
    }
}

/// What one condition gave for one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `true`.
    True,
    /// `false`: the webhook is not called.
    False,
    /// An evaluation error, in the apiserver's words.
    Error(String),
    /// A value that is not a bool: the apiserver only accepts expressions typed bool.
    NotBool(String),
    /// The suite cannot evaluate it (why).
    Unevaluable(String),
}

/// Whether the apiserver calls the webhook for a request, by its matchConditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// Every condition is true (or there are none): the webhook is called.
    Call,
    /// The named condition is false: the webhook is not called.
    Skip(String),
    /// Conditions errored and none is false, under failurePolicy Fail: the apiserver rejects the
    /// request without calling the webhook. (condition, error) pairs.
    Reject(Vec<(String, String)>),
    /// Conditions errored and none is false, under failurePolicy Ignore: the webhook is skipped.
    Ignore(Vec<(String, String)>),
    /// None is false, but the suite cannot evaluate some: whether the webhook is called is unknown
    /// (it is not called by the suite). (condition, why) pairs.
    Unknown(Vec<(String, String)>),
}

impl Dispatch {
    /// True when the webhook is called.
    pub fn calls(&self) -> bool {
        *self == Dispatch::Call
    }
}

/// A webhook's matchConditions, compiled, with the authorizer its checks are answered by.
#[derive(Clone, Debug, Default)]
pub struct MatchConditions {
    conditions: Arc<Vec<Condition>>,
    authorizer: Authorizer,
    /// failurePolicy Fail (the v1 default) rather than Ignore.
    fail_closed: bool,
}

impl MatchConditions {
    /// Compile `conditions` (as the manifest writes them: `{name, expression}`) for a webhook whose
    /// failurePolicy is `failure_policy` (`None` is Fail).
    pub fn compile(conditions: &[serde_json::Value], failure_policy: Option<&str>) -> MatchConditions {
        let text =
            |c: &serde_json::Value, k: &str| c.get(k).and_then(serde_json::Value::as_str).unwrap_or("").to_string();
        let compiled =
            conditions.iter().map(|c| Condition::compile(&text(c, "name"), &text(c, "expression"))).collect();
        MatchConditions {
            conditions: Arc::new(compiled),
            authorizer: Authorizer::Unknown,
            fail_closed: failure_policy != Some("Ignore"),
        }
    }

    /// The same conditions, answering authorization checks with `authorizer`.
    pub fn with_authorizer(&self, authorizer: Authorizer) -> MatchConditions {
        MatchConditions { authorizer, ..self.clone() }
    }

    /// The authorizer checks are answered by.
    pub fn authorizer(&self) -> &Authorizer {
        &self.authorizer
    }

    /// True when there are no conditions.
    pub fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }

    /// The conditions, in manifest order.
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// True when the failurePolicy is Fail.
    pub fn fail_closed(&self) -> bool {
        self.fail_closed
    }

    /// Every condition's outcome on `request` (its object and oldObject as sent).
    pub fn evaluate(&self, request: &AdmissionRequest) -> Vec<Outcome> {
        if self.conditions.is_empty() {
            return Vec::new();
        }
        let context = match self.context(request) {
            Ok(c) => c,
            Err(e) => {
                let why = format!("the suite could not set up the CEL evaluation: {e}");
                return self.conditions.iter().map(|_| Outcome::Unevaluable(why.clone())).collect();
            }
        };
        self.conditions
            .iter()
            .map(|c| match &c.program {
                Err(why) => Outcome::Unevaluable(why.to_string()),
                Ok(program) => match program.execute(&context) {
                    Ok(Value::Bool(true)) => Outcome::True,
                    Ok(Value::Bool(false)) => Outcome::False,
                    Ok(other) => Outcome::NotBool(format!(
                        "expression '{}' evaluates to {other:?}, not a bool (the apiserver accepts only expressions typed bool)",
                        c.expression
                    )),
                    Err(e) => classify(&c.expression, e),
                },
            })
            .collect()
    }

    /// Whether the apiserver calls the webhook for `request`.
    pub fn decide(&self, request: &AdmissionRequest) -> Dispatch {
        if self.conditions.is_empty() {
            return Dispatch::Call;
        }
        self.combine(&self.evaluate(request))
    }

    /// The decision the outcomes of [`evaluate`](Self::evaluate) come to, as the apiserver's
    /// matcher reaches it.
    pub fn combine(&self, outcomes: &[Outcome]) -> Dispatch {
        let named = |o: &Outcome| -> Option<String> {
            match o {
                Outcome::Error(e) | Outcome::NotBool(e) => Some(e.clone()),
                _ => None,
            }
        };
        let mut errors = Vec::new();
        let mut unknown = Vec::new();
        for (c, o) in self.conditions.iter().zip(outcomes) {
            match o {
                Outcome::False => return Dispatch::Skip(c.name.clone()),
                Outcome::Unevaluable(why) => unknown.push((c.name.clone(), why.clone())),
                _ => {
                    if let Some(e) = named(o) {
                        errors.push((c.name.clone(), e));
                    }
                }
            }
        }
        if !unknown.is_empty() {
            Dispatch::Unknown(unknown)
        } else if errors.is_empty() {
            Dispatch::Call
        } else if self.fail_closed {
            Dispatch::Reject(errors)
        } else {
            Dispatch::Ignore(errors)
        }
    }

    fn context(&self, request: &AdmissionRequest) -> Result<Context<'static, 'static>, cel::DeclarationError> {
        let mut context = Context::with_env(environment());
        context.add_variable_from_value("object", value::to_cel(&request.object));
        context.add_variable_from_value("oldObject", value::to_cel(&request.old_object));
        context.add_variable_from_value("request", value::to_cel(&request_variable(request)));
        let user = &request.user_info;
        let resource = [
            request.resource.group.as_str(),
            request.resource.resource.as_str(),
            request.sub_resource.as_deref().unwrap_or(""),
            request.namespace.as_deref().unwrap_or(""),
            request.name.as_deref().unwrap_or(""),
        ];
        context.add_variable_from_value("authorizer", authorizer::variable(&user.username, &user.groups, resource));
        library::register(&mut context)?;
        authorizer::register(&mut context, &self.authorizer)?;
        Ok(context)
    }
}

/// What the apiserver answers the API client when matchConditions errored under failurePolicy Fail:
/// `pods "demo" is forbidden: …` (`generic/webhook.go` ShouldCallHook: NewForbidden with the
/// aggregated errors).
pub fn rejection(resource: &GroupVersionResource, name: &str, errors: &[(String, String)]) -> String {
    let group_resource = if resource.group.is_empty() {
        resource.resource.clone()
    } else {
        format!("{}.{}", resource.resource, resource.group)
    };
    let messages: Vec<&str> = errors.iter().map(|(_, e)| e.as_str()).collect();
    let error = if messages.len() == 1 { messages[0].to_string() } else { format!("[{}]", messages.join(", ")) };
    format!("{group_resource} {name:?} is forbidden: {error}")
}

/// The `request` variable: the AdmissionRequest as the apiserver converts it to unstructured
/// (`CreateAdmissionRequest`): no uid, no object or oldObject, empty fields left out.
fn request_variable(request: &AdmissionRequest) -> serde_json::Value {
    let mut value = serde_json::to_value(request).expect("an AdmissionRequest serializes");
    if let Some(fields) = value.as_object_mut() {
        fields.insert("uid".into(), serde_json::Value::String(String::new()));
        fields.insert("object".into(), serde_json::Value::Null);
        fields.insert("oldObject".into(), serde_json::Value::Null);
    }
    value
}

fn classify(expression: &str, error: ExecutionError) -> Outcome {
    if let Some((function, detail)) = calls::unvouched_detail(&error) {
        return Outcome::Unevaluable(format!(
            "{function}() errs in the suite's CEL interpreter ({detail}); the suite does not reproduce cel-go's wording of this error"
        ));
    }
    if calls::involves_library_type(&error) {
        return Outcome::Unevaluable(format!(
            "the suite's CEL interpreter does not apply this to a value of a Kubernetes CEL library ({error})"
        ));
    }
    match &error {
        ExecutionError::UndeclaredReference(name) => Outcome::Unevaluable(format!(
            "the suite's CEL interpreter does not know {name:?} (a function of a Kubernetes CEL library it lacks?)"
        )),
        ExecutionError::FunctionError { message, .. } if message == authorizer::UNKNOWN => {
            Outcome::Unevaluable(format!("it asks the authorizer, and {}", authorizer::UNKNOWN))
        }
        _ => Outcome::Error(format!("expression '{expression}' resulted in error: {error}")),
    }
}

/// What the compiled expression holds: identifiers it uses unbound, string literals, and a
/// construct the interpreter does not support.
#[derive(Default)]
struct Walk {
    undeclared: Vec<String>,
    literals: Vec<String>,
    unsupported: Option<String>,
}

impl Walk {
    fn visit(&mut self, e: &IdedExpr, bound: &mut Vec<String>) {
        match &e.expr {
            Expr::Ident(name) => {
                if !name.starts_with('@')
                    && !bound.contains(name)
                    && !DECLARED.contains(&name.as_str())
                    && !self.undeclared.contains(name)
                {
                    self.undeclared.push(name.clone());
                }
            }
            Expr::Literal(LiteralValue::String(s)) => {
                let s = s.inner().to_string();
                if !self.literals.contains(&s) {
                    self.literals.push(s);
                }
            }
            Expr::Literal(_) | Expr::Unspecified => {}
            Expr::Call(call) => {
                if let Some(target) = &call.target {
                    match &target.expr {
                        // `cel.bind(…)`: a macro of cel-go the interpreter lacks.
                        Expr::Ident(ns) if ns == "cel" => {
                            self.unsupported.get_or_insert_with(|| format!("cel.{}", call.func_name));
                        }
                        // `sets.contains(…)`, `strings.quote(…)`: a namespace, not a variable.
                        Expr::Ident(_) => {}
                        _ => self.visit(target, bound),
                    }
                }
                if COMPREHENSIONS.contains(&call.func_name.as_str())
                    && call.args.len() == 3
                    && matches!(call.args[0].expr, Expr::Ident(_))
                    && matches!(call.args[1].expr, Expr::Ident(_))
                {
                    self.unsupported
                        .get_or_insert_with(|| format!("the two-variable comprehension {}(i, v, …)", call.func_name));
                }
                for arg in &call.args {
                    self.visit(arg, bound);
                }
            }
            Expr::Comprehension(c) => {
                self.visit(&c.iter_range, bound);
                self.visit(&c.accu_init, bound);
                let before = bound.len();
                bound.push(c.iter_var.clone());
                bound.extend(c.iter_var2.clone());
                bound.push(c.accu_var.clone());
                self.visit(&c.loop_cond, bound);
                self.visit(&c.loop_step, bound);
                self.visit(&c.result, bound);
                bound.truncate(before);
            }
            Expr::List(list) => list.elements.iter().for_each(|x| self.visit(x, bound)),
            Expr::Map(m) => {
                for entry in &m.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(kv) => {
                            self.visit(&kv.key, bound);
                            self.visit(&kv.value, bound);
                        }
                        EntryExpr::StructField(f) => self.visit(&f.value, bound),
                    }
                }
            }
            Expr::Select(s) => self.visit(&s.operand, bound),
            Expr::Struct(s) => {
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        self.visit(&f.value, bound);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
