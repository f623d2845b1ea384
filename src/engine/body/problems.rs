//! What the reader and the body found wrong in a call's JSON, as
//! diagnostics: leniencies it read through, notes on the arguments, and
//! problems that end the call (the rest of the value is then content).

use crate::engine::body::args::{ArgsNote, ArgsProblem};
use crate::engine::body::object::BodyProblem;
use crate::engine::body::state::{JsonCall, Mode};
use crate::engine::call::CallWriter;
use crate::event::DiagnosticKind as Kind;
use crate::json::reader::Leniency;
use crate::sink::{diagnostic, Sink};

pub(in crate::engine) fn report_leniency<S: Sink>(
    json: &mut JsonCall,
    what: Leniency,
    call: &mut CallWriter,
    sink: &mut S,
) {
    let index = call.current();
    let slot = match what {
        Leniency::ControlInString => 0,
        Leniency::LoneSurrogate => 1,
        Leniency::JsonWord => 2,
        Leniency::BareText => 3,
        Leniency::JsonQuoted => 4,
        Leniency::NumberOutOfRange => 5,
        Leniency::TextBetweenElements => 6,
        Leniency::RawAmpersand => 7,
        Leniency::UnclosedElement => 8,
        Leniency::StrayCloser => 9,
        Leniency::EntityQuote => 10,
        Leniency::UnnamedElement => 11,
    };
    if std::mem::replace(&mut json.reported[slot], true) {
        return;
    }
    let text = match what {
        Leniency::ControlInString => {
            "a JSON string held a raw control character (such as a line end); it was kept"
        }
        Leniency::LoneSurrogate => {
            "a JSON string held half of a surrogate pair; it was read as U+FFFD"
        }
        Leniency::JsonWord => {
            "Python arguments used JSON's true, false or null; they were read as JSON reads them"
        }
        Leniency::JsonQuoted => {
            "a key or value was written in JSON's double quotes instead of the format's string \
             delimiters; it was read as the string they hold"
        }
        Leniency::BareText => {
            "a value was written bare but is no JSON literal; it was read as a string"
        }
        Leniency::EntityQuote => {
            "a JSON string was closed by `&quot;` where its quote belongs; it was read as that \
             quote"
        }
        Leniency::NumberOutOfRange => {
            "a number was past the range JSON readers accept (such as 1e400); it was read as a \
             string"
        }
        Leniency::TextBetweenElements => {
            "text stood between elements, where only elements belong; it was dropped"
        }
        Leniency::RawAmpersand => {
            "an `&` in an element's text began no entity reference; it was kept as written"
        }
        Leniency::UnclosedElement => {
            "an element was closed by the closer of an element around it; it ended there"
        }
        Leniency::StrayCloser => "a closing tag closed no open element; it was dropped",
        Leniency::UnnamedElement => {
            "an element of an object gave its value no name; its key is empty"
        }
    };
    diagnostic(
        sink,
        &mut call.message,
        Kind::LenientJson,
        index,
        format_args!("{text}"),
    );
}

pub(in crate::engine) fn report_note<S: Sink>(
    json: &mut JsonCall,
    call: &mut CallWriter,
    sink: &mut S,
) {
    let Some(note) = json.args.note.take() else {
        return;
    };
    let index = call.current();
    let text = match note {
        ArgsNote::DecodedString => "were a JSON string holding the object; it was decoded",
        ArgsNote::NullAsEmpty => "were `null`; read as no arguments",
    };
    let CallWriter { message, name, .. } = call;
    diagnostic(
        sink,
        message,
        Kind::LenientJson,
        index,
        format_args!("the arguments of call `{name}` {text}"),
    );
}

/// A problem the body or the arguments found: the call (if one is open)
/// ends as incomplete, and the rest of the value is content, whether a
/// call was made from it or not.
pub(in crate::engine) fn fail_on_problem<S: Sink>(
    json: &mut JsonCall,
    call: &mut CallWriter,
    opts: &crate::options::Options,
    sink: &mut S,
) {
    let args = json.args.problem;
    let body = json.body.problem;
    if args.is_none() && body.is_none() {
        return;
    }
    let why = match (body, args) {
        (Some(BodyProblem::NotACall), _) => "it is not a call object",
        (Some(BodyProblem::BadName), _) => "its name is not a string that can be a name",
        (Some(BodyProblem::NoName), _) => "it has no name",
        (Some(BodyProblem::HeldTooLong), _) => {
            "its arguments came before its name and passed `max_held_value`"
        }
        (Some(BodyProblem::TooManyCalls), _) => "`max_calls` was reached",
        (Some(BodyProblem::SecondName), _) => {
            "its object has a second key, where the name must be the only one"
        }
        (None, Some(ArgsProblem::NotAnObject)) => "its arguments are not a JSON object",
        (None, Some(ArgsProblem::BadString)) => {
            "its arguments are a string that does not hold one JSON object"
        }
        (None, Some(ArgsProblem::StringTooLong)) => {
            "its arguments are a string longer than `max_held_value`"
        }
        (None, None) => return,
    };
    json.args.problem = None;
    json.body.problem = None;
    if let Some(index) = call.current() {
        json.args.close_open(call, opts, sink);
        let CallWriter { message, name, .. } = call;
        diagnostic(
            sink,
            message,
            Kind::InvalidJson,
            Some(index),
            format_args!(
                "call `{name}` is cut short: {why}; it is marked incomplete and the rest of \
                 its JSON is content"
            ),
        );
        call.end_call(false, opts, sink);
        json.mode = Mode::Unreadable;
    } else if json.made_call {
        // About a body that is not a call, not about the call before it.
        let CallWriter { message, name, .. } = call;
        diagnostic(
            sink,
            message,
            Kind::InvalidJson,
            None,
            format_args!("a JSON call body after call `{name}` was not read: {why}; it is content"),
        );
        json.mode = Mode::Unreadable;
    } else {
        let quiet = json.content_json
            && !matches!(
                body,
                Some(BodyProblem::HeldTooLong | BodyProblem::TooManyCalls)
            );
        if body != Some(BodyProblem::TooManyCalls) && !quiet {
            diagnostic(
                sink,
                &mut call.message,
                Kind::InvalidJson,
                None,
                format_args!("a JSON call body was not read as a call: {why}; it is content"),
            );
        }
        json.mode = Mode::Content;
    }
}
