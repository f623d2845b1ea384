//! `toolcall proxy`'s flags, and what the server reads from them.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::Value;
use toolcall_stream::{Format, Ids};

use crate::FormatParser;

/// The default `--max-body-bytes`: far above any chat request, small enough
/// that a runaway client cannot make the proxy hold much.
pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The default `--max-response-bytes`: a whole chat completion is far
/// smaller (a 128k-token answer is about 0.5 MB); an endless body stops here.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// The default `--max-event-bytes`: one chunk of a chat stream is a few
/// hundred bytes; a server that batches tokens stays far below this.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 1024 * 1024;

/// The default `--max-held-call`. Smaller than the library's 4 MiB
/// (`Limits::max_held_call`, sized for one parser in one program): a proxy
/// holds one call per stream for thousands of streams at once.
pub const DEFAULT_MAX_HELD_CALL: usize = 64 * 1024;

#[derive(Args)]
pub struct ProxyArgs {
    /// The OpenAI-compatible server to forward to, e.g.
    /// `http://127.0.0.1:8000` (paths are appended as they came: a request
    /// for `/v1/models` goes to `URL/v1/models`).
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Where to listen, e.g. `127.0.0.1:8080` (port 0: any free port, printed
    /// on stderr at start).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The tool-call format of every model behind the upstream (vLLM's
    /// `--tool-call-parser` names).
    #[arg(long, short, value_parser = FormatParser, conflicts_with = "model_map")]
    pub format: Option<Format>,
    /// A JSON file mapping the request's `model` to a format, for an
    /// upstream serving several models: `{"Qwen/Qwen3-Coder-30B": "qwen3_coder",
    /// "zai-org/GLM-4.5*": "glm45", "*": "qwen3_coder"}`. A key ending in `*`
    /// matches names starting with the rest; an exact key wins over a
    /// pattern, a longer pattern over a shorter one. A model no key matches
    /// is passed through unchanged.
    #[arg(long, value_name = "FILE")]
    pub model_map: Option<PathBuf>,
    /// How the ids of the calls the proxy makes look.
    #[arg(long, value_enum, default_value_t = IdsStyle::Openai)]
    pub ids: IdsStyle,
    /// Hold each call until it ends (up to `--max-held-call` bytes), so
    /// that one the stream cuts off (the upstream's token limit) comes back
    /// as content, never as a tool call a client might run. The price: a
    /// client sees nothing of a call until it ends. By default calls
    /// stream: the name as soon as it is known, the arguments as they
    /// arrive, and a cut is told by `finish_reason: "length"`.
    #[arg(long)]
    pub hold_calls: bool,
    /// Streaming calls is now the default; kept so that scripts written
    /// for earlier versions still start.
    #[arg(long, hide = true, conflicts_with = "hold_calls")]
    pub send_incomplete_calls: bool,
    /// With `--hold-calls`: the most bytes of one call held until it ends;
    /// a longer call is sent on as it streams (it may then still end cut
    /// off, with `finish_reason: "length"`). With `--strict`, a longer
    /// call is content.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_HELD_CALL)]
    pub max_held_call: usize,
    /// Return only calls that parsed cleanly; the others come back as
    /// content, as the model wrote them (each call is held until it ends).
    #[arg(long)]
    pub strict: bool,
    /// The largest request body accepted, in bytes; a larger one is
    /// refused with 413 before anything is sent upstream. Every request
    /// body is read whole before it is forwarded.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Seconds to wait for a connection to the upstream before answering
    /// 502.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// Seconds to wait for the upstream's response head once the request
    /// is sent; past it, 504 `upstream_timeout`. Generous: a non-streaming
    /// answer only starts when the model has finished.
    #[arg(long, value_name = "SECONDS", default_value_t = 600.0)]
    pub first_byte_timeout: f64,
    /// Seconds the upstream may stay silent in the middle of a response
    /// body; past it, a stream ends with an `upstream_timeout` error event
    /// (a whole answer gets 504). Generous: models think long.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    pub idle_timeout: f64,
    /// The largest upstream answer read whole (`"stream": false` with
    /// tools); past it, 502 `upstream_response_too_large`, and no more
    /// than this is held.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_RESPONSE_BYTES)]
    pub max_response_bytes: usize,
    /// The largest server-sent event read from the upstream, in bytes;
    /// past it, the stream ends with an `upstream_stream_error` event.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EVENT_BYTES)]
    pub max_event_bytes: usize,
    /// How each log line on stderr is written: `text` for people, `json`
    /// (one object per line) for log shippers.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Worker threads for the server (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `--log-format`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum LogFormat {
    /// `toolcall proxy: POST /v1/chat/completions 200 rewrite calls=1 812.4ms`.
    Text,
    /// `{"ts":"…","msg":"request","method":"POST",…}`, one object a line.
    Json,
}

/// `--ids`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdsStyle {
    /// `call_` and 24 letters and digits, as OpenAI makes them.
    Openai,
    /// `chatcmpl-tool-` and 16 hex digits, as vLLM makes them.
    Vllm,
}

impl IdsStyle {
    pub fn ids(self) -> Ids {
        match self {
            IdsStyle::Openai => Ids::OpenAi,
            IdsStyle::Vllm => Ids::Random,
        }
    }
}

/// Which format a request's model writes.
pub enum FormatChoice {
    /// `--format`: every model.
    Fixed(Format),
    /// `--model-map`.
    ByModel(ModelMap),
}

impl FormatChoice {
    /// The format for a request's `model`; `None`: pass the request through.
    pub fn for_model(&self, model: Option<&str>) -> Option<Format> {
        match self {
            FormatChoice::Fixed(format) => Some(*format),
            FormatChoice::ByModel(map) => map.lookup(model.unwrap_or("")),
        }
    }
}

/// `--model-map`: exact names and `prefix*` patterns.
#[derive(Debug, Default)]
pub struct ModelMap {
    exact: Vec<(String, Format)>,
    /// Longest prefix first, so that the most specific pattern wins.
    prefixes: Vec<(String, Format)>,
}

impl ModelMap {
    pub fn read(path: &Path) -> Result<ModelMap, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read model map {}: {e}", path.display()))?;
        ModelMap::from_json(&text).map_err(|e| format!("bad model map {}: {e}", path.display()))
    }

    pub fn from_json(text: &str) -> Result<ModelMap, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let entries = value
            .as_object()
            .ok_or("a model map is a JSON object of model names to formats")?;
        let mut map = ModelMap::default();
        for (key, format) in entries {
            let format = format
                .as_str()
                .ok_or_else(|| format!("the format of {key:?} is not a string"))?
                .parse::<Format>()
                .map_err(|e| format!("{key:?}: {e}"))?;
            match key.strip_suffix('*') {
                Some(prefix) => map.prefixes.push((prefix.to_owned(), format)),
                None => map.exact.push((key.clone(), format)),
            }
        }
        map.prefixes
            .sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        Ok(map)
    }

    pub fn lookup(&self, model: &str) -> Option<Format> {
        let exact = self.exact.iter().find(|(name, _)| name == model);
        let prefix = || {
            self.prefixes
                .iter()
                .find(|(p, _)| model.starts_with(p.as_str()))
        };
        exact.or_else(prefix).map(|&(_, format)| format)
    }
}

/// What the server needs, read from the flags.
pub struct Config {
    /// The upstream's base, without a trailing `/`.
    pub upstream: String,
    pub listen: SocketAddr,
    pub formats: FormatChoice,
    pub ids: Ids,
    pub incomplete_calls_as_content: bool,
    pub max_held_call: usize,
    pub strict: bool,
    pub max_body_bytes: usize,
    pub connect_timeout: Duration,
    pub first_byte_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_response_bytes: usize,
    pub max_event_bytes: usize,
    pub log_format: LogFormat,
}

/// A flag's seconds as a duration: positive and finite.
fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => Err(format!(
            "{flag} {value} is not a positive number of seconds"
        )),
    }
}

impl Config {
    pub fn from_args(args: &ProxyArgs) -> Result<Config, String> {
        let upstream = args.upstream.trim_end_matches('/').to_owned();
        let scheme_ok = upstream.starts_with("http://") || upstream.starts_with("https://");
        if !scheme_ok || reqwest::Url::parse(&upstream).is_err() {
            return Err(format!(
                "--upstream {:?} is not an http:// or https:// URL",
                args.upstream
            ));
        }
        let formats = match (&args.format, &args.model_map) {
            (_, Some(path)) => FormatChoice::ByModel(ModelMap::read(path)?),
            (Some(format), None) => FormatChoice::Fixed(*format),
            (None, None) => return Err("give --format or --model-map".to_owned()),
        };
        Ok(Config {
            upstream,
            listen: args.listen,
            formats,
            ids: args.ids.ids(),
            incomplete_calls_as_content: args.hold_calls,
            max_held_call: args.max_held_call,
            strict: args.strict,
            max_body_bytes: args.max_body_bytes,
            connect_timeout: seconds("--connect-timeout", args.connect_timeout)?,
            first_byte_timeout: seconds("--first-byte-timeout", args.first_byte_timeout)?,
            idle_timeout: seconds("--idle-timeout", args.idle_timeout)?,
            max_response_bytes: args.max_response_bytes,
            max_event_bytes: args.max_event_bytes.max(1),
            log_format: args.log_format,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_map_prefers_exact_then_longest_prefix() {
        let map = ModelMap::from_json(
            r#"{"glm-4.7": "glm47", "glm-*": "glm45", "glm-4.7-air*": "qwen3_coder", "*": "qwen3_xml"}"#,
        )
        .unwrap();
        assert_eq!(map.lookup("glm-4.7"), Some(Format::Glm47));
        assert_eq!(map.lookup("glm-4.7-air-fp8"), Some(Format::Qwen3Coder));
        assert_eq!(map.lookup("glm-4.5"), Some(Format::Glm45));
        assert_eq!(map.lookup("anything"), Some(Format::Qwen3Coder));
        let no_fallback = ModelMap::from_json(r#"{"a*": "glm45"}"#).unwrap();
        assert_eq!(no_fallback.lookup("b"), None);
    }

    #[test]
    fn model_map_rejects_bad_entries() {
        assert!(ModelMap::from_json("[]").is_err());
        assert!(ModelMap::from_json(r#"{"m": 1}"#).is_err());
        assert!(ModelMap::from_json(r#"{"m": "no_such_format"}"#).is_err());
    }
}
