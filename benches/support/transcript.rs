//! Deterministic synthetic transcripts for the benchmarks, in Qwen3-Coder's
//! layout, GLM-4.5's, or any JSON-argument format's ([`JsonLayout`]: Hermes,
//! Harmony, Kimi K2, DeepSeek, the JSON lists, …), or a call syntax's
//! ([`CallLayout`]: Python's, Gemma's): the same session, the
//! same values, only the markup differs, so the formats' figures compare
//! per byte.
//!
//! No `rand`: a tiny xorshift with a fixed seed, so every run (and every
//! machine) parses exactly the same bytes and figures stay comparable.
//!
//! The mixed transcript looks like an agentic coding session: prose turns
//! (with `<` that is not a marker: `a < b`, `<div>`, `Vec<T>`, `<-`),
//! large `write_file` calls whose `content` is source code full of `<`,
//! `>`, `&`, quotes, backslashes and non-ASCII text, and small calls with
//! several short parameters, all in the chat template's layout
//! (`<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`).
//! Nothing in the generated values looks like a Qwen3-Coder closer, so the
//! text is well formed and parses without diagnostics.

/// Xorshift64: small, fast, deterministic; good enough to pick words.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `true` with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A generated transcript and what it holds.
pub struct Transcript {
    pub text: String,
    /// Tool calls written.
    pub calls: usize,
}

const WORDS: &[&str] = &[
    "the",
    "parser",
    "test",
    "file",
    "function",
    "value",
    "module",
    "buffer",
    "stream",
    "chunk",
    "error",
    "result",
    "config",
    "server",
    "client",
    "request",
    "response",
    "index",
    "check",
    "update",
    "first",
    "then",
    "now",
    "and",
    "with",
    "from",
    "into",
    "because",
    "should",
    "will",
    "let",
    "me",
    "look",
    "at",
    "fix",
    "run",
    "again",
    "failing",
    "passes",
    "naïve",
    "café",
    "résumé",
    "über",
    "größe",
    "日本語",
    "données",
    "señal",
    "→",
    "✓",
];

/// Fragments of prose that hold a `<` which is not a marker.
const PROSE_ANGLES: &[&str] = &[
    "when a < b",
    "if len<max",
    "the <div> wrapper",
    "a `Vec<String>`",
    "the `Option<&str>` return",
    "x <- y in R",
    "<br/> tags",
    "1 << 4",
    "a <= b && c >= d",
    "the <T> parameter",
    "<tool_calls> (plural, not a marker)",
    "the `<parameter` prefix alone",
];

const PATHS: &[&str] = &[
    "src/lib.rs",
    "src/main.rs",
    "src/parser/mod.rs",
    "src/util/escape.rs",
    "web/index.html",
    "web/app.tsx",
    "tests/test_parser.py",
    "scripts/build.sh",
    "docs/guide.md",
    "src/config/loader.rs",
];

/// Source lines with `<`, `>`, `&`, quotes, backslashes, tabs and unicode.
const CODE_LINES: &[&str] = &[
    "use std::collections::HashMap;",
    "pub fn parse<'a>(input: &'a str) -> Result<Vec<Token<'a>>, Error> {",
    "    let mut out: Vec<Option<&str>> = Vec::with_capacity(n);",
    "    if a < b && b > c || !done {",
    "    for (i, ch) in text.char_indices().filter(|&(_, c)| c != '\\n') {",
    "        println!(\"{i}: {ch:?} -> \\\"escaped\\\" & more\");",
    "        return Err(Error::new(\"unexpected '<' at {}\", pos));",
    "    }",
    "}",
    "    let greeting = \"héllo wörld — ✓ 日本語 🚀\";",
    "    map.entry(key).or_insert_with(Vec::new).push(value);",
    "<div class=\"card\" data-id='42'>&amp; &lt;escaped&gt; text</div>",
    "  <span style=\"color: red\">a &lt; b</span>",
    "const x = a<b ? c>>1 : d<<2; // shifts & comparisons",
    "if (x < 10 && y > 3) { return `${x} & ${y}`; }",
    "def check(a, b):\n\treturn a <= b and b >= 0  # tab-indented",
    "    assert text == \"<parameter x>\"  # not a real marker",
    "echo \"$HOME\" > /tmp/out 2>&1 && cat < /tmp/in",
    "    let re = r\"^\\s*<(\\w+)>$\";",
    "type Handler = Box<dyn Fn(&Request) -> Response + Send + Sync>;",
    "    // TODO: handle the \\r\\n case ¯\\_(ツ)_/¯",
    "",
];

const SMALL_CALLS: &[(&str, &[&str])] = &[
    ("read_file", &["path"]),
    ("run_shell", &["command", "timeout", "cwd"]),
    ("search", &["query", "path", "max_results"]),
    ("get_weather", &["city", "days", "units"]),
    ("edit_file", &["path", "old", "new"]),
];

/// The request's tools for the calls these transcripts make: the numbers
/// are integers, everything else a string.
#[allow(dead_code)] // Not every bench that includes this file types values.
pub const TOOLS: &str = r#"[
  {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}},
  {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
  {"type": "function", "function": {"name": "run_shell", "parameters": {"type": "object",
    "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}, "cwd": {"type": "string"}},
    "required": ["command"]}}},
  {"type": "function", "function": {"name": "search", "parameters": {"type": "object",
    "properties": {"query": {"type": "string"}, "path": {"type": "string"}, "max_results": {"type": "integer"}}}}},
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
    "units": {"type": "string", "enum": ["metric", "imperial"]}}}}},
  {"type": "function", "function": {"name": "edit_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}}}}}
]"#;

fn prose_sentence(rng: &mut Rng, out: &mut String, angles: bool) {
    let words = 6 + rng.below(14);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        if angles && rng.chance(6) {
            out.push_str(rng.pick(PROSE_ANGLES));
        } else {
            let word = rng.pick(WORDS);
            if i == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push_str(word);
            }
        }
    }
    out.push_str(rng.pick(&[".", ".", ".", "!", "?", ":"]));
}

/// A prose turn: a few sentences, sometimes several paragraphs.
fn prose(rng: &mut Rng, out: &mut String, angles: bool) {
    let paragraphs = 1 + rng.below(3);
    for p in 0..paragraphs {
        if p > 0 {
            out.push_str("\n\n");
        }
        let sentences = 1 + rng.below(5);
        for s in 0..sentences {
            if s > 0 {
                out.push(' ');
            }
            prose_sentence(rng, out, angles);
        }
    }
}

fn code(rng: &mut Rng, out: &mut String, lines: usize) {
    for _ in 0..lines {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
}

/// The markup a transcript's calls are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A format whose arguments are XML-like parameters ([`XmlLayout`]):
    /// values verbatim.
    Xml(&'static XmlLayout),
    /// A format whose arguments are a JSON object ([`JsonLayout`]): values
    /// are JSON strings, properly escaped, except the integers, written as
    /// JSON numbers.
    Json(&'static JsonLayout),
    /// A format whose calls are written in a call syntax ([`CallLayout`]:
    /// Python's `NAME(key='v', n=3)`, Gemma's `call:NAME{key:<|"|>v<|"|>,n:3}`):
    /// strings in that syntax, integers bare.
    Call(&'static CallLayout),
}

/// How an XML-parameter format writes a call: `call_open`, the name,
/// `name_end`, then per parameter `param_open`, the key, `key_end`, the
/// value and `value_end`, then `call_close`.
#[derive(Debug, PartialEq, Eq)]
pub struct XmlLayout {
    pub call_open: &'static str,
    pub name_end: &'static str,
    pub param_open: &'static str,
    pub key_end: &'static str,
    pub value_end: &'static str,
    pub call_close: &'static str,
}

/// `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`
pub const QWEN: XmlLayout = XmlLayout {
    call_open: "<tool_call>\n<function=",
    name_end: ">\n",
    param_open: "<parameter=",
    key_end: ">\n",
    value_end: "\n</parameter>\n",
    call_close: "</function>\n</tool_call>",
};

/// `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n…`
pub const GLM: XmlLayout = XmlLayout {
    call_open: "<tool_call>",
    name_end: "\n",
    param_open: "<arg_key>",
    key_end: "</arg_key>\n<arg_value>",
    value_end: "</arg_value>\n",
    call_close: "</tool_call>",
};

/// Qwen's layout in Seed-OSS's wrapper.
pub const SEED_OSS: XmlLayout = XmlLayout {
    call_open: "<seed:tool_call>\n<function=",
    call_close: "</function>\n</seed:tool_call>",
    ..QWEN
};

/// `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="KEY">VALUE</parameter>\n…`
pub const MINIMAX_M2: XmlLayout = XmlLayout {
    call_open: "<minimax:tool_call>\n<invoke name=\"",
    name_end: "\">\n",
    param_open: "<parameter name=\"",
    key_end: "\">",
    value_end: "</parameter>\n",
    call_close: "</invoke>\n</minimax:tool_call>",
};

/// Step-3's, one item per call, on one line as its template writes it:
/// `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">…`
pub const STEP3: XmlLayout = XmlLayout {
    call_open:
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"",
    name_end: "\">",
    param_open: "<steptml:parameter name=\"",
    key_end: "\">",
    value_end: "</steptml:parameter>",
    call_close: "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
};

/// DeepSeek V3.2's DSML, every value `string="true"` (the integers too:
/// the tools' schema types them, as in `tool_dense`).
pub const DEEPSEEK_V32: XmlLayout = XmlLayout {
    call_open: "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜DSML｜parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜DSML｜parameter>\n",
    call_close: "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
};

/// DeepSeek V4.1's spaced DSML.
pub const DEEPSEEK_V41: XmlLayout = XmlLayout {
    call_open: "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜DSML｜ parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜DSML｜ parameter>\n",
    call_close: "</｜DSML｜ invoke>\n</｜DSML｜ calls>",
};

/// GigaChat 3.5's GCML: V4's DSML spelled `GCML`.
pub const GIGACHAT35: XmlLayout = XmlLayout {
    call_open: "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜GCML｜parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜GCML｜parameter>\n",
    call_close: "</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
};

/// Leaked `<function_calls><invoke name="NAME">…` calls: MiniMax-M2's
/// layout in that block.
pub const XML_INVOKE: XmlLayout = XmlLayout {
    call_open: "<function_calls>\n<invoke name=\"",
    call_close: "</invoke>\n</function_calls>",
    ..MINIMAX_M2
};

/// Kimi K3's XTML, every value `type="string"` (the integers too: the
/// tools' schema types them, as in `tool_dense`).
pub const KIMI_K3: XmlLayout = XmlLayout {
    call_open: "<|open|>tools<|sep|>\n<|open|>call tool=\"",
    name_end: "\" index=\"0\"<|sep|>\n",
    param_open: "<|open|>argument key=\"",
    key_end: "\" type=\"string\"<|sep|>",
    value_end: "<|close|>argument<|sep|>\n",
    call_close: "<|close|>call<|sep|>\n<|close|>tools<|sep|>",
};

/// Tencent Hy3's block, every marker with its checkpoint suffix:
/// `<tool_calls:opensource>\n<tool_call:opensource>NAME<tool_sep:opensource>\n…`
pub const HY_V3: XmlLayout = XmlLayout {
    call_open: "<tool_calls:opensource>\n<tool_call:opensource>",
    name_end: "<tool_sep:opensource>\n",
    param_open: "<arg_key:opensource>",
    key_end: "</arg_key:opensource>\n<arg_value:opensource>",
    value_end: "</arg_value:opensource>\n",
    call_close: "</tool_call:opensource>\n</tool_calls:opensource>",
};

/// Tencent Hy4's, compact, with Hy4-preview's suffix.
pub const HY_V4: XmlLayout = XmlLayout {
    call_open: "<tool_calls:6124c78e><tool_call:6124c78e>",
    name_end: "",
    param_open: "<arg_key:6124c78e>",
    key_end: "</arg_key:6124c78e><arg_value:6124c78e>",
    value_end: "</arg_value:6124c78e>",
    call_close: "</tool_call:6124c78e></tool_calls:6124c78e>",
};

/// GLM-4.5's layout in IQuest Q1's wrapper.
pub const IQUEST_Q1: XmlLayout = XmlLayout {
    call_open: "<iquest_tool_call>",
    call_close: "</iquest_tool_call>",
    ..GLM
};

/// K2-Horizon's `xml` dialect, compact.
pub const K2_HORIZON: XmlLayout = XmlLayout {
    call_open: "<ifm|tool_calls><ifm|tool_call>",
    name_end: "",
    param_open: "<ifm|arg_key>",
    key_end: "</ifm|arg_key><ifm|arg_value>",
    value_end: "</ifm|arg_value>",
    call_close: "</ifm|tool_call></ifm|tool_calls>",
};

/// dots' block around MiniMax-M2's invokes.
pub const DOTS: XmlLayout = XmlLayout {
    call_open: "<dots_function_call>\n<invoke name=\"",
    call_close: "</invoke>\n</dots_function_call>",
    ..MINIMAX_M2
};

/// Muse's: each call its own message to the function (the header, the
/// ATEM block, `<|eom|>`).
pub const MUSE: XmlLayout = XmlLayout {
    call_open: "<|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"",
    name_end: "\">\n",
    param_open: "<atem:parameter name=\"",
    key_end: "\">",
    value_end: "</atem:parameter>\n",
    call_close: "</atem:invoke>\n</atem:function_calls><|eom|>",
};

/// GLM-4.5's layout with TeleChat4's key and value tags.
pub const TELECHAT4: XmlLayout = XmlLayout {
    param_open: "<param_key>",
    key_end: "</param_key>\n<param_value>",
    value_end: "</param_value>\n",
    ..GLM
};

/// How a JSON-argument format writes a group of calls (the one to three
/// calls a turn of [`mixed_in`] makes): `group_open`, then each call as
/// `call_open`, its name and arguments in the [`JsonCall`] shape and
/// `call_close`, `separator` between two calls, then `group_close`.
/// Formats that wrap each call write empty group markers; formats that
/// hold a list of calls in one wrapper write it in the group markers.
#[derive(Debug, PartialEq, Eq)]
pub struct JsonLayout {
    pub group_open: &'static str,
    pub call_open: &'static str,
    pub call: JsonCall,
    pub call_close: &'static str,
    pub separator: &'static str,
    pub group_close: &'static str,
}

/// How one call's name and arguments are written.
#[derive(Debug, PartialEq, Eq)]
pub enum JsonCall {
    /// A call object, `{"NAME_KEY": NAME, "ARGS_KEY": {…}}` (`json.dumps`
    /// separators), after an id member `"ID_KEY": "INDEX", ` if `id_key`
    /// names one (INDEX: the call's place in its group).
    Object {
        id_key: Option<&'static str>,
        name_key: &'static str,
        args_key: &'static str,
    },
    /// An object whose only key is the name: `{NAME: {…}}`.
    NameKey,
    /// The name as text, then `:INDEX` if `index` (the call's place in its
    /// group), then `after_name`, then the arguments `{…}`.
    Named {
        index: bool,
        after_name: &'static str,
    },
}

const fn object(name_key: &'static str, args_key: &'static str) -> JsonCall {
    JsonCall::Object {
        id_key: None,
        name_key,
        args_key,
    }
}

/// A format that wraps every call on its own: calls one a line.
const fn per_call(open: &'static str, call: JsonCall, close: &'static str) -> JsonLayout {
    JsonLayout {
        group_open: "",
        call_open: open,
        call,
        call_close: close,
        separator: "\n",
        group_close: "",
    }
}

/// A format that writes a group's calls as a JSON list after `open`.
const fn list(open: &'static str, call: JsonCall, close: &'static str) -> JsonLayout {
    JsonLayout {
        group_open: open,
        call_open: "",
        call,
        call_close: "",
        separator: ", ",
        group_close: close,
    }
}

/// Hermes: `<tool_call>\n{"name": NAME, "arguments": {…}}\n</tool_call>`,
/// as the Hermes chat templates write it (`json.dumps` separators,
/// non-ASCII unescaped).
pub const HERMES: JsonLayout = per_call(
    "<tool_call>\n",
    object("name", "arguments"),
    "\n</tool_call>",
);

/// gpt-oss's Harmony: `<|start|>assistant<|channel|>commentary
/// to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`.
pub const HARMONY: JsonLayout = per_call(
    "<|start|>assistant<|channel|>commentary to=functions.",
    JsonCall::Named {
        index: false,
        after_name: " <|constrain|>json<|message|>",
    },
    "<|call|>",
);

/// Kimi K2: a section of calls, each named by its id `functions.NAME:INDEX`.
pub const KIMI_K2: JsonLayout = JsonLayout {
    group_open: "<|tool_calls_section_begin|>",
    call_open: "<|tool_call_begin|>functions.",
    call: JsonCall::Named {
        index: true,
        after_name: "<|tool_call_argument_begin|>",
    },
    call_close: "<|tool_call_end|>",
    separator: "",
    group_close: "<|tool_calls_section_end|>",
};

/// DeepSeek V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`.
pub const DEEPSEEK_V31: JsonLayout = JsonLayout {
    group_open: "<｜tool▁calls▁begin｜>",
    call_open: "<｜tool▁call▁begin｜>",
    call: JsonCall::Named {
        index: false,
        after_name: "<｜tool▁sep｜>",
    },
    call_close: "<｜tool▁call▁end｜>",
    separator: "",
    group_close: "<｜tool▁calls▁end｜>",
};

/// DeepSeek V3: V3.1's markers, `function<｜tool▁sep｜>NAME` and the
/// arguments in a ```` ```json ```` fence, calls one a line.
pub const DEEPSEEK_V3: JsonLayout = JsonLayout {
    call_open: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
    call: JsonCall::Named {
        index: false,
        after_name: "\n```json\n",
    },
    call_close: "\n```<｜tool▁call▁end｜>",
    separator: "\n",
    ..DEEPSEEK_V31
};

/// LongCat-Flash: `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`.
pub const LONGCAT: JsonLayout = per_call(
    "<longcat_tool_call>",
    object("name", "arguments"),
    "</longcat_tool_call>",
);

/// InternLM2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`.
pub const INTERNLM: JsonLayout = per_call(
    "<|action_start|><|plugin|>\n",
    object("name", "parameters"),
    "<|action_end|>",
);

/// Jamba and Hunyuan-A13B: `<tool_calls>[{…}, …]</tool_calls>`.
pub const JAMBA: JsonLayout = list(
    "<tool_calls>[",
    object("name", "arguments"),
    "]</tool_calls>",
);

/// Granite 3: `<|tool_call|>[{…}, …]`, no closer: text follows the list.
pub const GRANITE: JsonLayout = list("<|tool_call|>[", object("name", "arguments"), "]");

/// Phi-4-mini: `functools[{…}, …]`, no closer.
pub const PHI4_MINI_JSON: JsonLayout = list("functools[", object("name", "arguments"), "]");

/// Mistral Small 3.2's successors: `[TOOL_CALLS]NAME[ARGS]{…}` per call,
/// calls back to back. No closer: the JSON's end ends the call, and text
/// after it is content, so responses simply follow each other.
pub const MISTRAL: JsonLayout = JsonLayout {
    separator: "",
    ..per_call(
        "[TOOL_CALLS]",
        JsonCall::Named {
            index: false,
            after_name: "[ARGS]",
        },
        "",
    )
};

/// Llama 3.x: `<|python_tag|>{"name": …, "parameters": {…}}; {…}`. The
/// bare object only opens a call at the start of the output, so the
/// transcript writes every group after `<|python_tag|>` to hold many.
pub const LLAMA3_JSON: JsonLayout = JsonLayout {
    separator: "; ",
    group_close: "",
    ..list("<|python_tag|>", object("name", "parameters"), "")
};

/// MiniMax-M1: `<tool_calls>\n{…}\n{…}\n</tool_calls>`, one call a line.
pub const MINIMAX: JsonLayout = JsonLayout {
    separator: "\n",
    ..list(
        "<tool_calls>\n",
        object("name", "arguments"),
        "\n</tool_calls>",
    )
};

/// Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id": "0",
/// "tool_name": …, "parameters": {…}}, …]<|END_ACTION|>`.
pub const COHERE_COMMAND3: JsonLayout = list(
    "<|START_ACTION|>[",
    JsonCall::Object {
        id_key: Some("tool_call_id"),
        name_key: "tool_name",
        args_key: "parameters",
    },
    "]<|END_ACTION|>",
);

/// granite-20b-functioncalling: `<function_call> {"name": …, "arguments":
/// {…}}` per call, no closer.
pub const GRANITE_20B_FC: JsonLayout =
    per_call("<function_call> ", object("name", "arguments"), "");

/// xLAM-2: the list after `<tool_call>`, closed by `</tool_call>`. A bare
/// list only opens a call at the start of the output, so the transcript
/// writes this marker form to hold many.
pub const XLAM: JsonLayout = list("<tool_call>[", object("name", "arguments"), "]</tool_call>");

/// Apertus: `<|tools_prefix|>[{NAME: {…}}, …]<|tools_suffix|>`.
pub const APERTUS: JsonLayout = list("<|tools_prefix|>[", JsonCall::NameKey, "]<|tools_suffix|>");

/// GigaChat 3: `function call<|role_sep|>\n{"name": …, "arguments": {…}}`
/// per call, no closer (as the fixtures write it: text before and after a
/// call message is content).
pub const GIGACHAT3: JsonLayout = per_call(
    "function call<|role_sep|>\n",
    object("name", "arguments"),
    "",
);

/// Anthropic-style calls leaked into text:
/// `<tool_use><name>NAME</name><input>{…}</input></tool_use>`.
pub const XML_TOOL_USE: JsonLayout = per_call(
    "<tool_use><name>",
    JsonCall::Named {
        index: false,
        after_name: "</name><input>",
    },
    "</input></tool_use>",
);

/// OpenAI-style calls leaked into text: `<function_call><name>NAME</name>
/// <arguments>{…}</arguments></function_call>`.
pub const XML_FUNCTION_CALL: JsonLayout = per_call(
    "<function_call><name>",
    JsonCall::Named {
        index: false,
        after_name: "</name><arguments>",
    },
    "</arguments></function_call>",
);

/// PLaMo 3: each call a request inside the requests' tags, its content
/// type before the arguments.
pub const PLAMO3: JsonLayout = JsonLayout {
    group_open: "<|plamo:begin_tool_requests:plamo|>",
    call_open: "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>",
    call: JsonCall::Named {
        index: false,
        after_name: "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>\
                     <|plamo:constrain|>json<|plamo:msg|>",
    },
    call_close: "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>",
    separator: "",
    group_close: "<|plamo:end_tool_requests:plamo|>",
};

/// Inkling: each call a message with an empty header, a JSON body keyed
/// `args`.
pub const INKLING: JsonLayout = per_call(
    "<|message_model|><|content_invoke_tool_json|>",
    JsonCall::Object {
        id_key: None,
        name_key: "name",
        args_key: "args",
    },
    "<|end_message|>",
);

/// Sarashina: the list after its marker (the bare list opens calls only at
/// the output's start). JSON's spelling is a Python literal too.
pub const SARASHINA: JsonLayout = list("<|tool_calls|>[", object("name", "arguments"), "]");

/// Functionary v3.1: `<function=NAME>{…}</function>`.
pub const FUNCTIONARY_V31: JsonLayout = per_call(
    "<function=",
    JsonCall::Named {
        index: false,
        after_name: ">",
    },
    "</function>",
);

/// Functionary v3.2: `>>>NAME\n{…}`, one message per call (the text
/// before them the prompt's first message, content).
pub const FUNCTIONARY_V32: JsonLayout = per_call(
    ">>>",
    JsonCall::Named {
        index: false,
        after_name: "\n",
    },
    "",
);

/// Solar Open: `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}`
/// `<|tool_call:end|>` in a block; the id left out (the parser makes one).
pub const SOLAR_OPEN: JsonLayout = JsonLayout {
    group_open: "<|tool_calls|>",
    call_open: "<|tool_call:begin|><|tool_call:name|>",
    call: JsonCall::Named {
        index: false,
        after_name: "<|tool_call:args|>",
    },
    call_close: "<|tool_call:end|>",
    separator: "",
    group_close: "<|calls|>",
};

/// How a call-syntax format writes a group of calls: `group_open`, then
/// each call as `call_open`, the call in [`CallSyntax`] and `call_close`,
/// `separator` between two calls, then `group_close`.
#[derive(Debug, PartialEq, Eq)]
pub struct CallLayout {
    pub group_open: &'static str,
    pub call_open: &'static str,
    pub syntax: CallSyntax,
    pub call_close: &'static str,
    pub separator: &'static str,
    pub group_close: &'static str,
}

/// A call's syntax.
#[derive(Debug, PartialEq, Eq)]
pub enum CallSyntax {
    /// `NAME(key=VALUE, …)`, strings as Python's `repr` writes them:
    /// quoted with `quote`, or with the other quote when the text holds
    /// `quote` and not the other (`'it\'s'` is `"it's"`).
    Python { quote: char },
    /// `call:NAME{key:VALUE,…}`, strings between two `delimiter`s, taken
    /// as they are.
    Gemma { delimiter: &'static str },
    /// `PREFIX<invoke name="NAME">` then `PREFIX<key>VALUE PREFIX</key>` per
    /// argument (text entity-escaped), then `PREFIX</invoke>`; with a
    /// `value` element, `<TAG name="key" ATTRS>VALUE</TAG>` per argument,
    /// and the call element `call` in place of `invoke`.
    Elements {
        prefix: &'static str,
        call: &'static str,
        value: Option<(&'static str, &'static str)>,
    },
}

/// Llama 3.2's pythonic list at a line's start: `[f(a='x'), g(b=1)]`.
pub const PYTHONIC: CallLayout = CallLayout {
    group_open: "[",
    call_open: "",
    syntax: CallSyntax::Python { quote: '\'' },
    call_close: "",
    separator: ", ",
    group_close: "]",
};

/// Olmo 3: `<function_calls>f(a="x")\ng(b=1)</function_calls>`, one call
/// a line.
pub const OLMO3: CallLayout = CallLayout {
    group_open: "<function_calls>",
    syntax: CallSyntax::Python { quote: '"' },
    separator: "\n",
    group_close: "</function_calls>",
    ..PYTHONIC
};

/// LFM2: `<|tool_call_start|>[f(a="x"), g(b=1)]<|tool_call_end|>`.
pub const LFM2: CallLayout = CallLayout {
    group_open: "<|tool_call_start|>[",
    syntax: CallSyntax::Python { quote: '"' },
    group_close: "]<|tool_call_end|>",
    ..PYTHONIC
};

/// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`
/// per call, calls back to back.
pub const GEMMA4: CallLayout = CallLayout {
    group_open: "",
    call_open: "<|tool_call>call:",
    syntax: CallSyntax::Gemma {
        delimiter: "<|\"|>",
    },
    call_close: "<tool_call|>",
    separator: "",
    group_close: "",
};

/// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
pub const FUNCTIONGEMMA: CallLayout = CallLayout {
    call_open: "<start_function_call>call:",
    syntax: CallSyntax::Gemma {
        delimiter: "<escape>",
    },
    call_close: "<end_function_call>",
    ..GEMMA4
};

/// ERNIE 4.5: Hermes's calls, each on lines of its own.
pub const ERNIE45: JsonLayout = per_call(
    "<tool_call>\n",
    object("name", "arguments"),
    "\n</tool_call>\n",
);

/// Nemotron Nano v2: `<TOOLCALL>[{…}, …]</TOOLCALL>`.
pub const NEMOTRON_JSON: JsonLayout =
    list("<TOOLCALL>[", object("name", "arguments"), "]</TOOLCALL>");

/// openPangu V2: `<|tool_call_start|>[{…}, …]<|tool_call_end|>`.
pub const OPENPANGU_V2: JsonLayout = list(
    "<|tool_call_start|>[",
    object("name", "arguments"),
    "]<|tool_call_end|>",
);

/// Solar Open2: GLM's layout in Solar's tokens, one argument per line.
pub const SOLAR_OPEN2: XmlLayout = XmlLayout {
    call_open: "<|tool_call:start|>",
    name_end: "\n",
    param_open: "<|tool_arg:start|>",
    key_end: "<|tool_arg:value|>",
    value_end: "<|tool_arg:end|>\n",
    call_close: "<|tool_call:end|>",
};

/// MiniMax-M3: a `]<]minimax[>[<tool_call>` wrapper around invokes whose
/// parameters are elements named by their key.
pub const MINIMAX_M3: CallLayout = CallLayout {
    group_open: "]<]minimax[>[<tool_call>\n",
    call_open: "]<]minimax[>[<invoke name=\"",
    syntax: CallSyntax::Elements {
        prefix: "]<]minimax[>[",
        call: "invoke",
        value: None,
    },
    call_close: "",
    separator: "\n",
    group_close: "\n]<]minimax[>[</tool_call>",
};

/// Cohere's cofl: `<cofl:tool_call id="0" name="NAME">` holding one
/// `<cofl:value name="key" type="raw">` per argument.
pub const COHERE_COFL: CallLayout = CallLayout {
    group_open: "<cofl:tool_calls>",
    call_open: "<cofl:tool_call id=\"0\" name=\"",
    syntax: CallSyntax::Elements {
        prefix: "",
        call: "cofl:tool_call",
        value: Some(("cofl:value", " type=\"raw\"")),
    },
    call_close: "",
    separator: "\n",
    group_close: "\n</cofl:tool_calls>",
};

/// `value` as an element named `key` (its tag, or its `name` attribute in
/// a value element), its text entity-escaped.
fn element(out: &mut String, prefix: &str, tag: Option<(&str, &str)>, key: &str, value: &str) {
    let value = value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    match tag {
        None => out.push_str(&format!("\n{prefix}<{key}>{value}{prefix}</{key}>")),
        Some((tag, attrs)) => out.push_str(&format!(
            "\n{prefix}<{tag} name=\"{key}\"{attrs}>{value}{prefix}</{tag}>"
        )),
    }
}

/// `text` as Python's `repr` writes a string, preferring `quote`.
pub fn python_string(out: &mut String, text: &str, quote: char) {
    let other = if quote == '\'' { '"' } else { '\'' };
    let quote = if text.contains(quote) && !text.contains(other) {
        other
    } else {
        quote
    };
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\x7f' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn open_group(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.group_open),
        Layout::Call(call) => out.push_str(call.group_open),
        Layout::Xml(_) => {}
    }
}

fn separate_calls(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.separator),
        Layout::Call(call) => out.push_str(call.separator),
        Layout::Xml(_) => out.push('\n'),
    }
}

fn close_group(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.group_close),
        Layout::Call(call) => out.push_str(call.group_close),
        Layout::Xml(_) => {}
    }
}

/// Opens the call `name`, the `index`th of its group.
fn open_call(layout: Layout, out: &mut String, name: &str, index: usize) {
    match layout {
        Layout::Xml(xml) => {
            out.push_str(xml.call_open);
            out.push_str(name);
            out.push_str(xml.name_end);
        }
        Layout::Json(json) => {
            out.push_str(json.call_open);
            // Each shape ends with the arguments' `{`: `parameter` writes
            // `, ` before every value but the first.
            match json.call {
                JsonCall::Object {
                    id_key,
                    name_key,
                    args_key,
                } => {
                    out.push('{');
                    if let Some(id_key) = id_key {
                        json_string(out, id_key);
                        out.push_str(": ");
                        json_string(out, &index.to_string());
                        out.push_str(", ");
                    }
                    json_string(out, name_key);
                    out.push_str(": ");
                    json_string(out, name);
                    out.push_str(", ");
                    json_string(out, args_key);
                    out.push_str(": {");
                }
                JsonCall::NameKey => {
                    out.push('{');
                    json_string(out, name);
                    out.push_str(": {");
                }
                JsonCall::Named {
                    index: with_index,
                    after_name,
                } => {
                    out.push_str(name);
                    if with_index {
                        out.push(':');
                        out.push_str(&index.to_string());
                    }
                    out.push_str(after_name);
                    out.push('{');
                }
            }
        }
        Layout::Call(call) => {
            out.push_str(call.call_open);
            out.push_str(name);
            out.push_str(match call.syntax {
                CallSyntax::Python { .. } => "(",
                CallSyntax::Gemma { .. } => "{",
                CallSyntax::Elements { .. } => "\">",
            });
        }
    }
}

fn close_call(layout: Layout, out: &mut String) {
    match layout {
        Layout::Xml(xml) => out.push_str(xml.call_close),
        Layout::Json(json) => {
            out.push_str(match json.call {
                JsonCall::Object { .. } | JsonCall::NameKey => "}}",
                JsonCall::Named { .. } => "}",
            });
            out.push_str(json.call_close);
        }
        Layout::Call(call) => {
            match call.syntax {
                CallSyntax::Python { .. } => out.push(')'),
                CallSyntax::Gemma { .. } => out.push('}'),
                CallSyntax::Elements { prefix, call, .. } => {
                    out.push('\n');
                    out.push_str(prefix);
                    out.push_str("</");
                    out.push_str(call);
                    out.push('>');
                }
            }
            out.push_str(call.call_close);
        }
    }
}

/// A call-syntax argument's key: the separator before it, none before the
/// first.
fn call_key(call: &CallLayout, out: &mut String, key: &str) {
    match call.syntax {
        CallSyntax::Python { .. } => {
            if !out.ends_with('(') {
                out.push_str(", ");
            }
            out.push_str(key);
            out.push('=');
        }
        CallSyntax::Gemma { .. } => {
            if !out.ends_with('{') {
                out.push(',');
            }
            out.push_str(key);
            out.push(':');
        }
        CallSyntax::Elements { .. } => unreachable!("elements are written whole"),
    }
}

/// `text` as a JSON string (quoted and escaped, non-ASCII kept).
fn json_string(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).expect("a string serializes"));
}

/// JSON arguments: the separator before an argument, none before the
/// first.
fn json_key(out: &mut String, key: &str) {
    if !out.ends_with('{') {
        out.push_str(", ");
    }
    json_string(out, key);
    out.push_str(": ");
}

fn parameter(layout: Layout, out: &mut String, key: &str, value: &str) {
    match layout {
        Layout::Xml(xml) => {
            out.push_str(xml.param_open);
            out.push_str(key);
            out.push_str(xml.key_end);
            out.push_str(value);
            out.push_str(xml.value_end);
        }
        Layout::Json(_) => {
            json_key(out, key);
            json_string(out, value);
        }
        Layout::Call(CallLayout {
            syntax: CallSyntax::Elements {
                prefix, value: tag, ..
            },
            ..
        }) => element(out, prefix, *tag, key, value),
        Layout::Call(call) => {
            call_key(call, out, key);
            match call.syntax {
                CallSyntax::Python { quote } => python_string(out, value, quote),
                CallSyntax::Gemma { delimiter } => {
                    out.push_str(delimiter);
                    out.push_str(value);
                    out.push_str(delimiter);
                }
                CallSyntax::Elements { .. } => unreachable!("written above"),
            }
        }
    }
}

/// An integer argument: text in the XML layouts, a JSON number in JSON.
fn integer_parameter(layout: Layout, out: &mut String, key: &str, value: usize) {
    match layout {
        Layout::Json(_) => {
            json_key(out, key);
            out.push_str(&value.to_string());
        }
        Layout::Call(CallLayout {
            syntax: CallSyntax::Elements {
                prefix, value: tag, ..
            },
            ..
        }) => element(out, prefix, *tag, key, &value.to_string()),
        Layout::Call(call) => {
            call_key(call, out, key);
            out.push_str(&value.to_string());
        }
        Layout::Xml(_) => parameter(layout, out, key, &value.to_string()),
    }
}

fn write_file_call(layout: Layout, rng: &mut Rng, out: &mut String, lines: usize, index: usize) {
    open_call(layout, out, "write_file", index);
    parameter(layout, out, "path", rng.pick(PATHS));
    let mut source = String::new();
    code(rng, &mut source, lines);
    // The value's last newline is layout.
    source.pop();
    parameter(layout, out, "content", &source);
    close_call(layout, out);
}

fn small_call(layout: Layout, rng: &mut Rng, out: &mut String, index: usize) {
    let (name, keys) = SMALL_CALLS[rng.below(SMALL_CALLS.len())];
    open_call(layout, out, name, index);
    for key in keys {
        if let "timeout" | "days" | "max_results" = *key {
            integer_parameter(layout, out, key, rng.below(600));
            continue;
        }
        let value = match *key {
            "path" | "cwd" => rng.pick(PATHS).to_string(),
            "units" => rng.pick(&["metric", "imperial"]).to_string(),
            "city" => rng
                .pick(&["Paris", "Tokyo", "São Paulo", "Zürich"])
                .to_string(),
            "command" => rng
                .pick(&[
                    "cargo test -q 2>&1 | tail -n 20",
                    "grep -rn \"a < b\" src/ && echo ok > /tmp/status",
                    "ls -la | head",
                ])
                .to_string(),
            _ => {
                let mut s = String::new();
                prose_sentence(rng, &mut s, true);
                s
            }
        };
        parameter(layout, out, key, &value);
    }
    close_call(layout, out);
}

/// A mixed agentic transcript of at least `len` bytes, in Qwen3-Coder's
/// layout.
pub fn mixed(len: usize) -> Transcript {
    mixed_in(Layout::Xml(&QWEN), len)
}

/// The same transcript as [`mixed`], in GLM-4.5's layout.
pub fn mixed_glm(len: usize) -> Transcript {
    mixed_in(Layout::Xml(&GLM), len)
}

/// The same transcript as [`mixed`], its calls in Hermes's JSON.
pub fn mixed_hermes(len: usize) -> Transcript {
    mixed_in(Layout::Json(&HERMES), len)
}

/// The same session's calls as gpt-oss writes them (Harmony).
pub fn mixed_harmony(len: usize) -> Transcript {
    mixed_in(Layout::Json(&HARMONY), len)
}

/// A mixed agentic transcript of at least `len` bytes.
pub fn mixed_in(layout: Layout, len: usize) -> Transcript {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut text = String::with_capacity(len + 64 * 1024);
    let mut calls = 0;
    while text.len() < len {
        prose(&mut rng, &mut text, true);
        text.push_str("\n\n");
        let n = 1 + rng.below(3);
        open_group(layout, &mut text);
        for i in 0..n {
            if i > 0 {
                separate_calls(layout, &mut text);
            }
            if rng.chance(40) {
                let lines = 10 + rng.below(120);
                write_file_call(layout, &mut rng, &mut text, lines, i);
            } else {
                small_call(layout, &mut rng, &mut text, i);
            }
            calls += 1;
        }
        close_group(layout, &mut text);
        text.push('\n');
    }
    Transcript { text, calls }
}

/// At least `len` bytes of prose without any `<`: only content, on the
/// parser's fastest path.
pub fn content_only(len: usize) -> Transcript {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut text = String::with_capacity(len + 4096);
    while text.len() < len {
        prose(&mut rng, &mut text, false);
        text.push_str("\n\n");
    }
    Transcript { text, calls: 0 }
}

/// At least `len` bytes of content that is code: a chat answer with fenced
/// source blocks (`<`, `>`, `&`, quotes, tags that are not markers) and
/// some prose around them, no tool call. Every `<` starts a marker attempt
/// that fails, so this measures the scanner's slow path in content.
pub fn content_code(len: usize) -> Transcript {
    let mut rng = Rng::new(0x853c_49e6_748f_ea9b);
    let mut text = String::with_capacity(len + 8192);
    while text.len() < len {
        prose(&mut rng, &mut text, true);
        text.push_str("\n\n```\n");
        let lines = 8 + rng.below(40);
        code(&mut rng, &mut text, lines);
        text.push_str("```\n\n");
    }
    Transcript { text, calls: 0 }
}

/// One `write_file` call whose `content` value is at least `len` bytes of
/// source code, in Qwen3-Coder's layout.
pub fn value_heavy(len: usize) -> Transcript {
    value_heavy_in(Layout::Xml(&QWEN), len)
}

/// One `write_file` call whose `content` value is at least `len` bytes.
pub fn value_heavy_in(layout: Layout, len: usize) -> Transcript {
    let mut rng = Rng::new(0xd1b5_4a32_d192_ed03);
    let mut source = String::with_capacity(len + 4096);
    while source.len() < len {
        code(&mut rng, &mut source, 64);
    }
    source.pop();
    let mut text = String::with_capacity(source.len() + 256);
    text.push_str("I'll write the whole file now.\n\n");
    open_call(layout, &mut text, "write_file", 0);
    parameter(layout, &mut text, "path", "src/generated.rs");
    parameter(layout, &mut text, "content", &source);
    close_call(layout, &mut text);
    Transcript { text, calls: 1 }
}

/// MiniCPM5's: functions with no wrapper, each value in a CDATA section
/// (as its template writes values with `<`, `&` or line ends).
pub const MINICPM5: XmlLayout = XmlLayout {
    call_open: "<function name=\"",
    name_end: "\">",
    param_open: "<param name=\"",
    key_end: "\"><![CDATA[",
    value_end: "]]></param>",
    call_close: "</function>",
};
