//! Stable content hashes.
//!
//! A scenario's hash is the SHA-256 of its canonical JSON (serde_json with struct field
//! order and `BTreeMap` keys, no whitespace), so the same scenario hashes the same on any
//! machine and a one-byte change is visible.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Lowercase hex SHA-256 of `parts` one after the other (the hash of their
/// concatenation, without making it).
pub fn sha256_hex_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(hasher.finalize())
}

/// Lowercase hex SHA-256 of a value's compact JSON serialization.
pub fn content_hash<T: Serialize + ?Sized>(value: &T) -> String {
    let bytes = serde_json::to_vec(value).expect("serializing plain data cannot fail");
    sha256_hex(&bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            super::sha256_hex_parts(&[b"a", b"", b"bc"]),
            super::sha256_hex(b"abc")
        );
    }
}
