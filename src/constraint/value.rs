//! A parameter's value as the grammar admits it, by its schema: JSON text
//! for every type but a string (the parser's ladder reads it as JSON, and
//! llguidance's `%json` checks it against the schema, bounds and all), a
//! string's own text where a string may stand.

use serde_json::{json, Map, Value};

const SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The JSON Schema keywords a value's grammar keeps.
const KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
];

/// The JSON types of a `type` keyword, without those JSON Schema does not
/// name (a tool's `"type": "custom_type"`); `None` when none is left.
fn known_types(value: &Value) -> Option<Value> {
    const TYPES: &[&str] = &[
        "string", "integer", "number", "boolean", "null", "object", "array",
    ];
    match value {
        Value::String(t) if TYPES.contains(&t.as_str()) => Some(value.clone()),
        Value::Array(ts) => {
            let kept: Vec<Value> = ts
                .iter()
                .filter(|t| t.as_str().is_some_and(|t| TYPES.contains(&t)))
                .cloned()
                .collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        _ => None,
    }
}

/// How a value is written.
pub(super) enum ValueGrammar {
    /// Text with no marker in it, up to the closer: a string, or a value
    /// of no declared type, as written.
    Text,
    /// One of these texts, as written (a string `enum` or `const`).
    Choice(Vec<String>),
    /// JSON against this schema.
    Json(Value),
    /// No value satisfies the schema (`false`, an empty `enum`).
    Never,
}

/// Whether no value satisfies `schema`.
pub(super) fn is_never(schema: &Value) -> bool {
    match schema {
        Value::Bool(false) => true,
        Value::Object(object) => {
            matches!(object.get("enum"), Some(Value::Array(v)) if v.is_empty())
        }
        _ => false,
    }
}

/// The grammar of a marked-up value whose schema is `schema`, a property of
/// the tool's `parameters` (`tool`), in a format whose JSON strings may
/// hold none of `starts`.
pub(super) fn of(schema: &Value, tool: &Value, starts: &str) -> ValueGrammar {
    let json = || ValueGrammar::Json(rooted(reads_back(schema, starts), tool, starts));
    // What the value is, through a `$ref` to the tool's definitions.
    let resolved = resolve(schema, tool);
    if is_never(resolved) {
        return ValueGrammar::Never;
    }
    let Some(object) = resolved.as_object() else {
        return ValueGrammar::Text;
    };
    let strings = |values: &[Value]| -> Option<Vec<String>> {
        values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    if let Some(choice) = object.get("const") {
        if let Some(texts) = strings(std::slice::from_ref(choice)) {
            return ValueGrammar::Choice(texts);
        }
        return json();
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        if let Some(texts) = strings(values) {
            return ValueGrammar::Choice(texts);
        }
        return json();
    }
    if may_be_string(object) {
        // A string among other types widens the value to any text: the
        // ladder reads it as one of them, or as the string.
        return ValueGrammar::Text;
    }
    json()
}

/// `schema`, or what its `$ref` names among the tool's definitions
/// (`#/$defs/NAME`, `#/definitions/NAME`), a few steps deep.
pub(super) fn resolve<'a>(mut schema: &'a Value, tool: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let Some(target) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let found = ["$defs", "definitions"].iter().find_map(|key| {
            let name = target.strip_prefix(&format!("#/{key}/"))?;
            tool.get(*key)?.get(name)
        });
        match found {
            Some(next) => schema = next,
            None => break,
        }
    }
    schema
}

/// `schema` narrowed so that the parser reads its JSON back as written: it
/// reads a marked-up value as text, and acts on a marker inside it even
/// within a JSON string, so strings without a pattern of their own may
/// hold no byte that starts a marker, and objects no key beyond their
/// declared ones; integers stay within what a float holds exactly.
pub(super) fn reads_back(schema: &Value, starts: &str) -> Value {
    let Value::Object(object) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in object {
        if !KEYWORDS.contains(&key.as_str()) {
            // Annotations, and what the grammar does not check (`format`,
            // `not`, `if`): widened, never refused.
            continue;
        }
        let value = match key.as_str() {
            "properties" | "$defs" | "definitions" => match value {
                Value::Object(props) => Value::Object(
                    props
                        .iter()
                        .map(|(k, v)| (k.clone(), reads_back(v, starts)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "items" | "additionalProperties" | "not" => reads_back(value, starts),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value {
                Value::Array(list) => {
                    Value::Array(list.iter().map(|v| reads_back(v, starts)).collect())
                }
                other => other.clone(),
            },
            "type" => match known_types(value) {
                Some(types) => types,
                None => continue,
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    let is = |t: &str| match object.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x == t),
        _ => false,
    };
    // The parser checks no pattern; a marker in a string it would act on.
    if is("string") && !starts.is_empty() {
        let class = escape(starts, "\\]^-[");
        out.insert("pattern".into(), Value::from(format!("^[^{class}]*$")));
    }
    // Integers the parser holds exactly (2^53 - 1, as JavaScript's safe
    // integers): a longer run of digits reads back as a float.
    // A number within them too: unbounded, a JSON number may overflow a
    // float (`2e861975`), which the parser then keeps as text. (Bounded,
    // llguidance writes it without an exponent.)
    if is("integer") || is("number") {
        out.entry("minimum").or_insert(Value::from(-SAFE_INTEGER));
        out.entry("maximum").or_insert(Value::from(SAFE_INTEGER));
    }
    // Declared properties are the object's keys; an object with none
    // declared keeps what its schema allows.
    if is("object") && out.contains_key("properties") {
        out.entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    if starts.is_empty() {
        // Any items, said (xgrammar takes an array with no `items` next to
        // `$defs` for one with none).
        if is("array") && !out.contains_key("items") {
            out.insert("items".into(), json!({}));
        }
        return Value::Object(out);
    }
    // Where the schema leaves the JSON free, strings and keys still hold
    // no marker: free parts are `toolcall_any`, and free keys match the
    // key pattern (llguidance has no `propertyNames`).
    let free = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref"]
        .iter()
        .all(|key| !out.contains_key(*key));
    if free {
        return json!({ "$ref": ANY });
    }
    if is("object") && out.get("additionalProperties") != Some(&Value::Bool(false)) {
        let extra = match out.remove("additionalProperties") {
            Some(schema @ Value::Object(_)) => schema,
            _ => json!({ "$ref": ANY }),
        };
        let pattern = format!("^[^{}]*$", escape(starts, "\\]^-["));
        out.insert("patternProperties".into(), json!({ pattern: extra }));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    if is("array") && !out.contains_key("items") {
        out.insert("items".into(), json!({ "$ref": ANY }));
    }
    Value::Object(out)
}

/// Where [`any_without`]'s schema is kept in a value's schema.
const ANY: &str = "#/$defs/toolcall_any";

/// Any JSON whose strings and keys hold none of `starts`.
fn any_without(starts: &str) -> Value {
    let pattern = format!("^[^{}]*$", escape(starts, "\\]^-["));
    json!({"anyOf": [
        {"type": "string", "pattern": pattern},
        {"type": ["number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": ANY}},
        {"type": "object", "patternProperties": {pattern.clone(): {"$ref": ANY}},
            "additionalProperties": false},
    ]})
}

/// `schema`, the root of a value's grammar, made whole: the definitions
/// of the tool's `parameters` (`tool`), which its `$ref`s name from the
/// root, and `toolcall_any` where [`reads_back`] used it.
pub(super) fn rooted(mut schema: Value, tool: &Value, starts: &str) -> Value {
    let text = schema.to_string();
    let uses_any = !starts.is_empty() && text.contains(ANY);
    let Value::Object(root) = &mut schema else {
        return schema;
    };
    for key in ["$defs", "definitions"] {
        if !text.contains(&format!("\"#/{key}/")) {
            continue;
        }
        if let Some(Value::Object(defs)) = tool.get(key) {
            let into = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(into) = into {
                for (name, def) in defs {
                    into.entry(name.clone())
                        .or_insert_with(|| reads_back(def, starts));
                }
            }
        }
    }
    if uses_any {
        let defs = root
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            defs.insert("toolcall_any".into(), any_without(starts));
        }
    }
    schema
}

/// Whether a value of the schema may be a string (or its type is not said).
fn may_be_string(object: &Map<String, Value>) -> bool {
    let alternatives = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| object.get(*key)?.as_array())
        .flatten()
        .collect::<Vec<_>>();
    if !alternatives.is_empty() {
        return alternatives
            .iter()
            .any(|alt| alt.as_object().map_or(true, may_be_string));
    }
    // A type JSON Schema does not name reads as text, as any value may.
    match object.get("type").map(|t| (t, known_types(t))) {
        None | Some((_, None)) => true,
        Some((Value::String(t), _)) => t == "string",
        Some((_, Some(Value::Array(types)))) => types.iter().any(|t| t == "string"),
        Some(_) => true,
    }
}

/// `text` with a backslash before each of `meta`.
pub(super) fn escape(text: &str, meta: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if meta.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `schema`, an object's, with no key beyond its declared ones unless it
/// says otherwise: the parser reports an undeclared parameter.
pub(super) fn closed_object(schema: &Value) -> Value {
    let mut schema = match schema {
        Value::Object(object) => object.clone(),
        _ => Map::new(),
    };
    schema
        .entry("type")
        .or_insert_with(|| Value::from("object"));
    schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    schema
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of_alone(schema: Value) -> ValueGrammar {
        of(&schema, &Value::Null, "<")
    }

    fn json_of(schema: Value) -> Value {
        match of_alone(schema) {
            ValueGrammar::Json(schema) => schema,
            _ => panic!("not JSON"),
        }
    }

    #[test]
    fn each_schema_is_written_as_the_parser_reads_it() {
        assert!(matches!(
            of_alone(json!({"type": "string"})),
            ValueGrammar::Text
        ));
        assert!(matches!(of_alone(json!({})), ValueGrammar::Text));
        assert!(matches!(
            of_alone(json!({"type": "custom_type"})),
            ValueGrammar::Text
        ));
        assert!(matches!(
            of_alone(json!({"type": ["string", "null"]})),
            ValueGrammar::Text
        ));
        assert!(matches!(of_alone(json!({"enum": []})), ValueGrammar::Never));
        match of_alone(json!({"enum": ["metric", "imperial"]})) {
            ValueGrammar::Choice(texts) => assert_eq!(texts, ["metric", "imperial"]),
            _ => panic!("a string enum is a choice of texts"),
        }
        assert_eq!(
            json_of(json!({"type": "integer", "minimum": 1, "description": "days"})),
            json!({"type": "integer", "minimum": 1, "maximum": SAFE_INTEGER})
        );
        // Strings inside JSON hold no marker's first character; declared
        // keys are the only ones; `format` and `pattern` do not survive.
        assert_eq!(
            json_of(
                json!({"type": "object", "properties": {"p": {"type": "string",
                "format": "uri", "pattern": "^/.*"}}})
            ),
            json!({"type": "object", "additionalProperties": false,
                "properties": {"p": {"type": "string", "pattern": "^[^<]*$"}}})
        );
        // An object with no declared property keeps its free keys, and
        // they and its strings, at any depth, hold no marker.
        let free = json_of(json!({"type": "object"}));
        assert_eq!(free["patternProperties"]["^[^<]*$"], json!({"$ref": ANY}));
        assert_eq!(free["additionalProperties"], json!(false));
        assert_eq!(free["$defs"]["toolcall_any"], any_without("<"));
        // A `$ref` finds the tool's definitions at the value's root.
        let tool = json!({"$defs": {"Depth": {"type": "integer"}}});
        match of(&json!({"$ref": "#/$defs/Depth"}), &tool, "<") {
            ValueGrammar::Json(schema) => {
                assert_eq!(schema["$ref"], "#/$defs/Depth");
                assert_eq!(schema["$defs"]["Depth"]["type"], "integer");
            }
            _ => panic!("a $ref to an integer is JSON"),
        }
    }
}
