//! Encryption: known answers computed with OpenSSL, round trips, validation texts and the
//! detection rule.

use certgate_templates::encryption::{
    DecryptError, EncryptionConfigError, EncryptionKeys, EncryptionValidationError, uses_encryption,
};
use pretty_assertions::assert_eq;

/// `openssl enc -aes-256-cbc -K 000102…1f -iv f0e0d0…00 -base64 -A`.
fn keys() -> EncryptionKeys {
    let mut key = [0u8; 32];
    for (i, b) in key.iter_mut().enumerate() {
        *b = i as u8;
    }
    let iv = [
        0xf0, 0xe0, 0xd0, 0xc0, 0xb0, 0xa0, 0x90, 0x80, 0x70, 0x60, 0x50, 0x40, 0x30, 0x20, 0x10,
        0x00,
    ];
    EncryptionKeys { key, iv }
}

#[test]
fn known_answers_from_openssl() {
    let keys = keys();
    #[rustfmt::skip]
    let cases = [
        ("hello", "$ocm_encrypted:7gbut1IeFLXKvYRPp/DLAA=="),
        ("c2VjcmV0", "$ocm_encrypted:TsYbIVXtrsK9sfFFkV/KrA=="),
        ("exactly16bytes!!", "$ocm_encrypted:7vjZgoxJShd+Vz8U53gqNvUBTz0Dlp0h/nRbBc+yeMA="),
    ];
    for (plaintext, ciphertext) in cases {
        assert_eq!(keys.encrypt(plaintext), ciphertext);
        assert_eq!(keys.decrypt(ciphertext).as_deref(), Ok(plaintext));
    }
    assert_eq!(keys.encrypt(""), "");
    // OpenSSL encrypts "" to one block of padding; decrypting that gives "" back.
    assert_eq!(keys.decrypt("bcL6bJ1IOEkpCdz03UmQlw==").as_deref(), Ok(""));
}

#[test]
fn round_trips_share_the_iv() {
    let keys = keys();
    for text in ["a", "ünïcode ✓", &"x".repeat(1000), "line\nbreak"] {
        let encrypted = keys.encrypt(text);
        assert_eq!(encrypted, keys.encrypt(text), "same IV, same ciphertext");
        assert_eq!(keys.decrypt(&encrypted).as_deref(), Ok(text));
    }
    let other = EncryptionKeys { key: [1; 32], ..keys.clone() };
    assert_ne!(other.encrypt("a"), keys.encrypt("a"));
}

#[test]
fn decrypt_errors() {
    let keys = keys();
    assert_eq!(
        keys.decrypt("$ocm_encrypted:abc!").map_err(|e| e.to_string()),
        Err("abc!: the encrypted string is invalid base64: illegal base64 data at input byte 3"
            .to_owned())
    );
    assert_eq!(keys.decrypt("aGVsbG8="), Err(DecryptError::NotFullBlocks));
    assert_eq!(keys.decrypt(""), Err(DecryptError::PaddingLength));
    let wrong_key = EncryptionKeys { key: [3; 32], ..keys.clone() };
    assert!(wrong_key.decrypt(&keys.encrypt("hello")).is_err());
}

/// An optional configuration value.
type Bytes<'a> = Option<&'a [u8]>;

#[test]
fn validation_texts() {
    let text = |key: Option<&[u8]>, iv: Option<&[u8]>| {
        EncryptionKeys::from_config(key, iv)
            .map(|_| ())
            .map_err(|e: EncryptionValidationError| e.to_string())
    };
    let key = [0u8; 32];
    let iv = [0u8; 16];
    #[rustfmt::skip]
    let cases: Vec<(Bytes<'_>, Bytes<'_>, Result<(), &str>)> = vec![
        (None, Some(&iv), Err("error validating EncryptionConfig: AESKey must be set to use this encryption mode")),
        (Some(&key[..5]), Some(&iv), Err("error validating EncryptionConfig: the AES key is invalid: crypto/aes: invalid key size 5")),
        (Some(&[]), Some(&iv), Err("error validating EncryptionConfig: the AES key is invalid: crypto/aes: invalid key size 0")),
        (Some(&key), None, Err("error validating EncryptionConfig: initialization vector must be set to use this encryption mode")),
        (Some(&key), Some(&iv[..15]), Err("error validating EncryptionConfig: initialization vector must be 128 bits")),
        (Some(&key[..5]), None, Err("error validating EncryptionConfig: the AES key is invalid: crypto/aes: invalid key size 5")),
        (Some(&key), Some(&iv), Ok(())),
    ];
    for (k, i, want) in cases {
        assert_eq!(text(k, i), want.map_err(str::to_owned));
    }
    assert_eq!(
        EncryptionKeys::from_config(Some(&key[..16]), Some(&iv)).map(|_| ()),
        Err(EncryptionValidationError(EncryptionConfigError::UnsupportedKeySize(16)))
    );
    assert_eq!(format!("{:?}", keys()), "EncryptionKeys { .. }", "no key material in debug output");
}

#[test]
fn detection_rule() {
    #[rustfmt::skip]
    let cases = [
        (r#"{"data":{"k":"{{hub fromSecret \"ns\" \"s\" \"k\" hub}}"}}"#, true),
        (r#"{"k":"{{hub- fromSecret \"\" \"s\" \"k\" -hub}}"}"#, true),
        (r#"{"k":"{{hubfromSecret x hub}}"}"#, true),
        (r#"{"k":"{{hub copySecretData \"ns\" \"s\" hub}}"}"#, true),
        (r#"{"k":"{{hub \"x\" | protect hub}}"}"#, true),
        (r#"{"k":"{{hub .ManagedClusterName | protect -hub}}"}"#, true),
        (r#"{"k":"{{hub (fromSecret \"ns\" \"s\" \"k\") | base64dec hub}}"}"#, false),
        (r#"{"k":"{{hub printf \"%s\" (fromSecret \"ns\" \"s\" \"k\") hub}}"}"#, false),
        (r#"{"k":"{{hub fromConfigMap \"ns\" \"c\" \"k\" hub}}"}"#, false),
        (r#"{"k":"{{ fromSecret \"ns\" \"s\" \"k\" }}"}"#, false),
        (r#"{"k":"{{hub protect \"x\" hub}}"}"#, false),
        (r#"{"k":"{{hub fromSecret"}"#, false),
        ("{\"k\":\"{{hub fromSecret\n\\\"a\\\" hub}}\"}", true),
        ("{\"k\":\"{{hub \\\"x\\\"\n| protect hub}}\"}", false),
    ];
    for (raw, want) in cases {
        assert_eq!(uses_encryption(raw), want, "{raw}");
    }
}
