//! The rules every description keeps, built-in or a user's own: checked
//! when a format is compiled (built-in) or built ([`FormatBuilder`]), on a
//! [`Shape`], the view of a description that the rules read, so that a
//! user's description is checked before anything of it is kept.
//!
//! [`FormatBuilder`]: super::FormatBuilder

use std::fmt;

use super::{Description, NameEnd, Recoveries, Role};

/// What the rules read of a description.
pub(crate) struct Shape<'a> {
    pub markers: &'a [(Role, &'a str)],
    pub func_name_end: NameEnd,
    pub param_name_end: NameEnd,
    pub follows: &'a [(Role, &'a [Role])],
    pub call_confirmed_by: &'a [Role],
    pub bare_confirmed_by: &'a [Role],
    pub recoveries: Recoveries,
    pub quoted_names: bool,
    pub json_value_attribute: bool,
    /// The item type word (Step-3's `function`), if the format has one.
    pub item_type: bool,
    pub layout: Layout,
    /// The string delimiter of Gemma's object syntax, where the format
    /// writes its calls in it.
    pub string_delimiter: Option<&'a str>,
    /// Arguments may be a JSON body (`json_args_body`): with no parameter
    /// opener spelled, calls have no marked-up parameters at all.
    pub json_args_body: bool,
    /// Functions need no wrapper (`Description::unwrapped_functions`).
    pub unwrapped_functions: bool,
    /// Malformed opener spellings read as markers
    /// (`Description::misspellings`): checked as markers are.
    pub misspellings: &'a [(Role, &'a str)],
    /// The call's id comes before its name (`Json::id_before_name`).
    pub id_before_name: IdFirst,
    /// What the rules read of the format's message headers, if it has any.
    pub headers: Option<HeaderShape<'a>>,
}

/// What an id written before the name (`Json::id_before_name`) needs of the
/// rest of the description.
#[derive(Clone, Copy, Default)]
pub(crate) struct IdFirst {
    /// `Json::id_before_name` is set.
    pub on: bool,
    /// The arguments are a JSON object after the name (`args_after_name`).
    pub args_after_name: bool,
    /// The name holds the id (`id_in_name`) or a type word comes before it
    /// (`call_type`): the text before `ArgsOpen` is read another way.
    pub other_reading: bool,
}

impl IdFirst {
    pub(crate) fn of(on: bool, args_after_name: bool, other_reading: bool) -> IdFirst {
        IdFirst {
            on,
            args_after_name,
            other_reading,
        }
    }
}

/// What the rules read of a description's headers.
pub(crate) struct HeaderShape<'a> {
    pub reasoning_recipients: Vec<&'a str>,
    pub content_recipients: Vec<&'a str>,
    pub line_end: bool,
}

impl HeaderShape<'_> {
    pub(crate) fn of(headers: &super::Headers) -> HeaderShape<'static> {
        HeaderShape {
            reasoning_recipients: headers.reasoning_recipients.to_vec(),
            content_recipients: headers.content_recipients.to_vec(),
            line_end: headers.line_end,
        }
    }

    /// A recipient listed twice, or empty: it says nothing one way, or
    /// two ways.
    fn check(&self) -> Result<(), DescriptionError> {
        let all = self
            .reasoning_recipients
            .iter()
            .chain(&self.content_recipients);
        for (i, recipient) in all.clone().enumerate() {
            if recipient.is_empty() || all.clone().skip(i + 1).any(|other| other == recipient) {
                return Err(DescriptionError::HeaderRecipient((*recipient).to_owned()));
            }
        }
        Ok(())
    }
}

/// How calls are written, as far as the rules care.
#[derive(Clone, Copy)]
pub(crate) enum Layout {
    /// Parameters marked up (`ParamOpen` … `ParamClose`).
    Marked,
    /// JSON arguments after a name and its `ArgsOpen`.
    JsonArgs,
    /// A JSON call object after the opener; `unmarked`: or with none.
    JsonBody { unmarked: bool },
    /// Messages with headers.
    Headed,
}

impl Layout {
    /// A JSON format's layout: headed, a call body (which may open
    /// `unmarked`), or arguments after a name. A format whose parameters
    /// are `marked` up (it spells `ParamOpen`) is marked up after its
    /// markers, its JSON bodies only those that open unmarked (Laguna).
    pub(crate) fn of_json(marked: bool, headed: bool, body: bool, unmarked: bool) -> Layout {
        match (headed, body) {
            _ if marked => Layout::Marked,
            (true, _) => Layout::Headed,
            (false, true) => Layout::JsonBody { unmarked },
            (false, false) => Layout::JsonArgs,
        }
    }
}

impl Description {
    pub(crate) fn shape(&self) -> Shape<'_> {
        Shape {
            markers: self.markers,
            func_name_end: self.func_name_end,
            param_name_end: self.param_name_end,
            follows: self.follows,
            call_confirmed_by: self.call_confirmed_by,
            bare_confirmed_by: self.bare_confirmed_by,
            recoveries: self.recoveries,
            quoted_names: self.quoted_names,
            json_value_attribute: self.json_value_attribute.is_some()
                || self.string_value_attribute.is_some()
                || self.json_args_attribute.is_some()
                || self.index_attribute.is_some(),
            item_type: self.item_type.is_some(),
            // A body in place of a name: the calls are otherwise marked up.
            layout: self
                .json
                .filter(|json| !json.body_or_name)
                .map_or(Layout::Marked, |json| {
                    Layout::of_json(
                        self.has(Role::ParamOpen),
                        json.headers.is_some(),
                        json.body.is_some(),
                        json.open_at_start || json.open_at_line_start,
                    )
                }),
            string_delimiter: match self.json.map(|json| json.syntax) {
                Some(super::Syntax::Gemma { delimiter }) => Some(delimiter),
                _ => None,
            },
            json_args_body: self.json_args_body,
            unwrapped_functions: self.unwrapped_functions,
            misspellings: self.misspellings,
            id_before_name: self.json.map_or(IdFirst::default(), |json| {
                IdFirst::of(
                    json.id_before_name,
                    json.args_after_name,
                    json.id_in_name.is_some() || json.call_type.is_some(),
                )
            }),
            headers: self
                .headers
                .or(self.json.and_then(|json| json.headers))
                .as_ref()
                .map(HeaderShape::of),
        }
    }

    /// Checks the description (see [`Shape::check`]).
    pub(crate) fn validate(&self) -> Result<(), DescriptionError> {
        self.shape().check()
    }
}

impl Shape<'_> {
    fn has(&self, role: Role) -> bool {
        self.markers.iter().any(|(r, _)| *r == role)
    }

    /// Markers are non-empty and prefix-free; no marker holds another
    /// after its first byte but as its end (a failed match may start over
    /// inside the bytes it stepped, never behind a whole marker); every role the
    /// grammar needs is spelled; names end at ASCII bytes that start no
    /// marker; attributes follow quoted names.
    pub(crate) fn check(&self) -> Result<(), DescriptionError> {
        if let Some(delimiter) = self.string_delimiter {
            // The reader restarts a failed match at the byte that failed.
            let bytes = delimiter.as_bytes();
            if bytes.is_empty() || !delimiter.is_ascii() || bytes[1..].contains(&bytes[0]) {
                return Err(DescriptionError::StringDelimiter(delimiter.to_owned()));
            }
        }
        // Misspellings are markers too: the same automaton reads them.
        let all: Vec<(Role, &str)> = self
            .markers
            .iter()
            .chain(self.misspellings)
            .copied()
            .collect();
        for &(role, text) in &all {
            if text.is_empty() {
                return Err(DescriptionError::EmptyMarker(role));
            }
        }
        for &(role, _) in self.misspellings {
            if !matches!(role, Role::CallOpen | Role::FuncOpen | Role::ParamOpen) {
                return Err(DescriptionError::MisspelledRole(role));
            }
            if !self.has(role) {
                return Err(DescriptionError::UnspelledRole(role));
            }
        }
        // Two roles in one spelling: the engine could read it as only one
        // of them, and the other role would never be seen.
        for (i, &(first, a)) in all.iter().enumerate() {
            if let Some(&(second, _)) = all[i + 1..].iter().find(|&&(r, b)| b == a && r != first) {
                return Err(DescriptionError::SharedSpelling(a.into(), first, second));
            }
        }
        for &(_, a) in &all {
            for &(_, b) in &all {
                if a != b && b.starts_with(a) {
                    return Err(DescriptionError::Prefix(a.into(), b.into()));
                }
            }
        }
        for &(_, a) in &all {
            for &(_, b) in &all {
                // As its end, another marker is harmless: a match that
                // reaches it is whole, so none dies past it (Kimi K3's
                // `<|open|>tools<|sep|>` ends with `<|sep|>`).
                let inside = &a.as_bytes()[1..];
                let found = memchr::memmem::find(inside, b.as_bytes());
                if found.is_some_and(|at| at + b.len() != inside.len()) {
                    return Err(DescriptionError::Contains(a.into(), b.into()));
                }
            }
        }
        // Functionary v3.1's `<function=NAME>{…}</function>`: the JSON
        // body is the only way to write arguments.
        let no_params = self.json_args_body && !self.has(Role::ParamOpen);
        let mut needed = match self.layout {
            Layout::Headed if self.has(Role::HeadOpen) => vec![],
            Layout::Headed => vec![Role::ChannelOpen],
            // A body that may open without a marker needs no opener, nor
            // do functions that stand alone.
            Layout::JsonBody { unmarked: true } => vec![],
            Layout::Marked if self.unwrapped_functions => vec![Role::FuncOpen, Role::FuncClose],
            _ => vec![Role::CallOpen],
        };
        match self.layout {
            Layout::Marked if self.unwrapped_functions && no_params => {}
            Layout::Marked if self.unwrapped_functions => {
                needed.extend([Role::ParamOpen, Role::ParamClose])
            }
            Layout::Marked if no_params => needed.push(Role::CallClose),
            Layout::Marked => needed.extend([Role::CallClose, Role::ParamOpen, Role::ParamClose]),
            Layout::JsonArgs => needed.push(Role::ArgsOpen),
            Layout::JsonBody { .. } | Layout::Headed => {}
        }
        if self.has(Role::FuncOpen) || self.recoveries.bare_function {
            needed.push(Role::FuncOpen);
        }
        // A parameter name that ends at a marker ends at `KeyClose`, or at
        // `NameClose` where function and parameter names share their end.
        if matches!(self.layout, Layout::Marked)
            && !no_params
            && matches!(self.param_name_end, NameEnd::Marker { .. })
            && !self.has(Role::NameClose)
        {
            needed.push(Role::KeyClose);
        }
        if self.recoveries.value_without_open {
            needed.push(Role::ValueOpen);
        }
        // An item holds a marked-up function and is closed after it; a
        // type word needs its separator.
        if self.has(Role::ItemOpen) || self.item_type {
            needed.extend([Role::ItemOpen, Role::ItemClose, Role::FuncOpen]);
        }
        if self.item_type {
            needed.push(Role::ItemSep);
        }
        if self.id_before_name.on {
            self.check_id_before_name()?;
            // The id ends at `IdOpen`, the name then at `ArgsOpen`.
            needed.extend([Role::IdOpen, Role::ArgsOpen]);
        }
        for role in needed {
            if !self.has(role) {
                return Err(DescriptionError::MissingRole(role));
            }
        }
        for end in [self.func_name_end, self.param_name_end] {
            if let NameEnd::Byte(b) = end {
                if !b.is_ascii() {
                    return Err(DescriptionError::NameEndNotAscii(b));
                }
                if self.markers.iter().any(|(_, t)| t.as_bytes()[0] == b) {
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
        // A function opened without the wrapper is a call only once a
        // marker of `bare_confirmed_by` follows its name (or JSON arguments
        // open in its attribute): with none listed, the recovery (or the
        // unwrapped layout) would never read a call.
        if (self.recoveries.bare_function || self.unwrapped_functions)
            && self.bare_confirmed_by.is_empty()
            && !self.json_value_attribute
        {
            return Err(DescriptionError::BareNeverConfirmed);
        }
        if self.json_value_attribute && !self.quoted_names {
            return Err(DescriptionError::AttributeWithoutQuotedNames);
        }
        if let Some(headers) = &self.headers {
            // A header ends at the body's opener, or at its line's end.
            if !headers.line_end && !self.has(Role::ArgsOpen) {
                return Err(DescriptionError::MissingRole(Role::ArgsOpen));
            }
            headers.check()?;
        }
        Ok(())
    }

    /// An id before the name is read only where the arguments are JSON
    /// after the name, names end at markers (the id's end is `IdOpen`), and
    /// nothing else reads the text before `ArgsOpen`.
    fn check_id_before_name(&self) -> Result<(), DescriptionError> {
        let why = if !self.id_before_name.args_after_name {
            "the arguments are not one JSON object after the name (`arguments_after_name`)"
        } else if !matches!(self.func_name_end, NameEnd::Marker { .. }) {
            "function names end at a byte, so no marker ends the id"
        } else if self.id_before_name.other_reading {
            "the text before `arguments_open` is read as an id in the name (`id_in_name`) \
             or a type before it (`call_type`)"
        } else {
            return Ok(());
        };
        Err(DescriptionError::IdBeforeName(why))
    }
}

/// Why a format description was refused: each variant is one rule the
/// engine relies on, which [`rule`](DescriptionError::rule) states.
///
/// ```
/// use toolcall_stream::{DescriptionError, Format, FormatBuilder, Role};
/// let error = FormatBuilder::based_on("mine", Format::Qwen3Coder)
///     .marker(Role::FuncOpen, "<tool_call>=")
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     error,
///     DescriptionError::Prefix("<tool_call>".into(), "<tool_call>=".into())
/// );
/// assert_eq!(error.rule(), "no marker is the start of another");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DescriptionError {
    /// The format's name is empty, or is a built-in format's name or
    /// alias (which it would hide).
    Name(String),
    /// A role is spelled as the empty string.
    EmptyMarker(Role),
    /// One marker is the start of another: the longer one could never
    /// match.
    Prefix(String, String),
    /// A marker holds another marker after its first byte, and not as its
    /// end: a match of the outer one that fails would have to step back
    /// over a whole marker.
    Contains(String, String),
    /// A role that the format's layout needs is not spelled.
    MissingRole(Role),
    /// A name ends at a byte that starts a marker.
    NameEndStartsMarker(u8),
    /// A name ends at a byte that is not ASCII (it would split a
    /// character).
    NameEndNotAscii(u8),
    /// A role is used by the grammar (`follows`, confirmations) but not
    /// spelled.
    UnspelledRole(Role),
    /// A JSON-value attribute is set, but names are not quoted attribute
    /// values, after which attributes are read.
    AttributeWithoutQuotedNames,
    /// A list of JSON keys (a call object's name or arguments keys) is
    /// empty, or holds an empty key.
    EmptyKeys(&'static str),
    /// The string delimiter of a call syntax is empty, not ASCII, or
    /// repeats its first byte.
    StringDelimiter(String),
    /// A misspelling is given for a role that opens nothing: only the
    /// openers of a wrapper, a function and a parameter may be misspelled.
    MisspelledRole(Role),
    /// The call's id is said to come before its name (`id_before_name`)
    /// where it cannot be read: the arguments are not JSON after the name,
    /// names do not end at markers, or the text before the arguments is
    /// read another way (an id in the name, a type word).
    IdBeforeName(&'static str),
    /// A header recipient is empty, or listed twice (as reasoning and as
    /// content, or twice in one list).
    HeaderRecipient(String),
    /// One spelling is given to two roles (markers, or a misspelling and a
    /// marker): the marker could be read as only one of them.
    SharedSpelling(String, Role, Role),
    /// Functions may open without the wrapper (`bare_function`,
    /// `unwrapped_functions`), but `bare_confirmed_by` lists no marker:
    /// such a function could never be confirmed as a call.
    BareNeverConfirmed,
}

impl DescriptionError {
    /// The rule the description breaks, in a few words.
    pub fn rule(&self) -> &'static str {
        match self {
            DescriptionError::Name(_) => "a format has a name of its own",
            DescriptionError::EmptyMarker(_) => "markers are not empty",
            DescriptionError::Prefix(..) => "no marker is the start of another",
            DescriptionError::Contains(..) => {
                "no marker holds another after its first byte, but as its end"
            }
            DescriptionError::MissingRole(_) => "the layout's roles are spelled",
            DescriptionError::NameEndStartsMarker(_) => "names end at a byte no marker starts with",
            DescriptionError::NameEndNotAscii(_) => "names end at an ASCII byte",
            DescriptionError::UnspelledRole(_) => "the grammar's roles are spelled",
            DescriptionError::AttributeWithoutQuotedNames => "attributes follow quoted names",
            DescriptionError::EmptyKeys(_) => "JSON keys are not empty",
            DescriptionError::StringDelimiter(_) => {
                "a string delimiter is ASCII and does not repeat its first byte"
            }
            DescriptionError::MisspelledRole(_) => "only openers have misspellings",
            DescriptionError::IdBeforeName(_) => {
                "an id before the name needs JSON arguments after a name that ends at a marker"
            }
            DescriptionError::HeaderRecipient(_) => {
                "a header recipient is not empty and is listed once"
            }
            DescriptionError::SharedSpelling(..) => "one spelling has one role",
            DescriptionError::BareNeverConfirmed => "every way to open a call can be confirmed",
        }
    }
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::Name(name) if name.is_empty() => f.write_str("the name is empty"),
            DescriptionError::Name(name) => {
                write!(f, "{name:?} is the name of a built-in format")
            }
            DescriptionError::EmptyMarker(role) => write!(f, "marker {role} is empty"),
            DescriptionError::Prefix(a, b) => write!(f, "marker {a:?} is the start of {b:?}"),
            DescriptionError::Contains(a, b) => {
                write!(f, "marker {a:?} holds marker {b:?} after its first byte")
            }
            DescriptionError::MissingRole(role) => {
                write!(f, "this layout needs a marker for {role}")
            }
            DescriptionError::NameEndStartsMarker(b) => {
                write!(f, "names end at {:?}, which starts a marker", *b as char)
            }
            DescriptionError::NameEndNotAscii(b) => {
                write!(f, "names end at byte {b:#04x}, which is not ASCII")
            }
            DescriptionError::UnspelledRole(role) => {
                write!(f, "the grammar refers to {role}, which has no marker")
            }
            DescriptionError::AttributeWithoutQuotedNames => {
                f.write_str("a JSON-value attribute is set but names are not quoted")
            }
            DescriptionError::EmptyKeys(which) => write!(f, "the {which} keys are empty"),
            DescriptionError::StringDelimiter(d) => write!(
                f,
                "string delimiter {d:?} is empty, not ASCII, or repeats its first byte"
            ),
            DescriptionError::MisspelledRole(role) => write!(
                f,
                "{role} has misspellings, but only call_open, function_open and \
                 parameter_open may"
            ),
            DescriptionError::IdBeforeName(why) => {
                write!(f, "id_before_name is set, but {why}")
            }
            DescriptionError::HeaderRecipient(recipient) => write!(
                f,
                "header recipient {recipient:?} is empty or listed more than once"
            ),
            DescriptionError::SharedSpelling(text, first, second) => write!(
                f,
                "{text:?} spells both {first} and {second}; give each role a spelling of its own"
            ),
            DescriptionError::BareNeverConfirmed => f.write_str(
                "functions may open without the wrapper, but bare_confirmed_by lists no marker \
                 that could confirm such a call (the markers that follow a function's name: \
                 parameter_open, function_close, arguments_open)",
            ),
        }
    }
}

impl std::error::Error for DescriptionError {}
