//! `constraint()`: the grammar of exactly the calls a format reads
//! (`Format::constraint`), with the Python package's options
//! (`{"mode": "required", "parallel": true, "reasoning": false, "dialect":
//! "lark"}`).

use serde_json::{Map, Value};
use toolcall_stream::{Constraint, ConstraintMode, Format, Tools, UnknownConstraintOption};

use crate::options::{flag, text};

/// The grammar of `format`'s calls to the tools of `tools` (an OpenAI
/// `tools` array as JSON text), or the error's message.
pub(crate) fn grammar(format: &str, tools: &str, options: &str) -> Result<String, String> {
    let format: Format = format.parse().map_err(|e| format!("{e}"))?;
    // From the text, not a parsed value: the tools' parameter order is the
    // grammar's, and only the text keeps it.
    let tools = Tools::from_json(tools).map_err(|e| e.to_string())?;
    let options: Map<String, Value> = if options.trim().is_empty() {
        Map::new()
    } else {
        serde_json::from_str(options).map_err(|e| format!("options: {e}"))?
    };
    let mut constraint = Constraint::required();
    for (key, value) in &options {
        if value.is_null() {
            continue; // `undefined` in an object literal: not given
        }
        match key.as_str() {
            "mode" => constraint.mode = parsed(text(key, value)?)?,
            "parallel" => constraint.parallel = flag(key, value)?,
            "reasoning" => constraint.reasoning = flag(key, value)?,
            "dialect" => constraint.dialect = parsed(text(key, value)?)?,
            other => {
                return Err(format!(
                    "unknown option {other:?}; known: mode, parallel, reasoning, dialect"
                ))
            }
        }
    }
    // A named function is one call, whatever `parallel` says.
    constraint.parallel &= !matches!(constraint.mode, ConstraintMode::Named(_));
    format
        .constraint(&tools, &constraint)
        .map_err(|e| e.to_string())
}

/// A mode or dialect from its text, or the library's message.
fn parsed<T: std::str::FromStr<Err = UnknownConstraintOption>>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|e: UnknownConstraintOption| e.to_string())
}
