//! One chunk's events folded into one delta, for server plugins (vLLM,
//! SGLang): a server sends one message per step, with the step's content
//! and each call's name and argument fragments merged. Folding in Rust
//! skips a Python object per event, most of a plugin's cost per token.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use toolcall_stream::Event;

/// One call's part of a delta.
struct CallDelta {
    index: usize,
    /// The id and name, in the delta that starts the call.
    start: Option<(String, String)>,
    arguments: String,
}

/// What one step's events add, folded.
#[derive(Default)]
pub(crate) struct Folded {
    content: String,
    reasoning: String,
    calls: Vec<CallDelta>,
}

impl Folded {
    pub(crate) fn clear(&mut self) {
        self.content.clear();
        self.reasoning.clear();
        self.calls.clear();
    }

    fn call(&mut self, index: usize) -> &mut CallDelta {
        // Calls come in order: a call's deltas go to the last entry, or
        // start one.
        if !matches!(self.calls.last(), Some(c) if c.index == index) {
            self.calls.push(CallDelta {
                index,
                start: None,
                arguments: String::new(),
            });
        }
        let last = self.calls.len() - 1;
        &mut self.calls[last]
    }

    pub(crate) fn push(&mut self, event: Event<'_>) {
        match event {
            Event::Content { text } => self.content.push_str(text),
            Event::Reasoning { text } => self.reasoning.push_str(text),
            Event::ToolCallStart { index, id, name } => {
                self.call(index).start = Some((id.to_owned(), name.to_owned()));
            }
            Event::ArgumentsDelta { index, delta } => self.call(index).arguments.push_str(delta),
            _ => {}
        }
    }

    /// `None` when the step adds nothing; the content alone as a `str`
    /// (most steps); else `(content | None, reasoning | None, [tool call
    /// delta])`, each tool call delta in OpenAI's chunk shape: `{"index",
    /// "id", "type": "function", "function": {"name", "arguments"}}` in a
    /// call's first delta, `{"index", "function": {"arguments"}}` after.
    pub(crate) fn to_py(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.calls.is_empty() && self.reasoning.is_empty() {
            if self.content.is_empty() {
                return Ok(py.None());
            }
            return Ok(PyString::new(py, &self.content).into_any().unbind());
        }
        let text = |s: &str| -> Py<PyAny> {
            if s.is_empty() {
                py.None()
            } else {
                PyString::new(py, s).into_any().unbind()
            }
        };
        let calls = PyList::empty(py);
        for call in &self.calls {
            let delta = PyDict::new(py);
            let function = PyDict::new(py);
            delta.set_item("index", call.index)?;
            if let Some((id, name)) = &call.start {
                delta.set_item("id", id)?;
                delta.set_item("type", "function")?;
                function.set_item("name", name)?;
            }
            function.set_item("arguments", &call.arguments)?;
            delta.set_item("function", function)?;
            calls.append(delta)?;
        }
        let folded = PyTuple::new(
            py,
            [
                text(&self.content),
                text(&self.reasoning),
                calls.into_any().unbind(),
            ],
        )?;
        Ok(folded.into_any().unbind())
    }
}
