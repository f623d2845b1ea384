//! A description read as the calls it writes: the markers in the order a
//! call spells them, and what goes between. Shapes the generator does not
//! write yet are refused here, by the description's fields, never by a
//! format's name.

use super::markup::{elements_markup, markup};
pub(super) use super::markup::{Markup, ValueAttribute};
pub(super) use super::messages::Messages;
use super::ConstraintError;
use crate::format::{Description, NameEnd, Role};
use crate::json::syntax::Syntax;

/// How a format writes one call.
pub(super) struct Shape {
    pub call_open: Option<&'static str>,
    pub call_close: Option<&'static str>,
    /// Each function in an item of its own inside the wrapper: what opens
    /// the item (its opener, and the call's type and the separator after
    /// it where the format writes one) and what closes it (Step-3's
    /// `<｜tool_call_begin｜>function<｜tool_sep｜>` … `<｜tool_call_end｜>`).
    pub item: Option<(String, &'static str)>,
    pub body: Body,
    /// The reasoning block's opener and closer.
    pub reasoning: Option<(&'static str, &'static str)>,
    /// Every marker's spelling: none may be written inside text or a
    /// string value, where the parser would act on it.
    pub markers: Vec<&'static str>,
    /// Markers the parser drops as layout (Kimi K3's channel markers,
    /// `<|close|>response<|sep|>`): up to two may stand before required
    /// calls and after them, as the model writes them.
    pub layout: Vec<&'static str>,
    /// The first character of each marker, once each: a JSON string may
    /// hold none of them.
    pub marker_starts: String,
    /// A bare JSON object (or list of them) that opens the content is a
    /// call (Poolside, xLAM): text there may not start with one of these
    /// characters (`{`, `[` where lists are calls, `` ` `` where a fence
    /// may open one).
    pub opens_calls: String,
    /// The grammar writes calls at the output's start without a marker
    /// too (Llama 3's bare `{"name": …}`, xLAM's bare list).
    pub bare: bool,
    /// Bodies follow one another after this byte (Llama 3's `; `), with
    /// no marker between.
    pub separator: Option<char>,
    /// A bare body may open any line too (bare JSON): no line of the
    /// text may start with one of `opens_calls`, after whitespace.
    pub line_starts: bool,
    /// A bare Python list of calls opens the output, and (`Some(true)`)
    /// any line: the calls are written so, with no wrapper (Llama 3.2's
    /// `[get_weather(city="Paris")]`).
    pub bare_python: Option<bool>,
    /// Calls are messages with headers, in a stream of messages.
    pub messages: Option<Messages>,
}

/// Text that may not open a call where it stands: after whitespace and
/// any of `after`, it starts with none of `opens`; after a line end and
/// whitespace, with none of `line_opens`.
pub(super) struct Guard {
    pub after: String,
    pub opens: String,
    pub line_opens: String,
}

/// What the wrapper holds.
pub(super) enum Body {
    /// A function with marked-up parameters.
    Markup(Markup),
    /// A function's name, then its arguments as one JSON object
    /// (`<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`).
    NameArgs {
        func_open: Option<&'static str>,
        /// What opens the arguments: the arguments opener, and where the
        /// format names their content type with a marker, that marker,
        /// `json` and the second arguments opener (PLaMo 3's
        /// `<|plamo:constrain|>json<|plamo:msg|>`), as its model writes it.
        args_open: String,
        func_close: Option<&'static str>,
        /// The marker that ends the name (`</name>`), where one does.
        name_close: Option<&'static str>,
        /// The name is written inside the call's id (Kimi K2's
        /// `functions.NAME:0`): this prefix before it, and this separator
        /// and the call's index after it.
        id_in_name: Option<(&'static str, char)>,
        /// The call's id, where one is written beside the name.
        id: Option<CallId>,
        /// The call's type, written first, `args_open` after it, then the
        /// name to its line end, and the arguments in a ```` ```json ````
        /// fence where `fenced` (DeepSeek V3's
        /// `function<｜tool▁sep｜>NAME\n```json\n{…}\n```　`).
        call_type: Option<&'static str>,
        fenced: bool,
    },
    /// One JSON object, `{"<name>": NAME, "<arguments>": {…}}`, after the
    /// function opener where the format has one; or a JSON list of them
    /// (`list`).
    JsonObject {
        func_open: Option<&'static str>,
        /// The key whose value is the name; none where the name is the
        /// object's only key and its value the arguments (Apertus's
        /// `{"get_weather": {…}}`).
        name_key: Option<&'static str>,
        /// The keys the arguments may go under (`arguments`, `parameters`).
        args_keys: &'static [&'static str],
        list: bool,
        /// Written as a Python literal (Sarashina's `{'name': …}`).
        python: bool,
    },
    /// Calls in Python call syntax, `NAME(key=value, …)`: a list of them
    /// (`[f(a=1), g()]`), or (not `list`) one per line where bodies may
    /// follow one another in the wrapper (Olmo 3's).
    Python { list: bool },
    /// Calls in Gemma's object syntax, `call:NAME{key:value,…}`, one in
    /// each wrapper, strings between two `delimiter`s.
    Gemma { delimiter: &'static str },
    /// The arguments alone, as one JSON object: a message's header names
    /// the function (Harmony's `to=functions.NAME`).
    Args,
}

/// Where a call's id is written, and the marker that goes with it.
#[derive(Clone, Copy)]
pub(super) enum CallId {
    /// After the function opener, ended by this marker, the name after it
    /// (Solar Open's `<|tool_call:begin|>ID<|tool_call:name|>NAME`).
    BeforeName(&'static str),
    /// After the name, opened by this marker, or left out (Mistral's
    /// `NAME[CALL_ID]ID[ARGS]`).
    AfterName(&'static str),
}

impl Body {
    pub(super) fn func_open(&self) -> Option<&'static str> {
        match self {
            Body::Markup(m) => m.func_open,
            Body::NameArgs { func_open, .. } | Body::JsonObject { func_open, .. } => *func_open,
            Body::Python { .. } | Body::Gemma { .. } | Body::Args => None,
        }
    }
}

impl Shape {
    /// What the content's first text may not start with, where a bare
    /// body opens calls there.
    pub(super) fn lead(&self) -> Option<Guard> {
        (!self.opens_calls.is_empty()).then(|| Guard {
            after: String::new(),
            opens: self.opens_calls.clone(),
            line_opens: self.line_opens(),
        })
    }

    /// What no later line of the text may start with.
    fn line_opens(&self) -> String {
        match self.line_starts {
            true => self.opens_calls.clone(),
            false => String::new(),
        }
    }

    /// What text right after a call may not start with, where bodies
    /// follow one another after a separator: the parser reads `; {…}`
    /// there as the next body.
    pub(super) fn trail(&self) -> Option<Guard> {
        match (self.separator, self.line_starts) {
            (None, false) => None,
            (separator, _) => Some(Guard {
                after: separator.map(String::from).unwrap_or_default(),
                opens: separator.map_or("", |_| "{").into(),
                line_opens: self.line_opens(),
            }),
        }
    }

    /// Whether the wrapper holds a JSON list of calls.
    pub(super) fn holds_list(&self) -> bool {
        matches!(
            self.body,
            Body::JsonObject { list: true, .. } | Body::Python { list: true }
        )
    }

    /// Whether one wrapper may hold several functions (each with its own
    /// opener inside it, or Python calls, one per line).
    pub(super) fn holds_many(&self) -> bool {
        let opened =
            self.body.func_open().is_some() && !matches!(self.body, Body::JsonObject { .. });
        self.call_open.is_some() && (opened || matches!(self.body, Body::Python { list: false }))
    }

    /// The text outside calls and values may not hold: the markers, and
    /// where a bare list opens calls, its `[` and a JSON call's `{`
    /// anywhere (a safe rule: the parser reads one at a line's start).
    pub(super) fn text_markers(&self) -> Vec<&'static str> {
        let mut markers = self.markers.clone();
        if self.bare_python.is_some() {
            markers.extend(["[", "{"].iter().filter(|m| self.opens_calls.contains(**m)));
        }
        markers
    }

    /// How values' leaves are spelled: as Python literals or Gemma's in
    /// a call syntax's arguments, else as JSON.
    pub(super) fn words(&self) -> &'static super::gbnf_json::Words {
        match self.body {
            Body::Python { .. } => &super::python::PYTHON,
            Body::JsonObject { python: true, .. } => &super::python::LITERAL,
            Body::Gemma { .. } => &super::gemma::GEMMA,
            _ => &super::gbnf_json::JSON,
        }
    }

    /// The GBNF rules of this shape's values.
    pub(super) fn json_rules(&self) -> super::gbnf_json::JsonRules {
        let rules = super::gbnf_json::JsonRules::new(&self.marker_starts, self.words());
        match self.body {
            Body::Gemma { delimiter } => rules.delimited(delimiter),
            _ => rules,
        }
    }

    /// Whether values are written in a syntax of their own, which no style
    /// of xgrammar's reads, nor Lark's `%json` (Python's, Gemma's).
    pub(super) fn call_syntax(&self) -> bool {
        matches!(
            self.body,
            Body::Python { .. } | Body::Gemma { .. } | Body::JsonObject { python: true, .. }
        )
    }

    pub(super) fn of(desc: &Description) -> Result<Shape, ConstraintError> {
        let refuse = |reason: &str| ConstraintError::Unsupported {
            format: desc.name.to_owned(),
            reason: reason.to_owned(),
        };
        let marker = |role: Role| {
            desc.markers
                .iter()
                .find(|(r, _)| *r == role)
                .map(|(_, text)| *text)
        };
        let messages = Messages::of(desc);
        if desc.has(Role::HeadOpen) && messages.is_none() {
            return Err(refuse("message headers"));
        }
        // A call id is written where a name and JSON arguments are.
        if desc.has(Role::IdOpen) && !desc.json.is_some_and(|j| j.args_after_name) {
            return Err(refuse("call ids"));
        }
        let body = match desc.json {
            // Calls written as elements: marked-up parameters whose
            // closers carry their tags.
            Some(crate::format::Json {
                syntax: Syntax::Elements(spelling),
                headers: None,
                ..
            }) => Body::Markup(elements_markup(&spelling)),
            // The arguments alone: a message's header names the function.
            Some(json)
                if json.headers.is_some() && json.body.is_none() && json.syntax == Syntax::Json =>
            {
                Body::Args
            }
            // A JSON body the wrapper may hold in place of marked-up
            // functions (dots), or in place of a name (Poolside): the
            // functions are written.
            Some(json)
                if (json.body_in_wrapper || json.body_or_name) && desc.has(Role::ParamOpen) =>
            {
                Body::Markup(
                    markup(desc, &marker)
                        .ok_or_else(|| refuse("parameters without an opener and a closer"))?,
                )
            }
            Some(json) if json.args_after_name => {
                // The shape a call is written in; an alternative the
                // format also reads (DeepSeek V3's typed, fenced one,
                // Mistral's list, a `{` for `[ARGS]`) is not written.
                // A call type the format always writes comes first, the
                // name after it to its line end.
                let call_type = json.call_type.filter(|_| {
                    !json.call_type_optional
                        && matches!(desc.func_name_end, NameEnd::Marker { line: true })
                });
                let plain = (json.call_type_optional
                    || json.call_type.is_none() && !json.fenced
                    || call_type.is_some())
                    && json.headers.is_none()
                    && json.syntax == Syntax::Json;
                let mut args_opens = desc.markers.iter().filter(|(r, _)| *r == Role::ArgsOpen);
                let args_open = args_opens.next().map(|(_, open)| {
                    match (marker(Role::HeadAttr), args_opens.next()) {
                        (Some(attr), Some((_, then))) => format!("{open}{attr}json{then}"),
                        _ => (*open).to_owned(),
                    }
                });
                match (plain, args_open) {
                    (true, Some(args_open)) => Body::NameArgs {
                        func_open: marker(Role::FuncOpen),
                        args_open,
                        func_close: marker(Role::FuncClose),
                        name_close: marker(Role::NameClose),
                        id_in_name: json.id_in_name.map(|id| (id.prefix, id.index_sep)),
                        id: marker(Role::IdOpen).map(|open| match json.id_before_name {
                            true => CallId::BeforeName(open),
                            false => CallId::AfterName(open),
                        }),
                        call_type,
                        fenced: call_type.is_some() && json.fenced,
                    },
                    _ => {
                        return Err(refuse(
                            "JSON arguments other than after a name and a marker",
                        ))
                    }
                }
            }
            // Python calls in a wrapper. Several are a list where bodies
            // may not follow one another in it, else one per line.
            Some(json) if json.syntax == Syntax::Python => {
                if json.open_at_start && json.body_separator.is_some() {
                    return Err(refuse("Python calls that follow one another bare"));
                }
                if json.headers.is_some() {
                    return Err(refuse("message headers"));
                }
                Body::Python {
                    list: json.body_separator.is_none(),
                }
            }
            // Gemma's calls, one in each wrapper, which the wrapper's
            // opener opens.
            Some(crate::format::Json {
                syntax: Syntax::Gemma { delimiter },
                headers: None,
                open_at_start: false,
                ..
            }) => Body::Gemma { delimiter },
            Some(json) => {
                // A fence around the JSON is layout the parser also reads,
                // and is not written; a body that may open any line is
                // text no grammar keeps apart from calls.
                let keys = json
                    .body
                    .filter(|_| !json.args_after_name)
                    .filter(|_| matches!(json.syntax, Syntax::Json | Syntax::PythonLiteral))
                    .ok_or_else(|| refuse("JSON calls other than objects in a wrapper"))?;
                // Text kept from opening a line with a body is written as a
                // regular expression in the structural tag, which cannot
                // also keep markers out.
                if json.open_at_line_start && !desc.markers.is_empty() {
                    return Err(refuse("JSON calls that may open any line, beside markers"));
                }
                Body::JsonObject {
                    func_open: marker(Role::FuncOpen).filter(|_| !json.body_in_wrapper),
                    name_key: keys.name.first().copied().filter(|_| !keys.name_is_key),
                    args_keys: keys.arguments,
                    list: keys.list,
                    python: json.syntax == Syntax::PythonLiteral,
                }
            }
            None => match (markup(desc, &marker), desc.func_name_end) {
                (Some(markup), _) => Body::Markup(markup),
                // No parameters, but a JSON body after the name's end
                // (Functionary v3.1's `<function=NAME>{…}</function>`).
                (None, NameEnd::Byte(end)) if desc.json_args_body => Body::NameArgs {
                    func_open: marker(Role::FuncOpen),
                    args_open: char::from(end).to_string(),
                    func_close: marker(Role::FuncClose),
                    name_close: None,
                    id_in_name: None,
                    id: None,
                    call_type: None,
                    fenced: false,
                },
                (None, _) => return Err(refuse("parameters without an opener and a closer")),
            },
        };
        let (call_open, call_close) = (marker(Role::CallOpen), marker(Role::CallClose));
        let item = match (marker(Role::ItemOpen), marker(Role::ItemClose)) {
            (None, _) => None,
            // An item in a wrapper that closes, around a function.
            (Some(open), Some(close)) if call_close.is_some() && body.func_open().is_some() => {
                let typed = desc.item_type.zip(marker(Role::ItemSep));
                let head = typed.map_or(open.to_owned(), |(t, sep)| format!("{open}{t}{sep}"));
                Some((head, close))
            }
            _ => return Err(refuse("call items without a wrapper and a closer")),
        };
        let wrapped = body.func_open().is_some();
        // Where a bare JSON call may open the output (Llama 3, xLAM), that
        // is the format's usual call.
        let bare =
            matches!(body, Body::JsonObject { .. }) && desc.json.is_some_and(|j| j.open_at_start);
        // A bare list that opens the output is the call a model of such a
        // format writes; a wrapper it also reads (Llama 4's) is not written.
        let bare_python = desc
            .json
            .filter(|j| j.open_at_start && matches!(body, Body::Python { .. }))
            .map(|j| j.open_at_line_start);
        let (call_open, call_close) = match bare_python {
            Some(_) => (None, None),
            None => (call_open, call_close),
        };
        if call_open.is_none()
            && !(desc.unwrapped_functions && wrapped)
            && !bare
            && bare_python.is_none()
            && messages.is_none()
        {
            return Err(refuse("calls without a wrapper"));
        }
        // JSON ends itself: its wrapper needs no closer.
        let json_body = matches!(body, Body::JsonObject { .. });
        let json_ends = json_body || matches!(body, Body::NameArgs { .. });
        if call_open.is_some() && call_close.is_none() && !wrapped && !json_ends {
            return Err(refuse("a wrapper with no closer"));
        }
        // A bare Python body opens with `[`, or a JSON object's `{`.
        let list = matches!(
            body,
            Body::JsonObject { list: true, .. } | Body::Python { .. }
        );
        let json = desc.json.filter(|_| json_body);
        let mut markers: Vec<&'static str> = desc.markers.iter().map(|(_, text)| *text).collect();
        // In element calls, what begins a tag ends a text value, and `&`
        // begins an entity: the reader would act on either there.
        if let Body::Markup(Markup {
            elements: Some(e), ..
        }) = &body
        {
            markers.extend([e.ends_text(), "&"]);
        }
        Ok(Shape {
            item,
            call_open: call_open.filter(|_| !desc.unwrapped_functions),
            call_close: call_close.filter(|_| !desc.unwrapped_functions),
            body,
            reasoning: marker(Role::ReasoningOpen).zip(marker(Role::ReasoningClose)),
            marker_starts: {
                let mut starts = String::new();
                for c in markers.iter().filter_map(|m| m.chars().next()) {
                    if !starts.contains(c) {
                        starts.push(c);
                    }
                }
                starts
            },
            markers,
            layout: desc
                .markers
                .iter()
                .filter(|(role, _)| *role == Role::Layout)
                .map(|(_, text)| *text)
                .collect(),
            opens_calls: match desc
                .json
                .filter(|j| j.open_at_start || j.open_at_line_start)
            {
                None => String::new(),
                Some(j) => [(true, '{'), (list, '['), (j.fenced, '`')]
                    .iter()
                    .filter_map(|&(opens, c)| opens.then_some(c))
                    .collect(),
            },
            bare,
            bare_python,
            messages,
            separator: json.and_then(|j| j.body_separator).map(char::from),
            line_starts: json.is_some_and(|j| j.open_at_line_start),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    fn reason(format: Format) -> String {
        match Shape::of(format.description()) {
            Ok(_) => "written".into(),
            Err(ConstraintError::Unsupported { reason, .. }) => reason,
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_shape_is_read_from_the_descriptions_fields() {
        assert_eq!(reason(Format::Qwen3Coder), "written");
        assert_eq!(reason(Format::DeepSeekV31), "written");
        // Calls in messages with headers.
        assert_eq!(reason(Format::OpenAi), "written");
        assert_eq!(reason(Format::Muse), "written");
        assert_eq!(reason(Format::Mistral), "written");
        // Values said to be JSON or text by an attribute.
        assert_eq!(reason(Format::KimiK3), "written");
        assert_eq!(reason(Format::DeepSeekV32), "written");
        // A call type first, then the name to its line end, and the
        // arguments in a fence (DeepSeek V3).
        assert_eq!(reason(Format::DeepSeekV3), "written");
        // A function in an item of its own (Step-3's, PLaMo 3's).
        assert_eq!(reason(Format::Step3), "written");
        assert_eq!(reason(Format::Plamo3), "written");
        // A JSON body after the name's end (Functionary v3.1).
        assert_eq!(reason(Format::FunctionaryV31), "written");
        // JSON lists in a wrapper, with or without a closer, and names as
        // keys; a bare JSON call (or list) at the output's start.
        assert_eq!(reason(Format::Jamba), "written");
        assert_eq!(reason(Format::Granite), "written");
        assert_eq!(reason(Format::Apertus), "written");
        let bare =
            |f: Format| Shape::of(f.description()).map(|s| (s.bare, s.separator, s.opens_calls));
        assert_eq!(bare(Format::Llama3Json), Ok((true, Some(';'), "{".into())));
        assert_eq!(bare(Format::Xlam), Ok((true, None, "{[`".into())));
        assert_eq!(bare(Format::Hermes), Ok((false, None, String::new())));
        // Bare JSON's bodies open any line too, and it has no marker.
        let lines = |f: Format| Shape::of(f.description()).map(|s| (s.line_starts, s.opener()));
        assert_eq!(lines(Format::BareJson), Ok((true, "")));
        assert_eq!(lines(Format::Xlam), Ok((false, "<tool_call>")));
        let list = |f: Format| Shape::of(f.description()).map(|s| s.holds_list());
        assert_eq!(list(Format::Jamba), Ok(true));
        assert_eq!(list(Format::Hermes), Ok(false));
        // One wrapper holds several functions where functions have an
        // opener of their own inside it.
        let holds_many = |f: Format| Shape::of(f.description()).map(|s| s.holds_many());
        assert_eq!(holds_many(Format::Qwen3Coder), Ok(true));
        assert_eq!(holds_many(Format::Glm47), Ok(false));
        assert_eq!(holds_many(Format::Hermes), Ok(false));
        // Python calls in a wrapper: a list where bodies may not follow
        // one another in it (LFM2), else one per line (Olmo 3).
        assert_eq!(list(Format::Lfm2), Ok(true));
        assert_eq!(holds_many(Format::Lfm2), Ok(false));
        assert_eq!(list(Format::Olmo3), Ok(false));
        assert_eq!(holds_many(Format::Olmo3), Ok(true));
        // Pythonic's bare list, at the output's start or a line's.
        let bare =
            |f: Format| Shape::of(f.description()).map(|s| (s.bare_python, s.text_markers()));
        let (lines, text) = bare(Format::Pythonic).ok().unwrap_or_default();
        assert_eq!(lines, Some(true));
        assert!(text.contains(&"[") && text.contains(&"{") && text.contains(&"<|eot_id|>"));
        assert_eq!(bare(Format::Lfm2).map(|(b, _)| b), Ok(None));
        // Gemma's calls, one in each wrapper.
        assert_eq!(reason(Format::Gemma4), "written");
        assert_eq!(holds_many(Format::FunctionGemma), Ok(false));
        assert_eq!(list(Format::FunctionGemma), Ok(false));
    }

    #[test]
    fn element_calls_are_parameters_closed_by_their_tags() {
        let elements = |f: Format| match Shape::of(f.description()).ok().map(|s| s.body) {
            Some(Body::Markup(Markup {
                elements: Some(e), ..
            })) => e,
            _ => panic!("{f:?} has no element parameters"),
        };
        // MiniMax-M3's tags are the keys, each after the namespace token,
        // which ends a text value.
        let m3 = elements(Format::MiniMaxM3);
        assert_eq!(m3.head("city", ""), "]<]minimax[>[<city>");
        assert_eq!(m3.close("city"), "]<]minimax[>[</city>");
        assert_eq!(m3.ends_text(), "]<]minimax[>[");
        assert!(m3.writes("my_key") && !m3.writes("my key") && !m3.writes("a/b"));
        // Cohere's keys are attributes; `</` ends a text value.
        let cofl = elements(Format::CohereCofl);
        let head = cofl.head("my key", " string=\"true\"");
        assert_eq!(head, "<cofl:tool_param name=\"my key\" string=\"true\">");
        assert_eq!(cofl.close("my key"), "</cofl:tool_param>");
        assert_eq!(cofl.ends_text(), "</");
        assert!(cofl.writes("my key") && !cofl.writes("a\"b") && !cofl.writes("a&b"));
        // Neither may stand in text or a string, where the reader acts on it.
        let shape = Shape::of(Format::CohereCofl.description()).ok().unwrap();
        assert!(shape.markers.contains(&"</") && shape.markers.contains(&"&"));
        // A required key no tag can spell leaves its tool out.
        let spaced = serde_json::json!({"properties": {"a b": {}}, "required": ["a b"]});
        assert!(shape.callable(&spaced));
        let m3 = Shape::of(Format::MiniMaxM3.description()).ok().unwrap();
        assert!(!m3.callable(&spaced));
    }
}
