//! The options object every class takes, as JSON from the JS wrapper
//! (`{"tools": [...], "reasoning": "on", "ids": "sequential", ...}`), read
//! into a [`ParserBuilder`].

use std::sync::Arc;

use serde_json::{Map, Value};
use toolcall_stream::{Format, Ids, ParserBuilder, Reasoning, Tools, Typing, ValueTermination};

/// `format` and the options as a builder, or the error's message.
pub(crate) fn builder_of(format: &str, options: &str) -> Result<ParserBuilder, String> {
    let format: Format = format.parse().map_err(|e| format!("{e}"))?;
    let mut builder = ParserBuilder::default().format(format);
    let options: Map<String, Value> = if options.trim().is_empty() {
        Map::new()
    } else {
        serde_json::from_str(options).map_err(|e| format!("options: {e}"))?
    };
    let mut ids = "vllm".to_owned();
    let mut seed = None;
    for (key, value) in &options {
        if value.is_null() {
            continue; // `undefined` in an object literal: not given
        }
        builder = match key.as_str() {
            "tools" => {
                let tools = Tools::from_value(value).map_err(|e| format!("tools: {e}"))?;
                builder.tools(Arc::new(tools))
            }
            "reasoning" => builder.reasoning(parsed::<Reasoning>(key, value)?),
            "valueTermination" => {
                builder.value_termination(parsed::<ValueTermination>(key, value)?)
            }
            "typing" => builder.typing(parsed::<Typing>(key, value)?),
            "strict" => builder.strict(flag(key, value)?),
            "retainArguments" => builder.retain_arguments(flag(key, value)?),
            "incompleteCallsAsContent" => builder.incomplete_calls_as_content(flag(key, value)?),
            "unknownToolsAsContent" => builder.unknown_tools_as_content(flag(key, value)?),
            "callsInCodeBlocks" => builder.calls_in_code_blocks(flag(key, value)?),
            "callsInReasoning" => builder.calls_in_reasoning(flag(key, value)?),
            "watchForeignFormats" => builder.watch_foreign_formats(flag(key, value)?),
            "pythonLiterals" => builder.python_literals(flag(key, value)?),
            "holdTextAfterWrapper" => builder.hold_text_after_wrapper(flag(key, value)?),
            "ids" => {
                ids = text(key, value)?.to_owned();
                builder
            }
            "seed" => {
                seed = Some(
                    value
                        .as_u64()
                        .ok_or_else(|| "seed: expected a non-negative integer".to_owned())?,
                );
                builder
            }
            // The chunk options, read by ChunkStream.
            "model" | "id" | "created" => builder,
            other => {
                return Err(format!(
                    "unknown option {other:?}; known: {}",
                    KNOWN.join(", ")
                ))
            }
        };
    }
    let ids = Ids::named(&ids, seed).map_err(|e| e.to_string())?;
    Ok(builder.ids(ids))
}

const KNOWN: &[&str] = &[
    "tools",
    "reasoning",
    "valueTermination",
    "typing",
    "strict",
    "ids",
    "seed",
    "retainArguments",
    "incompleteCallsAsContent",
    "unknownToolsAsContent",
    "callsInCodeBlocks",
    "callsInReasoning",
    "pythonLiterals",
    "holdTextAfterWrapper",
];

pub(crate) fn text<'a>(key: &str, value: &'a Value) -> Result<&'a str, String> {
    value
        .as_str()
        .ok_or_else(|| format!("{key}: expected a string"))
}

pub(crate) fn flag(key: &str, value: &Value) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("{key}: expected true or false"))
}

fn parsed<T>(key: &str, value: &Value) -> Result<T, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    text(key, value)?
        .parse::<T>()
        .map_err(|e| format!("{key}: {e}"))
}
