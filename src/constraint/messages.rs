//! Calls in messages with headers (Harmony, Muse, Inkling, Functionary
//! v3.2): the output is a stream of messages, each a header, then a body
//! and what closes it, and the header says what the body is. A call is a
//! message whose header names its function; an answer or reasoning is a
//! message of its own. The prompt wrote the first header's opener (and
//! role); later messages start with them.

use super::call::{Func, Piece};
use crate::format::{Description, Headers, Role};

/// How a format writes its messages.
pub(super) struct Messages {
    /// What starts every message after the first: the header opener and
    /// the role the model names (`<|start|>assistant`).
    pub separator: String,
    /// A call's header, before and after the function's name, up to its
    /// body (`<|channel|>commentary to=functions.`, ` <|constrain|>json<|message|>`,
    /// the space optional).
    pub call_head: (String, Vec<Piece>),
    /// What closes a call message (`<|call|>`), where something does.
    pub call_close: Option<&'static str>,
    /// An answer's headers, up to its text (`<|channel|>final<|message|>`;
    /// Muse's ` to=user<|message|>` and ` to=commentary<|message|>`).
    pub content: Vec<String>,
    /// A reasoning message's header (`<|channel|>analysis<|message|>`).
    pub reasoning: Option<String>,
    /// What closes a text message; none: the next message's separator, or
    /// the output's end (Functionary v3.2's).
    pub closes: Vec<&'static str>,
    /// What ends the turn: after a message, or closing an answer.
    pub end_of_turn: Vec<&'static str>,
}

impl Messages {
    /// The messages of a format with headers; none without.
    pub(super) fn of(desc: &Description) -> Option<Messages> {
        let headers = desc.headers.or(desc.json.and_then(|j| j.headers))?;
        let markers = |role: Role| {
            desc.markers
                .iter()
                .filter(move |(r, _)| *r == role)
                .map(|(_, text)| *text)
        };
        let marker = |role: Role| markers(role).next();
        let Headers {
            recipient,
            functions,
            line_end,
            ..
        } = headers;
        // The opener that ends a header whose body is text: the one that
        // says neither reasoning nor a call.
        let text_open = markers(Role::ArgsOpen)
            .find(|m| !headers.reasoning_openers.contains(m) && !headers.call_openers.contains(m))
            .filter(|_| !line_end);
        let ends = text_open.unwrap_or(if line_end { "\n" } else { "" });
        let channel = marker(Role::ChannelOpen);
        // A recipient follows the role after a space, or a channel's name.
        let lead = match channel.is_none() && !recipient.is_empty() {
            true => " ",
            false => "",
        };
        let named = |who: &str| format!("{lead}{recipient}{who}{ends}");
        let in_channel = |name: &str| {
            channel
                .filter(|_| !name.is_empty())
                .map(|open| format!("{open}{name}{}", text_open.unwrap_or_default()))
        };
        let call_head = match headers.name_only {
            true => (
                String::new(),
                vec![Piece::Text(headers.call_openers.first()?.to_string())],
            ),
            false => {
                let channel = channel
                    .filter(|_| !headers.call_channel.is_empty())
                    .map(|open| format!("{open}{} ", headers.call_channel))
                    .unwrap_or_default();
                // The content type of JSON arguments, where the header
                // names one (Harmony's `<|constrain|>json`): gpt-oss writes
                // a space before it, xgrammar's built-in none.
                let typed = marker(Role::HeadAttr)
                    .filter(|_| desc.json.is_some())
                    .map(|attr| vec![Piece::Maybe(" "), Piece::Text(format!("{attr}json{ends}"))])
                    .unwrap_or_else(|| vec![Piece::Text(ends.to_owned())]);
                (format!("{lead}{channel}{recipient}{functions}"), typed)
            }
        };
        let content = match headers.name_only {
            true => text_open.map(str::to_owned).into_iter().collect(),
            // A call's channel without a recipient is content too (gpt-oss's
            // `commentary` preamble before its calls).
            false => in_channel(headers.content_channel)
                .into_iter()
                .chain(in_channel(headers.call_channel).filter(|_| !recipient.is_empty()))
                .chain(headers.content_recipients.iter().map(|who| named(who)))
                .collect(),
        };
        let reasoning = headers
            .reasoning_openers
            .first()
            .map(|open| (*open).to_owned())
            .or_else(|| in_channel(headers.reasoning_channels.first().copied().unwrap_or("")))
            .or_else(|| headers.reasoning_recipients.first().map(|who| named(who)));
        let body_close: Vec<&'static str> = markers(Role::BodyClose).collect();
        // JSON bodies end at the function's closer; marked-up calls are
        // closed inside the body, which the message's closer then ends.
        let call_close = match desc.json {
            Some(_) => marker(Role::FuncClose).or(body_close.first().copied()),
            None => body_close.first().copied(),
        };
        Some(Messages {
            separator: format!("{}{}", marker(Role::HeadOpen)?, headers.role),
            call_head,
            call_close,
            content,
            reasoning,
            closes: match body_close.is_empty() {
                true => marker(Role::FuncClose).into_iter().collect(),
                false => body_close,
            },
            end_of_turn: markers(Role::EndOfTurn).collect(),
        })
    }

    /// The message that calls `name`: its header, then `func`, the call as
    /// the shape writes it (the arguments alone, a call object, or a
    /// marked-up function, in the `wrapper` opener and closer where the
    /// shape has them), then the message's closer.
    pub(super) fn call(
        &self,
        name: &str,
        mut func: Func,
        wrapper: (Option<&str>, Option<&str>),
    ) -> Func {
        let (call_open, call_close) = wrapper;
        let (before, after) = &self.call_head;
        let inner = std::mem::replace(&mut func.head, format!("{before}{name}"));
        let mut rest = after.clone();
        match call_open {
            Some(open) => rest.extend([
                Piece::Text(open.to_owned()),
                Piece::Maybe("\n"),
                Piece::Text(inner),
            ]),
            None => rest.push(Piece::Text(inner)),
        }
        // Text that follows text is one literal with it.
        let mut pieces: Vec<Piece> = Vec::new();
        for piece in rest.into_iter().chain(std::mem::take(&mut func.rest)) {
            match (pieces.last_mut(), piece) {
                (None, Piece::Text(text)) => func.head.push_str(&text),
                (Some(Piece::Text(last)), Piece::Text(text)) => last.push_str(&text),
                (_, piece) => pieces.push(piece),
            }
        }
        func.rest = pieces;
        if let Some(close) = call_close {
            func.tail
                .extend([Piece::Maybe("\n"), Piece::Text(close.to_owned())]);
        }
        if let Some(close) = self.call_close {
            func.tail.push(Piece::Text(close.to_owned()));
        }
        func
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    /// Pieces as text, an optional one followed by `?`.
    fn texts(pieces: &[Piece]) -> String {
        let text = |p: &Piece| match p {
            Piece::Text(t) => t.clone(),
            Piece::Maybe(t) => format!("{t}?"),
            _ => "…".into(),
        };
        pieces.iter().map(text).collect()
    }

    fn messages(format: Format) -> Messages {
        Messages::of(format.description()).expect("headers")
    }

    #[test]
    fn headers_are_written_as_each_format_writes_them() {
        let harmony = messages(Format::OpenAi);
        assert_eq!(harmony.separator, "<|start|>assistant");
        let head = |m: &Messages| (m.call_head.0.clone(), texts(&m.call_head.1));
        assert_eq!(
            head(&harmony),
            (
                "<|channel|>commentary to=functions.".into(),
                " ?<|constrain|>json<|message|>".into()
            )
        );
        assert_eq!(harmony.call_close, Some("<|call|>"));
        let answers = [
            "<|channel|>final<|message|>",
            "<|channel|>commentary<|message|>",
        ];
        assert_eq!(harmony.content, answers);
        assert_eq!(
            harmony.reasoning.as_deref(),
            Some("<|channel|>analysis<|message|>")
        );
        assert_eq!(harmony.closes, ["<|end|>", "<|return|>"]);
        let muse = messages(Format::Muse);
        assert_eq!(muse.separator, "<|start|>assistant");
        assert_eq!(head(&muse), (" to=".into(), "<|message|>".into()));
        assert_eq!(muse.call_close, Some("<|eom|>"));
        let to = [" to=user<|message|>", " to=commentary<|message|>"];
        assert_eq!(muse.content, to);
        assert_eq!(muse.reasoning.as_deref(), Some(" to=self<|message|>"));
        let inkling = messages(Format::Inkling);
        assert_eq!(inkling.separator, "<|message_model|>");
        assert_eq!(
            head(&inkling),
            (String::new(), "<|content_invoke_tool_json|>".into())
        );
        assert_eq!(inkling.call_close, Some("<|end_message|>"));
        assert_eq!(inkling.content, ["<|content_text|>"]);
        assert_eq!(inkling.reasoning.as_deref(), Some("<|content_thinking|>"));
        assert_eq!(inkling.closes, ["<|end_message|>"]);
        let functionary = messages(Format::FunctionaryV32);
        assert_eq!(functionary.separator, ">>>");
        assert_eq!(head(&functionary), (String::new(), "\n".into()));
        assert_eq!(functionary.call_close, None);
        assert_eq!(functionary.content, ["all\n"]);
        assert_eq!(functionary.reasoning, None);
        assert!(functionary.closes.is_empty());
        assert!(Messages::of(Format::Hermes.description()).is_none());
    }
}
