//! Shared by the integration tests: fixtures, feeding helpers and the event
//! contract every output must keep.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolcall_stream::{
    coalesce, Event, Format, Ids, Message, OwnedEvent, Parser, ParserBuilder, Tools,
    ValueTermination,
};

/// A model output under `tests/fixtures/<format>/`. A name ending in
/// `.vllm` runs with `vllm` value termination, one ending in `.hold` with
/// `hold_text_after_wrapper(true)`, one ending in `.strict` in strict mode,
/// any other with the defaults. `NAME.tools.json` beside `NAME.txt` gives
/// the request's tools (typed values).
pub struct Fixture {
    pub name: String,
    pub format: Format,
    pub mode: ValueTermination,
    pub hold_text_after_wrapper: bool,
    /// `NAME.strict.txt`: strict mode.
    pub strict: bool,
    /// The request's tools, from `NAME.tools.json` beside the fixture.
    pub tools: Option<Arc<Tools>>,
    pub input: Vec<u8>,
}

impl Fixture {
    /// A parser with the fixture's options and sequential ids.
    pub fn parser(&self) -> Parser {
        self.builder().build()
    }

    /// A builder with the fixture's options and sequential ids.
    pub fn builder(&self) -> ParserBuilder {
        let builder = Parser::builder()
            .format(self.format)
            .value_termination(self.mode)
            .hold_text_after_wrapper(self.hold_text_after_wrapper)
            .strict(self.strict)
            .ids(Ids::sequential("call_"));
        match &self.tools {
            Some(tools) => builder.tools(tools.clone()),
            None => builder,
        }
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn fixtures() -> Vec<Fixture> {
    let mut all = Vec::new();
    for format in Format::ALL {
        let dir = fixtures_dir().join(format.name());
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let mode = if name.ends_with(".vllm") {
                ValueTermination::Vllm
            } else {
                ValueTermination::Lookahead
            };
            let input = std::fs::read(&path).unwrap();
            let tools_path = path.with_file_name(format!("{name}.tools.json"));
            let tools = std::fs::read_to_string(&tools_path).ok().map(|text| {
                let tools = Tools::from_json(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", tools_path.display()));
                Arc::new(tools)
            });
            all.push(Fixture {
                hold_text_after_wrapper: name.ends_with(".hold"),
                strict: name.ends_with(".strict"),
                tools,
                name,
                format: *format,
                mode,
                input,
            });
        }
    }
    assert!(!all.is_empty(), "no fixtures found");
    all
}

pub fn parser(format: Format, mode: ValueTermination) -> Parser {
    parser_with(format, mode, true)
}

/// A parser with sequential ids, so that two runs give identical events,
/// retaining the whole arguments and values or not.
pub fn parser_with(format: Format, mode: ValueTermination, retain: bool) -> Parser {
    Parser::builder()
        .format(format)
        .value_termination(mode)
        .retain_arguments(retain)
        .ids(Ids::sequential("call_"))
        .build()
}

/// Feeds `input` cut at `cuts` (sorted offsets) and returns every event.
pub fn feed_cut(parser: &mut Parser, input: &[u8], cuts: &[usize]) -> Vec<OwnedEvent> {
    parser.reset();
    let mut events = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let cut = cut.clamp(start, input.len());
        events.extend(parser.feed(&input[start..cut]).map(Event::into_owned));
        start = cut;
    }
    events.extend(parser.finish().map(Event::into_owned));
    events
}

/// Which of the parser's two APIs delivers the events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `feed` and `finish`, iterated.
    Pull,
    /// `feed_with` and `finish_with`, pushed to a closure.
    Push,
    /// Both, by turns: even-numbered calls pull, odd-numbered ones push
    /// (the two APIs on one stream).
    Mixed,
}

/// Feeds `input` cut at `cuts` (sorted offsets) through `api`, then
/// finishes; returns the events of each call (`feed`s, then `finish`)
/// separately, converted with [`Event::into_owned`].
pub fn feed_cut_batches(
    parser: &mut Parser,
    input: &[u8],
    cuts: &[usize],
    api: Api,
) -> Vec<Vec<OwnedEvent>> {
    parser.reset();
    let mut batches = Vec::new();
    let push = |call: usize| match api {
        Api::Pull => false,
        Api::Push => true,
        Api::Mixed => call % 2 == 1,
    };
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        let cut = cut.clamp(start, input.len());
        let chunk = &input[start..cut];
        let mut batch = Vec::new();
        if push(batches.len()) {
            parser.feed_with(chunk, |event| batch.push(event.into_owned()));
        } else {
            batch.extend(parser.feed(chunk).map(Event::into_owned));
        }
        batches.push(batch);
        start = cut;
    }
    let mut batch = Vec::new();
    if push(batches.len()) {
        parser.finish_with(|event| batch.push(event.into_owned()));
    } else {
        batch.extend(parser.finish().map(Event::into_owned));
    }
    batches.push(batch);
    batches
}

/// [`feed_cut`] through the push API (`feed_with`, `finish_with`).
pub fn feed_cut_push(parser: &mut Parser, input: &[u8], cuts: &[usize]) -> Vec<OwnedEvent> {
    feed_cut_batches(parser, input, cuts, Api::Push)
        .into_iter()
        .flatten()
        .collect()
}

/// Chunk boundaries for chunks of `size` bytes.
pub fn chunk_cuts(len: usize, size: usize) -> Vec<usize> {
    (size..len).step_by(size).collect()
}

pub fn one_shot(parser: &mut Parser, input: &[u8]) -> Vec<OwnedEvent> {
    feed_cut(parser, input, &[])
}

pub fn chunked(parser: &mut Parser, input: &[u8], size: usize) -> Vec<OwnedEvent> {
    feed_cut(parser, input, &chunk_cuts(input.len(), size))
}

/// A small deterministic generator (xorshift64*) for random splits.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn cuts(&mut self, len: usize) -> Vec<usize> {
        if len < 2 {
            return Vec::new();
        }
        let count = (self.next() % (len as u64)).min(64) as usize;
        let mut cuts: Vec<usize> = (0..count)
            .map(|_| (self.next() % len as u64) as usize)
            .collect();
        cuts.sort_unstable();
        cuts
    }
}

pub fn message_of(events: &[OwnedEvent]) -> Message {
    let mut message = toolcall_stream::MessageBuilder::new();
    message.extend(events.iter().map(OwnedEvent::as_event));
    message.finish()
}

/// The public contract of an event stream; panics with `context` on a
/// breach.
pub fn check_contract(events: &[OwnedEvent], context: &str) {
    let mut open: Option<(usize, String)> = None;
    let mut param: Option<(String, String)> = None;
    let mut next_index = 0;
    for event in events {
        match event {
            OwnedEvent::Content { text } => {
                assert!(open.is_none(), "{context}: content {text:?} inside a call");
            }
            OwnedEvent::Reasoning { text } => {
                assert!(
                    open.is_none(),
                    "{context}: reasoning {text:?} inside a call"
                );
            }
            OwnedEvent::ToolCallStart { index, name, id } => {
                assert!(open.is_none(), "{context}: call started inside a call");
                assert_eq!(*index, next_index, "{context}: indexes count calls");
                assert!(
                    !name.is_empty() && !id.is_empty(),
                    "{context}: empty name or id"
                );
                next_index += 1;
                open = Some((*index, String::new()));
            }
            OwnedEvent::ArgumentsDelta { index, delta } => {
                let (current, args) = open.as_mut().expect("arguments outside a call");
                assert_eq!(index, current, "{context}");
                args.push_str(delta);
            }
            OwnedEvent::ParameterStart { name, .. } => {
                assert!(
                    open.is_some() && param.is_none(),
                    "{context}: parameter nesting"
                );
                param = Some((name.clone(), String::new()));
            }
            OwnedEvent::ParameterDelta { text, .. } => {
                param
                    .as_mut()
                    .expect("parameter delta outside a parameter")
                    .1
                    .push_str(text);
            }
            OwnedEvent::ParameterEnd { name, value, .. } => {
                let (started, raw) = param.take().expect("parameter end without start");
                assert_eq!(&started, name, "{context}");
                let value = value.as_deref().expect("default parsers retain values");
                let value: serde_json::Value = serde_json::from_str(value)
                    .unwrap_or_else(|e| panic!("{context}: parameter value {value:?}: {e}"));
                // A string value is its raw deltas; a typed one was
                // coerced from them.
                if let Some(text) = value.as_str() {
                    assert_eq!(text, raw.as_str(), "{context}: deltas vs value");
                }
            }
            OwnedEvent::ToolCallEnd {
                index, arguments, ..
            } => {
                let (current, args) = open.take().expect("call end without start");
                assert_eq!(*index, current, "{context}");
                assert!(param.is_none(), "{context}: call ended inside a parameter");
                let arguments = arguments
                    .as_deref()
                    .expect("default parsers retain arguments");
                assert_eq!(args, arguments, "{context}: deltas differ from arguments");
                let parsed: serde_json::Value = serde_json::from_str(arguments)
                    .unwrap_or_else(|e| panic!("{context}: arguments {arguments:?}: {e}"));
                assert!(parsed.is_object(), "{context}: arguments are not an object");
            }
            OwnedEvent::Diagnostic { message, .. } => {
                assert!(!message.is_empty(), "{context}: empty diagnostic message");
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "{context}: a call was never ended");
}

/// Events as JSON lines, coalesced, for snapshots.
pub fn render(events: Vec<OwnedEvent>) -> String {
    coalesce(events)
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect()
}
