//! The code depends one way: in every crate of the workspace, no import cycle among its top-level
//! modules, nor among the submodules of one module. Test-only code (`tests.rs` files, `#[cfg(test)]`
//! items) is left out: tests may look anywhere.
//!
//! How: every `crate::…` and `super::…` path in a module's source is resolved to the module it names
//! (a crate-root re-export such as `crate::Error` to the module it re-exports), and the graph is
//! searched for cycles.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type ModPath = Vec<String>;

/// A module and the modules it refers to.
#[derive(Debug)]
struct Module {
    path: ModPath,
    refs: BTreeSet<ModPath>,
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `run/cases.rs` → `[run, cases]`; `run/mod.rs` → `[run]`; `lib.rs`/`main.rs` → `[]`.
fn module_path(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The source without comments (doc links are not imports) and without test-only code:
/// `#[cfg(test)]` items (a `mod tests { … }` runs to the end of the file by convention here; a
/// single-line item is dropped alone).
fn production_code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().filter(|l| !l.trim_start().starts_with("//"));
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            match lines.next() {
                Some(next) if next.trim_start().starts_with("mod tests") && next.trim_end().ends_with('{') => break,
                _ => continue,
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The paths after `prefix` (`crate::` or `super::`) in `code`, with `{a, b::c}` groups expanded.
fn paths_after(code: &str, prefix: &str) -> Vec<ModPath> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        out.extend(expand(rest));
    }
    out
}

/// The path (or group of paths) at the start of `text`.
fn expand(text: &str) -> Vec<ModPath> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map(|(i, _)| i)
                .unwrap_or(group.len());
            let mut items = Vec::new();
            let mut depth = 0;
            let mut start = 0;
            let inner = &group[..end];
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&inner[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            items.push(&inner[start..]);
            return items
                .into_iter()
                .map(str::trim)
                .filter(|i| !i.is_empty())
                .flat_map(|item| {
                    expand(item).into_iter().map(|tail| {
                        let mut p = segments.clone();
                        p.extend(tail);
                        p
                    })
                })
                .collect();
        }
        let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if word.is_empty() {
            break;
        }
        rest = &rest[word.len()..];
        segments.push(word);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if segments.is_empty() {
        Vec::new()
    } else {
        vec![segments]
    }
}

/// Every module of the crate whose sources are in `src`, with its references resolved to modules.
fn modules(src: &Path) -> Vec<Module> {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let mut texts = BTreeMap::new();
    for file in &files {
        let path = module_path(src, file);
        if path.last().is_some_and(|p| p == "tests" || p.ends_with("_tests")) {
            continue;
        }
        texts.insert(path, production_code(&std::fs::read_to_string(file).unwrap()));
    }
    let known: BTreeSet<ModPath> = texts.keys().cloned().collect();
    // Crate-root re-exports (`pub use verdict::{Finding, …}`): name → module.
    let mut root_names: BTreeMap<String, ModPath> = BTreeMap::new();
    if let Some(root) = texts.get(&Vec::new()) {
        for line_group in root.split("pub use ").skip(1) {
            for p in expand(line_group) {
                if let Some(name) = p.last() {
                    let module = longest_module(&known, &p);
                    if !module.is_empty() {
                        root_names.insert(name.clone(), module);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (path, code) in &texts {
        let mut refs = BTreeSet::new();
        for p in paths_after(code, "crate::") {
            let target = if known.contains(&vec![p[0].clone()]) {
                longest_module(&known, &p)
            } else {
                root_names.get(&p[0]).cloned().unwrap_or_default()
            };
            refs.insert(target);
        }
        // `super::` from `a/b.rs` (module [a, b]) is [a].
        let parent: ModPath = path[..path.len().saturating_sub(1)].to_vec();
        for p in paths_after(code, "super::") {
            let mut full = parent.clone();
            full.extend(p);
            refs.insert(longest_module(&known, &full));
        }
        refs.remove(path);
        out.push(Module { path: path.clone(), refs });
    }
    out
}

/// The longest prefix of `path` that is a module (the crate root when none is).
fn longest_module(known: &BTreeSet<ModPath>, path: &[String]) -> ModPath {
    (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| known.contains(p)).unwrap_or_default()
}

/// The cycles of a graph, as the strongly connected components with more than one node.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = edges.keys().collect();
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in edges.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        if !reachable[n].contains(*n) {
            continue;
        }
        let mut component: Vec<String> = nodes
            .iter()
            .filter(|m| reachable[n].contains(**m) && reachable[*m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        component.sort();
        if !out.contains(&component) {
            out.push(component);
        }
    }
    out
}

/// The import cycles of the crate in `src`: among its top-level modules, and among the submodules of
/// each module (references to the parent module itself do not count).
fn import_cycles(src: &Path) -> Vec<String> {
    let modules = modules(src);
    let mut problems = Vec::new();
    // Group by parent: within one parent, edges between its children (by the child each side is in).
    let parents: BTreeSet<ModPath> =
        modules.iter().flat_map(|m| (0..m.path.len()).map(|n| m.path[..n].to_vec())).collect();
    for parent in parents {
        let depth = parent.len();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for m in modules.iter().filter(|m| m.path.len() > depth && m.path[..depth] == parent[..]) {
            let from = m.path[depth].clone();
            edges.entry(from.clone()).or_default();
            for r in m.refs.iter().filter(|r| r.len() > depth && r[..depth] == parent[..]) {
                if r[depth] != from {
                    edges.entry(from.clone()).or_default().insert(r[depth].clone());
                }
            }
        }
        for cycle in cycles(&edges) {
            let at = if parent.is_empty() { "crate".to_string() } else { parent.join("::") };
            problems.push(format!("{} in {at}: {}", src.display(), cycle.join(" ↔ ")));
        }
    }
    problems
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The top-level modules that the top-level module `name` (and its submodules) refer to.
fn top_level_refs(modules: &[Module], name: &str) -> BTreeSet<String> {
    modules
        .iter()
        .filter(|m| m.path.first().is_some_and(|p| p == name))
        .flat_map(|m| m.refs.iter().filter_map(|r| r.first().cloned()))
        .filter(|r| r != name)
        .collect()
}

#[test]
fn no_import_cycle_in_any_crate() {
    let mut problems = Vec::new();
    for krate in ["harness", "suite", "reference-webhook", "apiserver-jsonpatch", "apiserver-validation"] {
        let src = workspace().join(krate).join("src");
        assert!(src.is_dir(), "{}", src.display());
        problems.extend(import_cycles(&src));
    }
    assert!(problems.is_empty(), "import cycles:\n{}", problems.join("\n"));
}

#[test]
fn the_flow_goes_from_target_to_report() {
    // The verdict types import nothing of the crate; the run never imports the report.
    let src = workspace().join("harness/src");
    let modules = modules(&src);
    let refs_of = |name: &str| top_level_refs(&modules, name);
    assert!(refs_of("verdict").is_empty(), "verdict imports {:?}", refs_of("verdict"));
    assert!(refs_of("admission").is_empty(), "admission imports {:?}", refs_of("admission"));
    // The whole verdicts layer imports nothing above it.
    let layer = ["verdict", "error", "admission", "text", "diff", "cancel"];
    for name in layer {
        let above: Vec<String> = refs_of(name).into_iter().filter(|r| !layer.contains(&r.as_str())).collect();
        assert!(above.is_empty(), "{name} imports {above:?}");
    }
    for (lower, upper) in [("run", "report"), ("checks", "run"), ("exchange", "checks"), ("client", "requests")] {
        assert!(!refs_of(lower).contains(upper), "{lower} imports {upper}");
    }
}

#[test]
fn nothing_below_imports_what_is_above_it() {
    // The layers of ARCHITECTURE.md's table, low to high.
    let layers: [&[&str]; 12] = [
        &["verdict", "error", "admission", "text", "diff", "cancel"],
        &["config", "conditions", "auth", "tls", "kinds", "quantity_fields"],
        &["client", "targets"],
        &["requests"],
        &["decoder"],
        &["exchange"],
        &["cases"],
        &["checks"],
        &["rules"],
        &["run"],
        &["report"],
        &["suite"],
    ];
    let rank = |name: &str| layers.iter().position(|l| l.contains(&name));
    let modules = modules(&workspace().join("harness/src"));
    let mut problems = Vec::new();
    for top in layers.iter().flat_map(|l| l.iter()) {
        let own = rank(top).unwrap();
        for r in top_level_refs(&modules, top) {
            if rank(&r).is_some_and(|theirs| theirs > own) {
                problems.push(format!("{top} imports {r}"));
            }
        }
    }
    assert!(problems.is_empty(), "a layer imports one above it:\n{}", problems.join("\n"));
}

#[test]
fn the_cli_depends_one_way() {
    // `commands` → `args` → `embedded`, nothing back.
    let src = workspace().join("suite/src");
    let modules = modules(&src);
    let refs_of = |name: &str| top_level_refs(&modules, name);
    assert!(refs_of("commands").contains("args"), "{:?}", refs_of("commands"));
    assert!(!refs_of("args").contains("commands"), "args imports commands");
    for upper in ["args", "commands"] {
        assert!(!refs_of("embedded").contains(upper), "embedded imports {upper}");
    }
}

#[test]
fn the_checker_finds_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("b")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\npub use c::Thing;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::x::f;\n").unwrap();
    std::fs::write(src.join("b/mod.rs"), "mod x;\nmod y;\n").unwrap();
    std::fs::write(src.join("b/x.rs"), "use super::y::g;\npub fn f() {}\n").unwrap();
    std::fs::write(src.join("b/y.rs"), "use crate::{a, c::{self, Other}};\npub fn g() {}\n").unwrap();
    std::fs::write(src.join("c.rs"), "pub struct Thing;\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n").unwrap();
    let problems = import_cycles(src);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].ends_with("in crate: a ↔ b"), "{problems:?}");
    // A cycle between siblings, and one through a crate-root re-export, are found too.
    std::fs::write(src.join("b/y.rs"), "use super::x::f;\n").unwrap();
    std::fs::write(src.join("c.rs"), "use crate::a;\npub struct Thing;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::Thing;\n").unwrap();
    let problems = import_cycles(src);
    assert!(problems.iter().any(|p| p.ends_with("in b: x ↔ y")), "{problems:?}");
    assert!(problems.iter().any(|p| p.ends_with("in crate: a ↔ c")), "{problems:?}");
    // Test-only code does not count.
    std::fs::write(src.join("c.rs"), "pub struct Thing;\n#[cfg(test)]\nuse crate::a;\n").unwrap();
    std::fs::write(src.join("b/y.rs"), "pub fn g() {}\n").unwrap();
    assert!(import_cycles(src).is_empty(), "{:?}", import_cycles(src));
}

/// The places in `code` where an `Outcome` variant is written as a value (not compared, nor
/// matched as a pattern): an outcome decided there.
fn outcomes_set(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let compared = line.contains("==") || line.contains("!=") || line.contains("matches!");
        for variant in ["Fail", "Warn", "Pass", "Skip"] {
            let name = format!("Outcome::{variant}");
            for (at, _) in line.match_indices(&name) {
                let after = line[at + name.len()..].trim_start();
                let pattern = after.starts_with("=>") || after.starts_with('|') || after.starts_with("if ");
                if !compared && !pattern {
                    out.push(line.trim().to_string());
                }
            }
        }
    }
    out
}

#[test]
fn an_outcome_is_decided_only_by_finding_judge() {
    // `Finding`'s outcome is private to `verdict.rs`: no other module builds a finding. And no
    // module that sends or judges writes an outcome of its own (a case, a property, the target):
    // every verdict is `Finding::judge` of a `Check`. The report only reads and shows outcomes.
    let src = workspace().join("harness/src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in files {
        let path = module_path(&src, &file);
        let first = path.first().map(String::as_str);
        if matches!(first, Some("verdict" | "report")) || path.last().is_some_and(|p| p == "tests") {
            continue;
        }
        let code = production_code(&std::fs::read_to_string(&file).unwrap());
        for line in outcomes_set(&code) {
            problems.push(format!("{}: {line}", file.strip_prefix(&src).unwrap().display()));
        }
        for (i, _) in code.match_indices("Finding {") {
            let before = code[..i].trim_end();
            let word = code[..i].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !word && !before.ends_with("struct") && !before.ends_with("for") && !before.ends_with("->") {
                problems.push(format!(
                    "{}: a Finding built outside verdict.rs",
                    file.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    let verdict = std::fs::read_to_string(src.join("verdict.rs")).unwrap();
    if !verdict.contains("\n    outcome: Outcome,") {
        problems.push("verdict.rs: Finding's outcome field is not private".into());
    }
    assert!(problems.is_empty(), "outcomes decided outside Finding::judge:\n{}", problems.join("\n"));
}

#[test]
fn the_outcome_scan_finds_a_decision() {
    // The shapes the scan must catch: an outcome passed, returned or assigned.
    for decided in [
        "finding(GOLDEN, Outcome::Fail, Some(d))",
        "Severity::Fail => Outcome::Fail,",
        "return Ok(record(Outcome::Skip, 0, None, None));",
        "    outcome: Outcome::Pass,",
    ] {
        assert_eq!(outcomes_set(decided).len(), 1, "{decided}");
    }
    // And leave alone what only reads one.
    for read in [
        "if f.outcome() == Outcome::Fail {",
        ".filter(|f| matches!(f.outcome(), Outcome::Fail | Outcome::Warn))",
        "Outcome::Fail => \"FAIL\",",
        "Outcome::Warn | Outcome::Fail => true,",
    ] {
        assert!(outcomes_set(read).is_empty(), "{read}");
    }
}

#[test]
fn the_json_renderers_read_only_the_json_report() {
    // Markdown, annotations, SARIF and the merge render the JSON report read back, never the run.
    let src = workspace().join("harness/src");
    let mut seen = 0;
    for m in modules(&src) {
        let [report, name] = m.path.as_slice() else { continue };
        if report != "report" || !["markdown", "annotations", "sarif", "merge", "document"].contains(&name.as_str()) {
            continue;
        }
        let run: Vec<_> = m.refs.iter().filter(|r| r.first().is_some_and(|p| p == "run" || p == "exchange")).collect();
        assert!(run.is_empty(), "report::{name} reads the run: {run:?}");
        seen += 1;
    }
    assert_eq!(seen, 5, "every renderer of the JSON report is checked");
}
