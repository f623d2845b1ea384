//! `constraint()`: the grammar of exactly the calls a format reads
//! (`Format::constraint`), for a server's constrained decoder.

use pyo3::prelude::*;
use toolcall_stream::{Constraint, ConstraintMode, Dialect, Format};

use crate::options::tools_of;
use crate::value_error;

/// The grammar of `format`'s calls to `tools`, in `dialect` (`"lark"`,
/// `"structural-tag"` or `"gbnf"`). `mode` is `"lazy"`, `"required"` or `"named:NAME"`.
#[pyfunction]
#[pyo3(signature = (format, tools, mode = "required", parallel = true, reasoning = false, dialect = "lark"))]
pub(crate) fn constraint(
    py: Python<'_>,
    format: &str,
    tools: &Bound<'_, PyAny>,
    mode: &str,
    parallel: bool,
    reasoning: bool,
    dialect: &str,
) -> PyResult<String> {
    let dialect = match dialect {
        "lark" => Dialect::Lark,
        "structural-tag" | "structural_tag" => Dialect::StructuralTag,
        "gbnf" => Dialect::Gbnf,
        _ => {
            return Err(value_error(format!(
                "dialect {dialect:?}: expected \"lark\", \"structural-tag\" or \"gbnf\""
            )))
        }
    };
    let format: Format = format.parse().map_err(value_error)?;
    let tools = tools_of(py, tools)?;
    let mode = match mode {
        "lazy" => ConstraintMode::Lazy,
        "required" => ConstraintMode::Required,
        _ => match mode.strip_prefix("named:") {
            Some(name) if !name.is_empty() => ConstraintMode::Named(name.to_owned()),
            _ => {
                return Err(value_error(format!(
                    "mode {mode:?}: expected \"lazy\", \"required\" or \"named:NAME\""
                )))
            }
        },
    };
    let constraint = Constraint {
        parallel: parallel && !matches!(mode, ConstraintMode::Named(_)),
        mode,
        reasoning,
        dialect,
    };
    format.constraint(&tools, &constraint).map_err(value_error)
}
