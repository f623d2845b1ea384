//! The rules both grammar dialects (Lark and GBNF) write: the calls'
//! structure, from the shape and each tool's call. A [`Syntax`] spells
//! them, and says how text that holds no marker and JSON against a schema
//! are written, which the two dialects do in their own ways.

use serde_json::Value;

use super::call::{Func, FuncBody, Param, Piece, ID, INDEX};
use super::shape::{Body, Messages, Shape};
use super::value::ValueGrammar;
use super::{Constraint, ConstraintMode};
use crate::tools::Tools;

/// How one dialect spells the rules.
pub(super) trait Syntax {
    /// `rule` (a name in `snake_case`) as the dialect names it.
    fn name(&self, rule: &str) -> String;
    /// `text` as a string literal.
    fn literal(&self, text: &str) -> String;
    /// Writes the rule `rule: body`, whose body names rules as
    /// [`Syntax::name`] does.
    fn define(&mut self, out: &mut String, rule: &str, body: &str);
    /// Writes `rule`: text that holds no marker, then `closer`, which the
    /// first one ends (as it does for the parser); `place` says where the
    /// text stands (see [`Syntax::any_lead`] and [`Syntax::any_text`]).
    fn text_then(&mut self, out: &mut String, rule: &str, closer: &str, place: Place);
    /// Writes `rule`: JSON against `schema` (whose `$ref`s it resolves
    /// from its own root).
    fn json(&mut self, out: &mut String, rule: &str, schema: &Value);
    /// Writes `rule`: a Python call's keyword arguments against `schema`
    /// (an object's, whose `$ref`s it resolves from its own root), their
    /// parentheses included.
    fn kwargs(&mut self, out: &mut String, rule: &str, schema: &Value);
    /// An expression: text matching `class`, a regex character class
    /// and its count (`[0-9]{1,4}`).
    fn pattern(&self, class: &str) -> String;
    /// An expression: any text, maybe none, that holds no marker (the text
    /// after the calls: no body after a separator, where bodies follow one
    /// another, see [`Shape::trail`]).
    fn any_text(&self) -> String;
    /// An expression: the text the content may start with, maybe none (not
    /// a JSON object, where one opens calls).
    fn any_lead(&self) -> String;
    /// An expression: [`Syntax::any_lead`]'s text, then a line end.
    fn any_lead_line(&self) -> String;
    /// Writes what [`Syntax::any_text`] and [`Syntax::any_lead`] name.
    fn finish(&mut self, out: &mut String);
}

/// Where text stands, which decides what it may not start with.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Place {
    /// At the content's start ([`Shape::lead`]).
    Start,
    /// Right after a call ([`Shape::trail`]).
    AfterCall,
    /// Anywhere else: reasoning, a value.
    Inside,
}

/// The grammar for the calls to `names` (declared in `tools`), spelled by
/// `syntax`; each JSON string holds none of `starts`.
pub(super) fn write(
    out: &mut String,
    syntax: &mut dyn Syntax,
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
    starts: &str,
) {
    let mut seen = Vec::new();
    let names: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| {
            let new = !seen.contains(name);
            seen.push(*name);
            new
        })
        .collect();
    if let Some(messages) = &shape.messages {
        write_messages(
            out, syntax, shape, messages, tools, &names, constraint, starts,
        );
        return;
    }
    let opener = shape.opener();
    let think = match (constraint.reasoning, shape.reasoning) {
        (true, Some(_)) => format!("{}? ", syntax.name("think")),
        _ => String::new(),
    };
    let (text, lead) = (syntax.any_text(), syntax.any_lead());
    let [before, more, call, call_rest] =
        ["before", "more", "call", "call_rest"].map(|r| syntax.name(r));
    // The calls after their opener (none where the format has no marker),
    // and at the output's start without one.
    let marked = !opener.is_empty();
    let bare = format!("{} {text}", syntax.name("bare"));
    let ways = |mut ways: Vec<String>, calls: String| {
        ways.extend(marked.then_some(calls));
        ways.extend(shape.bare.then(|| bare.clone()));
        match ways.len() {
            1 => format!("{think}{}", ways[0]),
            _ => format!("{think}({})", ways.join(" | ")),
        }
    };
    // A bare list (no opener) is one call, at the output's start or, where
    // the parser reads one there, after a line end.
    let bare_python = match (shape.bare_python, constraint.mode == ConstraintMode::Lazy) {
        (Some(true), true) => Some(format!("{}? {call} {text}", syntax.any_lead_line())),
        (Some(_), _) => Some(format!("\"\\n\"? {call} {text}")),
        (None, _) => None,
    };
    let start = match (constraint.mode.clone(), bare_python) {
        _ if names.is_empty() => format!("{think}{lead}"),
        (ConstraintMode::Lazy, Some(calls)) => format!("{think}({lead} | {calls})"),
        (_, Some(calls)) => format!("{think}{calls}"),
        // Text may follow the calls: it holds no marker, so no call.
        (ConstraintMode::Lazy, None) => {
            let calls = match constraint.parallel {
                true => format!("{before} {call_rest} ({more} {call_rest})*"),
                false => format!("{before} {call_rest}"),
            };
            ways(vec![lead], format!("{calls} {text}"))
        }
        (ConstraintMode::Required | ConstraintMode::Named(_), None) => {
            // A line end, or a blank line (DeepSeek's templates write one
            // before the calls), may come before each call.
            let calls = match constraint.parallel {
                true => format!("(\"\\n\"? \"\\n\"? {call})+"),
                false => format!("\"\\n\"? \"\\n\"? {call}"),
            };
            // Layout markers the model writes around its calls (Kimi K3
            // closes its response channel before them, its message after).
            let (lay_before, lay_after) = match shape.layout.is_empty() {
                true => (String::new(), String::new()),
                false => {
                    let l = syntax.name("layout");
                    (format!("{l}? {l}? "), format!(" {l}? {l}?"))
                }
            };
            ways(Vec::new(), format!("{lay_before}{calls} {text}{lay_after}"))
        }
    };
    syntax.define(out, "start", &start);
    if marked
        && !shape.layout.is_empty()
        && constraint.mode != ConstraintMode::Lazy
        && !names.is_empty()
    {
        let markers: Vec<String> = shape.layout.iter().map(|m| syntax.literal(m)).collect();
        syntax.define(out, "layout", &markers.join(" | "));
    }
    if marked
        && !names.is_empty()
        && constraint.mode == ConstraintMode::Lazy
        && shape.bare_python.is_none()
    {
        syntax.text_then(out, "before", opener, Place::Start);
        if constraint.parallel {
            syntax.text_then(out, "more", opener, Place::AfterCall);
        }
    }
    if let (true, Some((open, close))) = (constraint.reasoning, shape.reasoning) {
        // The prompt may have opened the reasoning itself. Then its text
        // stands at the output's start, where the parser reads a bare
        // body: it may not start one.
        let (open, rest) = (syntax.literal(open), syntax.name("think_rest"));
        let opened = match shape.lead() {
            None => format!("{open}? {rest}"),
            Some(_) => format!("({open} {rest} | {})", syntax.name("think_lead")),
        };
        syntax.define(out, "think", &format!("{opened} \"\\n\"? \"\\n\"?"));
        syntax.text_then(out, "think_rest", close, Place::Inside);
        if shape.lead().is_some() {
            syntax.text_then(out, "think_lead", close, Place::Start);
        }
    }
    if !names.is_empty() {
        write_wrapper(out, syntax, shape, opener, names.len(), constraint.parallel);
    }
    for (i, name) in names.iter().enumerate() {
        let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
        let order = tools.parameter_order(name);
        let func = shape.func(name, &params, &order, starts);
        write_func(out, syntax, i, &func);
    }
    syntax.finish(out);
}

/// The grammar of a stream of messages ([`Messages`]): answers (and
/// reasoning, where asked for) before the calls, each call a message of
/// its own, then the turn's end.
#[allow(clippy::too_many_arguments)]
fn write_messages(
    out: &mut String,
    syntax: &mut dyn Syntax,
    shape: &Shape,
    messages: &Messages,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
    starts: &str,
) {
    let sep = syntax.literal(&messages.separator);
    let eot = match messages.end_of_turn.is_empty() {
        true => String::new(),
        false => {
            let ends: Vec<String> = messages
                .end_of_turn
                .iter()
                .map(|e| syntax.literal(e))
                .collect();
            format!(" ({})?", ends.join(" | "))
        }
    };
    let call = syntax.name("call");
    let calls = match constraint.parallel {
        true => format!("{call} ({sep} {call})*{eot}"),
        false => format!("{call}{eot}"),
    };
    let thought = messages.reasoning.as_ref().filter(|_| constraint.reasoning);
    let thought: &[String] = thought.map_or(&[], std::slice::from_ref);
    // Answers come before the calls only where text may.
    let answers = match constraint.mode {
        ConstraintMode::Lazy => &messages.content[..],
        _ => &[],
    };
    let plains: Vec<(&str, &[String])> = [("answer", answers), ("thought", thought)]
        .into_iter()
        .filter(|(_, heads)| !heads.is_empty())
        .collect();
    // The messages' rules come after `start`, which they need.
    let mut rules = String::new();
    let out_rules = &mut rules;
    // A plain message and the separator after it; one that ends the output.
    let mut with_sep = Vec::new();
    let mut last = Vec::new();
    for (rule, heads) in &plains {
        let head = {
            let heads: Vec<String> = heads.iter().map(|h| syntax.literal(h)).collect();
            match heads.len() {
                1 => heads[0].clone(),
                _ => format!("({})", heads.join(" | ")),
            }
        };
        let closed = |syntax: &mut dyn Syntax, out: &mut String, rule: &str, closers: &[&str]| {
            let mut ways = Vec::new();
            for (k, closer) in closers.iter().enumerate() {
                let text = format!("{rule}_{k}");
                syntax.text_then(out, &text, closer, Place::Inside);
                ways.push(syntax.name(&text));
            }
            let body = format!("{head} ({})", ways.join(" | "));
            syntax.define(out, rule, &body);
        };
        // An answer may end the turn itself.
        let end = format!("{rule}_end");
        if *rule == "answer" && !messages.end_of_turn.is_empty() {
            closed(syntax, out_rules, &end, &messages.end_of_turn);
            last.push(syntax.name(&end));
        }
        match messages.closes.is_empty() {
            // No closer: the text ends at the next message, or the output's end.
            true => {
                closed(syntax, out_rules, rule, &[messages.separator.as_str()]);
                with_sep.push(syntax.name(rule));
                if *rule == "answer" {
                    last.push(format!("{head} {}", syntax.any_text()));
                }
            }
            false => {
                closed(syntax, out_rules, rule, &messages.closes);
                with_sep.push(format!("{} {sep}", syntax.name(rule)));
                if *rule == "answer" {
                    last.push(format!("{}{eot}", syntax.name(rule)));
                }
            }
        }
    }
    let start = match constraint.mode {
        ConstraintMode::Lazy => {
            let mut ends = last;
            ends.extend((!names.is_empty()).then(|| calls.clone()));
            match (with_sep.is_empty(), ends.is_empty()) {
                (_, true) => "\"\"".to_owned(),
                (true, false) => format!("({})?", ends.join(" | ")),
                (false, false) => format!("(({})* ({}))?", with_sep.join(" | "), ends.join(" | ")),
            }
        }
        // Reasoning may come first, where asked for.
        _ => match plains.iter().position(|(rule, _)| *rule == "thought") {
            Some(i) => format!("({})? {calls}", with_sep[i]),
            None => calls,
        },
    };
    syntax.define(out, "start", &start);
    out.push_str(&rules);
    if !names.is_empty() {
        let funcs: Vec<String> = (0..names.len())
            .map(|i| syntax.name(&format!("func_{i}")))
            .collect();
        syntax.define(out, "call", &funcs.join(" | "));
    }
    for (i, name) in names.iter().enumerate() {
        let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
        let order = tools.parameter_order(name);
        let func = messages.call(
            name,
            shape.func(name, &params, &order, starts),
            (shape.call_open, shape.call_close),
        );
        write_func(out, syntax, i, &func);
    }
    syntax.finish(out);
}

/// `call`: the opener, then one function (several, where one wrapper
/// holds them and calls are parallel), then the wrapper's closer.
fn write_wrapper(
    out: &mut String,
    syntax: &mut dyn Syntax,
    shape: &Shape,
    opener: &str,
    tools: usize,
    parallel: bool,
) {
    let func = syntax.name("func");
    let close = shape
        .call_close
        .map(|c| format!(" \"\\n\"? {}", syntax.literal(c)))
        .unwrap_or_default();
    let (first, more) = calls_in_wrapper(syntax, shape, &func, parallel);
    let funcs = (0..tools)
        .map(|i| syntax.name(&format!("func_{i}")))
        .collect::<Vec<_>>()
        .join(" | ");
    if !opener.is_empty() || shape.bare_python.is_some() {
        let call = match opener.is_empty() {
            true => syntax.name("call_rest"),
            false => format!("{} {}", syntax.literal(opener), syntax.name("call_rest")),
        };
        syntax.define(out, "call", &call);
        syntax.define(out, "call_rest", &format!("{first}{func}{more}{close}"));
    }
    if shape.bare {
        // The same bodies with no marker around them: the output's start
        // opens them, and their own end ends them.
        syntax.define(out, "bare", &format!("{first}{func}{more}"));
    }
    syntax.define(out, "func", &funcs);
}

/// What comes before the first function (`func`) in the wrapper, and the
/// further ones after it.
fn calls_in_wrapper(
    syntax: &dyn Syntax,
    shape: &Shape,
    func: &str,
    parallel: bool,
) -> (String, String) {
    // Python calls one per line need the line end between them; a list of
    // them a comma, and the space models write after it.
    let (line, comma) = match shape.body {
        Body::Python { .. } => ("\"\\n\"", "\",\" \" \"?"),
        _ => ("\"\\n\"?", "\",\""),
    };
    match (shape.holds_many(), shape.holds_list(), parallel) {
        (true, _, true) => ("\"\\n\"? ".to_owned(), format!(" ({line} {func})*")),
        (true, _, false) => ("\"\\n\"? ".to_owned(), String::new()),
        // A JSON list of calls; its elements' whitespace is theirs.
        (false, true, true) => (
            "\"\\n\"? \"[\" ".to_owned(),
            format!(" ({comma} {func})* \"]\""),
        ),
        (false, true, false) => ("\"\\n\"? \"[\" ".to_owned(), " \"]\"".to_owned()),
        // Bodies after a separator (`; `), as the template writes it; each
        // spelling one literal, which llguidance's lexer then prefers to
        // the text after the calls, which may start the same way.
        (false, false, true) => match shape.separator {
            Some(separator) => {
                let [bare, spaced] = ["", " "].map(|s| syntax.literal(&format!("{separator}{s}")));
                (String::new(), format!(" (({bare} | {spaced}) {func})*"))
            }
            None => (String::new(), String::new()),
        },
        (false, false, false) => (String::new(), String::new()),
    }
}

/// The grammar of what a wrapper holds, from after its opener up to its
/// closer (the structural tag's `tag` has them), `start` its first rule.
pub(super) fn write_body(
    out: &mut String,
    syntax: &mut dyn Syntax,
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    parallel: bool,
    starts: &str,
) {
    let func = syntax.name("func");
    let (first, more) = calls_in_wrapper(syntax, shape, &func, parallel);
    syntax.define(out, "start", &format!("{first}{func}{more}"));
    let funcs = (0..names.len())
        .map(|i| syntax.name(&format!("func_{i}")))
        .collect::<Vec<_>>()
        .join(" | ");
    syntax.define(out, "func", &funcs);
    for (i, name) in names.iter().enumerate() {
        let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
        let func = shape.func(name, &params, &tools.parameter_order(name), starts);
        write_func(out, syntax, i, &func);
    }
}

/// `func_I`: the function after the call's opener, up to the wrapper's
/// closer.
fn write_func(out: &mut String, syntax: &mut dyn Syntax, i: usize, func: &Func) {
    let mut head = match func.head.is_empty() {
        true => String::new(),
        false => format!("{} ", syntax.literal(&func.head)),
    };
    for piece in &func.rest {
        head = format!("{head}{} ", piece_of(syntax, piece));
    }
    let name_line = match func.name_line {
        true => "\"\\n\"? ",
        false => "",
    };
    let after_body = match func.after_body.is_empty() {
        true => String::new(),
        false => format!(" {}", syntax.literal(func.after_body)),
    };
    let mut close = func
        .close
        .as_deref()
        .map(|c| format!("{after_body} {}", syntax.literal(c)))
        .unwrap_or(after_body);
    for piece in &func.tail {
        close = format!("{close} {}", piece_of(syntax, piece));
    }
    match &func.body {
        FuncBody::Json { schema, line } => {
            let line = match line {
                true => "\"\\n\"? ",
                false => "",
            };
            let json = syntax.name(&format!("json_{i}"));
            let body = format!("{head}{name_line}{line}{json}{close}");
            syntax.define(out, &format!("func_{i}"), &body);
            syntax.json(out, &format!("json_{i}"), schema);
        }
        FuncBody::Python(schema) => {
            let args = syntax.name(&format!("args_{i}"));
            syntax.define(out, &format!("func_{i}"), &format!("{head}{args}"));
            syntax.kwargs(out, &format!("args_{i}"), schema);
        }
        FuncBody::Params(params) => {
            let list_rule = syntax.name(&format!("params_{i}"));
            let body = format!("{head}{name_line}\"\\n\"? {list_rule}{close}");
            syntax.define(out, &format!("func_{i}"), &body);
            let mut list = Vec::new();
            for (j, param) in params.iter().enumerate() {
                let rule = format!("p_{i}_{j}");
                let name = syntax.name(&rule);
                list.push(match param.required {
                    true => format!("{name} \"\\n\"?"),
                    false => format!("({name} \"\\n\"?)?"),
                });
                let value_open = param
                    .value_open
                    .map(|v| format!(" \"\\n\"? {}", syntax.literal(v)))
                    .unwrap_or_default();
                let value = format!("v_{i}_{j}");
                let body = format!(
                    "{}{value_open} {}",
                    syntax.literal(&param.head),
                    syntax.name(&value)
                );
                syntax.define(out, &rule, &body);
                write_value(out, syntax, param, &value);
            }
            let list = match list.is_empty() {
                true => "\"\"".to_owned(),
                false => list.join(" "),
            };
            syntax.define(out, &format!("params_{i}"), &list);
        }
    }
}

/// A piece of a function's head or tail.
fn piece_of(syntax: &dyn Syntax, piece: &Piece) -> String {
    match piece {
        Piece::Text(text) => syntax.literal(text),
        Piece::Index => syntax.pattern(INDEX),
        Piece::Id => syntax.pattern(ID),
        Piece::OptionalId(open) => format!("({} {})?", syntax.literal(open), syntax.pattern(ID)),
        Piece::Maybe(text) => format!("{}?", syntax.literal(text)),
    }
}

/// A value and its closer.
fn write_value(out: &mut String, syntax: &mut dyn Syntax, param: &Param, rule: &str) {
    let closer = syntax.literal(&param.close);
    let line = if param.lines { "\"\\n\"? " } else { "" };
    match &param.value {
        // The first closer ends the value, as it does for the parser.
        ValueGrammar::Text => match param.close.strip_prefix(param.ends_text) {
            // The marker the closer begins with ends the text; the rest
            // of the closer (an element's tag) follows it.
            Some(rest) if !rest.is_empty() => {
                let text = format!("{rule}_text");
                syntax.text_then(out, &text, param.ends_text, Place::Inside);
                let body = format!("{} {}", syntax.name(&text), syntax.literal(rest));
                syntax.define(out, rule, &body);
            }
            _ => syntax.text_then(out, rule, &param.close, Place::Inside),
        },
        ValueGrammar::Choice(texts) => {
            let texts: Vec<String> = texts.iter().map(|t| syntax.literal(t)).collect();
            let body = format!("{line}({}) {line}{closer}", texts.join(" | "));
            syntax.define(out, rule, &body);
        }
        // Left out by `Shape::func`.
        ValueGrammar::Never => {}
        ValueGrammar::Json(schema) => {
            let json = format!("{rule}_json");
            let body = format!("{line}{} {line}{closer}", syntax.name(&json));
            syntax.define(out, rule, &body);
            syntax.json(out, &json, schema);
        }
    }
}
