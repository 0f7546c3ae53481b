//! Cryptography and key derivation: `sha256_digest`, `md5_digest`, `hmac_sha256`,
//! `aes_cbc_decrypt`, `rsa_decrypt`, `derive_aes_key`, `derive_aes_iv`.

use cbc::cipher::block_padding::{NoPadding, Pkcs7};
use cbc::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use hmac::{Hmac, Mac};
use md5::Md5;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::One;
use rand::Rng as _;
use sha2::{Digest, Sha256};

use super::arith::{pow_mod, random_prime};
use super::words::{WORDS, bytes, digits, phrase, pick, word};
use super::{Cx, ExecError, MAX_POW_BITS, Seed, exclusive, open, output, seed_only, utf8};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{BigInt as Int, Hex, HexIvAes, HexKeyAes, Text};

const FAMILY: &str = "cryptography";
const KDF: &str = "key derivation";

pub(super) const SHA256_DIGEST: Template = Template {
    id: "sha256_digest",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "SHA-256 Hasher",
    semantics: "Hashes the UTF-8 bytes of the text with SHA-256. Output: the 32-byte digest \
        as 64 lowercase hex digits.",
    inputs: &[open("text", Text, "the text to hash (its UTF-8 bytes)")],
    outputs: &[output(
        "digest",
        Hex,
        "SHA-256 digest, 64 lowercase hex digits",
    )],
};

pub(super) const MD5_DIGEST: Template = Template {
    id: "md5_digest",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "MD5 Hasher",
    semantics: "Hashes the UTF-8 bytes of the text with MD5. Output: the 16-byte digest as \
        32 lowercase hex digits.",
    inputs: &[open("text", Text, "the text to hash (its UTF-8 bytes)")],
    outputs: &[output("digest", Hex, "MD5 digest, 32 lowercase hex digits")],
};

pub(super) const HMAC_SHA256: Template = Template {
    id: "hmac_sha256",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "HMAC-SHA256 Signer",
    semantics: "Computes HMAC-SHA256 (RFC 2104) with the UTF-8 bytes of the key as the key \
        and the UTF-8 bytes of the message as the message. Output: the 32-byte tag as 64 \
        lowercase hex digits.",
    inputs: &[
        exclusive("key", Text, "the secret key, used as its UTF-8 bytes"),
        open(
            "message",
            Text,
            "the message to authenticate, used as its UTF-8 bytes",
        ),
    ],
    outputs: &[output(
        "mac",
        Hex,
        "HMAC-SHA256 tag, 64 lowercase hex digits",
    )],
};

pub(super) const AES_CBC_DECRYPT: Template = Template {
    id: "aes_cbc_decrypt",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "AES-CBC Decryptor",
    semantics: "Decrypts with AES in CBC mode: AES-128, AES-192 or AES-256 according to the \
        key length (16, 24 or 32 bytes), the 16-byte IV, then removes PKCS#7 padding. The \
        ciphertext is hex (a non-zero multiple of 16 bytes); the plaintext must be UTF-8 and \
        is returned as text.",
    inputs: &[
        seed_only(
            "ciphertext",
            Hex,
            "the ciphertext bytes as hex (whole 16-byte blocks)",
        ),
        open("key", HexKeyAes, "the AES key as hex: 16, 24 or 32 bytes"),
        open("iv", HexIvAes, "the initialisation vector as hex: 16 bytes"),
    ],
    outputs: &[output("plaintext", Text, "the decrypted UTF-8 text")],
};

pub(super) const RSA_DECRYPT: Template = Template {
    id: "rsa_decrypt",
    kind: NodeKind::Tool,
    family: FAMILY,
    title: "RSA Decryptor",
    semantics: "Textbook RSA decryption: m = ciphertext^private_exponent mod modulus (no \
        padding), all decimal integers; the exponent and modulus are at most 4096 bits. The \
        minimal big-endian bytes of m are decoded as UTF-8 text.",
    inputs: &[
        seed_only("ciphertext", Int, "the ciphertext c, a decimal integer"),
        seed_only(
            "private_exponent",
            Int,
            "the private exponent d, a decimal integer ≥ 0",
        ),
        seed_only("modulus", Int, "the modulus n = p·q, a decimal integer ≥ 2"),
    ],
    outputs: &[output(
        "plaintext",
        Text,
        "the big-endian bytes of m as UTF-8 text",
    )],
};

pub(super) const DERIVE_AES_KEY: Template = Template {
    id: "derive_aes_key",
    kind: NodeKind::Tool,
    family: KDF,
    title: "AES Key Forge",
    semantics: "Derives a 256-bit AES key: SHA-256 over the salt bytes followed by the \
        UTF-8 bytes of the passphrase. Output: 32 bytes as 64 lowercase hex digits.",
    inputs: &[
        open(
            "passphrase",
            Text,
            "the passphrase, used as its UTF-8 bytes",
        ),
        open("salt", Hex, "the salt bytes as hex (may be empty)"),
    ],
    outputs: &[output(
        "key",
        HexKeyAes,
        "the AES-256 key, 64 lowercase hex digits",
    )],
};

pub(super) const DERIVE_AES_IV: Template = Template {
    id: "derive_aes_iv",
    kind: NodeKind::Tool,
    family: KDF,
    title: "AES IV Forge",
    semantics: "Derives a 16-byte AES IV: the MD5 digest of the decimal text of the seed \
        (canonical form: no leading zeros, `-` for negatives). Output: 32 lowercase hex \
        digits.",
    inputs: &[open(
        "seed",
        Int,
        "the seed, a decimal integer (hashed as its decimal text)",
    )],
    outputs: &[output("iv", HexIvAes, "the IV, 32 lowercase hex digits")],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    let r = match cx.t.id {
        "sha256_digest" => Ok(hex::encode(Sha256::digest(v[0].as_bytes()))),
        "md5_digest" => Ok(hex::encode(Md5::digest(v[0].as_bytes()))),
        "hmac_sha256" => Ok(hmac_sha256(v[0].as_bytes(), v[1].as_bytes())),
        "aes_cbc_decrypt" => aes_decrypt(cx, v),
        "rsa_decrypt" => rsa_decrypt(cx, v),
        "derive_aes_key" => cx.hex(v, 1).map(|salt| {
            let mut h = Sha256::new();
            h.update(&salt);
            h.update(v[0].as_bytes());
            hex::encode(h.finalize())
        }),
        "derive_aes_iv" => Ok(hex::encode(Md5::digest(v[0].as_bytes()))),
        _ => return None,
    };
    Some(r.map(|out| vec![out]))
}

/// HMAC-SHA256 as lowercase hex.
fn hmac_sha256(key: &[u8], message: &[u8]) -> String {
    match Hmac::<Sha256>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(message);
            hex::encode(mac.finalize().into_bytes())
        }
        // HMAC accepts keys of any length; this arm is unreachable in practice
        Err(_) => String::new(),
    }
}

/// AES-CBC over `data`, encrypting or decrypting, with or without PKCS#7 padding.
/// Errors: a key that is not 16, 24 or 32 bytes, an IV that is not 16 bytes
/// ([`ExecError::Malformed`]), data that is not whole blocks or bad padding
/// ([`ExecError::Decrypt`]).
pub(super) fn aes_cbc(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    encrypt: bool,
    padded: bool,
) -> Result<Vec<u8>, ExecError> {
    let bad_key = ExecError::Malformed {
        port: "key",
        format: "AES key or IV",
    };
    macro_rules! run {
        ($aes:ty) => {
            match (encrypt, padded) {
                (true, true) => cbc::Encryptor::<$aes>::new_from_slices(key, iv)
                    .map(|c| c.encrypt_padded_vec_mut::<Pkcs7>(data))
                    .map_err(|_| bad_key),
                (true, false) => cbc::Encryptor::<$aes>::new_from_slices(key, iv)
                    .map_err(|_| bad_key)
                    .and_then(|c| {
                        if data.len() % 16 != 0 {
                            return Err(ExecError::Decrypt);
                        }
                        Ok(c.encrypt_padded_vec_mut::<NoPadding>(data))
                    }),
                (false, true) => cbc::Decryptor::<$aes>::new_from_slices(key, iv)
                    .map_err(|_| bad_key)
                    .and_then(|c| {
                        c.decrypt_padded_vec_mut::<Pkcs7>(data)
                            .map_err(|_| ExecError::Decrypt)
                    }),
                (false, false) => cbc::Decryptor::<$aes>::new_from_slices(key, iv)
                    .map_err(|_| bad_key)
                    .and_then(|c| {
                        c.decrypt_padded_vec_mut::<NoPadding>(data)
                            .map_err(|_| ExecError::Decrypt)
                    }),
            }
        };
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        32 => run!(aes::Aes256),
        _ => Err(bad_key),
    }
}

fn aes_decrypt(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let ct = cx.hex(v, 0)?;
    let key = cx.hex(v, 1)?;
    let iv = cx.hex(v, 2)?;
    if ct.is_empty() || ct.len() % 16 != 0 {
        return Err(ExecError::Decrypt);
    }
    let pt = aes_cbc(&key, &iv, &ct, false, true)?;
    utf8(cx.port(0), pt)
}

fn rsa_decrypt(cx: &Cx<'_>, v: &[String]) -> Result<String, ExecError> {
    let c = cx.big(v, 0)?;
    let d = cx.big_capped(v, 1, MAX_POW_BITS, "4096 bits")?;
    let n = cx.big_capped(v, 2, MAX_POW_BITS, "4096 bits")?;
    let m = pow_mod(cx, &c, &d, &n, (1, 2))?;
    utf8(cx.port(0), m.to_bytes_be())
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    match s.t.id {
        "sha256_digest" | "md5_digest" => s.fill(0, phrase),
        "hmac_sha256" => {
            s.fill(0, |r| format!("{}-{}", word(r), digits(r, 2, 4)));
            s.fill(1, phrase);
        }
        "aes_cbc_decrypt" => return Some(seed_aes(s)),
        "rsa_decrypt" => seed_rsa(s),
        "derive_aes_key" => {
            s.fill(0, phrase);
            s.fill(1, |r| hex::encode(bytes(r, 8)));
        }
        "derive_aes_iv" => s.fill(0, |r| digits(r, 4, 10)),
        _ => return None,
    }
    Some(Ok(()))
}

fn seed_aes(s: &mut Seed<'_>) -> Result<(), ExecError> {
    s.fill(1, |r| {
        let n = *pick(r, &[16usize, 24, 32]);
        hex::encode(bytes(r, n))
    });
    s.fill(2, |r| hex::encode(bytes(r, 16)));
    if s.is_none(0) {
        let decode = |i: usize| {
            hex::decode(s.get(i).unwrap_or_default()).map_err(|_| ExecError::Unsatisfiable {
                why: "the given key or iv is not valid hex",
            })
        };
        let (key, iv) = (decode(1)?, decode(2)?);
        let plaintext = phrase(s.rng);
        let ct = aes_cbc(&key, &iv, plaintext.as_bytes(), true, true)?;
        s.set(0, hex::encode(ct));
    }
    Ok(())
}

/// Seeds a small textbook RSA instance: two primes of 64–128 bits from the seeded
/// generator, e = 65537, d = e⁻¹ mod (p−1)(q−1), and a short phrase as the message.
fn seed_rsa(s: &mut Seed<'_>) {
    if !(s.is_none(0) && s.is_none(1) && s.is_none(2)) {
        // the three values only make sense together: given ones are kept, and the
        // final check of `instantiate` decides whether they work
        s.fill(0, |r| digits(r, 10, 20));
        s.fill(1, |r| digits(r, 10, 20));
        s.fill(2, |r| digits(r, 20, 30));
        return;
    }
    let e = BigUint::from(65_537u32);
    loop {
        let pb = s.rng.random_range(64..=128);
        let qb = s.rng.random_range(64..=128);
        let p = random_prime(s.rng, pb);
        let q = random_prime(s.rng, qb);
        if p == q {
            continue;
        }
        let phi = (&p - 1u32) * (&q - 1u32);
        if !e.gcd(&phi).is_one() {
            continue;
        }
        let Some(d) = e.modinv(&phi) else {
            continue;
        };
        let n = &p * &q;
        let room = ((n.bits() - 1) / 8) as usize;
        let mut message = phrase(s.rng);
        if message.len() > room {
            message = word(s.rng);
        }
        if message.len() > room {
            message = WORDS
                .iter()
                .copied()
                .find(|w| w.len() <= room)
                .unwrap_or("ok")
                .to_string();
        }
        let m = BigUint::from_bytes_be(message.as_bytes());
        let c = m.modpow(&e, &n);
        s.set(0, c.to_string());
        s.set(1, d.to_string());
        s.set(2, n.to_string());
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_cbc_nist_sp800_38a_f21() {
        // NIST SP 800-38A, F.2.1 CBC-AES128.Encrypt / F.2.2 Decrypt, first two blocks
        let key = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        let iv = hex::decode("000102030405060708090a0b0c0d0e0f").unwrap();
        let pt = hex::decode("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
            .unwrap();
        let ct = hex::decode("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2")
            .unwrap();
        assert_eq!(aes_cbc(&key, &iv, &pt, true, false).unwrap(), ct);
        assert_eq!(aes_cbc(&key, &iv, &ct, false, false).unwrap(), pt);
        // AES-256, F.2.5: first block
        let key = hex::decode("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
            .unwrap();
        let ct1 = hex::decode("f58c4c04d6e5f1ba779eabfb5f7bfbd6").unwrap();
        assert_eq!(aes_cbc(&key, &iv, &pt[..16], true, false).unwrap(), ct1);
        assert!(aes_cbc(&key[..5], &iv, &pt, true, true).is_err());
    }

    #[test]
    fn hmac_rfc4231_case_2() {
        assert_eq!(
            hmac_sha256(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
