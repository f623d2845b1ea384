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
//! `engine::markers`.

mod builder;
mod builtin;
mod catalog;
mod models;
mod owned;
mod response_template;
mod role;
mod rules;
#[cfg(test)]
mod test_formats;
#[cfg(feature = "toml")]
mod toml_file;
#[cfg(feature = "toml")]
mod toml_write;

pub use crate::json::elements::ElementValue;
pub(crate) use crate::json::syntax::Syntax;

pub use builder::{CallSyntax, CustomFormat, FormatBuilder, Recovery};
#[cfg(test)]
use catalog::normalise;
pub use catalog::{Format, UnknownFormat};
pub use models::UnknownModel;
pub use response_template::ResponseTemplateError;
pub use role::{Role, UnknownRole};
pub use rules::DescriptionError;
#[cfg(feature = "toml")]
pub use toml_file::FormatFileError;

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
    /// With `call_type`, the type may also be left out (`NAME<｜tool▁sep｜>{…}`,
    /// DeepSeek V3.1's shape beside V3's): what follows `ArgsOpen` tells the
    /// two apart. The arguments' `{` there makes the text before it the
    /// name; anything else makes it the type (which it must then be), with
    /// the name after it up to a line end and the arguments after that.
    pub call_type_optional: bool,
    /// The arguments may sit in a Markdown code fence (```` ```json ````
    /// … ```` ``` ````), which is layout.
    pub fenced: bool,
    /// With `args_after_name`: the arguments' own `{` right after a
    /// function name also ends the name and opens the arguments, as
    /// `ArgsOpen` would (reported: Mistral's older tokenizers drop
    /// `[ARGS]` in decoding). A name with whitespace in it is still none.
    pub brace_opens_args: bool,
    /// With `args_after_name`: `IdOpen` ends the call's id, written first
    /// after the function opener, and the name follows it up to `ArgsOpen`
    /// (Solar Open's `<|tool_call:begin|>ID<|tool_call:name|>NAME`
    /// `<|tool_call:args|>`), where Mistral writes the id after the name.
    pub id_before_name: bool,
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
    /// Openers (`CallOpen` spellings) the body follows at once, without the
    /// function opener the format's other openers need (GigaChat 3.1's
    /// `<|function_call|>{…}` beside 3's `function call<|role_sep|>{…}`).
    pub body_openers: &'static [&'static str],
    /// The language bodies are written in: JSON, or a call syntax
    /// (`NAME(a=1)`, `call:NAME{a:1}`) read as the same call bodies.
    pub syntax: Syntax,
    /// `&quot;` right before `,`, `}`, `]` or `:` in a JSON string is the
    /// string's closing quote, reported (Inkling writes it after URLs).
    pub entity_quotes: bool,
    /// A body that opens without a marker (`open_at_start`,
    /// `open_at_line_start`) is a call only when the keys before its name
    /// are arguments keys and its name is one of the request's tools (so
    /// never without tools); any other such JSON is content, quietly, as
    /// JSON in prose is (Laguna's bare `{"name": …, "arguments": …}` beside
    /// its marked-up calls).
    pub unmarked_needs_tool: bool,
    /// In a format whose calls are marked up (a function opener after the
    /// wrapper's), a call body may stand in the wrapper in the function's
    /// place: a body's first byte where the function opener would come
    /// begins it (dots' `<dots_function_call>{"name": …}` beside its
    /// `<dots_function_call><invoke name=…>`). The function opener there
    /// still opens a marked-up function.
    pub body_in_wrapper: bool,
    /// After a function opener, a call body (`{…}`, or a list where the
    /// keys allow one) or a function name whose parameters are marked up,
    /// as the first byte after the opener's whitespace says (K2-Horizon's
    /// `json` dialect beside its `xml` ones). The format's other fields
    /// describe the marked-up calls.
    pub body_or_name: bool,
    /// Keys of a call object whose value is the call object itself, one
    /// level down (`{"type": "function", "function": {"name": …,
    /// "arguments": …}}`, as OpenAI writes a tool call): the name and the
    /// arguments are read inside it, the outer object's other keys skipped.
    /// A value under such a key that is not an object, or an object with no
    /// name, makes the body no call.
    pub nested_body_keys: &'static [&'static str],
    /// Keys of a call body whose string value, written before the name, is
    /// the call's id, kept as the model wrote it (the element syntax's id
    /// attribute). After the name, such a key is skipped.
    pub id_keys: &'static [&'static str],
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
    /// What introduces a header's recipient (`to=`); empty: the header's
    /// first word after its opener is its recipient.
    pub recipient: &'static str,
    /// How a recipient that is one of the client's functions begins
    /// (`functions.`); the function's name follows.
    pub functions: &'static str,
    /// `ArgsOpen` spellings that say the body is reasoning, whatever the
    /// header says (Inkling's `<|content_thinking|>`).
    pub reasoning_openers: &'static [&'static str],
    /// `ArgsOpen` spellings that say the body is a JSON call body
    /// (`{"name": …, "args": {…}}`, read with the format's body keys),
    /// whatever the header says (Inkling's `<|content_invoke_tool_json|>`).
    pub call_openers: &'static [&'static str],
    /// A header's only text is the name of the function its body calls
    /// (Inkling's `<|message_model|>NAME`), never content: the header the
    /// prompt opened goes on while its text may be a name (no whitespace).
    pub name_only: bool,
    /// Recipients whose bodies are reasoning (Muse's `self`), where any
    /// recipient is a function (`functions` empty).
    pub reasoning_recipients: &'static [&'static str],
    /// Recipients whose bodies are content (Muse's `user`, `commentary`).
    pub content_recipients: &'static [&'static str],
    /// A header ends at its line's end, not at `ArgsOpen` (Functionary
    /// v3.2's `>>>NAME\n`); its text is its recipient alone, with no
    /// whitespace before the line end.
    pub line_end: bool,
    /// What the model names after each header opener, which the prompt
    /// wrote for the first message (Harmony's and Muse's `assistant`):
    /// written by a grammar between messages; the parser reads any.
    pub role: &'static str,
    /// The channel a call's header names (Harmony's `commentary`), and an
    /// answer's (`final`), where headers name channels: what a grammar
    /// writes; the parser reads any channel but the reasoning ones as
    /// these.
    pub call_channel: &'static str,
    pub content_channel: &'static str,
}

impl Headers {
    /// Harmony's kind: the header alone says what its body is.
    pub(crate) const fn by_recipient(
        reasoning_channels: &'static [&'static str],
        recipient: &'static str,
        functions: &'static str,
    ) -> Headers {
        Headers {
            reasoning_channels,
            recipient,
            functions,
            reasoning_openers: &[],
            call_openers: &[],
            name_only: false,
            reasoning_recipients: &[],
            content_recipients: &[],
            line_end: false,
            role: "",
            call_channel: "",
            content_channel: "",
        }
    }
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

    /// The function name inside an id whose separators were left out or
    /// replaced (`functionsexec5`, `functions_read_file_3`), when `known`
    /// accepts it: the id without the prefix's letters, the index's digits
    /// and the separators (or `_`) between them.
    pub(crate) fn name_without_separators(
        self,
        written: &str,
        known: impl Fn(&str) -> bool,
    ) -> Option<&str> {
        let is_sep = |c: char| c == self.index_sep || c == '_' || self.prefix.ends_with(c);
        let letters = self.prefix.trim_matches(|c: char| !c.is_alphanumeric());
        let written = written.trim();
        let rest = written
            .strip_prefix(self.prefix)
            .or_else(|| written.strip_prefix(letters))?;
        let name = rest
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .trim_matches(is_sep);
        (!name.is_empty() && known(name)).then_some(name)
    }
}

impl Json {
    /// The arguments are a JSON object after a name's `ArgsOpen`.
    pub(crate) const ARGS: Json = Json {
        args_after_name: true,
        body: None,
        id_in_name: None,
        call_type: None,
        call_type_optional: false,
        fenced: false,
        brace_opens_args: false,
        id_before_name: false,
        headers: None,
        open_at_start: false,
        open_at_line_start: false,
        body_separator: None,
        unclosed_openers: &[],
        body_openers: &[],
        unmarked_needs_tool: false,
        syntax: Syntax::Json,
        entity_quotes: false,
        body_in_wrapper: false,
        body_or_name: false,
        nested_body_keys: &[],
        id_keys: &[],
    };

    /// Calls in a call syntax (`NAME(a=1)`, `call:NAME{a:1}`) after the
    /// wrapper's opener, read as the JSON call bodies they stand for.
    pub(crate) const fn calls(syntax: Syntax) -> Json {
        Json {
            syntax,
            id_keys: &[crate::json::calls::ID_KEY],
            ..Json::body(BodyKeys {
                name: &[crate::json::calls::NAME_KEY],
                arguments: crate::json::calls::ARGUMENTS_KEYS,
                list: true,
                name_is_key: false,
            })
        }
    }

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

/// How a function or parameter name ends ([`FormatBuilder::function_name_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameEnd {
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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
    /// A wrapper opener spelled with a closing `>` is also read without
    /// it, when a line end follows its last byte before the `>`
    /// (`<｜DSML｜tool_calls` ⏎): the line end stands for the `>`.
    pub call_open_without_close: bool,
}

impl Recoveries {
    /// No format-specific recovery.
    pub(crate) const NONE: Recoveries = Recoveries {
        bare_function: false,
        equals_in_param_name: false,
        value_after_empty_close: false,
        value_without_open: false,
        call_open_without_close: false,
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
    /// call really began. Empty: the name's end is enough (a byte, a line
    /// end, or a marker that may end a name: see
    /// [`confirms_call`](Description::confirms_call)).
    pub call_confirmed_by: &'static [Role],
    /// The same for a function opened without the wrapper; empty: no such
    /// function is a call (an opener alone is too little to go on).
    pub bare_confirmed_by: &'static [Role],
    /// Which markers may follow a closer found inside a value for the
    /// closer to end it (`lookahead` value termination); anything else
    /// makes the closer value text. A closer with no entry ends the value
    /// whatever follows.
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
    /// A parameter attribute and the value of it that says the parameter's
    /// value is a string; any other value of the attribute says it is JSON
    /// (Kimi K3's `type="string"`, `type="integer"`, …). Without the
    /// attribute, a string.
    pub string_value_attribute: Option<(&'static str, &'static str)>,
    /// A function's arguments may instead be one JSON object in this
    /// attribute after its quoted name, read as it streams; the element
    /// then ends with `/>`, or with `>` and its closer (the leaked
    /// `<invoke name="N" args='{…}'/>`).
    pub json_args_attribute: Option<&'static str>,
    /// An attribute after a function's quoted name that numbers the call
    /// from 0 (Kimi K3's `index="0"`): read as any attribute is (it says
    /// nothing the parser needs), and written by the grammar, as the model
    /// writes it.
    pub index_attribute: Option<&'static str>,
    /// A function's arguments may instead be one JSON object written as
    /// its body, after the name's end and before its closer (DeepSeek
    /// V4.1's `<｜DSML｜ invoke name="N">{…}</｜DSML｜ invoke>`), read as it
    /// streams. Only where no parameter came first.
    pub json_args_body: bool,
    /// In formats whose wrapper holds one item per call (`ItemOpen` …
    /// `ItemClose` around a marked-up function), the word an item's opener
    /// is followed by, up to `ItemSep`: the call's type (Step-3's
    /// `function`). Another word, or none, is read and reported
    /// (`unexpected_call_type`). `None`: the function opener follows the
    /// item's opener at once.
    pub item_type: Option<&'static str>,
    /// Names of a parameter that may hold the whole arguments (DSML's
    /// `arguments`, `input`): when it is a call's only parameter, its tool
    /// declares parameters but not this one, and its value is a JSON object
    /// whose keys are all the tool's parameters, the object is the call's
    /// arguments, typed and checked by the schema like any call's
    /// (reported). Otherwise it is a parameter like any other. Its value
    /// is held until the call shows which.
    pub wrapped_arguments: &'static [&'static str],
    /// Format-specific recoveries.
    pub recoveries: Recoveries,
    /// Whether calls are written as JSON, and how; `None`: parameters are
    /// marked up (`ParamOpen`, `ParamClose`).
    pub json: Option<Json>,
    /// A suffix every marker that ends in `>` carries just before it, one
    /// per model checkpoint (Tencent Hy's `<tool_call:opensource>`): the
    /// markers above are spelled with it, and setting another
    /// ([`FormatBuilder::marker_suffix`], [`Format::with_marker_suffix`], a
    /// format file's `marker_suffix`) respells each of them. Empty: none.
    pub marker_suffix: &'static str,
    /// Marked-up calls inside messages with headers (Muse): the header says
    /// what its body is, as in a JSON format's [`Json::headers`]; a body
    /// addressed to a function holds the format's calls, which are text in
    /// any other body (reasoning, an answer). A header may also begin in a
    /// body where its recipient's introduction (`to=`, a `ChannelOpen`
    /// marker) comes: the model switched message without ending the one
    /// it was in (reported).
    pub headers: Option<Headers>,
    /// Functions stand alone, with no wrapper around them (MiniCPM's
    /// `<function name=…>`): a function opener opens a call wherever it
    /// comes, confirmed as a bare one is (`bare_confirmed_by`); without a
    /// wrapper, that is the format's shape, not a recovery: not reported.
    /// The format needs no `CallOpen` or `CallClose`.
    pub unwrapped_functions: bool,
    /// Malformed spellings of an opener (`CallOpen`, `FuncOpen`,
    /// `ParamOpen`) that the model writes (MiniCPM's collapsed
    /// `<functionname=`): read as the role's marker, and reported
    /// (`malformed_marker`) once the call or parameter they open is.
    pub misspellings: &'static [(Role, &'static str)],
}

/// `marker` with `suffix` written before its closing `>` (unchanged when it
/// does not end in one).
pub(crate) fn with_suffix(marker: &str, suffix: &str) -> String {
    match marker.strip_suffix('>') {
        Some(head) if !suffix.is_empty() => format!("{head}{suffix}>"),
        _ => marker.to_owned(),
    }
}

/// `marker` without the `suffix` before its closing `>`, the spelling
/// [`with_suffix`] makes it from.
pub(crate) fn without_suffix(marker: &str, suffix: &str) -> String {
    match marker
        .strip_suffix('>')
        .and_then(|m| m.strip_suffix(suffix))
    {
        Some(head) if !suffix.is_empty() => format!("{head}>"),
        _ => marker.to_owned(),
    }
}

impl Description {
    /// Nothing spelled: names end at the next marker, values are verbatim,
    /// parameters are marked up, no recovery. The defaults every other
    /// description (and a user's, `FormatBuilder::new`) starts from.
    pub(crate) const BLANK: Description = Description {
        name: "",
        aliases: &[],
        markers: &[],
        func_name_end: NameEnd::Marker { line: false },
        param_name_end: NameEnd::Marker { line: false },
        strip_one_newline: false,
        call_confirmed_by: &[],
        bare_confirmed_by: &[],
        follows: &[],
        param_open_at_line_start: false,
        quoted_names: false,
        json_value_attribute: None,
        string_value_attribute: None,
        json_args_attribute: None,
        index_attribute: None,
        json_args_body: false,
        item_type: None,
        wrapped_arguments: &[],
        recoveries: Recoveries::NONE,
        json: None,
        marker_suffix: "",
        headers: None,
        unwrapped_functions: false,
        misspellings: &[],
    };

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
            markers,
            call_confirmed_by: if json.args_after_name {
                &[Role::ArgsOpen]
            } else {
                &[]
            },
            json: Some(json),
            ..Description::BLANK
        }
    }
}

impl Description {
    pub(crate) fn has(&self, role: Role) -> bool {
        self.markers.iter().any(|(r, _)| *r == role)
    }

    /// Whether `role`, met right after a function name (or after it and
    /// whitespace), shows that a call began: a marker its confirmation
    /// list holds. An empty `call_confirmed_by` makes the name's end
    /// enough: where names end at a marker, the markers the layout may
    /// write after a name (`ArgsOpen` before JSON arguments; else a
    /// parameter, the function's or the wrapper's closer).
    pub(crate) fn confirms_call(&self, bare: bool, role: Role) -> bool {
        let listed = if bare {
            self.bare_confirmed_by
        } else {
            self.call_confirmed_by
        };
        if bare || !listed.is_empty() {
            return listed.contains(&role);
        }
        match self.json {
            Some(json) if json.args_after_name => role == Role::ArgsOpen,
            _ => matches!(
                role,
                Role::ParamOpen | Role::ParamsOpen | Role::FuncClose | Role::CallClose
            ),
        }
    }

    /// Whether `next` may follow `closer` inside a value for the closer to
    /// end the value; any may when `follows` says nothing of the closer.
    pub(crate) fn follows(&self, closer: Role, next: Role) -> bool {
        self.follows
            .iter()
            .find(|(c, _)| *c == closer)
            .map_or(true, |(_, after)| after.contains(&next))
    }
}

#[cfg(test)]
mod custom_tests;
#[cfg(test)]
mod tests;
