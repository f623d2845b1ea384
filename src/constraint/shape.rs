//! A description read as the calls it writes: the markers in the order a
//! call spells them, and what goes between. Shapes the generator does not
//! write yet are refused here, by the description's fields, never by a
//! format's name.

use super::ConstraintError;
use crate::format::{Description, NameEnd, Role};

/// How a format writes one call.
pub(super) struct Shape {
    pub call_open: Option<&'static str>,
    pub call_close: Option<&'static str>,
    pub body: Body,
    /// The reasoning block's opener and closer.
    pub reasoning: Option<(&'static str, &'static str)>,
    /// Every marker's spelling: none may be written inside text or a
    /// string value, where the parser would act on it.
    pub markers: Vec<&'static str>,
    /// The first character of each marker, once each: a JSON string may
    /// hold none of them.
    pub marker_starts: String,
    /// A bare JSON object (or list of them) that opens the content is a
    /// call (Poolside, xLAM): text there may not start with one of these
    /// characters (`{`, and `[` where lists are calls).
    pub opens_calls: &'static str,
    /// A bare Python list of calls opens the output, and (`Some(true)`)
    /// any line: the calls are written so, with no wrapper (Llama 3.2's
    /// `[get_weather(city="Paris")]`).
    pub bare: Option<bool>,
}

/// What the wrapper holds.
pub(super) enum Body {
    /// A function with marked-up parameters.
    Markup(Markup),
    /// A function's name, then its arguments as one JSON object
    /// (`<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`).
    NameArgs {
        func_open: Option<&'static str>,
        args_open: &'static str,
        func_close: Option<&'static str>,
        /// The marker that ends the name (`</name>`), where one does.
        name_close: Option<&'static str>,
        /// The name is written inside the call's id (Kimi K2's
        /// `functions.NAME:0`): this prefix before it, and this separator
        /// and the call's index after it.
        id_in_name: Option<(&'static str, char)>,
        /// The call's id, where one is written beside the name.
        id: Option<CallId>,
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
    },
    /// Calls in Python call syntax, `NAME(key=value, …)`: a list of them
    /// (`[f(a=1), g()]`), or (not `list`) one per line where bodies may
    /// follow one another in the wrapper (Olmo 3's).
    Python { list: bool },
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

pub(super) struct Markup {
    pub func_open: Option<&'static str>,
    pub func_close: Option<&'static str>,
    /// What ends a function name: a byte, or (empty) the marker or line
    /// end after it.
    pub name_end: String,
    /// Whether a line end may end the name.
    pub name_line: bool,
    pub param_open: &'static str,
    /// What ends a parameter's name (a byte or `KeyClose`); empty where
    /// the value opener does.
    pub key_end: String,
    pub value_open: Option<&'static str>,
    pub param_close: &'static str,
    /// One line end on each side of a value is layout.
    pub value_lines: bool,
    /// Names are written in double quotes (`<invoke name="NAME">`).
    pub quoted: bool,
}

impl Markup {
    /// A name as the format writes it.
    pub(super) fn quote(&self, name: &str) -> String {
        match self.quoted {
            true => format!("\"{name}\""),
            false => name.to_owned(),
        }
    }
}

impl Body {
    pub(super) fn func_open(&self) -> Option<&'static str> {
        match self {
            Body::Markup(m) => m.func_open,
            Body::NameArgs { func_open, .. } | Body::JsonObject { func_open, .. } => *func_open,
            Body::Python { .. } => None,
        }
    }
}

impl Shape {
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
        if self.bare.is_some() {
            markers.extend(["[", "{"].iter().filter(|m| self.opens_calls.contains(**m)));
        }
        markers
    }

    /// How values' leaves are spelled: as Python literals in a call
    /// syntax's arguments, else as JSON.
    pub(super) fn words(&self) -> &'static super::gbnf_json::Words {
        match self.body {
            Body::Python { .. } => &super::python::PYTHON,
            _ => &super::gbnf_json::JSON,
        }
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
        for (role, what) in [
            (Role::HeadOpen, "message headers"),
            (Role::ItemOpen, "call items"),
            (Role::TypeOpen, "typed values"),
        ] {
            if desc.has(role) {
                return Err(refuse(what));
            }
        }
        // A call id is written where a name and JSON arguments are.
        if desc.has(Role::IdOpen) && !desc.json.is_some_and(|j| j.args_after_name) {
            return Err(refuse("call ids"));
        }
        if desc.headers.is_some()
            || desc.json_value_attribute.is_some()
            || desc.string_value_attribute.is_some()
        {
            return Err(refuse("names or values written as attributes"));
        }
        let body = match desc.json {
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
                let plain = (json.call_type_optional || json.call_type.is_none() && !json.fenced)
                    && json.headers.is_none()
                    && json.syntax == crate::json::syntax::Syntax::Json;
                match (plain, marker(Role::ArgsOpen)) {
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
            Some(json) if json.syntax == crate::json::syntax::Syntax::Python => {
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
            Some(json) => {
                // A fence around the JSON is layout the parser also reads,
                // and is not written; a body that may open any line is
                // text no grammar keeps apart from calls.
                let keys = json
                    .body
                    .filter(|_| {
                        !json.args_after_name
                            && json.headers.is_none()
                            && !json.open_at_line_start
                            && json.syntax == crate::json::syntax::Syntax::Json
                    })
                    .ok_or_else(|| refuse("JSON calls other than objects in a wrapper"))?;
                Body::JsonObject {
                    func_open: marker(Role::FuncOpen).filter(|_| !json.body_in_wrapper),
                    name_key: keys.name.first().copied().filter(|_| !keys.name_is_key),
                    args_keys: keys.arguments,
                    list: keys.list,
                }
            }
            None => Body::Markup(
                markup(desc, &marker)
                    .ok_or_else(|| refuse("parameters without an opener and a closer"))?,
            ),
        };
        let (call_open, call_close) = (marker(Role::CallOpen), marker(Role::CallClose));
        let wrapped = body.func_open().is_some();
        // A bare list that opens the output is the call a model of such a
        // format writes; a wrapper it also reads (Llama 4's) is not written.
        let bare = desc
            .json
            .filter(|j| j.open_at_start && matches!(body, Body::Python { .. }))
            .map(|j| j.open_at_line_start);
        let (call_open, call_close) = match bare {
            Some(_) => (None, None),
            None => (call_open, call_close),
        };
        if call_open.is_none() && !(desc.unwrapped_functions && wrapped) && bare.is_none() {
            return Err(refuse("calls without a wrapper"));
        }
        // JSON ends itself: its wrapper needs no closer.
        let json_body = matches!(body, Body::JsonObject { .. });
        let json_ends = json_body || matches!(body, Body::NameArgs { .. });
        if call_open.is_some() && call_close.is_none() && !wrapped && !json_ends {
            return Err(refuse("a wrapper with no closer"));
        }
        // Where a bare JSON call may open the output (Llama 3, xLAM), that
        // is the format's usual call, which the grammar does not write.
        if json_body && desc.json.is_some_and(|j| j.open_at_start) {
            return Err(refuse("JSON calls that open the output without a marker"));
        }
        // A bare Python body opens with `[`, or a JSON object's `{`.
        let list = matches!(
            body,
            Body::JsonObject { list: true, .. } | Body::Python { .. }
        );
        Ok(Shape {
            call_open: call_open.filter(|_| !desc.unwrapped_functions),
            call_close: call_close.filter(|_| !desc.unwrapped_functions),
            body,
            reasoning: marker(Role::ReasoningOpen).zip(marker(Role::ReasoningClose)),
            markers: desc.markers.iter().map(|(_, text)| *text).collect(),
            bare,
            opens_calls: match (desc.json.is_some_and(|j| j.open_at_start), list) {
                (false, _) => "",
                (true, false) => "{",
                (true, true) => "{[",
            },
            marker_starts: {
                let mut starts = String::new();
                for c in desc.markers.iter().filter_map(|(_, m)| m.chars().next()) {
                    if !starts.contains(c) {
                        starts.push(c);
                    }
                }
                starts
            },
        })
    }
}

fn markup(desc: &Description, marker: &impl Fn(Role) -> Option<&'static str>) -> Option<Markup> {
    let byte = |end: NameEnd| match end {
        NameEnd::Byte(b) => char::from(b).to_string(),
        NameEnd::Marker { .. } => String::new(),
    };
    let func_open = marker(Role::FuncOpen);
    let key_end = match desc.param_name_end {
        NameEnd::Byte(b) => char::from(b).to_string(),
        NameEnd::Marker { .. } => match marker(Role::KeyClose) {
            Some(close) => close.to_owned(),
            None => {
                marker(Role::ValueOpen)?;
                String::new()
            }
        },
    };
    // A name closed by a marker of its own (Hy3's `<tool_sep>`) ends there.
    let name_close = marker(Role::NameClose);
    Some(Markup {
        func_open,
        func_close: marker(Role::FuncClose),
        name_end: name_close.map_or_else(|| byte(desc.func_name_end), str::to_owned),
        name_line: name_close.is_none()
            && matches!(desc.func_name_end, NameEnd::Marker { line: true }),
        param_open: marker(Role::ParamOpen)?,
        key_end,
        value_open: marker(Role::ValueOpen),
        param_close: marker(Role::ParamClose)?,
        value_lines: desc.strip_one_newline,
        quoted: desc.quoted_names,
    })
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
        assert_eq!(reason(Format::OpenAi), "message headers");
        assert_eq!(reason(Format::Mistral), "written");
        assert_eq!(
            reason(Format::KimiK3),
            "names or values written as attributes"
        );
        // JSON lists in a wrapper, with or without a closer, and names as
        // keys; a bare JSON call at the output's start is not written.
        assert_eq!(reason(Format::Jamba), "written");
        assert_eq!(reason(Format::Granite), "written");
        assert_eq!(reason(Format::Apertus), "written");
        assert_eq!(
            reason(Format::Llama3Json),
            "JSON calls that open the output without a marker"
        );
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
        let bare = |f: Format| Shape::of(f.description()).map(|s| (s.bare, s.text_markers()));
        let (lines, text) = bare(Format::Pythonic).ok().unwrap_or_default();
        assert_eq!(lines, Some(true));
        assert!(text.contains(&"[") && text.contains(&"{") && text.contains(&"<|eot_id|>"));
        assert_eq!(bare(Format::Lfm2).map(|(b, _)| b), Ok(None));
    }
}
