//! The OpenAI layer: a model's text as `chat.completion.chunk`s
//! (`ChunkStream`), and an upstream server's chunks with their tool calls
//! fixed (`Rewriter`, `rewrite_completion`). Chunks cross as dicts, or as
//! the server-sent-event bytes a server writes.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use toolcall_stream::openai::{
    rewrite_completion as rust_rewrite_completion, write_sse, ChatCompletion, ChatCompletionChunk,
    ChunkEncoder, CompletionMeta, Pushed, Rewriter as RustRewriter, SSE_DONE,
};
use toolcall_stream::{Event, OwnedEvent, Parser};

use crate::options::builder_of;
use crate::{chunk_bytes, to_py, value_error, StreamFinishedError};

/// The error for a `ChunkStream` used after its end.
fn finished_error() -> PyErr {
    StreamFinishedError::new_err("the stream is finished: make a new ChunkStream for another")
}

/// The response's id, model and time: an OpenAI-like random id and now,
/// unless given.
pub(crate) fn meta_of(model: &str, id: Option<String>, created: Option<u64>) -> CompletionMeta {
    let mut meta = CompletionMeta::new(model);
    if let Some(id) = id {
        meta = meta.with_id(id);
    }
    if let Some(created) = created {
        meta = meta.with_created(created);
    }
    meta
}

fn sse_of(chunks: &[ChatCompletionChunk], out: &mut String) -> PyResult<()> {
    for chunk in chunks {
        write_sse(chunk, out).map_err(value_error)?;
    }
    Ok(())
}

/// A model's text, fed as it streams, as `chat.completion.chunk`s.
#[pyclass(module = "toolcall_stream._native")]
pub(crate) struct ChunkStream {
    parser: Parser,
    /// `None` once finished.
    encoder: Option<ChunkEncoder>,
    /// Diagnostics since they were last taken (OpenAI's chunks have no
    /// place for them).
    diagnostics: Vec<OwnedEvent>,
}

impl ChunkStream {
    fn feed_chunks(&mut self, data: &Bound<'_, PyAny>) -> PyResult<Option<ChatCompletionChunk>> {
        let bytes = chunk_bytes(data)?;
        let encoder = self.encoder.as_mut().ok_or_else(finished_error)?;
        let diagnostics = &mut self.diagnostics;
        self.parser.feed_with(&*bytes, |event| {
            if matches!(event, Event::Diagnostic { .. }) {
                diagnostics.push(event.into_owned());
            }
            encoder.push(&event);
        });
        Ok(encoder.take_chunk())
    }

    fn finish_chunk(&mut self, cut_off: bool) -> PyResult<ChatCompletionChunk> {
        let mut encoder = self.encoder.take().ok_or_else(finished_error)?;
        let diagnostics = &mut self.diagnostics;
        self.parser.finish_with(|event| {
            if matches!(event, Event::Diagnostic { .. }) {
                diagnostics.push(event.into_owned());
            }
            encoder.push(&event);
        });
        Ok(encoder.finish(cut_off))
    }
}

#[pymethods]
impl ChunkStream {
    #[new]
    #[pyo3(signature = (format = "qwen3_coder", tools = None, *, model = "toolcall", id = None, created = None, **options))]
    fn new(
        py: Python<'_>,
        format: &str,
        tools: Option<&Bound<'_, PyAny>>,
        model: &str,
        id: Option<String>,
        created: Option<u64>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ChunkStream> {
        Ok(ChunkStream {
            // The chunks need only the argument fragments.
            parser: builder_of(py, format, tools, options)?
                .retain_arguments(false)
                .build(),
            encoder: Some(ChunkEncoder::new(meta_of(model, id, created))),
            diagnostics: Vec::new(),
        })
    }

    /// Feeds a piece of the model's text; the chunk it completed, if any.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let chunk = self.feed_chunks(data)?;
        to_py(py, &chunk.into_iter().collect::<Vec<_>>())
    }

    /// Ends the stream: the last chunk, with its `finish_reason` (`length`
    /// when `cut_off`: the model hit its token limit).
    #[pyo3(signature = (*, cut_off = false))]
    fn finish(&mut self, py: Python<'_>, cut_off: bool) -> PyResult<Py<PyAny>> {
        let chunk = self.finish_chunk(cut_off)?;
        to_py(py, &[chunk])
    }

    /// `feed`, as server-sent events (`data: {json}\n\n`).
    fn feed_sse<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let chunk = self.feed_chunks(data)?;
        let mut out = String::new();
        sse_of(chunk.as_slice(), &mut out)?;
        Ok(PyBytes::new(py, out.as_bytes()))
    }

    /// `finish`, as server-sent events, with `data: [DONE]` last.
    #[pyo3(signature = (*, cut_off = false))]
    fn finish_sse<'py>(&mut self, py: Python<'py>, cut_off: bool) -> PyResult<Bound<'py, PyBytes>> {
        let chunk = self.finish_chunk(cut_off)?;
        let mut out = String::new();
        sse_of(&[chunk], &mut out)?;
        out.push_str(SSE_DONE);
        Ok(PyBytes::new(py, out.as_bytes()))
    }

    /// The diagnostics since the last call, as event dicts.
    fn take_diagnostics(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let taken = std::mem::take(&mut self.diagnostics);
        crate::events::events_to_py(py, &taken)
    }

    /// Whether the stream was finished.
    #[getter]
    fn finished(&self) -> bool {
        self.encoder.is_none()
    }
}

/// JSON text of a chunk given as a dict (or already as text).
fn json_text(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text.to_cow()?.into_owned());
    }
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return String::from_utf8(bytes.as_bytes().to_vec()).map_err(value_error);
    }
    py.import("json")?
        .call_method1("dumps", (value,))?
        .extract()
}

/// An upstream server's `chat.completion.chunk`s, with the tool calls in
/// their text made `tool_calls`: one parser per choice.
#[pyclass(module = "toolcall_stream._native")]
pub(crate) struct Rewriter {
    inner: RustRewriter,
}

#[pymethods]
impl Rewriter {
    #[new]
    #[pyo3(signature = (format = "qwen3_coder", tools = None, **options))]
    fn new(
        py: Python<'_>,
        format: &str,
        tools: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Rewriter> {
        Ok(Rewriter {
            inner: RustRewriter::new(builder_of(py, format, tools, options)?),
        })
    }

    /// One upstream chunk (a dict, or its JSON text); the chunks to send
    /// for it (maybe none). The upstream's error event (an object with an
    /// `error` field) comes back as it came.
    fn push(&mut self, py: Python<'_>, chunk: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let json = json_text(py, chunk)?;
        let decoded: ChatCompletionChunk = match serde_json::from_str(&json) {
            Ok(decoded) => decoded,
            Err(e) => {
                let value: serde_json::Value = serde_json::from_str(&json).map_err(value_error)?;
                if value.get("error").is_some() {
                    return to_py(py, &[value]);
                }
                return Err(value_error(format!("not a chat.completion.chunk: {e}")));
            }
        };
        let mut out = Vec::new();
        self.inner.push(decoded, &mut out);
        to_py(py, &out)
    }

    /// One upstream server-sent event's data (the chunk's JSON, str or
    /// bytes); the server-sent events to send for it, as bytes. `[DONE]`
    /// ends the stream (as `finish_sse`); the upstream's error event comes
    /// back framed as it came.
    fn push_sse<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let json = json_text(py, data)?;
        if json.trim() == "[DONE]" {
            return self.finish_sse(py);
        }
        let mut out = String::new();
        if self.inner.push_json(&json, &mut out).map_err(value_error)? == Pushed::Error {
            toolcall_stream::openai::write_sse_data(&json, &mut out);
        }
        Ok(PyBytes::new(py, out.as_bytes()))
    }

    /// The upstream stream ended (`[DONE]`, or the end of its body): the
    /// last chunks.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut out = Vec::new();
        self.inner.finish(&mut out);
        to_py(py, &out)
    }

    /// `finish`, as server-sent events, with `data: [DONE]` last.
    fn finish_sse<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut chunks = Vec::new();
        self.inner.finish(&mut chunks);
        let mut out = String::new();
        sse_of(&chunks, &mut out)?;
        out.push_str(SSE_DONE);
        Ok(PyBytes::new(py, out.as_bytes()))
    }

    /// The upstream stream was cut (no `finish_reason`, no `[DONE]`): every
    /// open choice ends as cut off (`length`).
    fn finish_cut(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut out = Vec::new();
        self.inner.finish_cut(&mut out);
        to_py(py, &out)
    }

    /// Complete tool calls made so far, over all choices.
    #[getter]
    fn calls(&self) -> usize {
        self.inner.calls()
    }

    /// The diagnostics since the last call, as event dicts, choice by
    /// choice.
    fn take_diagnostics(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let taken: Vec<_> = self
            .inner
            .drain_diagnostic_details()
            .map(|d| OwnedEvent::Diagnostic {
                index: d.index,
                kind: d.kind,
                message: d.message,
                span: d.span,
            })
            .collect();
        crate::events::events_to_py(py, &taken)
    }
}

/// A whole upstream `chat.completion` (a dict, or its JSON text), with the
/// tool calls in each choice's text made `tool_calls`.
#[pyfunction]
#[pyo3(signature = (format, completion, tools = None, **options))]
pub(crate) fn rewrite_completion(
    py: Python<'_>,
    format: &str,
    completion: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let builder = builder_of(py, format, tools, options)?;
    let json = json_text(py, completion)?;
    let completion: ChatCompletion = serde_json::from_str(&json)
        .map_err(|e| value_error(format!("not a chat.completion: {e}")))?;
    let (rewritten, _) = rust_rewrite_completion(&builder, completion);
    to_py(py, &rewritten)
}
