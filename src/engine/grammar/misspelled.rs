//! Openers written as one of the description's misspellings (MiniCPM's
//! collapsed `<functionname=`): read as the role's marker, remembered until
//! the call or parameter they open is confirmed, then reported.

use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::sink::Sink;

/// Openers as written, when they were misspellings.
#[derive(Default)]
pub(in crate::engine) struct Misspelled {
    call: Option<&'static str>,
    param: Option<&'static str>,
}

impl Engine {
    /// An opener as written (`text`), when it is one of the description's
    /// misspellings, is remembered until what it opens is confirmed: a
    /// wrapper's opener, or a function's outside a wrapper, starts the
    /// call's over; a function's in a wrapper only adds one.
    pub(in crate::engine) fn note_misspelling(&mut self, role: Role, text: &'static str) {
        if !matches!(role, Role::CallOpen | Role::FuncOpen | Role::ParamOpen) {
            return;
        }
        let misspelled = self.format.is_misspelling(text).then_some(text);
        match role {
            Role::CallOpen => self.misspelled.call = misspelled,
            Role::FuncOpen if self.state == State::Preamble => {
                self.misspelled.call = misspelled.or(self.misspelled.call)
            }
            Role::FuncOpen => self.misspelled.call = misspelled,
            Role::ParamOpen => self.misspelled.param = misspelled,
            _ => {}
        }
    }

    /// Reports a misspelled opener of the call (`param`: of the parameter)
    /// that was just confirmed.
    pub(in crate::engine) fn report_misspelling<S: Sink>(&mut self, param: bool, sink: &mut S) {
        let taken = if param {
            self.misspelled.param.take()
        } else {
            self.misspelled.call.take()
        };
        let Some(written) = taken else {
            return;
        };
        let Some(&(role, _)) = self
            .desc()
            .misspellings
            .iter()
            .find(|&&(_, text)| text == written)
        else {
            return;
        };
        let meant = self.marker(role);
        let index = if param {
            self.call.current()
        } else {
            Some(self.call.count())
        };
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MalformedMarker,
            index,
            format_args!("`{written}` was read as `{meant}`"),
        );
    }
}
