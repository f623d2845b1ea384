//! Events as Python dicts in the crate's JSON form, made directly: a typed
//! value is read by Python's own `json.loads`, so an integer of any size
//! stays exact (a `serde_json::Value` would make it a float), and no
//! intermediate value is built per event (the vLLM plugin makes a few
//! events per token).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use toolcall_stream::{Event, OwnedEvent};

/// Python's `json.loads`, looked up once.
fn json_loads(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    LOADS
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("json")?.getattr("loads")?.unbind())
        })
        .map(|f| f.bind(py))
}

/// One event as a dict: `{"type": ..., fields...}`.
pub(crate) fn event_to_py<'py>(py: Python<'py>, event: &Event<'_>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match event {
        Event::Content { text } => {
            d.set_item("type", "content")?;
            d.set_item("text", text)?;
        }
        Event::Reasoning { text } => {
            d.set_item("type", "reasoning")?;
            d.set_item("text", text)?;
        }
        Event::ToolCallStart { index, id, name } => {
            d.set_item("type", "tool_call_start")?;
            d.set_item("index", index)?;
            d.set_item("id", id)?;
            d.set_item("name", name)?;
        }
        Event::ParameterStart { index, name } => {
            d.set_item("type", "parameter_start")?;
            d.set_item("index", index)?;
            d.set_item("name", name)?;
        }
        Event::ParameterDelta { index, text } => {
            d.set_item("type", "parameter_delta")?;
            d.set_item("index", index)?;
            d.set_item("text", text)?;
        }
        Event::ParameterEnd { index, name, value } => {
            d.set_item("type", "parameter_end")?;
            d.set_item("index", index)?;
            d.set_item("name", name)?;
            if let Some(value) = value {
                d.set_item("value", json_loads(py)?.call1((*value,))?)?;
            }
        }
        Event::ArgumentsDelta { index, delta } => {
            d.set_item("type", "arguments_delta")?;
            d.set_item("index", index)?;
            d.set_item("delta", delta)?;
        }
        Event::ToolCallEnd {
            index,
            arguments,
            complete,
        } => {
            d.set_item("type", "tool_call_end")?;
            d.set_item("index", index)?;
            if let Some(arguments) = arguments {
                d.set_item("arguments", arguments)?;
            }
            d.set_item("complete", complete)?;
        }
        Event::Diagnostic {
            index,
            kind,
            message,
            span,
        } => {
            d.set_item("type", "diagnostic")?;
            d.set_item("index", index)?;
            d.set_item("kind", kind.as_str())?;
            d.set_item("message", message)?;
            let s = PyDict::new(py);
            s.set_item("start", span.start)?;
            s.set_item("end", span.end)?;
            d.set_item("span", s)?;
        }
        // A kind this binding does not know yet: its JSON form.
        other => {
            let json = serde_json::to_string(other).map_err(crate::value_error)?;
            return json_loads(py)?
                .call1((json,))?
                .cast_into()
                .map_err(Into::into);
        }
    }
    Ok(d)
}

/// Events as a list of dicts.
pub(crate) fn events_to_py(py: Python<'_>, events: &[OwnedEvent]) -> PyResult<Py<PyAny>> {
    let list = PyList::empty(py);
    for event in events {
        list.append(event_to_py(py, &event.as_event())?)?;
    }
    Ok(list.into_any().unbind())
}

/// Collects events as dicts while the parser makes them (no owned copy of
/// each first); the first error stops the collecting and is kept.
pub(crate) struct EventList<'py> {
    list: Bound<'py, PyList>,
    error: Option<PyErr>,
}

impl<'py> EventList<'py> {
    pub(crate) fn new(py: Python<'py>) -> EventList<'py> {
        EventList {
            list: PyList::empty(py),
            error: None,
        }
    }

    pub(crate) fn push(&mut self, event: Event<'_>) {
        if self.error.is_some() {
            return;
        }
        let pushed = event_to_py(self.list.py(), &event).and_then(|d| self.list.append(d));
        if let Err(e) = pushed {
            self.error = Some(e);
        }
    }

    pub(crate) fn finish(self) -> PyResult<Py<PyAny>> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.list.into_any().unbind()),
        }
    }
}
