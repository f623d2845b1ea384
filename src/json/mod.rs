//! JSON string escaping with the byte-exact output of Python's
//! `json.dumps(..., ensure_ascii=False)`, which is what vLLM serializes
//! arguments with: `"`, `\` and control characters are escaped (the short
//! forms where JSON has them, `\u00XX` in lowercase hex otherwise);
//! everything else, non-ASCII included, is copied as is. Also [`compact`],
//! which takes the layout out of JSON text.

pub(crate) mod calls;
// The engine steps the Python and Gemma readers through `calls`; their own
// `feed` and `finish` serve their tests.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod elements;
pub(crate) mod event;
pub(crate) mod gemma;
#[cfg(test)]
mod plain_tests;
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod python;
pub(crate) mod reader;
pub(crate) mod stepper;
pub(crate) mod syntax;
#[cfg(test)]
mod test_support;

use std::borrow::Cow;

/// JSON's whitespace between tokens, which Gemma's objects and the calls
/// around them share.
pub(crate) fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `number`, written in JSON's number grammar, is one that strict
/// JSON readers accept: those that read numbers as `f64` (serde_json)
/// refuse `1e400` and integers past 1.8e308, so the readers write such a
/// number as a string instead (reported), and the arguments stay JSON.
pub(crate) fn in_json_range(number: &str) -> bool {
    serde_json::from_str::<serde_json::Number>(number).is_ok()
}

/// The char at `at` of `text`, for a reader's error.
pub(crate) fn char_at(text: &str, at: usize) -> char {
    text[at..].chars().next().unwrap_or('\u{FFFD}')
}

/// Appends to `held` what fits of `run` under `max` bytes (rounded up to a
/// char's end); how much, or `None` when nothing fits. The readers read a
/// token in runs like this and decide its end in a step that starts at the
/// byte after it, so that where an event or a bound's error is placed does
/// not depend on how the pieces were cut.
pub(crate) fn hold_run(held: &mut String, max: usize, run: &str) -> Option<usize> {
    if run.is_empty() {
        return Some(0);
    }
    let room = max.saturating_sub(held.len());
    if room == 0 {
        return None;
    }
    let mut take = run.len().min(room);
    while !run.is_char_boundary(take) {
        take += 1;
    }
    held.push_str(&run[..take]);
    Some(take)
}

/// The position of the first byte of `bytes` that escaping changes: `"`,
/// `\` or a control character below U+0020.
///
/// Values are mostly text that needs no escaping, so this tests eight bytes
/// at a time (the classic "has a zero byte" bit trick) and only looks at
/// single bytes in a word that holds a candidate.
pub(crate) fn first_escape(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        // A token-sized piece: a byte loop costs less than word setup.
        return bytes.iter().position(|&b| needs_escape(b));
    }
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let mut le = [0; 8];
        le.copy_from_slice(word);
        if word_needs_escape(u64::from_le_bytes(le)) {
            break;
        }
        offset += 8;
    }
    bytes[offset..]
        .iter()
        .position(|&b| needs_escape(b))
        .map(|k| offset + k)
}

/// As [`first_escape`], stopping at `&` too (where an entity may stand for
/// a quote).
#[inline]
pub(crate) fn first_escape_or_amp(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        return bytes.iter().position(|&b| ESCAPE_OR_AMP[usize::from(b)]);
    }
    let also_word = ONES * u64::from(b'&');
    let mut words = bytes.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let mut le = [0; 8];
        le.copy_from_slice(word);
        let x = u64::from_le_bytes(le);
        if word_needs_escape(x) || has_zero(x ^ also_word) & HIGH != 0 {
            break;
        }
        offset += 8;
    }
    bytes[offset..]
        .iter()
        .position(|&b| ESCAPE_OR_AMP[usize::from(b)])
        .map(|k| offset + k)
}

/// [`NEEDS_ESCAPE`] and `&`.
static ESCAPE_OR_AMP: [bool; 256] = {
    let mut table = NEEDS_ESCAPE;
    table[b'&' as usize] = true;
    table
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bits set where a byte of `v` may be zero (exact when none is).
fn has_zero(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v
}

/// Whether any of eight bytes may need escaping. Exact when it says no; a
/// yes may be caused by a borrow out of a matching byte into the next one,
/// so the caller finds the byte itself with a byte scan.
fn word_needs_escape(x: u64) -> bool {
    escape_flags(x) != 0
}

/// The high bit of each of eight bytes that may need escaping: bytes below
/// 0x20 (exact for bytes under 0x80), `"` and `\`. A flag may be false only
/// above a true one (a borrow out of a matching byte), so the lowest flag
/// is exact.
fn escape_flags(x: u64) -> u64 {
    let control = x.wrapping_sub(ONES * 0x20) & !x;
    let quote = has_zero(x ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(x ^ (ONES * u64::from(b'\\')));
    (control | quote | backslash) & HIGH
}

pub(crate) fn needs_escape(b: u8) -> bool {
    NEEDS_ESCAPE[usize::from(b)]
}

/// `"`, `\` and the control characters below U+0020.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Appends `text`, escaped for the inside of a JSON string, to `out`.
///
/// Eight bytes are tested at a time, and each run of plain text is copied
/// once, at the escape that ends it. Values that escape at all escape often
/// (code: a quote or a line end every dozen bytes or so), so the scan
/// restarts at the byte after each escape, with no setup to pay per run.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    loop {
        let escape = match bytes.get(at..at + 8) {
            Some(word) => {
                let mut le = [0; 8];
                le.copy_from_slice(word);
                let flags = escape_flags(u64::from_le_bytes(le));
                if flags == 0 {
                    at += 8;
                    continue;
                }
                // The lowest flag is exact: a false one only follows a true one.
                at + (flags.trailing_zeros() / 8) as usize
            }
            None => match bytes[at..].iter().position(|&b| needs_escape(b)) {
                Some(k) => at + k,
                None => break,
            },
        };
        // `escape` holds an ASCII byte, so both ends are character boundaries.
        out.push_str(&text[start..escape]);
        push_escaped(out, bytes[escape]);
        start = escape + 1;
        at = start;
    }
    out.push_str(&text[start..]);
}

fn push_escaped(out: &mut String, b: u8) {
    out.push('\\');
    match SHORT_ESCAPE[usize::from(b)] {
        b'u' => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        short => out.push(char::from(short)),
    }
}

/// For each byte, the letter after the backslash that escapes it (`u` for
/// a `\u00XX` escape), or 0 where it stands as it is.
static SHORT_ESCAPE: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table
};

/// `text`, JSON, without the whitespace between its tokens: the same
/// value on one line, as `serde_json` writes it. A model may lay a typed
/// value out over lines, and a value written into a JSON-lines record must
/// not carry those line breaks. Borrows when there is nothing to drop.
///
/// Whitespace inside strings is kept (a raw line break cannot occur there
/// in valid JSON); escapes are skipped so that `\"` does not end a string.
pub(crate) fn compact(text: &str) -> Cow<'_, str> {
    let is_layout = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let bytes = text.as_bytes();
    let mut out = String::new();
    // `text[kept..]` is not yet copied to `out`.
    let mut kept = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if is_layout(b) {
            let end = i + bytes[i..].iter().take_while(|&&c| is_layout(c)).count();
            // Layout bytes are ASCII: both ends are char boundaries.
            out.push_str(&text[kept..i]);
            kept = end;
            i = end;
            continue;
        }
        i += 1;
    }
    if kept == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{compact, escape_into, first_escape};

    #[test]
    fn compact_drops_layout_outside_strings_only() {
        let laid_out = "{\"width\": 10,\n \"height\": 20,\r\n\t\"n\": \"a \\\" b\\n c\"}";
        let one_line = compact(laid_out);
        assert_eq!(one_line, r#"{"width":10,"height":20,"n":"a \" b\n c"}"#);
        let parse = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
        assert_eq!(parse(&one_line), parse(laid_out));
        assert!(matches!(compact(r#"[1,"a b"]"#), Cow::Borrowed(_)));
        assert_eq!(compact(" 12\n"), "12");
        // An escaped backslash before a quote ends the string.
        assert_eq!(
            compact("[\n  \"\\\\\",\n  \"東京 🌧️\"\n]"),
            r#"["\\","東京 🌧️"]"#
        );
    }

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        escape_into(&mut out, text);
        out
    }

    #[test]
    fn matches_python_json_dumps() {
        assert_eq!(escaped("plain"), "plain");
        assert_eq!(escaped("say \"hi\"\t\\n"), "say \\\"hi\\\"\\t\\\\n");
        assert_eq!(escaped("a\nb\r\u{8}\u{c}"), "a\\nb\\r\\b\\f");
        assert_eq!(escaped("\u{1}\u{1f}\u{7f}"), "\\u0001\\u001f\u{7f}");
        assert_eq!(escaped("東京 🌧️"), "東京 🌧️");
    }

    #[test]
    fn agrees_with_serde_json_on_every_ascii_byte() {
        for b in 0u8..0x80 {
            let text = (b as char).to_string();
            let mut expected = serde_json::to_string(&text).unwrap();
            expected.pop();
            expected.remove(0);
            assert_eq!(escaped(&text), expected, "byte {b:#x}");
        }
    }

    #[test]
    fn agrees_with_serde_json_at_every_position_of_a_long_text() {
        // Each escapable byte, and a run of two, at every offset of text
        // that spans several words, with non-ASCII characters around.
        let base: Vec<char> = "abc déf 東京 \u{80}\u{9f} xyz 🌧️ ghi jkl".chars().collect();
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\"\n", "\r\t"] {
            for at in 0..=base.len() {
                let mut text: String = base[..at].iter().collect();
                text.push_str(special);
                text.extend(&base[at..]);
                let mut expected = serde_json::to_string(&text).unwrap();
                expected.pop();
                expected.remove(0);
                assert_eq!(escaped(&text), expected, "{text:?}");
            }
        }
    }

    #[test]
    fn the_word_scan_finds_the_first_escape_at_every_position() {
        // Every byte value, at every offset of a 19-byte run of text (two
        // words and a remainder), with non-ASCII and near-miss bytes around.
        let filler = "a\u{e9}!#[]~\u{7f}AZ az09\u{3042}";
        for b in 0u8..=0x7f {
            for at in 0..19 {
                let mut bytes: Vec<u8> = filler.bytes().cycle().take(19).collect();
                bytes.retain(|&c| !(c < 0x20 || c == b'"' || c == b'\\'));
                bytes.truncate(at);
                bytes.push(b);
                bytes.extend_from_slice(b"tail\"");
                let expected = bytes
                    .iter()
                    .position(|&c| c < 0x20 || c == b'"' || c == b'\\');
                assert_eq!(first_escape(&bytes), expected, "byte {b:#x} at {at}");
            }
        }
    }
}
