//! Test support: a container image of the bundled reference webhook, built locally once per test
//! run (no registry needed).
//!
//! The image holds the `webhook-conformance` binary this test run was built with, the shared
//! libraries `ldd` lists for it and the dynamic loader, imported with `docker import` (no base
//! image, no pull, no BuildKit). Its entrypoint is
//! `/webhook-conformance reference-webhook --host 0.0.0.0`; the certificate, key and port come from
//! `WEBHOOK_TLS_CERT`, `WEBHOOK_TLS_KEY` and `WEBHOOK_PORT`, which the harness sets. The tag is
//! derived from the binary's path, size and mtime, so an unchanged binary reuses the image; older
//! tags of the same repository are removed when a new one is built.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use webhook_harness::lowlevel::ProcessError;

pub const REPOSITORY: &str = "webhook-conformance-reference";
const IMAGE_LABEL: &str = "webhook-conformance.test-image";
const DEADLINE: Duration = Duration::from_secs(300);

/// The binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_webhook-conformance"))
}

/// The tag of the reference image, built on first use. Panics with a clear message when Docker is
/// not reachable or the image cannot be built: these tests need a Docker engine.
pub fn reference_image() -> String {
    static IMAGE: OnceLock<Result<String, String>> = OnceLock::new();
    match IMAGE.get_or_init(build) {
        Ok(tag) => tag.clone(),
        Err(e) => panic!("the image tests need a reachable Docker engine and a locally built reference image: {e}"),
    }
}

fn build() -> Result<String, String> {
    docker(&["version", "--format", "{{.Server.Version}}"]).map_err(|e| format!("Docker is not reachable: {e}"))?;
    let bin = binary();
    let meta = std::fs::metadata(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bin.hash(&mut hasher);
    meta.len().hash(&mut hasher);
    meta.modified().ok().hash(&mut hasher);
    let tag = format!("{REPOSITORY}:{:016x}", hasher.finish());
    if docker(&["image", "inspect", "--format", "{{.Id}}", &tag]).is_ok() {
        return Ok(tag);
    }

    let context = tempfile::Builder::new().prefix("webhook-conformance-image-").tempdir().map_err(|e| e.to_string())?;
    let root = context.path();
    copy_into(root, &bin, Path::new("/webhook-conformance"))?;
    for lib in shared_libraries(&bin)? {
        copy_into(root, &lib, &lib)?;
    }
    let mut tar = Command::new("tar")
        .arg("-C")
        .arg(root)
        .args(["-cf", "-", "."])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running tar: {e}"))?;
    let import = Command::new("docker")
        .args([
            "import",
            "--change",
            r#"ENTRYPOINT ["/webhook-conformance", "reference-webhook", "--host", "0.0.0.0"]"#,
            "--change",
            "EXPOSE 8443",
            "--change",
            &format!("LABEL {IMAGE_LABEL}=1"),
            "-",
            &tag,
        ])
        .stdin(tar.stdout.take().expect("piped"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running docker import: {e}"))?;
    let imported = wait(import, "docker import").map_err(|e| e.to_string())?;
    let tarred = wait(tar, "tar").map_err(|e| e.to_string())?;
    if !tarred.status.success() {
        return Err(format!("tar failed: {}", String::from_utf8_lossy(&tarred.stderr)));
    }
    if !imported.status.success() {
        return Err(format!("docker import failed: {}", String::from_utf8_lossy(&imported.stderr)));
    }
    // Tags of older binaries are of no further use.
    if let Ok(list) =
        docker(&["images", "--filter", &format!("label={IMAGE_LABEL}"), "--format", "{{.Repository}}:{{.Tag}}"])
    {
        for old in list.lines().map(str::trim).filter(|t| t.starts_with(REPOSITORY) && *t != tag) {
            let _ = docker(&["rmi", old]);
        }
    }
    Ok(tag)
}

/// Copy `from` to `root` + `to` (following symlinks, keeping the mode).
fn copy_into(root: &Path, from: &Path, to: &Path) -> Result<(), String> {
    let dest = root.join(to.strip_prefix("/").unwrap_or(to));
    std::fs::create_dir_all(dest.parent().expect("has a parent")).map_err(|e| e.to_string())?;
    std::fs::copy(from, &dest).map_err(|e| format!("copying {} into the image: {e}", from.display()))?;
    Ok(())
}

/// The libraries (and the loader) `ldd` lists for `bin`.
fn shared_libraries(bin: &Path) -> Result<Vec<PathBuf>, String> {
    let out = Command::new("ldd").arg(bin).output().map_err(|e| format!("running ldd: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        // A static binary needs nothing else.
        return if text.contains("not a dynamic executable")
            || String::from_utf8_lossy(&out.stderr).contains("not a dynamic executable")
        {
            Ok(Vec::new())
        } else {
            Err(format!("ldd {} failed: {}", bin.display(), String::from_utf8_lossy(&out.stderr)))
        };
    }
    Ok(text
        .lines()
        .filter_map(|line| {
            let path = match line.split_once("=>") {
                Some((_, rest)) => rest.trim(),
                None => line.trim(),
            };
            let path = path.split(" (").next().unwrap_or("").trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect())
}

/// Wait for `child` with a deadline, collecting its output.
fn wait(child: std::process::Child, what: &str) -> Result<std::process::Output, ProcessError> {
    webhook_harness::lowlevel::wait_with_deadline(child, DEADLINE, what)
}

/// `docker ARGS`: stdout, or why it failed (with the harness's deadline).
pub fn docker(args: &[&str]) -> Result<String, ProcessError> {
    webhook_harness::lowlevel::docker(args)
}

/// A label value unique to one test of this run.
pub fn unique_label(test: &str) -> (String, String) {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    ("webhook-conformance.test".to_string(), format!("{test}-{}-{nanos}-{n}", std::process::id()))
}

/// Containers (running or stopped) carrying `name=value`.
pub fn containers_labelled(label: &(String, String)) -> Vec<String> {
    let out = docker(&["ps", "--all", "--quiet", "--filter", &format!("label={}={}", label.0, label.1)])
        .unwrap_or_else(|e| panic!("listing containers: {e}"));
    out.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}
