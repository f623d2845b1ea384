//! JSON's number grammar, byte by byte, and a number's events: a number
//! past the range JSON readers accept is a string of its text, reported.

use super::{JsonEvent, Leniency};

/// Whether `text` is one number in JSON's grammar (whatever its range).
pub(crate) fn is_number_grammar(text: &str) -> bool {
    let mut bytes = text.bytes();
    let Some(num) = bytes
        .next()
        .and_then(|b| Num::Minus.next(b).or((b == b'-').then_some(Num::Minus)))
    else {
        return false;
    };
    bytes.try_fold(num, Num::next).is_some_and(Num::complete)
}

/// The events of a number as written: the number, or, past JSON's range,
/// a string of its text (reported).
pub(crate) fn number_events(number: &str, sink: &mut impl FnMut(JsonEvent<'_>)) {
    if crate::json::in_json_range(number) {
        return sink(JsonEvent::Number(number));
    }
    sink(JsonEvent::Lenient(Leniency::NumberOutOfRange));
    sink(JsonEvent::BeginString);
    sink(JsonEvent::Text(number));
    sink(JsonEvent::EndString);
}

/// Where a number is in JSON's number grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    /// The number may end here.
    pub(super) fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }

    /// The state after `b`, or `None` when `b` cannot continue the number.
    pub(super) fn next(self, b: u8) -> Option<Num> {
        Some(match (self, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') => Num::Int,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
            _ => return None,
        })
    }
}
