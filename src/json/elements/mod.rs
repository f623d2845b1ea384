//! An incremental reader of calls written as nested XML elements, whose
//! parameters are elements named by the parameter (MiniMax-M3):
//!
//! ```text
//! <invoke name="get_weather">
//! <city>Paris</city>
//! <opts><days>3</days><tags><item>a</item><item>b</item></tags></opts>
//! </invoke>
//! ```
//!
//! A tag may have to carry a prefix token before its `<` (whitespace may sit
//! between the two): where it does, a `<` without it is text. The call
//! element (`invoke`) names its function in an attribute (`name="…"`). Each
//! child element is a parameter, whose name is its tag; an element holding
//! text is a string (entity-decoded: `&lt; &gt; &amp; &quot; &apos;` and
//! numeric references; an `&` that begins none is kept, reported); one
//! holding elements is an object, or an array when its children are `item`
//! elements. The events are the JSON reader's for `{"name": NAME,
//! "arguments": {…}}`, so the engine types the leaves by the schema and
//! streams the arguments as it does any call body's.
//!
//! A format may instead write every value in elements of a few tags that
//! name it by an attribute, and say by another what each holds (Cohere's
//! `<cofl:value name="docs" type="list">`, `string="false"`): a string, JSON
//! written as text (typed as the JSON it is where the schema does not type
//! it), an object of named children, or an array of unnamed ones. The call
//! element may carry the call's id in an attribute. Attribute values are
//! entity-decoded too.
//!
//! Lenient where models are: text between elements is dropped, a closer of
//! no open element is dropped, an element closed by its parent's closer
//! ends there (each reported). Bounded: nesting, a tag, an entity and the
//! whitespace before an element's first child have limits; text streams.

#[cfg(test)]
mod tests;

use super::calls::{ARGUMENTS_KEY, ID_KEY, NAME_KEY};
use super::reader::{JsonEvent, Leniency};
use super::stepper::Stepper;
use super::{char_at, is_json_space};

mod spelling;
mod tag;

pub use spelling::ElementValue;
pub(crate) use spelling::Spelling;
use tag::{attribute, decoded, entity, parse_tag, Tag};

/// Why the text is not an element call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementsErrorKind {
    /// A byte (shown as a char) that cannot come there.
    Unexpected(char),
    /// Nesting past the limit.
    TooDeep,
}

/// The error, where it was found (a byte offset in the whole text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementsError {
    pub kind: ElementsErrorKind,
    pub at: u64,
}

impl std::fmt::Display for ElementsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ElementsErrorKind::Unexpected(c) => write!(f, "unexpected {c:?}")?,
            ElementsErrorKind::TooDeep => f.write_str("elements nested too deep")?,
        }
        write!(f, " at byte {} of the call", self.at)
    }
}

/// What an open element holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Nothing but whitespace yet (held).
    Undecided,
    Text,
    Object,
    Array,
}

#[derive(Debug, Clone)]
struct Open {
    name: String,
    holds: Holds,
}

/// Where a tag being matched was met: it decides what the tag's bytes are
/// when they turn out to be no tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the call element.
    Start,
    /// Between the elements of an object or array: no tag is stray text.
    Between,
    /// In an element's text (or its leading whitespace): no tag is text.
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Outside a tag, at a `Place`.
    At(Place),
    /// Stray text between elements, skipped up to the next tag.
    Stray,
    /// Matching a tag met at a `Place`: this many bytes of the prefix, then
    /// whitespace and `<` (`Lt`), then the tag up to `>` (`Body`).
    Prefix(Place, usize),
    Lt(Place),
    Body(Place),
    /// An entity reference in text, from its `&`.
    Entity,
    Done,
    Failed,
}

const MAX_ENTITY: usize = 12;

/// Reads one call element from text given in pieces.
#[derive(Debug, Clone)]
pub struct ElementsReader {
    spelling: Spelling,
    /// The byte a tag begins with (the prefix's first, or `<`), looked up
    /// once: every text byte is compared with it.
    tag_start: u8,
    state: State,
    /// The open elements inside the call element (the arguments first).
    stack: Vec<Open>,
    /// A tag's bytes, an entity, or an element's leading whitespace.
    held: String,
    /// Whitespace held before an element's first child or text.
    space: String,
    offset: u64,
    max_depth: usize,
    max_held: usize,
}

impl Stepper for ElementsReader {
    type Kind = ElementsErrorKind;

    fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    #[inline]
    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, ElementsErrorKind> {
        self.read_step(text, at, sink)
    }

    fn fail(&mut self) {
        self.state = State::Failed;
    }

    fn offset_mut(&mut self) -> &mut u64 {
        &mut self.offset
    }

    /// Text of an element that holds text (its leading whitespace no
    /// longer held), with no entity and no tag able to start in `bytes`.
    #[inline(always)]
    fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        matches!(self.state, State::At(Place::Text))
            && self.top() == Holds::Text
            && !bytes.iter().any(|&b| b == b'&' || self.opens_tag(b))
    }
}

impl ElementsReader {
    pub fn new(spelling: Spelling, max_depth: usize, max_held: usize) -> ElementsReader {
        ElementsReader {
            spelling,
            tag_start: spelling.prefix.as_bytes().first().copied().unwrap_or(b'<'),
            state: State::At(Place::Start),
            stack: Vec::new(),
            held: String::new(),
            space: String::new(),
            offset: 0,
            max_depth,
            max_held,
        }
    }

    /// How many bytes of the text have been read.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether `b` begins a tag (the prefix, or `<` without one).
    fn opens_tag(&self, b: u8) -> bool {
        self.tag_start == b
    }

    fn top(&self) -> Holds {
        self.stack.last().map_or(Holds::Object, |open| open.holds)
    }

    // Inlined into the shared loop: the call cost as much as a text
    // byte's step.
    #[inline]
    fn read_step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, ElementsErrorKind> {
        let bytes = text.as_bytes();
        let b = bytes[at];
        match self.state {
            State::At(place) if self.opens_tag(b) => {
                self.begin_tag(place);
                Ok(at)
            }
            State::At(Place::Start) if is_json_space(b) => Ok(at + 1),
            State::At(Place::Start) => Err(ElementsErrorKind::Unexpected(char_at(text, at))),
            State::At(Place::Between) if is_json_space(b) => Ok(at + 1),
            State::At(Place::Between) => {
                sink(JsonEvent::Lenient(Leniency::TextBetweenElements));
                self.state = State::Stray;
                Ok(at)
            }
            State::Stray => {
                let run = bytes[at..]
                    .iter()
                    .position(|&b| self.opens_tag(b))
                    .unwrap_or(bytes.len() - at);
                if run == 0 {
                    self.state = State::At(Place::Between);
                }
                Ok(at + run)
            }
            State::At(Place::Text) => Ok(self.text_run(text, at, sink)),
            State::Entity => self.entity_byte(text, at, sink),
            State::Prefix(place, k) => {
                // As much of the prefix as this piece holds, in one step
                // (no event comes of it); a byte that differs is the next
                // step's.
                let prefix = &self.spelling.prefix.as_bytes()[k..];
                let matched = bytes[at..]
                    .iter()
                    .zip(prefix)
                    .take_while(|(b, p)| b == p)
                    .count();
                if matched == 0 {
                    return self.no_tag(place, text, at, sink);
                }
                self.held
                    .extend(bytes[at..at + matched].iter().map(|&b| b as char));
                self.state = if matched == prefix.len() {
                    State::Lt(place)
                } else {
                    State::Prefix(place, k + matched)
                };
                Ok(at + matched)
            }
            State::Lt(place) => {
                if b == b'<' {
                    self.held.push('<');
                    self.state = State::Body(place);
                    return Ok(at + 1);
                }
                if is_json_space(b) && self.held.len() < self.max_held {
                    self.held.push(b as char);
                    return Ok(at + 1);
                }
                self.no_tag(place, text, at, sink)
            }
            State::Body(place) => {
                if b == b'>' {
                    let lt = self.held.rfind('<').unwrap_or(0);
                    let tag = std::mem::take(&mut self.held);
                    let result = self.tag(place, &tag, lt, sink);
                    self.held = tag;
                    self.held.clear();
                    return result.map(|()| at + 1);
                }
                if b == b'<' || self.held.len() >= self.max_held {
                    return self.no_tag(place, text, at, sink);
                }
                // The tag's bytes up to the next `>` or `<`, or the bound,
                // in one step (no event comes of them).
                let mut end = at;
                for c in text[at..].chars() {
                    if matches!(c, '>' | '<') || self.held.len() >= self.max_held {
                        break;
                    }
                    self.held.push(c);
                    end += c.len_utf8();
                }
                Ok(end)
            }
            State::Done | State::Failed => Ok(text.len()),
        }
    }

    fn begin_tag(&mut self, place: Place) {
        self.held.clear();
        self.state = if self.spelling.prefix.is_empty() {
            State::Lt(place)
        } else {
            State::Prefix(place, 0)
        };
    }

    /// Text in an element: streamed up to an entity or a tag's first byte.
    fn text_run(&mut self, text: &str, at: usize, sink: &mut impl FnMut(JsonEvent<'_>)) -> usize {
        let bytes = text.as_bytes();
        let b = bytes[at];
        if b == b'&' {
            self.start_text(sink);
            self.held.clear();
            self.held.push('&');
            self.state = State::Entity;
            return at + 1;
        }
        if self.top() == Holds::Undecided && is_json_space(b) {
            if self.space.len() >= self.max_held {
                self.start_text(sink);
            } else {
                self.space.push(b as char);
                return at + 1;
            }
        }
        self.start_text(sink);
        let run = bytes[at..]
            .iter()
            .position(|&b| b == b'&' || self.opens_tag(b))
            .unwrap_or(bytes.len() - at);
        let run = run.max(1);
        // Whole characters only: a tag's first byte is ASCII.
        let end = (at + run..=text.len())
            .find(|&end| text.is_char_boundary(end))
            .unwrap_or(text.len());
        sink(JsonEvent::Text(&text[at..end]));
        end
    }

    /// The open element holds text: its string begins, with the
    /// whitespace held before it.
    fn start_text(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) {
        if let Some(open) = self.stack.last_mut() {
            if open.holds == Holds::Undecided {
                open.holds = Holds::Text;
                sink(JsonEvent::BeginString);
                if !self.space.is_empty() {
                    sink(JsonEvent::Text(&self.space));
                    self.space.clear();
                }
            }
        }
    }

    /// Whether `b` goes on the entity being read (held from its `&`).
    fn entity_continues(&self, b: u8) -> bool {
        (b.is_ascii_alphanumeric() || (b == b'#' && self.held.len() == 1))
            && self.held.len() < MAX_ENTITY
    }

    fn entity_byte(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, ElementsErrorKind> {
        let b = text.as_bytes()[at];
        if b == b';' {
            if let Some(c) = entity(&self.held[1..]) {
                let mut buf = [0; 4];
                sink(JsonEvent::Text(c.encode_utf8(&mut buf)));
                self.held.clear();
                self.state = State::At(Place::Text);
                return Ok(at + 1);
            }
        } else if self.entity_continues(b) {
            // The name's bytes in this piece, in one step (no event comes
            // of them); the byte after them is the next step's.
            let mut end = at;
            while end < text.len() && self.entity_continues(text.as_bytes()[end]) {
                self.held.push(char::from(text.as_bytes()[end]));
                end += 1;
            }
            return Ok(end);
        }
        // No entity: the `&` and what followed are text; the byte is read
        // again as text.
        sink(JsonEvent::Lenient(Leniency::RawAmpersand));
        sink(JsonEvent::Text(&self.held));
        self.held.clear();
        self.state = State::At(Place::Text);
        Ok(at)
    }

    /// The bytes matched as a tag are none: text in an element, stray
    /// between elements (the byte at `at` is read again). The first byte
    /// only is given up, so that a tag starting inside the held bytes is
    /// still found.
    fn no_tag(
        &mut self,
        place: Place,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, ElementsErrorKind> {
        if place == Place::Start {
            return Err(ElementsErrorKind::Unexpected(char_at(text, at)));
        }
        let held = std::mem::take(&mut self.held);
        let first = held.chars().next().map_or(0, char::len_utf8);
        match place {
            Place::Start => {}
            Place::Between => sink(JsonEvent::Lenient(Leniency::TextBetweenElements)),
            Place::Text => {
                self.start_text(sink);
                sink(JsonEvent::Text(&held[..first]));
            }
        }
        self.state = match place {
            Place::Between => State::Stray,
            _ => State::At(place),
        };
        // The rest is matched again, byte by byte, as if it came now.
        let rest = &held[first..];
        let mut k = 0;
        while k < rest.len() {
            k = match self.read_step(rest, k, sink) {
                Ok(next) => next,
                Err(_) => rest.len(),
            };
        }
        Ok(at)
    }

    /// A whole tag, `<` at `lt` in `held`.
    fn tag(
        &mut self,
        place: Place,
        held: &str,
        lt: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), ElementsErrorKind> {
        let Some(tag) = parse_tag(&held[lt + 1..]) else {
            return self.not_a_tag(place, held, sink);
        };
        match (place, tag) {
            (Place::Start, Tag::Open(name, attrs)) if name == self.spelling.call => {
                let Some(function) = attribute(attrs, self.spelling.name_attribute) else {
                    return Err(ElementsErrorKind::Unexpected('>'));
                };
                sink(JsonEvent::BeginObject);
                // The id first: the call starts when its name ends.
                let id = Some(self.spelling.id_attribute)
                    .filter(|a| !a.is_empty())
                    .and_then(|a| attribute(attrs, a));
                if let Some(id) = id {
                    sink(JsonEvent::Key(ID_KEY));
                    sink(JsonEvent::BeginString);
                    sink(JsonEvent::Text(&decoded(id)));
                    sink(JsonEvent::EndString);
                }
                sink(JsonEvent::Key(NAME_KEY));
                sink(JsonEvent::BeginString);
                sink(JsonEvent::Text(&decoded(function)));
                sink(JsonEvent::EndString);
                sink(JsonEvent::Key(ARGUMENTS_KEY));
                sink(JsonEvent::BeginObject);
                self.state = State::At(Place::Between);
                Ok(())
            }
            (Place::Start, _) => Err(ElementsErrorKind::Unexpected('<')),
            (_, Tag::Close(name)) => self.close(place, name, held, sink),
            (Place::Between, Tag::Open(name, attrs)) => self.open(name, attrs, sink),
            (Place::Text, Tag::Open(name, attrs)) if self.top() == Holds::Undecided => {
                let unnamed = self.names_by_attribute(name)
                    && attribute(attrs, self.spelling.name_attribute).is_none();
                let holds = if name == self.spelling.item || unnamed {
                    sink(JsonEvent::BeginArray);
                    Holds::Array
                } else {
                    sink(JsonEvent::BeginObject);
                    Holds::Object
                };
                if let Some(open) = self.stack.last_mut() {
                    open.holds = holds;
                }
                self.space.clear();
                self.open(name, attrs, sink)
            }
            (Place::Text, Tag::Open(..)) => self.not_a_tag(place, held, sink),
        }
    }

    fn not_a_tag(
        &mut self,
        place: Place,
        held: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), ElementsErrorKind> {
        match place {
            Place::Start => return Err(ElementsErrorKind::Unexpected('>')),
            Place::Between => {
                sink(JsonEvent::Lenient(Leniency::TextBetweenElements));
                self.state = State::At(Place::Between);
            }
            Place::Text => {
                self.start_text(sink);
                sink(JsonEvent::Text(held));
                sink(JsonEvent::Text(">"));
                self.state = State::At(Place::Text);
            }
        }
        Ok(())
    }

    /// Whether an element of this tag is a value named by an attribute.
    fn names_by_attribute(&self, tag: &str) -> bool {
        self.spelling.values.contains(&tag)
    }

    /// An element opens inside an object or array: its key (its tag, or
    /// its name attribute), and what its attributes say it holds.
    fn open(
        &mut self,
        name: &str,
        attrs: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), ElementsErrorKind> {
        if self.stack.len() >= self.max_depth {
            return Err(ElementsErrorKind::TooDeep);
        }
        let by_attribute = self.names_by_attribute(name);
        if self.top() == Holds::Object {
            if !by_attribute {
                sink(JsonEvent::Key(name));
            } else if let Some(key) = attribute(attrs, self.spelling.name_attribute) {
                sink(JsonEvent::Key(&decoded(key)));
            } else {
                sink(JsonEvent::Lenient(Leniency::UnnamedElement));
                sink(JsonEvent::Key(""));
            }
        }
        let said = by_attribute
            .then(|| {
                self.spelling
                    .holds
                    .iter()
                    .find(|(key, value, _)| attribute(attrs, key) == Some(*value))
                    .map(|&(_, _, holds)| holds)
            })
            .flatten();
        let holds = match said {
            None => Holds::Undecided,
            Some(ElementValue::String) => {
                sink(JsonEvent::BeginString);
                Holds::Text
            }
            Some(ElementValue::Json) => {
                sink(JsonEvent::BeginTextJson);
                Holds::Text
            }
            Some(ElementValue::Object) => {
                sink(JsonEvent::BeginObject);
                Holds::Object
            }
            Some(ElementValue::Array) => {
                sink(JsonEvent::BeginArray);
                Holds::Array
            }
        };
        self.stack.push(Open {
            name: name.to_owned(),
            holds,
        });
        self.space.clear();
        self.state = State::At(match holds {
            Holds::Object | Holds::Array => Place::Between,
            Holds::Undecided | Holds::Text => Place::Text,
        });
        Ok(())
    }

    /// A closer: of the open element, of one around it (the elements
    /// inside end there, reported), of the call, or of nothing (dropped,
    /// reported; text where text was read).
    fn close(
        &mut self,
        place: Place,
        name: &str,
        held: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), ElementsErrorKind> {
        let open_at = self.stack.iter().rposition(|open| open.name == name);
        let Some(open_at) = open_at else {
            if name == self.spelling.call {
                if !self.stack.is_empty() {
                    sink(JsonEvent::Lenient(Leniency::UnclosedElement));
                }
                while !self.stack.is_empty() {
                    self.end_element(sink);
                }
                sink(JsonEvent::EndObject);
                sink(JsonEvent::EndObject);
                self.state = State::Done;
                return Ok(());
            }
            if place == Place::Text && self.top() == Holds::Text {
                return self.not_a_tag(place, held, sink);
            }
            sink(JsonEvent::Lenient(Leniency::StrayCloser));
            self.state = if self.top() == Holds::Undecided {
                State::At(Place::Text)
            } else {
                State::At(Place::Between)
            };
            return Ok(());
        };
        if open_at + 1 < self.stack.len() {
            sink(JsonEvent::Lenient(Leniency::UnclosedElement));
        }
        while self.stack.len() > open_at {
            self.end_element(sink);
        }
        self.state = State::At(Place::Between);
        Ok(())
    }

    fn end_element(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        match open.holds {
            Holds::Undecided => {
                sink(JsonEvent::BeginString);
                if !self.space.is_empty() {
                    sink(JsonEvent::Text(&self.space));
                    self.space.clear();
                }
                sink(JsonEvent::EndString);
            }
            Holds::Text => sink(JsonEvent::EndString),
            Holds::Object => sink(JsonEvent::EndObject),
            Holds::Array => sink(JsonEvent::EndArray),
        }
    }
}
