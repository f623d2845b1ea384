//! What the agent e2e tests share: the binaries and Python they are given,
//! a scratch directory a test, the proxy in front of the replay with a
//! model map, and a child process run with a time limit.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::proxy::ProxyProcess;
use crate::support::replay::{self, Replay};

/// How long an agent or client script may run before it is killed.
pub const AGENT_LIMIT: Duration = Duration::from_secs(120);

pub fn repo_root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).to_path_buf()
}

/// The path in `var`, which must be set (relative paths are the
/// repository's): a test without it fails, never passes unchecked.
pub fn required_path(var: &str, what: &str) -> PathBuf {
    let Some(value) = std::env::var_os(var) else {
        panic!("set {var} to {what} (tests/e2e/agents.sh sets it up)");
    };
    let path = repo_root().join(value);
    assert!(path.exists(), "{var}={} does not exist", path.display());
    path
}

/// An empty directory of the test's own under cargo's target tmp dir.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("e2e-agents")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `map` written as a `--model-map` file.
pub fn model_map(name: &str, map: &Value) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-agents-{name}.json"));
    std::fs::write(&path, map.to_string()).unwrap();
    path
}

/// The replay upstream and the proxy in front of it with `map`.
pub async fn start(name: &str, map: &Value) -> (Replay, ProxyProcess) {
    let replay = replay::start().await;
    let map = model_map(name, map);
    let proxy = ProxyProcess::start(&replay.url(), &["--model-map", map.to_str().unwrap()]);
    (replay, proxy)
}

/// A finished (or killed) child: its exit, output, and whether the limit
/// killed it.
pub struct Finished {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl Finished {
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|status| status.success())
    }
}

/// Runs `command` (stdin closed, its output into files in `dir`, so that
/// what it wrote is kept even when it is killed) for at most
/// [`AGENT_LIMIT`], then kills its process group (the npm wrappers start
/// the agents' native binaries as children).
pub async fn run_bounded(mut command: tokio::process::Command, dir: &Path) -> Finished {
    let stdout_path = dir.join("stdout.txt");
    let stderr_path = dir.join("stderr.txt");
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    let status = match tokio::time::timeout(AGENT_LIMIT, child.wait()).await {
        Ok(status) => Some(status.unwrap()),
        Err(_) => None,
    };
    if let Some(group) = child.id() {
        // The group of the child started here, by its id.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{group}")])
            .status();
    }
    let _ = child.wait().await;
    Finished {
        status,
        stdout: std::fs::read_to_string(&stdout_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&stderr_path).unwrap_or_default(),
        timed_out: status.is_none(),
    }
}

/// What a failed test prints: the child's output, the paths and models
/// the replay received, and the proxy's log.
pub fn report(what: &str, finished: &Finished, replay: &Replay, proxy: &ProxyProcess) -> String {
    let received: Vec<String> = replay
        .requests()
        .iter()
        .map(|request| {
            let model = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|body| body["model"].as_str().map(str::to_owned))
                .unwrap_or_default();
            format!("{} {} model={model}", request.method, request.path)
        })
        .collect();
    format!(
        "{what} (exit {:?}, timed out: {})\n--- stdout\n{}\n--- stderr\n{}\n--- upstream received\n{}\n--- proxy log\n{}",
        finished.status,
        finished.timed_out,
        finished.stdout,
        finished.stderr,
        received.join("\n"),
        proxy.log().join("\n")
    )
}

/// The chat requests the replay received, parsed.
pub fn upstream_bodies(replay: &Replay) -> Vec<Value> {
    replay
        .requests()
        .iter()
        .filter(|request| request.path.starts_with("/v1/chat/completions"))
        .filter_map(|request| serde_json::from_slice(&request.body).ok())
        .collect()
}
