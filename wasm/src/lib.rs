//! `toolcall-stream` for the browser: the crate's parser bound by
//! wasm-bindgen. Values cross as JSON text, which the JS wrapper
//! (`wasm/js/index.js`) parses: one `JSON.parse` per call is cheaper than
//! building JS objects field by field across the boundary, and it keeps
//! the events exactly the crate's JSON forms.

use std::fmt::Write as _;

use serde::Serialize;
use toolcall_stream::openai::{
    write_sse, ChunkEncoder, CompletionMeta, ContentLayout as RustLayout, SSE_DONE,
};
use toolcall_stream::{Event, Format, MessageBuilder, Parser as RustParser};
use wasm_bindgen::prelude::*;

mod constraint;
mod options;

use options::builder_of;

/// Every event of the module goes through this one sink type. The engine
/// is generic over its sink, so each closure type passed to `feed_with`
/// would compile a copy of the whole engine (some 300 KB of wasm each);
/// one `dyn` sink compiles it once, for the cost of an indirect call per
/// event.
type Sink<'s> = &'s mut dyn FnMut(Event<'_>);

fn feed(parser: &mut RustParser, bytes: &[u8], sink: Sink<'_>) {
    parser.feed_with(bytes, sink);
}

fn finish(parser: &mut RustParser, sink: Sink<'_>) {
    parser.finish_with(sink);
}

/// `Parser::parse` through the one sink.
fn parse_once(parser: &mut RustParser, bytes: &[u8]) -> toolcall_stream::Message {
    let mut message = MessageBuilder::new();
    let sink: Sink<'_> = &mut |event: Event<'_>| message.push(event);
    parser.parse_with(bytes, sink);
    message.finish()
}

fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// Appends `value`'s JSON to `out`.
fn push_json(value: &impl Serialize, out: &mut String) {
    // Writing to a String cannot fail, and every value here serializes.
    if let Ok(json) = serde_json::to_string(value) {
        out.push_str(&json);
    }
}

/// Collects events as a JSON array.
struct EventsJson<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> EventsJson<'a> {
    fn new(out: &'a mut String) -> EventsJson<'a> {
        out.clear();
        out.push('[');
        EventsJson { out, first: true }
    }

    fn push(&mut self, event: &Event<'_>) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        push_json(event, self.out);
    }

    fn end(self) {
        self.out.push(']');
    }
}

/// The streaming parser. `feed` and `finish` return the events as a JSON
/// array.
#[wasm_bindgen]
pub struct Parser {
    inner: RustParser,
    /// The JSON being written; handed over to JS whole.
    out: String,
}

#[wasm_bindgen]
impl Parser {
    /// A parser for `format` with the options' JSON (`{"tools": [...],
    /// "ids": "sequential", ...}`).
    #[wasm_bindgen(constructor)]
    pub fn new(format: &str, options: &str) -> Result<Parser, JsError> {
        Ok(Parser {
            inner: builder_of(format, options).map_err(error)?.build(),
            out: String::new(),
        })
    }

    /// Feeds a piece of text; its events.
    pub fn feed(&mut self, text: &str) -> String {
        self.feed_bytes(text.as_bytes())
    }

    /// Feeds bytes, which may split a character; their events.
    #[wasm_bindgen(js_name = feedBytes)]
    pub fn feed_bytes(&mut self, bytes: &[u8]) -> String {
        let mut events = EventsJson::new(&mut self.out);
        feed(&mut self.inner, bytes, &mut |event| events.push(&event));
        events.end();
        std::mem::take(&mut self.out)
    }

    /// Ends the stream; the last events.
    pub fn finish(&mut self) -> String {
        let mut events = EventsJson::new(&mut self.out);
        finish(&mut self.inner, &mut |event| events.push(&event));
        events.end();
        std::mem::take(&mut self.out)
    }

    /// The call being read, `{"index", "id", "name", "arguments"}` with
    /// arguments that always parse as a JSON object, or `null`.
    #[wasm_bindgen(js_name = partialCall)]
    pub fn partial_call(&self) -> String {
        match self.inner.partial_call() {
            Some(call) => serde_json::json!({
                "index": call.index,
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments(),
            })
            .to_string(),
            None => "null".to_owned(),
        }
    }

    /// Bytes held back because they may still start a marker.
    #[wasm_bindgen(getter, js_name = heldBack)]
    pub fn held_back(&self) -> usize {
        self.inner.held_back()
    }

    /// The format's canonical name.
    #[wasm_bindgen(getter)]
    pub fn format(&self) -> String {
        self.inner.format().name().to_owned()
    }

    /// Starts over for a new stream, keeping the options.
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    /// Parses a whole output: the message's JSON (`content`, `reasoning`,
    /// `tool_calls` with `index` and `complete`, `diagnostics`).
    pub fn parse(&mut self, text: &str) -> String {
        message_json(&parse_once(&mut self.inner, text.as_bytes()))
    }
}

/// A message as JSON, with each call's `index` and `complete`, which
/// OpenAI's shape has no place for.
fn message_json(message: &toolcall_stream::Message) -> String {
    serde_json::to_string(&message.with_call_details()).unwrap_or_default()
}

/// Parses a whole output in `format`: the message's JSON.
#[wasm_bindgen]
pub fn parse(format: &str, text: &str, options: &str) -> Result<String, JsError> {
    let mut parser = builder_of(format, options).map_err(error)?.build();
    Ok(message_json(&parse_once(&mut parser, text.as_bytes())))
}

/// A model's text as OpenAI `chat.completion.chunk`s: JSON arrays of
/// chunks, or server-sent events.
#[wasm_bindgen]
pub struct ChunkStream {
    parser: RustParser,
    encoder: Option<ChunkEncoder>,
}

#[wasm_bindgen]
impl ChunkStream {
    /// `model`, `id` and `created` (Unix seconds: the browser's clock, the
    /// module has none) fill the chunks.
    #[wasm_bindgen(constructor)]
    pub fn new(
        format: &str,
        options: &str,
        model: &str,
        id: &str,
        created: f64,
    ) -> Result<ChunkStream, JsError> {
        let parser = builder_of(format, options)
            .map_err(error)?
            .retain_arguments(false)
            .build();
        let meta = CompletionMeta::seeded(model, 0)
            .with_id(id)
            .with_created(created.max(0.0) as u64);
        Ok(ChunkStream {
            parser,
            encoder: Some(ChunkEncoder::new(meta)),
        })
    }

    /// Feeds text; the chunks it completed, as a JSON array (none or one),
    /// or as server-sent events when `sse`.
    pub fn feed(&mut self, text: &str, sse: bool) -> Result<String, JsError> {
        let encoder = self
            .encoder
            .as_mut()
            .ok_or_else(|| error("the stream is finished"))?;
        feed(&mut self.parser, text.as_bytes(), &mut |event| {
            encoder.push(&event)
        });
        let chunks: Vec<_> = encoder.take_chunk().into_iter().collect();
        Ok(frame(&chunks, sse, false))
    }

    /// Ends the stream: the last chunk (`finish_reason` `length` when
    /// `cutOff`), as a JSON array, or as server-sent events ending with
    /// `data: [DONE]` when `sse`.
    pub fn finish(&mut self, cut_off: bool, sse: bool) -> Result<String, JsError> {
        let mut encoder = self
            .encoder
            .take()
            .ok_or_else(|| error("the stream is finished"))?;
        finish(&mut self.parser, &mut |event| encoder.push(&event));
        Ok(frame(&[encoder.finish(cut_off)], sse, true))
    }
}

/// The crate's OpenAI layout rule over content events
/// (`openai::ContentLayout`): a UI that shows content as OpenAI's output
/// does feeds it every `content` event's text and each call's start.
#[wasm_bindgen]
#[derive(Default)]
pub struct ContentLayout {
    layout: RustLayout,
}

#[wasm_bindgen]
impl ContentLayout {
    #[wasm_bindgen(constructor)]
    pub fn new() -> ContentLayout {
        ContentLayout::default()
    }

    /// A content event's text; what is known to be content by now.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = String::new();
        self.layout.text(text, &mut out);
        out
    }

    /// A call starts: the whitespace held before it was layout.
    pub fn call(&mut self) {
        self.layout.call();
    }

    /// The message ends: the held whitespace that is content (when no call
    /// came). The layout is then ready for the next message.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        self.layout.finish(&mut out);
        out
    }
}

fn frame<T: Serialize>(chunks: &[T], sse: bool, done: bool) -> String {
    let mut out = String::new();
    if sse {
        for chunk in chunks {
            let _ = write_sse(chunk, &mut out);
        }
        if done {
            out.push_str(SSE_DONE);
        }
    } else {
        push_json(&chunks, &mut out);
    }
    out
}

/// Every built-in format's canonical name, as a JSON array.
#[wasm_bindgen]
pub fn formats() -> String {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    serde_json::to_string(&names).unwrap_or_default()
}

/// The format a model's name says it writes.
#[wasm_bindgen(js_name = formatForModel)]
pub fn format_for_model(model: &str) -> Result<String, JsError> {
    Format::for_model(model)
        .map(|f| f.name().to_owned())
        .map_err(error)
}

/// The grammar of exactly the calls `format` reads, to `tools` (an OpenAI
/// `tools` array as JSON), for a server's constrained decoder; `options`
/// as JSON (`{"mode", "parallel", "reasoning", "dialect"}`).
#[wasm_bindgen]
pub fn constraint(format: &str, tools: &str, options: &str) -> Result<String, JsError> {
    constraint::grammar(format, tools, options).map_err(error)
}

/// The engine alone, inside the module: `text` fed in `piece`-byte pieces
/// (and finished) `rounds` times, the events counted. The browser test
/// times it against the JS API and the native build.
#[wasm_bindgen(js_name = benchFeed)]
pub fn bench_feed(format: &str, text: &str, piece: usize, rounds: u32) -> Result<f64, JsError> {
    let mut parser = builder_of(format, "")
        .map_err(error)?
        .retain_arguments(false)
        .build();
    let mut events = 0u64;
    for _ in 0..rounds {
        for chunk in text.as_bytes().chunks(piece.max(1)) {
            feed(&mut parser, chunk, &mut |_| events += 1);
        }
        finish(&mut parser, &mut |_| events += 1);
        parser.reset();
    }
    Ok(events as f64)
}

/// Panics on purpose: the browser test that a panic becomes a JS `Error`
/// and the module can be loaded again.
#[wasm_bindgen(js_name = _panicForTests)]
pub fn panic_for_tests() {
    let mut message = String::new();
    let _ = write!(message, "a panic inside toolcall-stream, on purpose");
    panic!("{message}");
}
