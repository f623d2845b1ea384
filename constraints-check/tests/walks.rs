//! The grammar a format's description generates admits only what its
//! parser reads as clean calls: each grammar is walked at random with
//! llguidance (a byte-level token set, no model), and every string it
//! admits must parse, at every split, to complete calls to declared tools,
//! of the declared types, with no diagnostic.

#[path = "walks/errors.rs"]
mod errors;
#[path = "walks/messages.rs"]
mod messages;
#[path = "walks/python_literals.rs"]
mod python_literals;

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::ApproximateTokEnv;
use llguidance::{Matcher, ParserFactory};
use serde_json::Value;
use toolcall_constraints_check::{clean_fixtures, parser, NOT_ADMITTED};
use toolcall_stream::{
    lark_of_gbnf, Constraint, ConstraintMode, Dialect, Format, MessageBuilder, Tools,
};

const TOOLS: &str = r##"[
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1},
      "units": {"type": "string", "enum": ["metric", "imperial"]},
      "threshold": {"type": "number"}},
    "required": ["city"]}}},
  {"type": "function", "function": {"name": "run", "parameters": {"type": "object",
    "properties": {"command": {"type": "string"}, "env": {"type": "object",
      "properties": {"PATH": {"type": "string"}}}, "dry": {"type": "boolean"},
      "meta": {"type": "object"}, "tags": {"type": "array"}, "level": {"$ref": "#/$defs/Level"}},
    "$defs": {"Level": {"type": "integer", "minimum": 0}},
    "required": ["command", "dry"]}}}
]"##;

/// Formats whose shape the generator writes at least (the rest may
/// refuse, typed): every format that gives a grammar is walked.
const WRITTEN: &[Format] = &[
    Format::Qwen3Coder,
    Format::Glm45,
    Format::Glm47,
    Format::Hermes,
    Format::SeedOss,
    Format::MiniMax,
    Format::Llama3Json,
    Format::Xlam,
    Format::BareJson,
    Format::Lfm2,
    Format::Olmo3,
    Format::Pythonic,
    Format::Gemma4,
    Format::FunctionGemma,
    Format::MiniMaxM3,
    Format::CohereCofl,
    Format::OpenAi,
    Format::Muse,
    Format::Inkling,
    Format::FunctionaryV32,
    Format::Sarashina,
];

fn matcher(grammar: &str) -> Matcher {
    let env = ApproximateTokEnv::single_byte_env();
    let mut factory = ParserFactory::new_simple(&env).expect("factory");
    factory.quiet();
    Matcher::new(factory.create_parser(TopLevelGrammar::from_lark(grammar.to_owned())))
}

fn accepts(grammar: &str, text: &str) -> bool {
    let mut m = matcher(grammar);
    assert!(!m.is_error(), "{:?}\n{grammar}", m.get_error());
    let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
    m.consume_tokens(&tokens).is_ok() && m.is_accepting().unwrap_or(false)
}

/// A small generator, so that a failure can be replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The grammar's literals that close an element and are no marker
/// (`]<]minimax[>[</city>`, `</cofl:tool_param>`), and their parts before
/// and from the `</` (the prefix that ends a text value): without them as
/// moves, a walk of element calls rarely ends a value.
fn element_closers(grammar: &str) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut rest = grammar;
    while let Some(start) = rest.find('"') {
        let body = &rest[start + 1..];
        let mut end = 0;
        let bytes = body.as_bytes();
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        let quoted = &rest[start..(start + end + 2).min(rest.len())];
        rest = &rest[(start + end + 2).min(rest.len())..];
        let Ok(literal) = serde_json::from_str::<String>(quoted) else {
            continue;
        };
        let Some(at) = literal.find("</") else {
            continue;
        };
        for part in [&literal[..], &literal[..at], &literal[at..]] {
            if !part.trim().is_empty() {
                found.push(part.as_bytes().to_vec());
            }
        }
    }
    found
}

/// A random string the grammar admits, or `None` when the walk did not
/// end within its budget. Each step feeds one move the grammar allows: a
/// byte from a small alphabet, or one of the format's markers or a JSON
/// closer (without which free text rarely ends); past `LONG` bytes, only
/// those that end something, so that the walk ends.
fn walk(grammar: &str, format: Format, rng: &mut Rng) -> Option<String> {
    const LONG: usize = 160;
    let mut m = matcher(grammar);
    let mut out = Vec::new();
    let mut closers: Vec<Vec<u8>> = format
        .markers()
        .map(|(_, t)| t.as_bytes().to_vec())
        .collect();
    for extra in ["\"", "}", "]"] {
        closers.push(extra.as_bytes().to_vec());
    }
    for extra in element_closers(grammar) {
        if !closers.contains(&extra) {
            closers.push(extra);
        }
    }
    let mut openers = closers.clone();
    for extra in ["\n", "1", "true", "false", ",", ":", "{", "\"a\":"] {
        openers.push(extra.as_bytes().to_vec());
    }
    let alphabet: &[u8] = b"abc xyz<>/=_-.\n\"{}:,0123456789";
    let dense: &[u8] = b"abcxyz0123456789";
    while out.len() < 2000 {
        if m.is_accepting().unwrap_or(false) && (rng.below(6) == 0 || out.len() > LONG) {
            return String::from_utf8(out).ok();
        }
        // Nothing can follow: the grammar is done.
        if m.is_stopped() {
            return match m.is_error() {
                true => None,
                false => String::from_utf8(out).ok(),
            };
        }
        let mask = m.compute_mask().ok()?;
        let mut allowed = Vec::new();
        mask.iter_set_entries(|t| {
            if t < 256 {
                allowed.push(t as u8)
            }
        });
        if allowed.is_empty() {
            return None;
        }
        let long = out.len() > LONG;
        let structure = long || allowed.len() < 8 || rng.below(4) == 0;
        let mut fits = |moves: &[Vec<u8>]| -> Vec<Vec<u8>> {
            moves
                .iter()
                .filter(|mv| {
                    let tokens: Vec<u32> = mv.iter().map(|b| u32::from(*b)).collect();
                    m.validate_tokens(&tokens).ok() == Some(tokens.len())
                })
                .cloned()
                .collect()
        };
        let fitting = match (structure, long) {
            (false, _) => Vec::new(),
            (true, false) => fits(&openers),
            // Past the budget: what ends something, else what moves on
            // (a key's comma, a value), never a line end.
            (true, true) => match fits(&closers) {
                ends if !ends.is_empty() => ends,
                _ => fits(&openers[closers.len() + 1..]),
            },
        };
        let letters = if long { dense } else { alphabet };
        let friendly: Vec<u8> = letters
            .iter()
            .copied()
            .filter(|b| allowed.contains(b))
            .collect();
        let pick: Vec<u8> = match (fitting.len(), friendly.len()) {
            (0, 0) => vec![allowed[rng.below(allowed.len())]],
            (0, n) => vec![friendly[rng.below(n)]],
            (n, _) => fitting[rng.below(n)].clone(),
        };
        let tokens: Vec<u32> = pick.iter().map(|b| u32::from(*b)).collect();
        m.consume_tokens(&tokens).ok()?;
        out.extend_from_slice(&pick);
    }
    None
}

/// What the grammar admits parses to clean calls to declared tools, whole
/// and at every split into two.
fn check_admitted(format: Format, tools: &Tools, text: &str, want_calls: bool) {
    let message = parser(format, tools).parse(text);
    assert!(
        message.diagnostics.is_empty(),
        "{format:?}: {text:?} gave {:?}",
        message.diagnostics
    );
    if want_calls {
        assert!(
            !message.tool_calls.is_empty(),
            "{format:?}: no call in {text:?}"
        );
    }
    for call in &message.tool_calls {
        assert!(
            tools.contains(&call.name),
            "{format:?}: {text:?} calls {}",
            call.name
        );
        let args: Value = serde_json::from_str(&call.arguments).expect("arguments are JSON");
        let schema = tools.parameters(&call.name).expect("declared");
        for key in schema["required"].as_array().into_iter().flatten() {
            let key = key.as_str().unwrap_or_default();
            assert!(args.get(key).is_some(), "{format:?}: {text:?} lacks {key}");
        }
        for (key, value) in args.as_object().expect("an object") {
            let declared = &schema["properties"][key];
            let ok = match (declared["type"].as_str(), declared["$ref"].as_str()) {
                (Some("string"), _) => value.is_string(),
                (Some("integer"), _) => value.as_i64().is_some_and(|n| n >= 1),
                (Some("number"), _) => value.is_number(),
                (Some("boolean"), _) => value.is_boolean(),
                (Some("object"), _) => value.is_object(),
                (Some("array"), _) => value.is_array(),
                (None, Some("#/$defs/Level")) => value.as_i64().is_some_and(|n| n >= 0),
                _ => false,
            };
            assert!(
                ok,
                "{format:?}: {text:?}: {key} = {value} against {declared}"
            );
        }
    }
    // Every split of a short text; of a long one, a bounded sample.
    let step = (text.len() / 96).max(1);
    for cut in (1..text.len())
        .step_by(step)
        .filter(|&i| text.is_char_boundary(i))
    {
        let mut p = parser(format, tools);
        let mut built = MessageBuilder::new();
        p.feed_with(&text.as_bytes()[..cut], |e| built.push(e));
        p.feed_with(&text.as_bytes()[cut..], |e| built.push(e));
        p.finish_with(|e| built.push(e));
        let split = built.finish();
        // The same calls (ids are drawn afresh by each parser).
        let calls = |m: &toolcall_stream::Message| {
            m.tool_calls
                .iter()
                .map(|c| (c.name.clone(), c.arguments.clone(), c.complete))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            calls(&split),
            calls(&message),
            "{format:?}: {text:?} cut at {cut}"
        );
        assert!(
            split.diagnostics.is_empty(),
            "{format:?}: {text:?} cut at {cut}"
        );
    }
}

/// Walks per format and constraint.
const WALKS: usize = 8;

#[test]
fn every_walk_of_each_grammar_parses_to_clean_calls() {
    walk_every_grammar(Dialect::Lark, 0x5eed);
}

/// The GBNF grammars, read by llguidance through [`lark_of_gbnf`]: what
/// they admit parses to clean calls too (xgrammar's check compares their
/// verdicts with the Lark grammars').
#[test]
fn every_walk_of_each_gbnf_grammar_parses_to_clean_calls() {
    walk_every_grammar(Dialect::Gbnf, 0x6b6e66);
}

fn walk_every_grammar(dialect: Dialect, seed: u64) {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let mut rng = Rng(seed);
    for &format in WRITTEN {
        assert!(
            format.constraint(&tools, &Constraint::required()).is_ok(),
            "{format:?}"
        );
    }
    let written = Format::ALL
        .iter()
        .filter(|f| f.constraint(&tools, &Constraint::required()).is_ok());
    for &format in written {
        let one = Constraint {
            parallel: false,
            ..Constraint::required()
        };
        let thinking = Constraint {
            reasoning: true,
            ..Constraint::lazy()
        };
        for constraint in [
            Constraint::required(),
            Constraint::named("run"),
            Constraint::lazy(),
            one,
            thinking,
        ] {
            let constraint = Constraint {
                dialect,
                ..constraint
            };
            let grammar = format.constraint(&tools, &constraint).expect("a grammar");
            let grammar = match dialect {
                Dialect::Gbnf => lark_of_gbnf(&grammar),
                _ => grammar,
            };
            let mut finished = 0;
            for _ in 0..WALKS {
                if let Some(text) = walk(&grammar, format, &mut rng) {
                    finished += 1;
                    let want = constraint.mode != ConstraintMode::Lazy;
                    check_admitted(format, &tools, &text, want);
                }
            }
            assert!(
                finished >= WALKS / 2,
                "{format:?} {constraint:?}: {finished} of {WALKS} walks ended\n{grammar}"
            );
        }
    }
}

#[test]
fn the_calls_a_model_writes_are_admitted_and_mistakes_are_not() {
    for dialect in [Dialect::Lark, Dialect::Gbnf] {
        the_calls_a_model_writes_are_admitted_in(dialect);
    }
}

/// `format`'s grammar for [`TOOLS`] in `dialect`, read as Lark (a GBNF
/// grammar through `lark_of_gbnf`), for llguidance to check strings with.
fn as_lark(format: Format, dialect: Dialect, constraint: Constraint) -> String {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let constraint = Constraint {
        dialect,
        ..constraint
    };
    let grammar = format.constraint(&tools, &constraint).expect("a grammar");
    match dialect {
        Dialect::Gbnf => lark_of_gbnf(&grammar),
        _ => grammar,
    }
}

fn the_calls_a_model_writes_are_admitted_in(dialect: Dialect) {
    let make = |format: Format, constraint: Constraint| as_lark(format, dialect, constraint);
    let grammar = make(Format::Qwen3Coder, Constraint::required());
    let call = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n\
                <parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    assert!(accepts(&grammar, call), "{grammar}");
    // The same without the layout's line ends.
    let compact =
        "<tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>";
    assert!(accepts(&grammar, compact));
    for wrong in [
        call.replace("3\n", "three\n"),
        call.replace("get_weather", "get_time"),
        call.replace("Paris", "Pa</parameter>ris"),
        "I'll call it.\n".to_owned() + call,
        call.replace("<parameter=city>\nParis\n</parameter>\n", ""),
    ] {
        assert!(!accepts(&grammar, &wrong), "admitted {wrong:?}");
    }
    let lazy = make(Format::Qwen3Coder, Constraint::lazy());
    assert!(accepts(&lazy, "Let me look that up.\n"));
    assert!(accepts(&lazy, &format!("Let me look that up.\n{call}")));
    let glm = make(Format::Glm47, Constraint::required());
    assert!(accepts(
        &glm,
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    ));
    let hermes = make(Format::Hermes, Constraint::named("run"));
    assert!(accepts(
        &hermes,
        "<tool_call>\n{\"name\": \"run\", \"arguments\": {\"command\": \"ls\", \"dry\": true}}\n</tool_call>"
    ));
    // Calls that open the output without a marker: bare at the start, as
    // the model writes them, or after the opener; text before a bare call,
    // or text that would start one, is not admitted.
    let llama = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}";
    let required = make(Format::Llama3Json, Constraint::required());
    for call in [
        llama.to_owned(),
        format!("{llama}; {llama}"),
        format!("<|python_tag|>{llama}"),
        format!("{llama} Done."),
    ] {
        assert!(accepts(&required, &call), "{call}\n{required}");
    }
    for wrong in [format!("Sure. {llama}"), format!("{llama}; {{\"a\": 1}}")] {
        assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
    }
    let lazy = make(Format::Llama3Json, Constraint::lazy());
    assert!(accepts(&lazy, &format!("Sure. <|python_tag|>{llama}")));
    assert!(accepts(&lazy, llama));
    assert!(!accepts(&lazy, "{x} is a placeholder"));
    // Reasoning the prompt opened stands at the output's start, where
    // Laguna's parser reads a bare object: it may not start with one.
    let thinking = Constraint {
        reasoning: true,
        ..Constraint::lazy()
    };
    let laguna = make(Format::PoolsideV1, thinking);
    assert!(accepts(&laguna, "hm</think>Sunny."));
    assert!(accepts(&laguna, "<think>{x}</think>Sunny."));
    assert!(!accepts(&laguna, " {\"a\": 1}</think>Sunny."));
    let xlam = "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]";
    let required = make(Format::Xlam, Constraint::required());
    assert!(accepts(&required, xlam));
    assert!(accepts(
        &required,
        &format!("<tool_call>{xlam}</tool_call>")
    ));
    let bare = "[{\"tool\": \"get_weather\", \"args\": {\"city\": \"Paris\"}}]";
    let lazy = make(Format::BareJson, Constraint::lazy());
    assert!(accepts(&lazy, bare));
    assert!(accepts(&lazy, "Some text {with braces}\nand lines."));
    assert!(!accepts(&lazy, "Some text\n  {\"a\": 1}"));
    assert!(!accepts(&lazy, &format!("{bare}\n{bare}")));
    // Python calls: keyword arguments in their declared order, values as
    // Python literals; a bare list only where the parser reads one.
    let calls = r#"[get_weather(city="Paris", days=3), run(command='ls', env={"PATH": "/bin"}, dry=True, tags=[1, None])]"#;
    let lfm2 = make(Format::Lfm2, Constraint::required());
    assert!(accepts(
        &lfm2,
        &format!("<|tool_call_start|>{calls}<|tool_call_end|>")
    ));
    let olmo3 = make(Format::Olmo3, Constraint::lazy());
    let lines = "get_weather(city=\"Paris\")\nrun(command=\"ls\", dry=False)";
    assert!(accepts(
        &olmo3,
        &format!("Sure.\n<function_calls>{lines}</function_calls>")
    ));
    let pythonic = make(Format::Pythonic, Constraint::lazy());
    assert!(accepts(&pythonic, calls));
    assert!(accepts(&pythonic, &format!("Let me look.\n{calls}\nDone.")));
    for wrong in [
        format!("Let me look. {calls}"),
        format!("{calls}\n[1, 2]"),
        calls.replace("days=3", "days=\"3\""),
        calls.replace("dry=True", "dry=true"),
        calls.replace("city=\"Paris\", days=3", "days=3, city=\"Paris\""),
        calls.replace("Paris", "Par<is"),
    ] {
        assert!(!accepts(&pythonic, &wrong), "admitted {wrong:?}");
    }
    // Gemma's calls: bare keys in their declared order, strings between
    // the delimiters, other values bare, one call in each wrapper.
    let q = "<|\"|>";
    let gemma = format!(
        "<|tool_call>call:get_weather{{city:{q}Paris, \"TX\"{q},days:3}}<tool_call|>\
         <|tool_call>call:run{{command:{q}ls -l\n{q},env:{{PATH:{q}/bin{q}}},dry:true,\
         meta:{{depth:2}},tags:[1,{q}a{q},null],level:0}}<tool_call|>"
    );
    let gemma4 = make(Format::Gemma4, Constraint::required());
    assert!(accepts(&gemma4, &gemma), "{gemma}\n{gemma4}");
    let lazy = make(Format::Gemma4, Constraint::lazy());
    assert!(accepts(&lazy, &format!("Let me look.\n{gemma}")));
    for wrong in [
        gemma.replace("days:3", &format!("days:{q}3{q}")),
        gemma.replace("dry:true", "dry:True"),
        gemma.replace(
            &format!("city:{q}Paris, \"TX\"{q},days:3"),
            &format!("days:3,city:{q}Paris{q}"),
        ),
        gemma.replace("Paris", "Par<is"),
        gemma.replace("city:", "\"city\":"),
        gemma.replace("call:get_weather", "call:get_time"),
    ] {
        assert!(!accepts(&gemma4, &wrong), "admitted {wrong:?}");
    }
    let functiongemma = make(Format::FunctionGemma, Constraint::named("get_weather"));
    let call = "<start_function_call>call:get_weather{city:<escape>Paris<escape>,units:<escape>metric<escape>}<end_function_call>";
    assert!(accepts(&functiongemma, call), "{functiongemma}");
    assert!(!accepts(&functiongemma, &call.replace("metric", "kelvin")));
    // Element calls: a string's text as written, other values as JSON,
    // each parameter an element closed by its tag.
    let m = "]<]minimax[>[";
    let m3 = format!(
        "{m}<tool_call>\n{m}<invoke name=\"run\">\n{m}<command>ls -a{m}</command>\n\
         {m}<env>{{\"PATH\": \"/bin\"}}{m}</env>\n{m}<dry>true{m}</dry>\n{m}</invoke>\n{m}</tool_call>"
    );
    let required = make(Format::MiniMaxM3, Constraint::required());
    assert!(accepts(&required, &m3), "{m3}\n{required}");
    for wrong in [
        m3.replace("ls -a", "ls &amp; cd"),
        m3.replace("ls -a", &format!("ls{m}<item>a")),
        m3.replace("true", "\"true\""),
        m3.replace(&format!("{m}</env>"), &format!("{m}</PATH>")),
    ] {
        assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
    }
    let cofl = "<cofl:tool_calls><cofl:tool_call id=\"0\" name=\"get_weather\">\
        <cofl:tool_param name=\"city\" string=\"true\">Paris <b>\"</cofl:tool_param>\
        <cofl:tool_param name=\"days\" string=\"false\">3</cofl:tool_param>\
        </cofl:tool_call></cofl:tool_calls>";
    let required = make(Format::CohereCofl, Constraint::required());
    assert!(accepts(&required, cofl), "{required}");
    for wrong in [
        cofl.replace("Paris", "Paris & Rome"),
        cofl.replace("Paris", "Paris</b>"),
        cofl.replace("string=\"false\">3", "string=\"true\">3"),
        cofl.replace(" id=\"0\"", ""),
    ] {
        assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
    }
}

#[test]
fn whitespace_runs_are_bounded() {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let grammar = Format::Hermes
        .constraint(&tools, &Constraint::named("run"))
        .expect("grammar");
    let call = |gap: &str| {
        format!("<tool_call>{{\"name\":{gap}\"run\", \"arguments\": {{\"command\": \"ls\", \"dry\": true}}}}</tool_call>")
    };
    assert!(accepts(&grammar, &call(" ")), "{grammar}");
    assert!(accepts(&grammar, &call("\n  ")));
    assert!(!accepts(&grammar, &call(&"\n".repeat(40))));
}

#[test]
fn every_clean_fixture_is_admitted_by_its_grammar() {
    let constraint = Constraint {
        reasoning: true,
        ..Constraint::lazy()
    };
    let (mut admitted, mut refused) = (0, Vec::new());
    for fixture in clean_fixtures() {
        let (format, text, id) = (fixture.format, &fixture.text, fixture.id.as_str());
        let Ok(grammar) = format.constraint(&fixture.tools, &constraint) else {
            continue;
        };
        match accepts(&grammar, text) {
            true => admitted += 1,
            false if NOT_ADMITTED.iter().any(|(known, _)| *known == id) => {}
            false => refused.push(format!("{id} ({format:?}): {text:?}")),
        }
    }
    assert!(
        refused.is_empty(),
        "{} not admitted:\n{}",
        refused.len(),
        refused.join("\n")
    );
    assert!(admitted >= 20, "only {admitted} fixtures checked");
}

/// Where [`samples_for_the_structural_tag_check`] writes, for
/// `constraints-check/xgrammar_check.py`.
const SAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/constraint-samples.json"
);

/// Every format's structural tag, with strings and whether the same
/// constraint's Lark grammar admits each: walks of the Lark grammar (all
/// admitted) and mutations of them (a cut, a marker inside, a letter for a
/// digit). `xgrammar_check.py` checks that xgrammar's verdict on the
/// structural tag is the same for every one: the two dialects say the
/// same thing.
#[test]
fn samples_for_the_structural_tag_check() {
    let tools = Tools::from_json(TOOLS).expect("tools");
    // Each format's walks from a seed of its own, so that a format gaining
    // a grammar leaves the others' samples (and the built-in tags' recorded
    // differences) as they were.
    let seeded = |format: Format| {
        let name = format.name().bytes();
        Rng(name.fold(0xd1a1ec7, |h: u64, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        }))
    };
    let mut cases = Vec::new();
    let constraints = [
        Constraint::required(),
        Constraint::named("run"),
        Constraint::lazy(),
        Constraint {
            parallel: false,
            ..Constraint::required()
        },
        Constraint {
            reasoning: true,
            ..Constraint::lazy()
        },
    ];
    for &format in Format::ALL {
        let mut rng = seeded(format);
        for constraint in &constraints {
            let Ok(lark) = format.constraint(&tools, constraint) else {
                continue;
            };
            let stag = Constraint {
                dialect: Dialect::StructuralTag,
                ..constraint.clone()
            };
            let stag = format.constraint(&tools, &stag).expect("a structural tag");
            let gbnf = Constraint {
                dialect: Dialect::Gbnf,
                ..constraint.clone()
            };
            let gbnf = format.constraint(&tools, &gbnf).expect("a GBNF grammar");
            let mut strings = Vec::new();
            for _ in 0..4 {
                let Some(text) = walk(&lark, format, &mut rng) else {
                    continue;
                };
                let chars: Vec<char> = text.chars().collect();
                let cut: String = chars[..rng.below(chars.len().max(1))].iter().collect();
                let at = rng.below(chars.len().max(1));
                // A whole marker: the structural tag excludes markers from
                // JSON strings, the Lark grammar any character one starts
                // with, so a lone `<` is where the two differ, by design.
                // (None where the format has no marker: bare JSON.)
                let count = format.markers().count();
                let marker = format
                    .markers()
                    .nth(rng.below(count.max(1)))
                    .map_or("", |(_, m)| m);
                let inside: String = chars[..at].iter().collect::<String>()
                    + marker
                    + &chars[at..].iter().collect::<String>();
                let letter = text.replacen(|c: char| c.is_ascii_digit(), "x", 1);
                for s in [text, cut, inside, letter] {
                    let admitted = accepts(&lark, &s);
                    strings.push(serde_json::json!({"text": s, "admitted": admitted}));
                }
            }
            cases.push(serde_json::json!({
                "format": format.name(),
                "constraint": format!("{constraint:?}"),
                "structural_tag": stag,
                "gbnf": gbnf,
                "strings": strings,
            }));
        }
    }
    assert!(cases.len() >= 20 * 5, "{} cases", cases.len());
    let out = serde_json::to_string_pretty(&cases).expect("JSON");
    std::fs::write(SAMPLES, out).expect("write the samples");
}
