//! `completions` and `man` from the real CLI: every visible command and
//! option is in each output, and the bash script is valid bash (zsh and
//! fish are checked the same way where installed).

use std::process::Command;

use clap::CommandFactory;
use mcp_conform::cli::Cli;

fn mcp_conform(args: &[&str]) -> String {
    let output = assert_cmd::Command::cargo_bin("mcp-conform")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Every visible subcommand name and long option of the CLI.
fn visible_words() -> Vec<String> {
    fn walk(command: &clap::Command, words: &mut Vec<String>) {
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            words.extend(arg.get_long().map(str::to_owned));
        }
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            words.push(sub.get_name().to_owned());
            walk(sub, words);
        }
    }
    let mut words = Vec::new();
    walk(&Cli::command(), &mut words);
    words
}

#[test]
fn every_output_names_every_visible_command_and_option() {
    let words = visible_words();
    assert!(words.iter().any(|w| w == "init") && words.iter().any(|w| w == "watch"));
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["completions", "fish"],
        &["man"],
    ] {
        let text = mcp_conform(args);
        // The man page escapes dashes.
        let text = text.replace("\\-", "-");
        let missing: Vec<&String> = words.iter().filter(|w| !text.contains(w.as_str())).collect();
        assert!(missing.is_empty(), "{args:?} misses {missing:?}");
        assert!(
            !text.contains("reference-server"),
            "{args:?} shows a hidden command"
        );
    }
}

#[test]
fn the_scripts_are_valid_for_their_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let Ok(found) = Command::new("sh")
            .args(["-c", &format!("command -v {shell}")])
            .output()
        else {
            continue;
        };
        if !found.status.success() {
            println!("{shell} is not installed: its script is checked by the golden test only");
            continue;
        }
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("script");
        std::fs::write(&file, mcp_conform(&["completions", shell])).unwrap();
        let checked = Command::new(shell).arg("-n").arg(&file).output().unwrap();
        assert!(
            checked.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}

#[test]
fn bash_completes_subcommands_options_and_choices() {
    let dir = tempfile::TempDir::new().unwrap();
    let file = dir.path().join("mcp-conform.bash");
    std::fs::write(&file, mcp_conform(&["completions", "bash"])).unwrap();
    let complete = |line: &str| {
        let script = format!(
            "source {}; COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _mcp_conform; echo \"${{COMPREPLY[*]}}\"",
            file.display()
        );
        let output = Command::new("bash").args(["-c", &script]).output().unwrap();
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    };
    assert_eq!(complete("mcp-conform in"), "init");
    assert_eq!(complete("mcp-conform profile ch"), "check");
    assert!(
        complete("mcp-conform run --wa")
            .split(' ')
            .any(|w| w == "--watch")
    );
    assert_eq!(complete("mcp-conform completions f"), "fish");
    assert_eq!(complete("mcp-conform run --show n"), "not-applicable");
    assert_eq!(complete("mcp-conform run --auth-issuer \"\""), "mock none");
}
