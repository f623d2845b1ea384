//! Descriptions compiled for the engine: a format stays data that knows
//! nothing of the engine, and the engine builds what it runs from it (the
//! marker automaton, each role's spelling) once per process.

use std::sync::OnceLock;

use crate::engine::markers::MarkerSet;
use crate::format::{Description, DescriptionError, Format, Role};
use crate::json::needs_escape;

/// A byte that may start one of the format's markers.
pub(crate) const MAY_START_MARKER: u8 = 1;
/// A byte that JSON escapes inside a string (a line end among them).
pub(crate) const ESCAPED: u8 = 2;

/// A format's description together with its marker automaton, built once
/// per process and shared by every parser of that format.
pub(crate) struct Compiled {
    pub desc: &'static Description,
    pub markers: MarkerSet,
    /// Each role's spelling, by role (`""` for a role the format lacks).
    texts: [&'static str; Role::COUNT],
    /// `Json::open_at_line_start`, where content reads it: a line end in
    /// content goes back to `State::Start`.
    pub line_starts: bool,
    /// What each byte is to a parameter value's text (see
    /// [`Compiled::value_bytes`]).
    value_bytes: [u8; 256],
}

impl Compiled {
    /// Validates `desc` and builds its marker automaton.
    pub(crate) fn new(desc: &'static Description) -> Result<Compiled, DescriptionError> {
        desc.validate()?;
        let mut texts = [""; Role::COUNT];
        // A role spelled more than once is named by its first spelling.
        for &(role, text) in desc.markers.iter().rev() {
            texts[role as usize] = text;
        }
        let markers = MarkerSet::new(&with_recovered_spellings(desc));
        let value_bytes = std::array::from_fn(|b| {
            let b = b as u8;
            (if markers.starts_marker(b) {
                MAY_START_MARKER
            } else {
                0
            }) | (if needs_escape(b) { ESCAPED } else { 0 })
        });
        Ok(Compiled {
            desc,
            markers,
            texts,
            line_starts: desc.json.is_some_and(|json| json.open_at_line_start),
            value_bytes,
        })
    }

    /// What the bytes of `text` are to a value's text, together: `0` when
    /// none may start a marker and JSON escapes none (the text is its own
    /// arguments fragment), else [`MAY_START_MARKER`] and [`ESCAPED`] as
    /// some are. One table lookup a byte, where finding markers and
    /// escapes apart costs two searches; for token-sized text, the bulk of
    /// a tool-dense stream.
    #[inline(always)]
    pub(crate) fn value_bytes(&self, text: &[u8]) -> u8 {
        text.iter()
            .fold(0, |class, &b| class | self.value_bytes[usize::from(b)])
    }

    /// Whether `written`, an opener as the input spelled it, is one the
    /// description does not spell: a malformed spelling its recoveries
    /// read (see [`with_recovered_spellings`]).
    pub(crate) fn is_recovered_spelling(&self, written: &str) -> bool {
        self.desc.recoveries.call_open_without_close
            && !self.desc.markers.iter().any(|&(_, text)| text == written)
            && !self.is_misspelling(written)
    }

    /// Whether `written`, a marker as the input spelled it, is one of the
    /// description's `misspellings`.
    pub(crate) fn is_misspelling(&self, written: &str) -> bool {
        self.desc
            .misspellings
            .iter()
            .any(|&(_, text)| text == written)
    }

    /// A format's compiled description: a built-in one's is compiled on
    /// first use, a custom one's when it was built.
    pub(crate) fn of(format: Format) -> &'static Compiled {
        // One cell per built-in format, and the last for `Auto`.
        const CELLS: usize = Format::ALL.len() + 1;
        static COMPILED: [OnceLock<Compiled>; CELLS] = [const { OnceLock::new() }; CELLS];
        if let Format::Custom(custom) = format {
            return custom.compiled();
        }
        let cell = Format::ALL
            .iter()
            .position(|f| *f == format)
            .unwrap_or(CELLS - 1);
        COMPILED[cell].get_or_init(|| {
            let desc = format.description();
            Compiled::new(desc).unwrap_or_else(|e| panic!("built-in format {}: {e}", desc.name))
        })
    }

    /// The spelling of `role`, or `""`.
    #[inline]
    pub(crate) fn text(&self, role: Role) -> &'static str {
        self.texts[role as usize]
    }
}

/// The description's markers, and the malformed spellings its recoveries
/// read as markers: with `call_open_without_close`, each wrapper opener
/// that ends in `>` also without it, a line end in its place
/// (`<｜DSML｜tool_calls` ⏎); and the description's `misspellings`. A
/// recovered spelling that would not keep the set
/// prefix-free is left out. Kept for the process, as the description is.
fn with_recovered_spellings(desc: &Description) -> Vec<(Role, &'static str)> {
    let mut markers = desc.markers.to_vec();
    markers.extend_from_slice(desc.misspellings);
    if !desc.recoveries.call_open_without_close {
        return markers;
    }
    for &(role, text) in desc.markers {
        let Some(name) = text.strip_suffix('>') else {
            continue;
        };
        if role != Role::CallOpen {
            continue;
        }
        let spelled = format!("{name}\n");
        let clashes = markers
            .iter()
            .any(|(_, t)| t.starts_with(&spelled) || spelled.starts_with(t));
        if !clashes {
            markers.push((role, Box::leak(spelled.into_boxed_str())));
        }
    }
    markers
}
