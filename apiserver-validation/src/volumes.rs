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
//! `validatePortworxVolumeSource`, `validateStorageOSVolumeSource`,
//! `validateProjectedVolumeSource` (`validateProjectionSources`), `validateScaleIOVolumeSource`,
//! `validateCSIVolumeSource`, `validateEphemeralVolumeSource` (the template required),
//! `validateKeyToPath`, `validateDownwardAPIVolumeFile`, `ValidateLocalNonReservedPath`,
//! `validateLocalDescendingPath`, `validatePathNoBacksteps`, `validateHostPathType`;
//! `ValidateVolumeMounts` (`validateMountPropagation`, `validateMountRecursiveReadOnly`).
//!
//! Go does not check an `emptyDir`'s `medium` (any text passes), only a negative `sizeLimit`.
//! Not modelled: iSCSI, FC, Quobyte and Azure Disk details, an ephemeral volume's claim template
//! and its generated claim's name, cluster trust bundles, image volume sources' own fields,
//! volume devices, and the projected service account token's requirement of a service
//! account name (the ServiceAccount admission plugin sets one before any webhook is called).

use serde_json::Value;

use crate::content;
use crate::field::{BadValue, FieldError};
use crate::field_formats::{dns_label, inclusive_range, str_value};
use crate::quantity;
use crate::zero_values::{list, present, s};

/// `fileModeErrorMsg`.
pub const FILE_MODE_ERROR: &str = "must be a number between 0 and 0777 (octal), both inclusive";
const MORE_THAN_ONE: &str = "may not specify more than 1 volume type";
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
    v.get(key).and_then(Value::as_i64)
}

fn required(path: &str) -> FieldError {
    FieldError::required(path, "")
}

fn require_str(v: &Value, key: &str, path: &str, errs: &mut Vec<FieldError>) {
    if s(v, key).is_empty() {
        errs.push(required(&format!("{path}.{key}")));
    }
}

/// `validatePathNoBacksteps`: no `..` element (one error however many; `/` is the apiserver's
/// separator, `filepath.ToSlash` changes nothing on Linux).
pub fn path_no_backsteps(target: &str, path: &str) -> Vec<FieldError> {
    if target.split('/').any(|p| p == "..") {
        vec![FieldError::invalid(path, str_value(target), "must not contain '..'")]
    } else {
        Vec::new()
    }
}

/// `validateLocalDescendingPath`: relative, without `..`.
pub fn local_descending_path(target: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if target.starts_with('/') {
        errs.push(FieldError::invalid(path, str_value(target), "must be a relative path"));
    }
    errs.extend(path_no_backsteps(target, path));
    errs
}

/// `ValidateLocalNonReservedPath`: [`local_descending_path`], and not starting with `..`.
pub fn local_non_reserved_path(target: &str, path: &str) -> Vec<FieldError> {
    let mut errs = local_descending_path(target, path);
    if target.starts_with("..") && !target.starts_with("../") {
        errs.push(FieldError::invalid(path, str_value(target), "must not start with '..'"));
    }
    errs
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
    errs.extend(divisor(resource, fs.get("divisor"), path));
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
    let field_ref_v = file.get("fieldRef").filter(|v| !v.is_null());
    let resource_v = file.get("resourceFieldRef").filter(|v| !v.is_null());
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

/// `validateProjectedVolumeSource` and `validateProjectionSources`.
fn projected(src: &Value, path: &str) -> Vec<FieldError> {
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
            let Some(obj) = source.get(kind).filter(|v| !v.is_null()) else { continue };
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
        if let Some(d) = source.get("downwardAPI").filter(|v| !v.is_null()) {
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
        if let Some(t) = source.get("serviceAccountToken").filter(|v| !v.is_null()) {
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
            } else {
                errs.extend(local_non_reserved_path(token_path, &format!("{path}.path")));
            }
        }
        if source.get("clusterTrustBundle").is_some_and(|v| !v.is_null()) {
            n += 1;
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
fn source_errors(key: &str, src: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let p = format!("{path}.{key}");
    match key {
        "emptyDir" => {
            let negative = src
                .get("sizeLimit")
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
            if let Some(t) = src.get("type").and_then(Value::as_str) {
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
            if let Some(r) = src.get("secretRef").filter(|v| !v.is_null()) {
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
            if let Some(options) = src.get("options").and_then(Value::as_object) {
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
            if let Some(r) = src.get("secretRef").filter(|v| !v.is_null()) {
                require_str(r, "name", &format!("{p}.secretRef"), &mut errs);
            }
        }
        "projected" => errs.extend(projected(src, &p)),
        "scaleIO" => {
            for k in ["gateway", "system", "volumeName"] {
                require_str(src, k, &p, &mut errs);
            }
        }
        "csi" => {
            errs.extend(csi_driver_name(s(src, "driver"), &format!("{p}.driver")));
            if let Some(r) = src.get("nodePublishSecretRef").filter(|v| !v.is_null()) {
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
        "ephemeral" if !present(src, "volumeClaimTemplate") => errs.push(required(&format!("{p}.volumeClaimTemplate"))),
        _ => {}
    }
    errs
}

/// `validateVolumeSource`: exactly one source, and that source's own checks.
fn volume_source(v: &Value, path: &str) -> (Option<&'static str>, Vec<FieldError>) {
    let mut errs = Vec::new();
    let mut first = None;
    for (key, forbidden_key) in GO_ORDER {
        let Some(src) = v.get(*key).filter(|x| !x.is_null()) else { continue };
        if first.is_some() {
            errs.push(FieldError::forbidden(&format!("{path}.{forbidden_key}"), MORE_THAN_ONE));
        } else {
            first = Some(*key);
            errs.extend(source_errors(key, src, path));
        }
    }
    if first.is_none() {
        errs.push(FieldError::required(path, "must specify a volume type"));
    }
    (first, errs)
}

/// `ValidateVolumes`: each volume's source, a unique DNS-label name. Returns the volumes it
/// accepted (the ones a mount may name).
pub fn validate_volumes<'v>(vols: &'v [Value], path: &str) -> (Vec<ValidVolume<'v>>, Vec<FieldError>) {
    let mut valid: Vec<ValidVolume<'v>> = Vec::new();
    let mut errs = Vec::new();
    for (i, v) in vols.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let (source, mut el) = volume_source(v, &p);
        let name = s(v, "name");
        if name.is_empty() {
            el.push(required(&format!("{p}.name")));
        } else {
            el.extend(dns_label(name, &format!("{p}.name")));
        }
        if valid.iter().any(|x| x.name == name) {
            el.push(FieldError::duplicate(&format!("{p}.name"), str_value(name)));
        }
        match source {
            Some(source) if el.is_empty() => valid.push(ValidVolume { name, source }),
            _ => errs.extend(el),
        }
    }
    (valid, errs)
}

/// `ValidateVolumeMounts`: a name of a volume of the pod, a unique mount path, a relative
/// `subPath` / `subPathExpr` (not both, neither on an image volume), a supported mount
/// propagation (Bidirectional for a privileged container only), `recursiveReadOnly`'s rules.
/// Go names the sub path, propagation and recursive read-only errors without the mount's index.
pub fn validate_volume_mounts(
    mounts: &[Value],
    volumes: &[ValidVolume<'_>],
    container: &Value,
    path: &str,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
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
        let (sub_path, sub_path_expr) = (s(m, "subPath"), s(m, "subPathExpr"));
        if volume.is_some_and(|v| v.source == "image") {
            if !sub_path.is_empty() {
                errs.push(FieldError::invalid(
                    &format!("{p}.subPath"),
                    str_value(sub_path),
                    "not allowed in image volume sources",
                ));
            }
            if !sub_path_expr.is_empty() {
                errs.push(FieldError::invalid(
                    &format!("{p}.subPathExpr"),
                    str_value(sub_path_expr),
                    "not allowed in image volume sources",
                ));
            }
        }
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
        let propagation = m.get("mountPropagation").and_then(Value::as_str);
        if let Some(mode) = propagation {
            let pp = format!("{path}.mountPropagation");
            if !MOUNT_PROPAGATIONS.contains(&mode) {
                errs.push(FieldError::not_supported(&pp, str_value(mode), MOUNT_PROPAGATIONS));
            }
            let privileged = container.pointer("/securityContext/privileged").and_then(Value::as_bool) == Some(true);
            if mode == "Bidirectional" && !privileged {
                errs.push(FieldError::forbidden(
                    &pp,
                    "Bidirectional mount propagation is available only to privileged containers",
                ));
            }
        }
        if let Some(rro) = m.get("recursiveReadOnly").and_then(Value::as_str) {
            let rp = format!("{path}.recursiveReadOnly");
            match rro {
                "Disabled" => {}
                "Enabled" | "IfPossible" => {
                    if m.get("readOnly").and_then(Value::as_bool) != Some(true) {
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
        let (valid, errs) = validate_volumes(&good, "spec.volumes");
        assert!(errs.is_empty(), "{:?}", texts(&errs));
        assert_eq!(valid.len(), 5);

        let bad = [
            json!({"name": "a", "emptyDir": {}, "secret": {"secretName": "s"}}),
            json!({"name": "b", "configMap": {"name": "", "defaultMode": 0o1000, "items": [{"key": "k", "path": "../up"}]}}),
            json!({"name": "c", "hostPath": {"path": "/x", "type": "Dir"}}),
            json!({"name": "d"}),
        ];
        let (valid, errs) = validate_volumes(&bad, "spec.volumes");
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
        let (valid, _) = validate_volumes(&vols, "spec.volumes");
        let container = json!({"name": "c"});
        let good = [json!({"name": "data", "mountPath": "/data", "subPath": "app", "mountPropagation": "None"})];
        assert!(validate_volume_mounts(&good, &valid, &container, "m").is_empty());
        let bad = [
            json!({"name": "data", "mountPath": "/a", "subPath": "/abs"}),
            json!({"name": "data", "mountPath": "/b", "mountPropagation": "Bidirectional"}),
            json!({"name": "data", "mountPath": "/c", "readOnly": false, "recursiveReadOnly": "Enabled"}),
        ];
        assert_eq!(
            texts(&validate_volume_mounts(&bad, &valid, &container, "m")),
            [
                "m.subPath: Invalid value: \"/abs\": must be a relative path",
                "m.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers",
                "m.recursiveReadOnly: Forbidden: may only be specified when readOnly is true",
            ]
        );
        let privileged = json!({"name": "c", "securityContext": {"privileged": true}});
        assert!(validate_volume_mounts(&bad[1..2], &valid, &privileged, "m").is_empty());
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
        let (valid, errs) = validate_volumes(&bad, "v");
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
        let (valid, errs) = validate_volumes(&good, "v");
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
}
