//! The user's secrets kept out of a case, field by field. Each type is
//! taken apart whole, so that a field added to the report model does not
//! compile until it is redacted here too.

use std::borrow::Cow;

use mcp_conform_core::redact::Secrets;
use mcp_conform_report::{Acceptance, Case, CheckResult, HttpMeta, WireFrame};

/// `case` with every secret in it replaced by `<redacted>`.
pub fn case(mut case: Case, secrets: &Secrets) -> Case {
    if secrets.is_empty() {
        return case;
    }
    let Case {
        scenario,
        title,
        area,
        file,
        protocol_version,
        verdict: _,
        note,
        checks,
        remarks,
        transcript,
        // Counts only.
        transcript_cut: _,
        stderr_tail,
        startup_ms: _,
    } = &mut case;
    for text in [scenario, title, area, file] {
        redact(secrets, text);
    }
    for text in [protocol_version, note, stderr_tail].into_iter().flatten() {
        redact(secrets, text);
    }
    for check in checks.iter_mut().chain(remarks) {
        redact_check(secrets, check);
    }
    for frame in transcript {
        redact_frame(secrets, frame);
    }
    case
}

fn redact(secrets: &Secrets, text: &mut String) {
    if let Cow::Owned(redacted) = secrets.redact(text) {
        *text = redacted;
    }
}

fn redact_check(secrets: &Secrets, check: &mut CheckResult) {
    let CheckResult {
        requirement,
        scope: _,
        name,
        level: _,
        basis: _,
        verdict: _,
        message,
        expected,
        actual,
        location,
        frame: _,
        accepted,
    } = check;
    for text in [requirement, name] {
        redact(secrets, text);
    }
    for text in [message, location].into_iter().flatten() {
        redact(secrets, text);
    }
    for value in [expected, actual].into_iter().flatten() {
        secrets.redact_value(value);
    }
    if let Some(Acceptance {
        reason,
        expires,
        line: _,
    }) = accepted
    {
        redact(secrets, reason);
        if let Some(expires) = expires {
            redact(secrets, expires);
        }
    }
}

fn redact_frame(secrets: &Secrets, frame: &mut WireFrame) {
    let WireFrame {
        index: _,
        direction: _,
        text,
        answers: _,
        http,
    } = frame;
    redact(secrets, text);
    let Some(HttpMeta {
        status: _,
        headers,
        stream,
        sse_event_id,
        sse_event,
    }) = http
    else {
        return;
    };
    *headers = std::mem::take(headers)
        .into_iter()
        .map(|(name, value)| {
            (
                secrets.redact(&name).into_owned(),
                secrets.redact(&value).into_owned(),
            )
        })
        .collect();
    for text in [stream, sse_event_id, sse_event].into_iter().flatten() {
        redact(secrets, text);
    }
}

#[cfg(test)]
mod tests {
    use mcp_conform_report::{Direction, Verdict};
    use serde_json::json;

    use super::*;

    #[test]
    fn every_field_a_peer_can_fill_is_redacted() {
        let mut secrets = Secrets::default();
        secrets.add("s3cr3t-value");
        let leak = "got s3cr3t-value";
        let check = CheckResult {
            requirement: "PING-001".into(),
            scope: Default::default(),
            name: leak.into(),
            level: mcp_conform_report::Level::Must,
            basis: Default::default(),
            verdict: Verdict::Fail,
            message: Some(leak.into()),
            expected: Some(json!({"result": {}})),
            actual: Some(json!({"error": {"message": leak, leak: 1}})),
            location: None,
            frame: Some(0),
            accepted: None,
        };
        let shown = case(
            Case {
                scenario: "lifecycle.ping".into(),
                title: "ping".into(),
                area: "lifecycle".into(),
                file: "ping.yaml".into(),
                protocol_version: None,
                verdict: Verdict::Fail,
                note: Some(leak.into()),
                checks: vec![check.clone()],
                remarks: vec![check],
                transcript: vec![WireFrame {
                    index: 0,
                    direction: Direction::Received,
                    text: format!(r#"{{"error":{{"message":"{leak}"}}}}"#),
                    answers: None,
                    http: Some(HttpMeta {
                        headers: [("x-echo".to_owned(), leak.to_owned())].into(),
                        stream: Some(leak.into()),
                        ..HttpMeta::default()
                    }),
                }],
                transcript_cut: None,
                stderr_tail: Some(leak.into()),
                startup_ms: None,
            },
            &secrets,
        );
        let text = serde_json::to_string(&shown).unwrap();
        assert!(!text.contains("s3cr3t"), "{text}");
        assert_eq!(text.matches("got <redacted>").count(), 13, "{text}");
        assert_eq!(shown.verdict, Verdict::Fail);
    }
}
