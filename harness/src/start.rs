//! `run --url URL --start "CMD"`: the server under test started by the run
//! itself, in its own process group, awaited until its port accepts
//! connections, started again when `fuzz --start` has lost it, and killed
//! (with everything it started) when the run ends.

use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_mock_peers::transport::{StdioCommand, kill_process_group, watch_process_group};

/// A server we started; killed when dropped, on every path out.
#[derive(Debug)]
pub struct StartedServer {
    /// `None` only between a failed [`Self::restart`] and the drop.
    child: Option<Child>,
    /// How it was started, to start it again.
    launch: Launch,
}

/// The command, environment and address of a started server.
#[derive(Debug)]
struct Launch {
    command_line: String,
    env: Vec<(String, String)>,
    url: String,
    within: Duration,
}

impl StartedServer {
    /// Starts `command_line` and waits up to `within` for the host and port
    /// of `url`, which must be a loopback address, to accept connections
    /// (or until the run is interrupted).
    pub fn start(command_line: &str, url: &str, within: Duration) -> Result<StartedServer, String> {
        Self::start_with(command_line, &[], url, within)
    }

    /// [`Self::start`] with `env` added to the command's environment.
    pub fn start_with(
        command_line: &str,
        env: &[(String, String)],
        url: &str,
        within: Duration,
    ) -> Result<StartedServer, String> {
        let launch = Launch {
            command_line: command_line.to_owned(),
            env: env.to_vec(),
            url: url.to_owned(),
            within,
        };
        let child = launch.spawn_listening()?;
        Ok(StartedServer {
            child: Some(child),
            launch,
        })
    }

    /// Kills the server's process group (first, so the new one can bind
    /// the port) and starts it again, as it was started.
    pub fn restart(&mut self) -> Result<(), String> {
        self.stop();
        self.child = Some(self.launch.spawn_listening()?);
        Ok(())
    }

    fn stop(&mut self) {
        if let Some(child) = self.child.take() {
            kill(child);
        }
    }
}

impl Drop for StartedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Launch {
    /// Spawns the command in a process group of its own and waits until
    /// its port accepts connections; the child is killed on any error.
    fn spawn_listening(&self) -> Result<Child, String> {
        let (host, port) = loopback_authority(&self.url)?;
        let command = StdioCommand::parse(&self.command_line).map_err(|e| e.to_string())?;
        let mut process = Command::new(&command.program);
        process
            .args(&command.args)
            .envs(command.env.iter().chain(&self.env).map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .process_group(0);
        if let Some(dir) = &command.cwd {
            process.current_dir(dir);
        }
        let mut child = process
            .spawn()
            .map_err(|e| format!("could not start `{}`: {e}", command.program))?;
        watch_process_group(child.id());
        match self.await_listening(&host, port, &mut child) {
            Ok(()) => Ok(child),
            Err(message) => {
                kill(child);
                Err(message)
            }
        }
    }

    /// Waits until `host:port` accepts connections, while `child` lives
    /// and the run is not interrupted, for at most `within`.
    fn await_listening(&self, host: &str, port: u16, child: &mut Child) -> Result<(), String> {
        let command_line = &self.command_line;
        let address = (host, port)
            .to_socket_addrs()
            .map_err(|e| format!("`{host}`: {e}"))?
            .next()
            .ok_or_else(|| format!("`{host}` has no address"))?;
        let deadline = Instant::now() + self.within;
        while TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("`{command_line}` exited before listening ({status})"));
            }
            if crate::interrupt::requested() {
                return Err(format!("interrupted while `{command_line}` was starting"));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "`{command_line}` did not listen on {address} within {} s",
                    self.within.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }
}

/// Kills `child`'s process group, with everything it started, and reaps it.
fn kill(mut child: Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        kill_process_group(pid);
    }
    let _ = child.wait();
}

/// The host and port of an `http://` URL on a loopback address.
fn loopback_authority(url: &str) -> Result<(String, u16), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("--start needs an http:// URL, not `{url}`"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => {
            (host, port.parse().map_err(|_| format!("bad port in `{url}`"))?)
        }
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if !matches!(host, "127.0.0.1" | "localhost" | "::1") {
        return Err(format!(
            "--start serves on loopback only; `{host}` is not 127.0.0.1, localhost or ::1"
        ));
    }
    Ok((host.to_owned(), port))
}

#[cfg(test)]
mod tests {
    use super::loopback_authority;

    #[test]
    fn only_loopback_urls_are_started() {
        assert_eq!(
            loopback_authority("http://127.0.0.1:8931/mcp"),
            Ok(("127.0.0.1".into(), 8931))
        );
        assert_eq!(loopback_authority("http://[::1]:9/mcp"), Ok(("::1".into(), 9)));
        assert_eq!(
            loopback_authority("http://localhost/mcp"),
            Ok(("localhost".into(), 80))
        );
        assert!(loopback_authority("http://10.0.0.2:80/mcp").is_err());
        assert!(loopback_authority("https://127.0.0.1/mcp").is_err());
    }
}
