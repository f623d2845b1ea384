//! Messages with headers (gpt-oss's Harmony format): each message is a
//! header, `<|message|>` and a body,
//!
//! ```text
//! <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
//! ```
//!
//! and the header says what the body is: the arguments of a call when its
//! recipient is one of the client's functions, reasoning on a reasoning
//! channel (`analysis`) or for another recipient (a built-in tool the
//! server runs), content otherwise (`final`, a `commentary` preamble). The
//! header is held, bounded by the lookahead window, until `<|message|>`
//! decides it; one that never gets there is text, reported. The output
//! starts inside the header its prompt opened (`<|start|>assistant`),
//! which it may go on with (` to=functions.NAME…`) or leave at once.

use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::{Headers, Role};
use crate::sink::Sink;

/// What a header makes of its body.
enum Body {
    Content,
    Reasoning,
    /// A call: where the function name is in the held header.
    Call(std::ops::Range<usize>),
    /// A JSON call body, named inside it (the header's opener said so).
    CallObject,
}

impl Engine {
    pub(in crate::engine) fn headers(&self) -> Option<Headers> {
        let desc = self.desc();
        desc.headers.or(desc.json.and_then(|json| json.headers))
    }

    /// Whether headers end at their line's end.
    pub(in crate::engine) fn line_end_header(&self) -> bool {
        self.headers().is_some_and(|headers| headers.line_end)
    }

    /// Whether calls are marked up inside messages (`Description::headers`),
    /// not JSON bodies.
    pub(in crate::engine) fn marked_up_messages(&self) -> bool {
        self.desc().headers.is_some()
    }

    /// A header opener (`<|start|>`, or `<|channel|>` when the prompt
    /// already gave the role) outside calls.
    pub(in crate::engine) fn begin_header(&mut self, text: &str) {
        // A new header ends a message left open.
        self.in_message = false;
        self.tool_message = false;
        self.hold_start(text);
        self.hold.opening = Opening::Bare;
        self.state = State::Header;
    }

    /// The start of the output, in a format with headers: the prompt ends
    /// with `<|start|>assistant`, so the output may go on with the rest of
    /// that header (` to=functions.NAME<|channel|>commentary json`, or
    /// nothing) before `<|message|>`. Held while it may be one.
    pub(in crate::engine) fn begin_prompt_header(&mut self) {
        self.prompt_header = self.headers().is_some();
        if self.prompt_header {
            self.hold_start("");
            self.hold.opening = Opening::Bare;
            self.state = State::Header;
        }
    }

    /// Whether the header the prompt opened is, so far, only text that
    /// may begin one: not yet a header, and content if nothing makes it
    /// one.
    fn prompt_header_unbegun(&self) -> bool {
        self.prompt_header
            && self.headers().is_some_and(|headers| {
                let held = self.hold.text.trim_start();
                (held.len() < headers.recipient.len() && headers.recipient.starts_with(held))
                    || (headers.name_only && !held.contains(char::is_whitespace))
                    || (headers.line_end && !held.trim_end().contains(char::is_whitespace))
            })
    }

    /// The prompt's header was not continued: what was held is content,
    /// with nothing to report (most outputs start at a marker, or are
    /// plain text).
    fn prompt_header_was_text<S: Sink>(&mut self, sink: &mut S) {
        self.prompt_header = false;
        self.release_as_text(sink);
    }

    /// Header text: held until `<|message|>`, within the window.
    pub(in crate::engine) fn header_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        // A header that ends at its line's end: the line end is its
        // `<|message|>`.
        let line_end = self.headers().is_some_and(|headers| headers.line_end);
        let whole = s;
        let (s, ended) = match s.find('\n').filter(|_| line_end) {
            Some(at) => (&s[..at], true),
            None => (s, false),
        };
        if ended && self.prompt_header && self.hold.text.trim().is_empty() && s.trim().is_empty() {
            // An empty line opens the output: no header, text.
            self.prompt_header_was_text(sink);
            return 0;
        }
        if self.prompt_header {
            let held = self.hold.text.len();
            self.hold.text.push_str(s);
            let headers = self.headers();
            let recipient = headers.map_or("", |headers| headers.recipient);
            let text = self.hold.text.trim_start();
            let shown = text.len().min(recipient.len());
            // A header that is only a name has no whitespace in it.
            let name_only = headers.is_some_and(|headers| headers.name_only);
            // (A line's recipient may have whitespace after it.)
            let line_end = headers.is_some_and(|headers| headers.line_end);
            let not_a_name = (name_only && text.contains(char::is_whitespace))
                || (line_end && text.trim_end().contains(char::is_whitespace));
            if not_a_name || text.as_bytes()[..shown] != recipient.as_bytes()[..shown] {
                // Not a header: the held text is content, `s` follows.
                self.hold.text.truncate(held);
                self.prompt_header_was_text(sink);
                return 0;
            }
        } else {
            self.hold.text.push_str(s);
        }
        let over = self.hold.len().saturating_sub(self.hold_limit());
        if ended && over == 0 {
            // Decided by the line end, however the input was split.
            self.decided_by(whole, s.len());
            self.prompt_header = false;
            let opener = self.marker(Role::HeadOpen);
            let held = self
                .hold
                .text
                .strip_prefix(opener)
                .unwrap_or(&self.hold.text);
            let held = held.trim();
            if held.is_empty() || held.contains(char::is_whitespace) {
                // No recipient, or words: the line is text.
                self.reject_header("its line holds no recipient", sink);
                return s.len();
            }
            self.header_done("", sink);
            return s.len() + 1;
        }
        if over > 0 {
            // Decided by the byte that passed the window.
            self.passed_bound(s, over);
            self.end_header("it grew past the lookahead window", sink);
        }
        s.len()
    }

    /// A header that cannot be read: text, reported, unless it is the
    /// prompt's and nothing of it came.
    pub(in crate::engine) fn end_header<S: Sink>(&mut self, why: &str, sink: &mut S) {
        if self.prompt_header_unbegun() {
            self.prompt_header_was_text(sink);
        } else {
            self.reject_header(why, sink);
        }
    }

    pub(in crate::engine) fn header_marker<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        // (The usual start: the output's own `<|channel|>` header.)
        if role != Role::ArgsOpen && self.prompt_header_unbegun() {
            self.prompt_header_was_text(sink);
            return self.on_marker(role, sink);
        }
        self.prompt_header = false;
        match role {
            Role::ChannelOpen | Role::HeadAttr => {
                self.hold.text.push_str(text);
                if self.hold.len() > self.hold_limit() {
                    self.reject_header("it grew past the lookahead window", sink);
                }
            }
            Role::ArgsOpen => self.header_done(text, sink),
            _ => {
                self.reject_header(&format!("`{text}` came before its body"), sink);
                self.on_marker(role, sink);
            }
        }
    }

    /// The header is whole: its body starts.
    fn header_done<S: Sink>(&mut self, opener: &str, sink: &mut S) {
        let Some(headers) = self.headers() else {
            return self.reject_header("the format has no headers", sink);
        };
        let channel_open = self.marker(Role::ChannelOpen);
        let body = if headers.call_openers.contains(&opener) {
            Body::CallObject
        } else if headers.reasoning_openers.contains(&opener) {
            Body::Reasoning
        } else if headers.name_only {
            Body::Content
        } else {
            read_header(
                &self.hold.text,
                channel_open,
                self.marker(Role::HeadOpen),
                headers,
            )
        };
        self.in_message = false;
        self.tool_message = false;
        let marked_up = self.marked_up_messages();
        if S::WANTS_RAW && (marked_up || !matches!(body, Body::Call(_) | Body::CallObject)) {
            // The header's own marker (`<|message|>`) comes after this.
            sink.not_a_call();
        }
        match body {
            // A message to a function, in a format whose calls are marked
            // up: its body holds them.
            Body::Call(_) if marked_up => {
                self.hold.text.clear();
                self.reasoning_at = None;
                self.in_message = true;
                self.tool_message = true;
                self.state = State::Content;
            }
            Body::Content => {
                self.hold.text.clear();
                self.reasoning_at = None;
                self.in_message = true;
                self.state = State::Content;
            }
            Body::Reasoning => {
                self.hold.text.clear();
                self.reasoning_at = Some(self.call.count());
                self.in_message = true;
                self.state = State::Content;
            }
            Body::CallObject => {
                self.reasoning_at = None;
                // The header (a name at most) is structure; the opener is
                // held with the body, should it not be a call. No wrapper
                // is around it.
                self.hold_start(opener);
                // (Where the opener began, however the input was split.)
                self.hold.from = self.call.message.at.saturating_sub(opener.len() as u64);
                self.hold.opening = Opening::Bare;
                self.name.clear();
                self.begin_json(true);
            }
            Body::Call(name) => {
                self.reasoning_at = None;
                if !self.call.may_start_call(&self.opts, sink) {
                    // Past `max_calls` (reported): the message is text.
                    return self.release_as_text(sink);
                }
                let name = &self.hold.text[name];
                if name.len() > self.opts.limits.max_name_len || name.chars().any(char::is_control)
                {
                    return self.reject_header("its function name could not be read", sink);
                }
                self.call.start_call(name, None, &self.opts, sink);
                self.begin_json(false);
            }
        }
    }

    /// The body's opener (`<|message|>`) inside a body, in a format whose
    /// calls are marked up inside messages: the model switched message
    /// without ending the one it was in and without a header's opener
    /// (Muse's `…text.to=read<|message|>`); its header's words went with
    /// the body they followed. The message it begins is read as a
    /// function's, so that the call it holds is one; reported.
    pub(in crate::engine) fn switch_message<S: Sink>(&mut self, text: &str, sink: &mut S) {
        let end = self.marker(Role::BodyClose);
        self.diag(
            sink,
            Kind::MalformedHeader,
            None,
            format_args!(
                "`{text}` began a message inside a body without `{end}` and a header: \
                 the body ended there, and what follows was read as a function's message"
            ),
        );
        self.reasoning_at = None;
        self.in_message = true;
        self.tool_message = true;
    }

    /// The held header is not one: it is text, reported.
    pub(in crate::engine) fn reject_header<S: Sink>(&mut self, why: &str, sink: &mut S) {
        let line_end = self.headers().is_some_and(|headers| headers.line_end);
        let (open, body) = if line_end {
            (self.marker(Role::HeadOpen), "its line's end".to_owned())
        } else {
            let body = self.marker(Role::ArgsOpen);
            (self.marker(Role::ChannelOpen), format!("`{body}`"))
        };
        self.diag(
            sink,
            Kind::MalformedHeader,
            None,
            format_args!(
                "a message header (`{open}` … {body}) could not be read: {why}; \
                 its text was returned as content"
            ),
        );
        self.release_as_text(sink);
    }

    fn release_as_text<S: Sink>(&mut self, sink: &mut S) {
        self.release_held(sink);
        self.state = State::Content;
    }

    /// A message's end marker (`<|end|>`, `<|return|>`, or `<|call|>`
    /// after a body that was not a call) outside calls: structure, which
    /// ends the message's reasoning if it was reasoning.
    pub(in crate::engine) fn message_end(&mut self) {
        self.reasoning_at = None;
        self.in_message = false;
        self.tool_message = false;
    }
}

/// What a header (as held: its markers and words) makes of its body.
fn read_header(header: &str, channel_open: &str, head_open: &str, headers: Headers) -> Body {
    let word_end = |s: &str| {
        s.find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(s.len())
    };
    let recipient_at = if headers.recipient.is_empty() {
        // The header's first word is its recipient (`>>>NAME`).
        let after = if header.starts_with(head_open) && !head_open.is_empty() {
            head_open.len()
        } else {
            0
        };
        let rest = &header[after..];
        Some(after + rest.len() - rest.trim_start().len())
            .filter(|&start| word_end(&header[start..]) > 0)
    } else {
        header
            .find(headers.recipient)
            .map(|at| at + headers.recipient.len())
    };
    if let Some(start) = recipient_at {
        let recipient = &header[start..start + word_end(&header[start..])];
        if headers.reasoning_recipients.contains(&recipient) {
            return Body::Reasoning;
        }
        if headers.content_recipients.contains(&recipient) {
            return Body::Content;
        }
        if let Some(name) = recipient.strip_prefix(headers.functions) {
            if !name.is_empty() {
                let from = start + headers.functions.len();
                return Body::Call(from..from + name.len());
            }
        }
        // A built-in tool (`browser.search`, `python`): the server's own
        // business, not a call for the client.
        return Body::Reasoning;
    }
    let channel = header.find(channel_open).map(|at| {
        let rest = header[at + channel_open.len()..].trim_start();
        &rest[..word_end(rest)]
    });
    match channel {
        Some(channel) if headers.reasoning_channels.contains(&channel) => Body::Reasoning,
        _ => Body::Content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HARMONY: Headers = Headers::by_recipient(&["analysis"], "to=", "functions.");

    fn read(header: &str) -> String {
        match read_header(header, "<|channel|>", "<|start|>", HARMONY) {
            Body::Content => "content".into(),
            Body::Reasoning => "reasoning".into(),
            Body::Call(name) => format!("call {}", &header[name]),
            Body::CallObject => "call body".into(),
        }
    }

    #[test]
    fn a_header_says_what_its_body_is() {
        assert_eq!(read("<|channel|>analysis"), "reasoning");
        assert_eq!(read("<|start|>assistant<|channel|>final"), "content");
        assert_eq!(read("<|channel|>commentary"), "content");
        assert_eq!(
            read("<|channel|>commentary to=functions.get_weather <|constrain|>json"),
            "call get_weather"
        );
        assert_eq!(
            read("<|start|>assistant to=functions.f<|channel|>commentary json"),
            "call f"
        );
        assert_eq!(read("<|channel|>analysis to=browser.search"), "reasoning");
        assert_eq!(read("<|start|>assistant"), "content");
        assert_eq!(read("<|channel|>commentary to=functions."), "reasoning");
    }
}
