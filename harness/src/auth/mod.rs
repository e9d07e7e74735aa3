//! How the suite authenticates to webhooks, as the apiserver does: a client certificate, a bearer
//! token, or what an AdmissionConfiguration's kubeconfig gives for the webhook's host name
//! ([`Credentials`]); [`ClientIdentity`] is what is presented to one webhook.

mod identity;
mod kubeconfig;

pub use identity::ClientIdentity;
pub use kubeconfig::{target_of, AdmissionConfiguration};

use std::sync::Arc;

use crate::config::WebhookSpec;
use crate::error::{Error, OptionError};

/// How the suite authenticates to the webhooks it calls.
#[derive(Clone, Debug, Default)]
pub enum Credentials {
    /// Anonymous, as an apiserver without webhook credentials calls.
    #[default]
    None,
    /// The same identity for every webhook (`--client-cert`/`--client-key`, `--token`).
    Identity(ClientIdentity),
    /// A client certificate issued by the run's generated CA (`--client-cert generated`), with a
    /// bearer token too when one is given; only for a target the suite starts.
    Generated {
        /// A bearer token sent as well.
        token: Option<String>,
    },
    /// What the apiserver's AdmissionConfiguration and its kubeconfig give each webhook.
    AdmissionConfiguration(Arc<AdmissionConfiguration>),
}

impl Credentials {
    /// True when the run's CA must issue a client certificate.
    pub fn needs_generated_certificate(&self) -> bool {
        matches!(self, Credentials::Generated { .. })
    }

    /// The identity presented to `webhook`; `generated` is the certificate and key the run's CA
    /// issued, when it issued one.
    pub fn identity_for(
        &self,
        webhook: &WebhookSpec,
        generated: Option<&(String, String)>,
    ) -> Result<ClientIdentity, Error> {
        match self {
            Credentials::None => Ok(ClientIdentity::anonymous()),
            Credentials::Identity(identity) => Ok(identity.clone()),
            Credentials::Generated { token } => {
                let Some(pair) = generated else {
                    return Err(OptionError::GeneratedCertificate { flag: true }.into());
                };
                let identity = ClientIdentity {
                    certificate: Some(pair.clone()),
                    source: "the client certificate the run's CA issued (--client-cert generated)".into(),
                    ..ClientIdentity::default()
                };
                Ok(match token {
                    Some(t) => identity.with_token(t.clone()),
                    None => identity,
                })
            }
            Credentials::AdmissionConfiguration(config) => config.identity_for(webhook),
        }
    }
}
