//! Hashes, random values, passwords and AES as sprig computes them.

use aes::Aes256;
use aes::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use base64::Engine;
use certgate_gotemplate::{FuncError, FuncMap, Value};
use ring::rand::{SecureRandom, SystemRandom};
use ring::{digest, hmac};

use crate::args::{Arity, call_err, check_size, reg, s};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn random_bytes(n: usize) -> Result<Vec<u8>, FuncError> {
    let mut buf = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut buf)
        .map_err(|_| call_err("crypto/rand: reading random bytes failed"))?;
    Ok(buf)
}

/// A uniformly random number in `0..n` (`n > 0`), by rejection sampling.
pub fn random_below(n: u64) -> Result<u64, FuncError> {
    let zone = u64::MAX - (u64::MAX % n);
    loop {
        let b = random_bytes(8)?;
        let mut arr = [0u8; 8];
        arr.copy_from_slice(&b);
        let v = u64::from_le_bytes(arr);
        if v < zone {
            return Ok(v % n);
        }
    }
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

/// A random string of `count` characters drawn from `chars` (goutils' `CryptoRandom`).
fn random_string(count: i64, chars: &[char]) -> Result<String, FuncError> {
    if count <= 0 {
        return Ok(String::new());
    }
    check_size("random string", count as usize)?;
    let mut out = String::with_capacity(count as usize);
    for _ in 0..count {
        let i = random_below(chars.len() as u64)? as usize;
        out.push(chars[i]);
    }
    Ok(out)
}

fn charset(ranges: &[(char, char)]) -> Vec<char> {
    ranges.iter().flat_map(|(a, b)| *a..=*b).collect()
}

/// bcrypt with Go's default cost (10), in the `$2a$` form Go writes.
pub fn bcrypt_hash(input: &str) -> String {
    if input.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .into();
    }
    match bcrypt::hash_with_result(input, 10) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

/// The Master Password (v3) templates sprig's `derivePassword` uses.
fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: char) -> &'static [u8] {
    match c {
        'V' => b"AEIOU",
        'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        'v' => b"aeiou",
        'c' => b"bcdfghjklmnpqrstvwxyz",
        'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        'n' => b"0123456789",
        'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

const MP_SCOPE: &[u8] = b"com.lyndir.masterpassword";

/// Master Password: scrypt(N=32768, r=8, p=2) of the password salted with the user name,
/// then HMAC-SHA256 over the site and counter picks a template and its characters.
pub fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = password_templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    let mut salt = MP_SCOPE.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let derived = scrypt::Params::new(15, 8, 2, 64).map_err(|e| e.to_string()).and_then(|p| {
        scrypt::scrypt(password.as_bytes(), &salt, &p, &mut key).map_err(|e| e.to_string())
    });
    if let Err(e) = derived {
        return format!("failed to derive password: {e}");
    }
    let mut msg = MP_SCOPE.to_vec();
    msg.extend_from_slice(&(site.len() as u32).to_be_bytes());
    msg.extend_from_slice(site.as_bytes());
    msg.extend_from_slice(&counter.to_be_bytes());
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &key), &msg);
    let seed = tag.as_ref();
    let template = templates[usize::from(seed[0]) % templates.len()];
    template
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let set = template_chars(c);
            set[usize::from(seed[i + 1]) % set.len()] as char
        })
        .collect()
}

/// AES-256 key: the password's bytes, zero-padded or cut to 32 bytes.
fn aes_key(password: &str) -> Result<Aes256, FuncError> {
    let mut key = [0u8; 32];
    let p = password.as_bytes();
    let n = p.len().min(32);
    key[..n].copy_from_slice(&p[..n]);
    Aes256::new_from_slice(&key).map_err(|_| call_err("crypto/aes: invalid key size"))
}

/// sprig's `encryptAES`: PKCS#7-padded AES-256-CBC with a random IV, base64(IV ‖ ciphertext).
pub fn encrypt_aes(password: &str, plain: &str) -> Result<String, FuncError> {
    let cipher = aes_key(password)?;
    let mut data = plain.as_bytes().to_vec();
    let pad = 16 - data.len() % 16;
    data.extend(std::iter::repeat_n(pad as u8, pad));
    let iv = random_bytes(16)?;
    let mut out = iv.clone();
    let mut prev: [u8; 16] = iv.try_into().map_err(|_| call_err("iv"))?;
    for chunk in data.chunks(16) {
        let mut block = [0u8; 16];
        for (i, b) in block.iter_mut().enumerate() {
            *b = chunk[i] ^ prev[i];
        }
        let mut ga = aes::Block::from(block);
        cipher.encrypt_block(&mut ga);
        prev.copy_from_slice(&ga);
        out.extend_from_slice(&ga);
    }
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

/// sprig's `decryptAES`; the padding length is taken from the last byte without checking,
/// as sprig does (Go panics on inputs sprig cannot slice; those are errors here).
pub fn decrypt_aes(password: &str, encoded: &str) -> Result<String, FuncError> {
    let data = crate::encoding::b64dec(encoded).map_err(call_err)?;
    let cipher = aes_key(password)?;
    if data.len() < 16 {
        return Err(call_err(format!(
            "runtime error: slice bounds out of range [:16] with capacity {}",
            data.len()
        )));
    }
    let (iv, body) = data.split_at(16);
    if body.len() % 16 != 0 {
        return Err(call_err("crypto/cipher: input not full blocks"));
    }
    let mut prev = [0u8; 16];
    prev.copy_from_slice(iv);
    let mut plain = Vec::with_capacity(body.len());
    for chunk in body.chunks(16) {
        let mut block = [0u8; 16];
        block.copy_from_slice(chunk);
        let mut ga = aes::Block::from(block);
        cipher.decrypt_block(&mut ga);
        for i in 0..16 {
            plain.push(ga[i] ^ prev[i]);
        }
        prev.copy_from_slice(chunk);
    }
    let pad = usize::from(plain.last().copied().unwrap_or(0));
    if pad > plain.len() {
        return Err(call_err(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - pad as i64
        )));
    }
    plain.truncate(plain.len() - pad);
    Ok(certgate_gofmt::lossy_utf8(&plain))
}

pub fn register(m: &mut FuncMap) {
    reg(m, "sha1sum", Arity::Exact(1), |a| {
        Ok(s(hex(digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, a.str(0)?.as_bytes()).as_ref())))
    });
    reg(m, "sha256sum", Arity::Exact(1), |a| {
        Ok(s(hex(digest::digest(&digest::SHA256, a.str(0)?.as_bytes()).as_ref())))
    });
    reg(m, "sha512sum", Arity::Exact(1), |a| {
        Ok(s(hex(digest::digest(&digest::SHA512, a.str(0)?.as_bytes()).as_ref())))
    });
    reg(m, "adler32sum", Arity::Exact(1), |a| Ok(s(adler32(a.str(0)?.as_bytes()).to_string())));

    let alpha = charset(&[('a', 'z'), ('A', 'Z')]);
    let alnum = charset(&[('a', 'z'), ('A', 'Z'), ('0', '9')]);
    let digits = charset(&[('0', '9')]);
    let ascii = charset(&[(' ', '~')]);
    for (name, set) in [
        ("randAlpha", alpha),
        ("randAlphaNum", alnum),
        ("randNumeric", digits),
        ("randAscii", ascii),
    ] {
        reg(m, name, Arity::Exact(1), move |a| random_string(a.int(0)?, &set).map(s));
    }
    reg(m, "randBytes", Arity::Exact(1), |a| {
        let n = a.int(0)?;
        let n = usize::try_from(n)
            .map_err(|_| call_err("runtime error: makeslice: len out of range"))?;
        check_size("randBytes", n)?;
        Ok(s(base64::engine::general_purpose::STANDARD.encode(random_bytes(n)?)))
    });
    reg(m, "shuffle", Arity::Exact(1), |a| {
        let mut chars: Vec<char> = a.str(0)?.chars().collect();
        for i in (1..chars.len()).rev() {
            let j = random_below(i as u64 + 1)? as usize;
            chars.swap(i, j);
        }
        Ok(s(chars.into_iter().collect::<String>()))
    });
    reg(m, "uuidv4", Arity::Exact(0), |_| {
        let mut b = random_bytes(16)?;
        b[6] = (b[6] & 0x0f) | 0x40;
        b[8] = (b[8] & 0x3f) | 0x80;
        let h = hex(&b);
        Ok(s(format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])))
    });
    reg(m, "bcrypt", Arity::Exact(1), |a| Ok(s(bcrypt_hash(a.str(0)?))));
    reg(m, "htpasswd", Arity::Exact(2), |a| {
        let (user, pass) = (a.str(0)?, a.str(1)?);
        if user.contains(':') {
            return Ok(s(format!("invalid username: {user}")));
        }
        Ok(s(format!("{user}:{}", bcrypt_hash(pass))))
    });
    reg(m, "derivePassword", Arity::Exact(5), |a| {
        let counter = a.int(0)?;
        let counter = u32::try_from(counter)
            .map_err(|_| crate::args::wrong_type("uint32", &Value::Int(counter)))?;
        Ok(s(derive_password(counter, a.str(1)?, a.str(2)?, a.str(3)?, a.str(4)?)))
    });
    reg(m, "encryptAES", Arity::Exact(2), |a| encrypt_aes(a.str(0)?, a.str(1)?).map(s));
    reg(m, "decryptAES", Arity::Exact(2), |a| decrypt_aes(a.str(0)?, a.str(1)?).map(s));
}
