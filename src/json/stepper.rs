//! The loop the incremental readers (JSON, Python literals, Gemma's
//! arguments) share: a piece of text is read step by step from its first
//! byte until the value is done, the piece ends, the sink asks to pause, or
//! a byte is wrong; each reader says only what one step does.

use super::event::{Fed, JsonEvent};

/// What a reader had open where it failed: brackets (the outermost
/// first, `[`, `{` or `(`), and the quote of a string it was inside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Nesting {
    pub open: Vec<u8>,
    pub quote: Option<u8>,
}

/// One incremental reader, as the shared loop drives it.
pub(crate) trait Stepper {
    /// Why a step failed.
    type Kind;

    /// The value has ended: nothing more is read.
    fn is_done(&self) -> bool;

    /// Whether a step is due with no byte left (Python arguments open
    /// their object before their first byte).
    fn steps_without_bytes(&self) -> bool {
        false
    }

    /// One step from `at` (a char boundary); where the next begins.
    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, Self::Kind>;

    /// A step failed: nothing more is read.
    fn fail(&mut self);

    /// Called when a step failed, before [`fail`](Stepper::fail): the text
    /// of the token it failed in that earlier steps took and no event
    /// stands for (a word that is no literal, the start of a number), so
    /// that the caller can give it back: no byte is lost with the error.
    fn unread(&self) -> String {
        String::new()
    }

    /// Called when a step failed, before [`fail`](Stepper::fail): what the
    /// reader had open, for a caller that skips to the end of the value
    /// the failure was in.
    fn nesting(&self) -> Nesting {
        Nesting::default()
    }

    /// Bytes of the text read before the current piece.
    fn offset_mut(&mut self) -> &mut u64;

    /// Whether `bytes`, read next as one piece, are all text of a value
    /// string with nothing pending: a step over them would give one `Text`
    /// event of them all and move nothing but the offset (the engine's
    /// shortcut past the reader). Each reader answers for its own state;
    /// none says so unless it knows.
    #[inline]
    fn takes_plain_string(&self, _bytes: &[u8]) -> bool {
        false
    }

    /// Reads `len` bytes that [`takes_plain_string`] took, whose `Text`
    /// event the caller made: what the loop does after such a step. (A
    /// reader that steps another one inside it moves only its own offset,
    /// as its steps do.)
    ///
    /// [`takes_plain_string`]: Stepper::takes_plain_string
    #[inline(always)]
    fn read_plain_string(&mut self, len: usize) {
        *self.offset_mut() += len as u64;
    }
}

/// Reads `text` with `reader`. The sink may ask to pause (by returning
/// true) after the bytes of the event it was given, and is given where the
/// step that made the event began, as an offset in the whole text. An
/// error is its kind, the offset of the byte that caused it, and the
/// [`unread`](Stepper::unread) text just before that byte.
pub(crate) fn feed_until<R: Stepper>(
    reader: &mut R,
    text: &str,
    sink: &mut impl FnMut(JsonEvent<'_>, u64) -> bool,
) -> Result<Fed, (R::Kind, u64, String, Nesting)> {
    let mut at = 0;
    let mut pause = false;
    let offset = *reader.offset_mut();
    let result = loop {
        if reader.is_done() {
            break Ok(Fed::Done(at));
        }
        if pause {
            break Ok(Fed::Paused(at));
        }
        if at == text.len() && !reader.steps_without_bytes() {
            break Ok(Fed::More);
        }
        let step_at = offset + at as u64;
        let mut events = |event: JsonEvent<'_>| pause |= sink(event, step_at);
        match reader.step(text, at, &mut events) {
            Ok(next) => at = next,
            Err(kind) => {
                let (unread, nesting) = (reader.unread(), reader.nesting());
                reader.fail();
                break Err((kind, offset + at as u64, unread, nesting));
            }
        }
    };
    *reader.offset_mut() += at as u64;
    result
}
