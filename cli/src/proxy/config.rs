//! `toolcall proxy`'s flags, and what the server reads from them.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use toolcall_stream::{Dialect, Ids, Reasoning};

use super::choice::{FormatChoice, ModelMap};
use super::target::Target;
use crate::format_file::Custom;
use crate::ids::IdsArg;
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
    /// (docs/models.md lists the names known); a request whose model
    /// names none passes through unparsed, unless `--default-format`.
    #[arg(long, short, value_parser = FormatNameParser, conflicts_with = "model_map")]
    pub format: Option<String>,
    /// The format of a request whose `model` names none (neither a
    /// `--model-map` entry nor docs/models.md's names): for a server that
    /// serves one model under names of its own. Without it such a request
    /// passes through unparsed.
    #[arg(long, value_name = "FORMAT", value_parser = FormatNameParser, conflicts_with = "format")]
    pub default_format: Option<String>,
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
    /// How the ids of the calls the proxy makes look (the words of
    /// `parse --ids`).
    #[arg(long, value_enum, default_value_t = IdsArg::Openai)]
    pub ids: IdsArg,
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
    /// Attach the grammar of the calls the proxy reads, for the request's
    /// tools and `tool_choice`, to each chat request it parses, and send
    /// `tool_choice: "none"` upstream: for a server started without a tool
    /// parser, so that the model writes only calls in its own format.
    /// `structural-tag` (vLLM, SGLang: `response_format`), `lark` or `gbnf`
    /// (`structured_outputs.grammar`, `grammar`, `ebnf`). Leave it `off` for
    /// a server that enforces tool calls itself.
    #[arg(long, value_enum, value_name = "DIALECT", default_value_t = ConstrainArg::Off)]
    pub constrain: ConstrainArg,
    /// Calls written inside a fenced code block (```` ``` ```` or `~~~`) of
    /// the text are content, not calls: for models that show tool syntax
    /// in examples.
    #[arg(long)]
    pub no_calls_in_code_blocks: bool,
    /// Content is not watched for calls written in another format (no
    /// `foreign_format` reports; plain text reads faster).
    #[arg(long)]
    pub no_foreign_watch: bool,
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

/// `--constrain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ConstrainArg {
    /// Nothing is attached: the server enforces its own (or nothing).
    #[default]
    Off,
    /// xgrammar's structural tag, in `response_format` (vLLM, SGLang).
    StructuralTag,
    /// llguidance's Lark, in `structured_outputs.grammar`, `grammar` and
    /// `ebnf`.
    Lark,
    /// GBNF, in the same fields as Lark.
    Gbnf,
}

impl ConstrainArg {
    /// The grammar's dialect; `None` when off.
    pub fn dialect(self) -> Option<Dialect> {
        match self {
            ConstrainArg::Off => None,
            ConstrainArg::StructuralTag => Some(Dialect::StructuralTag),
            ConstrainArg::Lark => Some(Dialect::Lark),
            ConstrainArg::Gbnf => Some(Dialect::Gbnf),
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
    /// `--constrain`'s dialect; `None`: off.
    pub constrain: Option<Dialect>,
    pub calls_in_code_blocks: bool,
    pub watch_foreign_formats: bool,
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
        let default = match &args.default_format {
            Some(name) => Some(
                custom
                    .lookup(name)
                    .map_err(|e| format!("--default-format: {e}"))?,
            ),
            None => None,
        };
        let fixed_by = if args.format_from_model_config.is_some() {
            "--format-from-model-config"
        } else {
            "--format-file"
        };
        let formats = match (&args.format, &args.model_map, custom.formats()) {
            (_, Some(path), _) => FormatChoice::ByModel {
                map: ModelMap::read(path, &custom)?,
                default,
            },
            (Some(name), None, _) => FormatChoice::Fixed {
                format: custom.lookup(name).map_err(|e| format!("--format: {e}"))?,
                by: "--format",
            },
            (None, None, _) if default.is_some() => FormatChoice::ByModel {
                map: ModelMap::default(),
                default,
            },
            (None, None, []) => FormatChoice::ByModel {
                map: ModelMap::default(),
                default: None,
            },
            (None, None, [format]) => FormatChoice::Fixed {
                format: *format,
                by: fixed_by,
            },
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
            ids: args.ids.ids(None),
            incomplete_calls_as_content: args.hold_calls,
            max_held_call: args.max_held_call,
            strict: args.strict,
            reasoning: args.reasoning,
            constrain: args.constrain.dialect(),
            calls_in_code_blocks: !args.no_calls_in_code_blocks,
            watch_foreign_formats: !args.no_foreign_watch,
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
    use toolcall_stream::Format;

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
        assert!(matches!(&config.formats, FormatChoice::ByModel { .. }));
        assert_eq!(
            config
                .formats
                .for_model(Some("moonshotai/Kimi-K2-Instruct-0905")),
            Some(Format::KimiK2)
        );
        let config = Config::from_args(&args(&["--format", "glm47"])).unwrap();
        assert!(matches!(
            config.formats,
            FormatChoice::Fixed {
                format: Format::Glm47,
                by: "--format"
            }
        ));
    }

    #[test]
    fn a_model_config_gives_every_models_format_named_as_vllm_names_it() {
        let config_file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/model_configs/json_calls.tokenizer_config.json"
        );
        let flags = ["--format-from-model-config", config_file];
        let config = Config::from_args(&args(&flags)).unwrap();
        let FormatChoice::Fixed { format, .. } = config.formats else {
            panic!("one format for every model")
        };
        assert_eq!(format.name(), "hf");
        let config = Config::from_args(&args(&[flags[0], flags[1], "--format", "beam"])).unwrap();
        assert!(
            matches!(config.formats, FormatChoice::Fixed { format, .. } if format.name() == "beam")
        );
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
        let FormatChoice::Fixed { format, .. } = config.formats else {
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
        let FormatChoice::Fixed { format, .. } = config.formats else {
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
    fn default_format_and_ids_take_the_shared_words() {
        let config = Config::from_args(&args(&["--default-format", "hermes"])).unwrap();
        let FormatChoice::ByModel { default, .. } = &config.formats else {
            panic!("by model")
        };
        assert_eq!(*default, Some(Format::Hermes));
        // `--ids` reads parse's words, and `random` as vllm.
        for (word, prefix) in [
            ("vllm", "chatcmpl-tool-"),
            ("random", "chatcmpl-tool-"),
            ("openai", "call_"),
            ("sequential", "call_0"),
        ] {
            let ids = args(&["--ids", word]).ids.ids(None);
            let mut parser = toolcall_stream::Parser::builder()
                .format(Format::Hermes)
                .ids(ids)
                .build();
            let message = parser.parse(br#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#);
            assert!(
                message.tool_calls[0].id.starts_with(prefix),
                "{word}: {}",
                message.tool_calls[0].id
            );
        }
    }
}
