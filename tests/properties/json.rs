//! Generators for the formats that write calls as JSON: marker soup (the
//! format's markers, their near misses, JSON's structure and escapes) and
//! well-formed calls whose arguments are arbitrary JSON values (strings
//! holding markers, escapes, surrogate pairs and non-ASCII text), laid
//! out compactly or pretty-printed, with text around them and, one output
//! in four, cut off at a random byte.

use super::*;
use serde_json::{Map, Value};

/// What every JSON format's output is made of besides its markers.
const JSON_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "\"",
    "\\",
    "\\\"",
    "\\n",
    "\\u00e9",
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\ude00",
    "\"name\"",
    "\"arguments\"",
    "\"parameters\"",
    ": ",
    "\"f\"",
    "{\"name\": \"f\", \"arguments\": {",
    "true",
    "false",
    "null",
    "-1.5e3",
    "0",
    "12",
    "\t",
    "```",
    "```json\n",
    "é",
    "🌧️",
    "東京",
    "text ",
];

/// The format's markers, and a near miss of each.
fn markers(format: Format) -> &'static [&'static str] {
    match format {
        Format::Hermes => &["<tool_call>", "</tool_call>", "<tool_call", "</tool_"],
        Format::KimiK2 => &[
            "<|tool_calls_section_begin|>",
            "<|tool_calls_section_end|>",
            "<|tool_call_begin|>",
            "<|tool_call_end|>",
            "<|tool_call_argument_begin|>",
            "functions.f:0",
            "<|tool_call",
            "<think>",
            "</think>",
            "◁think▷",
            "◁/think▷",
            "◁think",
            "◁/think",
            "◁",
            "▷",
        ],
        Format::DeepSeekV31 | Format::DeepSeekV3 => &[
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁calls▁end｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁call▁end｜>",
            "<｜tool▁sep｜>",
            "function",
            "<｜tool▁",
        ],
        Format::LongCat => &["<longcat_tool_call>", "</longcat_tool_call>", "<longcat_"],
        Format::InternLm => &[
            "<|action_start|>",
            "<|plugin|>",
            "<|action_end|>",
            "<|action",
        ],
        Format::Jamba | Format::HunyuanA13b => &["<tool_calls>", "</tool_calls>", "<tool_calls"],
        Format::Granite => &["<|tool_call|>", "<|tool_call"],
        Format::Phi4MiniJson => &["functools", "functool", "fun"],
        Format::Mistral => &["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[TOOL_CALL", "[ARG"],
        Format::OpenAi => &[
            "<|start|>",
            "assistant",
            "<|channel|>",
            "analysis",
            "final",
            "commentary",
            " to=functions.f ",
            " to=browser.search",
            "<|constrain|>",
            "json",
            "<|message|>",
            "<|end|>",
            "<|return|>",
            "<|call|>",
            "<|chan",
            "<|",
        ],
        Format::Llama3Json => &["<|python_tag|>", "<|python", "; ", ";"],
        Format::Granite20bFc => &["<function_call>", "<function_call", "<function"],
        Format::Xlam => &[
            "<tool_call>",
            "</tool_call>",
            "[TOOL_CALLS]",
            "```json\n",
            "[",
        ],
        Format::Apertus => &[
            "<|tools_prefix|>",
            "<|tools_suffix|>",
            "<|tools_",
            "<|inner_prefix|>",
            "[{\"f\": ",
        ],
        Format::GigaChat3 => &[
            "function call<|role_sep|>\n",
            "function call",
            "<|role_sep|>",
            "<|message_sep|>",
            "function ",
        ],
        Format::XmlToolUse => &[
            "<tool_use>",
            "</tool_use>",
            "<name>",
            "</name>",
            "<input>",
            "</input>",
            "<tool_",
        ],
        Format::XmlFunctionCall => &[
            "<function_call>",
            "</function_call>",
            "<name>",
            "</name>",
            "<arguments>",
            "</arguments>",
            "<function",
        ],
        Format::MiniMax => &["<tool_calls>", "</tool_calls>", "<tool_calls", "\n"],
        // No markers: line starts, fences and the other keys.
        Format::BareJson => &[
            "\n",
            "\n{",
            "\n[",
            "\n```json\n",
            "\n```\n",
            "  ",
            "\"tool\"",
            "\"args\"",
            "{\"tool\": \"f\", \"args\": {",
        ],
        Format::CohereCommand3 => &[
            "<|START_ACTION|>",
            "<|END_ACTION|>",
            "<|START_",
            "\"tool_name\"",
            "<|START_THINKING|>",
        ],
        // Without `<response>`: layout is dropped outside calls and is JSON
        // text inside them, which the content properties do not model (its
        // fixtures are split at every byte in tests/split.rs).
        Format::Ernie45 => &[
            "<tool_call>",
            "</tool_call>",
            "</think>",
            "<tool_call",
            "<resp",
        ],
        Format::NemotronJson => &["<TOOLCALL>", "</TOOLCALL>", "<TOOLCALL", "</TOOL", ", "],
        Format::OpenPanguV2 => &["<|tool_call_start|>", "<|tool_call_end|>", "<|tool_call"],
        Format::Sarashina => &[
            "<|tool_calls|>",
            "<|tool_calls",
            "[{'name': '",
            "', 'arguments': {",
        ],
        Format::FunctionaryV31 => &["<function=", "</function>", "<function", "</func", ">{"],
        Format::SolarOpen => &[
            "<|tool_calls|>",
            "<|tool_call:begin|>",
            "<|tool_call:name|>",
            "<|tool_call:args|>",
            "<|tool_call:end|>",
            "<|calls|>",
            "<|think|>",
            "<|end|>",
            "<|tool_call:",
        ],
        Format::Plamo3 => &[
            "<|plamo:begin_tool_requests:plamo|>",
            "<|plamo:end_tool_requests:plamo|>",
            "<|plamo:begin_tool_request:plamo|>",
            "<|plamo:end_tool_request:plamo|>",
            "<|plamo:begin_tool_name:plamo|>",
            "<|plamo:end_tool_name:plamo|>",
            "<|plamo:begin_tool_arguments:plamo|>",
            "<|plamo:end_tool_arguments:plamo|>",
            "<|plamo:constrain|>",
            "json",
            "<|plamo:msg|>",
            "<|plamo:begin_think:plamo|>",
            "<|plamo:end_think:plamo|>",
            "<|plamo:begin_tool_",
            "<|plamo:",
        ],
        Format::Inkling => &[
            "<|message_model|>",
            "f",
            "<|content_thinking|>",
            "<|content_invoke_tool_json|>",
            "<|end_message|>",
            "<|content_model_end_sampling|>",
            "\"args\"",
            "&quot;",
            "<|content_",
            "<|message",
        ],
        Format::FunctionaryV32 => &[">>>", "all\n", "f\n", ">>>all\n", ">>", "<|eot_id|>"],
        Format::Dots => &[
            "<dots_function_call>",
            "</dots_function_call>",
            "<invoke name=\"f\">",
            "</invoke>",
            "<dots_function",
            "</dots_",
        ],
        other => panic!("{other} is not a JSON format"),
    }
}

/// Marker soup for `format`.
pub fn soup(format: Format) -> impl Strategy<Value = Vec<u8>> + Clone {
    let pieces = prop::sample::select(
        markers(format)
            .iter()
            .chain(JSON_PIECES)
            .copied()
            .collect::<Vec<_>>(),
    );
    prop::collection::vec(pieces, 0..48).prop_map(|p| p.concat().into_bytes())
}

/// Strings that arguments hold: markers of every format, escapes, text.
fn string() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "</tool_call>",
        "<|tool_call_end|>",
        "<｜tool▁call▁end｜>",
        "[TOOL_CALLS]",
        "<|call|>",
        "]",
        "}",
        "\"",
        "\\",
        "\n",
        "\t",
        "\u{1}",
        "é",
        "😀",
        "東京",
        "a",
        " ",
        "```",
    ]);
    prop::collection::vec(pieces, 0..6).prop_map(|p| p.concat())
}

/// An arbitrary JSON value, up to a few levels deep.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(Value::from),
        prop::sample::select(vec![0.5, -2.5e-3, 1e21]).prop_map(Value::from),
        string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An arguments object: keys from a small set (so duplicates happen too).
pub fn arguments() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec!["city", "path", "a b", "東京", "x"]);
    prop::collection::vec((key, value()), 0..4).prop_map(|pairs| {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    })
}

/// `value` as the model writes it: compact or pretty-printed.
pub fn written(value: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(value).unwrap()
    } else {
        serde_json::to_string(value).unwrap()
    }
}

/// `value` as a Python literal (`True`, `None`; strings in JSON's quotes,
/// which Python reads alike).
fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(python_literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), python_literal(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// One to three calls in `format`'s shape, text around them, sometimes
/// cut off.
pub fn calls(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec!["get_weather", "f", "mcp.server-x.tool"]);
    let call = (name, arguments(), any::<bool>());
    let text = soup(format).prop_map(|t| String::from_utf8_lossy(&t).into_owned());
    let cut = prop::option::weighted(0.25, any::<prop::sample::Index>());
    (text.clone(), prop::collection::vec(call, 1..4), text, cut).prop_map(
        move |(before, calls, after, cut)| {
            let bodies: Vec<String> = calls
                .iter()
                .map(|(name, args, pretty)| {
                    let body = serde_json::json!({"name": name, "arguments": args});
                    written(&body, *pretty)
                })
                .collect();
            let mut out = before;
            match format {
                Format::Hermes => {
                    for body in &bodies {
                        out += &format!("<tool_call>\n{body}\n</tool_call>");
                    }
                }
                Format::LongCat => {
                    for body in &bodies {
                        out += &format!("<longcat_tool_call>{body}</longcat_tool_call>");
                    }
                }
                Format::InternLm => {
                    for body in &bodies {
                        out += &format!("<|action_start|><|plugin|>\n{body}<|action_end|>");
                    }
                }
                Format::Jamba | Format::HunyuanA13b => {
                    out += &format!("<tool_calls>[{}]</tool_calls>", bodies.join(", "));
                }
                Format::Granite => out += &format!("<|tool_call|>[{}]", bodies.join(", ")),
                Format::Phi4MiniJson => out += &format!("functools[{}]", bodies.join(", ")),
                // Bare at the start (one output in two), or after the tag.
                Format::Llama3Json if out.len() % 2 == 0 => out = bodies.join("; "),
                Format::Llama3Json => out += &format!("<|python_tag|>{}", bodies.join("; ")),
                Format::CohereCommand3 => {
                    let bodies: Vec<String> = bodies
                        .iter()
                        .map(|b| b.replacen("\"name\"", "\"tool_name\"", 1))
                        .collect();
                    out += &format!("<|START_ACTION|>[\n{}\n]<|END_ACTION|>", bodies.join(",\n"))
                }
                Format::Granite20bFc => {
                    for body in &bodies {
                        out += &format!("<function_call> {body}\n");
                    }
                }
                // Bare at the start, fenced there, or after either opener.
                Format::Xlam => {
                    let list = format!("[{}]", bodies.join(", "));
                    let bare = out.is_empty();
                    out += &match (bare, bodies.len() % 2) {
                        (true, 0) => list,
                        (true, _) => format!("```json\n{list}\n```"),
                        (false, 0) => format!("[TOOL_CALLS]{list}"),
                        (false, _) => format!("<tool_call>{list}</tool_call>"),
                    }
                }
                // Each call on a line of its own, or a list of them, bare
                // or fenced, under either name key.
                Format::BareJson => {
                    let lines: Vec<String> = bodies
                        .iter()
                        .enumerate()
                        .map(|(i, b)| match i % 2 {
                            0 => b.replacen("\"name\"", "\"tool\"", 1),
                            _ => b.replacen("\"arguments\"", "\"args\"", 1),
                        })
                        .collect();
                    out += &match (out.len() % 3, bodies.len() % 2) {
                        (0, _) => format!("\n{}\n", lines.join("\n")),
                        (1, 0) => format!("\n[{}]\n", lines.join(", ")),
                        (1, _) => format!("\n```json\n{}\n```\n", lines.join("\n")),
                        _ => format!("\n```\n[{}]\n```\n", lines.join(",\n")),
                    }
                }
                // The name as the object's only key.
                Format::Apertus => {
                    let objects: Vec<String> = calls
                        .iter()
                        .map(|(name, args, pretty)| {
                            written(&serde_json::json!({ *name: args }), *pretty)
                        })
                        .collect();
                    out += &format!("<|tools_prefix|>[{}]<|tools_suffix|>", objects.join(", "));
                }
                // One message per call.
                Format::GigaChat3 => {
                    for body in &bodies {
                        out += &format!("function call<|role_sep|>\n{body}<|message_sep|>\n\n");
                    }
                }
                // XML elements around the arguments; whitespace between them
                // in pretty calls.
                Format::XmlToolUse | Format::XmlFunctionCall => {
                    let (call, args) = match format {
                        Format::XmlToolUse => ("tool_use", "input"),
                        _ => ("function_call", "arguments"),
                    };
                    for (name, arguments, pretty) in &calls {
                        let sep = if *pretty { "\n" } else { "" };
                        let arguments = written(arguments, false);
                        out += &format!(
                            "<{call}>{sep}<name>{name}</name>{sep}<{args}>{arguments}</{args}>{sep}</{call}>"
                        );
                    }
                }
                Format::MiniMax => {
                    out += &format!("<tool_calls>\n{}\n</tool_calls>", bodies.join("\n"))
                }
                // One body per block.
                Format::Dots => {
                    for body in &bodies {
                        out += &format!("<dots_function_call>\n{body}\n</dots_function_call>\n");
                    }
                }
                Format::Ernie45 => {
                    for body in &bodies {
                        out += &format!("<tool_call>\n{body}\n</tool_call>\n");
                    }
                }
                // With the list's brackets, or (one output in two) without.
                Format::NemotronJson if out.len() % 2 == 0 => {
                    out += &format!("<TOOLCALL>[{}]</TOOLCALL>", bodies.join(", "))
                }
                Format::NemotronJson => {
                    out += &format!("<TOOLCALL>{}</TOOLCALL>", bodies.join(", "))
                }
                // A Python literal, after the marker or (one output in two)
                // bare at the start.
                Format::Sarashina => {
                    let list: Vec<String> = calls
                        .iter()
                        .map(|(name, arguments, _)| {
                            format!(
                                "{{'name': '{name}', 'arguments': {}}}",
                                python_literal(arguments)
                            )
                        })
                        .collect();
                    let list = format!("[{}]", list.join(", "));
                    if out.len() % 2 == 0 {
                        out = list;
                    } else {
                        out += &format!("<|tool_calls|>{list}");
                    }
                }
                Format::FunctionaryV31 => {
                    for (name, arguments, pretty) in &calls {
                        let arguments = written(arguments, *pretty);
                        out += &format!("<function={name}>{arguments}</function>");
                    }
                }
                // The block's end one output in two; reasoning before.
                // (Without `<|begin|>assistant<|content|>`: layout, dropped
                // outside calls, which the content properties do not model;
                // its fixtures are split at every byte in tests/split.rs.)
                Format::SolarOpen => {
                    out += "<|think|>Calling.<|end|><|tool_calls|>";
                    for (i, (name, arguments, pretty)) in calls.iter().enumerate() {
                        let arguments = written(arguments, *pretty);
                        out += &format!(
                            "<|tool_call:begin|>id{i}<|tool_call:name|>{name}\
                             <|tool_call:args|>{arguments}<|tool_call:end|>"
                        );
                    }
                    if calls.len() % 2 == 0 {
                        out += "<|calls|>";
                    }
                }
                Format::OpenPanguV2 => {
                    out += &format!(
                        "<|tool_call_start|>[{}]<|tool_call_end|>",
                        bodies.join(", ")
                    )
                }
                // A message per call, the name in its header one call in
                // two, a thinking block before and a text block after.
                Format::Inkling => {
                    for (name, arguments, pretty) in &calls {
                        let arguments = written(arguments, *pretty);
                        let header = if *pretty { "" } else { *name };
                        out += &format!(
                            "<|message_model|><|content_thinking|>Call {name}.<|end_message|>\
                             <|message_model|>{header}<|content_invoke_tool_json|>\
                             {{\"name\": \"{name}\", \"args\": {arguments}}}<|end_message|>"
                        );
                    }
                    out += "<|message_model|><|content_text|>Done.<|end_message|>";
                }
                // Each call a message, the first header (the prompt opened
                // it) without `>>>` when nothing comes before; text before
                // in an `all` message one output in two; text after the
                // last call's JSON.
                Format::FunctionaryV32 => {
                    if out.len() % 2 == 1 {
                        out = format!("all\n{out}");
                    }
                    for (i, (name, arguments, pretty)) in calls.iter().enumerate() {
                        let arguments = written(arguments, *pretty);
                        let open = if i == 0 && out.is_empty() { "" } else { ">>>" };
                        out += &format!("{open}{name}\n{arguments}");
                    }
                }
                // One request per call; the content type one call in two.
                Format::Plamo3 => {
                    out += "<|plamo:begin_tool_requests:plamo|>";
                    for (name, arguments, pretty) in &calls {
                        let arguments = written(arguments, *pretty);
                        let content_type = if *pretty {
                            "<|plamo:constrain|>json<|plamo:msg|>"
                        } else {
                            ""
                        };
                        out += &format!(
                            "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>{name}\
                             <|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>\
                             {content_type}{arguments}<|plamo:end_tool_arguments:plamo|>\
                             <|plamo:end_tool_request:plamo|>"
                        );
                    }
                    out += "<|plamo:end_tool_requests:plamo|>";
                }
                _ => {
                    for (i, (name, args, pretty)) in calls.iter().enumerate() {
                        let args = written(args, *pretty);
                        out += &match format {
                            Format::KimiK2 => format!(
                                "<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:{i}\
                                 <|tool_call_argument_begin|>{args}<|tool_call_end|>\
                                 <|tool_calls_section_end|>"
                            ),
                            Format::DeepSeekV31 => format!(
                                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>\
                                 {args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
                            ),
                            Format::DeepSeekV3 => format!(
                                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>\
                                 {name}\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
                            ),
                            Format::Mistral => format!("[TOOL_CALLS]{name}[ARGS]{args}"),
                            Format::OpenAi => format!(
                                "<|channel|>analysis<|message|>Call {name}.<|end|><|start|>assistant\
                                 <|channel|>commentary to=functions.{name} <|constrain|>json\
                                 <|message|>{args}<|call|>"
                            ),
                            other => panic!("{other} is not a JSON format"),
                        };
                    }
                }
            }
            out += &after;
            let mut out = out.into_bytes();
            if let Some(cut) = cut {
                out.truncate(cut.index(out.len()));
            }
            out
        },
    )
}
