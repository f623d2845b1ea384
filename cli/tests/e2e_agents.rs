//! End to end: real agents and SDKs through `toolcall proxy`'s own agent
//! routes (`/v1/responses`, `/v1/messages`), in front of the replay
//! upstream's scripted agent model (`support/agent_script.rs`), which
//! writes a shell call as raw text in a format and, given the result,
//! answers quoting it. The check each time: the call reached the client
//! whole, ran, and its output came back into the final answer.
//!
//! The client tests are ignored by `cargo test`: they need, pinned
//! (tests/e2e/agents.sh installs them),
//! - `TOOLCALL_E2E_PYTHON`: a Python with `openai`, `anthropic`, `openai-agents`;
//! - `TOOLCALL_E2E_CODEX`: the `codex` binary (npm `@openai/codex`);
//! - `TOOLCALL_E2E_CLAUDE`: the `claude` binary (npm `@anthropic-ai/claude-code`).
//!
//! Without them they fail rather than pass having checked nothing. The
//! scripted model's own tests (`e2e_agents/script.rs`) are not ignored.

mod support;

#[path = "e2e_agents/harness.rs"]
mod harness;
#[path = "e2e_agents/script.rs"]
mod script;

use serde_json::{json, Value};

use harness::{report, required_path, run_bounded, scratch_dir, start, upstream_bodies};
use support::replay::agent_script::expected_output;

const PROMPT: &str = "Run echo to print a marker, then tell me what it printed.";
const PYTHON: &str = "a Python with openai, anthropic and openai-agents (pinned)";

/// The Python clients' map: `e2e-<format>` and `e2e-<format>-cut` to the
/// scripted model writing `<format>`.
fn python_map() -> Value {
    let mut map = serde_json::Map::new();
    for format in ["hermes", "qwen3_coder", "glm47"] {
        map.insert(
            format!("e2e-{format}"),
            json!({"model": format!("agent/{format}"), "format": format}),
        );
        map.insert(
            format!("e2e-{format}-cut"),
            json!({"model": format!("agent/{format}/cut"), "format": format}),
        );
    }
    Value::Object(map)
}

/// Runs `tests/e2e/<script>` against the proxy (at `base_path` under its
/// URL) for `format`, and requires every check of it to pass.
async fn python_client(script: &str, base_path: &str, format: &str, cut: bool) {
    let python = required_path("TOOLCALL_E2E_PYTHON", PYTHON);
    let name = format!("{}-{format}", script.trim_end_matches(".py"));
    let (replay, proxy) = start(&name, &python_map()).await;
    let mut command = tokio::process::Command::new(python);
    command
        .arg(harness::repo_root().join("tests/e2e").join(script))
        .args(["--base-url", &format!("{}{base_path}", proxy.url)])
        .args(["--model", &format!("e2e-{format}"), "--format", format])
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL");
    if cut {
        command.args(["--cut-model", &format!("e2e-{format}-cut")]);
    }
    let finished = run_bounded(command, &scratch_dir(&name)).await;
    println!("{}", finished.stdout);
    let passed = finished.succeeded() && finished.stdout.contains(" passed, 0 failed");
    assert!(passed, "{}", report(script, &finished, &replay, &proxy));
    if cut {
        // The cut checks passed because the upstream cut, not because the
        // proxy refused the request before it.
        let cut_model = format!("agent/{format}/cut");
        let reached = upstream_bodies(&replay)
            .iter()
            .any(|body| body["model"] == cut_model.as_str());
        assert!(
            reached,
            "{}",
            report("the cut model was never asked", &finished, &replay, &proxy)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn openai_responses_client_hermes() {
    python_client("responses_client.py", "/v1", "hermes", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn openai_responses_client_glm47() {
    python_client("responses_client.py", "/v1", "glm47", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn anthropic_client_hermes() {
    python_client("anthropic_client.py", "", "hermes", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn anthropic_client_qwen3_coder() {
    python_client("anthropic_client.py", "", "qwen3_coder", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn openai_agents_sdk_hermes() {
    python_client("agents_sdk.py", "/v1", "hermes", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_PYTHON (tests/e2e/agents.sh)"]
async fn openai_agents_sdk_glm47() {
    python_client("agents_sdk.py", "/v1", "glm47", false).await;
}

/// The upstream's last request carries the tool's result with the output
/// (the agent ran the call and sent the result back through the proxy).
fn result_reached_upstream(replay: &support::replay::Replay, format: &str) -> bool {
    let output = expected_output(format);
    upstream_bodies(replay).iter().any(|body| {
        body["messages"].as_array().is_some_and(|messages| {
            messages
                .iter()
                .any(|m| m["role"] == "tool" && m["content"].to_string().contains(&output))
        })
    })
}

/// `codex exec` with a provider at the proxy (`wire_api = "responses"`),
/// shell commands run without asking, in a scratch directory.
async fn codex(format: &str) {
    let codex = required_path(
        "TOOLCALL_E2E_CODEX",
        "the codex binary (npm @openai/codex, pinned)",
    );
    let name = format!("codex-{format}");
    let scripted = json!({"model": format!("agent/{format}"), "format": format});
    let (replay, proxy) = start(&name, &json!({ "*": scripted })).await;
    let dir = scratch_dir(&name);
    let (home, work) = (dir.join("codex-home"), dir.join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "model = \"e2e-codex\"\nmodel_provider = \"toolcall\"\n\n\
             [model_providers.toolcall]\nname = \"toolcall proxy\"\n\
             base_url = \"{}/v1\"\nenv_key = \"TOOLCALL_E2E_KEY\"\nwire_api = \"responses\"\n",
            proxy.url
        ),
    )
    .unwrap();
    let last = dir.join("last-message.txt");
    let mut command = tokio::process::Command::new(codex);
    command
        .current_dir(&work)
        .args([
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
        ])
        .args(["--color", "never", "-C"])
        .arg(&work)
        .arg("-o")
        .arg(&last)
        .arg(PROMPT)
        .env("CODEX_HOME", &home)
        .env("HOME", &dir)
        .env("TOOLCALL_E2E_KEY", "sk-e2e")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEX_API_KEY");
    let finished = run_bounded(command, &dir).await;
    let answer = std::fs::read_to_string(&last).unwrap_or_default();
    println!("codex's answer: {answer}");
    let ran = result_reached_upstream(&replay, format);
    assert!(
        finished.succeeded() && ran && answer.contains(&expected_output(format)),
        "{}",
        report(
            &format!("codex (answer {answer:?}, result upstream: {ran})"),
            &finished,
            &replay,
            &proxy
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_CODEX (tests/e2e/agents.sh)"]
async fn codex_exec_hermes() {
    codex("hermes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_CODEX (tests/e2e/agents.sh)"]
async fn codex_exec_glm47() {
    codex("glm47").await;
}

/// `claude -p` with `ANTHROPIC_BASE_URL` at the proxy, Bash allowed, in a
/// scratch directory with a throwaway home.
async fn claude_code(format: &str) {
    let claude = required_path(
        "TOOLCALL_E2E_CLAUDE",
        "the claude binary (npm @anthropic-ai/claude-code, pinned)",
    );
    let name = format!("claude-{format}");
    let scripted = json!({"model": format!("agent/{format}"), "format": format});
    let map = json!({"claude-*": scripted, "*": scripted});
    let (replay, proxy) = start(&name, &map).await;
    let dir = scratch_dir(&name);
    let (home, work) = (dir.join("home"), dir.join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    let mut command = tokio::process::Command::new(claude);
    command
        .current_dir(&work)
        .args([
            "-p",
            PROMPT,
            "--allowedTools",
            "Bash",
            "--output-format",
            "text",
        ])
        .env("HOME", &home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("ANTHROPIC_BASE_URL", &proxy.url)
        .env("ANTHROPIC_API_KEY", "sk-e2e")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("ANTHROPIC_MODEL")
        .env_remove("CLAUDE_CODE_USE_BEDROCK")
        .env_remove("CLAUDE_CODE_USE_VERTEX");
    let finished = run_bounded(command, &dir).await;
    println!("claude's answer: {}", finished.stdout);
    let ran = result_reached_upstream(&replay, format);
    assert!(
        finished.succeeded() && ran && finished.stdout.contains(&expected_output(format)),
        "{}",
        report(
            &format!("claude -p (result upstream: {ran})"),
            &finished,
            &replay,
            &proxy
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_CLAUDE (tests/e2e/agents.sh)"]
async fn claude_code_hermes() {
    claude_code("hermes").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs TOOLCALL_E2E_CLAUDE (tests/e2e/agents.sh)"]
async fn claude_code_qwen3_coder() {
    claude_code("qwen3_coder").await;
}
