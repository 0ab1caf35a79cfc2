//! Hashes, passwords, AES and random values.
mod common;
use common::*;

#[test]
fn hashes() {
    table(&[
        ("sha1sum", vec![s("abc")], s("a9993e364706816aba3e25717850c26c9cd0d89d")),
        (
            "sha256sum",
            vec![s("abc")],
            s("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ),
        (
            "sha512sum",
            vec![s("abc")],
            s(
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            ),
        ),
        ("adler32sum", vec![s("Wikipedia")], s("300286872")),
        ("adler32sum", vec![s("")], s("1")),
    ]);
}

#[test]
fn aes_round_trip_and_format() {
    let enc = ok("encryptAES", &[s("secretkey"), s("plaintext")]);
    let text = enc.as_str().unwrap_or_default().to_string();
    // base64 of a 16-byte IV and one padded block.
    assert_eq!(text.len(), 44, "{text}");
    assert_eq!(ok("decryptAES", &[s("secretkey"), enc.clone()]), s("plaintext"));
    let long = "x".repeat(40);
    let enc = ok("encryptAES", &[s("a-very-long-password-longer-than-32-bytes"), s(&long)]);
    assert_eq!(ok("decryptAES", &[s("a-very-long-password-longer-than-32-bytes"), enc]), s(&long));
    err_table(&[
        ("decryptAES", vec![s("k"), s("!!")], "illegal base64 data at input byte 0"),
        (
            "decryptAES",
            vec![s("k"), s("YWJj")],
            "runtime error: slice bounds out of range [:16] with capacity 3",
        ),
        (
            "decryptAES",
            vec![s("k"), s("MDEyMzQ1Njc4OWFiY2RlZmFiYw==")],
            "crypto/cipher: input not full blocks",
        ),
    ]);
}

#[test]
fn passwords() {
    let h = ok("bcrypt", &[s("password")]);
    let text = h.as_str().unwrap_or_default();
    assert!(text.starts_with("$2a$10$") && text.len() == 60, "{text}");
    assert!(bcrypt::verify("password", text).unwrap_or(false));
    let line = ok("htpasswd", &[s("admin"), s("pw")]);
    let line = line.as_str().unwrap_or_default();
    assert!(line.starts_with("admin:$2a$10$"), "{line}");
    assert_eq!(ok("htpasswd", &[s("a:b"), s("pw")]), s("invalid username: a:b"));
    assert_eq!(
        ok("bcrypt", &[s(&"p".repeat(73))]),
        s("failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes")
    );
}

#[test]
fn derive_password_master_password_vectors() {
    // Master Password v3 reference values (user "user", password "password", site "example.com").
    table(&[
        (
            "derivePassword",
            vec![i(1), s("long"), s("password"), s("user"), s("example.com")],
            s("ZedaFaxcZaso9*"),
        ),
        (
            "derivePassword",
            vec![i(1), s("nope"), s("password"), s("user"), s("example.com")],
            s("cannot find password template nope"),
        ),
    ]);
}

#[test]
fn random_values_have_the_right_shape() {
    let u = ok("uuidv4", &[]);
    let u = u.as_str().unwrap_or_default();
    let parts: Vec<&str> = u.split('-').collect();
    assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![8, 4, 4, 4, 12], "{u}");
    assert!(parts[2].starts_with('4'), "{u}");
    assert!(matches!(parts[3].chars().next(), Some('8' | '9' | 'a' | 'b')), "{u}");
    assert!(u.chars().all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    let r = ok("randBytes", &[i(24)]);
    assert_eq!(r.as_str().map(str::len), Some(32));
    assert_eq!(ok("randBytes", &[i(0)]), s(""));
    assert_eq!(call_err("randBytes", &[i(-1)]), "runtime error: makeslice: len out of range");
}
