use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{json, Value};

use super::python_literal;
use super::shape::ShapeReader;
use super::{coerce_into, coerce_shape_into, infer_into, Outcome, ShapeRef, TypeSet, Typing};

/// One row of the ladder table, shared with `check_vllm.py`, which checks
/// every row against vLLM's own functions (or seed 000's for `infer`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// The parameter's schema (`null` for `infer` rows).
    schema: Value,
    /// The document `$ref`s resolve in.
    #[serde(default)]
    root: Option<Value>,
    text: String,
    /// The exact JSON text we write.
    json: String,
    outcome: String,
    /// The outcome of the first value inside it that was not typed
    /// cleanly, if one was not.
    #[serde(default)]
    inner: Option<String>,
    #[serde(default)]
    python_literals: bool,
    /// A `Typing::Infer` row: `infer_into`, no schema.
    #[serde(default)]
    infer: bool,
    /// What vLLM gives where we differ on purpose, and why.
    #[serde(default)]
    vllm: Option<String>,
    #[serde(default)]
    why: Option<String>,
}

const CASES: &str = include_str!("../../tests/schema_ladder/cases.json");

fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Typed => "typed",
        Outcome::Lenient(_) => "lenient",
        Outcome::JsonOutsideTypes => "json_outside_types",
        Outcome::Invalid => "invalid",
    }
}

#[test]
fn the_ladder_table() {
    let cases: Vec<Case> = serde_json::from_str(CASES).expect("cases.json parses");
    assert!(cases.len() > 150, "the table lost rows");
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        assert_eq!(
            case.vllm.is_some(),
            case.why.is_some(),
            "row {i}: a difference needs a why"
        );
        // Written after existing text, to check that coercion appends.
        let mut out = String::from("prefix:");
        let mut inner = None;
        let outcome = if case.infer {
            infer_into(&case.text, &mut out);
            "typed"
        } else {
            let root = case.root.as_ref().unwrap_or(&case.schema);
            let types = TypeSet::from_schema(&case.schema, Some(root));
            let mut shapes = ShapeReader::new(root);
            let id = shapes.read(&[&case.schema]);
            let shapes = shapes.finish();
            let shape = id.map(|id| ShapeRef {
                shapes: &shapes,
                id,
            });
            let typed = coerce_shape_into(&case.text, types, shape, case.python_literals, &mut out);
            inner = typed.inner.map(|inner| outcome_name(inner.outcome));
            outcome_name(typed.outcome)
        };
        if inner != case.inner.as_deref() {
            failures.push(format!(
                "row {i} {:?} for {}: inner {inner:?}, want {:?}",
                case.text, case.schema, case.inner
            ));
        }
        let written = out.strip_prefix("prefix:").expect("coercion only appends");
        if written != case.json || outcome != case.outcome {
            failures.push(format!(
                "row {i} {:?} for {}: wrote {written} ({outcome}), want {} ({})",
                case.text, case.schema, case.json, case.outcome
            ));
        }
        if let Err(e) = serde_json::from_str::<Value>(written) {
            failures.push(format!("row {i}: {written} is not JSON: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lenient_outcomes_say_why() {
    let mut out = String::new();
    let outcome = coerce_into("(1, 2)", TypeSet::ARRAY, true, &mut out);
    assert_eq!(outcome, Outcome::Lenient("python literal"));
}

#[test]
fn from_schema_reads_types_names_and_unions() {
    let cases = [
        (json!({"type": "integer"}), TypeSet::INTEGER),
        (
            json!({"type": ["integer", "null"]}),
            TypeSet::INTEGER.union(TypeSet::NULL),
        ),
        (
            json!({"type": ["STR", 3, "dict"]}),
            TypeSet::STRING.union(TypeSet::OBJECT),
        ),
        (json!({"type": "any"}), TypeSet::OTHER),
        (
            json!({"enum": [1, 1.5, "a", true, null, [], {}]}),
            TypeSet(0x7f),
        ),
        (
            json!({"anyOf": [{"type": "integer"}, {}]}),
            TypeSet::INTEGER.union(TypeSet::STRING),
        ),
        // `const` is a one-value `enum`: its value's type.
        (json!({"const": 5}), TypeSet::INTEGER),
        (json!({"type": "integer", "const": 5}), TypeSet::INTEGER),
        (json!({"const": "5"}), TypeSet::STRING),
        (json!({"const": 2.5}), TypeSet::NUMBER),
        (json!({"const": null}), TypeSet::NULL),
        (json!({"const": false}), TypeSet::BOOLEAN),
        (json!({"const": {"a": 1}}), TypeSet::OBJECT),
        (
            json!({"anyOf": [{"const": 1}, {"const": "auto"}]}),
            TypeSet::INTEGER.union(TypeSet::STRING),
        ),
        (json!({}), TypeSet::STRING),
        (json!("integer"), TypeSet::STRING),
        (json!(null), TypeSet::STRING),
        (json!({"$ref": "#/$defs/X"}), TypeSet::STRING),
    ];
    for (schema, want) in cases {
        assert_eq!(TypeSet::from_schema(&schema, None), want, "{schema}");
    }
}

#[test]
fn reference_cycles_and_blowups_end() {
    // Each definition refers twice to the next: 2^40 paths without a budget.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert("D40".into(), json!({"type": "boolean"}));
    defs.insert(
        "Self".into(),
        json!({"anyOf": [{"$ref": "#/$defs/Self"}, {"type": "null"}]}),
    );
    let root = json!({"$defs": defs});
    let types = TypeSet::from_schema(&json!({"$ref": "#/$defs/D0"}), Some(&root));
    assert!(!types.is_empty());
    let types = TypeSet::from_schema(&json!({"$ref": "#/$defs/Self"}), Some(&root));
    assert!(types.contains(TypeSet::NULL));
}

#[test]
fn type_sets_combine_and_read_as_prose() {
    let nullable = TypeSet::INTEGER.union(TypeSet::NULL);
    assert!(nullable.contains(TypeSet::NULL));
    assert!(!nullable.contains(TypeSet::STRING));
    assert!(!nullable.is_empty() && !nullable.is_string_only());
    assert!(TypeSet::EMPTY.is_empty() && TypeSet::EMPTY.is_string_only());
    assert!(TypeSet::STRING.is_string_only());
    assert!(!TypeSet::STRING.union(TypeSet::NULL).is_string_only());
    assert_eq!(TypeSet::default(), TypeSet::EMPTY);
    let prose = [
        (nullable, "integer or null"),
        (TypeSet::STRING, "string"),
        (TypeSet::EMPTY, "string"),
        (
            TypeSet::STRING
                .union(TypeSet::NUMBER)
                .union(TypeSet::BOOLEAN),
            "string, number or boolean",
        ),
        (TypeSet::OTHER, "other"),
    ];
    for (types, want) in prose {
        assert_eq!(types.to_string(), want);
    }
}

#[test]
fn typing_names_round_trip() {
    for typing in Typing::ALL {
        assert_eq!(typing.to_string().parse::<Typing>(), Ok(typing));
    }
    assert_eq!("Strings".parse::<Typing>(), Ok(Typing::Strings));
    assert_eq!(Typing::default(), Typing::Schema);
    let error = "json".parse::<Typing>().unwrap_err().to_string();
    assert_eq!(
        error,
        "unknown typing \"json\"; known typings: schema, infer, strings"
    );
}

#[test]
fn python_literal_edge_cases() {
    let cases: [(&str, Option<&str>); 17] = [
        (
            "{'a': [1, (2, 3)], 'b': ()}",
            Some(r#"{"a": [1, [2, 3]], "b": []}"#),
        ),
        ("(1)", Some("1")),
        ("('x' , )", Some(r#"["x"]"#)),
        ("  'tab\\there'  ", Some(r#""tab\there""#)),
        (r"'\x41\u00e9\U0001F600\101\q'", Some(r#""Aé😀A\\q""#)),
        ("\"it's\"", Some(r#""it's""#)),
        (
            "{True: None, 2.5: -1}",
            Some(r#"{"true": null, "2.5": -1}"#),
        ),
        ("[1e400]", None),
        ("[nan]", None),
        ("'unterminated", None),
        ("'\\ud800'", None),
        ("{'a' 1}", None),
        ("[1 2]", None),
        ("[1,,]", None),
        ("{1, 2}", None),
        ("[1] x", None),
        ("", None),
    ];
    for (text, want) in cases {
        let mut out = String::from("kept");
        let converted = python_literal::convert_into(text, &mut out);
        match want {
            Some(json) => {
                assert!(converted, "{text:?} should convert");
                assert_eq!(&out["kept".len()..], json, "{text:?}");
            }
            None => {
                assert!(!converted, "{text:?} should not convert, gave {out}");
                assert_eq!(
                    out, "kept",
                    "a failed conversion leaves the output as it was"
                );
            }
        }
    }
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    let mut out = String::new();
    assert!(!python_literal::convert_into(&deep, &mut out));
    let fine = "(".repeat(100) + "1," + &")".repeat(100);
    assert!(python_literal::convert_into(&fine, &mut out));
    serde_json::from_str::<Value>(&out).unwrap();
}

fn any_type_set() -> impl Strategy<Value = TypeSet> {
    any::<u8>().prop_map(TypeSet)
}

/// Text near the ladder's decisions: numbers, literals, brackets, quotes.
fn ladder_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[-+ 0-9_.eE]{0,12}",
        "(?i)[ ]?(null|none|true|false|nan|inf|infinity|0|1)[ ]?",
        r#"[\[\](){}'",: 0-9a-zA-Z\\_.-]{0,24}"#,
    ]
}

proptest! {
    #[test]
    fn coercion_always_writes_one_json_value(
        text in ladder_text(),
        types in any_type_set(),
        python_literals in any::<bool>(),
    ) {
        let mut out = String::from("[");
        let outcome = coerce_into(&text, types, python_literals, &mut out);
        prop_assert!(out.starts_with('['));
        let written = &out[1..];
        let value: Value = serde_json::from_str(written)
            .map_err(|e| TestCaseError::fail(format!("{written:?} for {text:?}: {e}")))?;
        if outcome == Outcome::Invalid {
            prop_assert_eq!(&value, &Value::String(text.clone()));
        }
        if types.is_string_only() {
            prop_assert_eq!(outcome, Outcome::Typed);
            prop_assert_eq!(value, Value::String(text));
        }
    }

    #[test]
    fn inference_always_writes_one_json_value(text in ladder_text()) {
        let mut out = String::new();
        infer_into(&text, &mut out);
        prop_assert!(serde_json::from_str::<Value>(&out).is_ok(), "{:?} for {:?}", out, text);
    }

    #[test]
    fn python_literals_convert_to_json_or_leave_no_trace(text in ladder_text()) {
        let mut out = String::from("x");
        if python_literal::convert_into(&text, &mut out) {
            prop_assert!(serde_json::from_str::<Value>(&out[1..]).is_ok(), "{:?} for {:?}", out, text);
        } else {
            prop_assert_eq!(out, "x");
        }
    }

    #[test]
    fn python_literals_of_json_values_convert_to_the_same_values(value in json_value()) {
        let text = value.to_string();
        let mut out = String::new();
        prop_assert!(python_literal::convert_into(&text, &mut out), "{}", text);
        // Both through serde_json's parser, whose float reading may be off
        // by one ulp from `value` (no `float_roundtrip` feature).
        let back: Value = serde_json::from_str(&out).unwrap();
        let reread: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(back, reread);
    }
}

/// JSON values whose numbers survive a trip through f64 unchanged.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Writes our coercion of every `{"text", "types" or "schema"}` line of the JSON Lines
/// file `$LADDER_DIFF_IN` to `$LADDER_DIFF_OUT`, one JSON text a line (as a
/// JSON string), for
/// `check_vllm.py --differential` to compare with vLLM's.
#[test]
#[ignore = "driven by tests/schema_ladder/check_vllm.py --differential"]
fn differential_against_vllm() {
    let (Ok(input), Ok(output)) = (
        std::env::var("LADDER_DIFF_IN"),
        std::env::var("LADDER_DIFF_OUT"),
    ) else {
        return;
    };
    let mut written = String::new();
    for line in std::fs::read_to_string(input).unwrap().lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let schema = match case.get("schema") {
            Some(schema) => schema.clone(),
            None => json!({"type": case["types"]}),
        };
        let types = TypeSet::from_schema(&schema, None);
        let mut out = String::new();
        coerce_into(case["text"].as_str().unwrap(), types, false, &mut out);
        // As a JSON string: an object's text may hold newlines.
        written.push_str(&serde_json::to_string(&out).unwrap());
        written.push('\n');
    }
    std::fs::write(output, written).unwrap();
}
