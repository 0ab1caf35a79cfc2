use super::*;
use crate::fixtures::{ca_config, certificate, self_signed_config, tls_secret};

fn warning(reason: &str, message: &str) -> Event {
    Event { warning: true, reason: reason.to_owned(), message: message.to_owned() }
}

#[test]
fn a_self_signed_issuer_is_ready_with_reason_is_ready_and_no_message() {
    let decided = setup(&self_signed_config(), "payments", SecretLookup::NotFound).unwrap();
    assert_eq!(
        decided,
        Setup {
            condition: ReadyCondition { ready: true, reason: "IsReady", message: String::new() },
            events: vec![],
            retry: false,
        }
    );
    let mut status = None;
    apply(&mut status, &decided.condition, Some(2), "2026-11-04T11:30:45Z");
    let condition = &status.unwrap().conditions.unwrap()[0];
    assert_eq!(condition.message, None, "Go's omitempty");
    assert_eq!(condition.observed_generation, Some(2));
}

#[test]
fn a_ca_issuer_with_a_ca_key_pair_is_verified() {
    let (cert, key) = certificate("Example CA", true);
    let data = tls_secret(&cert, &key.pem);
    let decided = setup(&ca_config("ca"), "payments", SecretLookup::Found(&data)).unwrap();
    assert_eq!(
        decided.condition,
        ReadyCondition {
            ready: true,
            reason: "KeyPairVerified",
            message: "Signing CA verified".to_owned()
        }
    );
    assert_eq!(
        decided.events,
        [Event {
            warning: false,
            reason: "KeyPairVerified".to_owned(),
            message: "Signing CA verified".to_owned()
        }]
    );
    assert!(!decided.retry);
}

#[test]
fn a_missing_secret_is_err_get_key_pair_with_the_listers_text_and_two_warnings() {
    let decided = setup(&ca_config("ca"), "payments", SecretLookup::NotFound).unwrap();
    let message = "Error getting keypair for CA issuer: secret \"ca\" not found";
    assert_eq!(
        decided,
        Setup {
            condition: ReadyCondition {
                ready: false,
                reason: "ErrGetKeyPair",
                message: message.to_owned()
            },
            events: vec![
                warning("ErrGetKeyPair", message),
                warning("ErrInitIssuer", "Error initializing issuer: secret \"ca\" not found"),
            ],
            retry: true,
        }
    );
}

#[test]
fn missing_and_unreadable_entries_are_reported_certificate_first() {
    let (cert, key) = certificate("Example CA", true);
    let message = |data: &SecretData| {
        setup(&ca_config("ca"), "payments", SecretLookup::Found(data)).unwrap().condition.message
    };
    let mut data = tls_secret(&cert, &key.pem);
    data.remove("tls.crt");
    data.remove("tls.key");
    assert_eq!(
        message(&data),
        "Error getting keypair for CA issuer: no data for \"tls.crt\" in secret 'payments/ca'"
    );
    let mut data = tls_secret(&cert, &key.pem);
    data.remove("tls.key");
    assert_eq!(
        message(&data),
        "Error getting keypair for CA issuer: no data for \"tls.key\" in secret 'payments/ca'"
    );
    let data = tls_secret("not a certificate", &key.pem);
    assert_eq!(
        message(&data),
        "Error getting keypair for CA issuer: error decoding certificate PEM block: no valid certificates found"
    );
    let other = SecretLookup::Error("secrets \"ca\" is forbidden");
    let decided = setup(&ca_config("ca"), "payments", other).unwrap();
    assert_eq!(
        decided.condition.message,
        "Error getting keypair for CA issuer: secrets \"ca\" is forbidden"
    );
    assert!(decided.retry);
}

#[test]
fn a_certificate_that_is_not_a_ca_is_err_invalid_key_pair_without_retry() {
    let (cert, key) = certificate("leaf", false);
    let data = tls_secret(&cert, &key.pem);
    let decided = setup(&ca_config("ca"), "payments", SecretLookup::Found(&data)).unwrap();
    let message = "Error getting keypair for CA issuer: certificate is not a CA";
    assert_eq!(
        decided,
        Setup {
            condition: ReadyCondition {
                ready: false,
                reason: "ErrInvalidKeyPair",
                message: message.to_owned()
            },
            events: vec![warning("ErrInvalidKeyPair", message)],
            retry: false,
        }
    );
}

#[test]
fn other_issuer_types_are_not_set_up_here() {
    let acme = IssuerConfig { acme: Some(serde_json::json!({})), ..IssuerConfig::default() };
    assert_eq!(setup(&acme, "payments", SecretLookup::NotFound), None);
    assert_eq!(setup(&IssuerConfig::default(), "payments", SecretLookup::NotFound), None);
    assert_eq!(ca_secret(&acme), None);
    assert_eq!(ca_secret(&ca_config("ca")), Some("ca"));
}

#[test]
fn the_transition_time_is_kept_while_the_status_stays_the_same() {
    let ready = ReadyCondition { ready: true, reason: "KeyPairVerified", message: "m".to_owned() };
    let not_ready =
        ReadyCondition { ready: false, reason: "ErrGetKeyPair", message: "e".to_owned() };
    let mut status = None;
    apply(&mut status, &not_ready, Some(1), "t1");
    apply(&mut status, &not_ready, Some(2), "t2");
    let first = status.as_ref().unwrap().conditions.as_ref().unwrap()[0].clone();
    assert_eq!(first.last_transition_time.as_deref(), Some("t1"));
    assert_eq!(first.observed_generation, Some(2));
    apply(&mut status, &ready, Some(2), "t3");
    let conditions = status.unwrap().conditions.unwrap();
    assert_eq!(conditions.len(), 1);
    assert_eq!(conditions[0].last_transition_time.as_deref(), Some("t3"));
    assert_eq!(conditions[0].status, "True");
}
