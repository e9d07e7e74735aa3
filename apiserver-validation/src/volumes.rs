//! A pod's volumes and its containers' volume mounts as kubernetes/kubernetes
//! `pkg/apis/core/validation/validation.go` validates them (release-1.36): `ValidateVolumes`,
//! `validateVolumeSource` (exactly one source, then that source's own checks),
//! `validateHostPathVolumeSource`, `validateGitRepoVolumeSource`,
//! `validateGCEPersistentDiskVolumeSource`, `validateAWSElasticBlockStoreVolumeSource`,
//! `validateSecretVolumeSource`, `validateNFSVolumeSource`, `validateGlusterfsVolumeSource`,
//! `validateFlockerVolumeSource`, `validatePersistentClaimVolumeSource`, `validateRBDVolumeSource`,
//! `validateCinderVolumeSource`, `validateCephFSVolumeSource`, `validateDownwardAPIVolumeSource`,
//! `validateFlexVolumeSource`, `validateConfigMapVolumeSource`, `validateAzureFile`,
//! `validateVsphereVolumeSource`, `validatePhotonPersistentDiskVolumeSource`,
//! `validatePortworxVolumeSource`, `validateStorageOSVolumeSource`, `validateISCSIVolumeSource`
//! (with `iscsiInitiatorIqnRegex`, `iscsiInitiatorEuiRegex`, `iscsiInitiatorNaaRegex`, and the
//! volume name's length check in `validateVolumeSource`), `validateFCVolumeSource`,
//! `validateQuobyteVolumeSource` (`net.SplitHostPort`), `validateAzureDisk`,
//! `validateProjectedVolumeSource` (`validateProjectionSources`; a `clusterTrustBundle` source's
//! own checks are in [`crate::trust_bundles`], and it is dropped before validation unless an UPDATE's
//! old spec holds one), `validateScaleIOVolumeSource`,
//! `validateCSIVolumeSource`, `validateEphemeralVolumeSource` (`ValidatePersistentVolumeClaimTemplate`,
//! `ValidateTemplateObjectMeta`, and the name of the claim it creates),
//! `validateKeyToPath`, `validateDownwardAPIVolumeFile`, `ValidateLocalNonReservedPath`,
//! `validateLocalDescendingPath`, `validatePathNoBacksteps`, `validateHostPathType`;
//! `ValidateVolumeMounts` (`validateMountPropagation`, `validateMountRecursiveReadOnly`, the overlap
//! with volume devices), `ValidateVolumeDevices`.
//!
//! Go does not check an `emptyDir`'s `medium` (any text passes), only a negative `sizeLimit`.
//! A projection's `podCertificate` source is dropped before validation (PodCertificateRequest beta
//! and off in 1.36, `gated.rs`) and not counted here; its own checks, which Go runs when an UPDATE's
//! old spec holds one already, are not modelled. Not modelled either: image volume sources' own
//! fields. A Pod's projected service account token requires a service account name
//! (`validatePodMetadataAndSpec`, after the spec): a pod-only check, made in `pod.rs`.

use serde_json::Value;

use crate::claim_spec::validate_claim_spec;
use crate::content;
use crate::field::{go_json_string, go_quote, BadValue, FieldError};
use crate::field_formats::{
    dns_label, dns_label_at, inclusive_range, local_descending_path, local_non_reserved_path, path_no_backsteps,
    str_value,
};
use crate::label_selector::string_pairs;
use crate::lookup::Lookup;
use crate::objectmeta::{validate_annotations, validate_labels};
use crate::quantity;
use crate::scheduling::PodOptions;
use crate::trust_bundles;
use crate::zero_values::{list, present, s};

/// `fileModeErrorMsg`.
pub const FILE_MODE_ERROR: &str = "must be a number between 0 and 0777 (octal), both inclusive";
const MORE_THAN_ONE: &str = "may not specify more than 1 volume type";
/// `validateQuobyteVolumeSource`'s detail for a registry.
const QUOBYTE_REGISTRY: &str = "must be a host:port pair or multiple pairs separated by commas";
/// `validateAzureDisk`'s caching modes and disk kinds, sorted as `sets.List` sorts them.
const AZURE_CACHING_MODES: &[&str] = &["None", "ReadOnly", "ReadWrite"];
const AZURE_DISK_KINDS: &[&str] = &["Dedicated", "Managed", "Shared"];
const AZURE_MANAGED_URI: &str =
    "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}";
const AZURE_BLOB_URI: &str = "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd";
/// `supportedHostPathTypes`, sorted as `sets.List` sorts them.
const HOST_PATH_TYPES: &[&str] =
    &["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"];
/// `validContainerResourceFieldPathExpressions`, sorted.
const RESOURCE_FIELD_PATHS: &[&str] = &[
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];
const MOUNT_PROPAGATIONS: &[&str] = &["Bidirectional", "HostToContainer", "None"];
const RECURSIVE_READ_ONLY: &[&str] = &["Disabled", "IfPossible", "Enabled"];

/// The sources of `core.VolumeSource` in the order of its Go fields, which is the order
/// `validateVolumeSource` checks them in, each with the path its "more than 1" error names (Go's
/// own spelling: `downwarAPI`, `cephFS`).
const GO_ORDER: &[(&str, &str)] = &[
    ("emptyDir", "emptyDir"),
    ("hostPath", "hostPath"),
    ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"),
    ("rbd", "rbd"),
    ("cinder", "cinder"),
    ("cephfs", "cephFS"),
    ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("configMap", "configMap"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("storageos", "storageos"),
    ("projected", "projected"),
    ("scaleIO", "scaleIO"),
    ("csi", "csi"),
    ("ephemeral", "ephemeral"),
    ("image", "image"),
];

/// A volume `ValidateVolumes` accepted: its name and its one source.
#[derive(Clone, Debug)]
pub struct ValidVolume<'v> {
    /// The volume's name.
    pub name: &'v str,
    /// The key of its source (`emptyDir`, `configMap`, …).
    pub source: &'static str,
}

fn int(v: &Value, key: &str) -> Option<i64> {
    v.member(key).and_then(Value::as_i64)
}

fn required(path: &str) -> FieldError {
    FieldError::required(path, "")
}

fn require_str(v: &Value, key: &str, path: &str, errs: &mut Vec<FieldError>) {
    if s(v, key).is_empty() {
        errs.push(required(&format!("{path}.{key}")));
    }
}

fn file_mode(v: &Value, key: &str, path: &str) -> Vec<FieldError> {
    match int(v, key) {
        Some(mode) if !(0..=0o777).contains(&mode) => {
            vec![FieldError::invalid(&format!("{path}.{key}"), BadValue::Int(mode), FILE_MODE_ERROR)]
        }
        _ => Vec::new(),
    }
}

/// `validateKeyToPath`.
fn key_to_path(kp: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    require_str(kp, "key", path, &mut errs);
    require_str(kp, "path", path, &mut errs);
    errs.extend(local_non_reserved_path(s(kp, "path"), &format!("{path}.path")));
    errs.extend(file_mode(kp, "mode", path));
    errs
}

fn items(src: &Value, path: &str) -> Vec<FieldError> {
    list(src, "items").iter().enumerate().flat_map(|(i, kp)| key_to_path(kp, &format!("{path}.items[{i}]"))).collect()
}

/// `validVolumeDownwardAPIFieldPathExpressions`, as `sets.List` sorts them.
const VOLUME_FIELD_PATHS: &[&str] =
    &["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];
/// `validEnvDownwardAPIFieldPathExpressions`, as `sets.List` sorts them.
pub(crate) const ENV_FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];
/// The labels `ConvertDownwardAPIFieldLabel` (`pkg/apis/core/pods/helpers.go`) takes as they are.
const CONVERTIBLE_LABELS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// `fieldpath.SplitMaybeSubscriptedPath`: `metadata.labels['key']` as the path and the key.
fn split_subscript(field_path: &str) -> Option<(&str, &str)> {
    let (path, key) = field_path.strip_suffix("']")?.split_once("['")?;
    (!path.is_empty()).then_some((path, key))
}

/// `ConvertDownwardAPIFieldLabel` for a v1 pod: the internal label, or Go's error.
fn convert_field_label<'a>(version: &str, label: &'a str) -> Result<&'a str, String> {
    if version != "v1" {
        return Err(format!("unsupported pod version: {version}"));
    }
    if let Some((path, _)) = split_subscript(label) {
        return match path {
            "metadata.annotations" | "metadata.labels" => Ok(label),
            _ => Err(format!("field label does not support subscript: {label}")),
        };
    }
    match label {
        "spec.host" => Ok("spec.nodeName"),
        l if CONVERTIBLE_LABELS.contains(&l) => Ok(label),
        _ => Err(format!("field label not supported: {label}")),
    }
}

/// `validateObjectFieldSelector` with the paths `expressions` allows (a volume file's,
/// [`VOLUME_FIELD_PATHS`], or an environment variable's, [`ENV_FIELD_PATHS`]): the apiVersion and
/// fieldPath required, the label converted, a subscript's key a qualified name (an annotation's
/// lowercased), any other path one of `expressions`.
pub(crate) fn object_field_selector(fs: &Value, expressions: &[&str], path: &str) -> Vec<FieldError> {
    let version = s(fs, "apiVersion");
    if version.is_empty() {
        return vec![required(&format!("{path}.apiVersion"))];
    }
    let field_path = s(fs, "fieldPath");
    if field_path.is_empty() {
        return vec![required(&format!("{path}.fieldPath"))];
    }
    let internal = match convert_field_label(version, field_path) {
        Ok(internal) => internal,
        Err(e) => {
            return vec![FieldError::invalid(
                &format!("{path}.fieldPath"),
                str_value(field_path),
                format!("error converting fieldPath: {e}"),
            )]
        }
    };
    let key = match split_subscript(internal) {
        Some(("metadata.annotations", k)) => k.to_lowercase(),
        Some(("metadata.labels", k)) => k.to_string(),
        Some((other, _)) => return vec![FieldError::invalid(path, str_value(other), "does not support subscript")],
        None if !expressions.contains(&internal) => {
            return vec![FieldError::not_supported(&format!("{path}.fieldPath"), str_value(internal), expressions)]
        }
        None => return Vec::new(),
    };
    content::is_qualified_name(&key).into_iter().map(|m| FieldError::invalid(path, str_value(&key), m)).collect()
}

/// `validateContainerResourceFieldSelector` (the hugepages prefixes allowed: DownwardAPIHugePages
/// is GA): for a volume file (`volume`) the container is required first; then the resource, then
/// `validateContainerResourceDivisor`. An environment variable's selector is checked so too.
pub(crate) fn resource_field_ref(fs: &Value, path: &str, volume: bool) -> Vec<FieldError> {
    let resource = s(fs, "resource");
    let mut errs = Vec::new();
    if volume && s(fs, "containerName").is_empty() {
        errs.push(required(&format!("{path}.containerName")));
    } else if resource.is_empty() {
        errs.push(required(&format!("{path}.resource")));
    } else if !RESOURCE_FIELD_PATHS.contains(&resource)
        && !resource.starts_with("requests.hugepages-")
        && !resource.starts_with("limits.hugepages-")
    {
        errs.push(FieldError::not_supported(&format!("{path}.resource"), str_value(resource), RESOURCE_FIELD_PATHS));
    }
    errs.extend(divisor(resource, fs.member("divisor"), path));
    errs
}

/// The divisors of a memory, ephemeral storage or hugepages resource, as `Quantity.String()` writes them.
const BYTE_DIVISORS: &[&str] = &["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"];
const BYTE_DIVISORS_TEXT: &str = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";

/// `validateContainerResourceDivisor`: a set, non-zero divisor is one of the resource's, compared
/// in its canonical form (`1000m` is `1`); the error's value is the resource's name.
fn divisor(resource: &str, divisor: Option<&Value>, path: &str) -> Option<FieldError> {
    let text = match divisor? {
        Value::String(t) => t.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let q = quantity::parse(&text)?;
    if q.cmp_value(&quantity::parse("0")?).is_eq() {
        return None;
    }
    let canonical = q.canonical();
    let (valid, what): (&[&str], String) = match resource {
        "limits.cpu" | "requests.cpu" => (&["1m", "1"], "1m and 1 are supported with the cpu resource".into()),
        "limits.memory" | "requests.memory" => {
            (BYTE_DIVISORS, format!("{BYTE_DIVISORS_TEXT} are supported with the memory resource"))
        }
        "limits.ephemeral-storage" | "requests.ephemeral-storage" => {
            (BYTE_DIVISORS, format!("{BYTE_DIVISORS_TEXT} are supported with the local ephemeral storage resource"))
        }
        r if r.starts_with("requests.hugepages-") || r.starts_with("limits.hugepages-") => {
            (BYTE_DIVISORS, format!("{BYTE_DIVISORS_TEXT} are supported with the hugepages resource"))
        }
        _ => return None,
    };
    (!valid.contains(&canonical.as_str())).then(|| {
        FieldError::invalid(&format!("{path}.divisor"), str_value(resource), format!("only divisor's values {what}"))
    })
}

/// `validateDownwardAPIVolumeFile`: Go names a file's errors under the source's path, without
/// the item's index.
fn downward_api_file(file: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    require_str(file, "path", path, &mut errs);
    errs.extend(local_non_reserved_path(s(file, "path"), &format!("{path}.path")));
    let field_ref_v = file.member("fieldRef").filter(|v| !v.is_null());
    let resource_v = file.member("resourceFieldRef").filter(|v| !v.is_null());
    match (field_ref_v, resource_v) {
        (Some(f), r) => {
            errs.extend(object_field_selector(f, VOLUME_FIELD_PATHS, &format!("{path}.fieldRef")));
            if r.is_some() {
                errs.push(FieldError::invalid(
                    path,
                    str_value("resource"),
                    "fieldRef and resourceFieldRef can not be specified simultaneously",
                ));
            }
        }
        (None, Some(r)) => errs.extend(resource_field_ref(r, &format!("{path}.resourceFieldRef"), true)),
        (None, None) => errs.push(FieldError::required(path, "one of fieldRef and resourceFieldRef is required")),
    }
    errs.extend(file_mode(file, "mode", path));
    errs
}

/// `validateProjectedVolumeSource` and `validateProjectionSources`, under the options `opts`:
/// whether the cluster trust bundle sources are still there
/// ([`PodOptions::keep_cluster_trust_bundles`]) and a token's path is held to
/// `ValidateLocalNonReservedPath` ([`PodOptions::allow_non_local_projected_token_path`]).
fn projected(src: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    let keep_trust_bundles = opts.keep_cluster_trust_bundles;
    let mut errs = file_mode(src, "defaultMode", path);
    let mut all_paths: Vec<String> = Vec::new();
    let mut note_path = |p: &str, bad: &str, errs: &mut Vec<FieldError>| {
        if all_paths.iter().any(|x| x == p) {
            errs.push(FieldError::invalid(path, str_value(bad), "conflicting duplicate paths"));
        } else {
            all_paths.push(p.to_string());
        }
    };
    for (i, source) in list(src, "sources").iter().enumerate() {
        let sp = format!("{path}.sources[{i}]");
        let mut n = 0;
        for kind in ["secret", "configMap"] {
            let Some(obj) = source.member(kind).filter(|v| !v.is_null()) else { continue };
            n += 1;
            let pp = format!("{sp}.{kind}");
            require_str(obj, "name", &pp, &mut errs);
            for (j, kp) in list(obj, "items").iter().enumerate() {
                errs.extend(key_to_path(kp, &format!("{pp}.items[{j}]")));
                let kp_path = s(kp, "path");
                if !kp_path.is_empty() {
                    note_path(kp_path, s(obj, "name"), &mut errs);
                }
            }
        }
        if let Some(d) = source.member("downwardAPI").filter(|v| !v.is_null()) {
            n += 1;
            let pp = format!("{sp}.downwardAPI");
            for file in list(d, "items") {
                errs.extend(downward_api_file(file, &pp));
                let fp = s(file, "path");
                if !fp.is_empty() {
                    note_path(fp, fp, &mut errs);
                }
            }
        }
        if let Some(t) = source.member("serviceAccountToken").filter(|v| !v.is_null()) {
            n += 1;
            let pp = format!("{sp}.serviceAccountToken");
            let exp = int(t, "expirationSeconds").unwrap_or(0);
            if exp < 600 {
                errs.push(FieldError::invalid(
                    &format!("{pp}.expirationSeconds"),
                    BadValue::Int(exp),
                    "may not specify a duration less than 10 minutes",
                ));
            }
            if exp > 1 << 32 {
                errs.push(FieldError::invalid(
                    &format!("{pp}.expirationSeconds"),
                    BadValue::Int(exp),
                    "may not specify a duration larger than 2^32 seconds",
                ));
            }
            // Go names the projection's own path here, not the source's.
            let token_path = s(t, "path");
            if token_path.is_empty() {
                errs.push(required(&format!("{path}.path")));
            } else if !opts.allow_non_local_projected_token_path {
                errs.extend(local_non_reserved_path(token_path, &format!("{path}.path")));
            }
        }
        // Dropped before validation unless kept ([`crate::trust_bundles`]).
        if let Some(ctb) = source.member("clusterTrustBundle").filter(|v| keep_trust_bundles && !v.is_null()) {
            n += 1;
            errs.extend(trust_bundles::validate_cluster_trust_bundle(ctb, &format!("{sp}.clusterTrustBundle")));
            // Go notes the path even when empty.
            let ctb_path = s(ctb, "path");
            note_path(ctb_path, ctb_path, &mut errs);
        }
        if n > 1 {
            errs.push(FieldError::forbidden(&sp, "may not specify more than 1 volume type per source"));
        }
    }
    errs
}

/// `ValidateCSIDriverName`.
fn csi_driver_name(driver: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if driver.is_empty() {
        errs.push(required(path));
    }
    if driver.len() > 63 {
        errs.push(FieldError::too_long(path, 63));
    }
    for m in content::is_dns1123_subdomain(&driver.to_lowercase()) {
        errs.push(FieldError::invalid(path, str_value(driver), m));
    }
    errs
}

/// The checks of one source (the volume's first), `validate<Source>VolumeSource`.
/// `iscsiInitiatorIqnRegex`, `iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`: not anchored at
/// its start, so any `iqn.` in the text may begin the match. Go's `\d` is ASCII, `\s` is
/// `[\t\n\f\r ]`, `$` the end of the text.
fn iqn_matches(name: &str) -> bool {
    name.match_indices("iqn.").any(|(i, _)| {
        let tail = &name[i + 4..];
        let b = tail.as_bytes();
        let date = b.len() >= 8
            && b[..4].iter().all(u8::is_ascii_digit)
            && b[4] == b'-'
            && b[5..7].iter().all(u8::is_ascii_digit)
            && b[7] == b'.';
        if !date {
            return false;
        }
        let rest = &tail[8..];
        // The class holds no `:`, so the group ends where the `:` must be.
        let naming = rest.bytes().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.')).count();
        let Some(id) = rest[naming..].strip_prefix(':') else { return false };
        naming > 0
            && !id.is_empty()
            && !id.chars().any(|c| matches!(c, ',' | ';' | '*' | '&' | '$' | '|' | '\t' | '\n' | '\x0c' | '\r' | ' '))
    })
}

/// `iscsiInitiatorEuiRegex` (`^eui.[[:alnum:]]{16}$`) and `iscsiInitiatorNaaRegex`
/// (`^naa.[[:alnum:]]{32}$`): the prefix, any one character but a newline, `digits` ASCII
/// letters or digits.
fn prefixed_alnum(name: &str, prefix: &str, digits: usize) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else { return false };
    let mut chars = rest.chars();
    if chars.next().is_none_or(|c| c == '\n') {
        return false;
    }
    let tail = chars.as_str();
    tail.len() == digits && tail.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The detail `validateISCSIVolumeSource` gives an IQN or initiator name, if any.
fn iscsi_name_error(name: &str) -> Option<&'static str> {
    if !["iqn", "eui", "naa"].iter().any(|p| name.starts_with(p)) {
        return Some("must be valid format starting with iqn, eui, or naa");
    }
    let valid = if name.starts_with("iqn") {
        iqn_matches(name)
    } else if name.starts_with("eui") {
        prefixed_alnum(name, "eui", 16)
    } else {
        prefixed_alnum(name, "naa", 32)
    };
    (!valid).then_some("must be valid format")
}

/// Whether Go's `net.SplitHostPort` accepts the text: a last `:` before the port, a host without
/// `:` unless in brackets that end just before that colon, no stray `[` or `]`.
fn splits_host_port(hostport: &str) -> bool {
    let Some(i) = hostport.rfind(':') else { return false };
    let (j, k) = if hostport.starts_with('[') {
        let Some(end) = hostport.find(']') else { return false };
        if end + 1 != i {
            return false;
        }
        (1, end + 1)
    } else {
        if hostport[..i].contains(':') {
            return false;
        }
        (0, 0)
    };
    !hostport[j..].contains('[') && !hostport[k..].contains(']')
}

/// `validateISCSIVolumeSource`.
fn iscsi(src: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    require_str(src, "targetPortal", p, &mut errs);
    let iqn = s(src, "iqn");
    if iqn.is_empty() {
        errs.push(required(&format!("{p}.iqn")));
    } else if let Some(detail) = iscsi_name_error(iqn) {
        errs.push(FieldError::invalid(&format!("{p}.iqn"), str_value(iqn), detail));
    }
    let lun = int(src, "lun").unwrap_or(0);
    if !(0..=255).contains(&lun) {
        errs.push(FieldError::invalid(&format!("{p}.lun"), BadValue::Int(lun), inclusive_range(0, 255)));
    }
    let chap =
        ["chapAuthDiscovery", "chapAuthSession"].iter().any(|k| src.member(k).and_then(Value::as_bool) == Some(true));
    if chap && !present(src, "secretRef") {
        errs.push(required(&format!("{p}.secretRef")));
    }
    if let Some(initiator) = src.member("initiatorName").and_then(Value::as_str) {
        if let Some(detail) = iscsi_name_error(initiator) {
            errs.push(FieldError::invalid(&format!("{p}.initiatorname"), str_value(initiator), detail));
        }
    }
    errs
}

/// `validateFCVolumeSource`.
fn fc(src: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (wwns, wwids) = (list(src, "targetWWNs"), list(src, "wwids"));
    if wwns.is_empty() && wwids.is_empty() {
        errs.push(FieldError::required(
            &format!("{p}.targetWWNs"),
            "must specify either targetWWNs or wwids, but not both",
        ));
    }
    if !wwns.is_empty() && !wwids.is_empty() {
        let names: Vec<String> = wwns.iter().map(|w| go_json_string(w.as_str().unwrap_or(""))).collect();
        errs.push(FieldError::invalid(
            &format!("{p}.targetWWNs"),
            BadValue::Json(format!("[{}]", names.join(","))),
            "targetWWNs and wwids can not be specified simultaneously",
        ));
    }
    if !wwns.is_empty() {
        match src.member("lun").and_then(Value::as_i64) {
            None => errs.push(FieldError::required(&format!("{p}.lun"), "lun is required if targetWWNs is specified")),
            Some(lun) if !(0..=255).contains(&lun) => {
                errs.push(FieldError::invalid(&format!("{p}.lun"), BadValue::Int(lun), inclusive_range(0, 255)));
            }
            Some(_) => {}
        }
    }
    errs
}

/// `validateQuobyteVolumeSource`: one error for each registry entry `net.SplitHostPort` refuses
/// (the aggregate prints repeats once).
fn quobyte(src: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let registry = s(src, "registry");
    if registry.is_empty() {
        errs.push(FieldError::required(&format!("{p}.registry"), QUOBYTE_REGISTRY));
    } else if s(src, "tenant").len() >= 65 {
        errs.push(FieldError::required(
            &format!("{p}.tenant"),
            "must be a UUID and may not exceed a length of 64 characters",
        ));
    } else {
        for _ in registry.split(',').filter(|pair| !splits_host_port(pair)) {
            errs.push(FieldError::invalid(&format!("{p}.registry"), str_value(registry), QUOBYTE_REGISTRY));
        }
    }
    require_str(src, "volume", p, &mut errs);
    errs
}

/// A value of a named Go string type (`AzureDataDiskCachingMode`, `AzureDataDiskKind`), which
/// `ErrorBody` prints as `json.Marshal` writes it.
fn named(value: &str) -> BadValue {
    BadValue::Json(go_json_string(value))
}

/// `validateAzureDisk` (after `SetDefaults_AzureDiskVolumeSource` gave a caching mode and a kind).
fn azure_disk(src: &Value, p: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    require_str(src, "diskName", p, &mut errs);
    require_str(src, "diskURI", p, &mut errs);
    if let Some(mode) = src.member("cachingMode").and_then(Value::as_str) {
        if !AZURE_CACHING_MODES.contains(&mode) {
            errs.push(FieldError::not_supported(&format!("{p}.cachingMode"), named(mode), AZURE_CACHING_MODES));
        }
    }
    let kind = src.member("kind").and_then(Value::as_str);
    if let Some(kind) = kind.filter(|k| !AZURE_DISK_KINDS.contains(k)) {
        errs.push(FieldError::not_supported(&format!("{p}.kind"), named(kind), AZURE_DISK_KINDS));
    }
    let uri = s(src, "diskURI");
    let expected = match kind {
        Some("Managed") if !uri.starts_with("/subscriptions/") => Some(AZURE_MANAGED_URI),
        Some(k) if k != "Managed" && !uri.starts_with("https://") => Some(AZURE_BLOB_URI),
        _ => None,
    };
    if let Some(expected) = expected {
        errs.push(FieldError::not_supported(&format!("{p}.diskURI"), str_value(uri), &[expected]));
    }
    errs
}

fn source_errors(key: &str, src: &Value, opts: PodOptions, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let p = format!("{path}.{key}");
    match key {
        "emptyDir" => {
            let negative = src
                .member("sizeLimit")
                .and_then(|q| q.as_str().map(str::to_string).or_else(|| q.as_i64().map(|n| n.to_string())))
                .and_then(|q| quantity::parse(&q))
                .is_some_and(|q| q.milli < 0);
            if negative {
                errs.push(FieldError::forbidden(
                    &format!("{p}.sizeLimit"),
                    "SizeLimit field must be a valid resource quantity",
                ));
            }
        }
        "hostPath" => {
            let host_path = s(src, "path");
            if host_path.is_empty() {
                errs.push(required(&format!("{p}.path")));
                return errs;
            }
            errs.extend(path_no_backsteps(host_path, &format!("{p}.path")));
            if let Some(t) = src.member("type").and_then(Value::as_str) {
                if !HOST_PATH_TYPES.contains(&t) {
                    errs.push(FieldError::not_supported(&format!("{p}.type"), str_value(t), HOST_PATH_TYPES));
                }
            }
        }
        "gitRepo" => {
            require_str(src, "repository", &p, &mut errs);
            errs.extend(local_descending_path(s(src, "directory"), &format!("{p}.directory")));
        }
        "gcePersistentDisk" | "awsElasticBlockStore" => {
            // Go validates a GCE disk under `persistentDisk`.
            let (p, id) = if key == "gcePersistentDisk" {
                (format!("{path}.persistentDisk"), "pdName")
            } else {
                (p.clone(), "volumeID")
            };
            require_str(src, id, &p, &mut errs);
            let partition = int(src, "partition").unwrap_or(0);
            if !(0..=255).contains(&partition) {
                errs.push(FieldError::invalid(
                    &format!("{p}.partition"),
                    BadValue::Int(partition),
                    inclusive_range(1, 255),
                ));
            }
        }
        "secret" | "configMap" => {
            require_str(src, if key == "secret" { "secretName" } else { "name" }, &p, &mut errs);
            errs.extend(file_mode(src, "defaultMode", &p));
            errs.extend(items(src, &p));
        }
        "nfs" => {
            require_str(src, "server", &p, &mut errs);
            require_str(src, "path", &p, &mut errs);
            let nfs_path = s(src, "path");
            if !nfs_path.starts_with('/') {
                errs.push(FieldError::invalid(&format!("{p}.path"), str_value(nfs_path), "must be an absolute path"));
            }
        }
        "glusterfs" => {
            require_str(src, "endpoints", &p, &mut errs);
            require_str(src, "path", &p, &mut errs);
        }
        "flocker" => {
            let (name, uuid) = (s(src, "datasetName"), s(src, "datasetUUID"));
            if name.is_empty() && uuid.is_empty() {
                errs.push(FieldError::required(&p, "one of datasetName and datasetUUID is required"));
            }
            if !name.is_empty() && !uuid.is_empty() {
                errs.push(FieldError::invalid(
                    &p,
                    str_value("resource"),
                    "datasetName and datasetUUID can not be specified simultaneously",
                ));
            }
            if name.contains('/') {
                errs.push(FieldError::invalid(&format!("{p}.datasetName"), str_value(name), "must not contain '/'"));
            }
        }
        "persistentVolumeClaim" => require_str(src, "claimName", &p, &mut errs),
        "rbd" => {
            if list(src, "monitors").is_empty() {
                errs.push(required(&format!("{p}.monitors")));
            }
            require_str(src, "image", &p, &mut errs);
        }
        "cinder" => {
            require_str(src, "volumeID", &p, &mut errs);
            if let Some(r) = src.member("secretRef").filter(|v| !v.is_null()) {
                require_str(r, "name", &format!("{p}.secretRef"), &mut errs);
            }
        }
        "cephfs" if list(src, "monitors").is_empty() => errs.push(required(&format!("{p}.monitors"))),
        "downwardAPI" => {
            errs.extend(file_mode(src, "defaultMode", &p));
            for file in list(src, "items") {
                errs.extend(downward_api_file(file, &p));
            }
        }
        "flexVolume" => {
            require_str(src, "driver", &p, &mut errs);
            if let Some(options) = src.member("options").and_then(Value::as_object) {
                for k in options.keys() {
                    let namespace = k.split_once('/').map_or(k.as_str(), |(ns, _)| ns);
                    let normalized = format!(".{}", namespace.to_lowercase());
                    if normalized.ends_with(".kubernetes.io") || normalized.ends_with(".k8s.io") {
                        errs.push(FieldError::invalid(
                            &format!("{p}.options[{k}]"),
                            str_value(k),
                            "kubernetes.io and k8s.io namespaces are reserved",
                        ));
                    }
                }
            }
        }
        "azureFile" => {
            require_str(src, "secretName", &p, &mut errs);
            require_str(src, "shareName", &p, &mut errs);
        }
        "vsphereVolume" => require_str(src, "volumePath", &p, &mut errs),
        "photonPersistentDisk" => require_str(src, "pdID", &p, &mut errs),
        "portworxVolume" => require_str(src, "volumeID", &p, &mut errs),
        "storageos" => {
            let name = s(src, "volumeName");
            if name.is_empty() {
                errs.push(required(&format!("{p}.volumeName")));
            } else {
                errs.extend(dns_label(name, &format!("{p}.volumeName")));
            }
            let ns = s(src, "volumeNamespace");
            if !ns.is_empty() {
                errs.extend(dns_label(ns, &format!("{p}.volumeNamespace")));
            }
            if let Some(r) = src.member("secretRef").filter(|v| !v.is_null()) {
                require_str(r, "name", &format!("{p}.secretRef"), &mut errs);
            }
        }
        "projected" => errs.extend(projected(src, opts, &p)),
        "scaleIO" => {
            for k in ["gateway", "system", "volumeName"] {
                require_str(src, k, &p, &mut errs);
            }
        }
        "csi" => {
            errs.extend(csi_driver_name(s(src, "driver"), &format!("{p}.driver")));
            if let Some(r) = src.member("nodePublishSecretRef").filter(|v| !v.is_null()) {
                let name = s(r, "name");
                if name.is_empty() {
                    errs.push(required(&format!("{p}.nodePublishSecretRef.name")));
                } else {
                    // Go names the source's `name` here, not the reference's.
                    for m in content::is_dns1123_subdomain(name) {
                        errs.push(FieldError::invalid(&format!("{p}.name"), str_value(name), m));
                    }
                }
            }
        }
        "iscsi" => errs.extend(iscsi(src, &p)),
        "fc" => errs.extend(fc(src, &p)),
        "quobyte" => errs.extend(quobyte(src, &p)),
        "azureDisk" => errs.extend(azure_disk(src, &p)),
        "ephemeral" => match src.member("volumeClaimTemplate").filter(|t| !t.is_null()) {
            None => errs.push(required(&format!("{p}.volumeClaimTemplate"))),
            Some(template) => errs.extend(claim_template(template, &format!("{p}.volumeClaimTemplate"))),
        },
        _ => {}
    }
    errs
}

/// The members of `metav1.ObjectMeta` in the order of its Go fields, each with the name
/// `validateFieldAllowList` gives it (the Go name with its first letter lowered: `uID`). Labels
/// and annotations, the two a claim template may set, are left out.
const TEMPLATE_META_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
];

/// `ValidatePersistentVolumeClaimTemplate` under `ValidationOptionsForPersistentVolumeClaimTemplate`
/// with no old template: `ValidateTemplateObjectMeta` (labels, annotations, and no other member
/// of the metadata set: `validateFieldAllowList`), then the claim's spec ([`crate::claim_spec`]).
fn claim_template(template: &Value, path: &str) -> Vec<FieldError> {
    let null = Value::Null;
    let meta = template.member("metadata").unwrap_or(&null);
    let mut errs =
        validate_annotations(&string_pairs(meta.member("annotations")), &format!("{path}.metadata.annotations"));
    errs.extend(validate_labels(&string_pairs(meta.member("labels")), &format!("{path}.metadata.labels")));
    // Set is not the zero value (`reflect.DeepEqual`): an empty list is set, unlike a nil one.
    for (key, go_name) in TEMPLATE_META_FIELDS {
        let set = match meta.member(key) {
            None | Some(Value::Null) => false,
            Some(Value::String(text)) => !text.is_empty(),
            Some(Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(_) => true,
        };
        if set {
            errs.push(FieldError::forbidden(&format!("{path}.metadata.{go_name}"), "cannot be set"));
        }
    }
    errs.extend(validate_claim_spec(template.member("spec").unwrap_or(&null), &format!("{path}.spec")));
    errs
}

/// `validateVolumeSource`: exactly one source, and that source's own checks.
fn volume_source(v: &Value, pod_name: &str, opts: PodOptions, path: &str) -> (Option<&'static str>, Vec<FieldError>) {
    let mut errs = Vec::new();
    let mut first = None;
    let volume_name = s(v, "name");
    for (key, forbidden_key) in GO_ORDER {
        let Some(src) = v.member(key).filter(|x| !x.is_null()) else { continue };
        if first.is_some() {
            errs.push(FieldError::forbidden(&format!("{path}.{forbidden_key}"), MORE_THAN_ONE));
        } else {
            first = Some(*key);
            errs.extend(source_errors(key, src, opts, path));
            if *key == "ephemeral" && !pod_name.is_empty() && !volume_name.is_empty() {
                // The claim the ephemeral volume controller creates is named `<pod>-<volume>`.
                let claim = format!("{pod_name}-{volume_name}");
                for m in content::is_dns1123_subdomain(&claim) {
                    errs.push(FieldError::invalid(
                        &format!("{path}.name"),
                        str_value(volume_name),
                        format!("PVC name {}: {m}", go_quote(&claim)),
                    ));
                }
            }
        }
        // Checked whether or not the iSCSI source is the volume's first.
        if *key == "iscsi" && present(src, "initiatorName") && volume_name.len() + 1 + s(src, "targetPortal").len() > 64
        {
            errs.push(FieldError::invalid(
                &format!("{path}.name"),
                str_value(volume_name),
                "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
            ));
        }
    }
    if first.is_none() {
        errs.push(FieldError::required(path, "must specify a volume type"));
    }
    (first, errs)
}

/// `ValidateVolumes`: each volume's source, a unique DNS-label name, no claim volume naming a claim
/// an ephemeral volume of the pod creates. `pod_name` is the pod's (empty for a pod template, which
/// Go validates with no pod metadata, and for a pod whose name the registry generates: such a
/// name and a volume name always make a valid claim name, and no webhook can know it). Returns
/// the volumes it accepted (the ones a mount may name). `opts` says whether the cluster trust
/// bundle sources survived `dropDisabledClusterTrustBundleProjection`.
pub fn validate_volumes<'v>(
    vols: &'v [Value],
    pod_name: &str,
    opts: PodOptions,
    path: &str,
) -> (Vec<ValidVolume<'v>>, Vec<FieldError>) {
    let mut valid: Vec<ValidVolume<'v>> = Vec::new();
    let mut errs = Vec::new();
    let created: Vec<String> = if pod_name.is_empty() {
        Vec::new()
    } else {
        vols.iter().filter(|v| present(v, "ephemeral")).map(|v| format!("{pod_name}-{}", s(v, "name"))).collect()
    };
    for (i, v) in vols.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let (source, mut el) = volume_source(v, pod_name, opts, &p);
        let name = s(v, "name");
        if name.is_empty() {
            el.push(required(&format!("{p}.name")));
        } else {
            el.extend(dns_label_at(name, || format!("{p}.name")));
        }
        if valid.iter().any(|x| x.name == name) {
            el.push(FieldError::duplicate(&format!("{p}.name"), str_value(name)));
        }
        match source {
            Some(source) if el.is_empty() => valid.push(ValidVolume { name, source }),
            _ => errs.extend(el),
        }
        if let Some(claim) = v.member("persistentVolumeClaim").filter(|c| !c.is_null()) {
            let claim_name = s(claim, "claimName");
            if created.iter().any(|c| c == claim_name) {
                errs.push(FieldError::invalid(
                    &format!("{p}.persistentVolumeClaim.claimName"),
                    str_value(claim_name),
                    "must not reference a PVC that gets created for an ephemeral volume",
                ));
            }
        }
    }
    (valid, errs)
}

/// `GetVolumeMountMap` and `GetVolumeDeviceMap`: each name with the path of the last entry of
/// that name (a Go map keeps the last).
fn name_to_path<'a>(entries: &'a [Value], path_key: &str) -> Vec<(&'a str, &'a str)> {
    let mut map: Vec<(&str, &str)> = Vec::new();
    for e in entries {
        let (name, path) = (s(e, "name"), s(e, path_key));
        match map.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = path,
            None => map.push((name, path)),
        }
    }
    map
}

/// `ValidateVolumeDevices`: a named, unique device of a claim or ephemeral volume of the pod, a
/// unique device path without `..`, neither name nor path shared with a volume mount of the
/// container.
pub fn validate_volume_devices(
    devices: &[Value],
    mounts: &[Value],
    volumes: &[ValidVolume<'_>],
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mounts = name_to_path(mounts, "mountPath");
    let (mut names, mut paths): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for (i, dev) in devices.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let (name, device_path) = (s(dev, "name"), s(dev, "devicePath"));
        let volume = volumes.iter().find(|v| v.name == name);
        if name.is_empty() {
            errs.push(required(&format!("{p}.name")));
        }
        if names.contains(&name) {
            errs.push(FieldError::invalid(&format!("{p}.name"), str_value(name), "must be unique"));
        }
        match volume {
            Some(v) if !matches!(v.source, "persistentVolumeClaim" | "ephemeral") => {
                errs.push(FieldError::invalid(
                    &format!("{p}.name"),
                    str_value(name),
                    "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
                ));
            }
            Some(_) => {}
            None => errs.push(FieldError::not_found(&format!("{p}.name"), str_value(name))),
        }
        if device_path.is_empty() {
            errs.push(required(&format!("{p}.devicePath")));
        }
        if paths.contains(&device_path) {
            errs.push(FieldError::invalid(&format!("{p}.devicePath"), str_value(device_path), "must be unique"));
        }
        if !device_path.is_empty() && !path_no_backsteps(device_path, path).is_empty() {
            errs.push(FieldError::invalid(
                &format!("{p}.devicePath"),
                str_value(device_path),
                "can not contain backsteps ('..')",
            ));
        } else {
            paths.push(device_path);
        }
        if mounts.iter().any(|(n, _)| *n == name) {
            errs.push(FieldError::invalid(
                &format!("{p}.name"),
                str_value(name),
                "must not already exist in volumeMounts",
            ));
        }
        if mounts.iter().any(|(_, m)| *m == device_path) {
            errs.push(FieldError::invalid(
                &format!("{p}.devicePath"),
                str_value(device_path),
                "must not already exist as a path in volumeMounts",
            ));
        }
        if !name.is_empty() {
            names.push(name);
        }
    }
    errs
}

/// `ValidateVolumeMounts`: a name of a volume of the pod, a unique mount path, a relative
/// `subPath` / `subPathExpr` (not both), a supported mount
/// propagation (Bidirectional for a privileged container only), `recursiveReadOnly`'s rules.
/// Go names the sub path, propagation and recursive read-only errors without the mount's index.
pub fn validate_volume_mounts(
    mounts: &[Value],
    devices: &[Value],
    volumes: &[ValidVolume<'_>],
    container: &Value,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let devices = name_to_path(devices, "devicePath");
    let mut paths: Vec<&str> = Vec::new();
    for (i, m) in mounts.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let name = s(m, "name");
        if name.is_empty() {
            errs.push(required(&format!("{p}.name")));
        }
        let volume = volumes.iter().find(|v| v.name == name);
        if volume.is_none() {
            errs.push(FieldError::not_found(&format!("{p}.name"), str_value(name)));
        }
        let mount_path = s(m, "mountPath");
        if mount_path.is_empty() {
            errs.push(required(&format!("{p}.mountPath")));
        }
        if paths.contains(&mount_path) {
            errs.push(FieldError::invalid(&format!("{p}.mountPath"), str_value(mount_path), "must be unique"));
        }
        paths.push(mount_path);
        if devices.iter().any(|(n, _)| *n == name) {
            errs.push(FieldError::invalid(
                &format!("{p}.name"),
                str_value(name),
                "must not already exist in volumeDevices",
            ));
        }
        if devices.iter().any(|(_, d)| *d == mount_path) {
            errs.push(FieldError::invalid(
                &format!("{p}.mountPath"),
                str_value(mount_path),
                "must not already exist as a path in volumeDevices",
            ));
        }
        // An image volume takes sub paths too (ImageVolume beta and on since 1.35; Go dropped the
        // "not allowed in image volume sources" check when sub paths came to image volumes).
        let (sub_path, sub_path_expr) = (s(m, "subPath"), s(m, "subPathExpr"));
        if !sub_path.is_empty() {
            errs.extend(local_descending_path(sub_path, &format!("{path}.subPath")));
        }
        if !sub_path_expr.is_empty() {
            if !sub_path.is_empty() {
                errs.push(FieldError::invalid(
                    &format!("{p}.subPathExpr"),
                    str_value(sub_path_expr),
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            errs.extend(local_descending_path(sub_path_expr, &format!("{path}.subPathExpr")));
        }
        let propagation = m.member("mountPropagation").and_then(Value::as_str);
        if let Some(mode) = propagation {
            let pp = format!("{path}.mountPropagation");
            if !MOUNT_PROPAGATIONS.contains(&mode) {
                errs.push(FieldError::not_supported(&pp, str_value(mode), MOUNT_PROPAGATIONS));
            }
            let privileged = container.at("/securityContext/privileged").and_then(Value::as_bool) == Some(true);
            if mode == "Bidirectional" && !privileged {
                errs.push(FieldError::forbidden(
                    &pp,
                    "Bidirectional mount propagation is available only to privileged containers",
                ));
            }
        }
        if let Some(rro) = m.member("recursiveReadOnly").and_then(Value::as_str) {
            let rp = format!("{path}.recursiveReadOnly");
            match rro {
                "Disabled" => {}
                "Enabled" | "IfPossible" => {
                    if m.member("readOnly").and_then(Value::as_bool) != Some(true) {
                        errs.push(FieldError::forbidden(&rp, "may only be specified when readOnly is true"));
                    }
                    if propagation.is_some_and(|p| p != "None") {
                        errs.push(FieldError::forbidden(
                            &rp,
                            "may only be specified when mountPropagation is None or not specified",
                        ));
                    }
                }
                other => {
                    let mut sorted = RECURSIVE_READ_ONLY.to_vec();
                    sorted.sort_unstable();
                    errs.push(FieldError::not_supported(&rp, str_value(other), &sorted));
                }
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::field::texts;

    #[test]
    fn one_source_each_and_the_sources_own_fields() {
        let good = [
            json!({"name": "a", "emptyDir": {"medium": "Anything", "sizeLimit": "1Gi"}}),
            json!({"name": "b", "configMap": {"name": "cm", "defaultMode": 0o644, "items": [{"key": "k", "path": "dir/k"}]}}),
            json!({"name": "c", "hostPath": {"path": "/var/log", "type": "Directory"}}),
            json!({"name": "d", "csi": {"driver": "secrets-store.csi.k8s.io"}}),
            json!({"name": "e", "projected": {"defaultMode": 0o644, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3600, "path": "token"}},
                {"configMap": {"name": "ca", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}),
        ];
        let (valid, errs) = validate_volumes(&good, "", PodOptions::default(), "spec.volumes");
        assert!(errs.is_empty(), "{:?}", texts(&errs));
        assert_eq!(valid.len(), 5);

        let bad = [
            json!({"name": "a", "emptyDir": {}, "secret": {"secretName": "s"}}),
            json!({"name": "b", "configMap": {"name": "", "defaultMode": 0o1000, "items": [{"key": "k", "path": "../up"}]}}),
            json!({"name": "c", "hostPath": {"path": "/x", "type": "Dir"}}),
            json!({"name": "d"}),
        ];
        let (valid, errs) = validate_volumes(&bad, "", PodOptions::default(), "spec.volumes");
        assert!(valid.is_empty());
        assert_eq!(
            texts(&errs),
            [
                "spec.volumes[0].secret: Forbidden: may not specify more than 1 volume type",
                "spec.volumes[1].configMap.name: Required value",
                "spec.volumes[1].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
                "spec.volumes[1].configMap.items[0].path: Invalid value: \"../up\": must not contain '..'",
                "spec.volumes[2].hostPath.type: Unsupported value: \"Dir\": supported values: \"\", \"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", \"FileOrCreate\", \"Socket\"",
                "spec.volumes[3]: Required value: must specify a volume type",
            ]
        );
    }

    #[test]
    fn mounts_take_relative_sub_paths_and_known_propagations() {
        let vols = [json!({"name": "data", "emptyDir": {}})];
        let (valid, _) = validate_volumes(&vols, "", PodOptions::default(), "spec.volumes");
        let container = json!({"name": "c"});
        let good = [json!({"name": "data", "mountPath": "/data", "subPath": "app", "mountPropagation": "None"})];
        assert!(validate_volume_mounts(&good, &[], &valid, &container, "m").is_empty());
        let bad = [
            json!({"name": "data", "mountPath": "/a", "subPath": "/abs"}),
            json!({"name": "data", "mountPath": "/b", "mountPropagation": "Bidirectional"}),
            json!({"name": "data", "mountPath": "/c", "readOnly": false, "recursiveReadOnly": "Enabled"}),
        ];
        assert_eq!(
            texts(&validate_volume_mounts(&bad, &[], &valid, &container, "m")),
            [
                "m.subPath: Invalid value: \"/abs\": must be a relative path",
                "m.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers",
                "m.recursiveReadOnly: Forbidden: may only be specified when readOnly is true",
            ]
        );
        let privileged = json!({"name": "c", "securityContext": {"privileged": true}});
        assert!(validate_volume_mounts(&bad[1..2], &[], &valid, &privileged, "m").is_empty());
    }

    #[test]
    fn iscsi_names_as_the_go_regexes_read_them() {
        for good in [
            "iqn.2001-04.com.example:storage.disk1",
            "iqn.2001-04.com.example-1.x:a:b",
            // Not anchored at its start: any `iqn.` may begin the match.
            "iqnX-iqn.2001-04.com.example:d",
            "iqn.2001-04.com.example:d\u{0b}",
        ] {
            assert_eq!(iscsi_name_error(good), None, "{good}");
        }
        for bad in [
            "iqn.2001-04.com.example",
            "iqn.2001-04.com.example:",
            "iqn.01-04.com.example:d",
            "iqn.2001-04.com_example:d",
            "iqn.2001-04.com.example:a b",
            "iqn.2001-04.com.example:a$",
            "iqn.2001-04.:d",
        ] {
            assert_eq!(iscsi_name_error(bad), Some("must be valid format"), "{bad}");
        }
        assert_eq!(iscsi_name_error("eui.0123456789ABCDEF"), None);
        assert_eq!(iscsi_name_error("euiX0123456789abcdef"), None);
        assert_eq!(iscsi_name_error("eui.0123456789ABCDE"), Some("must be valid format"));
        assert_eq!(iscsi_name_error("eui\n0123456789ABCDEF"), Some("must be valid format"));
        assert_eq!(iscsi_name_error("naa.0123456789abcdef0123456789ABCDEF"), None);
        assert_eq!(iscsi_name_error("naa.0123456789abcdef0123456789ABCDE-"), Some("must be valid format"));
        assert_eq!(
            iscsi_name_error("IQN.2001-04.com.example:d"),
            Some("must be valid format starting with iqn, eui, or naa")
        );
    }

    #[test]
    fn host_port_pairs_as_net_split_host_port_reads_them() {
        for good in ["quobyte.example:7861", "[::1]:7861", ":7861", "host:", ":", "[]:1"] {
            assert!(splits_host_port(good), "{good}");
        }
        for bad in ["quobyte.example", "::1:7861", "[::1]", "[::1]7861", "[::1]:7861:1", "a[b:1", "a]b:1", "[a:1", ""] {
            assert!(!splits_host_port(bad), "{bad}");
        }
    }

    #[test]
    fn iscsi_fc_quobyte_and_azure_disk_sources() {
        let long = "a".repeat(52);
        let bad = [
            json!({"name": "a", "iscsi": {"iqn": "foo", "lun": 256, "chapAuthSession": true, "initiatorName": "iqn.bad"}}),
            json!({"name": long, "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:d", "initiatorName": "eui.0123456789ABCDEF"}}),
            json!({"name": "c", "fc": {}}),
            json!({"name": "d", "fc": {"targetWWNs": ["500a0982991b8dc5"], "wwids": ["w"]}}),
            json!({"name": "e", "quobyte": {"registry": "q:1,q,r", "volume": "v"}}),
            json!({"name": "f", "quobyte": {"registry": "q:1", "tenant": "t".repeat(65)}}),
            json!({"name": "g", "azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s", "cachingMode": "Fast", "kind": "Shared"}}),
            json!({"name": "h", "azureDisk": {"kind": "Managed"}}),
        ];
        let (valid, errs) = validate_volumes(&bad, "", PodOptions::default(), "v");
        assert!(valid.is_empty());
        let expected = [
            "v[0].iscsi.targetPortal: Required value".to_string(),
            "v[0].iscsi.iqn: Invalid value: \"foo\": must be valid format starting with iqn, eui, or naa".into(),
            "v[0].iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive".into(),
            "v[0].iscsi.secretRef: Required value".into(),
            "v[0].iscsi.initiatorname: Invalid value: \"iqn.bad\": must be valid format".into(),
            format!("v[1].name: Invalid value: \"{long}\": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified."),
            "v[2].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both".into(),
            "v[3].fc.targetWWNs: Invalid value: [\"500a0982991b8dc5\"]: targetWWNs and wwids can not be specified simultaneously".into(),
            "v[3].fc.lun: Required value: lun is required if targetWWNs is specified".into(),
            "v[4].quobyte.registry: Invalid value: \"q:1,q,r\": must be a host:port pair or multiple pairs separated by commas".into(),
            "v[4].quobyte.registry: Invalid value: \"q:1,q,r\": must be a host:port pair or multiple pairs separated by commas".into(),
            "v[5].quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters".into(),
            "v[5].quobyte.volume: Required value".into(),
            "v[6].azureDisk.cachingMode: Unsupported value: \"Fast\": supported values: \"None\", \"ReadOnly\", \"ReadWrite\"".into(),
            "v[6].azureDisk.diskURI: Unsupported value: \"/subscriptions/s\": supported values: \"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd\"".into(),
            "v[7].azureDisk.diskName: Required value".into(),
            "v[7].azureDisk.diskURI: Required value".into(),
            "v[7].azureDisk.diskURI: Unsupported value: \"\": supported values: \"/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}\"".into(),
        ];
        assert_eq!(texts(&errs), expected);
        let good = [
            json!({"name": "a", "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:d", "lun": 255,
                                          "chapAuthDiscovery": true, "secretRef": {"name": "chap"}, "initiatorName": "naa.0123456789abcdef0123456789ABCDEF"}}),
            json!({"name": "b", "fc": {"wwids": ["3600508b400105e210000900000490000"]}}),
            json!({"name": "c", "fc": {"targetWWNs": ["500a0982991b8dc5"], "lun": 0}}),
            json!({"name": "d", "quobyte": {"registry": "q1:7861,[::1]:7861", "volume": "v"}}),
            json!({"name": "e", "azureDisk": {"diskName": "d", "diskURI": "/subscriptions/s/disks/d", "kind": "Managed", "cachingMode": "None"}}),
        ];
        let (valid, errs) = validate_volumes(&good, "", PodOptions::default(), "v");
        assert!(errs.is_empty(), "{:?}", texts(&errs));
        assert_eq!(valid.len(), 5);
    }

    #[test]
    fn the_other_sources_required_fields() {
        let bad = [
            json!({"name": "a", "gitRepo": {"directory": "/abs"}}),
            json!({"name": "b", "gcePersistentDisk": {"partition": 256}}),
            json!({"name": "c", "nfs": {"server": "nfs.example", "path": "exports"}}),
            json!({"name": "d", "flocker": {"datasetName": "x/y", "datasetUUID": "u"}}),
            json!({"name": "e", "cephfs": {}}),
            json!({"name": "f", "flexVolume": {"driver": "example/flex", "options": {"kubernetes.io/secret": "s"}}}),
            json!({"name": "g", "storageos": {"volumeName": "Bad_Name"}}),
            json!({"name": "h", "ephemeral": {}}),
            json!({"name": "i", "downwardAPI": {"items": [
                {"path": "l", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['bad key']"}},
                {"path": "r", "resourceFieldRef": {"containerName": "app", "resource": "limits.gpu"}}]}}),
            json!({"name": "j", "csi": {"driver": "csi.example", "nodePublishSecretRef": {"name": "Bad"}}}),
        ];
        let (valid, errs) = validate_volumes(&bad, "", PodOptions::default(), "v");
        assert!(valid.is_empty());
        let found = texts(&errs);
        let expected_starts = [
            "v[0].gitRepo.repository: Required value",
            "v[0].gitRepo.directory: Invalid value: \"/abs\": must be a relative path",
            "v[1].persistentDisk.pdName: Required value",
            "v[1].persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive",
            "v[2].nfs.path: Invalid value: \"exports\": must be an absolute path",
            "v[3].flocker: Invalid value: \"resource\": datasetName and datasetUUID can not be specified simultaneously",
            "v[3].flocker.datasetName: Invalid value: \"x/y\": must not contain '/'",
            "v[4].cephfs.monitors: Required value",
            "v[5].flexVolume.options[kubernetes.io/secret]: Invalid value: \"kubernetes.io/secret\": kubernetes.io and k8s.io namespaces are reserved",
            "v[6].storageos.volumeName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label",
            "v[7].ephemeral.volumeClaimTemplate: Required value",
            "v[8].downwardAPI.fieldRef: Invalid value: \"bad key\": name part must consist of",
            "v[8].downwardAPI.resourceFieldRef.resource: Unsupported value: \"limits.gpu\": supported values: \"limits.cpu\"",
            "v[9].csi.name: Invalid value: \"Bad\": a lowercase RFC 1123 subdomain",
        ];
        assert_eq!(found.len(), expected_starts.len(), "{found:#?}");
        for (text, start) in found.iter().zip(expected_starts) {
            assert!(text.starts_with(start), "{text} does not start with {start}");
        }
        let good = [
            json!({"name": "a", "gitRepo": {"repository": "https://git.example/r", "directory": "."}}),
            json!({"name": "b", "nfs": {"server": "nfs.example", "path": "/exports"}}),
            json!({"name": "c", "downwardAPI": {"items": [
                {"path": "l", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['app']"}},
                {"path": "r", "resourceFieldRef": {"containerName": "app", "resource": "requests.hugepages-2Mi"}}]}}),
        ];
        let (valid, errs) = validate_volumes(&good, "", PodOptions::default(), "v");
        assert!(errs.is_empty(), "{:?}", texts(&errs));
        assert_eq!(valid.len(), 3);
    }

    #[test]
    fn local_paths() {
        assert!(local_non_reserved_path("a/b", "p").is_empty());
        assert_eq!(
            texts(&local_non_reserved_path("..a", "p")),
            ["p: Invalid value: \"..a\": must not start with '..'"]
        );
        assert_eq!(texts(&local_non_reserved_path("../a", "p")), ["p: Invalid value: \"../a\": must not contain '..'"]);
    }

    /// `AllowNonLocalProjectedTokenPath`: a projected token's path is only required.
    #[test]
    fn non_local_token_paths_ratchet() {
        let vols = [
            json!({"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "/abs", "expirationSeconds": 3600}},
                                                                  {"serviceAccountToken": {"path": "", "expirationSeconds": 3600}}]}}),
        ];
        let (_, strict) = validate_volumes(&vols, "", PodOptions::default(), "v");
        assert_eq!(
            texts(&strict),
            [
                "v[0].projected.path: Invalid value: \"/abs\": must be a relative path",
                "v[0].projected.path: Required value"
            ]
        );
        let relaxed = PodOptions { allow_non_local_projected_token_path: true, ..PodOptions::default() };
        let (_, errs) = validate_volumes(&vols, "", relaxed, "v");
        assert_eq!(texts(&errs), ["v[0].projected.path: Required value"]);
        assert_eq!(PodOptions::from_old_spec(&json!({"volumes": vols})), relaxed);
        let local =
            json!({"volumes": [{"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": ""}}]}}]});
        assert_eq!(PodOptions::from_old_spec(&local), PodOptions::default());
    }
}
