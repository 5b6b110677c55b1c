//! report.html in a real headless browser (Debian's `chromium`, installed by
//! scripts/install-peers.sh): it renders, the verdict and area filters hide
//! and show cases, and a screenshot is saved for a person to look at
//! (`target/tmp/report-screenshot.png`). The filters are driven through the
//! URL fragment the page reads (`#verdict=fail&area=tools`), the same code
//! path as its checkboxes, so `--dump-dom` shows their effect without a
//! DevTools client. Without chromium the test is ignored with the reason
//! (see `common::needs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use common::needs::{Tests, chromium};
use common::report::judge;

mod common;

/// Runs headless chromium on `url` with `action` (`--dump-dom`, `--screenshot=…`).
fn chromium_on(browser: &Path, profile: &Path, action: &str, url: &str) -> String {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,1400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(action)
        .arg(url)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The cases of a dumped page: (verdict, area, visible).
fn cases(dom: &str) -> Vec<(String, String, bool)> {
    dom.split("<div class=\"case\"")
        .skip(1)
        .map(|rest| {
            let tag = &rest[..rest.find('>').unwrap()];
            let attribute = |name: &str| {
                let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                tag[start..].split('"').next().unwrap().to_owned()
            };
            (
                attribute("data-verdict"),
                attribute("data-area"),
                !tag.contains(" hidden"),
            )
        })
        .collect()
}

fn the_html_report_renders_and_its_filters_work_in_chromium(browser: PathBuf) {
    let broken = format!(
        "{} reference-server --fault bad-base64",
        assert_cmd::cargo::cargo_bin("mcp-conform").display()
    );
    let run = judge(
        &[
            "run",
            "--stdio",
            &broken,
            "--profile",
            "reference",
            "--jobs",
            "2",
            "-f",
            "resources",
            "-f",
            "tools",
            "-f",
            "list-changed",
        ],
        Duration::from_secs(300),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stdout());
    let page = format!("file://{}", run.dir.path().join("report.html").display());
    let work = tempfile::TempDir::new().unwrap();
    let profile = work.path().join("chromium-profile");

    let all = cases(&chromium_on(&browser, &profile, "--dump-dom", &page));
    let shown: Vec<(&str, &str)> = all.iter().map(|(v, a, _)| (v.as_str(), a.as_str())).collect();
    let reported: Vec<(String, &str)> = run
        .report
        .cases
        .iter()
        .map(|case| (case.verdict.to_string(), case.area.as_str()))
        .collect();
    let reported: Vec<(&str, &str)> = reported.iter().map(|(v, a)| (v.as_str(), *a)).collect();
    assert_eq!(shown, reported, "the page shows every case of the report");
    assert!(
        all.iter().all(|(.., visible)| *visible),
        "unfiltered, every case shows"
    );
    let verdicts: BTreeSet<&str> = all.iter().map(|(v, ..)| v.as_str()).collect();
    assert!(
        verdicts.contains("fail") && verdicts.contains("pass") && verdicts.len() >= 3,
        "the filters have several verdicts to tell apart: {verdicts:?}"
    );

    let dom = chromium_on(&browser, &profile, "--dump-dom", &format!("{page}#verdict=fail"));
    let failing = cases(&dom);
    assert!(
        failing
            .iter()
            .all(|(verdict, _, visible)| *visible == (verdict == "fail")),
        "{failing:?}"
    );
    assert!(
        dom.contains(&format!("1 of {} cases shown", all.len())),
        "the counter did not follow"
    );

    let tools = cases(&chromium_on(
        &browser,
        &profile,
        "--dump-dom",
        &format!("{page}#area=tools"),
    ));
    assert!(
        tools
            .iter()
            .all(|(_, area, visible)| *visible == (area == "tools")),
        "{tools:?}"
    );
    assert!(tools.iter().any(|(.., visible)| *visible) && tools.iter().any(|(.., visible)| !visible));

    let screenshot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    let _ = std::fs::remove_file(&screenshot);
    chromium_on(
        &browser,
        &profile,
        &format!("--screenshot={}", screenshot.display()),
        &page,
    );
    let png = std::fs::read(&screenshot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "no real screenshot at {}",
        screenshot.display()
    );
    eprintln!("screenshot: {}", screenshot.display());
}

fn main() -> std::process::ExitCode {
    Tests::default()
        .needing(
            &chromium(),
            "the_html_report_renders_and_its_filters_work_in_chromium",
            the_html_report_renders_and_its_filters_work_in_chromium,
        )
        .run()
}
