//! The state of one call body being read: where its fence and its
//! attributes are, and the readers and writers it is read with.

use crate::engine::body::args::ArgsWriter;
use crate::engine::body::object::BodyReader;

/// Where a code fence around the JSON is (formats that fence it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Fence {
    #[default]
    None,
    /// This many backticks of the opening fence.
    Ticks(u8),
    /// The fence's language tag (`json`).
    Tag,
    /// The fence is open: the JSON is inside it.
    Open,
    /// The closing fence's backticks, after the JSON.
    Closing(u8),
    /// Closed after the JSON.
    Closed,
    /// After a content-type marker before the arguments (`HeadAttr`,
    /// PLaMo 3's `<|plamo:constrain|>`): its word (`json`), layout, up to
    /// the `ArgsOpen` that ends it.
    ContentType,
}

/// Arguments written in an attribute (`args='{…}'/>`): what of the
/// element's end has been read after the JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum AttrEnd {
    /// Not arguments in an attribute.
    #[default]
    None,
    /// The attribute's closing quote is still to come.
    Quote(u8),
    /// Past the attribute: whitespace, then `/>` or `>`.
    Rest,
    /// `/` read: `>` ends the element, and the call.
    Slash,
    /// `>` read: the element's closer (`</invoke>`) ends the call.
    Tag,
}

/// What happens to the rest of a JSON value after a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(in crate::engine) enum Mode {
    /// Read as a call.
    #[default]
    Reading,
    /// Not a call: its text is content.
    Content,
    /// Its call (or the body after a call) could not be read: the rest
    /// of the value is content, so that no byte of it is lost.
    Unreadable,
}

#[derive(Default)]
pub(crate) struct JsonCall {
    pub args: ArgsWriter,
    pub body: BodyReader,
    /// A call body rather than arguments after a name.
    pub is_body: bool,
    pub(in crate::engine) mode: Mode,
    /// A call was started from this JSON value (or, for arguments after a
    /// name, before it).
    pub(in crate::engine) made_call: bool,
    /// Leniencies already reported in this value.
    pub(in crate::engine) reported: [bool; 12],
    /// A call body that no marker opened (the next in a wrapper): strict
    /// mode's raw text must be told where it begins, at its first byte.
    pub mark_opening: bool,
    /// A code fence around the JSON.
    pub fence: Fence,
    /// The element's end, for arguments written in an attribute.
    pub attr_end: AttrEnd,
    /// A call of a list just ended: separators come before the next.
    pub(super) between_elements: bool,
    /// A `,` came after the list's last call: what follows may be the next.
    pub(super) comma_seen: bool,
    /// Just past the byte that made the reader's last event other than a
    /// string's text, as an input offset: where diagnostics point.
    pub(in crate::engine) event_at: u64,
    /// A body that is not a call is ordinary content in this format
    /// (`Json::open_at_line_start`): no diagnostic says it was not one.
    pub(in crate::engine) content_json: bool,
    /// The call's JSON failed or ended before the call's closer: the text
    /// up to that closer is content, not stray text (no byte is lost).
    pub rest_is_content: bool,
    /// Where in the piece being fed a call was cut short: the bytes before
    /// are the call's, those after content.
    pub(super) content_from: Option<usize>,
    /// A call of this value's list was read: its wrapper's closer is
    /// structure, whatever the elements after it are.
    pub(super) list_had_call: bool,
    /// Skipping the rest of an element whose call became unreadable.
    pub resync: crate::engine::body::resync::Resync,
}

impl JsonCall {
    pub(crate) fn reset(&mut self) {
        self.args.reset();
        self.body.reset();
        self.mode = Mode::Reading;
        self.made_call = false;
        self.reported = [false; 12];
        self.mark_opening = false;
        self.fence = Fence::None;
        self.attr_end = AttrEnd::None;
        self.between_elements = false;
        self.comma_seen = false;
        self.content_json = false;
        self.rest_is_content = false;
        self.content_from = None;
        self.list_had_call = false;
        self.resync = Default::default();
        self.event_at = 0;
    }

    /// Whether the text of the JSON string being read goes, as it is, to
    /// the open call's value: reading a call already made, nothing to mark
    /// or hold, the body (when it is a call object read with the format's
    /// `body_keys`) in its arguments, which are in a top-level string.
    #[inline]
    pub(in crate::engine) fn streams_top_string(&self, body_keys: bool) -> bool {
        let via_body = self.is_body && body_keys;
        self.mode == Mode::Reading
            && self.made_call
            && !self.between_elements
            && !self.mark_opening
            && self.content_from.is_none()
            && (!via_body || self.body.streams_args())
            && self.args.streams_top_string()
    }

    pub(crate) fn held_len(&self) -> usize {
        self.args.held_len() + self.body.held_len()
    }
}
