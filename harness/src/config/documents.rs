//! The YAML documents of a manifest or CRD file, decoded as the apiserver's strict decoding reads
//! them: a value of the wrong type first, then every field the apiserver does not know, at once.

use std::path::Path;

use serde::de::DeserializeOwned;

use super::fields::{self, Objects};
use crate::error::{ManifestError, YamlDecodeError};

/// Each YAML document of `text` decoded as `T`, numbered from 1 (empty documents left out): a type
/// error names its document and field path; then the fields of `objects` the apiserver does not
/// know are all refused at once. `file` names the file in errors.
pub(crate) fn decode_strict<T: DeserializeOwned>(
    file: &Path,
    text: &str,
    objects: Objects,
) -> Result<Vec<(usize, T)>, ManifestError> {
    let mut documents = Vec::new();
    for (index, document) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let doc: Option<T> = serde_path_to_error::deserialize(document).map_err(|e| {
            let (path, message) = type_error(e);
            let location = match path {
                None => format!("document {}", index + 1),
                Some(path) => format!("document {}, {path}", index + 1),
            };
            ManifestError { file: file.to_path_buf(), location, message }
        })?;
        if let Some(doc) = doc {
            documents.push((index + 1, doc));
        }
    }
    if let Some(nodes) = super::lines::documents(text) {
        let unknown = fields::unknown_fields(&nodes, objects);
        if !unknown.is_empty() {
            return Err(fields::error(file, &unknown));
        }
    }
    Ok(documents)
}

/// A decoding error's field path (`None` at the top) and its message, which names the path once.
pub(crate) fn type_error(e: serde_path_to_error::Error<serde_yaml::Error>) -> (Option<String>, String) {
    let e = YamlDecodeError::from(e);
    (e.path, e.message)
}
