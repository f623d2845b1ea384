//! A server-sent events decoder, sans-IO: body bytes in, events out.
//!
//! Hand-written rather than taken from `eventsource-stream`, which holds a
//! line with no line end whole and re-scans its whole buffer on every
//! chunk: one 200 MB line held 213 MB and cost ~53 s of CPU (quadratic).
//! The parsing rules of the WHATWG spec ("Parsing an event stream" in the
//! HTML standard) are small enough to own. Here each byte is examined
//! once, a comment or an ignored field is skipped as it comes, and what is
//! held for one event is bounded by `max_event_bytes`; so are the bytes
//! between two blank lines that are not held (names, comments, ignored
//! lines), so that a body that never forms an event ends in an error.
//!
//! The parse is on bytes and decodes UTF-8 at dispatch: the delimiters are
//! all ASCII, which no UTF-8 sequence (valid or not) swallows, so this is
//! the spec's decode-then-parse, with a character split across chunks kept
//! whole.

use std::fmt;

use memchr::{memchr, memchr2};

/// The UTF-8 byte order mark, skipped at the very start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";
/// The longest field name kept (`retry`): a longer name is one to ignore.
const MAX_NAME: usize = 5;
/// Capacity a buffer keeps between events, so that small events don't
/// reallocate; what one big event grew is given back at its dispatch.
const RETAIN: usize = 8 * 1024;
/// The smallest capacity allocated, so that short values don't grow
/// byte by byte.
const MIN_ALLOC: usize = 64;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `data` lines joined with "\n".
    pub data: String,
    /// The `event` field; `None` for the default type, "message".
    pub event: Option<String>,
    /// The last event ID (it carries over from earlier events, as the spec
    /// says); `None` when unset or reset to empty.
    pub id: Option<String>,
    /// Some of the event's bytes were not UTF-8 and became U+FFFD.
    pub invalid_utf8: bool,
}

/// Why the stream cannot be decoded further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseError {
    /// One event needed more than `limit` bytes.
    EventTooLarge { limit: usize },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EventTooLarge { limit } => {
                write!(f, "a server-sent event is larger than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for SseError {}

/// A field the decoder keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    Id,
    Retry,
}

impl Field {
    fn from_name(name: &[u8]) -> Option<Self> {
        match name {
            b"data" => Some(Self::Data),
            b"event" => Some(Self::Event),
            b"id" => Some(Self::Id),
            b"retry" => Some(Self::Retry),
            _ => None,
        }
    }
}

/// Where in the current line the decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// No byte of the line yet: a line end here is a blank line.
    Start,
    /// In the field name (held in `name`, at most `MAX_NAME` bytes).
    Name,
    /// Just after the colon: one space here is not part of the value.
    ValueStart(Field),
    /// In the value of a kept field.
    Value(Field),
    /// In a line that is ignored (a comment, an unknown field, an `id` with
    /// NUL, a `retry` not all digits): its bytes pass without being held.
    Skip,
}

/// An incremental decoder of one `text/event-stream` body.
///
/// Memory: the bytes held (the event's data and type, an `id` being read
/// and the last event ID) never exceed `max_event_bytes`; their buffers'
/// capacity stays within twice that plus a constant (one buffer grown by
/// doubling), whatever the input. CPU: linear in the input.
#[derive(Debug)]
pub struct SseDecoder {
    max_event_bytes: usize,
    line: Line,
    name: [u8; MAX_NAME],
    name_len: usize,
    /// The last chunk ended with CR: an LF that starts the next one ends
    /// the same line.
    pending_cr: bool,
    /// How many bytes of a BOM the stream began with so far; `None` once
    /// past the start.
    bom: Option<usize>,
    data: Vec<u8>,
    event: Vec<u8>,
    /// The value of the `id` line being read: it replaces `last_id` only
    /// if the line has no NUL.
    id_value: Vec<u8>,
    last_id: Vec<u8>,
    /// The digits of the `retry` line being read, if any.
    retry_value: Option<u64>,
    retry: Option<u64>,
    /// Bytes since the last blank line that are not held: field names,
    /// comments, ignored lines, line ends. Bounded by `max_event_bytes`
    /// too, so that a body that never forms an event (an endless line, or
    /// endless lines of no field) ends in an error rather than being read
    /// forever without a word to the client.
    ignored: usize,
    failed: bool,
    /// Bytes looked at by the line scanner: equal to the input's length
    /// if no byte is examined twice.
    #[cfg(test)]
    examined: usize,
}

impl SseDecoder {
    /// A decoder whose events may each hold up to `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        Self {
            max_event_bytes,
            line: Line::Start,
            name: [0; MAX_NAME],
            name_len: 0,
            pending_cr: false,
            bom: Some(0),
            data: Vec::new(),
            event: Vec::new(),
            id_value: Vec::new(),
            last_id: Vec::new(),
            retry_value: None,
            retry: None,
            ignored: 0,
            failed: false,
            #[cfg(test)]
            examined: 0,
        }
    }

    /// Decodes the next chunk of the body, pushing each event it completes
    /// onto `out`. After an error the decoder stays failed; the events
    /// pushed before it stand.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.check()?;
        let result = self
            .skip_bom(bytes, out)
            .and_then(|rest| self.decode(rest, out));
        self.fail_on(result)
    }

    /// Ends the body. Deliberately lenient: the spec drops an event the
    /// body ends before its blank line, but servers that end right after
    /// `data: [DONE]` are common, so a last line and event without their
    /// line ends are dispatched as if the body ended with "\n\n". The
    /// decoder is then as new, for another stream.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        self.check()?;
        let result = self.finish_stream(out);
        self.fail_on(result)?;
        // Ready for another stream; the reconnection time outlives one
        // (and a last `retry` line without its line end counts).
        let retry = self.retry;
        *self = Self::new(self.max_event_bytes);
        self.retry = retry;
        Ok(())
    }

    /// The reconnection time the stream last set (`retry`), in ms.
    #[allow(dead_code)] // the spec's field, read for completeness; unused by the proxy
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// The capacity of the decoder's buffers, in bytes.
    #[cfg_attr(not(test), allow(dead_code))] // the tests' view of the bound
    pub fn held_bytes(&self) -> usize {
        self.data.capacity()
            + self.event.capacity()
            + self.id_value.capacity()
            + self.last_id.capacity()
    }

    fn check(&self) -> Result<(), SseError> {
        if self.failed {
            return Err(self.too_large());
        }
        Ok(())
    }

    fn too_large(&self) -> SseError {
        SseError::EventTooLarge {
            limit: self.max_event_bytes,
        }
    }

    /// Fails for good on an error, and gives back what was held at once.
    fn fail_on(&mut self, result: Result<(), SseError>) -> Result<(), SseError> {
        if result.is_err() {
            self.failed = true;
            self.data = Vec::new();
            self.event = Vec::new();
            self.id_value = Vec::new();
            self.last_id = Vec::new();
        }
        result
    }

    fn finish_stream(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        // A stream that was only the start of a BOM: those bytes are text.
        if let Some(matched) = self.bom.take() {
            self.decode(BOM.get(..matched).unwrap_or_default(), out)?;
        }
        if self.line != Line::Start {
            self.end_line(out)?;
        }
        self.dispatch(out);
        Ok(())
    }

    /// Passes over a BOM at the start of the stream (also one split across
    /// chunks); returns the rest of `bytes`.
    fn skip_bom<'a>(
        &mut self,
        bytes: &'a [u8],
        out: &mut Vec<SseEvent>,
    ) -> Result<&'a [u8], SseError> {
        let Some(mut matched) = self.bom else {
            return Ok(bytes);
        };
        let mut rest = bytes;
        while let (Some(&want), Some((&byte, tail))) = (BOM.get(matched), rest.split_first()) {
            if byte != want {
                break;
            }
            matched += 1;
            rest = tail;
        }
        if matched == BOM.len() {
            self.bom = None;
        } else if rest.is_empty() {
            self.bom = Some(matched);
        } else {
            // Not a BOM after all: the bytes that looked like one are text.
            self.bom = None;
            self.decode(BOM.get(..matched).unwrap_or_default(), out)?;
        }
        Ok(rest)
    }

    fn decode(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut rest = bytes;
        if self.pending_cr {
            if let Some((&first, tail)) = rest.split_first() {
                self.pending_cr = false;
                if first == b'\n' {
                    self.count(1);
                    rest = tail;
                }
            }
        }
        while let Some(&byte) = rest.first() {
            match self.line {
                Line::Value(_) | Line::Skip => {
                    // The long part of a line: found with memchr, each byte
                    // once; a line end not yet seen leaves nothing to
                    // re-scan, the bytes so far being stored or skipped.
                    let end = memchr2(b'\r', b'\n', rest);
                    let (value, after) = rest.split_at(end.unwrap_or(rest.len()));
                    self.count(value.len());
                    if self.line == Line::Skip {
                        self.ignore(value.len())?;
                    }
                    self.value(value)?;
                    rest = after;
                }
                Line::ValueStart(field) => {
                    self.line = Line::Value(field);
                    if byte == b' ' {
                        self.count(1);
                        rest = rest.get(1..).unwrap_or_default();
                    }
                }
                Line::Start | Line::Name => {
                    // At most `MAX_NAME` + 1 bytes, so one at a time.
                    if byte != b'\r' && byte != b'\n' {
                        self.count(1);
                        self.ignore(1)?;
                        self.name_byte(byte);
                        rest = rest.get(1..).unwrap_or_default();
                    }
                }
            }
            if let Some((&end @ (b'\r' | b'\n'), tail)) = rest.split_first() {
                self.count(1);
                self.ignore(1)?;
                rest = tail;
                if end == b'\r' {
                    match rest.split_first() {
                        Some((b'\n', tail)) => {
                            self.count(1);
                            rest = tail;
                        }
                        Some(_) => {}
                        None => self.pending_cr = true,
                    }
                }
                self.end_line(out)?;
            }
        }
        Ok(())
    }

    #[cfg(test)]
    fn count(&mut self, n: usize) {
        self.examined += n;
    }

    #[cfg(not(test))]
    fn count(&mut self, _n: usize) {}

    /// One byte of a line's start: a comment's colon, or the field name.
    fn name_byte(&mut self, byte: u8) {
        if byte == b':' {
            self.line = match self.line {
                Line::Start => Line::Skip,
                _ => match self.field() {
                    Some(field) => {
                        self.begin(field);
                        Line::ValueStart(field)
                    }
                    None => Line::Skip,
                },
            };
        } else if let Some(slot) = self.name.get_mut(self.name_len) {
            *slot = byte;
            self.name_len += 1;
            self.line = Line::Name;
        } else {
            // Longer than any field kept.
            self.line = Line::Skip;
        }
    }

    fn field(&self) -> Option<Field> {
        Field::from_name(self.name.get(..self.name_len).unwrap_or_default())
    }

    /// A kept field's line has begun.
    fn begin(&mut self, field: Field) {
        match field {
            Field::Data => {}
            // A second `event` or `id` line replaces the first; what a
            // long first one grew is given back.
            Field::Event => {
                self.event.clear();
                shrink(&mut self.event);
            }
            Field::Id => {
                self.id_value.clear();
                shrink(&mut self.id_value);
            }
            Field::Retry => self.retry_value = None,
        }
    }

    /// Part of the current line's value.
    fn value(&mut self, bytes: &[u8]) -> Result<(), SseError> {
        let Line::Value(field) = self.line else {
            return Ok(());
        };
        match field {
            Field::Data => {
                self.reserve(bytes.len())?;
                append(&mut self.data, bytes, self.max_event_bytes);
            }
            Field::Event => {
                self.reserve(bytes.len())?;
                append(&mut self.event, bytes, self.max_event_bytes);
            }
            Field::Id if memchr(0, bytes).is_some() => {
                // The spec ignores an id with NUL: the last one stands.
                self.id_value.clear();
                self.line = Line::Skip;
            }
            Field::Id => {
                self.reserve(bytes.len())?;
                append(&mut self.id_value, bytes, self.max_event_bytes);
            }
            Field::Retry => {
                for &byte in bytes {
                    if !byte.is_ascii_digit() {
                        self.retry_value = None;
                        self.line = Line::Skip;
                        break;
                    }
                    let digit = u64::from(byte - b'0');
                    let value = self.retry_value.unwrap_or(0);
                    self.retry_value = Some(value.saturating_mul(10).saturating_add(digit));
                }
            }
        }
        Ok(())
    }

    /// Errs if `more` bytes would take what is held past the bound.
    /// `n` more bytes that are not held (see `ignored`).
    fn ignore(&mut self, n: usize) -> Result<(), SseError> {
        self.ignored = self.ignored.saturating_add(n);
        if self.ignored > self.max_event_bytes {
            return Err(self.too_large());
        }
        Ok(())
    }

    fn reserve(&self, more: usize) -> Result<(), SseError> {
        let held = self.data.len() + self.event.len() + self.id_value.len() + self.last_id.len();
        if held.saturating_add(more) > self.max_event_bytes {
            return Err(self.too_large());
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let line = std::mem::replace(&mut self.line, Line::Start);
        let field = match line {
            Line::Start => {
                self.dispatch(out);
                self.ignored = 0;
                None
            }
            // A field name alone: the field with an empty value.
            Line::Name => self.field().inspect(|&field| self.begin(field)),
            Line::ValueStart(field) | Line::Value(field) => Some(field),
            Line::Skip => None,
        };
        self.name_len = 0;
        match field {
            Some(Field::Data) => {
                self.reserve(1)?;
                append(&mut self.data, b"\n", self.max_event_bytes);
            }
            Some(Field::Id) => {
                std::mem::swap(&mut self.last_id, &mut self.id_value);
                self.id_value.clear();
                shrink(&mut self.id_value);
            }
            Some(Field::Retry) => {
                if let Some(value) = self.retry_value.take() {
                    self.retry = Some(value);
                }
            }
            Some(Field::Event) | None => {}
        }
        Ok(())
    }

    /// A blank line: the event, if it has data.
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if !self.data.is_empty() {
            // Each data line ended with "\n": the last one goes.
            if self.data.last() == Some(&b'\n') {
                self.data.pop();
            }
            let mut invalid_utf8 = false;
            let data = decode_utf8(&self.data, &mut invalid_utf8);
            let event =
                (!self.event.is_empty()).then(|| decode_utf8(&self.event, &mut invalid_utf8));
            let id =
                (!self.last_id.is_empty()).then(|| decode_utf8(&self.last_id, &mut invalid_utf8));
            out.push(SseEvent {
                data,
                event,
                id,
                invalid_utf8,
            });
        }
        // Per the spec an event without data is not dispatched, and its
        // type does not carry over.
        self.data.clear();
        self.event.clear();
        shrink(&mut self.data);
        shrink(&mut self.event);
    }
}

/// Appends `bytes` (the caller has checked the bound), growing by doubling
/// for amortized O(1) appends but never past `max` bytes of capacity.
fn append(buf: &mut Vec<u8>, bytes: &[u8], max: usize) {
    let needed = buf.len() + bytes.len();
    if needed > buf.capacity() {
        let target = buf
            .capacity()
            .saturating_mul(2)
            .max(MIN_ALLOC)
            .min(max)
            .max(needed);
        buf.reserve_exact(target - buf.len());
    }
    buf.extend_from_slice(bytes);
}

/// Gives back what one big event grew a buffer to.
fn shrink(buf: &mut Vec<u8>) {
    if buf.capacity() > RETAIN {
        buf.shrink_to(RETAIN);
    }
}

/// The bytes as text, invalid UTF-8 as U+FFFD (and then `invalid` set).
fn decode_utf8(bytes: &[u8], invalid: &mut bool) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => {
            *invalid = true;
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

#[cfg(test)]
mod tests;
