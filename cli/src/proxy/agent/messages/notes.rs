//! What a translation left out, for the request's log line: the client is
//! not told (Anthropic's API has no warnings), but the operator should
//! see why a tool or a block the client sent did not reach the model.

/// At most this many notes are kept per request: a request with hundreds
/// of skipped blocks says the first few and how many more.
const MAX_NOTES: usize = 8;

/// The notes of one translation, each said once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    notes: Vec<String>,
    more: usize,
}

impl Notes {
    pub fn new() -> Notes {
        Notes::default()
    }

    /// Adds `note` unless it was said already.
    pub fn add(&mut self, note: impl Into<String>) {
        let note = note.into();
        if self.notes.contains(&note) {
            return;
        }
        if self.notes.len() < MAX_NOTES {
            self.notes.push(note);
        } else {
            self.more += 1;
        }
    }

    /// The notes, in the order they were made.
    #[cfg(test)]
    pub fn list(&self) -> &[String] {
        &self.notes
    }

    /// One line for the log: the notes joined with "; ", and how many
    /// more were left out; `None` when there is nothing to say.
    pub fn summary(&self) -> Option<String> {
        if self.notes.is_empty() {
            return None;
        }
        let mut line = self.notes.join("; ");
        if self.more > 0 {
            line.push_str(&format!("; and {} more", self.more));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_said_once_and_bounded() {
        let mut notes = Notes::new();
        assert_eq!(notes.summary(), None);
        notes.add("a");
        notes.add("a");
        notes.add("b");
        assert_eq!(notes.summary().as_deref(), Some("a; b"));
        for i in 0..20 {
            notes.add(format!("n{i}"));
        }
        assert_eq!(notes.list().len(), MAX_NOTES);
        assert!(notes.summary().unwrap().ends_with("; and 14 more"));
    }
}
