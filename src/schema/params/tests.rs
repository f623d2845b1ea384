use serde_json::{json, Value};

use super::{Candidates, ParamTable, MAX_BRANCHES};
use crate::schema::TypeSet;

const INT: TypeSet = TypeSet::INTEGER;
const STR: TypeSet = TypeSet::STRING;

/// A tagged union at the root, with a shared property.
fn edit() -> Value {
    json!({
        "type": "object",
        "properties": {"dry_run": {"type": "boolean"}, "x": {"type": ["integer", "string"]}},
        "required": ["action"],
        "oneOf": [
            {"properties": {"action": {"const": "add"}, "x": {"type": "integer"}, "at": {"type": "number"}},
             "required": ["x"]},
            {"properties": {"action": {"type": "string", "const": "remove"}, "id": {"type": "string"}},
             "required": ["id"]},
            {"properties": {"action": {"enum": ["move"]}, "id": {"type": "integer"}, "x": {"type": "null"}},
             "required": ["id", "x"]}
        ]
    })
}

fn chosen(table: &ParamTable, discriminator: &str, value: Value) -> Candidates {
    table.narrow(discriminator, &value, Candidates::ALL)
}

#[test]
fn before_a_discriminator_a_name_has_every_branch_types() {
    let table = ParamTable::read(&edit());
    assert!(table.declares_properties());
    let cases = [
        ("action", Some(STR)),
        ("dry_run", Some(TypeSet::BOOLEAN)),
        // `add`'s own, `remove`'s from the root, `move`'s own.
        ("x", Some(INT.union(STR).union(TypeSet::NULL))),
        ("id", Some(STR.union(INT))),
        ("at", Some(TypeSet::NUMBER)),
        ("other", None),
    ];
    for (name, want) in cases {
        assert_eq!(table.types(name, Candidates::ALL), want, "{name}");
    }
    assert!(table.contains("at") && table.contains("dry_run") && !table.contains("other"));
}

#[test]
fn a_discriminator_chooses_its_branch_types() {
    let table = ParamTable::read(&edit());
    let add = chosen(&table, "action", json!("add"));
    assert_eq!(table.types("x", add), Some(INT));
    assert_eq!(table.types("dry_run", add), Some(TypeSet::BOOLEAN));
    // Declared only by a branch the call is not in: that branch's types.
    assert_eq!(table.types("id", add), Some(STR.union(INT)));

    let remove = chosen(&table, "action", json!("remove"));
    assert_eq!(table.types("id", remove), Some(STR));
    // Not in `remove`: the root's.
    assert_eq!(table.types("x", remove), Some(INT.union(STR)));

    let moved = chosen(&table, "action", json!("move"));
    assert_eq!(table.types("id", moved), Some(INT));
    assert_eq!(table.types("x", moved), Some(TypeSet::NULL));

    // A value no branch has narrows nothing.
    assert_eq!(chosen(&table, "action", json!("rename")), Candidates::ALL);
    assert_eq!(chosen(&table, "action", json!(5)), Candidates::ALL);
    // A name that tells no branch apart narrows nothing either.
    assert_eq!(chosen(&table, "dry_run", json!(true)), Candidates::ALL);
}

#[test]
fn only_discriminators_are_kept_to_compare() {
    let table = ParamTable::read(&edit());
    assert!(table.probe_room("action") >= "\"remove\"".len());
    assert_eq!(table.probe_room("x"), 0);
    assert_eq!(table.probe_room("other"), 0);
    let plain = ParamTable::read(&json!({"properties": {"a": {"const": 1}}}));
    assert_eq!(plain.probe_room("a"), 0, "no branches: nothing to choose");
}

#[test]
fn required_counts_what_every_candidate_branch_requires() {
    let table = ParamTable::read(&edit());
    let required = |c| table.required_by_branches(c).collect::<Vec<_>>();
    assert!(required(Candidates::ALL).is_empty());
    assert_eq!(required(chosen(&table, "action", json!("add"))), ["x"]);
    assert_eq!(
        required(chosen(&table, "action", json!("move"))),
        ["id", "x"]
    );
}

#[test]
fn branches_through_refs_all_of_and_nested_choices() {
    // Pydantic's discriminated union: `$ref`s to `$defs`, each with a
    // `const` tag; one branch built with `allOf`, one with a choice inside.
    let parameters = json!({
        "oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Rect"}, {"$ref": "#/$defs/Text"}],
        "discriminator": {"propertyName": "shape"},
        "$defs": {
            "Tag": {"const": "circle"},
            "Circle": {"type": "object", "properties": {"shape": {"$ref": "#/$defs/Tag"}, "r": {"type": "number"}}},
            "Rect": {"allOf": [
                {"properties": {"shape": {"const": "rect"}}},
                {"properties": {"w": {"type": "integer"}, "h": {"type": "integer"}}, "required": ["w"]}
            ]},
            "Text": {"properties": {"shape": {"const": "text"}},
                     "anyOf": [{"properties": {"size": {"type": "integer"}, "shape": {"const": "circle"}}},
                               {"properties": {"size": {"type": "string"}}}]}
        }
    });
    let table = ParamTable::read(&parameters);
    assert!(table.declares_properties());
    assert_eq!(table.types("r", Candidates::ALL), Some(TypeSet::NUMBER));
    let circle = chosen(&table, "shape", json!("circle"));
    assert_eq!(table.types("r", circle), Some(TypeSet::NUMBER));
    assert_eq!(
        table.types("size", circle),
        Some(INT.union(STR)),
        "only Text has it"
    );
    let rect = chosen(&table, "shape", json!("rect"));
    assert_eq!(table.types("w", rect), Some(INT));
    assert_eq!(table.required_by_branches(rect).collect::<Vec<_>>(), ["w"]);
    // A `const` inside a choice within a branch does not decide the
    // branch: Text stays out for `circle` only by its own `const`.
    let text = chosen(&table, "shape", json!("text"));
    assert_eq!(table.types("size", text), Some(INT.union(STR)));
    assert_ne!(text, circle);
}

#[test]
fn numbers_match_by_value_and_later_discriminators_narrow_further() {
    let parameters = json!({"anyOf": [
        {"properties": {"v": {"const": 1}, "mode": {"const": "a"}, "p": {"type": "integer"}}},
        {"properties": {"v": {"const": 1}, "mode": {"const": "b"}, "p": {"type": "boolean"}}},
        {"properties": {"v": {"const": 2.0}, "p": {"type": "string"}}}
    ]});
    let table = ParamTable::read(&parameters);
    let one = chosen(&table, "v", json!(1.0));
    assert_eq!(table.types("p", one), Some(INT.union(TypeSet::BOOLEAN)));
    let b = table.narrow("mode", &json!("b"), one);
    assert_eq!(table.types("p", b), Some(TypeSet::BOOLEAN));
    assert_eq!(table.types("p", chosen(&table, "v", json!(2))), Some(STR));
}

#[test]
fn without_root_choices_the_root_properties_are_all() {
    let table = ParamTable::read(&json!({"properties": {"n": {"const": 3}, "s": {}}}));
    assert_eq!(table.types("n", Candidates::ALL), Some(INT));
    assert_eq!(table.types("s", Candidates::ALL), Some(STR));
    let table = ParamTable::read(&json!({"type": "object"}));
    assert!(!table.declares_properties());
    assert_eq!(table.types("n", Candidates::ALL), None);
    // Root `$ref` and `allOf` declare for every call.
    let table = ParamTable::read(&json!({
        "$ref": "#/$defs/A", "allOf": [{"properties": {"b": {"type": "boolean"}}}],
        "$defs": {"A": {"properties": {"a": {"type": "integer"}}}}
    }));
    assert_eq!(table.types("a", Candidates::ALL), Some(INT));
    assert_eq!(table.types("b", Candidates::ALL), Some(TypeSet::BOOLEAN));
}

#[test]
fn too_many_branches_are_one_table() {
    let branches: Vec<Value> = (0..=MAX_BRANCHES)
        .map(
            |i| json!({"properties": {"kind": {"const": i}, format!("p{i}"): {"type": "integer"}}}),
        )
        .collect();
    let table = ParamTable::read(&json!({"oneOf": branches}));
    assert_eq!(table.probe_room("kind"), 0);
    assert_eq!(table.types("p64", Candidates::ALL), Some(INT));
    assert_eq!(chosen(&table, "kind", json!(3)), Candidates::ALL);
}

#[test]
fn cycles_and_blowups_end() {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(
        "D40".into(),
        json!({"properties": {"deep": {"type": "integer"}}}),
    );
    defs.insert(
        "Self".into(),
        json!({"oneOf": [{"$ref": "#/$defs/Self"}], "properties": {"s": {"const": 1}}}),
    );
    let parameters = json!({
        "oneOf": [{"$ref": "#/$defs/D0"}, {"$ref": "#/$defs/Self"}],
        "$defs": defs
    });
    let table = ParamTable::read(&parameters);
    assert!(table.declares_properties());
    assert_eq!(table.types("s", Candidates::ALL), Some(INT));
}

/// A root branch chosen by its tag chooses the shape of what is inside a
/// parameter too; before a tag, what any branch allows.
#[test]
fn a_chosen_branch_chooses_the_shapes_inside_a_parameter() {
    let table = ParamTable::read(&json!({
        "properties": {"note": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "oneOf": [
            {"properties": {"kind": {"const": "a"},
                            "data": {"type": "object", "properties": {"v": {"type": "integer"}}}}},
            {"properties": {"kind": {"const": "b"},
                            "data": {"type": "object", "properties": {"v": {"type": "boolean"}}}}}
        ]
    }));
    let inner = |candidates: Candidates, param: &str, key: &str| {
        let shapes = table.shapes();
        let id = table.shape(param, candidates)?;
        shapes.property(id, key).map(|id| shapes.get(id).types)
    };
    let both = INT.union(TypeSet::BOOLEAN);
    assert_eq!(inner(Candidates::ALL, "data", "v"), Some(both));
    let a = chosen(&table, "kind", json!("a"));
    let b = chosen(&table, "kind", json!("b"));
    assert_eq!(inner(a, "data", "v"), Some(INT));
    assert_eq!(inner(b, "data", "v"), Some(TypeSet::BOOLEAN));
    // The root's own property, whatever the branch.
    assert_eq!(inner(b, "note", "n"), Some(INT));
    assert_eq!(inner(Candidates::ALL, "data", "w"), None);
    assert_eq!(table.shape("other", Candidates::ALL), None);
}

/// A schema that refers to itself makes a finite table that types every
/// level; a huge one is cut off, never unbounded.
#[test]
fn recursive_and_huge_schemas_make_bounded_shape_tables() {
    let tree = json!({"properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "n": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
    let table = ParamTable::read(&tree);
    let shapes = table.shapes();
    let node = table.shape("node", Candidates::ALL).unwrap();
    let children = shapes.property(node, "children").unwrap();
    let child = shapes.element(children, 5).unwrap();
    assert_eq!(shapes.get(shapes.property(child, "n").unwrap()).types, INT);
    // Every level below is the same shape: the same schema, met again.
    let grandchildren = shapes.property(child, "children").unwrap();
    assert_eq!(shapes.element(grandchildren, 0), Some(child));

    // 2^12 paths of distinct schemas: the table stops at its bound.
    let mut schema = json!({"type": "integer"});
    for depth in 0..12 {
        schema = json!({"type": "object", "properties": {
            format!("a{depth}"): schema.clone(), format!("b{depth}"): {"anyOf": [schema, {"type": "null"}]}}});
    }
    let table = ParamTable::read(&json!({"properties": {"deep": schema}}));
    assert!(table.shape("deep", Candidates::ALL).is_some());
}
