//! OCM's template encryption (§8): AES-256-CBC with PKCS#7 padding, `$ocm_encrypted:` +
//! standard padded base64. All values of one replica share the IV of its
//! `policy.open-cluster-management.io/encryption-iv` annotation, so equal plaintexts give
//! equal ciphertexts and a re-resolve does not change the policy. Pure: keys are inputs.

use std::fmt;
use std::sync::LazyLock;

use aes::Aes256;
use aes::cipher::block_padding::{NoPadding, Pkcs7};
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use regex::Regex;

use crate::functions::encoding::{decode_std, encode_std};

/// The prefix of every encrypted value.
pub const ENCRYPTED_PREFIX: &str = "$ocm_encrypted:";

/// The replica annotation holding the base64 IV.
pub const IV_ANNOTATION: &str = "policy.open-cluster-management.io/encryption-iv";

/// Why an encryption configuration is unusable (checked in this order).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncryptionConfigError {
    #[error("AESKey must be set to use this encryption mode")]
    KeyNotSet,
    /// Go's `aes.KeySizeError`.
    #[error("the AES key is invalid: crypto/aes: invalid key size {0}")]
    InvalidKeySize(usize),
    /// 16- and 24-byte keys are valid AES keys that OCM never generates; certgate only
    /// implements AES-256.
    #[error("the AES key is invalid: only 256-bit keys are supported, got {0} bytes")]
    UnsupportedKeySize(usize),
    #[error("initialization vector must be set to use this encryption mode")]
    IvNotSet,
    #[error("initialization vector must be 128 bits")]
    InvalidIv,
}

/// `error validating EncryptionConfig: <err>`: how resolution reports a bad configuration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("error validating EncryptionConfig: {0}")]
pub struct EncryptionValidationError(#[from] pub EncryptionConfigError);

/// A value that cannot be decrypted. Texts follow go-template-utils (including its
/// `PCKS7` spelling); none contains plaintext.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecryptError {
    #[error("{value}: the encrypted string is invalid base64: {cause}")]
    InvalidBase64 { value: String, cause: String },
    /// Go panics here (`CryptBlocks` on a partial block); certgate reports it instead.
    #[error("crypto/cipher: input not full blocks")]
    NotFullBlocks,
    #[error("invalid PCKS7 padding: the padding length is invalid")]
    PaddingLength,
    #[error("invalid PCKS7 padding: not all the padding bytes match")]
    PaddingBytes,
}

/// The AES-256 key and the replica's IV.
#[derive(Clone, PartialEq, Eq)]
pub struct EncryptionKeys {
    pub key: [u8; 32],
    pub iv: [u8; 16],
}

/// Never print key material.
impl fmt::Debug for EncryptionKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncryptionKeys").finish_non_exhaustive()
    }
}

impl EncryptionKeys {
    /// Validates a key and IV as go-template-utils does before resolving (§7.2 step 1);
    /// `None` is an unset value.
    pub fn from_config(
        key: Option<&[u8]>,
        iv: Option<&[u8]>,
    ) -> Result<Self, EncryptionValidationError> {
        let key = key.ok_or(EncryptionConfigError::KeyNotSet)?;
        let key: [u8; 32] = match key.len() {
            32 => key.try_into().map_err(|_| EncryptionConfigError::InvalidKeySize(key.len()))?,
            16 | 24 => return Err(EncryptionConfigError::UnsupportedKeySize(key.len()).into()),
            n => return Err(EncryptionConfigError::InvalidKeySize(n).into()),
        };
        let iv = iv.ok_or(EncryptionConfigError::IvNotSet)?;
        let iv: [u8; 16] = iv.try_into().map_err(|_| EncryptionConfigError::InvalidIv)?;
        Ok(EncryptionKeys { key, iv })
    }

    /// `protect`: `$ocm_encrypted:<base64>`; `""` stays `""`.
    pub fn encrypt(&self, plaintext: &str) -> String {
        if plaintext.is_empty() {
            return String::new();
        }
        let cipher = cbc::Encryptor::<Aes256>::new(&self.key.into(), &self.iv.into());
        let encrypted = cipher.encrypt_padded_vec::<Pkcs7>(plaintext.as_bytes());
        format!("{ENCRYPTED_PREFIX}{}", encode_std(&encrypted))
    }

    /// The inverse of [`Self::encrypt`]; the prefix is optional. Bytes that are not UTF-8
    /// are replaced (values come from Secrets, which are base64 text in practice).
    pub fn decrypt(&self, value: &str) -> Result<String, DecryptError> {
        let encoded = value.strip_prefix(ENCRYPTED_PREFIX).unwrap_or(value);
        let bytes = decode_std(encoded).map_err(|cause| DecryptError::InvalidBase64 {
            value: encoded.to_owned(),
            cause: cause.to_string(),
        })?;
        if bytes.len() % 16 != 0 {
            return Err(DecryptError::NotFullBlocks);
        }
        let cipher = cbc::Decryptor::<Aes256>::new(&self.key.into(), &self.iv.into());
        // Unpadded decryption, then upstream's own padding checks for its error texts.
        let padded = cipher
            .decrypt_padded_vec::<NoPadding>(&bytes)
            .map_err(|_| DecryptError::NotFullBlocks)?;
        let Some(&last) = padded.last() else { return Err(DecryptError::PaddingLength) };
        let count = usize::from(last);
        if count == 0 || count > padded.len() {
            return Err(DecryptError::PaddingLength);
        }
        if padded[padded.len() - count..].iter().any(|&b| b != last) {
            return Err(DecryptError::PaddingBytes);
        }
        Ok(String::from_utf8_lossy(&padded[..padded.len() - count]).into_owned())
    }
}

/// Go RE2's `\s` is ASCII whitespace; `.` does not cross lines.
static USES_ENCRYPTION: LazyLock<Regex> = LazyLock::new(|| {
    const S: &str = r"[\t\n\x0C\r ]";
    let pattern = format!(
        r"\{{\{{hub-?({S}*fromSecret{S}+.*|{S}*copySecretData{S}+.*|.*\|{S}*protect{S}*)-?hub\}}\}}"
    );
    Regex::new(&pattern).unwrap_or_else(|_| unreachable!("constant regex"))
});

/// §8: whether a raw policy template (its JSON text) produces encrypted values, i.e. has
/// `{{hub` with `fromSecret`/`copySecretData` as the first word, or a pipe into `protect`
/// at the end of the action.
pub fn uses_encryption(raw_template_json: &str) -> bool {
    USES_ENCRYPTION.is_match(raw_template_json)
}
