//! What the library functions share: how a call is checked against the way cel-go declares it
//! (member or global), and the errors whose cel-go wording the suite does not reproduce, which an
//! expression reports as "cannot evaluate".

use cel::{ExecutionError, FunctionContext, Value};

/// What an evaluation error's message starts with when the suite does not reproduce cel-go's
/// wording of it (see [`unvouched`]).
const UNVOUCHED: &str = "[wording not reproduced] ";

/// An evaluation error whose wording in the apiserver the suite cannot vouch for: an expression
/// that errs so is reported as "cannot evaluate", never as an error verdict in the suite's words.
pub(crate) fn unvouched(function: &str, detail: impl std::fmt::Display) -> ExecutionError {
    ExecutionError::function_error(function, format!("{UNVOUCHED}{detail}"))
}

/// The function and detail of an [`unvouched`] error.
pub(crate) fn unvouched_detail(error: &ExecutionError) -> Option<(&str, &str)> {
    match error {
        ExecutionError::FunctionError { function, message } => {
            message.strip_prefix(UNVOUCHED).map(|detail| (function.as_str(), detail))
        }
        _ => None,
    }
}

/// The CEL types of the libraries registered here (`runtime_type_name` of their values).
const LIBRARY_TYPES: &[&str] = &["kubernetes.Quantity", "kubernetes.URL", "kubernetes.IP", "kubernetes.CIDR"];

/// Whether an error of the interpreter itself involves a value of a library type: an operator or
/// a standard function applied to it (`string(ip(…))`, `quantity('1') < quantity('2')`), which
/// cel-go either implements or refuses at compile time, in words the suite does not reproduce.
pub(crate) fn involves_library_type(error: &ExecutionError) -> bool {
    let shown = format!("{error:?}");
    LIBRARY_TYPES.iter().any(|t| shown.contains(t))
}

/// The receiver of a member call (`x.f()`), or an [`unvouched`] error when the function is called
/// as a global one (`f(x)`), which cel-go's type check refuses for a member overload.
pub(crate) fn receiver(ftx: &FunctionContext) -> Result<Value, ExecutionError> {
    match &ftx.this {
        Some(this) => Value::try_from(this.as_ref()),
        None => Err(unvouched(
            ftx.name,
            format!("{}() is declared as a member function, called here as a global one", ftx.name),
        )),
    }
}

/// An [`unvouched`] error unless the call is global (`f(x)`): cel-go's type check refuses a
/// member call (`x.f()`) of a function declared global only.
pub(crate) fn global(ftx: &FunctionContext) -> Result<(), ExecutionError> {
    match ftx.this {
        None => Ok(()),
        Some(_) => Err(unvouched(
            ftx.name,
            format!("{}() is declared as a global function, called here as a member", ftx.name),
        )),
    }
}

/// The evaluation the library modules' tests share.
#[cfg(test)]
pub(super) use self::tests::{assert_all, assert_unvouched, eval};

#[cfg(test)]
mod tests {
    use cel::{Context, ResolveResult, Value};

    /// `expression` evaluated with every library function registered.
    pub(in crate::conditions) fn eval(expression: &str) -> ResolveResult {
        let env = super::super::environment();
        let mut context = Context::with_env(env.clone());
        super::super::library::register(&mut context).unwrap();
        env.compile(expression).unwrap().execute(&context)
    }

    /// Each expression evaluates to `true`.
    pub(in crate::conditions) fn assert_all(cases: &[&str]) {
        for expression in cases {
            assert_eq!(eval(expression), Ok(Value::Bool(true)), "{expression}");
        }
    }

    /// The expression errs with an error whose cel-go wording is not reproduced.
    pub(in crate::conditions) fn assert_unvouched(expression: &str) {
        match eval(expression) {
            Err(e) => assert!(super::unvouched_detail(&e).is_some(), "{expression}: {e:?}"),
            other => panic!("{expression}: {other:?}"),
        }
    }
}
