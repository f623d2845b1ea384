//! Formats of a user's own, from Rust: [`FormatBuilder`].

use std::fmt;
use std::hash::{Hash, Hasher};

use super::owned::{Owned, OwnedHeaders};
use super::{Description, DescriptionError, ElementValue, Format, NameEnd, Role};
use crate::engine::Compiled;

mod json;

/// A format described by its user, with the building blocks the built-in
/// formats are described with: [`Format::Custom`] holds one. Make one with
/// [`FormatBuilder`] (or, with the `toml` feature, `Format::from_toml`).
///
/// A custom format lives for the rest of the process, as the built-in
/// ones do; building an equal description again gives the same format
/// and keeps nothing more. Two custom formats are equal when their
/// descriptions are.
#[derive(Clone, Copy)]
pub struct CustomFormat {
    compiled: &'static Compiled,
}

impl CustomFormat {
    pub(crate) fn compiled(self) -> &'static Compiled {
        self.compiled
    }

    pub(crate) fn description(self) -> &'static Description {
        self.compiled.desc
    }
}

// Equal descriptions are kept once (see `owned`), so the kept address is
// the description's identity.
impl PartialEq for CustomFormat {
    fn eq(&self, other: &CustomFormat) -> bool {
        std::ptr::eq(self.compiled, other.compiled)
    }
}

impl Eq for CustomFormat {}

impl Hash for CustomFormat {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::ptr::hash(self.compiled, state);
    }
}

impl fmt::Debug for CustomFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CustomFormat")
            .field(&self.compiled.desc.name)
            .finish()
    }
}

impl Format {
    /// The format with every marker that ends in `>` carrying `suffix`
    /// just before it, in place of its own suffix: the spelling of one
    /// model checkpoint (see [`FormatBuilder::marker_suffix`]). The format
    /// keeps its name; with its own suffix it is the format itself.
    /// [`Format::Auto`] is returned as it is.
    ///
    /// ```
    /// use toolcall_stream::{parse, Format};
    /// // Hy3-preview writes Hy3's markers without a suffix.
    /// let preview = Format::HyV3.with_marker_suffix("")?;
    /// let message = parse(
    ///     preview,
    ///     "<tool_calls><tool_call>f<tool_sep><arg_key>a</arg_key><arg_value>1</arg_value></tool_call></tool_calls>",
    /// );
    /// assert_eq!(message.tool_calls[0].arguments, r#"{"a": "1"}"#);
    /// assert_eq!(preview.name(), "hy_v3");
    /// assert_eq!(Format::HyV3.with_marker_suffix(":opensource")?, Format::HyV3);
    /// # Ok::<(), toolcall_stream::DescriptionError>(())
    /// ```
    pub fn with_marker_suffix(self, suffix: &str) -> Result<Format, DescriptionError> {
        let desc = self.description();
        if self == Format::Auto || desc.marker_suffix == suffix {
            return Ok(self);
        }
        let mut owned = Owned::of(desc, desc.name.to_owned());
        owned.marker_suffix = suffix.to_owned();
        let compiled = owned.compile_variant()?;
        Ok(Format::Custom(CustomFormat { compiled }))
    }
}

/// A recovery that only some layouts know; each one is reported with its
/// own diagnostic when it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Recovery {
    /// A function opener without the call wrapper (`<function=NAME>`
    /// alone) is a call once a marker of
    /// [`bare_confirmed_by`](FormatBuilder::bare_confirmed_by) follows.
    BareFunction,
    /// `<parameter=KEY=VALUE</parameter>`: a `=` ends the parameter name
    /// and the value follows.
    EqualsInParameterName,
    /// `<parameter=KEY></parameter>VALUE`: text right after an empty value
    /// is the value.
    ValueAfterEmptyClose,
    /// `<arg_key>K</arg_key>VALUE</arg_value>`: text where the value
    /// opener belongs starts the value.
    ValueWithoutOpen,
    /// A wrapper opener spelled with a closing `>` (`<｜DSML｜tool_calls>`)
    /// is also read without it when a line end follows (`<｜DSML｜tool_calls`
    /// ⏎), reported as `malformed_marker` once its call is confirmed.
    CallOpenWithoutClose,
}

/// The language a format writes its call bodies in
/// ([`FormatBuilder::json_call_syntax`]; a format file's `[json] syntax`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallSyntax {
    /// JSON objects: `{"name": NAME, "arguments": {…}}` or whatever keys
    /// the body says.
    #[default]
    Json,
    /// Python calls, `NAME(key='value', n=3)`, alone or in a `[…]` list;
    /// arguments are keyword arguments holding literals, never evaluated.
    Python,
    /// Call bodies as Python literals: the JSON body
    /// ([`FormatBuilder::json_body`]) written as a dict,
    /// `{'name': 'f', 'arguments': {'a': True}}`, or a list of them;
    /// never evaluated.
    PythonLiteral,
    /// Gemma's `call:NAME{key:<|"|>value<|"|>,n:3}`: bare keys, strings
    /// between two `string_delimiter`s (ASCII, not repeating its first
    /// byte), other values bare.
    Gemma {
        /// What opens and closes a string (`<|"|>`, `<escape>`).
        string_delimiter: String,
    },
    /// Nested XML elements (MiniMax-M3): `<invoke name="NAME">` holding
    /// one element per parameter, named by it (`<city>Paris</city>`);
    /// an element holding elements is an object, or an array when they
    /// are `item_element`s; text is entity-decoded and typed by the
    /// schema.
    Elements {
        /// Written before every tag's `<` (`]<]minimax[>[`), or empty.
        tag_prefix: String,
        /// The element around one call (`invoke`).
        call_element: String,
        /// Its attribute that names the function (`name`).
        name_attribute: String,
        /// The children that make their parent an array (`item`); may be
        /// empty where `value_elements` are given.
        item_element: String,
        /// Elements that are values named by their `name_attribute`, not by
        /// their tag (Cohere's `cofl:value`); an unnamed one makes an
        /// undecided parent an array. Empty: values are named by their tags.
        value_elements: Vec<String>,
        /// The call element's attribute holding the call's id, kept as
        /// written (`id`); empty: none.
        id_attribute: String,
        /// A value element's attribute, a value of it, and what the element
        /// then holds (`("type", "dict", ElementValue::Object)`,
        /// `("string", "false", ElementValue::Json)`).
        holds: Vec<(String, String, ElementValue)>,
    },
}

/// Describes a format of one's own, checked by the rules the built-in
/// formats keep ([`DescriptionError`]). Most formats are a built-in one
/// spelled differently: start from it with
/// [`based_on`](FormatBuilder::based_on) and change what differs.
///
/// ```
/// use toolcall_stream::{parse, Format, FormatBuilder, Role};
///
/// // Qwen3-Coder's grammar in a wrapper of one's own.
/// let format = FormatBuilder::based_on("acme", Format::Qwen3Coder)
///     .marker(Role::CallOpen, "<acme:call>")
///     .marker(Role::CallClose, "</acme:call>")
///     .build()?;
/// let message = parse(
///     format,
///     "<acme:call><function=f><parameter=x>1</parameter></function></acme:call>",
/// );
/// assert_eq!(message.tool_calls[0].name, "f");
/// assert_eq!(message.tool_calls[0].arguments, r#"{"x": "1"}"#);
/// # Ok::<(), toolcall_stream::DescriptionError>(())
/// ```
#[derive(Clone, Debug)]
pub struct FormatBuilder {
    owned: Owned,
}

impl FormatBuilder {
    /// A format with nothing spelled yet: names end at the next marker,
    /// values are verbatim, parameters are marked up (until a `json_`
    /// setting makes the arguments JSON), no recovery.
    pub fn new(name: impl Into<String>) -> FormatBuilder {
        FormatBuilder {
            owned: Owned::empty(name.into()),
        }
    }

    /// `format`'s description under the name `name` (without its aliases),
    /// to change what differs.
    pub fn based_on(name: impl Into<String>, format: Format) -> FormatBuilder {
        FormatBuilder {
            owned: Owned::of(format.description(), name.into()),
        }
    }

    /// Another name the format is known by.
    pub fn alias(mut self, alias: impl Into<String>) -> FormatBuilder {
        self.owned.aliases.push(alias.into());
        self
    }

    /// Spells `role` as `text`, in place of its spellings so far.
    pub fn marker(self, role: Role, text: impl Into<String>) -> FormatBuilder {
        self.markers(role, [text])
    }

    /// Spells `role` in each of these ways (Harmony ends a message with
    /// `<|end|>` or `<|return|>`): in place of its spellings so far;
    /// diagnostics name the first. None: the role is not spelled.
    pub fn markers<I, S>(mut self, role: Role, texts: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.owned.markers.retain(|(r, _)| *r != role);
        self.owned
            .markers
            .extend(texts.into_iter().map(|t| (role, t.into())));
        self
    }

    /// Every marker that ends in `>` carries `suffix` just before it, in
    /// place of the suffix so far: a model checkpoint's own spelling of its
    /// markers (Tencent Hy3's `<tool_call:opensource>`, a Hy4 checkpoint's
    /// `<tool_call:6124c78e>`; none on Hy3-preview). Markers given to
    /// [`marker`](FormatBuilder::marker) are spelled without it.
    ///
    /// ```
    /// use toolcall_stream::{parse, Format, FormatBuilder};
    /// let format = FormatBuilder::based_on("hy4_mine", Format::HyV4)
    ///     .marker_suffix(":0a1b2c3d")
    ///     .build()?;
    /// let message = parse(
    ///     format,
    ///     "<tool_calls:0a1b2c3d><tool_call:0a1b2c3d>f</tool_call:0a1b2c3d></tool_calls:0a1b2c3d>",
    /// );
    /// assert_eq!(message.tool_calls[0].name, "f");
    /// # Ok::<(), toolcall_stream::DescriptionError>(())
    /// ```
    pub fn marker_suffix(mut self, suffix: impl Into<String>) -> FormatBuilder {
        self.owned.marker_suffix = suffix.into();
        self
    }

    /// How function names end: at a byte (`<function=NAME>`), or at the
    /// next marker.
    pub fn function_name_end(mut self, end: NameEnd) -> FormatBuilder {
        self.owned.func_name_end = end;
        self
    }

    /// How parameter names end.
    pub fn parameter_name_end(mut self, end: NameEnd) -> FormatBuilder {
        self.owned.param_name_end = end;
        self
    }

    /// Names are XML attribute values (`<invoke name="NAME">`), in double,
    /// single or no quotes; the quotes are not the name's.
    pub fn quoted_names(mut self, quoted: bool) -> FormatBuilder {
        self.owned.quoted_names = quoted;
        self
    }

    /// One leading and one trailing `\n` of a value are layout, not value
    /// (Qwen puts each value on lines of its own).
    pub fn strip_one_newline(mut self, strip: bool) -> FormatBuilder {
        self.owned.strip_one_newline = strip;
        self
    }

    /// A parameter attribute whose value says the parameter's value is
    /// JSON (DSML's `string="false"`); needs quoted names.
    pub fn json_value_attribute(
        mut self,
        attribute: impl Into<String>,
        value: impl Into<String>,
    ) -> FormatBuilder {
        self.owned.json_value_attribute = Some((attribute.into(), value.into()));
        self
    }

    /// A parameter attribute whose value `value` says the parameter's value
    /// is a string, and any other value that it is JSON (Kimi K3's
    /// `type="string"`); without the attribute, a string. Needs quoted
    /// names.
    pub fn string_value_attribute(
        mut self,
        attribute: impl Into<String>,
        value: impl Into<String>,
    ) -> FormatBuilder {
        self.owned.string_value_attribute = Some((attribute.into(), value.into()));
        self
    }

    /// Parameter names that may hold the whole arguments (DSML's
    /// `arguments`, `input`): a call's only parameter of such a name, which
    /// its tool does not declare, whose value is a JSON object of the
    /// tool's parameters, stands for the call's arguments (reported).
    pub fn wrapped_arguments<I, S>(mut self, names: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.owned.wrapped_arguments = names.into_iter().map(Into::into).collect();
        self
    }

    /// Functions stand alone, with no wrapper around them (MiniCPM's
    /// `<function name="N">…</function>`): a [`Role::FuncOpen`] opens a call
    /// wherever it comes, once a marker that
    /// [`bare_confirmed_by`](FormatBuilder::bare_confirmed_by) lists follows
    /// its name, and is not reported as a missing wrapper. No
    /// [`Role::CallOpen`] is needed. Turns [`Recovery::BareFunction`] on.
    pub fn unwrapped_functions(mut self, on: bool) -> FormatBuilder {
        self.owned.unwrapped_functions = on;
        self.owned.recoveries.bare_function |= on;
        self
    }

    /// A malformed spelling of an opener ([`Role::CallOpen`],
    /// [`Role::FuncOpen`] or [`Role::ParamOpen`]) that the model writes
    /// (MiniCPM's collapsed `<functionname=`): read as the role's marker,
    /// and reported (`malformed_marker`) once the call or parameter it
    /// opens is. Checked as markers are (prefix-free); may be given more
    /// than once.
    pub fn misspelling(mut self, role: Role, text: impl Into<String>) -> FormatBuilder {
        self.owned.misspellings.push((role, text.into()));
        self
    }

    /// Sets `role`'s misspellings (see
    /// [`misspelling`](FormatBuilder::misspelling)), in place of any it had.
    pub fn misspellings<I, S>(mut self, role: Role, texts: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.owned.misspellings.retain(|(r, _)| *r != role);
        for text in texts {
            self.owned.misspellings.push((role, text.into()));
        }
        self
    }

    /// Each call sits in an item (`ItemOpen` … `ItemClose`) whose opener
    /// is followed by this word, then `ItemSep` (Step-3's `function`).
    pub fn item_type(mut self, word: impl Into<String>) -> FormatBuilder {
        self.owned.item_type = Some(word.into());
        self
    }

    /// A function's arguments may be one JSON object in this attribute
    /// after its quoted name (`<invoke name="N" args='{…}'/>`), read as it
    /// streams; the element ends with `/>`, or `>` and its closer. Needs
    /// quoted names.
    pub fn json_args_attribute(mut self, attribute: impl Into<String>) -> FormatBuilder {
        self.owned.json_args_attribute = Some(attribute.into());
        self
    }

    /// An attribute after a function's quoted name that numbers the call
    /// from 0 (`<call tool="N" index="0">`): the parser reads it as any
    /// attribute; a grammar writes it. Needs quoted names.
    pub fn index_attribute(mut self, attribute: impl Into<String>) -> FormatBuilder {
        self.owned.index_attribute = Some(attribute.into());
        self
    }

    /// A function's arguments may instead be one JSON object written as
    /// its body, between the end of its opening (the name's end) and its
    /// closer (`<invoke name="N">{"city": "Paris"}</invoke>`), read as it
    /// streams; only where no parameter came first.
    pub fn json_args_body(mut self, on: bool) -> FormatBuilder {
        self.owned.json_args_body = on;
        self
    }

    /// Markers that, after a function name and whitespace, show that a
    /// call really began; none: the name's end is enough.
    pub fn call_confirmed_by(mut self, roles: impl IntoIterator<Item = Role>) -> FormatBuilder {
        self.owned.call_confirmed_by = roles.into_iter().collect();
        self
    }

    /// The same for a function opened without the wrapper
    /// ([`Recovery::BareFunction`]).
    pub fn bare_confirmed_by(mut self, roles: impl IntoIterator<Item = Role>) -> FormatBuilder {
        self.owned.bare_confirmed_by = roles.into_iter().collect();
        self
    }

    /// Which markers may follow `closer`, met inside a value, for it to
    /// end the value (`ValueTermination::Lookahead`); after anything else
    /// the closer is value text. Without this, a closer met in a value
    /// ends it whatever marker follows.
    pub fn follows(mut self, closer: Role, next: impl IntoIterator<Item = Role>) -> FormatBuilder {
        self.owned.follows.retain(|(c, _)| *c != closer);
        self.owned
            .follows
            .push((closer, next.into_iter().collect()));
        self
    }

    /// A parameter opener inside a value ends the value only at the start
    /// of a line.
    pub fn parameter_open_at_line_start(mut self, only: bool) -> FormatBuilder {
        self.owned.param_open_at_line_start = only;
        self
    }

    /// Turns a recovery on or off.
    pub fn recovery(mut self, recovery: Recovery, on: bool) -> FormatBuilder {
        let r = &mut self.owned.recoveries;
        match recovery {
            Recovery::BareFunction => r.bare_function = on,
            Recovery::EqualsInParameterName => r.equals_in_param_name = on,
            Recovery::ValueAfterEmptyClose => r.value_after_empty_close = on,
            Recovery::ValueWithoutOpen => r.value_without_open = on,
            Recovery::CallOpenWithoutClose => r.call_open_without_close = on,
        }
        self
    }

    /// Calls are messages with headers (Harmony): `recipient` introduces a
    /// header's recipient (`to=`), `functions` begins a recipient that is
    /// a function (`functions.`), and these channels are reasoning.
    pub fn json_headers<I, S>(
        mut self,
        recipient: impl Into<String>,
        functions: impl Into<String>,
        reasoning_channels: I,
    ) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.json().headers = Some(OwnedHeaders {
            reasoning_channels: reasoning_channels.into_iter().map(Into::into).collect(),
            recipient: recipient.into(),
            functions: functions.into(),
            ..OwnedHeaders::default()
        });
        self
    }

    /// Calls marked up inside messages with headers (Muse): `recipient`
    /// introduces a header's recipient (`to=`), `functions` begins a
    /// recipient that is a function (empty: any recipient not listed by
    /// [`header_recipients`](FormatBuilder::header_recipients) is), and
    /// these channels are reasoning. A message to a function holds its
    /// calls in the format's markup; calls in other messages are text.
    pub fn headers<I, S>(
        mut self,
        recipient: impl Into<String>,
        functions: impl Into<String>,
        reasoning_channels: I,
    ) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.owned.headers = Some(OwnedHeaders {
            reasoning_channels: reasoning_channels.into_iter().map(Into::into).collect(),
            recipient: recipient.into(),
            functions: functions.into(),
            ..OwnedHeaders::default()
        });
        self
    }

    /// The headers being described: [`headers`](FormatBuilder::headers)'
    /// where set, else [`json_headers`](FormatBuilder::json_headers)'.
    fn headers_mut(&mut self) -> &mut OwnedHeaders {
        if self.owned.headers.is_some() {
            return self.owned.headers.get_or_insert_with(OwnedHeaders::default);
        }
        self.json()
            .headers
            .get_or_insert_with(OwnedHeaders::default)
    }

    /// With [`json_headers`](FormatBuilder::json_headers) or
    /// [`headers`](FormatBuilder::headers): the `arguments_open` spellings
    /// that end a header also say what its body is (Inkling's typed
    /// blocks): reasoning after one of `reasoning_openers`, a JSON call
    /// body (read with [`json_body`](FormatBuilder::json_body)'s keys)
    /// after one of `call_openers`, content after the others. With
    /// `name_only`, a header's only text is the called function's name,
    /// never content.
    pub fn json_header_bodies<I, S>(
        mut self,
        reasoning_openers: I,
        call_openers: I,
        name_only: bool,
    ) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let headers = self.headers_mut();
        headers.reasoning_openers = reasoning_openers.into_iter().map(Into::into).collect();
        headers.call_openers = call_openers.into_iter().map(Into::into).collect();
        headers.name_only = name_only;
        self
    }

    /// With [`json_headers`](FormatBuilder::json_headers) or
    /// [`headers`](FormatBuilder::headers): a header ends at its line's
    /// end, not at `arguments_open` (Functionary v3.2's `>>>NAME\n`), and
    /// is its recipient alone.
    pub fn header_line_end(mut self, on: bool) -> FormatBuilder {
        self.headers_mut().line_end = on;
        self
    }

    /// With [`json_headers`](FormatBuilder::json_headers) or
    /// [`headers`](FormatBuilder::headers): recipients whose bodies are
    /// reasoning (Muse's `self`) and content (Muse's `user`), whatever
    /// `functions` says of them. A recipient is in one list at most.
    pub fn header_recipients<I, S>(mut self, reasoning: I, content: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let reasoning: Vec<String> = reasoning.into_iter().map(Into::into).collect();
        let content: Vec<String> = content.into_iter().map(Into::into).collect();
        if reasoning.is_empty() && content.is_empty() {
            return self;
        }
        let headers = self.headers_mut();
        headers.reasoning_recipients = reasoning;
        headers.content_recipients = content;
        self
    }

    /// With [`json_headers`](FormatBuilder::json_headers) or
    /// [`headers`](FormatBuilder::headers): what the model writes in
    /// headers, for the grammar [`Format::constraint`](crate::Format::constraint)
    /// makes (the parser reads any): the role it names after each header
    /// opener (Harmony's `assistant`), and where headers name channels, the
    /// channel of a call (`commentary`) and of an answer (`final`). Empty:
    /// none is written.
    pub fn header_writing(
        mut self,
        role: impl Into<String>,
        call_channel: impl Into<String>,
        content_channel: impl Into<String>,
    ) -> FormatBuilder {
        let headers = self.headers_mut();
        headers.role = role.into();
        headers.call_channel = call_channel.into();
        headers.content_channel = content_channel.into();
        self
    }

    /// Checks the description and makes the format.
    pub fn build(self) -> Result<Format, DescriptionError> {
        let compiled = self.owned.compile()?;
        Ok(Format::Custom(CustomFormat { compiled }))
    }

    #[cfg(all(test, feature = "toml"))]
    pub(crate) fn owned(&self) -> &Owned {
        &self.owned
    }
}
