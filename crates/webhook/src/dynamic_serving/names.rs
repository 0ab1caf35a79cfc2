//! The serving certificate's subject alternative names (`--dynamic-serving-dns-names`).

use std::net::IpAddr;

use rustls::pki_types::ServerName;

use super::error::NamesError;

/// Checked, lower-cased, duplicate-free DNS names and IP addresses, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServingNames(Vec<String>);

impl ServingNames {
    /// Each value may hold several names separated by commas (clap splits them already when
    /// the flag is declared with a delimiter; splitting again is harmless).
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Self, NamesError> {
        let mut names: Vec<String> = Vec::new();
        for value in values {
            for name in value.as_ref().split(',') {
                let name = name.trim();
                if name.is_empty() {
                    return Err(NamesError::EmptyName);
                }
                let name = match name.parse::<IpAddr>() {
                    Ok(ip) => ip.to_string(),
                    Err(_) => {
                        let lower = name.to_ascii_lowercase();
                        match ServerName::try_from(lower.as_str()) {
                            Ok(ServerName::DnsName(_)) => lower,
                            _ => return Err(NamesError::Invalid { name: name.to_owned() }),
                        }
                    }
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        if names.is_empty() {
            return Err(NamesError::Empty);
        }
        Ok(Self(names))
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_checks_and_deduplicates() {
        let names =
            ServingNames::parse(&["Webhook.certgate.svc, 127.0.0.1", "::1,webhook.certgate.svc"])
                .unwrap();
        assert_eq!(names.as_slice(), ["webhook.certgate.svc", "127.0.0.1", "::1"]);
    }

    #[test]
    fn refuses_empty_and_invalid_names() {
        assert_eq!(ServingNames::parse::<&str>(&[]), Err(NamesError::Empty));
        assert_eq!(ServingNames::parse(&["a,,b"]), Err(NamesError::EmptyName));
        let err = ServingNames::parse(&["b\u{fc}cher.example"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--dynamic-serving-dns-names: \"bücher.example\" is neither a DNS name nor an IP address; give names such as certgate-webhook.certgate.svc or 10.0.0.7"
        );
        assert!(ServingNames::parse(&["under_score..example"]).is_err());
    }
}
