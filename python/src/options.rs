//! The keyword options every Python class takes (`Parser`, `ChunkStream`,
//! `Rewriter`), read once into a [`ParserBuilder`].

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use toolcall_stream::{Format, Ids, ParserBuilder, Reasoning, Tools, Typing, ValueTermination};

use crate::value_error;

/// The request's `tools`: a JSON string, or the list itself.
pub(crate) fn tools_of(py: Python<'_>, tools: &Bound<'_, PyAny>) -> PyResult<Tools> {
    let text: String = if let Ok(text) = tools.cast::<PyString>() {
        text.to_cow()?.into_owned()
    } else {
        let json = py.import("json")?;
        json.call_method1("dumps", (tools,))?.extract()?
    };
    Tools::from_json(&text).map_err(value_error)
}

/// `format`, `tools` and the keyword options as a builder. An unknown
/// keyword is a `TypeError`, as for any Python function; a bad value is a
/// `ValueError` with the library's message.
pub(crate) fn builder_of(
    py: Python<'_>,
    format: &str,
    tools: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ParserBuilder> {
    let format: Format = format.parse().map_err(value_error)?;
    let mut builder = ParserBuilder::default().format(format);
    if let Some(tools) = tools.filter(|t| !t.is_none()) {
        builder = builder.tools(Arc::new(tools_of(py, tools)?));
    }
    let mut ids = "vllm".to_owned();
    let mut seed = None;
    for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
        let key: String = key.extract()?;
        builder = match key.as_str() {
            "reasoning" => builder.reasoning(parsed::<Reasoning>(&value)?),
            "value_termination" => builder.value_termination(parsed::<ValueTermination>(&value)?),
            "typing" => builder.typing(parsed::<Typing>(&value)?),
            "strict" => builder.strict(value.extract()?),
            "retain_arguments" => builder.retain_arguments(value.extract()?),
            "incomplete_calls_as_content" => builder.incomplete_calls_as_content(value.extract()?),
            "unknown_tools_as_content" => builder.unknown_tools_as_content(value.extract()?),
            "calls_in_code_blocks" => builder.calls_in_code_blocks(value.extract()?),
            "calls_in_reasoning" => builder.calls_in_reasoning(value.extract()?),
            "watch_foreign_formats" => builder.watch_foreign_formats(value.extract()?),
            "python_literals" => builder.python_literals(value.extract()?),
            "hold_text_after_wrapper" => builder.hold_text_after_wrapper(value.extract()?),
            "ids" => {
                ids = value.extract()?;
                builder
            }
            "seed" => {
                seed = value.extract::<Option<u64>>()?;
                builder
            }
            other => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument {other:?}; known: {}",
                    KNOWN.join(", ")
                )))
            }
        };
    }
    let ids = Ids::named(&ids, seed).map_err(value_error)?;
    Ok(builder.ids(ids))
}

const KNOWN: &[&str] = &[
    "reasoning",
    "strict",
    "value_termination",
    "typing",
    "ids",
    "seed",
    "retain_arguments",
    "incomplete_calls_as_content",
    "unknown_tools_as_content",
    "calls_in_code_blocks",
    "calls_in_reasoning",
    "watch_foreign_formats",
    "python_literals",
    "hold_text_after_wrapper",
];

/// A string option read by the library's own `FromStr`.
fn parsed<T>(value: &Bound<'_, PyAny>) -> PyResult<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    let text: String = value.extract()?;
    text.parse::<T>().map_err(value_error)
}
