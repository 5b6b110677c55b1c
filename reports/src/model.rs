//! The report document: one run (or a merge of shards) as data.
//!
//! `report.json` is this model serialized; `reports/report.schema.json` is its
//! JSON Schema, generated from these types. Every other format is written
//! from the same value, so they cannot disagree.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Basis, ExitCode, Level, Verdict};

/// The version of the report format. Bumped on any change a reader could
/// notice (a field removed, renamed or given a new meaning); new optional
/// fields do not bump it.
pub const FORMAT_VERSION: u32 = 1;

/// A conformance run: what ran against what, every case's checks and
/// transcript, and the release gate's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// The version of this format ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// When the report was written (RFC 3339, UTC; `SOURCE_DATE_EPOCH` fixes
    /// it). The only field that differs between two runs of the same inputs.
    pub generated_at: String,
    pub tool: Tool,
    pub run: RunInfo,
    pub summary: Summary,
    pub gate: Gate,
    /// One case per scenario and protocol version, sorted by scenario id,
    /// then version.
    pub cases: Vec<Case>,
}

impl Report {
    /// Every product check (see [`Scope::Product`]) with its case, in case order.
    pub fn product_checks(&self) -> Vec<(&Case, &CheckResult)> {
        self.cases
            .iter()
            .flat_map(|case| case.checks.iter().map(move |check| (case, check)))
            .filter(|(_, check)| !check.scope.is_spec())
            .collect()
    }
}

/// The program that wrote the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// What the run was asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunInfo {
    /// The peer under test (secret header values redacted).
    pub target: String,
    /// The protocol versions the run offered.
    pub protocol_versions: Vec<String>,
    /// The profile binding triggers to the peer's tools, if any.
    pub profile: Option<String>,
    pub suite: Suite,
    /// Whether non-strict findings fail the gate (`--strict`).
    pub strict: bool,
    /// The slice of the suite this run covered (`--shard K/N`); absent for a
    /// whole run and for a merge of all shards.
    pub shard: Option<Shard>,
    /// The baseline of accepted failures the gate applied.
    pub baseline: Option<BaselineInfo>,
}

/// The scenarios selected for the run, before sharding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Suite {
    /// A fingerprint of the selected scenario files (ids and text):
    /// `fnv1a64:` and 16 hex digits. Equal digests, same suite.
    pub digest: String,
    /// How many scenarios were selected.
    pub scenarios: usize,
}

/// Slice `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The baseline file a run was gated with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BaselineInfo {
    /// The path as given on the command line.
    pub path: String,
    /// A fingerprint of its text (`fnv1a64:…`).
    pub digest: String,
    /// How many entries it holds.
    pub entries: usize,
}

/// How many cases ended with each verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub cases: usize,
    pub pass: usize,
    pub not_applicable: usize,
    pub not_observed: usize,
    pub non_strict: usize,
    pub fail: usize,
    pub error: usize,
}

impl Summary {
    /// The counts of `cases`.
    pub fn of(cases: &[Case]) -> Summary {
        let mut summary = Summary {
            cases: cases.len(),
            ..Summary::default()
        };
        for case in cases {
            *summary.count_mut(case.verdict) += 1;
        }
        summary
    }

    /// How many cases ended with `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        match verdict {
            Verdict::Pass => self.pass,
            Verdict::NotApplicable => self.not_applicable,
            Verdict::NotObserved => self.not_observed,
            Verdict::NonStrict => self.non_strict,
            Verdict::Fail => self.fail,
            Verdict::Error => self.error,
        }
    }

    fn count_mut(&mut self, verdict: Verdict) -> &mut usize {
        match verdict {
            Verdict::Pass => &mut self.pass,
            Verdict::NotApplicable => &mut self.not_applicable,
            Verdict::NotObserved => &mut self.not_observed,
            Verdict::NonStrict => &mut self.non_strict,
            Verdict::Fail => &mut self.fail,
            Verdict::Error => &mut self.error,
        }
    }
}

/// One scenario run on one protocol version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Case {
    /// The scenario id (`tools.call-unknown`).
    pub scenario: String,
    pub title: String,
    /// The id's first segment (`tools`), for filtering.
    pub area: String,
    /// The scenario file.
    pub file: String,
    /// The version the case spoke (negotiated, or the one offered).
    pub protocol_version: Option<String>,
    /// The worst verdict of the checks, or why nothing was checked.
    pub verdict: Verdict,
    /// Why the case as a whole is not-applicable, not-observed or error.
    pub note: Option<String>,
    pub checks: Vec<CheckResult>,
    /// Findings outside the scenario's own requirements; they do not count
    /// toward the verdict.
    pub remarks: Vec<CheckResult>,
    /// Every message in wire order, secret header values redacted; of a
    /// flood, the first [`TRANSCRIPT_FRAMES`] (or [`TRANSCRIPT_BYTES`]), each
    /// at most [`FRAME_CHARS`] long.
    pub transcript: Vec<WireFrame>,
    /// What a flood's transcript left out past [`TRANSCRIPT_FRAMES`] or
    /// [`TRANSCRIPT_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_cut: Option<TranscriptCut>,
    /// The last lines of the peer's stderr, kept when something went wrong.
    pub stderr_tail: Option<String>,
    /// Milliseconds from starting the peer's process to its first frame,
    /// when the case started it and spoke to it over stdio (absent over
    /// HTTP, where the server was up before the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_ms: Option<u64>,
}

/// Frames of a case's transcript that the reports keep: no scenario comes
/// near it, and past it a flood would make every report as big as the
/// flood (a peer may send 10,000 messages or 64 MiB before it is cut).
pub const TRANSCRIPT_FRAMES: usize = 1000;
/// Characters of one frame's text the reports keep; a longer one ends in
/// `… (N more bytes)`.
pub const FRAME_CHARS: usize = 64 * 1024;
/// Bytes of frames (each counted up to [`FRAME_CHARS`]) a case's
/// transcript keeps: with 1000 frames, the bound on a report's size per case.
pub const TRANSCRIPT_BYTES: usize = 4 * 1024 * 1024;

/// The frames left out of a transcript cut at [`TRANSCRIPT_FRAMES`] or
/// [`TRANSCRIPT_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TranscriptCut {
    pub frames: usize,
    /// Their bytes on the wire.
    pub bytes: usize,
}

impl TranscriptCut {
    /// The note every output puts where the transcript stops.
    pub fn note(&self) -> String {
        format!("… {} more frames ({} bytes) not kept", self.frames, self.bytes)
    }
}

impl Case {
    /// `scenario` or `scenario@version`: the case's name in every format.
    pub fn name(&self) -> String {
        match &self.protocol_version {
            Some(version) => format!("{}@{version}", self.scenario),
            None => self.scenario.clone(),
        }
    }
}

/// The judgement of one expectation or rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckResult {
    /// The requirement ID the check enforces (`TOOL-002`, or the user's own
    /// `ACME-001`); empty for a product check citing none.
    pub requirement: String,
    /// Whose rule it is; absent: the spec's.
    #[serde(default, skip_serializing_if = "Scope::is_spec")]
    pub scope: Scope,
    /// What was checked, in a few words.
    pub name: String,
    pub level: Level,
    /// What the level rests on; absent: the spec's keyword.
    #[serde(default, skip_serializing_if = "Basis::is_keyword")]
    pub basis: Basis,
    /// Never `fail` when `basis` is `prose` or `inference`.
    pub verdict: Verdict,
    /// Why, when it is not a pass.
    pub message: Option<String>,
    /// The expected side as written in the scenario (wildcards kept).
    pub expected: Option<Value>,
    /// What the peer sent, moved toward the expected side.
    pub actual: Option<Value>,
    /// `line:column` of the expectation in the scenario file.
    pub location: Option<String>,
    /// The transcript frame the check is about (its `index`).
    pub frame: Option<usize>,
    /// Set when a baseline entry accepts this failure.
    pub accepted: Option<Acceptance>,
}

/// Whose rule a check enforces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The MCP spec's, or a rule of mcp-conform's own where the spec has
    /// none: what the requirement matrix shows.
    #[default]
    Spec,
    /// The user's product: a requirement of their own catalogue, or none.
    /// Shown apart from the spec, as product checks.
    Product,
}

impl Scope {
    /// Whether the rule is the spec's (serde leaves the default out).
    pub fn is_spec(&self) -> bool {
        *self == Scope::Spec
    }
}

impl CheckResult {
    /// The requirement as a table shows it: a product check citing none
    /// reads `–`.
    pub fn cited(&self) -> &str {
        cited(&self.requirement)
    }
}

impl CheckRef {
    /// The requirement as a table shows it (see [`CheckResult::cited`]).
    pub fn cited(&self) -> &str {
        cited(&self.requirement)
    }
}

fn cited(requirement: &str) -> &str {
    if requirement.is_empty() {
        "–"
    } else {
        requirement
    }
}

/// Why a failing check does not fail the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Acceptance {
    pub reason: String,
    /// The date (`YYYY-MM-DD`) after which the entry stops accepting.
    pub expires: Option<String>,
    /// The entry's line in the baseline file.
    pub line: usize,
}

/// Who sent a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// mcp-conform sent it to the peer under test.
    Sent,
    /// The peer under test sent it.
    Received,
}

/// One message as it crossed the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WireFrame {
    /// Position in the case's transcript, from 0.
    pub index: usize,
    pub direction: Direction,
    /// The message text (invalid UTF-8 shown as U+FFFD).
    pub text: String,
    /// For a response: the index of the request it answers.
    pub answers: Option<usize>,
    /// HTTP details, when the transport is HTTP.
    pub http: Option<HttpMeta>,
}

/// What HTTP said around a frame.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct HttpMeta {
    pub status: Option<u16>,
    /// Lower-case names; secret values are `<redacted>`.
    pub headers: BTreeMap<String, String>,
    pub stream: Option<String>,
    pub sse_event_id: Option<String>,
    pub sse_event: Option<String>,
}

/// The release gate's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Gate {
    /// The exit code of `run`: 0 green, 1 new failures or stale baseline
    /// entries, 3 an infrastructure error (nothing can be trusted).
    #[schemars(with = "u8")]
    pub exit_code: ExitCode,
    /// Failing checks no baseline entry accepts (non-strict ones too under
    /// `--strict`).
    pub new_failures: Vec<CheckRef>,
    /// How many failing checks a baseline entry accepted.
    pub accepted: usize,
    /// Baseline entries whose check now passes: delete them.
    pub stale: Vec<BaselineNote>,
    /// Baseline entries past their expiry date: they accept nothing.
    pub expired: Vec<BaselineNote>,
    /// Cases that ended in error.
    pub errors: Vec<String>,
}

/// A check, named from outside its case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckRef {
    pub scenario: String,
    pub protocol_version: Option<String>,
    pub requirement: String,
    /// Whose rule it is; absent: the spec's.
    #[serde(default, skip_serializing_if = "Scope::is_spec")]
    pub scope: Scope,
    pub name: String,
    /// What the requirement's level rests on; absent: the spec's keyword.
    #[serde(default, skip_serializing_if = "Basis::is_keyword")]
    pub basis: Basis,
    pub verdict: Verdict,
    pub message: Option<String>,
}

/// A baseline entry the gate has something to say about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct BaselineNote {
    /// The entry's first line in the baseline file.
    pub line: usize,
    /// The entry's lines, as written.
    pub text: String,
    pub scenario: String,
    pub requirement: String,
    /// The one protocol version the entry is about, if it names one.
    #[serde(default)]
    pub protocol_version: Option<String>,
}

impl Gate {
    /// The gate over `cases` whose checks already carry their baseline
    /// acceptance; `stale` and `expired` come from the baseline.
    pub fn decide(
        cases: &[Case],
        strict: bool,
        stale: Vec<BaselineNote>,
        expired: Vec<BaselineNote>,
    ) -> Gate {
        let failing =
            |verdict: Verdict| verdict == Verdict::Fail || (strict && verdict == Verdict::NonStrict);
        let mut new_failures = Vec::new();
        let mut accepted = 0;
        for case in cases {
            for check in case.checks.iter().filter(|c| failing(c.verdict)) {
                if check.accepted.is_some() {
                    accepted += 1;
                    continue;
                }
                new_failures.push(CheckRef {
                    scenario: case.scenario.clone(),
                    protocol_version: case.protocol_version.clone(),
                    requirement: check.requirement.clone(),
                    scope: check.scope,
                    name: check.name.clone(),
                    basis: check.basis,
                    verdict: check.verdict,
                    message: check.message.clone(),
                });
            }
        }
        let errors: Vec<String> = cases
            .iter()
            .filter(|c| c.verdict == Verdict::Error)
            .map(Case::name)
            .collect();
        let exit_code = if !errors.is_empty() {
            ExitCode::Error
        } else if !new_failures.is_empty() || !stale.is_empty() {
            ExitCode::Failures
        } else {
            ExitCode::Ok
        };
        Gate {
            exit_code,
            new_failures,
            accepted,
            stale,
            expired,
            errors,
        }
    }

    /// The decision in words: `gate passed` or `gate failed (exit N)`.
    pub fn decision(&self) -> String {
        if self.is_green() {
            "gate passed".to_owned()
        } else {
            format!("gate failed (exit {})", self.exit_code)
        }
    }

    /// Whether the gate lets the release through.
    pub fn is_green(&self) -> bool {
        self.exit_code == ExitCode::Ok
    }
}

/// The JSON Schema of [`Report`], as checked in at `reports/report.schema.json`.
pub fn report_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(Report)).expect("a schema is JSON")
}
