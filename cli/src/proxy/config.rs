//! `toolcall proxy`'s flags, and what the server reads from them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::Value;
use toolcall_stream::{Format, Ids, Reasoning};

use super::target::Target;
use crate::format_file::Custom;
use crate::FormatNameParser;

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
    /// The OpenAI-compatible server to forward to, as OpenAI clients take
    /// `base_url`: `http://127.0.0.1:8000/v1` or `http://127.0.0.1:8000`
    /// (either way `/v1/models` goes to `http://127.0.0.1:8000/v1/models`;
    /// a path outside `/v1`, like `/health`, goes to the URL less its `/v1`).
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Where to listen, `HOST:PORT`, e.g. `127.0.0.1:8080` or
    /// `localhost:8080` (a name: every address it resolves to). Port 0:
    /// any free port, printed on stderr at start.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The tool-call format of every model behind the upstream (vLLM's
    /// `--tool-call-parser` names). Without it (or `--model-map`), each
    /// request's format is the one its `model` writes, by name
    /// (docs/models.md lists the names known).
    #[arg(long, short, value_parser = FormatNameParser, conflicts_with = "model_map")]
    pub format: Option<String>,
    /// A format of one's own, read from a format file (TOML; see
    /// docs/custom-formats.md); repeat it for several. `--format` and
    /// `--model-map` may name these formats; without either, a single
    /// format file's format is every model's.
    #[arg(long, value_name = "FILE")]
    pub format_file: Vec<PathBuf>,
    /// The format the model's own `response_template` metadata describes
    /// (what vLLM's `hf` and `beam` parsers read): FILE is the model's
    /// `tokenizer_config.json`, or its directory. Named `hf` (or `beam`, when
    /// `--format beam` is given), it is every model's format unless
    /// `--model-map` says otherwise.
    #[arg(long, value_name = "FILE")]
    pub format_from_model_config: Option<PathBuf>,
    /// A JSON file mapping the request's `model` to a format, for an
    /// upstream serving several models: `{"Qwen/Qwen3-Coder-30B": "qwen3_coder",
    /// "zai-org/GLM-4.5*": "glm45", "*": "qwen3_coder"}`. A value may also
    /// name the upstream's model for a client's model name (agents ask for
    /// `claude-…` or `gpt-…`): `{"claude-*": {"model": "Qwen/Qwen3-Coder-30B",
    /// "format": "qwen3_coder"}}` (either key may be left out; without
    /// `format`, the target model's name says it). A key ending in `*`
    /// matches names starting with the rest (`*` alone: every model); an
    /// exact key wins over a pattern, a longer pattern over a shorter one. A
    /// model no key matches gets the format its name says (docs/models.md);
    /// one whose name says none is passed through unchanged.
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
    /// Split reasoning out of the text into `reasoning_content`: `off`
    /// (`<think>` is content, for servers that split it themselves), `on`,
    /// or `started` (the chat template ends the prompt with `<think>`, so
    /// the output begins inside reasoning). gpt-oss's `analysis` channel
    /// is reasoning whatever this says.
    #[arg(long, value_name = "MODE", default_value = "off")]
    pub reasoning: Reasoning,
    /// Calls written inside a fenced code block (```` ``` ```` or `~~~`) of
    /// the text are content, not calls: for models that show tool syntax
    /// in examples.
    #[arg(long)]
    pub no_calls_in_code_blocks: bool,
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
    /// answer only starts when the model has finished (600 s is also the
    /// openai clients' own default timeout).
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
    /// The most tokens asked of the upstream for one answer on the agent
    /// routes (`/v1/responses`, `/v1/messages`): a larger `max_tokens`
    /// (`max_output_tokens`) is lowered to it. Agents ask for more than
    /// local models can give (Claude Code asks 128,000), which some
    /// servers refuse.
    #[arg(long, value_name = "N")]
    pub max_tokens_cap: Option<u64>,
    /// The key sent to the upstream (`Authorization: Bearer KEY`) for an
    /// agent route's request that brings no credential of its own (Codex with a local
    /// provider sends none). A client's own `Authorization`, or its
    /// `x-api-key` (Claude Code), is sent on in its place. Read from the
    /// environment variable TOOLCALL_UPSTREAM_KEY when set.
    #[arg(
        long,
        value_name = "KEY",
        env = "TOOLCALL_UPSTREAM_KEY",
        hide_env_values = true
    )]
    pub upstream_key: Option<String>,
    #[command(flatten)]
    pub store: super::store::StoreArgs,
    /// Worker threads for the server (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Seconds a client has to send a request's headers (also how long an
    /// idle keep-alive connection stays open); past it the connection is
    /// closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub header_read_timeout: f64,
    /// The most client connections open at once; past it a connection
    /// still waiting for a request head (slow ones first) is closed for the
    /// new one, or, when every one serves a request, the new one gets 503.
    /// Default: 10000, or less to stay within the open-file limit
    /// (`ulimit -n`), since each connection may need an upstream one.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Seconds to let responses in flight finish after SIGTERM or Ctrl-C
    /// (no new connection is accepted); past it the rest are cut.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub shutdown_grace: f64,
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
    /// By the request's `model`: the `--model-map` (empty without one),
    /// then the model's name (`Format::for_model`).
    ByModel(ModelMap),
}

impl FormatChoice {
    /// The format for a request's `model`; `None`: pass the request through
    /// (no map entry matches and the name says no format, or there is no
    /// `model`).
    pub fn for_model(&self, model: Option<&str>) -> Option<Format> {
        match self {
            FormatChoice::Fixed(format) => Some(*format),
            FormatChoice::ByModel(map) => {
                let entry = map.lookup_entry(model.unwrap_or(""));
                entry
                    .and_then(|entry| entry.format)
                    .or_else(|| Format::for_model(entry?.model.as_deref()?).ok())
                    .or_else(|| Format::for_model(model?).ok())
            }
        }
    }

    /// Whether some `--model-map` entry names an upstream model.
    pub fn renames_models(&self) -> bool {
        match self {
            FormatChoice::Fixed(_) => false,
            FormatChoice::ByModel(map) => map
                .exact
                .iter()
                .chain(&map.prefixes)
                .any(|(_, entry)| entry.model.is_some()),
        }
    }

    /// The upstream's name for a client's `model`, when `--model-map`
    /// gives one.
    pub fn upstream_model(&self, model: &str) -> Option<&str> {
        match self {
            FormatChoice::Fixed(_) => None,
            FormatChoice::ByModel(map) => map.lookup_entry(model)?.model.as_deref(),
        }
    }
}

/// What `--model-map` says of a model: its format, the upstream's name
/// for it, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapEntry {
    pub format: Option<Format>,
    pub model: Option<String>,
}

/// `--model-map`: exact names and `prefix*` patterns.
#[derive(Debug, Default)]
pub struct ModelMap {
    exact: Vec<(String, MapEntry)>,
    /// Longest prefix first, so that the most specific pattern wins.
    prefixes: Vec<(String, MapEntry)>,
}

impl ModelMap {
    pub fn read(path: &Path, custom: &Custom) -> Result<ModelMap, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read model map {}: {e}", path.display()))?;
        ModelMap::from_json_with(&text, custom)
            .map_err(|e| format!("bad model map {}: {e}", path.display()))
    }

    #[cfg(test)]
    pub fn from_json(text: &str) -> Result<ModelMap, String> {
        ModelMap::from_json_with(text, &Custom::default())
    }

    /// The map in `text`, whose formats may be `custom` ones.
    pub fn from_json_with(text: &str, custom: &Custom) -> Result<ModelMap, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let entries = value
            .as_object()
            .ok_or("a model map is a JSON object of model names to formats")?;
        let mut map = ModelMap::default();
        for (key, value) in entries {
            let entry = MapEntry::read(value, custom).map_err(|e| format!("{key:?}: {e}"))?;
            match key.strip_suffix('*') {
                Some(prefix) => map.prefixes.push((prefix.to_owned(), entry)),
                None => map.exact.push((key.clone(), entry)),
            }
        }
        map.prefixes
            .sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        Ok(map)
    }

    /// The format the map gives `model`, if any.
    #[cfg(test)]
    pub fn lookup(&self, model: &str) -> Option<Format> {
        self.lookup_entry(model)?.format
    }

    /// The entry for `model`: an exact key, else the longest pattern.
    pub fn lookup_entry(&self, model: &str) -> Option<&MapEntry> {
        let exact = self.exact.iter().find(|(name, _)| name == model);
        let prefix = || {
            self.prefixes
                .iter()
                .find(|(p, _)| model.starts_with(p.as_str()))
        };
        exact.or_else(prefix).map(|(_, entry)| entry)
    }
}

impl MapEntry {
    /// A map value: a format's name, or `{"model": …, "format": …}`.
    fn read(value: &Value, custom: &Custom) -> Result<MapEntry, String> {
        match value {
            Value::String(name) => Ok(MapEntry {
                format: Some(custom.lookup(name)?),
                model: None,
            }),
            Value::Object(members) => {
                let mut entry = MapEntry::default();
                for (key, value) in members {
                    let text = value
                        .as_str()
                        .ok_or_else(|| format!("\"{key}\" is not a string"))?;
                    match key.as_str() {
                        "format" => entry.format = Some(custom.lookup(text)?),
                        "model" if !text.is_empty() => entry.model = Some(text.to_owned()),
                        "model" => return Err("\"model\" is empty".to_owned()),
                        other => {
                            return Err(format!(
                                "unknown key \"{other}\" (a value is a format's name, or an object with \"model\" and/or \"format\")"
                            ))
                        }
                    }
                }
                Ok(entry)
            }
            _ => Err("expected a format's name or {\"model\": …, \"format\": …}".to_owned()),
        }
    }
}

/// What the server needs, read from the flags.
pub struct Config {
    pub upstream: Target,
    /// `HOST:PORT`, resolved when the server starts.
    pub listen: String,
    pub formats: FormatChoice,
    pub ids: Ids,
    pub incomplete_calls_as_content: bool,
    pub max_held_call: usize,
    pub strict: bool,
    pub reasoning: Reasoning,
    pub calls_in_code_blocks: bool,
    pub max_body_bytes: usize,
    pub connect_timeout: Duration,
    pub first_byte_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_response_bytes: usize,
    pub max_event_bytes: usize,
    pub log_format: LogFormat,
    pub header_read_timeout: Duration,
    /// `None`: the default for the open-file limit (see `server`).
    pub max_connections: Option<usize>,
    pub shutdown_grace: Duration,
    pub max_tokens_cap: Option<u64>,
    pub upstream_key: Option<String>,
}

impl Config {
    pub fn from_args(args: &ProxyArgs) -> Result<Config, String> {
        let upstream = Target::parse(&args.upstream)?;
        let mut custom = Custom::read_all(&args.format_file)?;
        if let Some(path) = &args.format_from_model_config {
            let name = crate::format_file::model_config_format_name(args.format.as_deref())?;
            custom.add(crate::format_file::read_model_config(path, &name)?)?;
        }
        let formats = match (&args.format, &args.model_map, custom.formats()) {
            (_, Some(path), _) => FormatChoice::ByModel(ModelMap::read(path, &custom)?),
            (Some(name), None, _) => {
                FormatChoice::Fixed(custom.lookup(name).map_err(|e| format!("--format: {e}"))?)
            }
            (None, None, []) => FormatChoice::ByModel(ModelMap::default()),
            (None, None, [format]) => FormatChoice::Fixed(*format),
            (None, None, _) => {
                return Err("several --format-file: say which model writes which with \
                            --model-map (or --format)"
                    .to_owned())
            }
        };
        Ok(Config {
            upstream,
            listen: args.listen.clone(),
            formats,
            ids: args.ids.ids(),
            incomplete_calls_as_content: args.hold_calls,
            max_held_call: args.max_held_call,
            strict: args.strict,
            reasoning: args.reasoning,
            calls_in_code_blocks: !args.no_calls_in_code_blocks,
            max_body_bytes: args.max_body_bytes,
            connect_timeout: seconds("--connect-timeout", args.connect_timeout)?,
            first_byte_timeout: seconds("--first-byte-timeout", args.first_byte_timeout)?,
            idle_timeout: seconds("--idle-timeout", args.idle_timeout)?,
            max_response_bytes: args.max_response_bytes,
            max_event_bytes: args.max_event_bytes.max(1),
            log_format: args.log_format,
            header_read_timeout: seconds("--header-read-timeout", args.header_read_timeout)?,
            max_connections: match args.max_connections {
                Some(0) => return Err("--max-connections must be at least 1".to_owned()),
                n => n,
            },
            shutdown_grace: seconds("--shutdown-grace", args.shutdown_grace)?,
            max_tokens_cap: match args.max_tokens_cap {
                Some(0) => return Err("--max-tokens-cap must be at least 1".to_owned()),
                n => n,
            },
            upstream_key: args.upstream_key.clone().filter(|key| !key.is_empty()),
        })
    }
}

/// The longest time a flag in seconds takes.
const MOST_SECONDS: Duration = Duration::from_secs(365 * 24 * 3600);

/// A flag in seconds as a duration; zero only where it makes sense.
fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    let duration = Duration::try_from_secs_f64(value)
        .map_err(|_| format!("{flag} {value} is not a number of seconds"))?;
    if duration.is_zero() && flag != "--shutdown-grace" {
        return Err(format!("{flag} must be more than 0"));
    }
    // Deadlines are instants: a year keeps them far from overflowing.
    if duration > MOST_SECONDS {
        return Err(format!("{flag} {value} is more than a year"));
    }
    Ok(duration)
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
    fn without_a_flag_the_format_comes_from_the_model_name() {
        let choice = FormatChoice::ByModel(ModelMap::default());
        assert_eq!(
            choice.for_model(Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")),
            Some(Format::Qwen3Coder)
        );
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7")),
            Some(Format::Glm47)
        );
        assert_eq!(choice.for_model(Some("gpt-oss:20b")), Some(Format::OpenAi));
        // No format by name, or no name: passed through, as a model a map
        // does not know.
        assert_eq!(choice.for_model(Some("my-model")), None);
        assert_eq!(choice.for_model(Some("")), None);
        assert_eq!(choice.for_model(None), None);
    }

    #[test]
    fn the_map_wins_then_the_model_name() {
        let map =
            ModelMap::from_json(r#"{"zai-org/GLM-4.7": "glm45", "local/*": "hermes"}"#).unwrap();
        let choice = FormatChoice::ByModel(map);
        // The map over the name...
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7")),
            Some(Format::Glm45)
        );
        assert_eq!(
            choice.for_model(Some("local/anything")),
            Some(Format::Hermes)
        );
        // ...then the name, for models the map does not hold.
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7-Flash")),
            Some(Format::Glm47)
        );
        assert_eq!(
            choice.for_model(Some("deepseek-ai/DeepSeek-V3.1")),
            Some(Format::DeepSeekV31)
        );
        assert_eq!(choice.for_model(Some("unknown/model")), None);
        // `--format` is every model's.
        let fixed = FormatChoice::Fixed(Format::Glm45);
        assert_eq!(
            fixed.for_model(Some("openai/gpt-oss-120b")),
            Some(Format::Glm45)
        );
        assert_eq!(fixed.for_model(None), Some(Format::Glm45));
    }

    fn args(flags: &[&str]) -> ProxyArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            proxy: ProxyArgs,
        }
        let argv = ["proxy", "--upstream", "http://127.0.0.1:1"]
            .iter()
            .chain(flags);
        <Cli as clap::Parser>::try_parse_from(argv).unwrap().proxy
    }

    #[test]
    fn neither_flag_picks_by_model_name() {
        let config = Config::from_args(&args(&[])).unwrap();
        assert!(matches!(&config.formats, FormatChoice::ByModel(_)));
        assert_eq!(
            config
                .formats
                .for_model(Some("moonshotai/Kimi-K2-Instruct-0905")),
            Some(Format::KimiK2)
        );
        let config = Config::from_args(&args(&["--format", "glm47"])).unwrap();
        assert!(matches!(config.formats, FormatChoice::Fixed(Format::Glm47)));
    }

    #[test]
    fn a_model_config_gives_every_models_format_named_as_vllm_names_it() {
        let config_file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/model_configs/json_calls.tokenizer_config.json"
        );
        let flags = ["--format-from-model-config", config_file];
        let config = Config::from_args(&args(&flags)).unwrap();
        let FormatChoice::Fixed(format) = config.formats else {
            panic!("one format for every model")
        };
        assert_eq!(format.name(), "hf");
        let config = Config::from_args(&args(&[flags[0], flags[1], "--format", "beam"])).unwrap();
        assert!(matches!(config.formats, FormatChoice::Fixed(f) if f.name() == "beam"));
        let Err(error) = Config::from_args(&args(&["--format", "hf"])) else {
            panic!("hf without a model config")
        };
        assert!(error.contains("--format-from-model-config"), "{error}");
        let Err(error) = Config::from_args(&args(&[flags[0], flags[1], "--format", "glm47"]))
        else {
            panic!("another format with a model config")
        };
        assert!(error.contains("leave out --format"), "{error}");
    }

    /// A format file copying Qwen3-Coder under the name `name`.
    fn format_file(name: &str) -> String {
        let path = std::env::temp_dir().join(format!(
            "toolcall-config-{}-{name}.toml",
            std::process::id()
        ));
        let file = Format::Qwen3Coder
            .to_toml()
            .replace("custom_qwen3_coder", name);
        std::fs::write(&path, file).unwrap();
        path.to_str().unwrap().to_owned()
    }

    #[test]
    fn format_files_are_named_by_format_and_model_map() {
        let (a, b) = (format_file("mine_a"), format_file("mine_b"));
        // Alone, a format file is every model's.
        let config = Config::from_args(&args(&["--format-file", &a])).unwrap();
        let FormatChoice::Fixed(format) = config.formats else {
            panic!("not fixed")
        };
        assert_eq!(format.name(), "mine_a");
        // `--format` names one, in any case.
        let config = Config::from_args(&args(&[
            "--format-file",
            &a,
            "--format-file",
            &b,
            "--format",
            "Mine-B",
        ]))
        .unwrap();
        let FormatChoice::Fixed(format) = config.formats else {
            panic!("not fixed")
        };
        assert_eq!(format.name(), "mine_b");
        // So does the model map, beside built-in names.
        let custom = Custom::read_all(&[&a, &b]).unwrap();
        let map = ModelMap::from_json_with(r#"{"x/*": "mine_a", "y": "glm45"}"#, &custom).unwrap();
        assert_eq!(map.lookup("x/1").map(|f| f.name()), Some("mine_a"));
        assert_eq!(map.lookup("y"), Some(Format::Glm45));
        let error = ModelMap::from_json_with(r#"{"z": "mine_c"}"#, &custom).unwrap_err();
        assert!(
            error.contains("or from --format-file: mine_a, mine_b"),
            "{error}"
        );
        // Several files and nothing to say which is whose.
        let error = Config::from_args(&args(&["--format-file", &a, "--format-file", &b]))
            .err()
            .unwrap();
        assert!(error.contains("--model-map"), "{error}");
        // Two files naming one format.
        let error = Config::from_args(&args(&["--format-file", &a, "--format-file", &a]))
            .err()
            .unwrap();
        assert!(
            error.contains("already names a format \"mine_a\""),
            "{error}"
        );
        // A broken file: its path, line and rule.
        let broken = std::env::temp_dir().join(format!(
            "toolcall-config-{}-broken.toml",
            std::process::id()
        ));
        std::fs::write(
            &broken,
            "name = \"b\"\nbase = \"qwen3_coder\"\n[markers]\ncall_open = \"\"\n",
        )
        .unwrap();
        let error = Config::from_args(&args(&["--format-file", broken.to_str().unwrap()]))
            .err()
            .unwrap();
        assert!(
            error.contains(
                "broken.toml: line 4: marker call_open is empty (rule: markers are not empty)"
            ),
            "{error}"
        );
    }

    #[test]
    fn model_map_rejects_bad_entries() {
        assert!(ModelMap::from_json("[]").is_err());
        assert!(ModelMap::from_json(r#"{"m": 1}"#).is_err());
        assert!(ModelMap::from_json(r#"{"m": "no_such_format"}"#).is_err());
        let error = ModelMap::from_json(r#"{"m": {"modle": "x"}}"#).unwrap_err();
        assert!(error.contains("unknown key \"modle\""), "{error}");
        assert!(ModelMap::from_json(r#"{"m": {"model": ""}}"#).is_err());
        assert!(ModelMap::from_json(r#"{"m": {"format": 3}}"#).is_err());
    }

    #[test]
    fn model_map_names_the_upstream_model() {
        let map = ModelMap::from_json(
            r#"{"claude-*": {"model": "zai-org/GLM-4.7"},
                "gpt-5*": {"model": "local/any", "format": "hermes"},
                "*": {"model": "Qwen/Qwen3-Coder-30B-A3B-Instruct"}}"#,
        )
        .unwrap();
        let choice = FormatChoice::ByModel(map);
        // The target's name says the format...
        assert_eq!(
            choice.upstream_model("claude-sonnet-4-5"),
            Some("zai-org/GLM-4.7")
        );
        assert_eq!(
            choice.for_model(Some("claude-sonnet-4-5")),
            Some(Format::Glm47)
        );
        // ...unless the entry names one.
        assert_eq!(choice.upstream_model("gpt-5-codex"), Some("local/any"));
        assert_eq!(choice.for_model(Some("gpt-5-codex")), Some(Format::Hermes));
        // `*` is every other model.
        assert_eq!(
            choice.upstream_model("anything"),
            Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")
        );
        assert_eq!(choice.for_model(Some("anything")), Some(Format::Qwen3Coder));
        assert_eq!(
            FormatChoice::Fixed(Format::Hermes).upstream_model("x"),
            None
        );
    }
}
