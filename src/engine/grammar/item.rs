//! Items: formats whose wrapper holds one item per call around its
//! marked-up function (Step-3's `<｜tool_call_begin｜>function<｜tool_sep｜>`
//! `<steptml:invoke …>…</steptml:invoke><｜tool_call_end｜>`): `ItemOpen`,
//! the type word (`Description::item_type`) up to `ItemSep`, then the
//! function; `ItemClose` after the function's closer. A missing item
//! marker or another type word is recovered and reported, never a reason
//! to lose the call: the function's own markup shows that it is one.

use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::state::{leading_ws, State};
use crate::engine::{Engine, WS};
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::sink::Sink;

/// Where the engine is in the current call's item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// No item is open (or the format has none).
    Closed,
    /// An item's opener was read; its function has not begun.
    Open,
    /// The item's function began: the item's closer is due after it.
    Used,
    /// A function began without an item's opener (reported): a closer
    /// after it ends it, its absence is not reported again.
    Missing,
}

impl Item {
    /// Whether the call is in an item, whose closer ends it.
    pub(crate) fn is_used(self) -> bool {
        matches!(self, Item::Used | Item::Missing)
    }
}

impl Engine {
    /// An item's opener where a call may begin: outside calls (a bare item,
    /// a recovery), after the wrapper's opener, or after an earlier call.
    pub(in crate::engine) fn begin_item<S: Sink>(&mut self, text: &str, sink: &mut S) {
        match self.state {
            // (Not after an item's separator: a second opener.)
            State::Preamble if self.item != Item::Open => {
                // Text before the item (not the item) is the wrapper's.
                self.hold.inner_end = self.hold.len();
                self.hold.text.push_str(text);
            }
            State::Between { bare } => {
                self.hold_start(text);
                self.hold.opening = if bare {
                    Opening::Bare
                } else {
                    Opening::Wrapped
                };
            }
            State::Content => {
                self.hold_start(text);
                self.hold.opening = Opening::Bare;
            }
            // A second opener in one item: not an item.
            _ => return self.marker_as_text(text, sink),
        }
        self.name.clear();
        self.item = Item::Open;
        self.state = if self.desc().item_type.is_some() {
            State::ItemType
        } else {
            State::Preamble
        };
    }

    /// The type word after an item's opener: one word, whitespace around
    /// it; held with the opening. Anything else shows it was not an item.
    pub(in crate::engine) fn item_type_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let open = self.marker(Role::ItemOpen);
        let start = self.hold.text.rfind(open).map_or(0, |at| at + open.len());
        let word = self.hold.text[start..].trim_start_matches(WS);
        // Where the word has ended (whitespace after it), only whitespace
        // may follow.
        let ended = !word.is_empty() && word.ends_with(WS);
        let take = if ended {
            leading_ws(s)
        } else {
            let lead = if word.is_empty() { leading_ws(s) } else { 0 };
            let w = s[lead..].find(WS).unwrap_or(s.len() - lead);
            lead + w + leading_ws(&s[lead + w..])
        };
        self.hold.text.push_str(&s[..take]);
        if take < s.len() || self.hold.len() > self.hold_limit() {
            self.reject_opening(sink);
        }
        take
    }

    /// A marker after an item's opener, where its type word is read.
    pub(in crate::engine) fn marker_in_item_type<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        match role {
            Role::ItemSep => {
                self.hold.text.push_str(text);
                self.state = State::Preamble;
            }
            // No separator: the type is checked when the call is confirmed.
            Role::FuncOpen => {
                self.state = State::Preamble;
                self.on_marker(role, sink);
            }
            _ => {
                self.reject_opening(sink);
                self.on_marker(role, sink);
            }
        }
    }

    /// A marker after a function's closer, in an item: the item's closer
    /// ends the call; anything else ends it without (reported) and is
    /// read after it.
    pub(in crate::engine) fn marker_after_function<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        bare: bool,
        sink: &mut S,
    ) {
        if role == Role::ItemClose {
            // The layout before it is the template's.
            self.hold.text.clear();
            self.item = Item::Closed;
            self.call.end_call(true, &self.opts, sink);
            self.state = State::Between { bare };
            return;
        }
        self.item_not_closed(format_args!("`{text}`"), sink);
        self.state = State::Between { bare };
        self.on_marker(role, sink);
    }

    /// The call is confirmed: its item is used; a missing item opener or
    /// another type word is reported.
    pub(in crate::engine) fn item_confirmed<S: Sink>(&mut self, sink: &mut S) {
        if self.marker(Role::ItemOpen).is_empty() {
            return;
        }
        let next = Some(self.call.count());
        if self.item != Item::Open {
            self.item = Item::Missing;
            if self.hold.opening == Opening::Bare {
                // Reported as a bare call.
                return;
            }
            let (open, func) = (self.marker(Role::ItemOpen), self.marker(Role::FuncOpen));
            return crate::engine::diagnostic(
                sink,
                &mut self.call.message,
                Kind::MissingToolCallOpen,
                next,
                format_args!(
                    "call `{}` began with `{func}` without `{open}`",
                    self.name.text
                ),
            );
        }
        self.item = Item::Used;
        let Some(wanted) = self.desc().item_type else {
            return;
        };
        let (open, sep) = (self.marker(Role::ItemOpen), self.marker(Role::ItemSep));
        let held = self.hold.text.as_str();
        let start = held.rfind(open).map_or(0, |at| at + open.len());
        let (name, message) = (&self.name.text, &mut self.call.message);
        let Some(end) = held[start..].find(sep) else {
            return crate::engine::diagnostic(
                sink,
                message,
                Kind::UnexpectedCallType,
                next,
                format_args!(
                    "call `{name}` had no `{wanted}{sep}` after `{open}`; it is read as a {wanted}"
                ),
            );
        };
        let word = held[start..start + end].trim_matches(WS);
        if word.is_empty() {
            crate::engine::diagnostic(
                sink,
                message,
                Kind::UnexpectedCallType,
                next,
                format_args!("call `{name}` gave no type before `{sep}`; it is read as a {wanted}"),
            );
        } else if word != wanted {
            crate::engine::diagnostic(
                sink,
                message,
                Kind::UnexpectedCallType,
                next,
                format_args!(
                    "call `{name}` gave the type `{word}` before `{sep}`, not `{wanted}`; it \
                     is read as a {wanted}"
                ),
            );
        }
    }

    /// The call's item ends here without its closer, reported (once: not
    /// for a function whose item opener was missing too) while the call
    /// is open; `before` says what came instead. The call ends.
    pub(in crate::engine) fn item_not_closed<S: Sink>(
        &mut self,
        before: std::fmt::Arguments<'_>,
        sink: &mut S,
    ) {
        if std::mem::replace(&mut self.item, Item::Closed) == Item::Used {
            let close = self.marker(Role::ItemClose);
            let index = self.call.current();
            crate::engine::diagnostic(
                sink,
                &mut self.call.message,
                Kind::UnclosedFunction,
                index,
                format_args!(
                    "call `{}` was not closed with `{close}` before {before}",
                    self.call.name
                ),
            );
        }
        self.call.end_call(true, &self.opts, sink);
    }
}
