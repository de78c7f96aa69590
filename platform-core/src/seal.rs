//! The key secret values are sealed with: AES-256-GCM, with associated data that binds a
//! sealed value to where it belongs (see [`crate::secrets`]).
//!
//! The key is 32 random bytes, kept as 64 hex characters in a file beside the database (created
//! with mode 0600 on first start) or given by the server's configuration. Every node of a
//! cluster shares the file; the key is never a row of the database. A PostgreSQL database
//! records the key's [`SecretKey::fingerprint`], and a node with another key refuses to start.

use crate::error::{Error, Result};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use std::path::Path;

/// The key that seals secret values.
#[derive(Clone)]
pub struct SecretKey([u8; 32]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(..)")
    }
}

impl SecretKey {
    /// A fresh random key.
    pub fn generate() -> Result<SecretKey> {
        let mut k = [0u8; 32];
        getrandom::getrandom(&mut k).map_err(|e| Error::caused("no randomness", e))?;
        Ok(SecretKey(k))
    }

    /// A key from 64 hex characters.
    pub fn from_hex(text: &str) -> Result<SecretKey> {
        let t = text.trim();
        let bad =
            || Error::invalid_parameter("the secret key must be 64 hex characters (32 bytes)");
        if t.len() != 64 {
            return Err(bad());
        }
        let mut k = [0u8; 32];
        for (i, b) in k.iter_mut().enumerate() {
            *b = u8::from_str_radix(&t[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(SecretKey(k))
    }

    /// Reads the key file, or creates it (mode 0600) with a fresh key.
    pub fn load_or_create(path: &Path) -> Result<SecretKey> {
        match SecretKey::load(path)? {
            Some(key) => Ok(key),
            None => {
                let key = SecretKey::generate()?;
                match key.write_new(path) {
                    Ok(()) => Ok(key),
                    // Made by another process at the same moment: that one is the key.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        SecretKey::load(path)?.ok_or_else(|| Self::file_error(path, e))
                    }
                    Err(e) => Err(Self::file_error(path, e)),
                }
            }
        }
    }

    /// Reads the key file; `None` when there is none.
    pub fn load(path: &Path) -> Result<Option<SecretKey>> {
        match std::fs::read_to_string(path) {
            Ok(text) => SecretKey::from_hex(&text).map(Some).map_err(|e| {
                Error::invalid_parameter(format!("the key file {}: {e}", path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Self::file_error(path, e)),
        }
    }

    /// Writes the key to a new file (mode 0600); an existing file is never replaced (the
    /// error's kind is then `AlreadyExists`).
    pub fn write_new(&self, path: &Path) -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        use std::io::Write as _;
        let mut f = options.open(path)?;
        writeln!(f, "{}", crate::auth::hex(&self.0))?;
        f.sync_all()
    }

    /// The key's fingerprint: the first 16 hex characters of the SHA-256 of its bytes, as
    /// `sha256:…`. It names a key in messages and in the database's record of its key, and
    /// tells nothing of the key.
    pub fn fingerprint(&self) -> String {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(self.0);
        format!("sha256:{}", &crate::auth::hex(&digest)[..16])
    }

    fn file_error(path: &Path, e: std::io::Error) -> Error {
        Error::caused(format!("secret key file {}", path.display()), e)
    }

    fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new((&self.0).into())
    }

    /// Seals a value; returns the nonce and the ciphertext.
    pub fn seal(&self, plaintext: &[u8], aad: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        let mut nonce = [0u8; 12];
        getrandom::getrandom(&mut nonce).map_err(|e| Error::caused("no randomness", e))?;
        let ct = self
            .cipher()
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad,
                },
            )
            .map_err(|_| Error::Internal("sealing a secret failed".into()))?;
        Ok((nonce.to_vec(), ct))
    }

    /// Opens a sealed value (fails if the key, the associated data or the bytes differ).
    pub fn open(&self, nonce: &[u8], ciphertext: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
        if nonce.len() != 12 {
            return Err(Error::Internal(
                "stored secret nonce has the wrong length".into(),
            ));
        }
        self.cipher()
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad,
                },
            )
            .map_err(|_| Error::Internal("a stored secret does not open with this key".into()))
    }
}
