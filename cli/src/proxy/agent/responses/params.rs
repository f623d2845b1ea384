//! A Responses request's settings: those the chat request takes
//! (sampling, the token limit, the output format, the reasoning effort),
//! and those the response echoes back.

use serde_json::{json, Map, Value};

use super::super::{AgentError, Options};

/// Sampling fields chat completions takes under the same name, and the
/// JSON type each must have. Responses has only the first three; the
/// others are passed on when a client sends them anyway.
const SAMPLING: [(&str, Kind); 8] = [
    ("temperature", Kind::Number),
    ("top_p", Kind::Number),
    ("user", Kind::String),
    ("top_logprobs", Kind::Integer),
    ("seed", Kind::Integer),
    ("presence_penalty", Kind::Number),
    ("frequency_penalty", Kind::Number),
    ("stop", Kind::StringOrList),
];

/// The fields a Response echoes from its request, with the value each has
/// when the request leaves it out.
fn echoed_defaults() -> [(&'static str, Value); 14] {
    [
        ("instructions", Value::Null),
        ("tools", json!([])),
        ("tool_choice", json!("auto")),
        ("parallel_tool_calls", json!(true)),
        ("temperature", Value::Null),
        ("top_p", Value::Null),
        ("max_output_tokens", Value::Null),
        ("previous_response_id", Value::Null),
        ("store", json!(true)),
        ("metadata", json!({})),
        ("text", json!({"format": {"type": "text"}})),
        ("reasoning", json!({"effort": null, "summary": null})),
        ("truncation", json!("disabled")),
        ("user", Value::Null),
    ]
}

#[derive(Clone, Copy)]
enum Kind {
    Number,
    Integer,
    String,
    StringOrList,
}

impl Kind {
    fn accepts(self, value: &Value) -> bool {
        match self {
            Kind::Number => value.is_number(),
            Kind::Integer => value.is_u64() || value.is_i64(),
            Kind::String => value.is_string(),
            Kind::StringOrList => {
                value.is_string()
                    || value
                        .as_array()
                        .is_some_and(|list| list.iter().all(Value::is_string))
            }
        }
    }

    fn expected(self) -> &'static str {
        match self {
            Kind::Number => "a number",
            Kind::Integer => "an integer",
            Kind::String => "a string",
            Kind::StringOrList => "a string or a list of strings",
        }
    }
}

/// Copies the request's settings into `chat` (all but the messages, the
/// tools and `stream`).
pub fn translate_settings(
    body: &Map<String, Value>,
    options: &Options,
    chat: &mut Map<String, Value>,
) -> Result<(), AgentError> {
    for (field, kind) in SAMPLING {
        match body.get(field) {
            None | Some(Value::Null) => {}
            Some(value) if kind.accepts(value) => {
                chat.insert(field.to_owned(), value.clone());
            }
            Some(_) => {
                return Err(AgentError::invalid(
                    field,
                    format!("{field}: expected {}", kind.expected()),
                ))
            }
        }
    }
    if chat.contains_key("top_logprobs") {
        chat.insert("logprobs".to_owned(), true.into());
    }
    let asked = match body.get("max_output_tokens") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_u64().ok_or_else(|| {
            AgentError::invalid(
                "max_output_tokens",
                "max_output_tokens: expected a positive integer",
            )
        })?),
    };
    let max_tokens = match (asked, options.max_tokens_cap) {
        (Some(asked), Some(cap)) => Some(asked.min(cap)),
        (asked, cap) => asked.or(cap),
    };
    if let Some(max_tokens) = max_tokens {
        chat.insert("max_tokens".to_owned(), max_tokens.into());
    }
    if let Some(format) = response_format(body.get("text"))? {
        chat.insert("response_format".to_owned(), format);
    }
    match body.get("reasoning") {
        None | Some(Value::Null) => {}
        Some(Value::Object(reasoning)) => match reasoning.get("effort") {
            None | Some(Value::Null) => {}
            Some(effort @ Value::String(_)) => {
                chat.insert("reasoning_effort".to_owned(), effort.clone());
            }
            Some(_) => {
                return Err(AgentError::invalid(
                    "reasoning",
                    "reasoning.effort: expected a string",
                ))
            }
        },
        Some(_) => {
            return Err(AgentError::invalid(
                "reasoning",
                "reasoning: expected an object",
            ))
        }
    }
    Ok(())
}

/// `text.format` as chat's `response_format` (`None` for plain text).
fn response_format(text: Option<&Value>) -> Result<Option<Value>, AgentError> {
    let invalid = |message: &str| AgentError::invalid("text", message.to_owned());
    let format = match text {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(text)) => match text.get("format") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(format)) => format,
            Some(_) => return Err(invalid("text.format: expected an object")),
        },
        Some(_) => return Err(invalid("text: expected an object")),
    };
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(json!({"type": "json_object"}))),
        Some("json_schema") => {
            let schema = match format.get("schema") {
                Some(schema @ Value::Object(_)) => schema.clone(),
                _ => return Err(invalid("text.format.schema: expected a JSON schema object")),
            };
            let mut json_schema = Map::new();
            let name = format
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("response");
            json_schema.insert("name".to_owned(), name.into());
            json_schema.insert("schema".to_owned(), schema);
            for key in ["strict", "description"] {
                if let Some(value) = format.get(key).filter(|v| !v.is_null()) {
                    json_schema.insert(key.to_owned(), value.clone());
                }
            }
            Ok(Some(
                json!({"type": "json_schema", "json_schema": json_schema}),
            ))
        }
        _ => Err(invalid(
            "text.format.type: expected \"text\", \"json_schema\" or \"json_object\"",
        )),
    }
}

/// The request fields a Response echoes, as the request gave them (or
/// their defaults).
pub fn echoed(body: &Map<String, Value>) -> Map<String, Value> {
    echoed_defaults()
        .into_iter()
        .map(|(field, default)| {
            let value = body
                .get(field)
                .filter(|value| !value.is_null())
                .cloned()
                .unwrap_or(default);
            (field.to_owned(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::agent::IdMaker;

    fn options(cap: Option<u64>) -> Options {
        Options {
            upstream_model: "up".into(),
            max_tokens_cap: cap,
            max_answer_bytes: 1 << 20,
            ids: IdMaker::Sequential(0),
        }
    }

    fn settings(body: Value, cap: Option<u64>) -> Result<Value, AgentError> {
        let mut chat = Map::new();
        translate_settings(body.as_object().unwrap(), &options(cap), &mut chat)?;
        Ok(Value::Object(chat))
    }

    #[test]
    fn sampling_fields_are_copied_and_the_limit_renamed_and_clamped() {
        let chat = settings(
            json!({"temperature": 0.2, "top_p": 0.9, "user": "u", "top_logprobs": 2,
                "max_output_tokens": 5000, "store": false, "include": ["x"],
                "prompt_cache_key": "k", "service_tier": "auto"}),
            Some(4096),
        )
        .unwrap();
        assert_eq!(
            chat,
            json!({"temperature": 0.2, "top_p": 0.9, "user": "u", "top_logprobs": 2,
                "logprobs": true, "max_tokens": 4096})
        );
        assert_eq!(
            settings(json!({"max_output_tokens": 100}), Some(4096)).unwrap(),
            json!({"max_tokens": 100})
        );
        assert_eq!(
            settings(json!({}), Some(4096)).unwrap(),
            json!({"max_tokens": 4096})
        );
        assert_eq!(settings(json!({}), None).unwrap(), json!({}));
    }

    #[test]
    fn text_format_and_reasoning_effort() {
        let chat = settings(
            json!({"text": {"format": {"type": "json_schema", "name": "answer", "strict": true,
                "schema": {"type": "object"}}, "verbosity": "low"},
                "reasoning": {"effort": "high", "summary": "auto"}}),
            None,
        )
        .unwrap();
        assert_eq!(
            chat,
            json!({"response_format": {"type": "json_schema", "json_schema":
                {"name": "answer", "schema": {"type": "object"}, "strict": true}},
                "reasoning_effort": "high"})
        );
        let plain = settings(json!({"text": {"format": {"type": "text"}}}), None).unwrap();
        assert_eq!(plain, json!({}));
        let object = settings(json!({"text": {"format": {"type": "json_object"}}}), None);
        assert_eq!(
            object.unwrap(),
            json!({"response_format": {"type": "json_object"}})
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_is_named() {
        for (body, param, words) in [
            (
                json!({"temperature": "hot"}),
                "temperature",
                "expected a number",
            ),
            (
                json!({"max_output_tokens": -1}),
                "max_output_tokens",
                "positive integer",
            ),
            (
                json!({"text": {"format": {"type": "xml"}}}),
                "text",
                "text.format.type",
            ),
            (
                json!({"reasoning": "high"}),
                "reasoning",
                "expected an object",
            ),
            (json!({"stop": [1]}), "stop", "a list of strings"),
        ] {
            let error = settings(body, None).unwrap_err();
            assert_eq!(error.param.as_deref(), Some(param));
            assert!(error.message.contains(words), "{}", error.message);
        }
    }

    #[test]
    fn echoed_fields_have_defaults() {
        let body = json!({"instructions": "be brief", "temperature": 0.5, "store": false,
            "input": "hi", "model": "m"});
        let echo = echoed(body.as_object().unwrap());
        assert_eq!(echo["instructions"], "be brief");
        assert_eq!(echo["temperature"], 0.5);
        assert_eq!(echo["store"], false);
        assert_eq!(echo["tool_choice"], "auto");
        assert_eq!(echo["tools"], json!([]));
        assert_eq!(echo["top_p"], Value::Null);
        assert!(!echo.contains_key("input"));
        assert_eq!(echo.len(), 14);
    }
}
