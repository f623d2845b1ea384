use super::*;

fn translate(tools: Value) -> (ChatTools, Vec<String>) {
    let mut notes = Vec::new();
    let translated = translate_tools(Some(&tools), &mut notes).unwrap();
    (translated, notes)
}

#[test]
fn function_tools_are_nested_and_get_default_parameters() {
    let (translated, notes) = translate(json!([
        {"type": "function", "name": "ls", "description": "List files.", "strict": true,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"type": "function", "name": "now"},
    ]));
    assert_eq!(
        translated.tools,
        vec![
            json!({"type": "function", "function": {"name": "ls", "description": "List files.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}),
            json!({"type": "function", "function": {"name": "now",
                "parameters": {"type": "object", "properties": {}}}}),
        ]
    );
    assert!(notes.is_empty());
    assert_eq!(
        translated.map.identify("ls"),
        ToolIdentity {
            kind: CallKind::Function,
            name: "ls".into(),
            namespace: None
        }
    );
}

#[test]
fn a_chat_shaped_function_tool_is_read_too() {
    let (translated, _) = translate(json!([
        {"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}},
    ]));
    assert_eq!(
        translated.tools[0],
        json!({"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}})
    );
}

#[test]
fn a_custom_tool_becomes_a_function_of_one_string() {
    let grammar = "start: begin_patch hunk+ end_patch";
    let (translated, _) = translate(json!([{"type": "custom", "name": "apply_patch",
        "description": "Edit files.",
        "format": {"type": "grammar", "syntax": "lark", "definition": grammar}}]));
    let function = &translated.tools[0]["function"];
    assert_eq!(function["name"], "apply_patch");
    assert_eq!(function["description"], "Edit files.");
    assert_eq!(function["parameters"]["required"], json!(["input"]));
    let input = function["parameters"]["properties"]["input"].clone();
    assert_eq!(input["type"], "string");
    let description = input["description"].as_str().unwrap();
    assert!(description.ends_with(&format!("lark grammar:\n{grammar}")));
    assert_eq!(
        translated.map.identify("apply_patch").kind,
        CallKind::Custom
    );

    let long = "x".repeat(MAX_GRAMMAR_BYTES);
    let (translated, _) = translate(json!([{"type": "custom", "name": "p",
        "format": {"type": "grammar", "syntax": "lark", "definition": long}}]));
    let description = translated.tools[0]["function"]["parameters"]["properties"]["input"]
        ["description"]
        .as_str()
        .unwrap();
    assert!(!description.contains("grammar"));
}

#[test]
fn namespaces_are_flattened_as_codex_flattens_names_and_split_again() {
    let (translated, notes) = translate(json!([
        {"type": "namespace", "name": "mcp__docs__", "description": "Docs server.", "tools": [
            {"type": "function", "name": "search", "parameters": {"type": "object"}},
            {"type": "custom", "name": "_raw"},
        ]},
        {"type": "namespace", "name": "mcp__web", "description": "The web.", "tools": [
            {"type": "function", "name": "search", "description": "Search it."},
            {"type": "function", "name": "fetch"},
        ]},
    ]));
    assert!(notes.is_empty());
    assert_eq!(
        translated.tools[0]["function"]["description"],
        "Docs server."
    );
    assert!(translated.tools[1]["function"].get("description").is_none());
    let names: Vec<&str> = translated
        .tools
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "mcp__docs__search",
            "mcp__docs__raw",
            "mcp__web__search",
            "mcp__web__fetch"
        ]
    );
    let map = &translated.map;
    assert_eq!(
        map.identify("mcp__docs__search"),
        ToolIdentity {
            kind: CallKind::Function,
            name: "search".into(),
            namespace: Some("mcp__docs__".into())
        }
    );
    assert_eq!(map.identify("mcp__docs__raw").kind, CallKind::Custom);
    assert_eq!(
        translated.tools[2]["function"]["description"],
        "The web.\n\nSearch it."
    );
    // A member called by its own name: found when no other namespace has it.
    assert_eq!(map.identify("fetch").namespace.as_deref(), Some("mcp__web"));
    assert_eq!(map.identify("search").namespace, None);
    assert_eq!(map.identify("unknown").name, "unknown");
    assert_eq!(
        map.chat_name_of(Some("mcp__web"), "fetch"),
        "mcp__web__fetch"
    );
    assert_eq!(map.chat_name_of(None, "fetch"), "mcp__web__fetch");
}

#[test]
fn hosted_tools_and_duplicates_are_dropped_with_notes() {
    let (translated, notes) = translate(json!([
        {"type": "web_search", "external_web_access": true},
        {"type": "function", "name": "ls"},
        {"type": "local_shell"},
        {"type": "function", "name": "ls"},
        {"type": "namespace", "name": "n", "tools": [{"type": "web_search_preview"}]},
    ]));
    assert_eq!(translated.tools.len(), 1);
    assert_eq!(
        notes,
        [
            "tools[0]: the `web_search` tool cannot be offered to a chat completions upstream; dropped",
            "tools[2]: the `local_shell` tool cannot be offered to a chat completions upstream; dropped",
            "tools[3]: a second tool named `ls`; dropped",
            "tools[4].tools[0]: the `web_search_preview` tool cannot be offered to a chat completions upstream; dropped",
        ]
    );
}

#[test]
fn malformed_tools_are_errors_naming_the_field() {
    for (tools, words) in [
        (json!({"type": "function"}), "tools: expected a list"),
        (json!([{"type": "function"}]), "tools[0].name"),
        (json!([{"name": "ls"}]), "tools[0].type"),
        (
            json!([{"type": "function", "name": "ls", "parameters": "x"}]),
            "tools[0].parameters",
        ),
        (
            json!([{"type": "namespace", "name": "n"}]),
            "tools[0].tools",
        ),
        (json!(["ls"]), "tools[0]: expected a tool object"),
    ] {
        let error = translate_tools(Some(&tools), &mut Vec::new()).unwrap_err();
        assert!(error.message.contains(words), "{}", error.message);
        assert!(error.param.unwrap().starts_with("tools"));
    }
}

#[test]
fn tool_choice_is_translated() {
    let (translated, _) = translate(json!([
        {"type": "function", "name": "ls"},
        {"type": "custom", "name": "apply_patch"},
        {"type": "namespace", "name": "mcp__docs", "tools": [{"type": "function", "name": "search"}]},
    ]));
    let map = &translated.map;
    let mut notes = Vec::new();
    let mut choice = |value: Value| translate_tool_choice(Some(&value), map, &mut notes);
    for mode in ["auto", "none", "required"] {
        assert_eq!(choice(json!(mode)).unwrap(), Some(json!(mode)));
    }
    assert_eq!(
        choice(json!({"type": "function", "name": "ls"})).unwrap(),
        Some(json!({"type": "function", "function": {"name": "ls"}}))
    );
    assert_eq!(
        choice(json!({"type": "custom", "name": "apply_patch"})).unwrap(),
        Some(json!({"type": "function", "function": {"name": "apply_patch"}}))
    );
    assert_eq!(
        choice(json!({"type": "function", "name": "search", "namespace": "mcp__docs"})).unwrap(),
        Some(json!({"type": "function", "function": {"name": "mcp__docs__search"}}))
    );
    assert_eq!(
        choice(json!({"type": "allowed_tools", "mode": "required", "tools": []})).unwrap(),
        Some(json!("required"))
    );
    assert_eq!(
        choice(json!({"type": "web_search_preview"})).unwrap(),
        Some(json!("auto"))
    );
    assert!(choice(json!("sometimes")).is_err());
    assert!(choice(json!({"name": "ls"})).is_err());
    assert!(choice(json!(3)).is_err());
    assert_eq!(notes.len(), 2);
    assert_eq!(translate_tool_choice(None, map, &mut notes).unwrap(), None);
}
