//! The stdio transport: spawn the server from an argv (no shell), frame
//! messages by newline on raw bytes, keep the tail of stderr, and make sure the
//! whole process tree is gone at the end.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_conform_core::wire::{Direction, Frame};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::process_group::{kill_process_group, watch_process_group};
use super::{FRAMES_AHEAD, PeerExit, TransportError, TransportEvent};

/// The longest line we buffer; of a longer one only this much is delivered
/// (it will be reported as invalid JSON) and the rest is read and thrown
/// away, so a runaway peer cannot exhaust memory.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Of a line cut at `MAX_LINE_BYTES`, what the transcript keeps: it is not
/// a message whatever its length, and every report would carry it whole.
const CUT_LINE_KEPT: usize = 4096;
/// How much of the peer's stderr we keep for failure reports: the last lines,
/// each cut to a length, so the tail stays small however the peer writes.
const STDERR_TAIL_LINES: usize = 40;
const STDERR_LINE_BYTES: usize = 2048;

/// How to start a server over stdio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

impl StdioCommand {
    /// Splits a command line the way a POSIX shell splits words (quotes and
    /// backslashes), without running a shell. `VAR=value` words before the
    /// program set environment variables.
    pub fn parse(command_line: &str) -> Result<Self, TransportError> {
        let mut words = split_words(command_line)?.into_iter().peekable();
        let mut env = Vec::new();
        while let Some((key, value)) = words.peek().and_then(|w| env_assignment(w)) {
            env.push((key, value));
            words.next();
        }
        let program = words
            .next()
            .ok_or_else(|| TransportError::CommandLine("no program in the command line".into()))?;
        Ok(StdioCommand {
            program,
            args: words.collect(),
            env,
            cwd: None,
        })
    }

    /// The command line as a user would type it (for reports).
    pub fn display(&self) -> String {
        let env = self.env.iter().map(|(k, v)| format!("{k}={}", quote(v)));
        let words = std::iter::once(quote(&self.program)).chain(self.args.iter().map(|a| quote(a)));
        env.chain(words).collect::<Vec<_>>().join(" ")
    }
}

fn env_assignment(word: &str) -> Option<(String, String)> {
    let (key, value) = word.split_once('=')?;
    let valid = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| (key.to_owned(), value.to_owned()))
}

fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn split_words(line: &str) -> Result<Vec<String>, TransportError> {
    let mut words = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(current.take()),
            '\'' => {
                let word = current.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(TransportError::CommandLine("unterminated single quote".into())),
                    }
                }
            }
            '"' => {
                let word = current.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(TransportError::CommandLine("trailing backslash".into())),
                        },
                        Some(c) => word.push(c),
                        None => return Err(TransportError::CommandLine("unterminated double quote".into())),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => current.get_or_insert_with(String::new).push(c),
                None => return Err(TransportError::CommandLine("trailing backslash".into())),
            },
            c => current.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(current);
    Ok(words)
}

/// The last lines the peer wrote to stderr.
#[derive(Debug, Default)]
struct StderrTail {
    lines: VecDeque<String>,
    dropped: usize,
}

/// How long a process whose stdout closed gets to exit before we say it
/// lives on.
const STDOUT_CLOSED_GRACE: Duration = Duration::from_secs(2);

/// A running server process spoken to over stdin/stdout.
#[derive(Debug)]
pub struct StdioTransport {
    child: Child,
    pid: Option<u32>,
    stdin: Option<ChildStdin>,
    events: mpsc::Receiver<TransportEvent>,
    stderr: Arc<Mutex<StderrTail>>,
    started: Instant,
    exit: Option<PeerExit>,
}

impl StdioTransport {
    /// Starts the server in its own process group, so the whole tree can be
    /// ended together.
    pub fn spawn(command: &StdioCommand) -> Result<Self, TransportError> {
        let mut cmd = Command::new(&command.program);
        cmd.args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &command.cwd {
            cmd.current_dir(dir);
        }
        // The group dies with us even if we are killed before dropping it.
        let mut child = cmd.spawn().map_err(|source| TransportError::Spawn {
            program: command.program.clone(),
            source,
        })?;
        if let Some(pid) = child.id() {
            watch_process_group(pid);
        }
        let started = Instant::now();
        let (tx, events) = mpsc::channel(FRAMES_AHEAD);
        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        if let Some(out) = child.stdout.take() {
            tokio::spawn(read_frames(out, tx, started));
        }
        if let Some(err) = child.stderr.take() {
            tokio::spawn(read_stderr(err, Arc::clone(&stderr)));
        }
        Ok(StdioTransport {
            pid: child.id(),
            stdin: child.stdin.take(),
            child,
            events,
            stderr,
            started,
            exit: None,
        })
    }

    /// Time since the process started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Writes one message followed by a newline; returns the frame as sent.
    pub async fn send(&mut self, raw: &[u8]) -> Result<Frame, TransportError> {
        write_line(self.stdin.as_mut(), raw, self.started, "stdin is closed").await
    }

    /// The next thing the peer did; `None` once the end was reported.
    pub async fn recv(&mut self) -> Option<TransportEvent> {
        if self.exit.is_some() {
            return None;
        }
        match self.events.recv().await {
            Some(event) => Some(event),
            None => {
                // stdout is closed: the process is exiting or has exited,
                // or it lives on with its output closed.
                let mut exit = self.wait_exit(STDOUT_CLOSED_GRACE).await;
                if exit.code.is_none() && exit.signal.is_none() {
                    exit.description = format!(
                        "it closed its stdout and was still running {} ms later",
                        STDOUT_CLOSED_GRACE.as_millis()
                    );
                }
                self.exit = Some(exit.clone());
                Some(TransportEvent::Closed(exit))
            }
        }
    }

    /// Closes the server's stdin: the stdio way to ask it to shut down.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits up to `within` for the process to exit on its own.
    pub async fn wait_exit(&mut self, within: Duration) -> PeerExit {
        match tokio::time::timeout(within, self.child.wait()).await {
            Ok(Ok(status)) => describe_exit(status),
            Ok(Err(e)) => PeerExit {
                code: None,
                signal: None,
                description: format!("wait failed: {e}"),
            },
            Err(_) => PeerExit {
                code: None,
                signal: None,
                description: format!("still running after {} ms", within.as_millis()),
            },
        }
    }

    /// Whether the process has exited, without waiting.
    pub fn try_exit(&mut self) -> Option<PeerExit> {
        self.child.try_wait().ok().flatten().map(describe_exit)
    }

    /// The last lines of the peer's stderr.
    pub fn stderr_tail(&self) -> String {
        let tail = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = String::new();
        if tail.dropped > 0 {
            text.push_str(&format!("[{} earlier lines]\n", tail.dropped));
        }
        for line in &tail.lines {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    /// Ends the conversation the polite way, then the hard way: close stdin,
    /// wait up to `grace`, then kill the whole process group.
    pub async fn shutdown(&mut self, grace: Duration) -> PeerExit {
        self.close_stdin();
        let exit = self.wait_exit(grace).await;
        self.kill_group();
        if exit.code.is_some() || exit.signal.is_some() {
            return exit;
        }
        match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(Ok(status)) => describe_exit(status),
            _ => exit,
        }
    }

    /// Kills every process in the server's group (its children too).
    fn kill_group(&mut self) {
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            kill_process_group(pid);
        }
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        // Runs on every path out, Ctrl-C and panics included: no orphans.
        self.kill_group();
    }
}

fn describe_exit(status: ExitStatus) -> PeerExit {
    use std::os::unix::process::ExitStatusExt;
    let description = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => "exited".to_owned(),
    };
    PeerExit {
        code: status.code(),
        signal: status.signal(),
        description,
    }
}

/// Writes one message and its newline to `writer` (`None`: closed, `why`).
pub(super) async fn write_line(
    writer: Option<&mut (impl AsyncWrite + Unpin + ?Sized)>,
    raw: &[u8],
    started: Instant,
    why: &str,
) -> Result<Frame, TransportError> {
    let writer = writer
        .ok_or_else(|| TransportError::Write(std::io::Error::new(std::io::ErrorKind::BrokenPipe, why)))?;
    let mut line = Vec::with_capacity(raw.len() + 1);
    line.extend_from_slice(raw);
    line.push(b'\n');
    writer.write_all(&line).await.map_err(TransportError::Write)?;
    writer.flush().await.map_err(TransportError::Write)?;
    Ok(Frame::new(Direction::Sent, raw.to_vec(), started.elapsed()))
}

pub(super) async fn read_frames(
    out: impl AsyncRead + Unpin,
    tx: mpsc::Sender<TransportEvent>,
    started: Instant,
) {
    let mut lines = CappedLines::new(out, MAX_LINE_BYTES);
    while let Some((mut line, cut)) = lines.next().await {
        // Blank lines carry no message; skipping them matches every SDK's reader.
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if cut {
            line.truncate(CUT_LINE_KEPT);
            line.shrink_to_fit();
        }
        let mut frame = Frame::new(Direction::Received, line, started.elapsed());
        if cut {
            frame.meta.stream = Some(format!(
                "stdout, a line longer than {} MiB: its first {CUT_LINE_KEPT} bytes",
                MAX_LINE_BYTES / (1024 * 1024)
            ));
        }
        if tx.send(TransportEvent::Frame(frame)).await.is_err() {
            return;
        }
    }
}

/// Lines of at most `cap` bytes, without their newline: of a longer line
/// only the first `cap` bytes come out, and the rest is read and thrown away
/// as it arrives, so an endless line costs `cap`, not its length.
struct CappedLines<R> {
    reader: BufReader<R>,
    cap: usize,
    in_cut_line: bool,
}

impl<R: AsyncRead + Unpin> CappedLines<R> {
    fn new(reader: R, cap: usize) -> Self {
        CappedLines {
            reader: BufReader::new(reader),
            cap,
            in_cut_line: false,
        }
    }

    /// The next line and whether it was cut; `None` at the end or on error.
    async fn next(&mut self) -> Option<(Vec<u8>, bool)> {
        loop {
            let mut line = Vec::new();
            match read_line_capped(&mut self.reader, &mut line, self.cap).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let complete = line.last() == Some(&b'\n');
            if complete {
                line.pop();
            }
            let continues_cut_line = self.in_cut_line;
            self.in_cut_line = !complete;
            if !continues_cut_line {
                let cut = !complete && line.len() >= self.cap;
                return Some((line, cut));
            }
        }
    }
}

/// Reads up to and including the next newline, keeping at most `cap` bytes;
/// the rest of a longer line is left for the next call.
async fn read_line_capped(
    reader: &mut BufReader<impl AsyncRead + Unpin>,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(line.len());
        }
        let (take, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&available[..take.min(room)]);
        reader.consume(take.min(room));
        if done && take <= room || line.len() >= cap {
            return Ok(line.len());
        }
    }
}

/// Keeps the last lines of stderr, each cut to `STDERR_LINE_BYTES`, so a
/// peer writing one endless line costs a few kilobytes, not its whole output.
async fn read_stderr(err: impl AsyncRead + Unpin, tail: Arc<Mutex<StderrTail>>) {
    let mut lines = CappedLines::new(err, STDERR_LINE_BYTES);
    while let Some((line, cut)) = lines.next().await {
        let mut text = String::from_utf8_lossy(&line).into_owned();
        if cut {
            text.push_str(" [line cut]");
        }
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.lines.len() == STDERR_TAIL_LINES {
            tail.lines.pop_front();
            tail.dropped += 1;
        }
        tail.lines.push_back(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines_like_a_shell() {
        let cmd =
            StdioCommand::parse(r#"FOO=1 node "dir with space/x.js" 'a b' c\ d --flag="q\"x""#).unwrap();
        assert_eq!(cmd.env, vec![("FOO".into(), "1".into())]);
        assert_eq!(cmd.program, "node");
        assert_eq!(cmd.args, vec!["dir with space/x.js", "a b", "c d", "--flag=q\"x"]);
        assert!(StdioCommand::parse("  ").is_err());
        assert!(StdioCommand::parse("a 'b").is_err());
        assert_eq!(StdioCommand::parse("x 'a b'").unwrap().display(), "x 'a b'");
    }

    #[tokio::test]
    async fn frames_lines_and_reports_exit() {
        let cmd =
            StdioCommand::parse(r#"sh -c 'printf "{\"a\":1}\n\nnot json\n\377\n"; echo oops >&2; exit 3'"#)
                .unwrap();
        let mut t = StdioTransport::spawn(&cmd).unwrap();
        let mut frames = Vec::new();
        let exit = loop {
            match t.recv().await.unwrap() {
                TransportEvent::Frame(f) => frames.push(f.raw),
                TransportEvent::Closed(exit) => break exit,
                TransportEvent::Http(incident) => panic!("stdio has no HTTP incidents: {incident:?}"),
            }
        };
        assert_eq!(
            frames,
            vec![br#"{"a":1}"#.to_vec(), b"not json".to_vec(), vec![0xff]]
        );
        assert_eq!(exit.code, Some(3));
        assert!(t.recv().await.is_none());
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(t.stderr_tail().contains("oops"));
    }

    #[tokio::test]
    async fn an_overlong_line_is_one_short_frame_and_the_rest_is_dropped() {
        let cmd = StdioCommand::parse(r#"sh -c 'head -c 40000000 /dev/zero | tr "\000" a; printf "\n{}\n"'"#)
            .unwrap();
        let mut t = StdioTransport::spawn(&cmd).unwrap();
        let mut frames = Vec::new();
        while let Some(TransportEvent::Frame(f)) = t.recv().await {
            frames.push(f);
        }
        assert_eq!(frames.len(), 2, "the cut line's rest is no frame of its own");
        assert_eq!(frames[0].raw, vec![b'a'; CUT_LINE_KEPT]);
        assert!(
            frames[0]
                .meta
                .stream
                .as_deref()
                .unwrap()
                .contains("longer than 16 MiB")
        );
        assert_eq!(frames[1].raw, b"{}");
    }

    #[tokio::test]
    async fn stderr_tail_cuts_an_endless_line() {
        let cmd = StdioCommand::parse(
            "sh -c 'head -c 5000000 /dev/zero | tr \"\\000\" x >&2; echo >&2; echo after >&2'",
        )
        .unwrap();
        let mut t = StdioTransport::spawn(&cmd).unwrap();
        while !matches!(t.recv().await, Some(TransportEvent::Closed(_)) | None) {}
        tokio::time::sleep(Duration::from_millis(100)).await;
        let tail = t.stderr_tail();
        assert!(
            tail.len() < STDERR_LINE_BYTES + 64,
            "tail is {} bytes",
            tail.len()
        );
        assert!(
            tail.contains("xxxx [line cut]\nafter\n"),
            "{:?}",
            &tail[tail.len() - 40..]
        );
    }

    #[tokio::test]
    async fn shutdown_kills_the_whole_group() {
        // The server ignores stdin EOF and leaves a child behind.
        let cmd = StdioCommand::parse("sh -c 'sleep 30 & sleep 30'").unwrap();
        let mut t = StdioTransport::spawn(&cmd).unwrap();
        let pgid = t.pid.unwrap() as i32;
        let exit = t.shutdown(Duration::from_millis(100)).await;
        assert_eq!(exit.signal, Some(libc::SIGKILL));
        tokio::time::sleep(Duration::from_millis(100)).await;
        // Zombies are dead already (reaping them is PID 1's job); anything else is an orphan.
        // (`ps -g` selects a session, not a group: filter the groups here.)
        let ps = std::process::Command::new("ps")
            .args(["-e", "-o", "pgid=,stat="])
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&ps.stdout).into_owned();
        let left: Vec<&str> = listed
            .lines()
            .filter_map(|line| line.trim().split_once(' '))
            .filter(|(group, state)| group.parse() == Ok(pgid) && !state.trim().starts_with('Z'))
            .map(|(_, state)| state)
            .collect();
        assert!(left.is_empty(), "orphans left: {left:?}");
    }

    #[test]
    fn spawn_failure_is_reported() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let err =
                StdioTransport::spawn(&StdioCommand::parse("/nonexistent/server").unwrap()).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("could not start `/nonexistent/server`")
            );
        });
    }
}
