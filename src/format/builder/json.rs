//! The builder's settings for formats that write calls as JSON (or in a
//! call syntax read as JSON): where the JSON is, its keys, ids, fences,
//! unmarked bodies.

use super::FormatBuilder;
use crate::format::owned::{OwnedBodyKeys, OwnedJson};
use crate::format::CallSyntax;

impl FormatBuilder {
    pub(super) fn json(&mut self) -> &mut OwnedJson {
        self.owned.json.get_or_insert_with(OwnedJson::default)
    }

    /// Makes the arguments JSON with nothing else said (a format file's
    /// empty `[json]`).
    #[cfg(feature = "toml")]
    pub(crate) fn json_settings_touched(mut self) -> FormatBuilder {
        self.json();
        self
    }

    /// JSON arguments: after a function name and its
    /// [`Role::ArgsOpen`](crate::Role::ArgsOpen) marker, one JSON object (Kimi K2, DeepSeek).
    pub fn json_arguments_after_name(mut self) -> FormatBuilder {
        self.json().args_after_name = true;
        self
    }

    /// JSON calls: after the opener, a call object whose `name` keys hold
    /// the function name and whose `arguments` keys the arguments
    /// (`{"name": …, "arguments": {…}}`); with `list`, a JSON list of them
    /// too.
    pub fn json_body<N, A>(mut self, name: N, arguments: A, list: bool) -> FormatBuilder
    where
        N: IntoIterator,
        N::Item: Into<String>,
        A: IntoIterator,
        A::Item: Into<String>,
    {
        self.json().body = Some(OwnedBodyKeys {
            name: name.into_iter().map(Into::into).collect(),
            arguments: arguments.into_iter().map(Into::into).collect(),
            list,
            name_is_key: false,
        });
        self
    }

    /// JSON calls whose only key is the function name and whose value is
    /// the arguments (`{"get_weather": {…}}`); with `list`, a list of them.
    pub fn json_body_name_is_key(mut self, list: bool) -> FormatBuilder {
        self.json().body = Some(OwnedBodyKeys {
            list,
            name_is_key: true,
            ..OwnedBodyKeys::default()
        });
        self
    }

    /// The name as written is the call's id, `PREFIX NAME SEP N`
    /// (Kimi's `functions.NAME:0`).
    pub fn json_id_in_name(mut self, prefix: impl Into<String>, index_sep: char) -> FormatBuilder {
        self.json().id_in_name = Some((prefix.into(), index_sep));
        self
    }

    /// The text before [`Role::ArgsOpen`](crate::Role::ArgsOpen) is the call's type, which must be
    /// `word`; the name follows up to a line end, then the arguments
    /// (DeepSeek V3's `function<｜tool▁sep｜>NAME`).
    pub fn json_call_type(mut self, word: impl Into<String>) -> FormatBuilder {
        self.json().call_type = Some(word.into());
        self
    }

    /// With JSON arguments after a name: the arguments' `{` right after a
    /// function name also opens them, as [`Role::ArgsOpen`](crate::Role::ArgsOpen) would
    /// (reported; Mistral's `NAME{…}` when `[ARGS]` was lost in decoding).
    pub fn json_brace_opens_arguments(mut self, on: bool) -> FormatBuilder {
        self.json().brace_opens_args = on;
        self
    }

    /// With JSON arguments after a name: [`Role::IdOpen`](crate::Role::IdOpen) ends the call's
    /// id, written first after the function opener, and the name follows
    /// it up to [`Role::ArgsOpen`](crate::Role::ArgsOpen) (Solar Open's
    /// `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>`).
    pub fn json_id_before_name(mut self, on: bool) -> FormatBuilder {
        self.json().id_before_name = on;
        self
    }

    /// With [`json_call_type`](FormatBuilder::json_call_type): the type may
    /// be left out, the name then coming before [`Role::ArgsOpen`](crate::Role::ArgsOpen) and the
    /// arguments' `{` right after it (DeepSeek V3.1 beside V3's shape);
    /// what follows the marker tells the two apart.
    pub fn json_call_type_optional(mut self, optional: bool) -> FormatBuilder {
        self.json().call_type_optional = optional;
        self
    }

    /// `&quot;` right before `,`, `}`, `]` or `:` in a JSON string is the
    /// string's closing quote, reported as `lenient_json` (Inkling writes
    /// it after URLs).
    pub fn json_entity_quotes(mut self, on: bool) -> FormatBuilder {
        self.json().entity_quotes = on;
        self
    }

    /// In a format whose calls are marked up: a call body may also stand
    /// in the wrapper where the function opener would come (a body's
    /// first byte there begins it).
    pub fn json_body_in_wrapper(mut self, on: bool) -> FormatBuilder {
        self.json().body_in_wrapper = on;
        self
    }

    /// After a function opener, a JSON call body (`{…}`, or a list where
    /// the body keys allow one) or a function name whose parameters are
    /// marked up, as the first byte after the opener says: one format
    /// for both (K2-Horizon's dialects).
    pub fn json_body_or_name(mut self, on: bool) -> FormatBuilder {
        self.json().body_or_name = on;
        self
    }

    /// Keys of a call object whose value is the call object itself
    /// (`{"type": "function", "function": {"name": …, "arguments": …}}`):
    /// the name and arguments are read inside it, the outer object's other
    /// keys skipped.
    pub fn json_nested_body_keys<I, S>(mut self, keys: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.json().nested_body_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// The JSON may sit in a Markdown code fence, which is layout.
    pub fn json_fenced(mut self, fenced: bool) -> FormatBuilder {
        self.json().fenced = fenced;
        self
    }

    /// A call body may open the output without a marker (`line_starts`:
    /// also at the start of any later line).
    pub fn json_open_unmarked(mut self, at_start: bool, line_starts: bool) -> FormatBuilder {
        let json = self.json();
        json.open_at_start = at_start || line_starts;
        json.open_at_line_start = line_starts;
        self
    }

    /// With [`json_open_unmarked`](FormatBuilder::json_open_unmarked): a body
    /// that opens without a marker is a call only when the keys before its
    /// name are arguments keys and its name is one of the request's tools;
    /// any other such JSON is content, quietly (Laguna's bare JSON beside its
    /// marked-up calls).
    pub fn json_unmarked_needs_tool(mut self, on: bool) -> FormatBuilder {
        self.json().unmarked_needs_tool = on;
        self
    }

    /// Call bodies may follow one another with only whitespace and this
    /// byte between them (Llama 3's `;`).
    pub fn json_body_separator(mut self, separator: u8) -> FormatBuilder {
        self.json().body_separator = Some(separator);
        self
    }

    /// Spellings of [`Role::CallOpen`](crate::Role::CallOpen) whose calls have no closer.
    pub fn json_unclosed_openers<I, S>(mut self, openers: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.json().unclosed_openers = openers.into_iter().map(Into::into).collect();
        self
    }

    /// Spellings of [`Role::CallOpen`](crate::Role::CallOpen) that the call body follows at once,
    /// without the [`Role::FuncOpen`](crate::Role::FuncOpen) the format's other openers need.
    pub fn json_body_openers<I, S>(mut self, openers: I) -> FormatBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.json().body_openers = openers.into_iter().map(Into::into).collect();
        self
    }

    /// The language call bodies are written in (see [`CallSyntax`]). A
    /// call syntax other than JSON makes the calls bodies after the opener
    /// (`NAME(…)` stands for `{"name": NAME, "arguments": {…}}`, a `[…]`
    /// list of them for a list).
    ///
    /// ```
    /// use toolcall_stream::{CallSyntax, FormatBuilder, Parser, Role};
    /// let format = FormatBuilder::new("acme_python")
    ///     .marker(Role::CallOpen, "<calls>")
    ///     .marker(Role::CallClose, "</calls>")
    ///     .json_call_syntax(CallSyntax::Python)
    ///     .build()
    ///     .unwrap();
    /// let message = Parser::new(format).parse(b"<calls>[f(a='x', n=2)]</calls>");
    /// assert_eq!(message.tool_calls[0].arguments, r#"{"a": "x", "n": 2}"#);
    /// ```
    pub fn json_call_syntax(mut self, syntax: CallSyntax) -> FormatBuilder {
        let json = self.json();
        // A literal body is the JSON body respelled: its keys stay the
        // format's.
        if !matches!(syntax, CallSyntax::Json | CallSyntax::PythonLiteral) {
            json.body = Some(OwnedBodyKeys {
                name: vec![crate::json::calls::NAME_KEY.to_owned()],
                arguments: crate::json::calls::ARGUMENTS_KEYS
                    .iter()
                    .map(|&key| key.to_owned())
                    .collect(),
                list: true,
                name_is_key: false,
            });
            json.id_keys = vec![crate::json::calls::ID_KEY.to_owned()];
        }
        json.syntax = syntax;
        self
    }
}
