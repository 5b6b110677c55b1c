//! The client being recorded: one that reaches `record` by itself, or a
//! command line `record` starts, with a placeholder (`{server}`, `{url}`)
//! for how it reaches us.

use mcp_mock_peers::transport::StdioCommand;

/// Who the client is.
#[derive(Debug, Clone)]
pub enum Client {
    /// Started by someone else: over stdio it started us and speaks on our
    /// stdin and stdout; over HTTP it is given the proxy's URL.
    Elsewhere,
    /// We start it with these words.
    Command(Vec<String>),
}

/// `words` with `placeholder` filled in: a word that is exactly the
/// placeholder becomes `replacement`'s words, and inside a longer word
/// `inline` is spliced in.
pub fn expand(
    words: &[String],
    placeholder: &str,
    replacement: &[String],
    inline: &str,
) -> Result<StdioCommand, String> {
    if !words.iter().any(|w| w.contains(placeholder)) {
        return Err(format!(
            "the client's command line has no {placeholder}: put it where the client takes its server"
        ));
    }
    let mut expanded = Vec::new();
    for word in words {
        match word == placeholder {
            true => expanded.extend(replacement.iter().cloned()),
            false => expanded.push(word.replace(placeholder, inline)),
        }
    }
    let mut words = expanded.into_iter();
    Ok(StdioCommand {
        program: words.next().unwrap_or_default(),
        args: words.collect(),
        env: Vec::new(),
        cwd: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_placeholder_becomes_words_or_text() {
        let relay = words(&["mcp-conform", "serve", "--connect", "/tmp/s"]);
        let inline = "mcp-conform serve --connect /tmp/s";
        let command =
            expand(&words(&["client", "--", "{server}"]), "{server}", &relay, inline).expect("expands");
        assert_eq!(command.program, "client");
        assert_eq!(
            command.args,
            words(&["--", "mcp-conform", "serve", "--connect", "/tmp/s"])
        );
        let command = expand(
            &words(&["client", "--server={server}"]),
            "{server}",
            &relay,
            inline,
        )
        .expect("expands");
        assert_eq!(
            command.args,
            words(&["--server=mcp-conform serve --connect /tmp/s"])
        );
        assert!(expand(&words(&["client"]), "{server}", &relay, inline).is_err());
    }
}
