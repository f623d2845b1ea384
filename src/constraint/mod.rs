//! The grammar of exactly the calls a format reads, for a request's tools:
//! what a server hands its constrained decoder so that a model writes only
//! valid calls, in its own format. It is generated from the same
//! description the parser reads, so the two cannot drift: every string the
//! grammar admits parses to complete calls to declared tools, with
//! arguments of the declared types, and no diagnostic (`constraints-check/tests/walks.rs`
//! walks each grammar at random to hold that).
//!
//! ```
//! use toolcall_stream::{Constraint, Format, Tools};
//! let tools = Tools::from_json(r#"[{"type": "function", "function": {"name": "get_weather",
//!     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
//!     "required": ["city"]}}}]"#).unwrap();
//! let lark = Format::Qwen3Coder.constraint(&tools, &Constraint::required()).unwrap();
//! assert!(lark.contains(r#""<function=get_weather>""#));
//! ```

mod call;
mod ebnf;
mod elements;
mod gbnf;
mod gbnf_json;
mod gbnf_text;
mod gemma;
mod lark;
mod markup;
mod messages;
mod python;
mod shape;
mod stag;
mod value;

use std::fmt;

use serde_json::Value;

use crate::format::Format;
use crate::tools::Tools;

/// What the model may write (`tool_choice`), and around the calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    /// Which calls, and whether text may come first.
    pub mode: ConstraintMode,
    /// More than one call (`parallel_tool_calls`); one when false.
    pub parallel: bool,
    /// A reasoning block (`<think>…</think>`) may come first, in a format
    /// that has reasoning markers: for a server that does not start the
    /// grammar after the reasoning itself.
    pub reasoning: bool,
    /// The grammar's language.
    pub dialect: Dialect,
}

/// The language a grammar is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dialect {
    /// llguidance's Lark (vLLM's `guidance` backend, SGLang's and llama.cpp's
    /// llguidance, mistral.rs).
    #[default]
    Lark,
    /// xgrammar's structural tag, as JSON (vLLM's and SGLang's default
    /// backend: `structured_outputs.structural_tag`, `response_format`).
    StructuralTag,
    /// GBNF (llama.cpp's `grammar`; xgrammar's EBNF reads it too: vLLM's
    /// `structured_outputs.grammar`, SGLang's `ebnf`).
    Gbnf,
}

/// Which calls a constraint admits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstraintMode {
    /// Free text, then calls or none (`tool_choice: "auto"`); the grammar
    /// constrains from a call's opener on.
    Lazy,
    /// One or more calls and nothing before them (`"required"`).
    Required,
    /// One call to this function (a named `tool_choice`).
    Named(String),
}

impl Constraint {
    /// `tool_choice: "auto"`, parallel calls allowed, no reasoning block.
    pub fn lazy() -> Constraint {
        Constraint {
            mode: ConstraintMode::Lazy,
            parallel: true,
            reasoning: false,
            dialect: Dialect::Lark,
        }
    }

    /// `tool_choice: "required"`, parallel calls allowed, no reasoning block.
    pub fn required() -> Constraint {
        Constraint {
            mode: ConstraintMode::Required,
            ..Constraint::lazy()
        }
    }

    /// One call to `name`.
    pub fn named(name: &str) -> Constraint {
        Constraint {
            mode: ConstraintMode::Named(name.to_owned()),
            parallel: false,
            ..Constraint::lazy()
        }
    }
}

/// Why no grammar was made.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConstraintError {
    /// The format's shape is one the generator does not write yet.
    Unsupported {
        /// The format's name.
        format: String,
        /// What in its description has no grammar.
        reason: String,
    },
    /// The named function is not among the tools.
    UnknownTool(String),
    /// No tool is declared, and calls are required.
    NoTools,
    /// Calls are required, but no value satisfies a required parameter of
    /// any tool they may call (a `false` schema, an empty `enum`): the
    /// model would have no way to stop.
    Unsatisfiable,
}

impl fmt::Display for ConstraintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConstraintError::Unsupported { format, reason } => {
                write!(f, "no grammar for the `{format}` format yet: {reason}")
            }
            ConstraintError::UnknownTool(name) => {
                write!(f, "`{name}` is not among the request's tools")
            }
            ConstraintError::NoTools => {
                write!(f, "calls are required, but the request declares no tool")
            }
            ConstraintError::Unsatisfiable => write!(
                f,
                "calls are required, but no value satisfies a required parameter of any tool \
                 they may call, so the model would have no way to stop"
            ),
        }
    }
}

impl std::error::Error for ConstraintError {}

/// A mode or dialect written as text that names none (`"auto"` for a mode:
/// it is `"lazy"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownConstraintOption {
    /// `mode` or `dialect`.
    pub option: &'static str,
    /// The text as given.
    pub text: String,
}

impl fmt::Display for UnknownConstraintOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = match self.option {
            "mode" => "\"lazy\", \"required\" or \"named:NAME\"",
            _ => "\"lark\", \"structural-tag\" or \"gbnf\"",
        };
        write!(f, "{} {:?}: expected {expected}", self.option, self.text)
    }
}

impl std::error::Error for UnknownConstraintOption {}

impl std::str::FromStr for ConstraintMode {
    type Err = UnknownConstraintOption;

    /// `lazy`, `required` or `named:NAME`, as the CLI, Python and the
    /// browser package take them.
    fn from_str(text: &str) -> Result<ConstraintMode, UnknownConstraintOption> {
        match text {
            "lazy" => Ok(ConstraintMode::Lazy),
            "required" => Ok(ConstraintMode::Required),
            _ => match text.strip_prefix("named:") {
                Some(name) if !name.is_empty() => Ok(ConstraintMode::Named(name.to_owned())),
                _ => Err(UnknownConstraintOption {
                    option: "mode",
                    text: text.to_owned(),
                }),
            },
        }
    }
}

impl std::str::FromStr for Dialect {
    type Err = UnknownConstraintOption;

    /// `lark`, `structural-tag` (or `structural_tag`) or `gbnf`.
    fn from_str(text: &str) -> Result<Dialect, UnknownConstraintOption> {
        match text {
            "lark" => Ok(Dialect::Lark),
            "structural-tag" | "structural_tag" => Ok(Dialect::StructuralTag),
            "gbnf" => Ok(Dialect::Gbnf),
            _ => Err(UnknownConstraintOption {
                option: "dialect",
                text: text.to_owned(),
            }),
        }
    }
}

/// A GBNF grammar as the same rules in llguidance's Lark (`::=` as `:`,
/// names with `_` for `-`, a character class as a regex), `root` where
/// Lark's `start` begins: how `constraints-check` walks the GBNF grammars
/// with llguidance. Not part of the stable API.
#[doc(hidden)]
pub fn lark_of_gbnf(gbnf: &str) -> String {
    format!("start: root\n{}", python::lark_of(gbnf))
}

impl Format {
    /// The grammar, in `constraint.dialect` (Lark, or a structural tag as
    /// JSON), of exactly the calls this format reads, to `tools`, as `constraint`
    /// says. Values follow each parameter's schema as the parser types
    /// them; parameters come in their declared order, required ones always,
    /// optional ones or not; a string value may hold no marker of the
    /// format, so it parses back as written.
    ///
    /// # Errors
    /// [`ConstraintError`]: a shape with no grammar yet, an unknown named
    /// function, or calls required with no tool, or none whose arguments
    /// any value satisfies.
    pub fn constraint(
        self,
        tools: &Tools,
        constraint: &Constraint,
    ) -> Result<String, ConstraintError> {
        let shape = shape::Shape::of(self.description())?;
        let names: Vec<&str> = match &constraint.mode {
            ConstraintMode::Named(name) if tools.contains(name) => vec![name.as_str()],
            ConstraintMode::Named(name) => return Err(ConstraintError::UnknownTool(name.clone())),
            _ => tools.names().collect(),
        };
        if names.is_empty() && constraint.mode != ConstraintMode::Lazy {
            return Err(ConstraintError::NoTools);
        }
        // A tool whose call no arguments satisfy is no call the model may
        // write.
        let names: Vec<&str> = names
            .into_iter()
            .filter(|name| shape.callable(tools.parameters(name).unwrap_or(&Value::Null)))
            .collect();
        if names.is_empty() && constraint.mode != ConstraintMode::Lazy {
            return Err(ConstraintError::Unsatisfiable);
        }
        match constraint.dialect {
            Dialect::Lark => Ok(lark::write(&shape, tools, &names, constraint)),
            Dialect::StructuralTag => {
                Ok(stag::write(&shape, tools, &names, constraint).to_string())
            }
            Dialect::Gbnf => gbnf::write(&shape, tools, &names, constraint),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_dialects_read_from_their_text() {
        assert_eq!("lazy".parse(), Ok(ConstraintMode::Lazy));
        assert_eq!(
            "named:get_weather".parse(),
            Ok(ConstraintMode::Named("get_weather".into()))
        );
        let auto = "auto".parse::<ConstraintMode>().unwrap_err();
        assert_eq!(
            auto.to_string(),
            "mode \"auto\": expected \"lazy\", \"required\" or \"named:NAME\""
        );
        assert!("named:".parse::<ConstraintMode>().is_err());
        assert_eq!("structural_tag".parse(), Ok(Dialect::StructuralTag));
        assert_eq!("gbnf".parse(), Ok(Dialect::Gbnf));
        assert_eq!(
            "regex".parse::<Dialect>().unwrap_err().to_string(),
            "dialect \"regex\": expected \"lark\", \"structural-tag\" or \"gbnf\""
        );
    }
}
