//! Token-sized chunks of plain value text and plain content take the
//! engine's shortcut past the driver; read whole, the same text goes
//! through the driver. Each input here makes the shortcut's conditions
//! change partway (a value held to be typed, a value kept to choose a
//! schema branch by, reasoning, another format's call the watch reports, a
//! code block, strict mode's raw input, a JSON string's escapes and
//! surrogate pairs, arguments written as a string), and every chunk size
//! must give the events of the whole.

mod common;

use common::{check_contract, chunked, one_shot};
use toolcall_stream::{
    coalesce, Format, Ids, Parser, ParserBuilder, Reasoning, Tools, ValueTermination,
};

const TOOLS: &str = r#"[
  {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                   "mode": {"type": "integer"}, "flags": {"type": "array", "items": {"type": "string"}}}}}},
  {"type": "function", "function": {"name": "pick", "parameters": {"anyOf": [
    {"type": "object", "properties": {"kind": {"const": "a"}, "text": {"type": "string"}}},
    {"type": "object", "properties": {"kind": {"const": "bb"}, "size": {"type": "integer"}}}]}}}
]"#;

/// A Qwen3-Coder session whose values and content change what the
/// shortcut may do partway through.
const QWEN: &str = "<think>Plan: write the file, then pick.</think>Some prose → with ✓ marks.\n\
    ```\nfenced <tool_call> text\n```\nNow: <tool_call>\n<function=write_file>\n\
    <parameter=path>\nsrc/main.rs\n</parameter>\n<parameter=mode>\n420\n</parameter>\n\
    <parameter=content>\nfn main() {\n    println!(\"hi \\\\ there\");\n    let x = a < b;\n}\n\
    </parameter>\n<parameter=flags>\n[\"x\", \"y\"]\n</parameter>\n</function>\n</tool_call>\n\
    Between calls a Hermes call: <tool_call>{\"name\": \"pick\", \"arguments\": {}}</tool_call> \
    and more prose after it.\n<tool_call>\n<function=pick>\n<parameter=kind>\nbb\n</parameter>\n\
    <parameter=size>\n12\n</parameter>\n</function>\n</tool_call>\nDone, plain words to end.";

/// A Hermes session: JSON arguments whose top-level strings stream as the
/// model writes them, between escapes, a surrogate pair, nested values, a
/// typed value, arguments given as a JSON string, and prose around.
const HERMES: &str = "<think>Two calls.</think>Prose → first.\n<tool_call>\n{\"name\": \"write_file\",     \"arguments\": {\"path\": \"src/main.rs\", \"mode\": 420, \"content\": \"fn main() {\\n        println!(\\\"hi \\\\\\\\ there \\ud83d\\ude00\\\");\\n    let x = a < b && c;\\n}\\n\",     \"flags\": [\"x\", \"long flag text\"]}}\n</tool_call>\nThen a string: <tool_call>\n{\"name\": \"pick\",     \"arguments\": \"{\\\"kind\\\": \\\"bb\\\", \\\"size\\\": 12}\"}\n</tool_call>\nDone, plain words to end.";

/// A Python-call-syntax session: string arguments in both quotes, with
/// escapes, the other quote inside, a line end in a one-quote string,
/// triple quotes whose text holds quotes that do not close it, a raw
/// string, non-ASCII, a typed value written as a string, nested values.
const PYTHONIC: &str = "<think>Two calls.</think>Prose → first.\n[write_file(path='src/main.rs', mode=420, content='fn main() {\\n    println!(\"hi \\\\\\\\ there \\u00e9 \\x41\\101\");\\n    let x = a < b && c; // it\\'s\n}\\n', flags=['x', \"long \\\"flag\\\" text\"]), pick(kind='bb', size='12')]\nThen more:\n[write_file(path=\"a.py\", content='''def f():\n    return \"it's\" + 'x' '' + \"y\" # ✓ naïve\n''', mode=0o644), write_file(path=r'C:\\dir\\file', content=r\"raw \\d+ \\\" text\", flags=('a', \"b\"))]\nDone, plain words to end.";

/// A MiniMax-M3 session: element text with entities (and an `&` that
/// begins none), a `<` and a `]` that begin no tag, a prefix cut short,
/// leading whitespace, a typed value, an array of items, nested elements.
const MINIMAX_M3: &str = "<mm:think>Two calls.</mm:think>Prose → first.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write_file\">\n]<]minimax[>[<path>src/main.rs]<]minimax[>[</path>\n]<]minimax[>[<mode>420]<]minimax[>[</mode>\n]<]minimax[>[<content>\n  fn main() {\n    println!(\"hi &amp; there é &lt;b&gt; &#x41;&#66; &bogus; & a < b\");\n    let x = a[0] && c; ]<]mini ]] <b>not a tag</b>\n}\n]<]minimax[>[</content>\n]<]minimax[>[<flags>]<]minimax[>[<item>x]<]minimax[>[</item>]<]minimax[>[<item>long flag text with words]<]minimax[>[</item>]<]minimax[>[</flags>\n]<]minimax[>[</invoke>\n]<]minimax[>[<invoke name=\"pick\">\n]<]minimax[>[<kind>bb]<]minimax[>[</kind>\n]<]minimax[>[<size> 12 ]<]minimax[>[</size>\n]<]minimax[>[<opts>]<]minimax[>[<depth>2]<]minimax[>[</depth>]<]minimax[>[<note>a longer note &quot;quoted&quot;]<]minimax[>[</note>]<]minimax[>[</opts>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>\nDone, plain words to end.";

/// A Qwen3-Coder call whose code values are dense with `<` that begins no
/// marker: followed by text in the same chunk or the next (`a < b`,
/// `Vec<u8>`, `x <= y`), by a prefix of a closer (`</span>`, a closer cut
/// short), at a line's end and right before the real closer; and line ends
/// the layout holds at a chunk's end, blank lines, a value that ends in
/// blank lines; then a closer that misses its `>` before a parameter.
const QWEN_CODE: &str = "<tool_call>\n<function=write_file>\n<parameter=content>\n\
    fn f(v: Vec<u8>) -> Option<Box<T>> {\n    if a < b && x <= y { <div></span> }\n\n\
    let s = \"</param\"; // </parameter x\n    a <\n    <\n}\n\n\n</parameter>\n\
    <parameter=path>\na<b.rs\n</parameter>\n<parameter=mode>\n<\n</parameter>\n\
    </function>\n</tool_call>\n<tool_call>\n<function=write_file>\n<parameter=content>\n\
    x </parameter\n<parameter=path>\np\n</parameter>\n</function>\n</tool_call>\nDone <b> x < y.";

fn builders() -> Vec<(&'static str, ParserBuilder)> {
    builders_of(Format::Qwen3Coder)
}

fn builders_of(format: Format) -> Vec<(&'static str, ParserBuilder)> {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let base = || {
        Parser::builder()
            .format(format)
            .tools(tools.clone())
            .ids(Ids::sequential("call_"))
    };
    vec![
        ("default", base()),
        ("reasoning", base().reasoning(Reasoning::On)),
        ("strict", base().strict(true)),
        (
            "no calls in code blocks",
            base().calls_in_code_blocks(false),
        ),
        ("no watch", base().watch_foreign_formats(false)),
        ("not retained", base().retain_arguments(false)),
        (
            "reasoning, strict, no code-block calls",
            base()
                .reasoning(Reasoning::On)
                .strict(true)
                .calls_in_code_blocks(false),
        ),
    ]
}

#[test]
fn every_chunk_size_gives_the_events_of_the_whole() {
    every_chunk_size(builders(), QWEN);
}

#[test]
fn every_chunk_size_of_code_dense_with_lt_gives_the_events_of_the_whole() {
    let mut builders = builders();
    let tools = Tools::from_json(TOOLS).expect("tools");
    builders.push((
        "lookahead",
        Parser::builder()
            .format(Format::Qwen3Coder)
            .tools(tools.clone())
            .ids(Ids::sequential("call_"))
            .value_termination(ValueTermination::Lookahead),
    ));
    builders.push((
        "vllm",
        Parser::builder()
            .format(Format::Qwen3Coder)
            .tools(tools)
            .ids(Ids::sequential("call_"))
            .value_termination(ValueTermination::Vllm),
    ));
    every_chunk_size(builders, QWEN_CODE);
}

#[test]
fn every_chunk_size_of_json_arguments_gives_the_events_of_the_whole() {
    every_chunk_size(builders_of(Format::Hermes), HERMES);
}

#[test]
fn every_chunk_size_of_python_calls_gives_the_events_of_the_whole() {
    every_chunk_size(builders_of(Format::Pythonic), PYTHONIC);
}

#[test]
fn every_chunk_size_of_element_calls_gives_the_events_of_the_whole() {
    every_chunk_size(builders_of(Format::MiniMaxM3), MINIMAX_M3);
}

fn every_chunk_size(builders: Vec<(&'static str, ParserBuilder)>, input: &str) {
    for (name, builder) in builders {
        let mut parser = builder.build();
        // The contract's checks read the retained values and arguments.
        let check = |events: &[_], context: &str| {
            if name != "not retained" {
                check_contract(events, context);
            }
        };
        let whole = one_shot(&mut parser, input.as_bytes());
        check(&whole, name);
        let expected = coalesce(whole);
        for size in 1..=12 {
            let events = chunked(&mut parser, input.as_bytes(), size);
            let context = format!("{name}, chunks of {size}");
            check(&events, &context);
            assert_eq!(coalesce(events), expected, "{context}");
        }
    }
}

#[test]
fn the_session_reads_as_written() {
    let message = read_with_reasoning(Format::Qwen3Coder, QWEN);
    assert_eq!(
        message.reasoning.as_deref(),
        Some("Plan: write the file, then pick.")
    );
    assert_eq!(
        calls_of(&message),
        [
            (
                "write_file",
                r#"{"path": "src/main.rs", "mode": 420, "content": "fn main() {\n    println!(\"hi \\\\ there\");\n    let x = a < b;\n}", "flags": ["x", "y"]}"#
            ),
            ("pick", r#"{"kind": "bb", "size": 12}"#),
        ]
    );
    let content = message.content.unwrap_or_default();
    assert!(content.contains("a Hermes call: <tool_call>{\"name\": \"pick\""));
    assert!(
        message
            .diagnostics
            .iter()
            .any(|d| d.kind == toolcall_stream::DiagnosticKind::ForeignFormat),
        "{:?}",
        message.diagnostics
    );
}

#[test]
fn the_json_session_reads_as_written() {
    let message = read_with_reasoning(Format::Hermes, HERMES);
    assert_eq!(
        calls_of(&message),
        [
            (
                "write_file",
                "{\"path\": \"src/main.rs\", \"mode\": 420, \"content\": \"fn main() {\\n        println!(\\\"hi \\\\\\\\ there \u{1F600}\\\");\\n    let x = a < b && c;\\n}\\n\", \"flags\": [\"x\", \"long flag text\"]}"
            ),
            ("pick", r#"{"kind": "bb", "size": 12}"#),
        ]
    );
    assert_eq!(
        message.content.as_deref(),
        Some("Prose → first.\n\nThen a string: \nDone, plain words to end.")
    );
}

#[test]
fn the_code_session_reads_as_written() {
    let message = read_with_reasoning(Format::Qwen3Coder, QWEN_CODE);
    assert_eq!(
        calls_of(&message),
        [
            (
                "write_file",
                r#"{"content": "fn f(v: Vec<u8>) -> Option<Box<T>> {\n    if a < b && x <= y { <div></span> }\n\nlet s = \"</param\"; // </parameter x\n    a <\n    <\n}\n\n", "path": "a<b.rs", "mode": "<"}"#
            ),
            ("write_file", r#"{"content": "x ", "path": "p"}"#),
        ]
    );
    assert_eq!(message.content.as_deref(), Some("\nDone <b> x < y."));
    // `mode` is an integer that `<` is not; the closer without its `>` is
    // read as one: both reported.
    assert_eq!(
        message
            .diagnostics
            .iter()
            .map(|d| d.kind)
            .collect::<Vec<_>>(),
        [
            toolcall_stream::DiagnosticKind::InvalidValue,
            toolcall_stream::DiagnosticKind::MalformedCloser
        ]
    );
}

/// `input` read whole by a `format` parser with reasoning on (the option
/// set the sessions' expected results are written for).
fn read_with_reasoning(format: Format, input: &str) -> toolcall_stream::Message {
    let (label, builder) = builders_of(format).remove(1);
    assert_eq!(label, "reasoning");
    builder.build().parse(input.as_bytes())
}

/// Each call's name and arguments.
fn calls_of(message: &toolcall_stream::Message) -> Vec<(&str, &str)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect()
}

#[test]
fn the_python_session_reads_as_written() {
    let message = read_with_reasoning(Format::Pythonic, PYTHONIC);
    assert_eq!(
        calls_of(&message),
        [
            (
                "write_file",
                "{\"path\": \"src/main.rs\", \"mode\": 420, \"content\": \"fn main() {\\n    println!(\\\"hi \\\\\\\\ there é AA\\\");\\n    let x = a < b && c; // it's\\n}\\n\", \"flags\": [\"x\", \"long \\\"flag\\\" text\"]}"
            ),
            (
                "pick",
                "{\"kind\": \"bb\", \"size\": 12}"
            ),
            (
                "write_file",
                "{\"path\": \"a.py\", \"content\": \"def f():\\n    return \\\"it's\\\" + 'x' '' + \\\"y\\\" # ✓ naïve\\n\", \"mode\": 420}"
            ),
            (
                "write_file",
                "{\"path\": \"C:\\\\dir\\\\file\", \"content\": \"raw \\\\d+ \\\\\\\" text\", \"flags\": [\"a\", \"b\"]}"
            ),
        ]
    );
    // The line end in a one-quote string.
    assert_eq!(message.diagnostics.len(), 1, "{:?}", message.diagnostics);
}

#[test]
fn the_element_session_reads_as_written() {
    let message = read_with_reasoning(Format::MiniMaxM3, MINIMAX_M3);
    assert_eq!(
        calls_of(&message),
        [
            (
                "write_file",
                "{\"path\": \"src/main.rs\", \"mode\": 420, \"content\": \"\\n  fn main() {\\n    println!(\\\"hi & there é <b> AB &bogus; & a < b\\\");\\n    let x = a[0] && c; ]<]mini ]] <b>not a tag</b>\\n}\\n\", \"flags\": [\"x\", \"long flag text with words\"]}"
            ),
            (
                "pick",
                "{\"kind\": \"bb\", \"size\": 12, \"opts\": {\"depth\": \"2\", \"note\": \"a longer note \\\"quoted\\\"\"}}"
            ),
        ]
    );
    assert_eq!(
        message.content.as_deref(),
        Some("Prose → first.\n\nDone, plain words to end.")
    );
}
