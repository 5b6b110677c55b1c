//! Combining the reports of `--shard K/N` runs into the report of the whole
//! suite (the CI-matrix path): the same document an unsharded run writes,
//! but for its timestamp (the newest shard's).

use std::collections::BTreeSet;

use crate::model::{Gate, Report, RunInfo, Summary};

/// Merges the reports of shards 1..=N of one run.
pub fn merge(mut shards: Vec<Report>) -> Result<Report, String> {
    let Some(first) = shards.first() else {
        return Err("no report to merge".into());
    };
    let whole = RunInfo {
        shard: None,
        ..first.run.clone()
    };
    let count = first.run.shard.map_or(1, |s| s.count);
    let mut seen = BTreeSet::new();
    for report in &shards {
        let Some(shard) = report.run.shard else {
            return Err("a report of a whole run (no --shard) cannot be merged".into());
        };
        if (RunInfo {
            shard: None,
            ..report.run.clone()
        }) != whole
            || report.tool != first.tool
        {
            return Err(format!(
                "shard {}/{} ran something else (tool, target, protocol, profile, suite, strictness or baseline differ)",
                shard.index, shard.count
            ));
        }
        if shard.count != count || !seen.insert(shard.index) {
            return Err(format!(
                "shard {}/{} is given twice or belongs to another split",
                shard.index, shard.count
            ));
        }
    }
    if seen.len() != count {
        let missing: Vec<String> = (1..=count)
            .filter(|i| !seen.contains(i))
            .map(|i| format!("{i}/{count}"))
            .collect();
        return Err(format!("missing shard(s): {}", missing.join(", ")));
    }
    let generated_at = shards
        .iter()
        .map(|r| r.generated_at.clone())
        .max()
        .unwrap_or_default();
    let tool = first.tool.clone();
    let format_version = first.format_version;
    let mut cases = Vec::new();
    let mut stale = BTreeSet::new();
    let mut expired = BTreeSet::new();
    for report in shards.drain(..) {
        cases.extend(report.cases);
        stale.extend(report.gate.stale);
        expired.extend(report.gate.expired);
    }
    cases.sort_by(|a, b| (&a.scenario, &a.protocol_version).cmp(&(&b.scenario, &b.protocol_version)));
    if let Some(twice) = cases.windows(2).find(|pair| pair[0].name() == pair[1].name()) {
        return Err(format!("case {} is in two shards", twice[0].name()));
    }
    let gate = Gate::decide(
        &cases,
        whole.strict,
        stale.into_iter().collect(),
        expired.into_iter().collect(),
    );
    Ok(Report {
        format_version,
        generated_at,
        tool,
        summary: Summary::of(&cases),
        run: whole,
        gate,
        cases,
    })
}
