//! The `response.patch` field is a Go `[]byte`, so Go's `encoding/json` decides what JSON it
//! accepts there: a string of standard base64 with padding (`\r` and `\n` skipped anywhere, as
//! Go's decoder does; URL-safe characters, spaces and missing padding rejected), `null` (no bytes),
//! or, for historical reasons, an array of numbers 0..=255 (`null` elements read as 0).

use serde_json::Value;

use crate::error::FieldError;

/// How the field was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldForm {
    /// A base64 string (the documented form).
    Base64String,
    /// A JSON array of byte values.
    ByteArray,
    /// JSON `null`.
    Null,
}

/// The bytes of the `patch` field and the form they were written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchBytes {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// How the field wrote them.
    pub form: FieldForm,
}

const INVALID: u8 = 0xff;

/// Each byte's value in the standard alphabet, [`INVALID`] for the rest.
const DECODE_MAP: [u8; 256] = {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut map = [INVALID; 256];
    let mut i = 0;
    while i < alphabet.len() {
        map[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    map
};

/// One step of Go's `(*base64.Encoding).decodeQuantum` for `StdEncoding`: returns the next source
/// index and the decoded bytes, or the offset of a `CorruptInputError`.
fn decode_quantum(src: &[u8], mut si: usize, out: &mut Vec<u8>) -> Result<usize, usize> {
    let mut dbuf = [0u8; 4];
    let mut j = 0usize;
    let mut dlen = 4usize;
    let mut trailing_garbage = None;
    while j < 4 {
        if si == src.len() {
            if j == 0 {
                return Ok(si);
            }
            // One leftover symbol, or a quantum missing its padding.
            return Err(si - j);
        }
        let c = src[si];
        si += 1;
        let v = DECODE_MAP[usize::from(c)];
        if v != INVALID {
            dbuf[j] = v;
            j += 1;
            continue;
        }
        if c == b'\n' || c == b'\r' {
            continue;
        }
        if c != b'=' {
            return Err(si - 1);
        }
        // Padding: only after two or three symbols.
        match j {
            0 | 1 => return Err(si - 1),
            2 => {
                while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                    si += 1;
                }
                if si == src.len() {
                    return Err(src.len());
                }
                if src[si] != b'=' {
                    return Err(si - 1);
                }
                si += 1;
            }
            _ => {}
        }
        while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
            si += 1;
        }
        if si < src.len() {
            trailing_garbage = Some(si);
        }
        dlen = j;
        break;
    }
    let val = u32::from(dbuf[0]) << 18 | u32::from(dbuf[1]) << 12 | u32::from(dbuf[2]) << 6 | u32::from(dbuf[3]);
    let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
    out.extend_from_slice(&bytes[..dlen - 1]);
    match trailing_garbage {
        Some(offset) => Err(offset),
        None => Ok(si),
    }
}

/// Go's `base64.StdEncoding.Decode` (non-strict): the error is the byte offset Go reports.
pub fn go_base64_decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3 + 3);
    let mut si = 0;
    while si < src.len() {
        // Four symbols of the alphabet (no padding, no line break) are a whole quantum, decoded
        // as `decode_quantum` decodes it.
        if let Some(&[a, b, c, d]) = src.get(si..si + 4) {
            let [a, b, c, d] = [a, b, c, d].map(|s| DECODE_MAP[usize::from(s)]);
            if (a | b | c | d) < 64 {
                let val = u32::from(a) << 18 | u32::from(b) << 12 | u32::from(c) << 6 | u32::from(d);
                out.extend_from_slice(&[(val >> 16) as u8, (val >> 8) as u8, val as u8]);
                si += 4;
                continue;
            }
        }
        si = decode_quantum(src, si, &mut out)?;
    }
    Ok(out)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `encoding/json` decoding of a JSON value into the `[]byte` field `patch`.
pub fn decode_patch_field(field: &Value) -> Result<PatchBytes, FieldError> {
    match field {
        Value::Null => Ok(PatchBytes { bytes: Vec::new(), form: FieldForm::Null }),
        Value::String(s) => go_base64_decode(s.as_bytes())
            .map(|bytes| PatchBytes { bytes, form: FieldForm::Base64String })
            .map_err(|offset| FieldError::Base64 { offset }),
        Value::Array(items) => {
            let mut bytes = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let byte = match item {
                    Value::Null => 0,
                    Value::Number(n) => match n.as_u64() {
                        Some(b) if b <= 255 => b as u8,
                        _ => return Err(FieldError::Element { index, value: format!("number {n}") }),
                    },
                    other => return Err(FieldError::Element { index, value: kind_of(other).to_string() }),
                };
                bytes.push(byte);
            }
            Ok(PatchBytes { bytes, form: FieldForm::ByteArray })
        }
        other => Err(FieldError::WrongType { kind: kind_of(other) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn base64_like_go() {
        assert_eq!(go_base64_decode(b"").unwrap(), b"");
        assert_eq!(go_base64_decode(b"YQ==").unwrap(), b"a");
        assert_eq!(go_base64_decode(b"YWI=").unwrap(), b"ab");
        assert_eq!(go_base64_decode(b"Y\nW\r\nI=\n").unwrap(), b"ab");
        assert_eq!(go_base64_decode(b"YQ"), Err(0));
        assert_eq!(go_base64_decode(b"YWJjYQ"), Err(4));
        assert_eq!(go_base64_decode(b"YQ=="), Ok(b"a".to_vec()));
        assert_eq!(go_base64_decode(b"YQ=x"), Err(2));
        assert_eq!(go_base64_decode(b"YQ="), Err(3));
        assert_eq!(go_base64_decode(b"YQ==YQ=="), Err(4));
        assert_eq!(go_base64_decode(b"Y==="), Err(1));
        assert_eq!(go_base64_decode(b"YWJj-A=="), Err(4));
        // Non-zero trailing bits are accepted (Go's StdEncoding is not strict).
        assert_eq!(go_base64_decode(b"YR==").unwrap(), b"a");
    }

    /// Whole quanta decoded at once give what `decode_quantum` alone gives, bytes and error
    /// offsets, over strings mixing the alphabet with padding, line breaks and foreign bytes.
    #[test]
    fn whole_quanta_decode_as_quantum_steps_do() {
        fn by_steps(src: &[u8]) -> Result<Vec<u8>, usize> {
            let mut out = Vec::new();
            let mut si = 0;
            while si < src.len() {
                si = decode_quantum(src, si, &mut out)?;
            }
            Ok(out)
        }
        let symbols = b"AZaz09+/==\n\r -_\x00\xff";
        let mut seed = 0x9e37_79b9_u32;
        let mut compared = 0;
        for len in 0..48usize {
            for _ in 0..200 {
                let src: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 17;
                        seed ^= seed << 5;
                        // Mostly the alphabet, so that long runs of whole quanta occur.
                        if seed.is_multiple_of(4) {
                            symbols[(seed >> 8) as usize % symbols.len()]
                        } else {
                            symbols[(seed >> 8) as usize % 8]
                        }
                    })
                    .collect();
                assert_eq!(go_base64_decode(&src), by_steps(&src), "{:?}", String::from_utf8_lossy(&src));
                compared += 1;
            }
        }
        assert_eq!(compared, 48 * 200);
    }

    #[test]
    fn agrees_with_a_standard_decoder_on_valid_input() {
        use base64::Engine as _;
        let mut seed = 0x2545_f491_u32;
        for len in 0..200usize {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    seed as u8
                })
                .collect();
            let encoded = base64::engine::general_purpose::STANDARD.encode(&data);
            assert_eq!(go_base64_decode(encoded.as_bytes()).unwrap(), data);
            // Line breaks anywhere are skipped, as in Go.
            let wrapped: String = encoded
                .chars()
                .enumerate()
                .flat_map(|(i, c)| if i % 7 == 3 { vec!['\r', '\n', c] } else { vec![c] })
                .collect();
            assert_eq!(go_base64_decode(wrapped.as_bytes()).unwrap(), data);
        }
    }

    #[test]
    fn field_forms() {
        assert_eq!(decode_patch_field(&json!(null)).unwrap().form, FieldForm::Null);
        let arr = decode_patch_field(&json!([91, 93, null])).unwrap();
        assert_eq!(arr.bytes, vec![91, 93, 0]);
        assert_eq!(arr.form, FieldForm::ByteArray);
        assert_eq!(
            decode_patch_field(&json!([1, 256])).unwrap_err().to_string(),
            "json: cannot unmarshal number 256 into .patch.1 of type uint8"
        );
        assert_eq!(
            decode_patch_field(&json!([-1])).unwrap_err().to_string(),
            "json: cannot unmarshal number -1 into .patch.0 of type uint8"
        );
        assert_eq!(
            decode_patch_field(&json!(["a"])).unwrap_err().to_string(),
            "json: cannot unmarshal string into .patch.0 of type uint8"
        );
        assert_eq!(
            decode_patch_field(&json!({})).unwrap_err().to_string(),
            "json: cannot unmarshal object into Go struct field .patch of type []uint8"
        );
        assert_eq!(
            decode_patch_field(&json!(true)).unwrap_err().to_string(),
            "json: cannot unmarshal bool into Go struct field .patch of type []uint8"
        );
        let e = decode_patch_field(&json!("a b")).unwrap_err();
        assert_eq!(e.cause().unwrap(), "illegal base64 data at input byte 1");
    }
}
