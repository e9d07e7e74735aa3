//! Just enough DER (ITU-T X.690) to read the names of an X.509 certificate as RFC 5280 §4.1 lays
//! it out: the subject's first Common Name, and the DNS names and IP addresses of its
//! subjectAltName extension (§4.2.1.6), which is what Go's crypto/x509 matches a host against
//! (`Certificate.VerifyHostname`) and names in its `HostnameError`.

use std::net::IpAddr;

/// The DER tag of a SEQUENCE.
const SEQUENCE: u8 = 0x30;
/// The DER tag of a SET.
const SET: u8 = 0x31;
/// The DER tag of an OBJECT IDENTIFIER.
const OID: u8 = 0x06;
/// The DER tag of a BOOLEAN.
const BOOLEAN: u8 = 0x01;
/// The DER tag of an OCTET STRING.
const OCTET_STRING: u8 = 0x04;
/// `[0] EXPLICIT`: the version of a TBSCertificate.
const VERSION: u8 = 0xa0;
/// `[3] EXPLICIT`: the extensions of a TBSCertificate.
const EXTENSIONS: u8 = 0xa3;
/// `[2] IMPLICIT IA5String`: a GeneralName's dNSName.
const DNS_NAME: u8 = 0x82;
/// `[7] IMPLICIT OCTET STRING`: a GeneralName's iPAddress.
const IP_ADDRESS: u8 = 0x87;
/// id-at-commonName, 2.5.4.3, as encoded.
const COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];
/// id-ce-subjectAltName, 2.5.29.17, as encoded.
const SUBJECT_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x11];

/// Bytes that are not a certificate in DER.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DerError {
    /// The bytes end inside an element.
    #[error("truncated DER")]
    Truncated,
    /// A tag in the high-tag-number form, which no field of a certificate uses.
    #[error("DER tag number above 30")]
    HighTag,
    /// An indefinite length, or one wider than four bytes.
    #[error("DER length of an unsupported form")]
    Length,
    /// Another element than the layout has there.
    #[error("expected DER tag {expected:#04x}, found {found:#04x}")]
    Unexpected {
        /// The tag the layout has.
        expected: u8,
        /// The tag found.
        found: u8,
    },
}

/// The names of a certificate, as encoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Names {
    /// The subject's first Common Name, when it is text.
    pub common_name: Option<String>,
    /// The subjectAltName extension's DNS names and IP addresses, when it has the extension.
    pub san: Option<San>,
}

/// The DNS names and IP addresses of a subjectAltName extension.
pub(crate) type San = (Vec<String>, Vec<IpAddr>);

/// One element: its tag, its contents and what follows it.
fn element(input: &[u8]) -> Result<(u8, &[u8], &[u8]), DerError> {
    let (&tag, rest) = input.split_first().ok_or(DerError::Truncated)?;
    if tag & 0x1f == 0x1f {
        return Err(DerError::HighTag);
    }
    let (&first, rest) = rest.split_first().ok_or(DerError::Truncated)?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return Err(DerError::Length);
        }
        let bytes = rest.get(..n).ok_or(DerError::Truncated)?;
        (bytes.iter().fold(0usize, |len, b| (len << 8) | usize::from(*b)), &rest[n..])
    };
    let contents = rest.get(..len).ok_or(DerError::Truncated)?;
    Ok((tag, contents, &rest[len..]))
}

/// One element that must have tag `expected`: its contents and what follows it.
fn expect(input: &[u8], expected: u8) -> Result<(&[u8], &[u8]), DerError> {
    match element(input)? {
        (tag, contents, rest) if tag == expected => Ok((contents, rest)),
        (found, _, _) => Err(DerError::Unexpected { expected, found }),
    }
}

/// What follows the element that starts `input`.
fn skip(input: &[u8]) -> Result<&[u8], DerError> {
    element(input).map(|(_, _, rest)| rest)
}

/// The names of the DER certificate `der`.
pub(crate) fn names(der: &[u8]) -> Result<Names, DerError> {
    let (certificate, _) = expect(der, SEQUENCE)?;
    let (tbs, _) = expect(certificate, SEQUENCE)?;
    let mut rest = tbs;
    if rest.first() == Some(&VERSION) {
        rest = skip(rest)?;
    }
    // serialNumber, signature, issuer, validity.
    for _ in 0..4 {
        rest = skip(rest)?;
    }
    let (subject, rest) = expect(rest, SEQUENCE)?;
    let mut rest = skip(rest)?; // subjectPublicKeyInfo
    let mut names = Names { common_name: common_name(subject)?, san: None };
    while !rest.is_empty() {
        let (tag, contents, next) = element(rest)?;
        rest = next;
        if tag == EXTENSIONS {
            let (extensions, _) = expect(contents, SEQUENCE)?;
            names.san = subject_alt_name(extensions)?;
        }
    }
    Ok(names)
}

/// The first commonName attribute of a Name whose value is text.
fn common_name(mut name: &[u8]) -> Result<Option<String>, DerError> {
    while !name.is_empty() {
        let (rdn, next) = expect(name, SET)?;
        name = next;
        let mut attributes = rdn;
        while !attributes.is_empty() {
            let (attribute, next) = expect(attributes, SEQUENCE)?;
            attributes = next;
            let (oid, value) = expect(attribute, OID)?;
            if oid == COMMON_NAME {
                let (tag, text, _) = element(value)?;
                // UTF8String, PrintableString, TeletexString, IA5String, VisibleString.
                if matches!(tag, 0x0c | 0x13 | 0x14 | 0x16 | 0x1a) {
                    return Ok(std::str::from_utf8(text).ok().map(str::to_string));
                }
                return Ok(None);
            }
        }
    }
    Ok(None)
}

/// The DNS names and IP addresses of the first subjectAltName extension, if there is one.
fn subject_alt_name(mut extensions: &[u8]) -> Result<Option<San>, DerError> {
    while !extensions.is_empty() {
        let (extension, next) = expect(extensions, SEQUENCE)?;
        extensions = next;
        let (oid, mut rest) = expect(extension, OID)?;
        if oid != SUBJECT_ALT_NAME {
            continue;
        }
        if rest.first() == Some(&BOOLEAN) {
            rest = skip(rest)?;
        }
        let (value, _) = expect(rest, OCTET_STRING)?;
        let (mut general_names, _) = expect(value, SEQUENCE)?;
        let (mut dns, mut ips) = (Vec::new(), Vec::new());
        while !general_names.is_empty() {
            let (tag, contents, next) = element(general_names)?;
            general_names = next;
            match tag {
                DNS_NAME => dns.push(String::from_utf8_lossy(contents).into_owned()),
                IP_ADDRESS => {
                    if let Ok(v4) = <[u8; 4]>::try_from(contents) {
                        ips.push(IpAddr::from(v4));
                    } else if let Ok(v6) = <[u8; 16]>::try_from(contents) {
                        ips.push(IpAddr::from(v6));
                    }
                }
                _ => {}
            }
        }
        return Ok(Some((dns, ips)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr};

    use rcgen::{CertificateParams, DistinguishedName, DnType, KeyPair, SanType, PKCS_ECDSA_P256_SHA256};

    use super::*;

    fn certificate(cn: Option<&str>, sans: Vec<SanType>) -> Vec<u8> {
        let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::OrganizationName, "org");
        if let Some(cn) = cn {
            dn.push(DnType::CommonName, cn);
        }
        params.distinguished_name = dn;
        params.subject_alt_names = sans;
        params.self_signed(&key).unwrap().der().to_vec()
    }

    /// x509-parser's reading of the same names.
    fn x509_parser_names(der: &[u8]) -> Names {
        use x509_parser::extensions::GeneralName;
        let (_, cert) = x509_parser::parse_x509_certificate(der).unwrap();
        let common_name = cert.subject().iter_common_name().next().and_then(|cn| cn.as_str().ok()).map(str::to_string);
        let san = cert.subject_alternative_name().unwrap().map(|san| {
            let (mut dns, mut ips) = (Vec::new(), Vec::new());
            for name in &san.value.general_names {
                match name {
                    GeneralName::DNSName(d) => dns.push(d.to_string()),
                    GeneralName::IPAddress(b) if b.len() == 4 => {
                        ips.push(IpAddr::from(<[u8; 4]>::try_from(*b).unwrap()))
                    }
                    GeneralName::IPAddress(b) => ips.push(IpAddr::from(<[u8; 16]>::try_from(*b).unwrap())),
                    _ => {}
                }
            }
            (dns, ips)
        });
        Names { common_name, san }
    }

    #[test]
    fn reads_the_names_x509_parser_reads() {
        let dns = |d: &str| SanType::DnsName(d.try_into().unwrap());
        for (cn, sans) in [
            (Some("hook.system.svc"), vec![]),
            (None, vec![dns("a.example"), dns("*.b.example")]),
            (Some("x"), vec![SanType::IpAddress(Ipv4Addr::LOCALHOST.into()), dns("c.example")]),
            (
                None,
                vec![SanType::IpAddress(Ipv6Addr::LOCALHOST.into()), SanType::Rfc822Name("a@b.c".try_into().unwrap())],
            ),
            (None, vec![]),
        ] {
            let der = certificate(cn, sans);
            let read = names(&der).unwrap();
            assert_eq!(read, x509_parser_names(&der), "{cn:?}");
            assert_eq!(read.common_name.as_deref(), cn);
        }
        let read =
            names(&certificate(Some("x"), vec![dns("a.example"), SanType::IpAddress(Ipv4Addr::LOCALHOST.into())]));
        assert_eq!(read.unwrap().san, Some((vec!["a.example".to_string()], vec![IpAddr::from(Ipv4Addr::LOCALHOST)])));
    }

    #[test]
    fn bytes_that_are_not_a_certificate_are_an_error_not_a_panic() {
        let der = certificate(Some("x"), vec![SanType::DnsName("a.example".try_into().unwrap())]);
        for end in 0..der.len() {
            assert!(names(&der[..end]).is_err(), "a certificate cut at {end} of {}", der.len());
        }
        assert_eq!(names(b"\x04\x00"), Err(DerError::Unexpected { expected: SEQUENCE, found: 0x04 }));
        assert_eq!(names(b"\x30\x80"), Err(DerError::Length));
        assert_eq!(names(b"\x3f\x00"), Err(DerError::HighTag));
        assert_eq!(names(b"\x30\x85\x01\x01\x01\x01\x01"), Err(DerError::Length));
    }
}
