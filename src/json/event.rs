//! What the JSON readers report: the events of a value, the leniencies
//! they accept, why a text is not JSON, and how far a piece took the
//! value. The reader makes them and the step loop passes them on.

/// What the reader found, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonEvent<'a> {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    /// An object's key, whole and decoded.
    Key(&'a str),
    /// A string value starts; its decoded text follows in [`Text`](JsonEvent::Text) pieces.
    BeginString,
    /// A string whose text is JSON written as text (an element whose
    /// attribute says its value is JSON, `type="json"`): its decoded text
    /// follows in [`Text`](JsonEvent::Text) pieces, then
    /// [`EndString`](JsonEvent::EndString). Typed as the JSON it is where
    /// the schema does not type it.
    BeginTextJson,
    Text(&'a str),
    EndString,
    /// A number, whole, as written (JSON's grammar, checked).
    Number(&'a str),
    Bool(bool),
    Null,
    /// Something JSON does not allow was read leniently (the value is
    /// still what the writer meant).
    Lenient(Leniency),
}

/// What the reader accepts that JSON does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leniency {
    /// A raw control character (a line end, a tab) inside a string, as
    /// models write code: kept as it is.
    ControlInString,
    /// A `\u` escape of half a surrogate pair without its other half:
    /// read as U+FFFD.
    LoneSurrogate,
    /// JSON's `true`, `false` or `null` in Python literals (models mix
    /// them): read as JSON reads them.
    JsonWord,
    /// A value written bare that is no JSON literal (Gemma's `unit:cm`):
    /// read as a string.
    BareText,
    /// A Gemma key or bare value in JSON's double quotes (`"city":"Paris"`)
    /// instead of the format's delimiters: read as the string they hold.
    JsonQuoted,
    /// A number past the range strict JSON readers accept (`1e400`, an
    /// integer of 310 digits): read as a string of its text.
    NumberOutOfRange,
    /// Text between elements, where only elements belong: dropped.
    TextBetweenElements,
    /// An `&` in an element's text that begins no entity reference: kept.
    RawAmpersand,
    /// An element closed by the closer of an element around it: it ends
    /// there.
    UnclosedElement,
    /// A closer of no open element: dropped.
    StrayCloser,
    /// An element that names its value by an attribute, inside an object,
    /// without that attribute: its key is empty.
    UnnamedElement,
    /// `&quot;` where a string's closing quote belongs (`,`, `}`, `]` or
    /// `:` right after it), as some models write after a URL: read as
    /// that quote. Only where the reader is asked to
    /// ([`JsonReader::entity_quotes`]).
    EntityQuote,
}

/// Why the text is not one JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    /// The byte offset in the whole text where it was found.
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// A byte (shown as a char) no JSON value can have there.
    Unexpected(char),
    /// Nesting past `max_depth`.
    TooDeep,
    /// A key longer than `max_key` bytes.
    KeyTooLong,
    /// A number longer than `max_number` bytes.
    NumberTooLong,
    /// A `\` escape that is not one of JSON's.
    BadEscape,
    /// The text ended inside the value.
    Truncated,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            JsonErrorKind::Unexpected(c) => write!(f, "unexpected {c:?}")?,
            JsonErrorKind::TooDeep => f.write_str("nested too deep")?,
            JsonErrorKind::KeyTooLong => f.write_str("key too long")?,
            JsonErrorKind::NumberTooLong => f.write_str("number too long")?,
            JsonErrorKind::BadEscape => f.write_str("invalid escape")?,
            JsonErrorKind::Truncated => f.write_str("the text ended inside the value")?,
        }
        write!(f, " at byte {} of the JSON", self.at)
    }
}

/// How far a piece of text took the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fed {
    /// The value goes on past this piece.
    More,
    /// The value ended after this many bytes of the piece; the rest is not
    /// the reader's.
    Done(usize),
    /// The sink asked to pause after this many bytes of the piece (see
    /// [`JsonReader::feed_until`]); the rest is to be fed again.
    Paused(usize),
}
