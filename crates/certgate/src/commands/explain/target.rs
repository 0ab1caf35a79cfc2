//! Which CertificateRequest `certgate explain` is about: `certificaterequest NAME` or
//! `certificaterequest/NAME`, with the resource spelled as kubectl accepts it.

use super::ExplainError;

/// The resource names kubectl resolves to CertificateRequests: the plural, the singular and
/// cert-manager's short names, optionally qualified with the API group (and version).
const ALIASES: [&str; 4] = ["certificaterequests", "certificaterequest", "cr", "crs"];
const GROUP_SUFFIXES: [&str; 2] = [".v1.cert-manager.io", ".cert-manager.io"];

/// Whether `resource` names CertificateRequests, case-insensitively as kubectl reads it.
pub fn is_certificate_request(resource: &str) -> bool {
    let resource = resource.to_ascii_lowercase();
    let base =
        GROUP_SUFFIXES.iter().find_map(|suffix| resource.strip_suffix(suffix)).unwrap_or(&resource);
    ALIASES.contains(&base)
}

/// The request's name from the positional arguments: `RESOURCE NAME` or `RESOURCE/NAME`.
pub fn request_name(resource: &str, name: Option<&str>) -> Result<String, ExplainError> {
    let usage = |text: String| Err(ExplainError::Usage(text));
    let (resource, name) = match (resource.split_once('/'), name) {
        (Some(_), Some(_)) => {
            return usage(
                "there is no need to specify a resource type as a separate argument when passing \
                 arguments in resource/name form (e.g. 'certgate explain certificaterequest/NAME')"
                    .to_owned(),
            );
        }
        (Some((resource, name)), None) => (resource, Some(name)),
        (None, name) => (resource, name),
    };
    if !is_certificate_request(resource) {
        return usage(format!(
            "explain only knows CertificateRequests (certificaterequest, certificaterequests, cr, \
             crs), not {}: run 'certgate explain certificaterequest NAME'",
            certgate_gofmt::quote(resource)
        ));
    }
    match name {
        Some(name) if !name.is_empty() && !name.contains('/') => Ok(name.to_owned()),
        Some(name) if !name.is_empty() => {
            let name = certgate_gofmt::quote(name);
            usage(format!("{name} is not a CertificateRequest name: names cannot contain '/'"))
        }
        _ => usage(
            "the name of the CertificateRequest to explain has to be provided: \
             'certgate explain certificaterequest NAME'"
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(resource: &str, name: Option<&str>) -> Result<String, String> {
        request_name(resource, name).map_err(|err| err.to_string())
    }

    #[test]
    fn every_kubectl_spelling_of_the_resource_is_accepted() {
        for resource in [
            "certificaterequest",
            "certificaterequests",
            "cr",
            "crs",
            "CertificateRequest",
            "CR",
            "certificaterequests.cert-manager.io",
            "certificaterequest.v1.cert-manager.io",
        ] {
            assert_eq!(name(resource, Some("api-tls")), Ok("api-tls".to_owned()), "{resource}");
            assert_eq!(
                name(&format!("{resource}/api-tls"), None),
                Ok("api-tls".to_owned()),
                "{resource}/"
            );
        }
    }

    #[test]
    fn other_resources_and_missing_names_are_usage_errors() {
        for resource in ["pods", "certificates", "crp", "cr.example.com", "api-tls"] {
            let err = name(resource, Some("x")).unwrap_err();
            assert!(err.contains("explain only knows CertificateRequests"), "{resource}: {err}");
        }
        for (resource, given) in [("cr", None), ("cr/", None), ("certificaterequest", Some(""))] {
            let err = name(resource, given).unwrap_err();
            assert!(err.contains("has to be provided"), "{resource}: {err}");
        }
        assert!(name("cr/a", Some("b")).unwrap_err().contains("resource/name form"));
        assert!(name("cr/a/b", None).unwrap_err().contains("cannot contain '/'"));
    }
}
