//! The repository is self-contained: no Rust, TOML, shell or Python file of it (nor a script under
//! `.ci/`) names a relative path that leads outside the repository, such as a data file in a folder
//! next to the clone. A user's clone has nothing beside it.
//!
//! How: every path with a `..` segment is resolved from the directory it is relative to — the
//! crate's directory where the line names `CARGO_MANIFEST_DIR` and for other paths in Rust code
//! (`cargo test` and doc tests run there), the file's own directory for `include_str!`, `#[path]`,
//! `dirname "$0"`, `__file__`, TOML and scripts — and must stay inside the repository.

use std::path::{Path, PathBuf};

/// The repository's root: the parent of this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate is inside the repository").to_path_buf()
}

/// The files to look at, relative to `root`: sources, manifests and scripts, outside build output
/// (a directory holding `CACHEDIR.TAG`, as cargo's target directories do) and `.git`.
fn files(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let dir = root.join(rel);
    if rel.file_name().is_some_and(|n| n == ".git") || dir.join("CACHEDIR.TAG").exists() {
        return;
    }
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let rel = rel.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files(root, &rel, out);
        } else if kind.is_file() && is_checked(root, &rel) {
            out.push(rel);
        }
    }
}

fn is_checked(root: &Path, rel: &Path) -> bool {
    match rel.extension().and_then(|e| e.to_str()) {
        Some("rs" | "toml" | "sh" | "py") => true,
        // Scripts without an extension (`.ci/run`): a shebang line.
        None => std::fs::read(root.join(rel)).is_ok_and(|b| b.starts_with(b"#!")),
        _ => false,
    }
}

/// The directory of the crate `rel` belongs to (the nearest one with a Cargo.toml), relative to the
/// root; `None` outside any crate.
fn crate_dir(root: &Path, rel: &Path) -> Option<PathBuf> {
    rel.ancestors().skip(1).find(|d| root.join(d).join("Cargo.toml").is_file()).map(Path::to_path_buf)
}

/// Whether a character may be part of a path written in source.
fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '~')
}

/// Each path of `line` with a `..` segment, from its first `..` on: what comes before it (a
/// variable such as `$here`, a directory) is not taken to go deeper.
fn parent_paths(line: &str) -> Vec<&str> {
    line.split(|c: char| !path_char(c))
        .filter_map(|token| {
            let start = token.split('/').position(|s| s == "..")?;
            let skipped: usize = token.split('/').take(start).map(|s| s.len() + 1).sum();
            Some(&token[skipped..])
        })
        .collect()
}

/// `base` (relative to the root, as components) followed by `path`; `None` if it leaves the root.
fn resolve(base: &Path, path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = base.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s.to_string()),
        }
    }
    Some(parts)
}

/// The directory (relative to the root) a relative path on `line` of `file` is read from.
fn base_of(file: &Path, crate_dir: Option<&Path>, line: &str) -> PathBuf {
    let own_dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    let relative_to_file =
        ["include_str!", "include_bytes!", "include!", "#[path", "dirname", "__file__", "BASH_SOURCE"];
    if line.contains("CARGO_MANIFEST_DIR") {
        return crate_dir.map_or(own_dir, Path::to_path_buf);
    }
    if relative_to_file.iter().any(|m| line.contains(m)) || file.extension().is_none_or(|e| e != "rs") {
        return own_dir;
    }
    crate_dir.map_or(own_dir, Path::to_path_buf)
}

/// The paths of `text` (the content of `file`, relative to the root) that lead outside the root,
/// as `file:line: path`.
fn escapes(file: &Path, crate_dir: Option<&Path>, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let base = base_of(file, crate_dir, line);
        for path in parent_paths(line) {
            if resolve(&base, path).is_none() {
                found.push(format!("{}:{}: {path} (from {}/)", file.display(), n + 1, base.display()));
            }
        }
    }
    found
}

#[test]
fn no_file_reads_outside_the_repository() {
    let root = root();
    let mut list = Vec::new();
    files(&root, Path::new(""), &mut list);
    for expected in
        ["apiserver-jsonpatch/tests/vectors.rs", "Cargo.toml", "deploy/in-cluster/build-image.sh", ".ci/run"]
    {
        assert!(list.iter().any(|f| f == Path::new(expected)), "{expected} is not among the files looked at");
    }
    let mut found = Vec::new();
    for file in &list {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        found.extend(escapes(file, crate_dir(&root, file).as_deref(), &text));
    }
    assert!(
        found.is_empty(),
        "these paths lead outside the repository (a user's clone has nothing beside it; copy the data in):\n{}",
        found.join("\n")
    );
}

/// `template` with each `^` as `..`: the lines below would otherwise be found by the scan of this
/// very file.
fn up(template: &str) -> String {
    template.replace('^', "..")
}

#[test]
fn paths_are_resolved_from_where_they_are_read() {
    let crate_dir = Some(Path::new("apiserver-jsonpatch"));
    let test = Path::new("apiserver-jsonpatch/tests/vectors.rs");
    let found = |file: &Path, crate_dir: Option<&Path>, line: &str| escapes(file, crate_dir, &up(line)).len();
    // A data file next to the clone, through the crate's directory: outside.
    let shared = r#"const V: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/^/^/data/vectors/jsonpatch-v4.json");"#;
    assert_eq!(found(test, crate_dir, shared), 1);
    assert_eq!(found(test, crate_dir, r#"Path::new(env!("CARGO_MANIFEST_DIR")).join("^/^/data/x.json")"#), 1);
    // Runtime paths in Rust are relative to the crate (cargo test's working directory).
    assert_eq!(found(test, crate_dir, r#"std::fs::read("^/^/outside.json")"#), 1);
    // One level up from the crate is the root: inside.
    assert_eq!(found(test, crate_dir, r#"concat!(env!("CARGO_MANIFEST_DIR"), "/^/Cargo.lock")"#), 0);
    // include_str! is relative to the file: two levels up from tests/ is the root.
    assert_eq!(found(test, crate_dir, r#"include_str!("^/^/README.md")"#), 0);
    assert_eq!(found(test, crate_dir, r#"include_str!("^/^/^/README.md")"#), 1);
    // Scripts: relative to their directory; a variable before the `..` does not hide it.
    let script = Path::new("deploy/in-cluster/build-image.sh");
    assert_eq!(found(script, None, r#"root=$(cd "$here/^/^" && pwd)"#), 0);
    assert_eq!(found(script, None, r#"data=$(cd "$here/^/^/^/data" && pwd)"#), 1);
    assert_eq!(found(Path::new(".ci/run"), None, "cp ^/^/data/vectors/x ."), 1);
    assert_eq!(found(Path::new(".ci/run"), None, r#"cd "$(dirname "$0")/^""#), 0);
    // Ranges and other dots are not paths.
    assert_eq!(found(test, crate_dir, "for i in 0..n { v[..i].len(); }"), 0);
}
