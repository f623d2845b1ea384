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
    let dialect: Dialect = dialect.parse().map_err(value_error)?;
    let format: Format = format.parse().map_err(value_error)?;
    let tools = tools_of(py, tools)?;
    let mode: ConstraintMode = mode.parse().map_err(value_error)?;
    let constraint = Constraint {
        parallel: parallel && !matches!(mode, ConstraintMode::Named(_)),
        mode,
        reasoning,
        dialect,
    };
    format.constraint(&tools, &constraint).map_err(value_error)
}
