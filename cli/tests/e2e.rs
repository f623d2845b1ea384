//! The official `openai` Python client against `toolcall proxy` in front of
//! the replay upstream (`tests/e2e/openai_client.py` says what it checks).
//!
//! Ignored by `cargo test`: it needs a Python with `openai` installed, given
//! as `TOOLCALL_E2E_PYTHON` (`.ci/run` makes a virtualenv for it). Run
//! without that variable it fails rather than pass having checked nothing.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::proxy::ProxyProcess;

fn repo_root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON, a Python with the openai package (.ci/run sets it up)"]
async fn openai_python_client_through_the_proxy() {
    let python = std::env::var_os("TOOLCALL_E2E_PYTHON")
        .expect("set TOOLCALL_E2E_PYTHON to a Python with the openai package (see .ci/run)");
    // A relative path is the repository's (cargo runs tests in cli/).
    let python = repo_root().join(python);
    let replay = support::replay::start().await;
    let map = Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-model-map.json");
    std::fs::write(
        &map,
        r#"{"qwen3_coder/*": "qwen3_coder", "glm45/*": "glm45", "glm47/*": "glm47"}"#,
    )
    .unwrap();
    let proxy = ProxyProcess::start(&replay.url(), &["--model-map", map.to_str().unwrap()]);
    let base_url = format!("{}/v1", proxy.url);
    let script = repo_root().join("tests/e2e/openai_client.py");
    // The client blocks: run it off the runtime that serves the replay.
    let output = tokio::task::spawn_blocking(move || {
        Command::new(&python)
            .arg(script)
            .args(["--base-url", &base_url])
            .env_remove("OPENAI_BASE_URL")
            .env("NO_PROXY", "127.0.0.1,localhost")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()))
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the openai client failed:\n{stdout}\n{stderr}\nproxy log:\n{}",
        proxy.log().join("\n")
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
