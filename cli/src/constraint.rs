//! `toolcall constraint`: the grammar of exactly the calls a format reads,
//! for a request's tools, to hand a server's constrained decoder.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use toolcall_stream::{
    Constraint, ConstraintMode, Dialect, Format, Tools, UnknownConstraintOption,
};

use crate::{format_file, Fatal, FormatParser};

#[derive(Args)]
pub(crate) struct ConstraintArgs {
    /// The model's tool-call format (vLLM's `--tool-call-parser` names).
    #[arg(long, short, value_parser = FormatParser, required_unless_present = "format_file")]
    format: Option<Format>,
    /// A format of one's own, read from a format file, in place of
    /// `--format`.
    #[arg(long, value_name = "FILE", conflicts_with = "format")]
    format_file: Option<PathBuf>,
    /// The request's OpenAI `tools` array, as a JSON file.
    #[arg(long)]
    tools: PathBuf,
    /// The grammar's dialect: `lark` (llguidance's: vLLM's `guidance`
    /// backend, SGLang and llama.cpp with `%llguidance`, mistral.rs) or
    /// `structural-tag` (xgrammar's, as JSON: vLLM's and SGLang's default
    /// backend) or `gbnf` (llama.cpp's `grammar`; xgrammar's EBNF).
    #[arg(long, value_enum, default_value_t = DialectArg::Lark)]
    dialect: DialectArg,
    /// Which calls: `lazy` (free text, then calls or none: `tool_choice:
    /// "auto"`), `required` (one or more calls) or `named:NAME` (one call
    /// to NAME).
    #[arg(long, default_value = "required", value_parser = mode)]
    mode: ConstraintMode,
    /// One call at most (`parallel_tool_calls: false`).
    #[arg(long)]
    no_parallel: bool,
    /// Allow a reasoning block (`<think>…</think>`) before the calls, for
    /// a server that does not start the grammar after the reasoning.
    #[arg(long)]
    reasoning: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectArg {
    Lark,
    StructuralTag,
    Gbnf,
}

fn mode(text: &str) -> Result<ConstraintMode, String> {
    text.parse()
        .map_err(|e: UnknownConstraintOption| e.to_string())
}

/// Prints the grammar.
pub(crate) fn run(args: &ConstraintArgs) -> Result<(), Fatal> {
    let format = match (&args.format_file, args.format) {
        (Some(path), _) => format_file::read(path).map_err(Fatal)?,
        (None, Some(format)) => format,
        (None, None) => return Err(Fatal("--format or --format-file is required".into())),
    };
    let path = &args.tools;
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fatal(format!("cannot read tools {}: {e}", path.display())))?;
    let tools =
        Tools::from_json(&text).map_err(|e| Fatal(format!("bad tools {}: {e}", path.display())))?;
    let constraint = Constraint {
        parallel: !args.no_parallel && !matches!(args.mode, ConstraintMode::Named(_)),
        mode: args.mode.clone(),
        reasoning: args.reasoning,
        dialect: match args.dialect {
            DialectArg::Lark => Dialect::Lark,
            DialectArg::StructuralTag => Dialect::StructuralTag,
            DialectArg::Gbnf => Dialect::Gbnf,
        },
    };
    let grammar = format
        .constraint(&tools, &constraint)
        .map_err(|e| Fatal(e.to_string()))?;
    // A structural tag is one JSON line; the grammars end with their own.
    let end = match constraint.dialect {
        Dialect::StructuralTag => "\n",
        _ => "",
    };
    crate::output_result(write!(std::io::stdout().lock(), "{grammar}{end}"))
}
