//! The few Kubernetes CEL library functions the interpreter lacks, registered on every evaluation
//! context: `sets.contains`, `sets.equivalent`, `sets.intersects` (cel-go `ext/sets.go`), the regex
//! `find` and `findAll` (`k8s.io/apiserver/pkg/cel/library/regex.go`), and the list functions
//! `isSorted`, `sum`, `min`, `max` (`k8s.io/apiserver/pkg/cel/library/lists.go`).
//!
//! Ported from kube-cel 0.8 (kube-rs, <https://github.com/kube-rs/kube-cel>, Apache License 2.0:
//! `src/functions/sets.rs`, `regex_funcs.rs`, `lists.rs`), adapted to the `cel` 0.15 interpreter.
//! It also registers the libraries of their own modules (`quantity.rs`, `urls.rs`, `ip.rs`, `cidr.rs`), whose errors are
//! [`super::calls::unvouched`]. Every other function an expression calls that the interpreter does not know is an
//! undeclared reference, which the suite reports as "cannot evaluate" (never as true).

use std::cmp::Ordering;
use std::sync::Arc;

use cel::extractors::{Arguments, This};
use cel::{Context, ExecutionError, FunctionContext, ResolveResult, Value};

use super::{cidr, ip, quantity, urls};

/// Register the functions on `context`.
pub(crate) fn register(context: &mut Context<'_, '_>) -> Result<(), cel::DeclarationError> {
    quantity::register(context)?;
    urls::register(context)?;
    ip::register(context)?;
    cidr::register(context)?;
    context.add_function("ip", ip_or_address)?;
    context.add_function("sets.contains", sets_contains)?;
    context.add_function("sets.equivalent", sets_equivalent)?;
    context.add_function("sets.intersects", sets_intersects)?;
    context.add_function("find", find)?;
    context.add_function("findAll", find_all)?;
    context.add_function("isSorted", is_sorted)?;
    context.add_function("sum", sum)?;
    context.add_function("min", list_min)?;
    context.add_function("max", list_max)?;
    Ok(())
}

/// `ip(<string>)` (ip.go) and `<CIDR>.ip()` (cidr.go): one name in two libraries.
fn ip_or_address(ftx: &FunctionContext, Arguments(args): Arguments) -> ResolveResult {
    match ftx.this {
        Some(_) => cidr::address(ftx, &args),
        None => ip::ip(ftx, Arguments(args)),
    }
}

fn contains_all(a: &[Value], b: &[Value]) -> bool {
    b.iter().all(|item| a.iter().any(|x| x == item))
}

/// `sets.contains(list, list)`: the first list holds every element of the second.
fn sets_contains(a: Arc<Vec<Value>>, b: Arc<Vec<Value>>) -> ResolveResult {
    Ok(Value::Bool(contains_all(&a, &b)))
}

/// `sets.equivalent(list, list)`: both hold the same elements (duplicates and order aside).
fn sets_equivalent(a: Arc<Vec<Value>>, b: Arc<Vec<Value>>) -> ResolveResult {
    Ok(Value::Bool(contains_all(&a, &b) && contains_all(&b, &a)))
}

/// `sets.intersects(list, list)`: the lists share an element.
fn sets_intersects(a: Arc<Vec<Value>>, b: Arc<Vec<Value>>) -> ResolveResult {
    Ok(Value::Bool(a.iter().any(|x| b.iter().any(|y| x == y))))
}

fn regex(function: &str, pattern: &str) -> Result<regex::Regex, ExecutionError> {
    regex::Regex::new(pattern).map_err(|e| ExecutionError::function_error(function, format!("invalid regex: {e}")))
}

/// `<string>.find(<regex>)`: the first match, or "".
fn find(This(this): This<Arc<String>>, pattern: Arc<String>) -> ResolveResult {
    let re = regex("find", &pattern)?;
    Ok(Value::String(Arc::new(re.find(&this).map(|m| m.as_str().to_string()).unwrap_or_default())))
}

/// `<string>.findAll(<regex>[, <limit>])`: every match (at most `limit` when it is not negative).
fn find_all(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    let Some(Value::String(pattern)) = args.first() else {
        return Err(ExecutionError::function_error("findAll", "expected a regex string"));
    };
    let re = regex("findAll", pattern)?;
    let limit = match args.get(1) {
        None => usize::MAX,
        Some(Value::Int(n)) if *n < 0 => usize::MAX,
        Some(Value::Int(n)) => *n as usize,
        Some(_) => return Err(ExecutionError::function_error("findAll", "expected an int limit")),
    };
    let found = re.find_iter(&this).take(limit).map(|m| Value::String(Arc::new(m.as_str().to_string()))).collect();
    Ok(Value::List(Arc::new(found)))
}

fn compare(function: &str, a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    a.partial_cmp(b).ok_or_else(|| ExecutionError::function_error(function, "the elements cannot be compared"))
}

/// `<list>.isSorted()`.
fn is_sorted(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    for pair in this.windows(2) {
        if compare("isSorted", &pair[0], &pair[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// `<list>.sum()`: 0 for an empty list; the elements must be numbers of one type.
fn sum(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    let mut items = this.iter();
    let Some(first) = items.next() else { return Ok(Value::Int(0)) };
    items.try_fold(first.clone(), |acc, x| match (&acc, x) {
        (Value::Int(a), Value::Int(b)) => {
            a.checked_add(*b).map(Value::Int).ok_or_else(|| ExecutionError::function_error("sum", "int overflow"))
        }
        (Value::UInt(a), Value::UInt(b)) => {
            a.checked_add(*b).map(Value::UInt).ok_or_else(|| ExecutionError::function_error("sum", "uint overflow"))
        }
        (Value::Float(a), Value::Float(b)) => Ok(Value::Float(a + b)),
        _ => Err(ExecutionError::function_error("sum", "the elements are not numbers of one type")),
    })
}

fn extreme(function: &str, list: &[Value], keep: Ordering) -> ResolveResult {
    let mut items = list.iter();
    let Some(first) = items.next() else {
        return Err(ExecutionError::function_error(function, "the list is empty"));
    };
    let mut best = first;
    for x in items {
        if compare(function, x, best)? == keep {
            best = x;
        }
    }
    Ok(best.clone())
}

/// `<list>.min()`: an error for an empty list.
fn list_min(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    extreme("min", &this, Ordering::Less)
}

/// `<list>.max()`: an error for an empty list.
fn list_max(This(this): This<Arc<Vec<Value>>>) -> ResolveResult {
    extreme("max", &this, Ordering::Greater)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(expression: &str) -> ResolveResult {
        let env = super::super::environment();
        let mut context = Context::with_env(env.clone());
        register(&mut context).unwrap();
        env.compile(expression).unwrap().execute(&context)
    }

    #[test]
    fn ported_functions_give_what_the_kubernetes_libraries_give() {
        for (expression, expected) in [
            ("sets.contains([1, 2, 3], [1, 2])", true),
            ("sets.contains([1, 2, 3], [4])", false),
            ("sets.equivalent([1, 2, 2], [2, 1])", true),
            ("sets.equivalent([1], [1u, 1.0])", true),
            ("sets.intersects(['a', 'b'], ['b', 'c'])", true),
            ("sets.intersects([], [])", false),
            ("'hello world'.find('[a-z]+') == 'hello'", true),
            ("'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']", true),
            ("'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']", true),
            ("[1, 2, 3].isSorted()", true),
            ("['b', 'a'].isSorted()", false),
            ("[1, 2, 3].sum() == 6", true),
            ("[].sum() == 0", true),
            ("[3, 1, 2].min() == 1", true),
            ("[3, 1, 2].max() == 3", true),
        ] {
            assert_eq!(eval(expression), Ok(Value::Bool(expected)), "{expression}");
        }
        assert!(eval("[].min()").is_err());
        assert!(eval("'x'.find('(')").is_err());
    }
}
