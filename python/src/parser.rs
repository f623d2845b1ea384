//! `_native.Parser` and `_native.Message`: the streaming parser, and a
//! parsed message that can still become a `chat.completion`.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use toolcall_stream::{Message as RustMessage, Parser as RustParser};

use crate::delta::Folded;
use crate::events::EventList;
use crate::openai::meta_of;
use crate::options::builder_of;
use crate::{chunk_bytes, to_py, StreamFinishedError};

/// The streaming parser: `feed` chunks as they arrive, `finish` at the end.
#[pyclass(module = "toolcall_stream._native")]
pub(crate) struct Parser {
    inner: RustParser,
    /// Reused by `feed_delta`.
    folded: Folded,
    /// `finish` (or `parse`) ended the stream: feeding or finishing again
    /// raises until `reset`, where the Rust parser would ignore it.
    finished: bool,
}

impl Parser {
    /// The error for a stream used after its end.
    fn check_open(&self) -> PyResult<()> {
        if self.finished {
            return Err(StreamFinishedError::new_err(
                "the stream is finished: call reset() to parse another",
            ));
        }
        Ok(())
    }
}

#[pymethods]
impl Parser {
    #[new]
    #[pyo3(signature = (format = "qwen3_coder", tools = None, **options))]
    fn new(
        py: Python<'_>,
        format: &str,
        tools: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Parser> {
        Ok(Parser {
            inner: builder_of(py, format, tools, options)?.build(),
            folded: Folded::default(),
            finished: false,
        })
    }

    /// Feeds a chunk (str or bytes; bytes may split a character) and
    /// returns the events it made, as dicts in the crate's JSON form.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.check_open()?;
        let bytes = chunk_bytes(data)?;
        let mut events = EventList::new(py);
        self.inner.feed_with(&*bytes, |event| events.push(event));
        events.finish()
    }

    /// Ends the stream: what was held is decided, open calls end.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.check_open()?;
        self.finished = true;
        let mut events = EventList::new(py);
        self.inner.finish_with(|event| events.push(event));
        events.finish()
    }

    /// For server plugins: `feed`, with the chunk's events folded into one
    /// delta: `None`, the content alone (a `str`), or `(content | None,
    /// reasoning | None, [tool call delta])`, each in OpenAI's chunk shape
    /// (`{"index", "id", "type", "function": {"name", "arguments"}}`, the
    /// id, type and name in the call's first delta).
    fn feed_delta(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.check_open()?;
        let bytes = chunk_bytes(data)?;
        let folded = &mut self.folded;
        folded.clear();
        self.inner.feed_with(&*bytes, |event| folded.push(event));
        folded.to_py(py)
    }

    /// `finish`, folded as `feed_delta` folds.
    fn finish_delta(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.check_open()?;
        self.finished = true;
        let folded = &mut self.folded;
        folded.clear();
        self.inner.finish_with(|event| folded.push(event));
        folded.to_py(py)
    }

    /// Parses a whole output (from the start, whatever was fed before);
    /// the stream is finished after it.
    fn parse(&mut self, data: &Bound<'_, PyAny>) -> PyResult<Message> {
        let bytes = chunk_bytes(data)?;
        self.finished = true;
        Ok(Message {
            inner: self.inner.parse(&*bytes),
        })
    }

    /// The call being read, for UIs: `{"index", "id", "name",
    /// "arguments"}` with arguments that always parse as a JSON object,
    /// or None.
    fn partial_call(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(call) = self.inner.partial_call() else {
            return Ok(None);
        };
        let value = serde_json::json!({
            "index": call.index,
            "id": call.id,
            "name": call.name,
            "arguments": call.arguments(),
        });
        to_py(py, &value).map(Some)
    }

    /// Bytes held back: they may still start a marker.
    #[getter]
    fn held_back(&self) -> usize {
        self.inner.held_back()
    }

    /// The format's canonical name.
    #[getter]
    fn format(&self) -> String {
        self.inner.format().name().to_owned()
    }

    /// Starts over for a new stream, keeping the options.
    fn reset(&mut self) {
        self.inner.reset();
        self.finished = false;
    }
}

/// A parsed message: its fields as a dict, and the `chat.completion` it
/// makes (which needs where each call was, to drop the layout whitespace
/// next to it).
#[pyclass(module = "toolcall_stream._native", frozen)]
pub(crate) struct Message {
    inner: RustMessage,
}

#[pymethods]
impl Message {
    /// `{"content", "reasoning", "tool_calls": [{"index", "id", "name",
    /// "arguments", "complete"}], "diagnostics"}`.
    fn fields(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.with_call_details())
    }

    /// The crate's JSON form of the message (what `toolcall parse` prints).
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner)
    }

    /// The message as an OpenAI `chat.completion` dict.
    #[pyo3(signature = (model = "toolcall", *, cut_off = false, id = None, created = None))]
    fn to_chat_completion(
        &self,
        py: Python<'_>,
        model: &str,
        cut_off: bool,
        id: Option<String>,
        created: Option<u64>,
    ) -> PyResult<Py<PyAny>> {
        let meta = meta_of(model, id, created);
        to_py(py, &self.inner.to_chat_completion(&meta, cut_off))
    }
}
