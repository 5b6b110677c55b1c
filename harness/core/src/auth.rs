//! What the judge and the scenarios share about OAuth-protected servers
//! (issue 17): which token a step presents ([`TokenChoice`]), and a
//! `WWW-Authenticate` challenge read into data ([`challenge`]), and a
//! minted token as a reader may see it ([`readable`]).

mod challenge;
mod jwt;

pub use challenge::challenge;
pub use jwt::readable;

use serde::{Deserialize, Serialize};

/// Which token a request presents. Every choice but `Valid` differs from
/// the valid token in one respect only; all but `UpperCaseAudience` and
/// `OtherUser` make it invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TokenChoice {
    Valid,
    /// Expired an hour ago.
    Expired,
    /// Valid only from an hour from now (`nbf`).
    NotYetValid,
    /// Issued for another resource (`aud`).
    WrongAudience,
    /// Claims another issuer (`iss`), signed with the right key.
    WrongIssuer,
    /// The valid token with one bit of its signature flipped.
    BadSignature,
    /// Unsigned: header `alg: none`, empty signature.
    AlgNone,
    /// Signed by a key the JWKS does not publish.
    UnknownKey,
    /// Not a JWT at all.
    Garbage,
    /// Sound, its audience this resource with scheme and host in upper
    /// case (`HTTP://127.0.0.1:…`): the same resource, which a server
    /// should accept (not a broken token).
    UpperCaseAudience,
    /// Sound in every respect, for another user (`sub`) of the same
    /// client: what a server keys a user's state by (not a broken token).
    OtherUser,
}

impl TokenChoice {
    pub const ALL: [TokenChoice; 11] = [
        Self::Valid,
        Self::Expired,
        Self::NotYetValid,
        Self::WrongAudience,
        Self::WrongIssuer,
        Self::BadSignature,
        Self::AlgNone,
        Self::UnknownKey,
        Self::Garbage,
        Self::UpperCaseAudience,
        Self::OtherUser,
    ];

    /// Whether a server must accept the token: the valid one, and those that
    /// differ from it in what names the same resource or another user.
    pub fn is_sound(self) -> bool {
        matches!(self, Self::Valid | Self::UpperCaseAudience | Self::OtherUser)
    }

    /// The name scenarios use (`wrong-audience`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Valid => "valid",
            Self::Expired => "expired",
            Self::NotYetValid => "not-yet-valid",
            Self::WrongAudience => "wrong-audience",
            Self::WrongIssuer => "wrong-issuer",
            Self::BadSignature => "bad-signature",
            Self::AlgNone => "alg-none",
            Self::UnknownKey => "unknown-key",
            Self::Garbage => "garbage",
            Self::UpperCaseAudience => "upper-case-audience",
            Self::OtherUser => "other-user",
        }
    }
}

impl std::str::FromStr for TokenChoice {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|choice| choice.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|c| c.name()).collect();
                format!("`{name}` is no token choice ({}, none)", names.join(", "))
            })
    }
}

/// What a request presents as its bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenRequest {
    /// No `Authorization` header at all.
    None,
    /// A minted token of this kind, with the scope the server asked for.
    Minted(TokenChoice),
    /// A valid token whose `scope` claim is exactly this (`""`: no scope).
    Scoped(String),
}
