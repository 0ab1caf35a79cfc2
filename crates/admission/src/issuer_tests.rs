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
        json!({"acme": {"server": "https://acme.example/dir", "privateKeySecretRef": {"name": "k"}, "solvers": [
            {"http01": {"ingress": {"ingressClassName": "nginx", "serviceType": "NodePort"}}, "waitInsteadOfSelfCheck": "30s"},
            {"http01": {"gatewayHTTPRoute": {"parentRefs": [{"name": "gw", "kind": "Gateway"}]}}},
            {"dns01": {"cnameStrategy": "Follow", "cloudflare": {"apiTokenSecretRef": {"name": "t", "key": "k"}}}, "selector": {"dnsZones": ["example.com"]}},
        ]}}),
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
            json!({"acme": {"server": "s", "privateKeySecretRef": {"name": "k"}, "solvers": [
                {},
                {"http01": {"ingress": {"class": "nginx", "name": "web", "ingressClassName": "Bad_Class", "serviceType": "LoadBalancer"}}, "dns01": {"webhook": {"solverName": "x"}}},
                {"http01": {"ingress": {}, "gatewayHTTPRoute": {"parentRefs": [{"kind": "Gateway"}, {"name": "x"}]}}},
                {"http01": {}},
                {"dns01": {"cnameStrategy": "Sometimes", "cloudflare": {}, "route53": {}, "acmeDNS": {}, "webhook": {}}, "waitInsteadOfSelfCheck": "-5s"},
                {"dns01": {}},
            ]}}),
            vec![
                "spec.acme.solvers[0]: Required value: no solver type configured",
                "spec.acme.solvers[1].http01.ingress: Forbidden: only one of 'ingressClassName', 'name' or 'class' should be specified",
                "spec.acme.solvers[1].http01.ingress.ingressClassName: Invalid value: \"Bad_Class\": must be a valid IngressClass name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.acme.solvers[1].http01.ingress.serviceType: Invalid value: \"LoadBalancer\": must be empty, \"ClusterIP\" or \"NodePort\"",
                "spec.acme.solvers[1]: Forbidden: may not specify more than one solver type in a single solver",
                "spec.acme.solvers[2].http01.gateway.parentRefs[0].name: Required value: name is required when kind is specified",
                "spec.acme.solvers[2].http01: Required value: only 1 HTTP01 solver type may be configured",
                "spec.acme.solvers[3].http01: Required value: no HTTP01 solver type configured",
                "spec.acme.solvers[4].dns01.cnameStrategy: Invalid value: \"Sometimes\": must be one of \"None\" or \"Follow\"",
                "spec.acme.solvers[4].dns01.route53: Forbidden: may not specify more than one provider type",
                "spec.acme.solvers[4].dns01.webhook: Forbidden: may not specify more than one provider type",
                "spec.acme.solvers[4].waitInsteadOfSelfCheck: Invalid value: -5000000000: waitInsteadOfSelfCheck must not be negative",
                "spec.acme.solvers[5].dns01: Required value: no DNS01 provider configured",
            ],
        ),
        (
            json!({"acme": {"server": "s", "privateKeySecretRef": {"name": "k"}, "solvers": [
                {"http01": {"gatewayHTTPRoute": {"parentRefs": [{"name": "gw"}]}}},
                {"dns01": {"acmeDNS": {}, "akamai": {}}},
                {"dns01": {"webhook": {"groupName": "g"}}},
            ]}}),
            vec![
                "spec.acme.solvers[0].http01.gateway.parentRefs[0].kind: Required value: kind is required when name is specified",
                "spec.acme.solvers[2].dns01.webhook.solverName: Required value: solver name must be specified",
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
            json!({"vault": {"server": "s", "path": "p", "auth": {
                "appRole": {"path": "../approle", "roleId": "r", "secretRef": {"name": "s", "key": "k"}},
                "clientCertificate": {"mountPath": "/v1/auth/../cert"},
                "kubernetes": {"role": "r", "mountPath": "..", "secretRef": {"name": "t"}, "serviceAccountRef": {}},
                "aws": {"mountPath": "aws/..", "serviceAccountRef": {"name": "sa"}},
            }}}),
            vec![
                "spec.vault.auth.appRole.path: Invalid value: \"../approle\": must not contain '..' path segments",
                "spec.vault.auth.clientCertificate.path: Invalid value: \"/v1/auth/../cert\": must not contain '..' path segments",
                "spec.vault.auth.kubernetes.path: Invalid value: \"..\": must not contain '..' path segments",
                "spec.vault.auth.kubernetes.serviceAccountRef.name: Required value",
                "spec.vault.auth.kubernetes: Forbidden: please supply one of: secretRef, serviceAccountRef",
                "spec.vault.auth.aws.role: Required value",
                "spec.vault.auth.aws.mountPath: Invalid value: \"aws/..\": must not contain '..' path segments",
                "spec.vault.auth.aws.iamRoleArn: Required value: iamRoleArn is required when using serviceAccountRef for IRSA",
            ],
        ),
        (
            json!({"vault": {"server": "s", "path": "p", "auth": {"kubernetes": {"role": "r", "mountPath": "/v1/auth/k8s..x"}}}}),
            vec![
                "spec.vault.auth.kubernetes: Required value: please supply one of: secretRef, serviceAccountRef",
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
