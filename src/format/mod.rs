//! Formats as data. A [`Description`] says how one model family writes a
//! tool call: the spelling of each structural marker, how names end, how a
//! value is laid out, which marker may follow which, and which recoveries
//! apply. The engine (`src/engine/`) is written in terms of [`Role`]s and
//! reads everything else from the description; it holds no format's
//! spelling.
//!
//! A description is checked when the engine compiles it (`engine::Compiled`):
//! markers must be non-empty and prefix-free, no marker may hold another
//! after its first byte (a failed match may start over inside the bytes it
//! stepped, never behind a whole marker), and every role the grammar needs
//! must be spelled. A marker that holds another's first byte (Kimi's
//! `◁think▷`) makes its set re-anchor failed matches: see
//! `engine::driver`.

mod apertus;
mod auto;
mod bare_json;
mod catalog;
mod deepseek;
mod dsml;
mod gigachat;
mod glm;
mod harmony;
mod hermes;
mod json_wrapped;
mod kimi_k2;
mod llama3;
mod minimax_m2;
mod mistral;
mod models;
mod qwen3_coder;
mod seed_oss;
mod step3;
#[cfg(test)]
mod test_formats;
mod xlam;
mod xml_invoke;
mod xml_json;

use std::fmt;

#[cfg(test)]
use catalog::normalise;
pub use catalog::{Format, UnknownFormat};
pub use models::UnknownModel;

/// The structural role a marker plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    /// Opens the wrapper around one or more calls (`<tool_call>`).
    CallOpen,
    /// Closes the wrapper (`</tool_call>`).
    CallClose,
    /// Opens a function inside the wrapper; its name follows
    /// (`<function=`). Formats whose wrapper opens the function itself
    /// (GLM) have none.
    FuncOpen,
    /// Closes a function (`</function>`); without one, `CallClose` ends
    /// the call.
    FuncClose,
    /// Ends a function name that is a marked-up element of its own
    /// (`<name>NAME</name>`); whitespace, then a marker that confirms the
    /// call (`call_confirmed_by`: `<input>`, `<arguments>`), follow.
    NameClose,
    /// Opens a parameter; its name follows (`<parameter=`, `<arg_key>`).
    ParamOpen,
    /// Ends a parameter's name when the name ends at a marker
    /// (`</arg_key>`).
    KeyClose,
    /// Opens a value after its parameter's name (`<arg_value>`); without
    /// one, the value starts where the name ends.
    ValueOpen,
    /// Closes a value (`</parameter>`, `</arg_value>`).
    ParamClose,
    /// Ends a function name and opens its JSON arguments
    /// (`<|tool_call_argument_begin|>`, `<｜tool▁sep｜>`, `[ARGS]`).
    ArgsOpen,
    /// Ends a function name and opens the call's id, which `ArgsOpen`
    /// ends (Mistral's `[CALL_ID]`).
    IdOpen,
    /// Opens reasoning (`<think>`), outside calls, when the parser splits
    /// reasoning; text otherwise.
    ReasoningOpen,
    /// Closes reasoning (`</think>`).
    ReasoningClose,
    /// Opens a message header (Harmony's `<|start|>`): the author, the
    /// channel and the recipient follow, up to `ArgsOpen`.
    HeadOpen,
    /// Names the channel in a header (`<|channel|>`); outside one, it
    /// opens a header.
    ChannelOpen,
    /// Other header markup (`<|constrain|>`).
    HeadAttr,
    /// Ends a message that is not a call (`<|end|>`, `<|return|>`).
    BodyClose,
    /// Opens one call's item inside the wrapper, around its function
    /// (Step-3's `<｜tool_call_begin｜>`): the item's type word
    /// ([`Description::item_type`]) and `ItemSep`, then the function
    /// opener, follow.
    ItemOpen,
    /// Ends an item's type word (`<｜tool_sep｜>`).
    ItemSep,
    /// Closes an item, after its function's closer (`<｜tool_call_end｜>`).
    ItemClose,
}

impl Role {
    /// How many roles there are.
    pub(crate) const COUNT: usize = Role::ItemClose as usize + 1;

    /// Markers that may open a call (or a message) outside one.
    pub(crate) fn opens(self) -> bool {
        matches!(
            self,
            Role::CallOpen | Role::FuncOpen | Role::ItemOpen | Role::HeadOpen | Role::ChannelOpen
        )
    }

    /// Reasoning markers: structure only between calls, and only when
    /// reasoning is split.
    pub(crate) fn is_reasoning(self) -> bool {
        matches!(self, Role::ReasoningOpen | Role::ReasoningClose)
    }
}

/// How a format writes calls as JSON (see [`Description::json`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Json {
    /// After a function name and its `ArgsOpen` marker, the arguments are
    /// one JSON object, whose own end ends them.
    pub args_after_name: bool,
    /// After the wrapper's opener, a JSON call object (`{"name": …,
    /// "arguments": {…}}`), or a list of them.
    pub body: Option<BodyKeys>,
    /// The name as written is the call's id, and holds the function name
    /// (Kimi's `functions.NAME:0`).
    pub id_in_name: Option<IdInName>,
    /// The text before `ArgsOpen` is the call's type, which must be this
    /// (`function`); the name follows `ArgsOpen` up to a line end, and the
    /// arguments follow the name (DeepSeek V3: `function<｜tool▁sep｜>NAME\n{…}`).
    pub call_type: Option<&'static str>,
    /// The arguments may sit in a Markdown code fence (```` ```json ````
    /// … ```` ``` ````), which is layout.
    pub fenced: bool,
    /// Calls are messages with headers, which name the function (see
    /// [`Headers`]).
    pub headers: Option<Headers>,
    /// A body (or a list of them, or a fence around one, where the format
    /// has those) may open the output without a marker: only whitespace
    /// comes before it (Llama 3's bare `{"name": …}`). Later in the
    /// output, such text is content.
    pub open_at_start: bool,
    /// As `open_at_start`, and also at the start of every later line: a
    /// body (or a list, or a fence) whose first byte comes after a `\n`
    /// and only spaces or tabs opens a call (bare JSON). A `{` later in a
    /// line is content. JSON in content is normal in such a format, so a
    /// body that turns out not to be a call goes back to content without
    /// a diagnostic (a call's own JSON is reported as ever).
    pub open_at_line_start: bool,
    /// Bodies may follow one another with no marker between them, only
    /// whitespace and this byte (Llama 3's `; `).
    pub body_separator: Option<u8>,
    /// Openers (`CallOpen` spellings) whose calls have no closer, in a
    /// format whose other opener has one (xLAM's `[TOOL_CALLS]` beside
    /// `<tool_call>`…`</tool_call>`). A body that opens the output
    /// without a marker (`open_at_start`) has none either.
    pub unclosed_openers: &'static [&'static str],
}

/// Messages with headers (Harmony): `HeadOpen` (or `ChannelOpen`) opens a
/// header, `ArgsOpen` ends it, and the header decides what the body is: a
/// call's arguments when its recipient is one of the client's functions,
/// reasoning on a reasoning channel or for another recipient, content
/// otherwise. `BodyClose` ends a body, `FuncClose` a call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Headers {
    /// Channels whose bodies are reasoning (`analysis`).
    pub reasoning_channels: &'static [&'static str],
    /// What introduces a header's recipient (`to=`).
    pub recipient: &'static str,
    /// How a recipient that is one of the client's functions begins
    /// (`functions.`); the function's name follows.
    pub functions: &'static str,
}

/// How a function name is written inside a call id: `PREFIX NAME SEP N`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdInName {
    /// Before the name (`functions.`), when present.
    pub prefix: &'static str,
    /// Before the call's index (`:`), when present.
    pub index_sep: char,
}

impl IdInName {
    /// The function name inside an id as written: without the prefix, and
    /// without the separator and index when digits follow it.
    pub(crate) fn name_of(self, written: &str) -> &str {
        let name = written.strip_prefix(self.prefix).unwrap_or(written);
        match name.rsplit_once(self.index_sep) {
            Some((name, index))
                if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) =>
            {
                name
            }
            _ => name,
        }
    }
}

impl Json {
    /// The arguments are a JSON object after a name's `ArgsOpen`.
    pub(crate) const ARGS: Json = Json {
        args_after_name: true,
        body: None,
        id_in_name: None,
        call_type: None,
        fenced: false,
        headers: None,
        open_at_start: false,
        open_at_line_start: false,
        body_separator: None,
        unclosed_openers: &[],
    };

    /// A JSON call object (or list of them) after the wrapper's opener.
    pub(crate) const fn body(keys: BodyKeys) -> Json {
        Json {
            args_after_name: false,
            body: Some(keys),
            ..Json::ARGS
        }
    }
}

/// The keys of a JSON call object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyKeys {
    /// Keys whose string value is the function name.
    pub name: &'static [&'static str],
    /// Keys whose value is the arguments (an object, or a string holding
    /// one).
    pub arguments: &'static [&'static str],
    /// Whether a JSON list of call objects may stand for one.
    pub list: bool,
    /// The function name is the object's only key, and its value the
    /// arguments (Apertus's `{"get_weather": {"city": "Paris"}}`); `name`
    /// and `arguments` are then unused.
    pub name_is_key: bool,
}

/// How a function or parameter name ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameEnd {
    /// At this byte, which is consumed and belongs to no name
    /// (`<function=NAME>`). Markers are not looked for inside the name: a
    /// marker's first byte there means it was not a name.
    Byte(u8),
    /// At the next marker, which must be one that may follow the name; for
    /// `line`, also at a line end (GLM: `NAME\n<arg_key>` or
    /// `NAME<arg_key>`).
    Marker {
        /// Whether a `\n` also ends the name.
        line: bool,
    },
}

/// Recoveries that only make sense for some formats' shapes. Each one
/// reports its own diagnostic when it applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recoveries {
    /// A function opener without the wrapper (`<function=NAME>` alone) is a
    /// call when a marker in `bare_confirmed_by` follows it.
    pub bare_function: bool,
    /// `<parameter=KEY=VALUE</parameter>`: a `=` ends the parameter name
    /// and the value follows inline.
    pub equals_in_param_name: bool,
    /// `<parameter=KEY></parameter>VALUE`: text right after an empty value
    /// is the value.
    pub value_after_empty_close: bool,
    /// `<arg_key>K</arg_key>VALUE</arg_value>`: text where the value
    /// opener belongs starts the value.
    pub value_without_open: bool,
}

impl Recoveries {
    /// No format-specific recovery.
    pub(crate) const NONE: Recoveries = Recoveries {
        bare_function: false,
        equals_in_param_name: false,
        value_after_empty_close: false,
        value_without_open: false,
    };
}

/// One format's description: markers, names, values, grammar, recoveries.
#[derive(Debug)]
pub(crate) struct Description {
    /// The canonical name, as vLLM's `--tool-call-parser` spells it.
    pub name: &'static str,
    /// Other names users know the format by (lower case, `_` not `-`).
    pub aliases: &'static [&'static str],
    /// Each marker's role and spelling (any bytes, any length). A role may
    /// be spelled more than once (Harmony ends a message with `<|end|>` or
    /// `<|return|>`); diagnostics name its first spelling.
    pub markers: &'static [(Role, &'static str)],
    /// How a function name ends.
    pub func_name_end: NameEnd,
    /// How a parameter name ends.
    pub param_name_end: NameEnd,
    /// Whether one leading and one trailing `\n` of a value are the
    /// template's layout rather than value text (Qwen puts each value on
    /// lines of its own; GLM's values are verbatim).
    pub strip_one_newline: bool,
    /// Markers that, after a function name and whitespace, show that a
    /// call really began. Empty: the name's end is enough.
    pub call_confirmed_by: &'static [Role],
    /// The same for a function opened without the wrapper.
    pub bare_confirmed_by: &'static [Role],
    /// Which markers may follow a closer found inside a value for the
    /// closer to end it (`lookahead` value termination); anything else
    /// makes the closer value text.
    pub follows: &'static [(Role, &'static [Role])],
    /// In `lookahead` mode, a parameter opener inside a value ends the
    /// value only at the start of a line (where the template puts it).
    pub param_open_at_line_start: bool,
    /// Names are XML attribute values, in double, single or no quotes
    /// (MiniMax's `<invoke name="NAME">`): the quotes are not the name's.
    pub quoted_names: bool,
    /// A parameter attribute and the value of it that says the parameter's
    /// value is JSON (DSML's `string="false"`): typed as the JSON it is
    /// where no schema types it. Attributes follow a quoted name.
    pub json_value_attribute: Option<(&'static str, &'static str)>,
    /// In formats whose wrapper holds one item per call (`ItemOpen` …
    /// `ItemClose` around a marked-up function), the word an item's opener
    /// is followed by, up to `ItemSep`: the call's type (Step-3's
    /// `function`). Another word, or none, is read and reported
    /// (`unexpected_call_type`). `None`: the function opener follows the
    /// item's opener at once.
    pub item_type: Option<&'static str>,
    /// Format-specific recoveries.
    pub recoveries: Recoveries,
    /// Whether calls are written as JSON, and how; `None`: parameters are
    /// marked up (`ParamOpen`, `ParamClose`).
    pub json: Option<Json>,
}

impl Description {
    /// A format that writes its calls as JSON: the fields that only
    /// marked-up parameters use keep their defaults, and a name is
    /// confirmed by the `ArgsOpen` that ends it.
    pub(crate) const fn json(
        name: &'static str,
        markers: &'static [(Role, &'static str)],
        json: Json,
    ) -> Description {
        Description {
            name,
            aliases: &[],
            markers,
            func_name_end: NameEnd::Marker { line: false },
            param_name_end: NameEnd::Marker { line: false },
            strip_one_newline: false,
            call_confirmed_by: if json.args_after_name {
                &[Role::ArgsOpen]
            } else {
                &[]
            },
            bare_confirmed_by: &[],
            follows: &[],
            param_open_at_line_start: false,
            quoted_names: false,
            json_value_attribute: None,
            item_type: None,
            recoveries: Recoveries::NONE,
            json: Some(json),
        }
    }
}

/// Why a [`Description`] was refused. Raised when a format is compiled,
/// so a malformed description fails its format's first use and its tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DescriptionError {
    EmptyMarker(Role),
    /// One marker is a prefix of another: the longer one could never match.
    Prefix(&'static str, &'static str),
    /// A marker holds another marker after its first byte: a match of the
    /// outer one that dies would have to step back over a whole marker.
    Contains(&'static str, &'static str),
    /// A role the grammar needs is not spelled.
    MissingRole(Role),
    /// A name ends at a byte that starts a marker.
    NameEndStartsMarker(u8),
    /// A role is used by the grammar (`follows`, confirmations) but not
    /// spelled.
    UnspelledRole(Role),
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::EmptyMarker(role) => write!(f, "marker {role:?} is empty"),
            DescriptionError::Prefix(a, b) => write!(f, "marker {a:?} is a prefix of {b:?}"),
            DescriptionError::Contains(a, b) => {
                write!(f, "marker {a:?} holds marker {b:?} after its first byte")
            }
            DescriptionError::MissingRole(role) => {
                write!(f, "the grammar needs a marker for {role:?}")
            }
            DescriptionError::NameEndStartsMarker(b) => {
                write!(f, "names end at byte {b:#04x}, which starts a marker")
            }
            DescriptionError::UnspelledRole(role) => {
                write!(f, "the grammar refers to {role:?}, which has no marker")
            }
        }
    }
}

impl Description {
    pub(crate) fn has(&self, role: Role) -> bool {
        self.markers.iter().any(|(r, _)| *r == role)
    }

    /// Whether `next` may follow `closer` inside a value for the closer to
    /// end the value.
    pub(crate) fn follows(&self, closer: Role, next: Role) -> bool {
        self.follows
            .iter()
            .find(|(c, _)| *c == closer)
            .is_some_and(|(_, after)| after.contains(&next))
    }

    /// Checks the description (see the module's documentation).
    pub(crate) fn validate(&self) -> Result<(), DescriptionError> {
        for &(role, text) in self.markers {
            if text.is_empty() {
                return Err(DescriptionError::EmptyMarker(role));
            }
        }
        for &(_, a) in self.markers {
            for &(_, b) in self.markers {
                if a != b && b.starts_with(a) {
                    return Err(DescriptionError::Prefix(a, b));
                }
            }
        }
        for &(_, a) in self.markers {
            for &(_, b) in self.markers {
                if memchr::memmem::find(&a.as_bytes()[1..], b.as_bytes()).is_some() {
                    return Err(DescriptionError::Contains(a, b));
                }
            }
        }
        let headed = self.json.is_some_and(|json| json.headers.is_some());
        // A body that may open without a marker needs no opener.
        let unmarked = self.json.is_some_and(|json| {
            json.body.is_some() && (json.open_at_start || json.open_at_line_start)
        });
        let mut needed = if headed {
            vec![Role::ChannelOpen]
        } else if unmarked {
            vec![]
        } else {
            vec![Role::CallOpen]
        };
        match self.json {
            None => needed.extend([Role::CallClose, Role::ParamOpen, Role::ParamClose]),
            Some(json) if json.args_after_name => needed.push(Role::ArgsOpen),
            Some(_) => {}
        }
        if self.has(Role::FuncOpen) || self.recoveries.bare_function {
            needed.push(Role::FuncOpen);
        }
        if self.json.is_none() && matches!(self.param_name_end, NameEnd::Marker { .. }) {
            needed.push(Role::KeyClose);
        }
        if self.recoveries.value_without_open {
            needed.push(Role::ValueOpen);
        }
        // An item holds a marked-up function and is closed after it; a
        // type word needs its separator.
        if self.has(Role::ItemOpen) || self.item_type.is_some() {
            needed.extend([Role::ItemOpen, Role::ItemClose, Role::FuncOpen]);
        }
        if self.item_type.is_some() {
            needed.push(Role::ItemSep);
        }
        for role in needed {
            if !self.has(role) {
                return Err(DescriptionError::MissingRole(role));
            }
        }
        let first_bytes: Vec<u8> = self.markers.iter().map(|(_, t)| t.as_bytes()[0]).collect();
        for end in [self.func_name_end, self.param_name_end] {
            if let NameEnd::Byte(b) = end {
                if first_bytes.contains(&b) {
                    return Err(DescriptionError::NameEndStartsMarker(b));
                }
            }
        }
        let grammar_roles = self
            .follows
            .iter()
            .flat_map(|(closer, after)| std::iter::once(closer).chain(after.iter()))
            .chain(self.call_confirmed_by)
            .chain(self.bare_confirmed_by);
        for &role in grammar_roles {
            if !self.has(role) {
                return Err(DescriptionError::UnspelledRole(role));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
