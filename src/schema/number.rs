//! Python's `int()` and `float()` on a value's text, as vLLM's ladder
//! calls them, with integers kept as exact digits and whole floats written
//! as the integers they denote.

use super::is_python_space;

/// vLLM's number step for text that is not an integer: Python's `float()`.
/// Declines non-finite values (`nan`, `inf`, `1e400`), which would be
/// invalid JSON. A whole value is written as an integer with the exact
/// digits of the text (`1e3` → `1000`, `1e300` → 1 and 300 zeros, where
/// vLLM writes the binary float's digits `1000000000000000052504760...`).
pub(super) fn write_number(text: &str, out: &mut String) -> bool {
    let Some(float) = PythonFloat::parse(text) else {
        return false;
    };
    if !float.value.is_finite() {
        return false;
    }
    if float.write_if_decimal_whole(out) {
        return true;
    }
    // Whole only after rounding to f64 (`1e-400` is 0, `1.00000000000000001`
    // is 1): vLLM writes `int(value)`.
    const I64_RANGE: f64 = 9.2e18;
    if float.value.fract() == 0.0 && float.value.abs() < I64_RANGE {
        // Exact: a whole f64 below 2^63 converts without loss.
        let whole = float.value as i64;
        out.push_str(&whole.to_string());
    } else {
        write_f64(float.value, out);
    }
    true
}

/// A finite f64 in shortest round-trip form (`2.5`, `1000.0`, `1e-7`).
pub(super) fn write_f64(value: f64, out: &mut String) {
    match serde_json::Number::from_f64(value) {
        Some(number) => out.push_str(&number.to_string()),
        // Only non-finite values have no JSON form; callers exclude them.
        None => out.push_str("null"),
    }
}

/// Text Python's `int()` accepts (base 10, ASCII digits): white space
/// around, a sign, digits with single `_` between them, within `f64` range
/// (below 1.8e308). Kept as digits, so integers stay exact.
///
/// The bound is `f64`'s: JSON readers that read numbers as `f64` (serde_json
/// without `arbitrary_precision`) refuse larger ones, as they refuse `1e400`.
/// Python has no such bound (vLLM writes such integers).
pub(super) struct PythonInt<'a> {
    negative: bool,
    /// Digits and underscores, as written.
    digits: &'a str,
}

impl<'a> PythonInt<'a> {
    pub(super) fn parse(text: &'a str) -> Option<PythonInt<'a>> {
        let text = text.trim_matches(is_python_space);
        let (negative, digits) = split_sign(text);
        digit_part(digits.as_bytes()).filter(|&n| n == digits.len())?;
        let significant = digits.trim_start_matches(['0', '_']);
        let significant_digits = significant.bytes().filter(u8::is_ascii_digit).count();
        let within_f64 = significant_digits < F64_MAX_DIGITS
            || (significant_digits == F64_MAX_DIGITS
                && significant
                    .replace('_', "")
                    .parse::<f64>()
                    .is_ok_and(f64::is_finite));
        within_f64.then_some(PythonInt { negative, digits })
    }

    /// As Python's `json.dumps(int(text))`: no `+`, no underscores, no
    /// leading zeros, no negative zero.
    pub(super) fn write(&self, out: &mut String) {
        let significant = self.digits.trim_start_matches(['0', '_']);
        if significant.is_empty() {
            out.push('0');
            return;
        }
        if self.negative {
            out.push('-');
        }
        out.extend(significant.chars().filter(|&c| c != '_'));
    }
}

/// Digits of `f64::MAX` (1.8e308), the largest integer written.
const F64_MAX_DIGITS: usize = 309;

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

/// The length of Python's `digitpart` at the start of `bytes` (digits with
/// single underscores between them), if there is one.
fn digit_part(bytes: &[u8]) -> Option<usize> {
    if !bytes.first()?.is_ascii_digit() {
        return None;
    }
    let mut end = 1;
    loop {
        match bytes.get(end..) {
            Some([d, ..]) if d.is_ascii_digit() => end += 1,
            Some([b'_', d, ..]) if d.is_ascii_digit() => end += 2,
            _ => return Some(end),
        }
    }
}

/// Text Python's `float()` accepts, finite spellings only (ASCII digits):
/// `1.5`, `.5`, `5.`, `1e3`, `1_000.5`, with white space and a sign.
/// `nan`, `inf` and `infinity` are not parsed: every caller declines them.
pub(super) struct PythonFloat {
    negative: bool,
    /// The mantissa's digits, integer part then fraction, no underscores.
    mantissa: String,
    /// The power of ten the mantissa is multiplied by (saturating).
    exponent: i64,
    pub(super) value: f64,
}

impl PythonFloat {
    pub(super) fn parse(text: &str) -> Option<PythonFloat> {
        let text = text.trim_matches(is_python_space);
        let (negative, rest) = split_sign(text);
        let bytes = rest.as_bytes();
        let int_len = digit_part(bytes).unwrap_or(0);
        let mut at = int_len;
        let mut fraction_start = at;
        let mut fraction_len = 0;
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            fraction_start = at;
            fraction_len = digit_part(&bytes[at..]).unwrap_or(0);
            at += fraction_len;
        }
        if int_len == 0 && fraction_len == 0 {
            return None;
        }
        let mut exponent: i64 = 0;
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            let (exponent_negative, exponent_text) = split_sign(&rest[at..]);
            at = bytes.len() - exponent_text.len();
            let exponent_len = digit_part(exponent_text.as_bytes())?;
            for d in exponent_text[..exponent_len]
                .bytes()
                .filter(u8::is_ascii_digit)
            {
                exponent = exponent
                    .saturating_mul(10)
                    .saturating_add(i64::from(d - b'0'));
            }
            if exponent_negative {
                exponent = -exponent;
            }
            at += exponent_len;
        }
        if at != bytes.len() {
            return None;
        }
        let without_underscores: String = text.chars().filter(|&c| c != '_').collect();
        let value: f64 = without_underscores.parse().ok()?;
        let mut mantissa = String::with_capacity(int_len + fraction_len);
        mantissa.extend(rest[..int_len].chars().filter(|&c| c != '_'));
        let fraction = &rest[fraction_start..fraction_start + fraction_len];
        let fraction_digits = fraction.bytes().filter(u8::is_ascii_digit).count();
        mantissa.extend(fraction.chars().filter(|&c| c != '_'));
        let exponent = exponent.saturating_sub(i64::try_from(fraction_digits).unwrap_or(i64::MAX));
        Some(PythonFloat {
            negative,
            mantissa,
            exponent,
            value,
        })
    }

    /// Writes the exact integer the text denotes, if it denotes one.
    fn write_if_decimal_whole(&self, out: &mut String) -> bool {
        let significant = self.mantissa.trim_start_matches('0');
        if significant.is_empty() {
            out.push('0');
            return true;
        }
        let digits = significant.trim_end_matches('0');
        let zeros = i64::try_from(significant.len() - digits.len()).unwrap_or(i64::MAX);
        let Ok(pad) = usize::try_from(self.exponent.saturating_add(zeros)) else {
            return false;
        };
        // A finite f64 is below 1.8e308, so `pad` is at most 308 here.
        if self.negative {
            out.push('-');
        }
        out.push_str(digits);
        out.extend(std::iter::repeat('0').take(pad));
        true
    }
}
