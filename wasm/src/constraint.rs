//! `constraint()`: the grammar of exactly the calls a format reads
//! (`Format::constraint`), with the Python package's options
//! (`{"mode": "required", "parallel": true, "reasoning": false, "dialect":
//! "lark"}`).

use serde_json::{Map, Value};
use toolcall_stream::{Constraint, ConstraintMode, Dialect, Format, Tools};

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
            "mode" => constraint.mode = mode(text(key, value)?)?,
            "parallel" => constraint.parallel = flag(key, value)?,
            "reasoning" => constraint.reasoning = flag(key, value)?,
            "dialect" => constraint.dialect = dialect(text(key, value)?)?,
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

fn mode(text: &str) -> Result<ConstraintMode, String> {
    match text {
        "lazy" => Ok(ConstraintMode::Lazy),
        "required" => Ok(ConstraintMode::Required),
        _ => match text.strip_prefix("named:") {
            Some(name) if !name.is_empty() => Ok(ConstraintMode::Named(name.to_owned())),
            _ => Err(format!(
                "mode {text:?}: expected \"lazy\", \"required\" or \"named:NAME\""
            )),
        },
    }
}

fn dialect(text: &str) -> Result<Dialect, String> {
    match text {
        "lark" => Ok(Dialect::Lark),
        "structural-tag" | "structural_tag" => Ok(Dialect::StructuralTag),
        "gbnf" => Ok(Dialect::Gbnf),
        _ => Err(format!(
            "dialect {text:?}: expected \"lark\", \"structural-tag\" or \"gbnf\""
        )),
    }
}
