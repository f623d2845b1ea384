//! The call being read, as it stands: for UIs that show a call's arguments
//! while they stream.

use std::borrow::Cow;
use std::fmt;

/// The call the parser is inside, as it stands after the last chunk: see
/// [`Parser::partial_call`](crate::Parser::partial_call).
///
/// Its arguments are always a valid JSON object: the arguments so far
/// (which the final arguments start with, byte for byte) and a short
/// closing (an open string value closed, the object closed). Making the
/// view costs nothing per byte of arguments; only
/// [`arguments`](PartialCall::arguments) copies them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartialCall<'a> {
    /// The call's index (the engine's: in strict mode, the call may still
    /// be rejected, and calls returned are renumbered).
    pub index: usize,
    /// The call's id.
    pub id: &'a str,
    /// The function name.
    pub name: &'a str,
    so_far: &'a str,
    closing: Cow<'a, str>,
}

impl<'a> PartialCall<'a> {
    pub(crate) fn new(
        index: usize,
        id: &'a str,
        name: &'a str,
        so_far: &'a str,
        closing: Cow<'a, str>,
    ) -> PartialCall<'a> {
        PartialCall {
            index,
            id,
            name,
            so_far,
            closing,
        }
    }

    /// The arguments so far: a prefix of the final arguments, byte for
    /// byte (not valid JSON by itself).
    pub fn arguments_so_far(&self) -> &'a str {
        self.so_far
    }

    /// What closes [`arguments_so_far`](PartialCall::arguments_so_far)
    /// into a valid JSON object (`"}`, `}`, `{}`, or a held value written
    /// as a string and closed).
    pub fn closing(&self) -> &str {
        &self.closing
    }

    /// The arguments so far as a valid JSON object.
    pub fn arguments(&self) -> String {
        let mut out = String::with_capacity(self.so_far.len() + self.closing.len());
        self.write_arguments(&mut out);
        out
    }

    /// Appends the arguments so far, as a valid JSON object, to `out`.
    pub fn write_arguments(&self, out: &mut String) {
        out.push_str(self.so_far);
        out.push_str(&self.closing);
    }
}

impl fmt::Display for PartialCall<'_> {
    /// `name(arguments)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({}{})", self.name, self.so_far, self.closing)
    }
}
