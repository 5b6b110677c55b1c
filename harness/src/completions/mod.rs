//! `mcp-conform completions SHELL` and `mcp-conform man`: shell completions
//! and a man page generated from the CLI definition. clap_complete and
//! clap_mangen are not in the offline registry this project builds from, so
//! this module walks clap's `Command` itself: [`Node`] is what every writer
//! reads (visible commands, their options and what values those take).

mod bash;
mod fish;
mod man;
mod zsh;

use clap::builder::ValueHint;

pub use man::page as man_page;

/// The shells `completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The completion script for `shell` of `command` (the CLI definition).
pub fn script(shell: Shell, command: &clap::Command) -> String {
    let root = Node::of(command);
    match shell {
        Shell::Bash => bash::script(&root),
        Shell::Zsh => zsh::script(&root),
        Shell::Fish => fish::script(&root),
    }
}

/// A visible command: its words from the binary's name down, what it does,
/// its options, whether it takes file arguments, and its subcommands.
#[derive(Debug)]
pub struct Node {
    pub path: Vec<String>,
    pub about: String,
    /// The long description, when the help gives one.
    pub long_about: Option<String>,
    pub version: Option<String>,
    pub options: Vec<Opt>,
    /// Positional arguments, by value name, and what each takes.
    pub positionals: Vec<(String, Takes)>,
    pub subcommands: Vec<Node>,
}

/// An option (`--long`, `-s`) and what it takes.
#[derive(Debug)]
pub struct Opt {
    pub long: Option<String>,
    pub short: Option<char>,
    pub help: String,
    pub takes: Takes,
    /// The value's name in the help (`FILE`), when it takes one.
    pub value_name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Takes {
    Nothing,
    Anything,
    Path,
    OneOf(Vec<String>),
}

impl Node {
    /// The tree of `command`, hidden commands and options left out.
    pub fn of(command: &clap::Command) -> Node {
        let mut command = command.clone();
        command.build();
        Node::walk(&command, Vec::new())
    }

    fn walk(command: &clap::Command, parent: Vec<String>) -> Node {
        let mut path = parent;
        path.push(command.get_name().to_owned());
        let visible = command.get_arguments().filter(|a| !a.is_hide_set());
        let (positionals, options): (Vec<&clap::Arg>, Vec<&clap::Arg>) =
            visible.partition(|a| a.is_positional());
        Node {
            about: command
                .get_about()
                .map(|a| first_line(&a.to_string()))
                .unwrap_or_default(),
            long_about: command.get_long_about().map(ToString::to_string),
            version: command.get_version().map(str::to_owned),
            options: options.into_iter().map(Opt::of).collect(),
            positionals: positionals
                .into_iter()
                .map(|a| (value_name(a), Opt::of(a).takes))
                .collect(),
            // `help COMMAND` repeats the tree: its words are not walked again.
            subcommands: command
                .get_subcommands()
                .filter(|s| !s.is_hide_set() && command.get_name() != "help")
                .map(|s| Node::walk(s, path.clone()))
                .collect(),
            path,
        }
    }

    /// The command's name (the last word of its path).
    pub fn name(&self) -> &str {
        self.path.last().map(String::as_str).unwrap_or_default()
    }

    /// Whether a positional argument takes paths.
    pub fn takes_files(&self) -> bool {
        self.positionals.iter().any(|(_, takes)| *takes == Takes::Path)
    }

    /// The values a positional argument takes, when they are a list.
    pub fn choices(&self) -> Vec<&str> {
        self.positionals
            .iter()
            .flat_map(|(_, takes)| match takes {
                Takes::OneOf(choices) => choices.as_slice(),
                _ => &[],
            })
            .map(String::as_str)
            .collect()
    }

    /// This node and every node below it, parents first.
    pub fn all(&self) -> Vec<&Node> {
        let mut all = vec![self];
        for sub in &self.subcommands {
            all.extend(sub.all());
        }
        all
    }
}

impl Opt {
    fn of(arg: &clap::Arg) -> Opt {
        let choices: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        let takes = if !arg.get_action().takes_values() {
            Takes::Nothing
        } else if !choices.is_empty() {
            Takes::OneOf(choices)
        } else if matches!(
            arg.get_value_hint(),
            ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
        ) {
            Takes::Path
        } else {
            Takes::Anything
        };
        Opt {
            long: arg.get_long().map(str::to_owned),
            short: arg.get_short(),
            help: arg
                .get_help()
                .map(|h| first_line(&h.to_string()))
                .unwrap_or_default(),
            takes,
            value_name: value_name(arg),
        }
    }
}

fn value_name(arg: &clap::Arg) -> String {
    arg.get_value_names()
        .and_then(|names| names.first())
        .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string)
}

/// The first line of a help text (the rest is for `--help`).
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use clap::{Arg, ArgAction, Command};

    use super::*;

    /// A small CLI with each kind of option, the golden outputs' input.
    pub(super) fn fixture() -> Command {
        Command::new("tool")
            .about("Does things.\nMore about it.")
            .version("1.0")
            .arg(
                Arg::new("verbose")
                    .long("verbose")
                    .short('v')
                    .action(ArgAction::SetTrue)
                    .help("Say more"),
            )
            .subcommand(
                Command::new("run")
                    .about("Run it")
                    .arg(Arg::new("speed").value_parser(["low", "high"]))
                    .arg(
                        Arg::new("paths")
                            .num_args(0..)
                            .value_parser(clap::value_parser!(std::path::PathBuf)),
                    )
                    .arg(
                        Arg::new("mode")
                            .long("mode")
                            .value_parser(["fast", "slow"])
                            .help("How: it's [fast]"),
                    )
                    .arg(
                        Arg::new("name")
                            .long("name")
                            .short('n')
                            .value_name("NAME")
                            .help("A name"),
                    )
                    .arg(Arg::new("secret").long("secret").hide(true)),
            )
            .subcommand(
                Command::new("profile").about("Profiles").subcommand(
                    Command::new("check")
                        .about("Check one")
                        .arg(Arg::new("file").required(true)),
                ),
            )
            .subcommand(Command::new("hidden").hide(true))
    }

    #[test]
    fn the_tree_keeps_what_is_visible_and_what_each_option_takes() {
        let root = Node::of(&fixture());
        let names: Vec<String> = root.all().iter().map(|n| n.path.join(" ")).collect();
        assert_eq!(
            names,
            [
                "tool",
                "tool run",
                "tool profile",
                "tool profile check",
                "tool profile help",
                "tool help"
            ]
        );
        let run = &root.subcommands[0];
        let takes: Vec<(Option<&str>, &Takes)> = run
            .options
            .iter()
            .map(|o| (o.long.as_deref(), &o.takes))
            .collect();
        assert_eq!(
            takes,
            [
                (Some("mode"), &Takes::OneOf(vec!["fast".into(), "slow".into()])),
                (Some("name"), &Takes::Anything),
                (Some("help"), &Takes::Nothing),
            ]
        );
        assert!(run.takes_files());
        assert_eq!(run.choices(), ["low", "high"]);
        assert!(!root.subcommands[1].subcommands[0].takes_files());
    }

    #[test]
    fn golden_outputs_of_the_fixture() {
        let command = fixture();
        insta::assert_snapshot!("bash", script(Shell::Bash, &command));
        insta::assert_snapshot!("zsh", script(Shell::Zsh, &command));
        insta::assert_snapshot!("fish", script(Shell::Fish, &command));
        insta::assert_snapshot!("man", man_page(&command));
    }
}
