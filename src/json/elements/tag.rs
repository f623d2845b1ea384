//! One tag as written between `<` and `>`: its name, its attributes, and
//! the entities its text may hold.

use std::borrow::Cow;

use crate::json::is_json_space;

/// A tag as written between `<` and `>`.
pub(super) enum Tag<'a> {
    Open(&'a str, &'a str),
    Close(&'a str),
}

pub(super) fn is_name_byte(b: u8) -> bool {
    !matches!(b, b'<' | b'>' | b'/' | b'=' | b'"' | b'\'' | b'&') && !is_json_space(b)
}

pub(super) fn parse_tag(body: &str) -> Option<Tag<'_>> {
    if let Some(name) = body.strip_prefix('/') {
        let name = name.trim_end_matches(|c: char| c.is_ascii_whitespace());
        return (!name.is_empty() && name.bytes().all(is_name_byte)).then_some(Tag::Close(name));
    }
    let end = body
        .bytes()
        .position(|b| !is_name_byte(b))
        .unwrap_or(body.len());
    let (name, rest) = body.split_at(end);
    let rest_ok = rest.is_empty() || rest.as_bytes()[0].is_ascii_whitespace();
    (!name.is_empty() && rest_ok).then_some(Tag::Open(name, rest.trim()))
}

/// The value of `attribute` in a tag's attributes (`name="x" id=1`): in
/// double, single or no quotes.
pub(super) fn attribute<'a>(attrs: &'a str, attribute: &str) -> Option<&'a str> {
    let mut rest = attrs;
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = rest[..eq].trim();
        let value = rest[eq + 1..].trim_start();
        let (found, after) = match value.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => {
                let end = value[1..].find(q as char)? + 1;
                (&value[1..end], &value[end + 1..])
            }
            _ => {
                let end = value.find(char::is_whitespace).unwrap_or(value.len());
                (&value[..end], &value[end..])
            }
        };
        if key == attribute {
            return Some(found);
        }
        rest = after.trim_start();
    }
    None
}

/// An attribute's value with its entity references decoded (an `&` that
/// begins none is kept).
pub(super) fn decoded(value: &str) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        match after
            .find(';')
            .and_then(|end| Some((end, entity(&after[..end])?)))
        {
            Some((end, c)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// An entity reference's text (after `&`, before `;`) decoded.
pub(super) fn entity(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let code = name.strip_prefix('#')?;
            let value = match code.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => code.parse().ok()?,
            };
            char::from_u32(value)
        }
    }
}
