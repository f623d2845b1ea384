//! The `toolcall proxy` binary as a child process, for the tests.

#![allow(dead_code)] // each test binary uses a different part

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long the tests wait for anything before failing: only a guard
/// against a hang, never a speed check.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct ProxyProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    log: Arc<(Mutex<Vec<String>>, Condvar)>,
}

impl ProxyProcess {
    /// Starts `toolcall proxy --upstream UPSTREAM --listen 127.0.0.1:0 ARGS…`
    /// and waits for the line that gives its address.
    pub fn start(upstream: &str, args: &[&str]) -> ProxyProcess {
        ProxyProcess::start_with(None, upstream, "127.0.0.1:0", args)
    }

    /// [`ProxyProcess::start`] with `--listen LISTEN` and, if given, the
    /// open-file limit lowered to `files` (`ulimit -n`, through `sh`).
    pub fn start_with(
        files: Option<u32>,
        upstream: &str,
        listen: &str,
        args: &[&str],
    ) -> ProxyProcess {
        let binary = env!("CARGO_BIN_EXE_toolcall");
        let mut command = match files {
            Some(files) => {
                let mut sh = Command::new("sh");
                sh.args(["-c", "ulimit -n \"$0\" && exec \"$@\""])
                    .arg(files.to_string())
                    .arg(binary);
                sh
            }
            None => Command::new(binary),
        };
        let mut child = command
            .args([
                "proxy",
                "--upstream",
                upstream,
                "--listen",
                listen,
                "--threads",
                "2",
            ])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start toolcall");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let (address_tx, address_rx) = mpsc::channel();
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let url = rest.split(',').next().unwrap_or("").to_owned();
                    let _ = address_tx.send(url);
                }
                lines.0.lock().unwrap().push(line);
                lines.1.notify_all();
            }
        });
        let url = match address_rx.recv_timeout(TIMEOUT) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!("the proxy did not start: {:?}", log.0.lock().unwrap());
            }
        };
        ProxyProcess { child, url, log }
    }

    /// The process id, to read its memory from `/proc` (the fault soak bench).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The stderr lines so far.
    pub fn log(&self) -> Vec<String> {
        self.log.0.lock().unwrap().clone()
    }

    /// Waits until a stderr line matches (lines are written when a
    /// response ends, which may be just after the client has read it).
    pub fn wait_for_log(&self, matches: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + TIMEOUT;
        let mut lines = self.log.0.lock().unwrap();
        loop {
            if let Some(line) = lines.iter().find(|line| matches(line)) {
                return line.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no such log line in {lines:?}");
            lines = self.log.1.wait_timeout(lines, left).unwrap().0;
        }
    }
}

impl ProxyProcess {
    /// Sends SIGTERM, as a service manager stops the proxy.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("cannot run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits up to `limit` for the process to exit; `None` if it has not.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes a configuration file for one proxy under a name no other test of
/// the run uses (the process id and a counter), and returns its path: tests
/// run in parallel, and one rewriting a shared file while another proxy
/// reads it made that proxy see an empty file.
pub fn config_file(name: &str, contents: &str) -> String {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}-{n}-{name}", std::process::id()));
    std::fs::write(&path, contents).expect("the test's configuration file is written");
    path.to_str().expect("a UTF-8 temporary path").to_owned()
}
