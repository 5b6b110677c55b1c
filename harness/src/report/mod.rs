//! The report of a run: each finished scenario's outcome converted once
//! ([`case`]) into the stable model of `mcp-conform-report`, the cases
//! gated by a baseline, and written as `report.json`, `junit.xml`,
//! `report.md` and `report.html`. The terminal renders the same cases
//! (`crate::output`).
//!
//! - [`baseline`]: accepted failures; [`shard`]: `--shard K/N`; `redact`:
//!   the user's secrets kept out of every case.

pub mod baseline;
mod redact;
pub mod shard;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mcp_conform_core::redact::Secrets;
use mcp_conform_core::requirements;
use mcp_conform_core::scenario::Scenario;
use mcp_conform_core::wire::{self, Frame};
use mcp_conform_report::{
    Case, CheckResult, Direction, ExitCode, FORMAT_VERSION, FRAME_CHARS, Gate, HttpMeta, Report, RunInfo,
    Scope, Suite, Summary, TRANSCRIPT_BYTES, TRANSCRIPT_FRAMES, Tool, TranscriptCut, WireFrame, html, json,
    junit, markdown, provenance, sanitize,
};
use serde_json::Value;

use crate::runner::{Check, ScenarioOutcome};
use baseline::{Baseline, Findings};

/// The files a report directory holds, in the order they are written.
pub const FILES: [&str; 4] = ["report.json", "junit.xml", "report.md", "report.html"];

/// The suite's fingerprint: every selected scenario's id and text, in order.
pub fn suite(scenarios: &[Scenario]) -> Suite {
    let parts = scenarios
        .iter()
        .flat_map(|s| [s.id.as_bytes(), s.source.text.as_bytes()]);
    Suite {
        digest: provenance::fingerprint(parts),
        scenarios: scenarios.len(),
    }
}

/// The cases of a run in the order it planned them, each converted from
/// its outcome as the run reports it finished.
#[derive(Debug)]
pub struct CaseLog {
    /// By the run's case index; a case whose worker died stays `None`.
    cases: Vec<Option<Case>>,
    /// Kept out of every case.
    secrets: Secrets,
}

impl CaseLog {
    /// A log whose cases never show `secrets`.
    pub fn new(secrets: Secrets) -> CaseLog {
        CaseLog {
            cases: Vec::new(),
            secrets,
        }
    }

    /// The secrets its cases never show, to add more as the run makes them.
    pub fn secrets_mut(&mut self) -> &mut Secrets {
        &mut self.secrets
    }

    /// Converts the finished case `index`; returns it for live output.
    pub fn record(&mut self, index: usize, outcome: &ScenarioOutcome) -> &Case {
        if self.cases.len() <= index {
            self.cases.resize(index + 1, None);
        }
        self.cases[index].insert(case(outcome, &self.secrets))
    }

    /// The cases that finished, in the run's order.
    pub fn into_cases(self) -> Vec<Case> {
        self.cases.into_iter().flatten().collect()
    }
}

/// The report of `cases`, gated by `baseline` (if any) as of today.
pub fn build(mut cases: Vec<Case>, run: RunInfo, baseline: Option<&Baseline>) -> Report {
    cases.sort_by(|a, b| (&a.scenario, &a.protocol_version).cmp(&(&b.scenario, &b.protocol_version)));
    let generated_at = provenance::generated_at();
    let findings = baseline.map_or_else(Findings::default, |b| b.apply(&mut cases, &generated_at[..10]));
    Report {
        format_version: FORMAT_VERSION,
        generated_at,
        tool: Tool {
            name: "mcp-conform".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        summary: Summary::of(&cases),
        gate: Gate::decide(&cases, run.strict, findings.stale, findings.expired),
        run,
        cases,
    }
}

/// The exit code of `cases` gated without a baseline or `--strict`.
pub fn exit_code(cases: &[Case]) -> ExitCode {
    Gate::decide(cases, false, Vec::new(), Vec::new()).exit_code
}

/// The directory of the report directory holding the transcripts of the
/// cases that failed or erred, one file each, which `junit.xml` attaches.
const TRANSCRIPTS: &str = "transcripts";

/// Writes a transcript file per case that failed or erred (none: no directory).
fn write_transcripts(dir: &Path, report: &Report) -> std::io::Result<()> {
    for case in report.cases.iter().filter(|c| junit::has_attachment(c)) {
        std::fs::create_dir_all(dir)?;
        let text = mcp_conform_report::text::transcript(case);
        std::fs::write(
            dir.join(junit::transcript_file(case)),
            sanitize::controls(&text).as_ref(),
        )?;
    }
    Ok(())
}

/// Writes the four report files into `dir` (created if needed), and the
/// transcripts `junit.xml` attaches.
pub fn write_dir(dir: &Path, report: &Report) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let transcripts = dir.join(TRANSCRIPTS);
    write_transcripts(&transcripts, report)?;
    let texts = [
        json::write(report),
        junit::write(report, Some(&transcripts)),
        markdown::write(report),
        html::write(report),
    ];
    let mut written = Vec::new();
    for (name, text) in FILES.iter().zip(texts) {
        let path = dir.join(name);
        std::fs::write(&path, text)?;
        written.push(path);
    }
    Ok(written)
}

/// Reads the `report.json` of every shard, merges them and writes the
/// whole run's report files into `dir`.
pub fn merge_files(paths: &[PathBuf], dir: &Path) -> Result<Report, String> {
    let shards = paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            json::read(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let report = mcp_conform_report::merge(shards)?;
    write_dir(dir, &report).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(report)
}

/// An outcome in the report model: the one conversion every output
/// goes through, so the one place where `secrets` are redacted (before
/// anything is cut, so that no part of one survives) and peer text in
/// messages is capped ([`sanitize::capped_message`]).
pub fn case(outcome: &ScenarioOutcome, secrets: &Secrets) -> Case {
    capped(redact::case(unredacted_case(outcome), secrets))
}

fn unredacted_case(outcome: &ScenarioOutcome) -> Case {
    // Cut before converting: a flood's frames are never copied whole.
    let kept = kept_frames(&outcome.transcript);
    Case {
        scenario: outcome.id.clone(),
        title: outcome.title.clone(),
        area: outcome.id.split('.').next().unwrap_or_default().to_owned(),
        file: outcome.path.display().to_string(),
        protocol_version: outcome.version.map(|v| v.to_string()),
        verdict: outcome.verdict,
        note: outcome.note.clone(),
        checks: outcome.checks.iter().map(check).collect(),
        remarks: outcome.remarks.iter().map(check).collect(),
        transcript: transcript(&outcome.transcript[..kept]),
        transcript_cut: (kept < outcome.transcript.len()).then(|| TranscriptCut {
            frames: outcome.transcript.len() - kept,
            bytes: outcome.transcript[kept..]
                .iter()
                .map(|frame| frame.raw.len())
                .sum(),
        }),
        stderr_tail: outcome.stderr_tail.clone(),
        startup_ms: outcome
            .startup
            .map(|startup| u64::try_from(startup.as_millis()).unwrap_or(u64::MAX)),
    }
}

/// `case` with its messages and the peer's side of its diffs capped.
fn capped(mut case: Case) -> Case {
    for frame in &mut case.transcript {
        if let Cow::Owned(short) = sanitize::capped(&frame.text, FRAME_CHARS) {
            frame.text = short;
        }
    }
    let cap = |text: &mut String| {
        if let Cow::Owned(short) = sanitize::capped_message(text) {
            *text = short;
        }
    };
    if let Some(note) = &mut case.note {
        cap(note);
    }
    for check in case.checks.iter_mut().chain(&mut case.remarks) {
        if let Some(message) = &mut check.message {
            cap(message);
        }
        if let Some(actual) = &mut check.actual {
            sanitize::cap_strings(actual);
        }
    }
    case
}

fn check(check: &Check) -> CheckResult {
    CheckResult {
        requirement: check.requirement.clone(),
        scope: match requirements::is_spec(&check.requirement) {
            true => Scope::Spec,
            false => Scope::Product,
        },
        name: check.name.clone(),
        level: check.level,
        basis: requirements::basis_of(&check.requirement),
        verdict: check.verdict,
        message: check.message.clone(),
        expected: check.expected.clone(),
        actual: check.actual.clone(),
        location: check.span.is_known().then(|| check.span.to_string()),
        frame: check.frame,
        accepted: None,
    }
}

/// How many of `frames` a case keeps: up to [`TRANSCRIPT_FRAMES`], while
/// fewer than [`TRANSCRIPT_BYTES`] are kept (a frame counts as at most the
/// [`FRAME_CHARS`] its text is cut to).
fn kept_frames(frames: &[Frame]) -> usize {
    let mut bytes = 0;
    frames
        .iter()
        .take(TRANSCRIPT_FRAMES)
        .take_while(|frame| {
            let room = bytes < TRANSCRIPT_BYTES;
            bytes += frame.raw.len().min(FRAME_CHARS);
            room
        })
        .count()
}

/// The frames with their times left out (they would break byte-identical
/// reports) and each response paired with the request it answers.
fn transcript(frames: &[Frame]) -> Vec<WireFrame> {
    let mut open: HashMap<(Direction, String), usize> = HashMap::new();
    frames
        .iter()
        .enumerate()
        .map(|(index, frame)| {
            let direction = match frame.direction {
                wire::Direction::Sent => Direction::Sent,
                wire::Direction::Received => Direction::Received,
            };
            let answers = serde_json::from_slice::<Value>(&frame.raw)
                .ok()
                .and_then(|message| pair(&message, direction, index, &mut open));
            WireFrame {
                index,
                direction,
                text: frame.text().into_owned(),
                answers,
                http: http_meta(frame),
            }
        })
        .collect()
}

/// Remembers a request; for a response, the index of the request with its
/// id that the other side sent.
fn pair(
    message: &Value,
    direction: Direction,
    index: usize,
    open: &mut HashMap<(Direction, String), usize>,
) -> Option<usize> {
    let id = message.get("id").filter(|id| !id.is_null())?.to_string();
    if message.get("method").is_some() {
        open.insert((direction, id), index);
        return None;
    }
    let other = match direction {
        Direction::Sent => Direction::Received,
        Direction::Received => Direction::Sent,
    };
    open.remove(&(other, id))
}

fn http_meta(frame: &Frame) -> Option<HttpMeta> {
    let meta = &frame.meta;
    let http = HttpMeta {
        status: meta.http_status,
        headers: meta.headers.clone(),
        stream: meta.stream.clone(),
        sse_event_id: meta.sse_event_id.clone(),
        sse_event: meta.sse_event.clone(),
    };
    (http != HttpMeta::default()).then_some(http)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn responses_point_at_their_requests_and_times_are_dropped() {
        let frames = [
            Frame::new(
                wire::Direction::Sent,
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
                Duration::from_millis(5),
            ),
            Frame::new(
                wire::Direction::Received,
                br#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#.to_vec(),
                Duration::from_millis(6),
            ),
            Frame::new(
                wire::Direction::Sent,
                br#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_vec(),
                Duration::from_millis(7),
            ),
            Frame::new(
                wire::Direction::Received,
                br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
                Duration::from_millis(8),
            ),
        ];
        let wire = transcript(&frames);
        let answers: Vec<Option<usize>> = wire.iter().map(|f| f.answers).collect();
        assert_eq!(answers, [None, None, Some(1), Some(0)]);
        assert!(wire.iter().all(|f| f.http.is_none()));
    }

    /// A scenario of one step, for outcomes.
    fn scenario() -> Scenario {
        mcp_conform_core::scenario::load::load_str(
            Path::new("s.yaml"),
            "id: a.b\ntitle: t\nrequirements: [RPC-011]\nsteps:\n  - alive: {}\n",
        )
        .expect("a valid scenario")
    }

    #[test]
    fn a_flood_keeps_its_first_frames_each_cut_and_counts_the_rest() {
        let scenario = scenario();
        let mut outcome = ScenarioOutcome::new(&scenario);
        let big = vec![b'x'; 2 * FRAME_CHARS];
        outcome.transcript = vec![Frame::new(wire::Direction::Received, big, Duration::ZERO); 100];
        let case = case(&outcome, &Secrets::default());
        let kept = TRANSCRIPT_BYTES / FRAME_CHARS;
        assert_eq!(case.transcript.len(), kept);
        let note = format!("… ({FRAME_CHARS} more bytes)");
        assert!(case.transcript.iter().all(|f| f.text.ends_with(&note)));
        let cut = case.transcript_cut.expect("a cut");
        assert_eq!(
            (cut.frames, cut.bytes),
            (100 - kept, (100 - kept) * 2 * FRAME_CHARS)
        );
    }

    #[test]
    fn the_log_keeps_the_run_order_whatever_the_finish_order() {
        let scenario = scenario();
        let outcome = |note: &str| {
            ScenarioOutcome::unrun(&scenario, mcp_conform_core::Verdict::NotApplicable, note.into())
        };
        let mut log = CaseLog::new(Secrets::default());
        log.record(2, &outcome("third"));
        log.record(0, &outcome("first"));
        let notes: Vec<Option<String>> = log.into_cases().into_iter().map(|c| c.note).collect();
        assert_eq!(notes, [Some("first".into()), Some("third".into())]);
    }
}
