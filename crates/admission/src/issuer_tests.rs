//! Upstream's `ValidateIssuerConfig` cases, with the texts its webhook answers.

use certgate_api::cert_manager::IssuerConfig;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::validate;

fn texts(spec: Value) -> Vec<String> {
    let config: IssuerConfig = serde_json::from_value(spec).expect("an issuer spec");
    validate(&config).iter().map(ToString::to_string).collect()
}

#[test]
fn one_configured_type_passes() {
    let valid = [
        json!({"selfSigned": {}}),
        json!({"ca": {"secretName": "root"}}),
        json!({"ca": {"secretName": "root", "ocspServers": ["http://ocsp"], "issuingCertificateURLs": ["http://ca"]}}),
        json!({"acme": {"server": "https://acme.example/dir", "privateKeySecretRef": {"name": "k"}}}),
        json!({"vault": {"server": "https://vault", "path": "pki/sign/x", "auth": {"tokenSecretRef": {"name": "t", "key": "k"}}}}),
        json!({"venafi": {"zone": "z", "cloud": {"apiTokenSecretRef": {"name": "t"}}}}),
    ];
    for spec in valid {
        assert_eq!(texts(spec.clone()), Vec::<String>::new(), "{spec}");
    }
}

#[test]
fn each_rule_answers_with_upstreams_text() {
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({}), vec!["spec: Required value: at least one issuer must be configured"]),
        (
            json!({"ca": {"secretName": "root"}, "selfSigned": {}}),
            vec!["spec.selfSigned: Forbidden: may not specify more than one issuer type"],
        ),
        (
            json!({"acme": {"server": "s", "privateKeySecretRef": {"name": "k"}}, "ca": {"secretName": ""}, "vault": {}, "venafi": {}}),
            vec![
                "spec.ca: Forbidden: may not specify more than one issuer type",
                "spec.vault: Forbidden: may not specify more than one issuer type",
                "spec.venafi: Forbidden: may not specify more than one issuer type",
            ],
        ),
        (json!({"ca": {"secretName": ""}}), vec!["spec.ca.secretName: Required value"]),
        (
            json!({"ca": {"secretName": "r", "ocspServers": [""], "issuingCertificateURLs": ["", "x"]}}),
            vec![
                "spec.ca.ocspServer[0]: Invalid value: \"\": must be a valid URL, e.g., http://ocsp.int-x3.letsencrypt.org",
                "spec.ca.issuingCertificateURLs[0]: Invalid value: \"\": must be a valid URL",
            ],
        ),
        (
            json!({"acme": {}}),
            vec![
                "spec.acme.privateKeySecretRef.name: Required value: private key secret name is a required field",
                "spec.acme.server: Required value: acme server URL is a required field",
            ],
        ),
        (
            json!({"acme": {"server": "s", "privateKeySecretRef": {"name": "k"}, "caBundle": "Zm9v", "skipTLSVerify": true, "externalAccountBinding": {"keySecretRef": {"name": "e"}}}}),
            vec![
                "spec.acme.caBundle: Invalid value: \"\": caBundle and skipTLSVerify are mutually exclusive and cannot both be set",
                "spec.acme.skipTLSVerify: Invalid value: true: caBundle and skipTLSVerify are mutually exclusive and cannot both be set",
                "spec.acme.externalAccountBinding.keyID: Required value: the keyID field is required when using externalAccountBinding",
                "spec.acme.externalAccountBinding.keySecretRef.key: Required value: secret key is required",
            ],
        ),
        (
            json!({"vault": {"path": "pki/../x", "clientCertSecretRef": {"name": "c"}, "auth": {}}}),
            vec![
                "spec.vault.server: Required value",
                "spec.vault.path: Invalid value: \"pki/../x\": must not contain '..' path segments",
                "spec.vault.clientKeySecretRef: Invalid value: \"<snip>\": clientKeySecretRef must be provided when defining the clientCertSecretRef",
                "spec.vault.auth: Required value: please supply one of: appRole, kubernetes, tokenSecretRef, clientCertificate, aws",
            ],
        ),
        (
            json!({"vault": {"server": "s", "path": "p", "caBundle": "Zm9v", "caBundleSecretRef": {"name": "b"}, "auth": {"appRole": {"path": "approle"}, "kubernetes": {"secretRef": {"name": "x"}}}}}),
            vec![
                "spec.vault.caBundle: Invalid value: \"<snip>\": specified caBundle and caBundleSecretRef cannot be used together",
                "spec.vault.caBundleSecretRef: Invalid value: \"b\": specified caBundleSecretRef and caBundle cannot be used together",
                "spec.vault.auth.appRole.roleId: Required value",
                "spec.vault.auth.appRole.secretRef.name: Required value",
                "spec.vault.auth.kubernetes.role: Required value",
            ],
        ),
        (
            json!({"venafi": {}}),
            vec![
                "spec.venafi.zone: Required value",
                "spec.venafi: Required value: please supply one of: tpp, cloud, ngts",
            ],
        ),
        (
            json!({"venafi": {"zone": "z", "tpp": {"caBundle": "Zm9v", "caBundleSecretRef": {"name": "b"}}, "cloud": {}}}),
            vec![
                "spec.venafi.tpp.url: Required value",
                "spec.venafi.tpp: Forbidden: may not specify more than one of caBundle/caBundleSecretRef as TPP CA Bundle",
                "spec.venafi: Forbidden: please supply one of: tpp, cloud, ngts",
            ],
        ),
        (
            json!({"venafi": {"zone": "z", "ngts": {}}}),
            vec![
                "spec.venafi.ngts.tsgID: Required value",
                "spec.venafi.ngts.credentialsRef.name: Required value",
            ],
        ),
    ];
    for (spec, expected) in cases {
        assert_eq!(texts(spec.clone()), expected, "{spec}");
    }
}
