//! The bundled reference webhook: its manifest, cases and snapshots, and the webhook itself as an
//! in-process target served with the run's TLS.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reference_webhook::{Defect, Options, Style};
use webhook_harness::{Manifest, Served, ServingTls, Target};

/// The reference webhook's own manifest.
pub fn reference_manifest() -> Manifest {
    Manifest::parse(Path::new("<bundled reference manifest>"), reference_webhook::MANIFEST)
        .expect("the bundled manifest is valid")
}

/// The repository's own `cases/` directory (the built-in cases of the bundled reference webhook).
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("cases")
}

/// The repository's own `golden/` directory.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).join("golden")
}

/// CPU time spent by the threads of the bundled reference webhook that have stopped, in
/// nanoseconds: it runs on a runtime of its own, whose threads add their own CPU time here when
/// they stop (at the end of the run), so that the suite's own CPU can be told from the webhook's.
static WEBHOOK_CPU_NANOS: AtomicU64 = AtomicU64::new(0);

/// CPU time the bundled reference webhook's threads have used in this process (those of runs that
/// have ended: its threads count theirs when they stop).
pub fn webhook_cpu() -> Duration {
    Duration::from_nanos(WEBHOOK_CPU_NANOS.load(Ordering::Relaxed))
}

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the struct it is given.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// The reference webhook serving on a runtime of its own; dropping it stops the server, then the
/// runtime (its threads count their CPU time in [`webhook_cpu`] as they stop).
struct OwnRuntime {
    running: Option<reference_webhook::RunningWebhook>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        drop(self.running.take());
        if let Some(runtime) = self.runtime.take() {
            // A runtime cannot be shut down from inside another's tasks: a thread of its own does,
            // waiting at most a few seconds for the webhook's threads to stop.
            let stopping = std::thread::spawn(move || runtime.shutdown_timeout(Duration::from_secs(3)));
            let _ = stopping.join();
        }
    }
}

/// The reference webhook (with `defect`, if any, writing its mutations in `style`) as a target. It
/// runs on threads of its own (a runtime of its own), whose CPU time [`webhook_cpu`] gives.
pub fn target(defect: Option<Defect>, style: Style) -> Target {
    let description = match defect {
        Some(d) => format!("bundled reference webhook with defect {d}"),
        None => "bundled reference webhook".to_string(),
    };
    Target::in_process(description, move |tls: ServingTls| async move {
        let server_tls = reference_webhook::server_tls_config(tls.cert_pem.as_bytes(), tls.key_pem.as_bytes())
            .map_err(|e| format!("{e:#}"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("reference-webhook")
            .on_thread_stop(|| {
                let spent = u64::try_from(thread_cpu().as_nanos()).unwrap_or(u64::MAX);
                WEBHOOK_CPU_NANOS.fetch_add(spent, Ordering::Relaxed);
            })
            .build()
            .map_err(|e| format!("a runtime for the bundled reference webhook: {e}"))?;
        let started = runtime.spawn(reference_webhook::spawn_styled(server_tls, Options { defect }, style));
        let mut guard = OwnRuntime { running: None, runtime: Some(runtime) };
        let running = started
            .await
            .map_err(|e| format!("starting the bundled reference webhook: {e}"))?
            .map_err(|e| format!("starting the bundled reference webhook: {e:#}"))?;
        let addr = running.addr;
        guard.running = Some(running);
        Ok(Served { addr, guard: Box::new(guard) })
    })
}
