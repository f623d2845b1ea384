//! Where the engine is: the grammar's states, and what each one's text
//! means.

use crate::format::Role;

/// Whitespace, as the grammar reads layout.
pub(crate) const WS: [char; 4] = [' ', '\t', '\r', '\n'];

/// Where the engine is. Comments say what the state's text means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// The start of the output, in formats whose call body may open it
    /// without a marker (`Json::open_at_start`): whitespace is content, a
    /// body's first byte opens one, anything else is content from here on
    /// (up to the next line, with `Json::open_at_line_start`).
    Start,
    /// Outside any call: text is content.
    Content,
    /// After the wrapper's opener, before the function opener (formats
    /// that have one): tentative, text is held until a function name
    /// confirms the call or the window runs out.
    Preamble,
    /// After an item's opener (`Role::ItemOpen`): its type word, up to
    /// `ItemSep`; held with the opening.
    ItemType,
    /// Reading a function name; tentative (see `Opening`).
    FuncName,
    /// A function name was read; whitespace is held until a marker that
    /// confirms the call follows (or something else shows it was not one).
    Confirming,
    /// Inside a call, between parameters: whitespace is layout, other text
    /// is stray.
    InCall,
    /// After a list element's call became unreadable: the rest of the
    /// element is content, then the list is read on (`engine::body::resync`).
    Resync,
    /// Reading a parameter name; `in_value`: an opener inside a value,
    /// tentative until the name shows whether it starts a parameter (a
    /// missing closer) or is value text (a name already given, or one the
    /// tool does not have).
    ParamName { in_value: bool },
    /// After a parameter name that a marker ended (`</arg_key>`), before
    /// the value opener (`<arg_value>`): whitespace is layout.
    KeyDone,
    /// After `TypeOpen` in `KeyDone`: the value's type name, up to
    /// `TypeClose`, which goes back to `KeyDone`.
    ValueType,
    /// Inside a parameter value: text is value text.
    Value,
    /// `lookahead` mode: a closer was seen inside a value; it ends the
    /// value only if whitespace and a marker that may follow it (or the
    /// end) come next. The closer and the whitespace are held.
    CloserPending(Role),
    /// `lookahead` mode: a near-miss of the value's closer (`</parameter`
    /// then `1>`, `_function>`, or a line end) inside a value; it ends the
    /// value only if whitespace and a marker that may follow the closer
    /// come next. `junk_done`: the near-miss's own bytes have ended.
    NearMissCloser { junk_done: bool },
    /// An empty value was closed at once: an empty value, unless text
    /// follows (the malformed shape where the value comes after the tag).
    AfterEmptyClose,
    /// After a function's closer: inside the wrapper, or after a bare
    /// call (`bare`), where only the wrapper's closer or another function
    /// may follow.
    Between { bare: bool },
    /// After a function's closer, in a format with items: whitespace is
    /// held until the item's closer ends the call, or something else shows
    /// it is missing (`bare` as for `Between`).
    ItemEnd { bare: bool },
    /// After the wrapper's closer: whitespace is held; it is the
    /// template's layout if another call follows, content otherwise.
    AfterCall,
    /// Before a JSON value: after the wrapper's opener (`body`: a call
    /// body, tentative) or after a name's `ArgsOpen` (the arguments).
    /// Whitespace is held.
    JsonStart { body: bool },
    /// Inside a JSON value: markers are not looked for; the value's own
    /// end ends it.
    Json,
    /// After a call's JSON: whitespace is held until the closer, another
    /// call or text shows what it is.
    AfterJson,
    /// A message header (formats with headers): held until the marker
    /// that ends it decides what the body is.
    Header,
}

impl State {
    /// States whose text only accumulates (content, a value): text handed
    /// over in one piece or several leaves them as they are.
    pub(crate) fn accumulates_text(self) -> bool {
        matches!(self, State::Content | State::Value)
    }

    /// States outside any call or opening: a marker or text there begins
    /// whatever comes next (diagnostics' spans start there).
    #[inline(always)]
    pub(crate) fn is_outside(self) -> bool {
        matches!(
            self,
            State::Start | State::Content | State::AfterCall | State::Between { .. }
        )
    }

    /// States in which the stream ending means a call was cut off.
    pub(crate) fn inside_call(self) -> bool {
        matches!(
            self,
            State::InCall
                | State::ParamName { .. }
                | State::KeyDone
                | State::ValueType
                | State::Value
                | State::JsonStart { body: false }
                | State::Json
                | State::CloserPending(_)
                | State::NearMissCloser { .. }
                | State::AfterEmptyClose
                | State::ItemEnd { .. }
        )
    }
}

pub(in crate::engine) fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start_matches(WS).len()
}
