//! Python number literals as JSON numbers: `1_000` is `1000`, `0x1F` is
//! `31`, `1.` is `1.0`, `.5e3` is `0.5e3`, `+2` is `2`. What is not a
//! Python int or float literal (`1j`, `007`, `1__0`, `0x`) is `None`.

/// The JSON form of `text`, a Python int or float literal with an
/// optional sign, or `None`.
pub(crate) fn json_number(text: &str) -> Option<String> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let mut out = String::with_capacity(text.len() + 2);
    if negative {
        out.push('-');
    }
    let lower = body.get(..2).map(str::to_ascii_lowercase);
    let radix = match lower.as_deref() {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    if let Some(radix) = radix {
        // `0x_1f` is valid Python: an underscore may follow the prefix.
        let digits = body[2..].strip_prefix('_').unwrap_or(&body[2..]);
        let digits = plain_digits(digits, |b| (b as char).is_digit(radix))?;
        let value = u128::from_str_radix(&digits, radix).ok()?;
        out.push_str(&value.to_string());
        return Some(out);
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(at) => (&mantissa[..at], Some(&mantissa[at + 1..])),
        None => (mantissa, None),
    };
    let int = if int.is_empty() {
        String::new()
    } else {
        plain_digits(int, |b| b.is_ascii_digit())?
    };
    let frac = match frac {
        Some("") => Some(String::new()),
        Some(frac) => Some(plain_digits(frac, |b| b.is_ascii_digit())?),
        None => None,
    };
    if int.is_empty() && frac.as_deref().map_or(true, str::is_empty) {
        return None; // no digit at all: `.`, `-`, `e5`
    }
    let is_float = frac.is_some() || exponent.is_some();
    let int = int.trim_start_matches('0');
    if !is_float {
        // An int's leading zeros are allowed only for zero itself (`00`).
        if int.is_empty() {
            out.push('0');
        } else if body.starts_with('0') {
            return None;
        } else {
            out.push_str(int);
        }
        return Some(out);
    }
    out.push_str(if int.is_empty() { "0" } else { int });
    out.push('.');
    match frac.as_deref() {
        Some(frac) if !frac.is_empty() => out.push_str(frac),
        _ => out.push('0'),
    }
    if let Some(exponent) = exponent {
        let (sign, digits) = match exponent.as_bytes().first() {
            Some(b'-') => ("-", &exponent[1..]),
            Some(b'+') => ("", &exponent[1..]),
            _ => ("", exponent),
        };
        let digits = plain_digits(digits, |b| b.is_ascii_digit())?;
        out.push('e');
        out.push_str(sign);
        out.push_str(&digits);
    }
    Some(out)
}

/// `text`'s digits without Python's `_` separators, which may stand only
/// between two digits; `None` when it is empty or holds anything else.
fn plain_digits(text: &str, is_digit: impl Fn(u8) -> bool) -> Option<String> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || !is_digit(bytes[0]) || !is_digit(bytes[bytes.len() - 1]) {
        return None;
    }
    let mut out = String::with_capacity(bytes.len());
    let mut last_underscore = false;
    for &b in bytes {
        if b == b'_' {
            if last_underscore {
                return None;
            }
            last_underscore = true;
        } else if is_digit(b) {
            last_underscore = false;
            out.push(b as char);
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::json_number;

    #[test]
    fn python_numbers_become_json_numbers() {
        for (python, json) in [
            ("0", "0"),
            ("00", "0"),
            ("42", "42"),
            ("-7", "-7"),
            ("+7", "7"),
            ("1_000_000", "1000000"),
            ("0x1F", "31"),
            ("0X_ff", "255"),
            ("0o17", "15"),
            ("-0b101", "-5"),
            ("1.5", "1.5"),
            ("1.", "1.0"),
            (".5", "0.5"),
            ("-.25", "-0.25"),
            ("1e5", "1.0e5"),
            ("1.5E-3", "1.5e-3"),
            ("2.e+10", "2.0e10"),
            ("007.5", "7.5"),
            ("0.0", "0.0"),
            ("1_0.0_1", "10.01"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
        ] {
            assert_eq!(json_number(python).as_deref(), Some(json), "{python}");
            let value: serde_json::Value = serde_json::from_str(json).unwrap();
            assert!(value.is_number(), "{json}");
        }
    }

    #[test]
    fn what_is_not_a_python_number_is_none() {
        for text in [
            "", "-", "+", ".", "e5", "007", "1__0", "_1", "1_", "0x", "0x_", "0xg", "1j", "1.5j",
            "1e", "1e+", "1..2", "1.2.3", "0b102", "1_.5", "1._5", "--1", "inf", "nan",
        ] {
            assert_eq!(json_number(text), None, "{text:?}");
        }
    }
}
