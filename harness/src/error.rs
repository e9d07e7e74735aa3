//! The crate's one error type: what went wrong before or around a run, in a way the caller can act
//! on. Breaches of the webhook protocol are never errors: they are findings in the report.
//!
//! This module imports nothing of the crate.

use std::fmt;
use std::path::PathBuf;

/// Something the suite could not do. Every variant is the caller's to fix (bad input, an unreachable
/// target, a missing tool), so a CLI exits 2 on any of them ([`Error::EXIT_CODE`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The webhook configuration manifest cannot be used.
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    /// A CustomResourceDefinition file (`--crd`) cannot be used.
    #[error("CustomResourceDefinition {0}")]
    Crd(ManifestError),
    /// A case file cannot be used.
    #[error("case file {0}")]
    Case(#[from] CaseError),
    /// The target given cannot be used as given (a URL that does not parse or answer, a CA that is
    /// not PEM, a command that cannot be spawned, an image that is not on the Docker engine, …).
    #[error("{what}: {source}")]
    Target {
        /// Which input: `--url "https://…"`, `--cmd`, `--image NAME`, …
        what: String,
        /// What is wrong with it.
        #[source]
        source: TargetError,
    },
    /// A file describing the cluster cannot be used (an authorizer description, credentials, an
    /// AdmissionConfiguration or its kubeconfig, …).
    #[error("{what}: {source}")]
    Input {
        /// Which input: `--authorizer FILE`, `--admission-config FILE`, …
        what: String,
        /// What is wrong with it.
        #[source]
        source: InputError,
    },
    /// An option of the run is invalid (a zero budget, an unknown property, …).
    #[error("{0}")]
    Option(#[from] OptionError),
    /// A file the caller asked for could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A certificate or key could not be made, read or trusted.
    #[error("{}", joined(what, source.as_deref()))]
    Tls {
        /// What could not be done (empty when the cause says it all).
        what: String,
        /// Why, when an error says it.
        #[source]
        source: Option<Cause>,
    },
    /// Something the suite needs from the machine failed (a TLS key, a runtime, a free port).
    #[error("{}", joined(what, source.as_deref()))]
    Setup {
        /// What could not be done (empty when the cause says it all).
        what: String,
        /// Why, when an error says it.
        #[source]
        source: Option<Cause>,
    },
    /// A JSON report cannot be read back or merged (`at`: the file it was read from).
    #[error("{}{source}", at.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
    Report {
        /// The report's file, when it was read from one.
        at: Option<PathBuf>,
        /// What is wrong with it.
        #[source]
        source: ReportError,
    },
    /// The run was cancelled (see `Cancel`) before it finished; its target was stopped.
    #[error("the run was interrupted")]
    Interrupted,
}

/// Why JSON reports cannot be read back or merged into one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The file is not JSON.
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The JSON is not a report of this suite.
    #[error("not a webhook-conformance JSON report (no \"verdict\")")]
    NotAReport,
    /// One of the reports to merge is not a report of this suite.
    #[error("{name}: not a webhook-conformance JSON report (no \"verdict\")")]
    NotAReportNamed {
        /// The report's name (its file).
        name: String,
    },
    /// A field of the report does not have the layout this version reads.
    #[error("{0}")]
    Layout(#[source] serde_json::Error),
    /// Nothing to merge.
    #[error("no reports to merge")]
    NoReports,
    /// Shards mixed with a report that is not one.
    #[error("{name} is not a shard (no \"shard\" in it), the others are")]
    NotAShard {
        /// The report that is not a shard.
        name: String,
    },
    /// Shards of campaigns of different sizes.
    #[error("{name} is shard {index}/{count}, {first} is of {first_count} shards")]
    ShardCount {
        /// The shard that differs.
        name: String,
        /// Its index.
        index: u64,
        /// Its campaign's size.
        count: u64,
        /// The first report.
        first: String,
        /// The first report's campaign size.
        first_count: u64,
    },
    /// Shards of different seeds.
    #[error("{name} has seed {seed}, {first} has seed {first_seed}: the shards of one campaign share --seed")]
    Seed {
        /// The shard that differs.
        name: String,
        /// Its seed (JSON).
        seed: String,
        /// The first report.
        first: String,
        /// The first report's seed (JSON).
        first_seed: String,
    },
    /// A shard of the campaign is not among the reports.
    #[error("shard {index}/{count} is missing: every shard of the campaign is needed for its verdict")]
    MissingShard {
        /// The missing shard.
        index: u64,
        /// The campaign's size.
        count: u64,
    },
    /// A shard is among the reports more than once.
    #[error("shard {index}/{count} is given twice ({})", names.join(", "))]
    ShardTwice {
        /// The shard.
        index: u64,
        /// The campaign's size.
        count: u64,
        /// The reports that are this shard.
        names: Vec<String>,
    },
}

/// Why an option of the run cannot be used ([`Error::Option`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// A property that is not in the catalog.
    #[error("{0:?}: no such property (see `webhook-conformance rules`)")]
    UnknownProperty(String),
    /// No target was given.
    #[error("no target: give a URL, a command, an image or an in-process server")]
    NoTarget,
    /// `--resolve` with a target other than a URL.
    #[error("--resolve applies to a URL target (--url) only")]
    ResolveWithoutUrl,
    /// A generated client certificate asked for with a URL target, whose CA the suite does not hold.
    #[error("{} needs a target the suite starts with its own CA (--cmd, --image, in-process); with --url give --client-cert FILE --client-key FILE", if *.flag { "--client-cert generated" } else { "a generated client certificate" })]
    GeneratedCertificate {
        /// True when said of the `--client-cert generated` flag.
        flag: bool,
    },
    /// The directory `--out` cannot be used.
    #[error("--out {}: {problem}", path.display())]
    Out {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        problem: DirectoryError,
    },
    /// The address `--listen` cannot be listened on.
    #[error("--listen {addr}: {source}")]
    Listen {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// An option the caller's own checks refuse (a CLI's usage error), in its words.
    #[error("{0}")]
    Usage(String),
}

/// Why a directory to write into cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DirectoryError {
    /// It is a file.
    #[error("not a directory")]
    NotADirectory,
    /// It cannot be made.
    #[error("cannot be made: {0}")]
    Make(#[source] std::io::Error),
    /// It takes no new file.
    #[error("cannot write in it: {0}")]
    Write(#[source] std::io::Error),
}

/// Why a file describing the cluster cannot be used ([`Error::Input`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// It cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// It cannot be read (said so).
    #[error("cannot be read: {0}")]
    Unreadable(#[source] std::io::Error),
    /// A YAML document that does not decode into its type: where (the field path) and why.
    #[error("{}{message}", path.as_ref().map(|p| format!("{p}: ")).unwrap_or_default())]
    Decode {
        /// The field path, e.g. `plugins[0].configuration`, when not the top.
        path: Option<String>,
        /// What is wrong there.
        message: String,
    },
    /// A YAML value that does not decode into its type.
    #[error("{0}")]
    Yaml(#[from] serde_yaml::Error),
    /// Another kind than the one expected.
    #[error("kind {found:?}: expected {expected}")]
    Kind {
        /// The kind found (empty when absent).
        found: String,
        /// The kind expected.
        expected: &'static str,
    },
    /// An apiVersion not among those expected.
    #[error("apiVersion {found:?}: expected {expected}")]
    ApiVersion {
        /// The apiVersion found (empty when absent).
        found: String,
        /// The apiVersions expected, in words.
        expected: String,
    },
    /// A required field is missing.
    #[error("{0} is required")]
    Missing(&'static str),
    /// A kubeconfig path that is not absolute (webhook/config/kubeconfig.go `LoadConfig`).
    #[error("kubeConfigFile {0:?} must be an absolute file path (the apiserver refuses a relative one)")]
    RelativeKubeconfig(String),
    /// A kubeconfig user with an auth provider.
    #[error("auth provider not supported (the apiserver refuses it too)")]
    AuthProvider,
    /// A kubeconfig user with an exec credential plugin.
    #[error("exec credential plugins are not supported by the suite")]
    ExecPlugin,
    /// A `…-data` field that is not base64.
    #[error("{field}: not base64: {source}")]
    NotBase64 {
        /// The field.
        field: &'static str,
        /// Why.
        source: base64::DecodeError,
    },
    /// A `…-data` field whose bytes are not text.
    #[error("{field}: not PEM text")]
    NotPemText {
        /// The field.
        field: &'static str,
    },
    /// A client certificate without its key.
    #[error("a client certificate without client-key or client-key-data")]
    KeyMissing,
    /// No private key in the PEM given.
    #[error("no PEM private key found")]
    NoPrivateKey,
    /// Credentials or a description that the suite's own reading refuses (its error says why).
    #[error("{0}")]
    Invalid(#[source] Cause),
}

/// Why a target cannot be used as given ([`Error::Target`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// A file it names cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The URL does not parse, or a host cannot be set on it.
    #[error("{0}")]
    Url(#[source] Cause),
    /// The text given is not a URL.
    #[error("not a URL: {0}")]
    NotAUrl(#[source] Cause),
    /// The URL is not `https`.
    #[error("the apiserver calls webhooks over https only")]
    NotHttps,
    /// The URL has no host.
    #[error("no host")]
    NoHost,
    /// The CA bundle given does not hold certificates to trust.
    #[error("{0}")]
    Ca(#[source] Box<Error>),
    /// A webhook's `clientConfig.caBundle` cannot be used.
    #[error("webhook {webhook}: {source} (give --ca FILE instead)")]
    CaBundle {
        /// The webhook's name.
        webhook: String,
        /// Why.
        source: Cause,
    },
    /// The manifest's caBundles, together, do not hold certificates to trust.
    #[error("the manifest's caBundle: {0}")]
    ManifestCa(#[source] Box<Error>),
    /// No CA to trust at all.
    #[error("no --ca, and the manifest has no clientConfig.caBundle to trust: give --ca FILE, the CA that signed the webhook's serving certificate")]
    NoCa,
    /// The host does not resolve.
    #[error("cannot resolve {host}: {source} (give --resolve {host}:{port}:ADDR to connect to ADDR)")]
    Resolve {
        /// The host.
        host: String,
        /// The port called.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// DNS does not answer in time.
    #[error("cannot resolve {host}: no answer within {seconds} s")]
    ResolveTimeout {
        /// The host.
        host: String,
        /// The deadline.
        seconds: u64,
    },
    /// DNS answers with no address.
    #[error("{host} has no address")]
    NoAddress {
        /// The host.
        host: String,
    },
    /// Nothing accepts a TCP connection at the address.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing answers a TCP connection at the address in time.
    #[error("cannot connect to {addr}: no answer within {seconds} s")]
    ConnectTimeout {
        /// The address.
        addr: std::net::SocketAddr,
        /// The deadline.
        seconds: u64,
    },
    /// The TLS handshake with the webhook fails.
    #[error("the webhook cannot be reached over TLS: {0}")]
    Tls(#[source] std::io::Error),
    /// The TLS handshake does not finish in time.
    #[error("no TLS handshake within {seconds} s")]
    HandshakeTimeout {
        /// The deadline.
        seconds: u64,
    },
    /// The command or the container cannot be started (the suite's own error says why).
    #[error("{0}")]
    Start(#[source] Cause),
}

/// The cause of an [`Error`] that some other library reported.
pub(crate) type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `what: cause`, or either alone.
fn joined(what: &str, cause: Option<&(dyn std::error::Error + Send + Sync + 'static)>) -> String {
    match cause {
        Some(cause) if what.is_empty() => cause.to_string(),
        Some(cause) => format!("{what}: {cause}"),
        None => what.to_string(),
    }
}

impl Error {
    /// A certificate or key could not be made, read or trusted: `what`, because of `source`.
    pub fn tls(what: impl Into<String>, source: impl Into<Cause>) -> Error {
        Error::Tls { what: what.into(), source: Some(source.into()) }
    }

    /// Something the suite needs from the machine failed: `what`, because of `source`.
    pub fn setup(what: impl Into<String>, source: impl Into<Cause>) -> Error {
        Error::Setup { what: what.into(), source: Some(source.into()) }
    }

    /// The exit code of a CLI that could not run: 2.
    pub const EXIT_CODE: i32 = 2;

    /// An error of the input file `what`.
    pub fn input(what: impl Into<String>, source: impl Into<InputError>) -> Error {
        Error::Input { what: what.into(), source: source.into() }
    }

    /// An error of the target input `what`.
    pub fn target(what: impl Into<String>, source: impl Into<TargetError>) -> Error {
        Error::Target { what: what.into(), source: source.into() }
    }
}

/// A manifest could not be used: what is wrong and where.
#[derive(Debug, Clone)]
pub struct ManifestError {
    /// The manifest file.
    pub file: PathBuf,
    /// Where in the file: a field path such as `webhooks[0].timeoutSeconds`, and a line when known.
    pub location: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if !self.location.is_empty() {
            write!(f, ": {}", self.location)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ManifestError {}

/// A YAML document that does not decode into its type: the field path (`None` at the top), and
/// the message without serde_yaml's own path (which is the path serde_path_to_error gives, or leads
/// to it), with its line when known.
#[derive(Debug, Clone)]
pub(crate) struct YamlDecodeError {
    /// The field path, e.g. `webhooks[0].timeoutSeconds`.
    pub path: Option<String>,
    /// What is wrong, without the path.
    pub message: String,
    /// The 1-based line, when serde_yaml knows it.
    pub line: Option<usize>,
}

impl From<serde_path_to_error::Error<serde_yaml::Error>> for YamlDecodeError {
    fn from(e: serde_path_to_error::Error<serde_yaml::Error>) -> YamlDecodeError {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let line = inner.location().map(|l| l.line());
        let message = inner.to_string();
        if path == "." {
            return YamlDecodeError { path: None, message, line };
        }
        // serde_yaml's path is the one given or leads to it (`expect` for an unknown `expect.mesage`).
        let own_path = message.split_once(": ").map(|(head, _)| head).filter(|head| {
            path == *head || path.starts_with(&format!("{head}.")) || path.starts_with(&format!("{head}["))
        });
        let message = match own_path {
            Some(head) => message[head.len() + 2..].to_string(),
            None => message,
        };
        YamlDecodeError { path: Some(path), message, line }
    }
}

/// A case file that cannot be used: which file, where, and what is wrong.
#[derive(Debug, Clone)]
pub struct CaseError {
    /// The case file.
    pub file: PathBuf,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// A field path such as `expect.decision`, when known.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for CaseError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn tls_and_setup_errors_keep_their_cause() {
        let io = || std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use");
        let e = Error::setup("the case writer", io());
        assert_eq!(e.to_string(), "the case writer: address in use");
        let cause = e.source().expect("a cause").downcast_ref::<std::io::Error>().expect("the io::Error");
        assert_eq!(cause.kind(), std::io::ErrorKind::AddrInUse);
        assert_eq!(Error::tls("", io()).to_string(), "address in use");
        let plain = Error::Tls { what: "no PEM certificate found".into(), source: None };
        assert_eq!((plain.to_string().as_str(), plain.source().is_none()), ("no PEM certificate found", true));
        let report = Error::Report { at: Some("r.json".into()), source: ReportError::NotAReport };
        let option = Error::from(OptionError::GeneratedCertificate { flag: true });
        assert!(option.to_string().starts_with("--client-cert generated needs a target the suite starts"));
        let input = Error::input("--admission-config a.yaml", InputError::Missing("kubeConfigFile"));
        assert_eq!(input.to_string(), "--admission-config a.yaml: kubeConfigFile is required");
        let decode = InputError::Decode { path: Some("plugins[0]".into()), message: "unknown field".into() };
        assert_eq!(decode.to_string(), "plugins[0]: unknown field");
        let target = Error::target("--url \"https://x\"", TargetError::NotHttps);
        assert_eq!(target.to_string(), "--url \"https://x\": the apiserver calls webhooks over https only");
        assert!(target.source().is_some_and(|s| matches!(s.downcast_ref(), Some(TargetError::NotHttps))));
        assert_eq!(report.to_string(), "r.json: not a webhook-conformance JSON report (no \"verdict\")");
        assert!(report.source().is_some_and(|s| s.is::<ReportError>()));
    }
}
