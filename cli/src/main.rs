//! `toolcall`: parse model output into tool calls, whole or as a stream,
//! or rewrite an OpenAI-compatible server's responses as a proxy.

mod constraint;
mod format_file;
mod ids;
mod proxy;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::marker::PhantomData;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use clap::{Args, Parser as ClapParser, Subcommand};
use ids::IdsArg;
use toolcall_stream::openai::{
    write_sse, ChatCompletionChunk, ChunkEncoder, CompletionMeta, SSE_DONE,
};
use toolcall_stream::{
    Event, Format, Ids, Limits, Parser, Reasoning, Tools, Typing, ValueTermination,
};

/// Turn raw LLM output into OpenAI-compatible tool calls.
#[derive(ClapParser)]
#[command(name = "toolcall", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a whole output; print one JSON message
    /// `{"content", "tool_calls", "diagnostics"}` (with `--openai`, one
    /// `chat.completion`).
    Parse {
        #[command(flatten)]
        common: Common,
    },
    /// Feed the output in chunks; print one JSON event per line as the
    /// bytes arrive (a pipe works live; with `--openai`, server-sent
    /// `chat.completion.chunk`s).
    Stream {
        #[command(flatten)]
        common: Common,
        /// Bytes per chunk fed to the parser.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
        chunk_size: u64,
        /// Print no events, only one JSON line of counts and throughput.
        #[arg(long, conflicts_with = "openai")]
        summary: bool,
        /// Leave out `tool_call_end.arguments` and `parameter_end.value`,
        /// which repeat the deltas: memory then stays constant however
        /// large a value.
        #[arg(long)]
        lean: bool,
    },
    /// Serve an OpenAI-compatible API in front of `--upstream`: chat
    /// completions with `tools` come back with the model's tool-call text
    /// parsed into `tool_calls` (streamed or whole); every other request
    /// passes through unchanged.
    Proxy(proxy::config::ProxyArgs),
    /// Print the grammar of exactly the calls a format reads, for a
    /// request's tools: what a server's constrained decoder takes so that
    /// the model writes only valid calls, in its own format
    /// (docs/constraints.md).
    Constraint(constraint::ConstraintArgs),
    /// Print a built-in format's description as a format file, to start a
    /// format of one's own from (`--format-file`; docs/custom-formats.md):
    /// `toolcall format-file qwen3_coder > mine.toml`.
    ///
    /// With `--check FILE SAMPLE`: read SAMPLE (a model's output) with the
    /// format FILE describes and print the calls, the diagnostics, and each
    /// opener of the format that began no call, with what followed it as
    /// the format's markers cut it. Exit code 1 when an opener began no
    /// call, 2 when FILE is refused (its line and rule named).
    FormatFile {
        /// The built-in format to write.
        #[arg(value_parser = FormatParser, required_unless_present = "check")]
        format: Option<Format>,
        /// Check a format file against a sample output instead.
        #[arg(long, num_args = 2, value_names = ["FILE", "SAMPLE"], conflicts_with = "format")]
        check: Option<Vec<PathBuf>>,
    },
}

#[derive(Args)]
struct Common {
    /// The model's tool-call format: vLLM's `--tool-call-parser` names, in
    /// any case, `-` or `_` alike. Default: the one `--model` writes, else
    /// `qwen3_coder`.
    #[arg(long, short, value_parser = FormatNameParser)]
    format: Option<String>,
    /// A format of one's own, read from a format file (TOML; see
    /// docs/custom-formats.md), in place of `--format`.
    #[arg(long, value_name = "FILE", conflicts_with = "format")]
    format_file: Option<PathBuf>,
    /// The format the model's own `response_template` metadata describes
    /// (what vLLM's `hf` and `beam` parsers read): FILE is the model's
    /// `tokenizer_config.json`, or its directory. `--format` may be left
    /// out, or be `hf` or `beam`.
    #[arg(long, value_name = "FILE", conflicts_with = "format_file")]
    format_from_model_config: Option<PathBuf>,
    /// The model checkpoint's marker suffix, written before the `>` of
    /// every marker (Tencent Hy: `:opensource`, a Hy4 checkpoint's
    /// `:6124c78e`, `""` for none), in place of the format's own.
    #[arg(long, value_name = "SUFFIX", allow_hyphen_values = true)]
    marker_suffix: Option<String>,
    /// The model that wrote the output (`Qwen/Qwen3-Coder-30B-A3B-Instruct`,
    /// `gpt-oss:20b`): without `--format`, the format is the one its name
    /// says (docs/models.md lists the names known), and one line on stderr
    /// says which (`toolcall: model "…" → format hermes (pattern "qwen3")`);
    /// an unknown name is an error. With `--openai`, also the response's
    /// `model` (default `toolcall`).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// The request's OpenAI `tools` array, as a JSON file: values are
    /// typed from its schemas; unknown tools and parameters and missing
    /// required ones are reported.
    #[arg(long)]
    tools: Option<PathBuf>,
    /// How values become JSON: `schema` (typed from `--tools`, a string
    /// where there is no schema, as vLLM), `infer` (values without a
    /// schema inferred: integer, float, boolean, else string) or `strings`
    /// (every value a string).
    #[arg(long, default_value = "schema", value_parser = TypingParser)]
    typing: Typing,
    /// Accept Python literals (`True`, `None`, `{'k': 1}`) where a schema
    /// wants another type than a string; each one is reported.
    #[arg(long)]
    python_literals: bool,
    /// Return only calls that parsed cleanly: a call with any diagnostic
    /// other than `closer_in_value`, or incomplete, comes back as content,
    /// as the model wrote it.
    #[arg(long)]
    strict: bool,
    /// Return calls to tools not in `--tools` as content.
    #[arg(long, requires = "tools")]
    unknown_tools_as_content: bool,
    /// How a value ends around closer-like text: `lookahead` or `vllm`.
    #[arg(long, default_value = "lookahead")]
    value_termination: ValueTermination,
    /// Split reasoning (`<think>…</think>`) from content: `off` (the
    /// markers are content), `on`, or `started` (the prompt ended with
    /// `<think>`, so the output begins inside reasoning).
    #[arg(long, default_value = "off")]
    reasoning: Reasoning,
    /// Calls written inside reasoning are reasoning text, not calls.
    #[arg(long)]
    no_calls_in_reasoning: bool,
    /// Calls written inside a fenced code block (```` ``` ```` or `~~~`) of
    /// the text are content, not calls.
    #[arg(long)]
    no_calls_in_code_blocks: bool,
    /// Content is not watched for calls written in another format (no
    /// `foreign_format` reports; plain text reads faster).
    #[arg(long)]
    no_foreign_watch: bool,
    /// Number call ids `call_0`, `call_1`, … instead of random ids (the
    /// same as `--ids sequential`).
    #[arg(long, conflicts_with = "ids")]
    sequential_ids: bool,
    /// How call ids look (the proxy's `--ids` takes the same words).
    #[arg(long, value_enum, default_value_t = IdsArg::Vllm)]
    ids: IdsArg,
    /// Make random ids (`--ids vllm` or `openai`) and the response id
    /// from this seed: the same output on every run.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    #[command(flatten)]
    openai: OpenAiArgs,
    /// Hold text between `<tool_call>` and `<function=` (up to
    /// `--lookahead` bytes) so that the call after it is still read as
    /// wrapped; by default such text is content at once.
    #[arg(long)]
    hold_text_after_wrapper: bool,
    #[command(flatten)]
    limits: LimitArgs,
    /// The model output: a path, or `-` (or nothing) for stdin.
    input: Option<PathBuf>,
}

#[derive(Args)]
struct OpenAiArgs {
    /// Print OpenAI's wire format: `parse` one `chat.completion` JSON,
    /// `stream` one server-sent event (`data: {chunk}` and a blank line) per
    /// chunk fed that completed something, the last with the
    /// `finish_reason`, then `data: [DONE]`. Diagnostics go to stderr, one
    /// JSON line each, so that stdout stays valid. `stream --openai` keeps
    /// no copy of a call, as `--lean`.
    #[arg(long, help_heading = "OpenAI output")]
    openai: bool,
    /// The model was cut off by its token limit: `finish_reason` is
    /// `length` (otherwise `tool_calls` when a call is complete, else
    /// `stop`).
    #[arg(long, requires = "openai", help_heading = "OpenAI output")]
    finish_length: bool,
}

/// The fields of `Limits`, with its defaults.
#[derive(Args)]
struct LimitArgs {
    /// The longest function or parameter name, in bytes; a longer one is
    /// not a name.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    #[arg(default_value_t = Limits::default().max_name_len)]
    max_name_len: usize,
    /// How far past a tentative marker the parser looks before deciding,
    /// in bytes; past it, the marker is text.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    #[arg(default_value_t = Limits::default().lookahead)]
    lookahead: usize,
    /// The most calls in one output; further openings are content, with a
    /// `limit_exceeded` diagnostic.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    #[arg(default_value_t = Limits::default().max_calls)]
    max_calls: usize,
    /// The most parameters per call; further ones are ignored and the call
    /// ends `"complete": false`.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    #[arg(default_value_t = Limits::default().max_parameters)]
    max_parameters: usize,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        // `Limits` is non-exhaustive: start from its defaults.
        let mut limits = Limits::default();
        limits.max_name_len = self.max_name_len;
        limits.lookahead = self.lookahead;
        limits.max_calls = self.max_calls;
        limits.max_parameters = self.max_parameters;
        limits
    }
}

/// A value read by the library's own name matching (`FromStr`), with the
/// names `--help` lists taken from the library, so that a new format or
/// typing shows up without touching the CLI.
#[derive(Clone)]
pub(crate) struct ByName<T> {
    names: fn() -> Vec<PossibleValue>,
    value: PhantomData<fn() -> T>,
}

/// Every format and its aliases, from `Format::ALL`.
fn format_names() -> Vec<PossibleValue> {
    Format::ALL
        .iter()
        .map(|format| {
            let value = PossibleValue::new(format.name()).aliases(format.aliases());
            match format.aliases() {
                [] => value,
                [alias] => value.help(format!("alias {alias}")),
                aliases => value.help(format!("aliases {}", aliases.join(", "))),
            }
        })
        .chain([PossibleValue::new("auto").help("detected from the output")])
        .chain(["hf", "beam"].map(|name| {
            PossibleValue::new(name)
                .help("read from the model's response_template: needs --format-from-model-config")
        }))
        .collect()
}

/// `--format`: a built-in format's name.
#[allow(non_upper_case_globals)]
pub(crate) const FormatParser: ByName<Format> = ByName {
    names: format_names,
    value: PhantomData,
};

/// The proxy's `--format`: a built-in format's name or a format file's,
/// looked up once the files are read.
#[allow(non_upper_case_globals)]
pub(crate) const FormatNameParser: ByName<String> = ByName {
    names: format_names,
    value: PhantomData,
};

/// `--typing`: every typing, from `Typing::ALL`.
#[allow(non_upper_case_globals)]
const TypingParser: ByName<Typing> = ByName {
    names: || {
        Typing::ALL
            .iter()
            .map(|t| PossibleValue::new(t.name()))
            .collect()
    },
    value: PhantomData,
};

impl<T> TypedValueParser for ByName<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        StringValueParser::new()
            .try_map(|name| name.parse::<T>().map_err(|e| e.to_string()))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.names)().into_iter()))
    }
}

/// A failure worth exit code 2: bad input or options.
struct Fatal(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Parse { common } => parse(&common),
        Command::Stream {
            common,
            chunk_size,
            summary,
            lean,
        } => stream(
            &common,
            usize::try_from(chunk_size).unwrap_or(usize::MAX),
            summary,
            lean,
        ),
        Command::Proxy(args) => proxy::run(&args).map_err(Fatal),
        Command::Constraint(args) => constraint::run(&args),
        Command::FormatFile {
            check: Some(paths), ..
        } => format_file::check_format_file(&paths),
        Command::FormatFile { format, .. } => {
            format_file::write_format_file(format.unwrap_or(Format::Auto))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fatal(message)) => {
            eprintln!("toolcall: {message}");
            ExitCode::from(2)
        }
    }
}

impl Common {
    /// A parser for these options; `retain_arguments` as in
    /// `ParserBuilder::retain_arguments`.
    fn parser(&self, retain_arguments: bool) -> Result<Parser, Fatal> {
        let mut builder = Parser::builder()
            .format(self.format()?)
            .value_termination(self.value_termination)
            .reasoning(self.reasoning)
            .calls_in_reasoning(!self.no_calls_in_reasoning)
            .calls_in_code_blocks(!self.no_calls_in_code_blocks)
            .watch_foreign_formats(!self.no_foreign_watch)
            .limits(self.limits.limits())
            .retain_arguments(retain_arguments)
            .hold_text_after_wrapper(self.hold_text_after_wrapper)
            .typing(self.typing)
            .python_literals(self.python_literals)
            .strict(self.strict)
            .unknown_tools_as_content(self.unknown_tools_as_content);
        builder = builder.ids(self.ids());
        if let Some(path) = &self.tools {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Fatal(format!("cannot read tools {}: {e}", path.display())))?;
            let tools = Tools::from_json(&text)
                .map_err(|e| Fatal(format!("bad tools {}: {e}", path.display())))?;
            builder = builder.tools(Arc::new(tools));
        }
        Ok(builder.build())
    }

    /// `--format` (or `--format-file`), else the format `--model` writes,
    /// else `qwen3_coder`.
    fn format(&self) -> Result<Format, Fatal> {
        let format = if let Some(path) = &self.format_from_model_config {
            let name =
                format_file::model_config_format_name(self.format.as_deref()).map_err(Fatal)?;
            format_file::read_model_config(path, &name).map_err(Fatal)?
        } else if let Some(path) = &self.format_file {
            format_file::read(path).map_err(Fatal)?
        } else {
            match (&self.format, &self.model) {
                (Some(name), _) => name
                    .parse::<Format>()
                    .map_err(|e| Fatal(format!("--format: {e}")))?,
                (None, Some(model)) => {
                    let format = Format::for_model(model)
                        .map_err(|e| Fatal(format!("--model (or give --format): {e}")))?;
                    let pattern = Format::model_pattern(model).map_or("", |(pattern, _)| pattern);
                    report_choice(model, format, pattern, self.openai.openai);
                    format
                }
                (None, None) => Format::Qwen3Coder,
            }
        };
        match &self.marker_suffix {
            Some(suffix) => format
                .with_marker_suffix(suffix)
                .map_err(|e| Fatal(format!("--marker-suffix: {e}"))),
            None => Ok(format),
        }
    }

    fn ids(&self) -> Ids {
        if self.sequential_ids {
            return IdsArg::Sequential.ids(self.seed);
        }
        self.ids.ids(self.seed)
    }

    /// The response's id, model and time for `--openai`.
    fn meta(&self) -> CompletionMeta {
        let model = self.model.clone().unwrap_or_else(|| "toolcall".to_owned());
        match self.seed {
            Some(seed) => CompletionMeta::seeded(model, seed),
            None => CompletionMeta::new(model),
        }
    }

    /// The input path, unless it is stdin.
    fn path(&self) -> Option<&PathBuf> {
        self.input.as_ref().filter(|p| p.as_os_str() != "-")
    }

    fn open(&self) -> Result<Box<dyn Read>, Fatal> {
        match self.path() {
            Some(path) => File::open(path)
                .map(|f| Box::new(f) as Box<dyn Read>)
                .map_err(|e| Fatal(format!("cannot read {}: {e}", path.display()))),
            None => Ok(Box::new(io::stdin().lock())),
        }
    }

    fn read_all(&self) -> Result<Vec<u8>, Fatal> {
        let mut input = Vec::new();
        self.open()?
            .read_to_end(&mut input)
            .map_err(|e| Fatal(format!("cannot read {}: {e}", self.input_name())))?;
        Ok(input)
    }

    fn input_name(&self) -> String {
        self.path()
            .map_or_else(|| "stdin".to_owned(), |p| p.display().to_string())
    }
}

fn parse(common: &Common) -> Result<(), Fatal> {
    let mut parser = common.parser(true)?;
    let input = common.read_all()?;
    let message = parser.parse(&input);
    let mut out = io::stdout().lock();
    let written = if common.openai.openai {
        let mut stderr = io::stderr().lock();
        for diagnostic in &message.diagnostics {
            let event = Event::Diagnostic {
                index: diagnostic.index,
                kind: diagnostic.kind,
                message: &diagnostic.message,
                span: diagnostic.span,
            };
            report_diagnostic(&mut stderr, &event);
        }
        let completion = message.to_chat_completion(&common.meta(), common.openai.finish_length);
        serde_json::to_writer(&mut out, &completion)
    } else {
        serde_json::to_writer(&mut out, &message)
    };
    let written = written
        .map_err(io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
    output_result(written)
}

/// The format `--model` chose, on stderr, so that stdout stays the output
/// scripts read: a line for people, or with `--openai`, where stderr holds
/// JSON lines, one JSON object (`"type": "format_chosen"`).
fn report_choice(model: &str, format: Format, pattern: &str, openai: bool) {
    let line = if openai {
        serde_json::json!({
            "type": "format_chosen",
            "model": model,
            "format": format.name(),
            "pattern": pattern,
        })
        .to_string()
    } else {
        format!("toolcall: model {model:?} \u{2192} format {format} (pattern {pattern:?})")
    };
    // A failed write to stderr is not worth failing for.
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// A diagnostic as one JSON line on stderr, in `--openai` mode where stdout
/// has no place for it. A failed write to stderr is not worth failing for.
fn report_diagnostic(stderr: &mut impl Write, event: &Event<'_>) {
    if matches!(event, Event::Diagnostic { .. }) {
        let _ = serde_json::to_writer(&mut *stderr, event);
        let _ = stderr.write_all(b"\n");
    }
}

/// `stream --openai`: server-sent chunks, one per piece fed that completed
/// something, the last with the `finish_reason`, then `[DONE]`.
fn stream_openai(common: &Common, chunk_size: usize) -> Result<(), Fatal> {
    // The chunks need only the argument fragments: keep no copy of a call.
    let mut parser = common.parser(false)?;
    let mut encoder = ChunkEncoder::new(common.meta());
    let mut reader = common.open()?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut stderr = io::stderr().lock();
    let mut frame = String::new();
    read_in_pieces(common, &mut reader, chunk_size, |pieces| {
        for piece in pieces {
            parser.feed_with(piece, |event| {
                report_diagnostic(&mut stderr, &event);
                encoder.push(&event);
            });
            if let Some(chunk) = encoder.take_chunk() {
                frame.clear();
                write_frame(&chunk, &mut frame)?;
                output_result(out.write_all(frame.as_bytes()))?;
            }
        }
        // Live output: what these bytes completed is sent now.
        output_result(out.flush())
    })?;
    parser.finish_with(|event| {
        report_diagnostic(&mut stderr, &event);
        encoder.push(&event);
    });
    frame.clear();
    write_frame(&encoder.finish(common.openai.finish_length), &mut frame)?;
    frame.push_str(SSE_DONE);
    output_result(out.write_all(frame.as_bytes()).and_then(|()| out.flush()))
}

fn write_frame(chunk: &ChatCompletionChunk, frame: &mut String) -> Result<(), Fatal> {
    write_sse(chunk, frame).map_err(|e| Fatal(format!("cannot write a chunk as JSON: {e}")))
}

fn stream(common: &Common, chunk_size: usize, summary: bool, lean: bool) -> Result<(), Fatal> {
    if common.openai.openai {
        return stream_openai(common, chunk_size);
    }
    // The whole-argument fields are only copies of the deltas: without
    // them a parser's memory does not grow with a value.
    let mut parser = common.parser(!(summary || lean))?;
    if summary && common.path().is_some() {
        // Time only the parser: the file is read first.
        let input = common.read_all()?;
        let mut counts = Counts::default();
        let start = Instant::now();
        for chunk in input.chunks(chunk_size) {
            counts.chunk(parser.feed(chunk));
        }
        counts.events(parser.finish());
        let seconds = start.elapsed().as_secs_f64();
        counts.bytes = input.len();
        return print_summary(&counts, seconds);
    }
    let start = Instant::now();
    let mut reader = common.open()?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut counts = Counts::default();
    read_in_pieces(common, &mut reader, chunk_size, |pieces| {
        for chunk in pieces {
            counts.bytes += chunk.len();
            let events = parser.feed(chunk);
            if summary {
                counts.chunk(events);
            } else {
                counts.chunks += 1;
                output_result(write_events(&mut out, events))?;
            }
        }
        if !summary {
            // Live output: what these bytes completed is shown now.
            output_result(out.flush())?;
        }
        Ok(())
    })?;
    if summary {
        counts.events(parser.finish());
        return print_summary(&counts, start.elapsed().as_secs_f64());
    }
    output_result(write_events(&mut out, parser.finish()).and_then(|()| out.flush()))
}

/// Reads `reader` to its end, 64 KiB at a time, and hands each read's
/// bytes to `on_read` cut into pieces of at most `chunk_size` bytes: the
/// input arrives as it is read (a pipe stays live), in constant memory.
fn read_in_pieces(
    common: &Common,
    reader: &mut dyn Read,
    chunk_size: usize,
    mut on_read: impl FnMut(std::slice::Chunks<'_, u8>) -> Result<(), Fatal>,
) -> Result<(), Fatal> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Fatal(format!("cannot read {}: {e}", common.input_name()))),
        };
        on_read(buf[..n].chunks(chunk_size))?;
    }
}

fn write_events<'a>(
    out: &mut impl Write,
    events: impl Iterator<Item = Event<'a>>,
) -> io::Result<()> {
    for event in events {
        serde_json::to_writer(&mut *out, &event)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    bytes: usize,
    chunks: usize,
    events: usize,
    tool_calls: usize,
}

impl Counts {
    fn chunk<'a>(&mut self, events: impl Iterator<Item = Event<'a>>) {
        self.chunks += 1;
        self.events(events);
    }

    fn events<'a>(&mut self, events: impl Iterator<Item = Event<'a>>) {
        for event in events {
            self.events += 1;
            if matches!(event, Event::ToolCallStart { .. }) {
                self.tool_calls += 1;
            }
        }
    }
}

fn print_summary(counts: &Counts, seconds: f64) -> Result<(), Fatal> {
    let mb_per_s = if seconds > 0.0 {
        counts.bytes as f64 / 1e6 / seconds
    } else {
        0.0
    };
    let line = serde_json::json!({
        "bytes": counts.bytes,
        "chunks": counts.chunks,
        "events": counts.events,
        "tool_calls": counts.tool_calls,
        "seconds": seconds,
        "mb_per_s": mb_per_s,
    });
    output_result(writeln!(io::stdout().lock(), "{line}"))
}

/// A closed stdout (`toolcall stream | head`) ends the run quietly.
pub(crate) fn output_result(result: io::Result<()>) -> Result<(), Fatal> {
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Fatal(format!("cannot write output: {e}"))),
    }
}
