//! The cost of building a constraint (`Format::constraint`) for a request
//! with 128 tools, each with six parameters of mixed types (strings, an
//! enum, an integer with bounds, a boolean, a nested object), in a
//! marked-up format (Qwen3-Coder) and a JSON one (Hermes), in both dialects.
//! A proxy builds
//! one per request, so this is per request, not per token.
//!
//! ```text
//! cargo bench --bench constraint
//! ```

use std::hint::black_box;

use criterion::Criterion;
use serde_json::json;
use toolcall_stream::{Constraint, Dialect, Format, Tools};

fn tools(n: usize) -> Tools {
    let tools: Vec<_> = (0..n)
        .map(|i| {
            json!({"type": "function", "function": {"name": format!("tool_{i}"),
                "description": "a tool of the benchmark",
                "parameters": {"type": "object", "properties": {
                    "path": {"type": "string", "description": "where"},
                    "content": {"type": "string"},
                    "mode": {"type": "string", "enum": ["read", "write", "append"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
                    "dry_run": {"type": "boolean"},
                    "options": {"type": "object", "properties": {
                        "depth": {"type": "integer"}, "labels": {"type": "array",
                        "items": {"type": "string"}}}}},
                "required": ["path", "mode"]}}})
        })
        .collect();
    Tools::from_json(&serde_json::to_string(&tools).expect("JSON")).expect("tools")
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let tools = tools(128);
    let mut group = c.benchmark_group("constraint_128_tools");
    for format in [Format::Qwen3Coder, Format::Hermes] {
        for (mode, constraint) in [
            ("required", Constraint::required()),
            ("lazy", Constraint::lazy()),
        ] {
            for (dialect, written) in [
                (Dialect::Lark, "lark"),
                (Dialect::StructuralTag, "tag"),
                (Dialect::Gbnf, "gbnf"),
            ] {
                let constraint = Constraint {
                    dialect,
                    ..constraint.clone()
                };
                let name = format!("{}/{mode}/{written}", format.name());
                group.bench_function(name, |b| {
                    b.iter(|| black_box(format.constraint(black_box(&tools), &constraint)))
                });
            }
        }
    }
    group.finish();
    c.final_summary();
}
