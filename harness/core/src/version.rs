//! MCP protocol versions, their eras, and version sets as written in scenarios
//! and in the requirement catalogue.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A published MCP protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ProtocolVersion {
    #[serde(rename = "2024-11-05")]
    V2024_11_05,
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

/// Whether a version uses the `initialize` handshake and sessions (stateful),
/// or per-request `_meta` with no handshake (stateless).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    Stateful,
    Stateless,
}

impl ProtocolVersion {
    /// Every version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest stateful version: what the mock client offers by default.
    pub const LATEST_STATEFUL: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The date string used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    pub fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Stateless,
            _ => Era::Stateful,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text was not one of the published version dates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version `{0}` (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)")]
pub struct UnknownVersion(pub String);

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            // `draft` is byte-identical to 2026-07-28 in the spec snapshot we model.
            .or((s == "draft").then_some(ProtocolVersion::V2026_07_28))
            .ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

/// A set of versions, written as in the requirement catalogue:
/// `all`, `legacy` (the stateful versions), `modern`, `X+`, `A..B` (also `A…B`),
/// a single version, or several of those separated by commas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VersionSet(u8);

impl VersionSet {
    pub const ALL: VersionSet = VersionSet(0b1_1111);
    pub const LEGACY: VersionSet = VersionSet(0b0_1111);
    pub const MODERN: VersionSet = VersionSet(0b1_0000);

    fn bit(v: ProtocolVersion) -> u8 {
        1 << ProtocolVersion::ALL.iter().position(|x| *x == v).unwrap_or(0)
    }

    pub fn only(v: ProtocolVersion) -> Self {
        VersionSet(Self::bit(v))
    }

    /// Versions from `from` to `to`, both included.
    pub fn range(from: ProtocolVersion, to: ProtocolVersion) -> Self {
        VersionSet(
            ProtocolVersion::ALL
                .into_iter()
                .filter(|v| *v >= from && *v <= to)
                .fold(0, |acc, v| acc | Self::bit(v)),
        )
    }

    pub fn contains(self, v: ProtocolVersion) -> bool {
        self.0 & Self::bit(v) != 0
    }

    pub fn union(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 | other.0)
    }

    pub fn intersect(self, other: VersionSet) -> VersionSet {
        VersionSet(self.0 & other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The versions in the set, oldest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .filter(move |v| self.contains(*v))
    }

    /// The newest version in the set.
    pub fn newest(self) -> Option<ProtocolVersion> {
        self.iter().last()
    }
}

impl fmt::Display for VersionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.iter().map(ProtocolVersion::as_str).collect();
        f.write_str(&names.join(","))
    }
}

impl FromStr for VersionSet {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.split(',').map(str::trim).try_fold(VersionSet(0), |acc, part| {
            let set = match part {
                "all" => VersionSet::ALL,
                "legacy" | "stateful" => VersionSet::LEGACY,
                "modern" | "stateless" => VersionSet::MODERN,
                p if p.ends_with('+') => {
                    VersionSet::range(p.trim_end_matches('+').parse()?, ProtocolVersion::V2026_07_28)
                }
                p => match p.split_once("..").or_else(|| p.split_once('…')) {
                    Some((a, b)) => VersionSet::range(a.trim().parse()?, b.trim().parse()?),
                    None => VersionSet::only(p.parse()?),
                },
            };
            Ok(acc.union(set))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_catalogue_notation() {
        let set: VersionSet = "2025-06-18+".parse().unwrap();
        assert_eq!(set.to_string(), "2025-06-18,2025-11-25,2026-07-28");
        let set: VersionSet = "2024-11-05…2025-03-26".parse().unwrap();
        assert_eq!(set.to_string(), "2024-11-05,2025-03-26");
        let set: VersionSet = "legacy".parse().unwrap();
        assert!(!set.contains(ProtocolVersion::V2026_07_28));
        assert!(set.contains(ProtocolVersion::V2024_11_05));
        let set: VersionSet = "2025-03-26, 2026-07-28".parse().unwrap();
        assert_eq!(set.iter().count(), 2);
        assert!("2099-01-01".parse::<VersionSet>().is_err());
    }

    #[test]
    fn versions_are_ordered_and_have_eras() {
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_11_25);
        assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Stateless);
        assert_eq!(
            "draft".parse::<ProtocolVersion>(),
            Ok(ProtocolVersion::V2026_07_28)
        );
    }
}
