//! `--constrain`: the grammar of exactly the calls the proxy reads, for the
//! request's tools, attached to a chat request on its way upstream, so that
//! a server started without a tool parser decodes only calls the proxy's
//! parser reads, in the model's own format.
//!
//! [`constrain`] rewrites a request object and does no I/O; [`apply`] adds
//! what the routes need around it: the flags, the log line, `/metrics`.

use serde_json::{Map, Value};
use toolcall_stream::{
    Constraint, ConstraintError, ConstraintMode, Dialect, Format, Reasoning, Tools,
};

use super::config::Config;
use super::error::ProxyError;
use super::log::RequestLog;
use super::metrics;

/// The dialect's name, as `--constrain` spells it.
pub fn dialect_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::StructuralTag => "structural-tag",
        Dialect::Gbnf => "gbnf",
        _ => "lark",
    }
}

/// Where a dialect's grammar goes in the upstream request.
pub fn fields(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::StructuralTag => "response_format",
        _ => "structured_outputs.grammar, grammar, ebnf",
    }
}

/// What was done to a request.
#[derive(Debug, PartialEq)]
pub enum Constrained {
    /// The grammar is attached and the upstream's `tool_choice` is `"none"`.
    Attached { dialect: Dialect, mode: String },
    /// `tool_choice: "none"`: no call to constrain; the request is as it came.
    NoCalls,
    /// The request carries a constraint of its own (this field): it wins.
    ClientConstraint(String),
    /// A `tool_choice` the proxy does not read: the upstream judges it.
    UnreadChoice,
    /// No grammar for this request: it goes unconstrained.
    Unconstrained(ConstraintError),
    /// The grammar could not be attached (a structural tag that is not
    /// JSON): the request goes unconstrained.
    Unattached(String),
}

impl Constrained {
    /// The label of `toolcall_proxy_constraints_total`.
    pub fn outcome(&self) -> &'static str {
        match self {
            Constrained::Attached { .. } => "attached",
            Constrained::NoCalls => "tool_choice_none",
            Constrained::ClientConstraint(_) => "client_constraint",
            Constrained::UnreadChoice => "unread_tool_choice",
            Constrained::Unconstrained(ConstraintError::Unsupported { .. }) => "unsupported",
            Constrained::Unconstrained(ConstraintError::Unsatisfiable) => "unsatisfiable",
            Constrained::Unconstrained(ConstraintError::NoTools) => "no_tools",
            Constrained::Unconstrained(_) | Constrained::Unattached(_) => "no_grammar",
        }
    }

    /// What the request's log line says.
    pub fn describe(&self) -> String {
        match self {
            Constrained::Attached { dialect, mode } => format!(
                "constrained: {} {mode} in {}, upstream tool_choice none",
                dialect_name(*dialect),
                fields(*dialect)
            ),
            Constrained::NoCalls => "not constrained: tool_choice none".to_owned(),
            Constrained::ClientConstraint(field) => {
                format!("not constrained: the request's own {field} kept")
            }
            Constrained::UnreadChoice => {
                "not constrained: a tool_choice the proxy does not read".to_owned()
            }
            Constrained::Unconstrained(error) => format!("not constrained: {error}"),
            Constrained::Unattached(why) => format!("not constrained: {why}"),
        }
    }
}

/// Constraint fields of the servers the proxy knows: a request holding one
/// (not null) has a constraint of its own.
const CLIENT_FIELDS: [&str; 6] = [
    "structured_outputs",
    "grammar",
    "ebnf",
    "regex",
    "json_schema",
    "structural_tag",
];

/// The client's own constraint, if the request has one: `response_format`
/// other than `text`, or a server's constraint field (`guided_*` too).
fn client_constraint(request: &Map<String, Value>) -> Option<String> {
    if let Some(format) = request.get("response_format") {
        let text = format.get("type").and_then(Value::as_str) == Some("text");
        if !format.is_null() && !text {
            return Some("response_format".to_owned());
        }
    }
    request
        .iter()
        .find(|(key, value)| {
            !value.is_null()
                && (CLIENT_FIELDS.contains(&key.as_str()) || key.starts_with("guided_"))
        })
        .map(|(key, _)| key.clone())
}

/// Which calls the request's `tool_choice` asks for; `Ok(None)` for
/// `"none"`, `Err(())` for one the proxy does not read.
fn mode(request: &Map<String, Value>) -> Result<Option<ConstraintMode>, ()> {
    match request.get("tool_choice") {
        None | Some(Value::Null) => Ok(Some(ConstraintMode::Lazy)),
        Some(Value::String(choice)) => match choice.as_str() {
            "auto" => Ok(Some(ConstraintMode::Lazy)),
            "required" => Ok(Some(ConstraintMode::Required)),
            "none" => Ok(None),
            _ => Err(()),
        },
        Some(Value::Object(choice)) => {
            let name = choice
                .get("function")
                .and_then(|function| function.get("name"))
                .and_then(Value::as_str);
            match (choice.get("type").and_then(Value::as_str), name) {
                (Some("function"), Some(name)) => Ok(Some(ConstraintMode::Named(name.to_owned()))),
                _ => Err(()),
            }
        }
        Some(_) => Err(()),
    }
}

/// Attaches `format`'s grammar of the calls to `tools` to the chat request
/// `request`, as its `tool_choice` and `parallel_tool_calls` ask, in
/// `dialect`, and sets its `tool_choice` to `"none"` so that the upstream
/// adds no constraint of its own (llama.cpp refuses a grammar beside tools
/// otherwise). `reasoning`: the model may write its reasoning block first
/// (the proxy splits it out: `--reasoning on|started`).
///
/// # Errors
/// A named `tool_choice` for a function not among the tools (400): the
/// model could never make that call.
pub fn constrain(
    request: &mut Map<String, Value>,
    format: Format,
    tools: &Tools,
    dialect: Dialect,
    reasoning: bool,
) -> Result<Constrained, ProxyError> {
    if let Some(field) = client_constraint(request) {
        return Ok(Constrained::ClientConstraint(field));
    }
    let mode = match mode(request) {
        Ok(Some(mode)) => mode,
        Ok(None) => return Ok(Constrained::NoCalls),
        Err(()) => return Ok(Constrained::UnreadChoice),
    };
    let parallel = !matches!(mode, ConstraintMode::Named(_))
        && request.get("parallel_tool_calls") != Some(&Value::Bool(false));
    let mode_name = match &mode {
        ConstraintMode::Lazy => "lazy".to_owned(),
        ConstraintMode::Required => "required".to_owned(),
        ConstraintMode::Named(name) => format!("named:{name}"),
    };
    let constraint = Constraint {
        mode,
        parallel,
        reasoning,
        dialect,
    };
    let grammar = match format.constraint(tools, &constraint) {
        Ok(grammar) => grammar,
        Err(ConstraintError::UnknownTool(name)) => {
            return Err(ProxyError::InvalidToolChoice(format!(
                "function `{name}` is not among the request's tools"
            )))
        }
        Err(error) => return Ok(Constrained::Unconstrained(error)),
    };
    match dialect {
        Dialect::StructuralTag => {
            // The tag as JSON, `{"type": "structural_tag", "format": …}`:
            // what vLLM and SGLang take as a `response_format`.
            let tag = match serde_json::from_str::<Value>(&grammar) {
                Ok(tag) => tag,
                Err(e) => {
                    return Ok(Constrained::Unattached(format!(
                        "the structural tag is not JSON: {e}"
                    )))
                }
            };
            request.insert("response_format".to_owned(), tag);
        }
        _ => {
            // Each server reads its own field and ignores the others:
            // vLLM `structured_outputs.grammar` (it tells Lark from EBNF),
            // llama.cpp `grammar` (Lark needs a build with llguidance),
            // SGLang `ebnf`.
            let mut outputs = Map::new();
            outputs.insert("grammar".to_owned(), Value::String(grammar.clone()));
            request.insert("structured_outputs".to_owned(), Value::Object(outputs));
            request.insert("grammar".to_owned(), Value::String(grammar.clone()));
            request.insert("ebnf".to_owned(), Value::String(grammar));
        }
    }
    request.insert("tool_choice".to_owned(), Value::String("none".to_owned()));
    Ok(Constrained::Attached {
        dialect,
        mode: mode_name,
    })
}

/// [`constrain`] as `--constrain` and `--reasoning` say (nothing when
/// off), said on the request's log line and counted in `/metrics`.
/// Whether the request changed.
///
/// # Errors
/// As [`constrain`].
pub fn apply(
    config: &Config,
    request: &mut Map<String, Value>,
    format: Format,
    tools: &Tools,
    log: &mut RequestLog,
) -> Result<bool, ProxyError> {
    let Some(dialect) = config.constrain else {
        return Ok(false);
    };
    // With `--reasoning on|started` the proxy reads a think block, so the
    // model may write one first (an upstream without a reasoning parser
    // does not hold the grammar back until the reasoning ends).
    let reasoning = config.reasoning != Reasoning::Off;
    match constrain(request, format, tools, dialect, reasoning) {
        Ok(constrained) => {
            metrics::constraint(constrained.outcome());
            log.constraint(constrained.describe());
            Ok(matches!(constrained, Constrained::Attached { .. }))
        }
        Err(error) => {
            metrics::constraint("unknown_tool");
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Tools {
        Tools::from_value(&json!([
            {"type": "function", "function": {"name": "get_weather", "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"]}}},
            {"type": "function", "function": {"name": "add", "parameters": {
                "type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}
        ]))
        .unwrap()
    }

    fn request(extra: Value) -> Map<String, Value> {
        let mut request = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
            "tools": [], "stream": true});
        let request = request.as_object_mut().unwrap();
        for (key, value) in extra.as_object().unwrap() {
            request.insert(key.clone(), value.clone());
        }
        request.clone()
    }

    fn run(extra: Value, dialect: Dialect) -> (Map<String, Value>, Constrained) {
        let mut request = request(extra);
        let done = constrain(&mut request, Format::Qwen3Coder, &tools(), dialect, false).unwrap();
        (request, done)
    }

    #[test]
    fn a_structural_tag_goes_in_response_format() {
        let (request, done) = run(json!({"tool_choice": "required"}), Dialect::StructuralTag);
        assert_eq!(
            done,
            Constrained::Attached {
                dialect: Dialect::StructuralTag,
                mode: "required".into()
            }
        );
        let expected: Value = serde_json::from_str(
            &Format::Qwen3Coder
                .constraint(
                    &tools(),
                    &Constraint {
                        dialect: Dialect::StructuralTag,
                        ..Constraint::required()
                    },
                )
                .unwrap(),
        )
        .unwrap();
        assert_eq!(request["response_format"], expected);
        assert_eq!(request["response_format"]["type"], "structural_tag");
        assert_eq!(request["tool_choice"], "none");
        for field in ["structured_outputs", "grammar", "ebnf"] {
            assert!(!request.contains_key(field), "{field}");
        }
        // The rest of the request is the client's.
        assert_eq!(request["stream"], true);
        assert_eq!(request["model"], "m");
    }

    #[test]
    fn lark_goes_in_each_servers_grammar_field() {
        let (request, done) = run(json!({}), Dialect::Lark);
        assert_eq!(
            done,
            Constrained::Attached {
                dialect: Dialect::Lark,
                mode: "lazy".into()
            }
        );
        let lark = Format::Qwen3Coder
            .constraint(&tools(), &Constraint::lazy())
            .unwrap();
        assert!(
            lark.starts_with("%llguidance"),
            "llama.cpp tells Lark by it"
        );
        assert_eq!(request["structured_outputs"], json!({"grammar": lark}));
        assert_eq!(request["grammar"], lark.as_str());
        assert_eq!(request["ebnf"], lark.as_str());
        assert_eq!(request["tool_choice"], "none");
        assert!(!request.contains_key("response_format"));
    }

    #[test]
    fn gbnf_goes_where_lark_does_or_nowhere_while_it_has_no_grammar() {
        let mut request = request(json!({"tool_choice": "auto"}));
        let before = request.clone();
        let done = constrain(
            &mut request,
            Format::Qwen3Coder,
            &tools(),
            Dialect::Gbnf,
            false,
        )
        .unwrap();
        let expected = Format::Qwen3Coder.constraint(
            &tools(),
            &Constraint {
                dialect: Dialect::Gbnf,
                ..Constraint::lazy()
            },
        );
        match expected {
            Ok(gbnf) => {
                assert!(matches!(done, Constrained::Attached { .. }));
                assert_eq!(request["grammar"], gbnf.as_str());
                assert_eq!(request["structured_outputs"]["grammar"], gbnf.as_str());
                assert_eq!(request["ebnf"], gbnf.as_str());
                assert_eq!(request["tool_choice"], "none");
            }
            Err(error) => {
                assert_eq!(done, Constrained::Unconstrained(error));
                assert_eq!(request, before);
            }
        }
    }

    #[test]
    fn tool_choice_and_parallel_calls_pick_the_grammar() {
        let grammar = |extra: Value| run(extra, Dialect::Lark).0["grammar"].clone();
        let lark = |constraint: Constraint| {
            Value::String(
                Format::Qwen3Coder
                    .constraint(&tools(), &constraint)
                    .unwrap(),
            )
        };
        assert_eq!(grammar(json!({})), lark(Constraint::lazy()));
        assert_eq!(
            grammar(json!({"tool_choice": null})),
            lark(Constraint::lazy())
        );
        assert_eq!(
            grammar(json!({"tool_choice": "auto"})),
            lark(Constraint::lazy())
        );
        assert_eq!(
            grammar(json!({"tool_choice": "required"})),
            lark(Constraint::required())
        );
        assert_eq!(
            grammar(json!({"tool_choice": "required", "parallel_tool_calls": false})),
            lark(Constraint {
                parallel: false,
                ..Constraint::required()
            })
        );
        assert_eq!(
            grammar(json!({"tool_choice": "auto", "parallel_tool_calls": true})),
            lark(Constraint::lazy())
        );
        assert_eq!(
            grammar(json!({"tool_choice": {"type": "function", "function": {"name": "add"}}})),
            lark(Constraint::named("add"))
        );
        // Each mode is its own grammar.
        assert_ne!(lark(Constraint::lazy()), lark(Constraint::required()));
        // Reasoning lets the think block come first.
        let mut request = request(json!({"tool_choice": "required"}));
        constrain(
            &mut request,
            Format::Qwen3Coder,
            &tools(),
            Dialect::Lark,
            true,
        )
        .unwrap();
        assert_eq!(
            request["grammar"],
            lark(Constraint {
                reasoning: true,
                ..Constraint::required()
            })
        );
    }

    #[test]
    fn no_calls_or_an_unread_choice_leave_the_request_alone() {
        for (choice, expected) in [
            (json!("none"), Constrained::NoCalls),
            (json!("sometimes"), Constrained::UnreadChoice),
            (json!({"type": "function"}), Constrained::UnreadChoice),
            (
                json!({"type": "allowed_tools", "allowed_tools": {}}),
                Constrained::UnreadChoice,
            ),
            (json!(3), Constrained::UnreadChoice),
        ] {
            let mut request = request(json!({ "tool_choice": choice }));
            let before = request.clone();
            let done = constrain(
                &mut request,
                Format::Qwen3Coder,
                &tools(),
                Dialect::StructuralTag,
                false,
            )
            .unwrap();
            assert_eq!(done, expected, "{choice}");
            assert_eq!(request, before, "{choice}");
        }
    }

    #[test]
    fn the_clients_own_constraint_wins() {
        for (extra, field) in [
            (
                json!({"response_format": {"type": "json_object"}}),
                "response_format",
            ),
            (
                json!({"response_format": {"type": "json_schema", "json_schema": {}}}),
                "response_format",
            ),
            (
                json!({"structured_outputs": {"regex": "a+"}}),
                "structured_outputs",
            ),
            (json!({"grammar": "root ::= \"a\""}), "grammar"),
            (json!({"ebnf": "root ::= \"a\""}), "ebnf"),
            (json!({"guided_json": {}}), "guided_json"),
            (json!({"guided_grammar": "x"}), "guided_grammar"),
        ] {
            let mut request = request(extra.clone());
            let before = request.clone();
            let done = constrain(
                &mut request,
                Format::Qwen3Coder,
                &tools(),
                Dialect::Lark,
                false,
            )
            .unwrap();
            assert_eq!(done, Constrained::ClientConstraint(field.into()), "{extra}");
            assert_eq!(request, before, "{extra}");
            assert!(done.describe().contains(field));
        }
        // A text response_format, or a null field, constrains nothing.
        for extra in [
            json!({"response_format": {"type": "text"}}),
            json!({"response_format": null, "grammar": null, "guided_json": null}),
        ] {
            let (_, done) = run(extra.clone(), Dialect::Lark);
            assert!(matches!(done, Constrained::Attached { .. }), "{extra}");
        }
    }

    #[test]
    fn a_format_without_a_grammar_goes_unconstrained() {
        // A format of one's own in a shape with no grammar: JSON calls in
        // a wrapper, or bare at any line's start.
        let unsupported = toolcall_stream::FormatBuilder::new("lines_and_tags")
            .marker(toolcall_stream::Role::CallOpen, "<tool_call>")
            .marker(toolcall_stream::Role::CallClose, "</tool_call>")
            .json_body(["name"], ["arguments"], false)
            .json_open_unmarked(false, true)
            .build()
            .unwrap();
        let mut request = request(json!({"tool_choice": "required"}));
        let before = request.clone();
        let done = constrain(&mut request, unsupported, &tools(), Dialect::Lark, false).unwrap();
        assert!(
            matches!(
                &done,
                Constrained::Unconstrained(ConstraintError::Unsupported { .. })
            ),
            "{done:?}"
        );
        assert_eq!(done.outcome(), "unsupported");
        assert!(done
            .describe()
            .starts_with("not constrained: no grammar for"));
        assert_eq!(request, before);
    }

    #[test]
    fn unsatisfiable_calls_go_unconstrained() {
        let tools = Tools::from_value(&json!([{"type": "function", "function": {"name": "f",
            "parameters": {"type": "object", "properties": {"x": false}, "required": ["x"]}}}]))
        .unwrap();
        let mut request = request(json!({"tool_choice": "required"}));
        let done = constrain(
            &mut request,
            Format::Qwen3Coder,
            &tools,
            Dialect::Lark,
            false,
        )
        .unwrap();
        assert_eq!(
            done,
            Constrained::Unconstrained(ConstraintError::Unsatisfiable)
        );
        assert_eq!(done.outcome(), "unsatisfiable");
        assert_eq!(request["tool_choice"], "required");
    }

    #[test]
    fn a_named_tool_not_among_the_tools_is_refused() {
        let mut request =
            request(json!({"tool_choice": {"type": "function", "function": {"name": "nope"}}}));
        let error = constrain(
            &mut request,
            Format::Qwen3Coder,
            &tools(),
            Dialect::StructuralTag,
            false,
        )
        .unwrap_err();
        assert!(matches!(error, ProxyError::InvalidToolChoice(_)));
        assert_eq!(error.status(), 400);
        assert_eq!(error.body()["error"]["param"], "tool_choice");
        assert!(error.to_string().contains("`nope`"), "{error}");
    }
}
