//! The kube-rs webhook as a container image (`--image`): it reaches the suite's recording API from
//! the container, through the mounted kubeconfig and through the in-cluster service account, and
//! is judged on its writes. Needs a Docker engine (as the suite's image tests do); the image is
//! built locally from this test's binary with `docker import` (no base image, no pull).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use webhook_harness::lowlevel::{docker, wait_with_deadline};
use webhook_harness::{ImageSpec, Outcome, Suite};

const MANIFEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/python-webhook/webhook.yaml");
const DEADLINE: Duration = Duration::from_secs(300);

/// The libraries (and the loader) `ldd` lists for `bin`.
fn shared_libraries(bin: &Path) -> Vec<PathBuf> {
    let out = Command::new("ldd").arg(bin).output().expect("ldd runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let path = line.split_once("=>").map_or(line, |(_, rest)| rest).trim();
            let path = path.split(" (").next().unwrap_or("").trim();
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

/// An image of the kube-writer binary, tagged `tag`, its entrypoint listening on all interfaces.
fn build_image(tag: &str) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kube-writer"));
    let root = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        let dest = root.path().join(to.strip_prefix("/").unwrap_or(to));
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from, dest).unwrap();
    };
    copy(&bin, Path::new("/kube-writer"));
    for lib in shared_libraries(&bin) {
        copy(&lib, &lib);
    }
    let mut tar =
        Command::new("tar").arg("-C").arg(root.path()).args(["-cf", "-", "."]).stdout(Stdio::piped()).spawn().unwrap();
    let import = Command::new("docker")
        .args(["import", "--change", r#"ENTRYPOINT ["/kube-writer", "--host", "0.0.0.0"]"#, "-", tag])
        .stdin(tar.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("docker runs");
    let imported = wait_with_deadline(import, DEADLINE, "docker import").unwrap();
    wait_with_deadline(tar, DEADLINE, "tar").unwrap();
    assert!(imported.status.success(), "docker import: {}", String::from_utf8_lossy(&imported.stderr));
}

/// Removes the test's image at the end, also after a failed assertion.
struct Image(String);

impl Drop for Image {
    fn drop(&mut self) {
        let _ = docker(&["rmi", "--force", &self.0]);
    }
}

fn run(image: &str, env: &[(&str, &str)]) -> webhook_harness::Report {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("hook.yaml");
    let text = std::fs::read_to_string(MANIFEST).unwrap().replace("sideEffects: None", "sideEffects: NoneOnDryRun");
    std::fs::write(&manifest, text).unwrap();
    let mut spec = ImageSpec::new(image);
    spec.args = ["--cert", "{cert}", "--key", "{key}", "--port", "{port}"].map(String::from).to_vec();
    spec.env = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Suite::from_manifest_file(&manifest).unwrap().image(spec).run_blocking().unwrap()
}

#[test]
fn a_container_reaches_the_recording_api_by_kubeconfig_and_in_cluster() {
    docker(&["version", "--format", "{{.Server.Version}}"]).expect("these tests need a reachable Docker engine");
    let image = Image(format!("kube-writer-test:{}", std::process::id()));
    build_image(&image.0);
    // kube-rs reads the mounted $KUBECONFIG.
    let report = run(&image.0, &[]);
    let text = report.render_text();
    assert_eq!(report.outcome("side-effects.dry-run", None), Outcome::Fail, "{text}");
    assert!(text.contains("POST /api/v1/namespaces/default/configmaps → 201"), "{text}");
    // Without a kubeconfig, kube-rs falls back to the in-cluster service account.
    let report = run(&image.0, &[("KUBECONFIG", "/nonexistent")]);
    let text = report.render_text();
    assert_eq!(report.outcome("side-effects.dry-run", None), Outcome::Fail, "{text}");
    assert!(text.contains("POST /api/v1/namespaces/default/configmaps → 201"), "{text}");
}
