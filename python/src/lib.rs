//! `toolcall_stream._native`: the crate's parser for Python. The Python
//! package (`toolcall_stream/__init__.py`) wraps it; events, messages and
//! chunks cross as plain Python objects (dicts, lists, str, int, float,
//! bool, None) made from the crate's own JSON forms, so Python sees
//! exactly what `toolcall stream` prints.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use pythonize::pythonize;
use toolcall_stream::Format;

mod constraint;
mod delta;
mod events;
mod openai;
mod options;
mod parser;

// Raised by a stream used after its end: a `ValueError`, as Python raises
// for a closed file, so `except ValueError` catches it too.
pyo3::create_exception!(
    toolcall_stream,
    StreamFinishedError,
    PyValueError,
    "The stream was finished: `Parser.reset()` (or a new object) starts another."
);

/// A value error carrying the Rust error's own message.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Text or bytes, as the parser takes them.
fn chunk_bytes<'a>(data: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(match text.to_cow()? {
            Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
            Cow::Owned(text) => Cow::Owned(text.into_bytes()),
        });
    }
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    Err(PyTypeError::new_err("expected str or bytes"))
}

/// `value` as Python objects, by way of its JSON form: serde_json's own
/// value serializer reads the raw JSON values events carry (typed
/// parameter values), which `pythonize` alone would not.
fn to_py<T: serde::Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(value).map_err(value_error)?;
    Ok(pythonize(py, &value).map_err(value_error)?.unbind())
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
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "StreamFinishedError",
        m.py().get_type::<StreamFinishedError>(),
    )?;
    m.add_class::<parser::Parser>()?;
    m.add_class::<parser::Message>()?;
    m.add_class::<openai::ChunkStream>()?;
    m.add_class::<openai::Rewriter>()?;
    m.add_function(wrap_pyfunction!(openai::rewrite_completion, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(constraint::constraint, m)?)?;
    m.add_function(wrap_pyfunction!(format_for_model, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
