//! Bound service-account tokens: compact JWS (ES256) with the claims kube-apiserver puts in
//! them, written and read without a JWT library (see docs/decisions/0004).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};

use super::signer::{SignerError, TokenSigner};

/// What a token says about the ServiceAccount it was issued for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServiceAccountClaims {
    pub(crate) audiences: Vec<String>,
    /// `iat` and `nbf`, Unix seconds.
    pub(crate) issued_at: i64,
    /// `exp`, Unix seconds.
    pub(crate) expires: i64,
    /// `jti`.
    pub(crate) id: String,
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) uid: String,
    /// The bound Secret, `(name, uid)`.
    pub(crate) secret: Option<(String, String)>,
}

/// The claims of a token whose issuer and signature checked out. Times are optional, as in
/// go-jose: a claim that is absent is not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct VerifiedClaims {
    pub(crate) audiences: Vec<String>,
    pub(crate) expires: Option<i64>,
    pub(crate) not_before: Option<i64>,
    pub(crate) issued_at: Option<i64>,
    pub(crate) id: String,
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) uid: String,
    pub(crate) secret: Option<(String, String)>,
}

/// Why a bearer token is not an acceptable service-account token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// Not a JWT of this issuer: other authenticators may still know it.
    NotOurs(&'static str),
    /// Our issuer, but the signature does not verify with our key.
    Signature(&'static str),
    /// Signed by us but the claims do not decode.
    Claims(&'static str),
}

/// The compact serialization of a token for `claims`, signed by `signer`. Header and payload
/// are encoded as go-jose does: object keys sorted, Go's JSON escaping.
pub(crate) fn issue(
    signer: &TokenSigner,
    issuer: &str,
    claims: &ServiceAccountClaims,
) -> Result<String, SignerError> {
    let header = json!({ "alg": "ES256", "kid": signer.key_id() });
    let mut kubernetes = Map::new();
    kubernetes.insert("namespace".into(), claims.namespace.clone().into());
    if let Some((name, uid)) = &claims.secret {
        kubernetes.insert("secret".into(), json!({ "name": name, "uid": uid }));
    }
    kubernetes.insert("serviceaccount".into(), json!({ "name": claims.name, "uid": claims.uid }));
    let payload = json!({
        "aud": claims.audiences,
        "exp": claims.expires,
        "iat": claims.issued_at,
        "iss": issuer,
        "jti": claims.id,
        "kubernetes.io": Value::Object(kubernetes),
        "nbf": claims.issued_at,
        "sub": format!("{}{}:{}", crate::names::SERVICE_ACCOUNT_PREFIX, claims.namespace, claims.name),
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(certgate_gofmt::json(&header)),
        URL_SAFE_NO_PAD.encode(certgate_gofmt::json(&payload))
    );
    let signature = signer.sign(signing_input.as_bytes())?;
    Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// Checks structure, issuer, algorithm and signature, then decodes the claims. Expiry,
/// audiences and the ServiceAccount are the caller's to check.
pub(crate) fn verify(
    signer: &TokenSigner,
    issuer: &str,
    token: &str,
) -> Result<VerifiedClaims, Rejection> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Rejection::NotOurs("not a JWT (three dot-separated parts)"));
    };
    // kube-apiserver looks at the (unverified) issuer first: tokens of other issuers belong
    // to other authenticators.
    let claims = decode_object(payload).ok_or(Rejection::NotOurs("not a JWT (payload)"))?;
    if claims.get("iss").and_then(Value::as_str) != Some(issuer) {
        return Err(Rejection::NotOurs("issued by another issuer"));
    }
    let header = decode_object(header).ok_or(Rejection::NotOurs("not a JWT (header)"))?;
    if header.get("alg").and_then(Value::as_str) != Some("ES256") {
        return Err(Rejection::Signature("algorithm is not ES256"));
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| Rejection::Signature("signature encoding"))?;
    // Everything before the last dot: header and payload exactly as they were signed.
    let signing_input = token.rfind('.').and_then(|dot| token.get(..dot)).unwrap_or_default();
    if !signer.verify(signing_input.as_bytes(), &signature) {
        return Err(Rejection::Signature("signature does not verify with the sandbox key"));
    }
    decode_claims(&claims)
}

fn decode_object(part: &str) -> Option<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD.decode(part).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

fn decode_claims(claims: &Map<String, Value>) -> Result<VerifiedClaims, Rejection> {
    let audiences = match claims.get("aud") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or(Rejection::Claims("aud is not a list of strings"))?,
        Some(_) => return Err(Rejection::Claims("aud is not a string or list")),
    };
    let kubernetes = match claims.get("kubernetes.io") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(Rejection::Claims("kubernetes.io is not an object")),
    };
    let reference = |key: &str| -> Result<Option<(String, String)>, Rejection> {
        match kubernetes.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some((string(map, "name")?, string(map, "uid")?))),
            Some(_) => Err(Rejection::Claims("object reference is not an object")),
        }
    };
    let (name, uid) = reference("serviceaccount")?.unwrap_or_default();
    Ok(VerifiedClaims {
        audiences,
        expires: numeric_date(claims, "exp")?,
        not_before: numeric_date(claims, "nbf")?,
        issued_at: numeric_date(claims, "iat")?,
        id: string(claims, "jti")?,
        namespace: string(&kubernetes, "namespace")?,
        name,
        uid,
        secret: reference("secret")?,
    })
}

/// A string claim; absent is empty, as Go decodes into a zero string.
fn string(map: &Map<String, Value>, key: &str) -> Result<String, Rejection> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(Rejection::Claims("a string claim is not a string")),
    }
}

/// A JWT `NumericDate`: seconds, fractions truncated as go-jose does.
fn numeric_date(map: &Map<String, Value>, key: &str) -> Result<Option<i64>, Rejection> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.is_finite() && f.abs() < 9.0e15).map(|f| f as i64))
            .map(Some)
            .ok_or(Rejection::Claims("a time claim is out of range")),
        Some(_) => Err(Rejection::Claims("a time claim is not a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

    fn claims() -> ServiceAccountClaims {
        ServiceAccountClaims {
            audiences: vec![ISSUER.into()],
            issued_at: 1_700_000_000,
            expires: 1_700_003_600,
            id: "0f8e4d36-2c4b-4f55-9d2b-3b4f2a1c9e77".into(),
            namespace: "default".into(),
            name: "builder".into(),
            uid: "uid-1".into(),
            secret: Some(("s".into(), "uid-s".into())),
        }
    }

    fn decode(part: &str) -> String {
        String::from_utf8(URL_SAFE_NO_PAD.decode(part).expect("base64")).expect("utf-8")
    }

    #[test]
    fn issues_kubernetes_shaped_tokens() {
        let signer = TokenSigner::generate().expect("key");
        let token = issue(&signer, ISSUER, &claims()).expect("token");
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(decode(parts[0]), format!(r#"{{"alg":"ES256","kid":"{}"}}"#, signer.key_id()));
        assert_eq!(
            decode(parts[1]),
            r#"{"aud":["https://kubernetes.default.svc.cluster.local"],"exp":1700003600,"iat":1700000000,"iss":"https://kubernetes.default.svc.cluster.local","jti":"0f8e4d36-2c4b-4f55-9d2b-3b4f2a1c9e77","kubernetes.io":{"namespace":"default","secret":{"name":"s","uid":"uid-s"},"serviceaccount":{"name":"builder","uid":"uid-1"}},"nbf":1700000000,"sub":"system:serviceaccount:default:builder"}"#
        );
        let verified = verify(&signer, ISSUER, &token).expect("verifies");
        assert_eq!(verified.audiences, vec![ISSUER.to_owned()]);
        assert_eq!(
            (verified.expires, verified.not_before, verified.issued_at),
            (Some(1_700_003_600), Some(1_700_000_000), Some(1_700_000_000))
        );
        assert_eq!((verified.namespace.as_str(), verified.name.as_str()), ("default", "builder"));
        assert_eq!(verified.secret, Some(("s".into(), "uid-s".into())));
    }

    #[test]
    fn rejects_tampering_and_strangers() {
        let signer = TokenSigner::generate().expect("key");
        let token = issue(&signer, ISSUER, &claims()).expect("token");
        let parts: Vec<&str> = token.split('.').collect();
        let forged_payload =
            URL_SAFE_NO_PAD.encode(decode(parts[1]).replace("builder", "admin").as_bytes());
        let forged = format!("{}.{forged_payload}.{}", parts[0], parts[2]);
        assert!(matches!(verify(&signer, ISSUER, &forged), Err(Rejection::Signature(_))));
        let other = TokenSigner::generate().expect("key");
        assert!(matches!(verify(&other, ISSUER, &token), Err(Rejection::Signature(_))));
        assert!(matches!(verify(&signer, "https://other", &token), Err(Rejection::NotOurs(_))));
        let none_alg = format!("{}.{}.", URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#), parts[1]);
        assert!(matches!(verify(&signer, ISSUER, &none_alg), Err(Rejection::Signature(_))));
        for garbage in ["", "a.b", "a.b.c.d", "!!.??.**", "e30.e30.e30"] {
            assert!(
                matches!(verify(&signer, ISSUER, garbage), Err(Rejection::NotOurs(_))),
                "{garbage}"
            );
        }
    }
}
