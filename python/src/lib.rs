//! `toolcall_stream._native`: the crate's parser for Python. The Python
//! package (`toolcall_stream/__init__.py`) wraps it; events and messages
//! cross as plain Python objects (dicts, lists, str, int, float, bool,
//! None) made from the crate's own JSON forms, so Python sees exactly what
//! `toolcall stream` prints.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use pythonize::pythonize;
use toolcall_stream::{
    Format, Ids, OwnedEvent, Parser as RustParser, Reasoning, Tools, Typing, ValueTermination,
};

/// A value error carrying the Rust error's own message.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Text or bytes, as the parser takes them.
fn chunk_bytes(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(text.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err("feed() takes str or bytes"))
}

/// The request's `tools`: a JSON string, or the list itself.
fn tools_of(py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Tools> {
    let text: String = if let Ok(text) = tools.cast::<PyString>() {
        text.to_cow()?.into_owned()
    } else {
        let json = py.import("json")?;
        json.call_method1("dumps", (tools,))?.extract()?
    };
    Tools::from_json(&text).map_err(value_error)
}

/// `value` as Python objects, by way of its JSON form: serde_json's own
/// value serializer reads the raw JSON values events carry (typed
/// parameter values), which `pythonize` alone would not.
fn to_py<T: serde::Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(value).map_err(value_error)?;
    Ok(pythonize(py, &value).map_err(value_error)?.unbind())
}

fn events_to_py(py: Python<'_>, events: &[OwnedEvent]) -> PyResult<Py<PyAny>> {
    to_py(py, &events)
}

/// The streaming parser: `feed` chunks as they arrive, `finish` at the end.
#[pyclass(module = "toolcall_stream._native", unsendable)]
struct Parser {
    inner: RustParser,
}

#[pymethods]
impl Parser {
    #[new]
    #[pyo3(signature = (
        format = "qwen3_coder",
        tools = None,
        *,
        reasoning = "off",
        strict = false,
        value_termination = "lookahead",
        typing = "schema",
        ids = "random",
        seed = None,
        retain_arguments = true,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        format: &str,
        tools: Option<&Bound<'_, PyAny>>,
        reasoning: &str,
        strict: bool,
        value_termination: &str,
        typing: &str,
        ids: &str,
        seed: Option<u64>,
        retain_arguments: bool,
    ) -> PyResult<Parser> {
        let format: Format = format.parse().map_err(value_error)?;
        let ids = match (ids, seed) {
            ("random", None) => Ids::Random,
            ("random", Some(seed)) => Ids::seeded(seed),
            ("openai", None) => Ids::OpenAi,
            ("openai", Some(seed)) => Ids::openai_seeded(seed),
            ("sequential", _) => Ids::sequential("call_"),
            (other, _) => {
                return Err(PyValueError::new_err(format!(
                    "unknown ids {other:?}; known: random, openai, sequential"
                )))
            }
        };
        let mut builder = RustParser::builder()
            .format(format)
            .reasoning(reasoning.parse::<Reasoning>().map_err(value_error)?)
            .strict(strict)
            .value_termination(
                value_termination
                    .parse::<ValueTermination>()
                    .map_err(value_error)?,
            )
            .typing(typing.parse::<Typing>().map_err(value_error)?)
            .ids(ids)
            .retain_arguments(retain_arguments);
        if let Some(tools) = tools {
            builder = builder.tools(Arc::new(tools_of(py, tools)?));
        }
        Ok(Parser {
            inner: builder.build(),
        })
    }

    /// Feeds a chunk (str or bytes; bytes may split a character) and
    /// returns the events it made, as dicts.
    fn feed(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let bytes = chunk_bytes(data)?;
        let mut events = Vec::new();
        self.inner
            .feed_with(&bytes, |event| events.push(event.into_owned()));
        events_to_py(py, &events)
    }

    /// Ends the stream: what was held is decided, open calls end.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut events = Vec::new();
        self.inner
            .finish_with(|event| events.push(event.into_owned()));
        events_to_py(py, &events)
    }

    /// Parses a whole output: `{"content", "tool_calls", "diagnostics", …}`.
    fn parse(&mut self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let bytes = chunk_bytes(text)?;
        let message = self.inner.parse(&bytes);
        to_py(py, &message)
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
        Ok(Some(pythonize(py, &value).map_err(value_error)?.unbind()))
    }

    /// Bytes held back: they may still start a marker.
    #[getter]
    fn held_back(&self) -> usize {
        self.inner.held_back()
    }

    /// The format's canonical name.
    #[getter]
    fn format(&self) -> &'static str {
        self.inner.format().name()
    }

    /// Starts over for a new stream, keeping the options.
    fn reset(&mut self) {
        self.inner.reset();
    }
}

/// Every built-in format's canonical name.
#[pyfunction]
fn formats() -> Vec<&'static str> {
    Format::ALL.iter().map(|f| f.name()).collect()
}

/// The format a model's name says it writes (`Format::for_model`).
#[pyfunction]
fn format_for_model(model: &str) -> PyResult<&'static str> {
    Format::for_model(model)
        .map(|f| f.name())
        .map_err(value_error)
}

/// Panics on purpose: the test that a Rust panic becomes a Python
/// exception (pyo3's `PanicException`), never an abort.
#[pyfunction]
fn _panic_for_tests() {
    panic!("a panic inside toolcall_stream, on purpose");
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Parser>()?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(format_for_model, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
