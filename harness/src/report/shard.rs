//! `--shard K/N`: a deterministic slice of the selected scenarios, so a CI
//! matrix can split a big suite and `merge` can put the reports together.

use mcp_conform_core::scenario::Scenario;
use mcp_conform_report::Shard;

/// Parses `K/N` with 1 ≤ K ≤ N.
pub fn parse(text: &str) -> Result<Shard, String> {
    let bad = || format!("`{text}` is not K/N with 1 <= K <= N (for example 2/4)");
    let (index, count) = text.split_once('/').ok_or_else(bad)?;
    let index: usize = index.trim().parse().map_err(|_| bad())?;
    let count: usize = count.trim().parse().map_err(|_| bad())?;
    if index == 0 || index > count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// The scenarios of `shard`: every N-th of the selection sorted by id,
/// starting at the K-th, in their original order. Depends only on the ids,
/// so every machine of a matrix computes the same split.
pub fn select(scenarios: Vec<Scenario>, shard: Shard) -> Vec<Scenario> {
    let mut ids: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    let mine: std::collections::BTreeSet<String> = ids
        .iter()
        .enumerate()
        .filter(|(position, _)| position % shard.count == shard.index - 1)
        .map(|(_, id)| (*id).to_owned())
        .collect();
    scenarios.into_iter().filter(|s| mine.contains(&s.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_k_of_n() {
        assert_eq!(parse("2/3"), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
