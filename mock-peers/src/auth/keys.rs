//! ES256 (P-256) signing keys, made fresh for every run by ring and published
//! as JWKs. ES256 because every JOSE library the real peers use verifies it,
//! and ring can generate its keys (it cannot generate RSA ones).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, EncodingKey};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

/// The system's random source failed, so no key could be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot generate a signing key: the system random source failed")]
pub struct KeyGenerationFailed;

/// One private key with its key id and public point.
pub struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    /// The public point's affine coordinates, each 32 bytes big-endian.
    x: Vec<u8>,
    y: Vec<u8>,
}

/// Shows the key id only: the private key is a secret even in a debug dump.
impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A new random key, published under `kid`.
    pub fn generate(kid: &str) -> Result<Self, KeyGenerationFailed> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| KeyGenerationFailed)?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|_| KeyGenerationFailed)?;
        // ring gives the point uncompressed: 0x04, then x, then y.
        let point = pair.public_key().as_ref();
        Ok(Self {
            kid: kid.to_owned(),
            encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
            x: point[1..33].to_vec(),
            y: point[33..].to_vec(),
        })
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub(crate) fn encoding_key(&self) -> &EncodingKey {
        &self.encoding
    }

    /// The public half, for a verifier that holds the key itself rather
    /// than fetching the JWKS.
    pub fn decoding_key(&self) -> DecodingKey {
        DecodingKey::from_ec_components(&URL_SAFE_NO_PAD.encode(&self.x), &URL_SAFE_NO_PAD.encode(&self.y))
            .expect("coordinates encoded just above")
    }

    /// The public half as an RFC 7517 JWK.
    pub fn jwk(&self) -> Value {
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(&self.x),
            "y": URL_SAFE_NO_PAD.encode(&self.y),
            "kid": self.kid,
            "use": "sig",
            "alg": "ES256",
        })
    }
}
