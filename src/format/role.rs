//! The roles markers play: the vocabulary every description, format file
//! and grammar state is written in, with their keys in format files.

use std::fmt;

/// The structural role a marker plays in a format: the building block of a
/// description ([`FormatBuilder::marker`](crate::FormatBuilder::marker)).
/// In a format file each role is a key of `[markers]`, spelled as
/// [`Role::key`] says (`call_open`, `parameter_close`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Role {
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
    /// call (`call_confirmed_by`: `<input>`, `<arguments>`), follow. In a
    /// format without `KeyClose`, it ends parameter names too (Kimi K3's
    /// `<|sep|>` after a call's or an argument's attributes).
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
    /// (the description's `item_type`) and `ItemSep`, then the function
    /// opener, follow.
    ItemOpen,
    /// Ends an item's type word (`<｜tool_sep｜>`).
    ItemSep,
    /// Closes an item, after its function's closer (`<｜tool_call_end｜>`).
    ItemClose,
    /// Markup around content that is not content (Kimi K3's response
    /// channel, `<|open|>response<|sep|>`): dropped between calls.
    Layout,
    /// The model's end-of-turn token (`<|im_end|>`, `<|eot_id|>`, `</s>`):
    /// the output ends there. Never content, never a value: what is open
    /// ends as at the end of the stream (a call cut off there is
    /// `truncated`), and the token is dropped, silently, as a server that
    /// stops at it would. Inside JSON it is JSON text, as every marker is.
    EndOfTurn,
    /// Opens a value's type, between its key and its value
    /// (`<ifm|arg_type>`): a JSON Schema type name (`integer`, `string`,
    /// `array[string]`, `any`) up to `TypeClose`, which types the value
    /// where the request's schema does not.
    TypeOpen,
    /// Closes a value's type (`</ifm|arg_type>`).
    TypeClose,
    /// Opens a raw section of a value (XML's `<![CDATA[`): its text is
    /// value text as written; no marker but `RawClose` counts inside it, so
    /// a `ParamClose` there does not end the value. Dropped, as `RawClose`
    /// is; outside a value, text.
    RawOpen,
    /// Closes a raw section (`]]>`).
    RawClose,
    /// Opens optional markup around a function's marked-up parameters
    /// (MiniCPM's legacy `<arguments>`): dropped inside a call; it may
    /// confirm a call (`bare_confirmed_by`); outside a call, text.
    ParamsOpen,
    /// Closes it (`</arguments>`): dropped inside a call.
    ParamsClose,
}

impl Role {
    /// How many roles there are.
    pub(crate) const COUNT: usize = Role::ParamsClose as usize + 1;

    /// Every role, in the order of this type's documentation.
    pub const ALL: [Role; Role::COUNT] = [
        Role::CallOpen,
        Role::CallClose,
        Role::FuncOpen,
        Role::FuncClose,
        Role::NameClose,
        Role::ParamOpen,
        Role::KeyClose,
        Role::ValueOpen,
        Role::ParamClose,
        Role::ArgsOpen,
        Role::IdOpen,
        Role::ReasoningOpen,
        Role::ReasoningClose,
        Role::HeadOpen,
        Role::ChannelOpen,
        Role::HeadAttr,
        Role::BodyClose,
        Role::ItemOpen,
        Role::ItemSep,
        Role::ItemClose,
        Role::Layout,
        Role::EndOfTurn,
        Role::TypeOpen,
        Role::TypeClose,
        Role::RawOpen,
        Role::RawClose,
        Role::ParamsOpen,
        Role::ParamsClose,
    ];

    /// The role's name in format files and messages (`call_open`,
    /// `function_open`, `parameter_close`, …).
    ///
    /// ```
    /// use toolcall_stream::Role;
    /// assert_eq!(Role::FuncOpen.key(), "function_open");
    /// assert_eq!("function_open".parse::<Role>(), Ok(Role::FuncOpen));
    /// ```
    pub fn key(self) -> &'static str {
        match self {
            Role::CallOpen => "call_open",
            Role::CallClose => "call_close",
            Role::FuncOpen => "function_open",
            Role::FuncClose => "function_close",
            Role::NameClose => "name_close",
            Role::ParamOpen => "parameter_open",
            Role::KeyClose => "key_close",
            Role::ValueOpen => "value_open",
            Role::ParamClose => "parameter_close",
            Role::ArgsOpen => "arguments_open",
            Role::IdOpen => "id_open",
            Role::ReasoningOpen => "reasoning_open",
            Role::ReasoningClose => "reasoning_close",
            Role::HeadOpen => "header_open",
            Role::ChannelOpen => "channel_open",
            Role::HeadAttr => "header_attribute",
            Role::BodyClose => "body_close",
            Role::ItemOpen => "item_open",
            Role::ItemSep => "item_separator",
            Role::ItemClose => "item_close",
            Role::Layout => "layout",
            Role::EndOfTurn => "end_of_turn",
            Role::TypeOpen => "type_open",
            Role::TypeClose => "type_close",
            Role::RawOpen => "raw_open",
            Role::RawClose => "raw_close",
            Role::ParamsOpen => "parameters_open",
            Role::ParamsClose => "parameters_close",
        }
    }

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

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The error of parsing a [`Role`] from a name that is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRole(String);

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown role {:?}; roles: ", self.0)?;
        let keys: Vec<&str> = Role::ALL.iter().map(|r| r.key()).collect();
        f.write_str(&keys.join(", "))
    }
}

impl std::error::Error for UnknownRole {}

impl std::str::FromStr for Role {
    type Err = UnknownRole;

    fn from_str(key: &str) -> Result<Role, UnknownRole> {
        Role::ALL
            .into_iter()
            .find(|role| role.key() == key)
            .ok_or_else(|| UnknownRole(key.to_owned()))
    }
}
