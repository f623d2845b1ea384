//! JSON against a schema, as GBNF rules: the keywords a value's schema
//! keeps (`value::reads_back`), written out, since GBNF has no `%json`.
//! Keys come in the schema's order (as llama.cpp writes them); integers
//! keep their bounds exactly, a number only its sign (a minimum of 0 or
//! more), and its digits and exponent stay a float's.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::{Map, Value};

use super::gbnf_text::{class_char, literal};

/// The largest integer a float holds exactly.
const SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The JSON rules of one grammar, and the shared ones they use.
pub(super) struct JsonRules {
    /// The characters a string holds as written, as a class's body.
    plain: String,
    used: bool,
    /// A schema no value satisfies stood where a value is required.
    pub never: bool,
    /// How the values' tokens are spelled.
    words: &'static Words,
    /// The characters a string or key may not hold as written.
    starts: String,
    /// The text around a string, where `words` writes strings between
    /// delimiters (Gemma's).
    delimiter: &'static str,
}

/// How a value's leaves are spelled: JSON's, Python literals'
/// (`python.rs`), or Gemma's (`gemma.rs`); objects and arrays are
/// written the same way in all (a JSON string is a Python string of the
/// same text; Gemma's keys are bare).
pub(super) struct Words {
    /// Any value, a number's digits without its sign, and what stands
    /// where no value may (rules).
    pub any: &'static str,
    /// A key beyond the declared ones (a rule).
    pub key: &'static str,
    /// Declared keys are written bare (`city:`), not as strings.
    pub bare_keys: bool,
    /// A call's arguments: their opener, closer, and what follows a key.
    pub args: [&'static str; 3],
    /// Each quote a string may be written in (an expression), and the
    /// rule of the characters it holds.
    pub quotes: &'static [(&'static str, &'static str)],
    pub unsigned: &'static str,
    pub never: &'static str,
    /// `true`, `false`, `null` (literals).
    pub true_: &'static str,
    pub false_: &'static str,
    pub null: &'static str,
    /// A value's text, as a literal (a `const`, an `enum`'s, a declared
    /// key).
    pub literal: fn(&Value) -> String,
    /// Writes the rules the names above refer to, strings holding as
    /// written the characters of `plain` (a class's body), between the
    /// delimiter given where strings have one.
    pub shared: fn(&mut String, &str, &str),
}

/// JSON's words.
pub(super) static JSON: Words = Words {
    any: "json-any",
    key: "json-string",
    bare_keys: false,
    args: ["{", "}", ":"],
    quotes: &[("\"\\\"\"", "json-char")],
    unsigned: "json-unsigned",
    never: "json-never",
    true_: "\"true\"",
    false_: "\"false\"",
    null: "\"null\"",
    literal: json_literal,
    shared: json_shared,
};

impl JsonRules {
    /// Rules whose strings hold none of `starts`, as written (escaped,
    /// they may).
    pub(super) fn new(starts: &str, words: &'static Words) -> JsonRules {
        let mut plain = String::from("\"\\\\\\u0000-\\u001F");
        for c in starts.chars() {
            plain.push_str(&class_char(c));
        }
        JsonRules {
            plain,
            used: false,
            never: false,
            words,
            starts: starts.to_owned(),
            delimiter: "",
        }
    }

    /// The same rules, their strings between two `delimiter`s.
    pub(super) fn delimited(mut self, delimiter: &'static str) -> JsonRules {
        self.delimiter = delimiter;
        self
    }

    /// Writes `name`: JSON against `schema`, whose `$ref`s name its own
    /// `$defs` or `definitions`.
    pub(super) fn write(&mut self, out: &mut String, name: &str, schema: &Value) {
        self.write_as(out, name, schema, false);
    }

    /// Writes `name`: a call's keyword arguments against `schema` (an
    /// object's), `(` and `)` included, each `key=value`.
    pub(super) fn write_kwargs(&mut self, out: &mut String, name: &str, schema: &Value) {
        self.write_as(out, name, schema, true);
    }

    fn write_as(&mut self, out: &mut String, name: &str, schema: &Value, kwargs: bool) {
        self.used = true;
        let mut writer = Writer {
            root: schema,
            prefix: name,
            rules: Vec::new(),
            refs: HashMap::new(),
            words: self.words,
            starts: &self.starts,
        };
        let body = match (kwargs, schema.as_object()) {
            (true, Some(object)) => writer.object(object, true),
            _ => writer.expr(schema),
        };
        if body.is_none() {
            self.never = true;
        }
        let body = body.unwrap_or_else(|| self.words.never.to_owned());
        match kwargs {
            // The name ends where `(` begins: no line end between.
            true => {
                let _ = writeln!(out, "{name} ::= {body}");
            }
            // Whitespace may come around the value, as around its tokens.
            false => {
                let _ = writeln!(out, "{name} ::= ws {body} ws");
            }
        }
        for (rule, body) in writer.rules {
            let _ = writeln!(out, "{rule} ::= {body}");
        }
    }

    /// Writes the rules every JSON value shares, once, if any was written.
    pub(super) fn finish(&self, out: &mut String) {
        if self.used {
            (self.words.shared)(out, &self.plain, self.delimiter);
        }
    }
}

/// JSON's shared rules.
fn json_shared(out: &mut String, plain: &str, _delimiter: &str) {
    // Whitespace between tokens is bounded: a model that prefers a line
    // end to the next token would otherwise write them until
    // `max_tokens`.
    let _ = writeln!(out, "ws ::= [ \\t\\n\\r]{{0,8}}");
    // No lone surrogate: JSON readers refuse one.
    let _ = writeln!(
        out,
        "json-char ::= [^{plain}] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] [0-9a-fA-F]{{3}} | [dD] [0-7] [0-9a-fA-F]{{2}}))"
    );
    let _ = writeln!(out, "json-string ::= \"\\\"\" json-char* \"\\\"\"");
    // Digits bounded so that the number is a float's.
    let _ = writeln!(out, "json-number ::= \"-\"? json-unsigned");
    write_any(out, &JSON, "json-string", "json-number");
}

/// The rules every value syntax writes alike but for its `words`: a
/// number's digits (bounded to a float's), any value where a schema leaves
/// it free (`string` and `number` the syntax's expressions for those), a
/// key and its value, and what stands where no value may (a character no
/// text holds).
pub(super) fn write_any(out: &mut String, words: &Words, string: &str, number: &str) {
    let (any, key, never) = (words.any, words.key, words.never);
    let kv = format!("{}-kv", any.strip_suffix("-any").unwrap_or(any));
    let _ = writeln!(
        out,
        "{} ::= (\"0\" | [1-9] [0-9]{{0,15}}) (\".\" [0-9]{{1,16}})? ([eE] [-+]? [0-9]{{1,2}})?",
        words.unsigned
    );
    let _ = writeln!(
        out,
        "{any} ::= {string} | {number} | {} | {} | {} | \
         \"[\" ws ({any} (ws \",\" ws {any})*)? ws \"]\" | \
         \"{{\" ws ({kv} (ws \",\" ws {kv})*)? ws \"}}\"",
        words.true_, words.false_, words.null
    );
    let _ = writeln!(out, "{kv} ::= {key} ws \":\" ws {any}");
    let _ = writeln!(out, "{never} ::= [^\\u0000-\\U0010FFFF]");
}

/// The rules of one value's schema.
struct Writer<'a> {
    root: &'a Value,
    words: &'static Words,
    /// What a bare key may not hold.
    starts: &'a str,
    prefix: &'a str,
    rules: Vec<(String, String)>,
    /// The rule of each `$ref` written (or being written).
    refs: HashMap<String, String>,
}

impl Writer<'_> {
    /// A new rule's name.
    fn fresh(&self, what: &str) -> String {
        format!("{}-{what}{}", self.prefix, self.rules.len())
    }

    fn define(&mut self, what: &str, body: String) -> String {
        let name = self.fresh(what);
        self.rules.push((name.clone(), body));
        name
    }

    /// An expression for `schema`'s JSON; `None` where no value satisfies
    /// it.
    fn expr(&mut self, schema: &Value) -> Option<String> {
        let object = match schema {
            Value::Bool(false) => return None,
            Value::Object(object) => object,
            _ => return Some(self.words.any.to_owned()),
        };
        if let Some(target) = object.get("$ref").and_then(Value::as_str) {
            return self.reference(target);
        }
        if let Some(Value::Array(all)) = object.get("allOf") {
            let mut merged = object.clone();
            merged.remove("allOf");
            for part in all {
                merge(&mut merged, part.as_object()?);
            }
            return self.expr(&Value::Object(merged));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(key) {
                let mut rest = object.clone();
                rest.remove(key);
                let options: Vec<String> = branches
                    .iter()
                    .filter_map(|branch| {
                        let mut merged = rest.clone();
                        merge(&mut merged, branch.as_object()?);
                        self.expr(&Value::Object(merged))
                    })
                    .collect();
                return alternatives(options);
            }
        }
        if let Some(value) = object.get("const") {
            return Some((self.words.literal)(value));
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            return alternatives(values.iter().map(self.words.literal).collect());
        }
        let types: Vec<&str> = match object.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ if ["properties", "additionalProperties", "patternProperties"]
                .iter()
                .any(|k| object.contains_key(*k)) =>
            {
                vec!["object"]
            }
            _ if object.contains_key("items") || object.contains_key("prefixItems") => {
                vec!["array"]
            }
            _ => return Some(self.words.any.to_owned()),
        };
        let options = types.iter().filter_map(|t| self.typed(object, t)).collect();
        alternatives(options)
    }

    fn typed(&mut self, object: &Map<String, Value>, type_: &str) -> Option<String> {
        let count = |key: &str| object.get(key).and_then(Value::as_u64);
        let words = self.words;
        match type_ {
            "string" => {
                let min = count("minLength").unwrap_or(0);
                let quoted = words.quotes.iter().map(|(quote, char_)| {
                    let chars = repeat(char_, min, count("maxLength"))?;
                    Some(format!("{quote} {chars} {quote}"))
                });
                alternatives(quoted.collect::<Option<_>>()?)
            }
            "integer" => integer(object),
            // Of a number's bounds, GBNF keeps the sign: no minus where the
            // minimum is 0 or more.
            "number" => Some(match object.get("minimum").and_then(Value::as_f64) {
                Some(min) if min >= 0.0 => words.unsigned.to_owned(),
                _ => format!("(\"-\"? {})", words.unsigned),
            }),
            "boolean" => Some(format!("({} | {})", words.true_, words.false_)),
            "null" => Some(words.null.to_owned()),
            "object" => self.object(object, false),
            "array" => self.array(object),
            _ => None,
        }
    }

    /// The rule of `#/$defs/NAME` (or `#/definitions/NAME`) at the root.
    fn reference(&mut self, target: &str) -> Option<String> {
        if let Some(name) = self.refs.get(target) {
            return Some(name.clone());
        }
        let found = ["$defs", "definitions"].iter().find_map(|key| {
            let name = target.strip_prefix(&format!("#/{key}/"))?;
            self.root.get(*key)?.get(name)
        });
        // A reference to nothing: any JSON, as a reader would take it.
        let Some(schema) = found else {
            return Some(self.words.any.to_owned());
        };
        // Named before it is written: a definition may name itself.
        let name = self.fresh("ref");
        self.rules.push((name.clone(), String::new()));
        let at = self.rules.len() - 1;
        self.refs.insert(target.to_owned(), name.clone());
        let body = self.expr(schema);
        self.rules[at].1 = body.clone().unwrap_or_else(|| self.words.never.to_owned());
        body.map(|_| name)
    }

    /// An object, or (`kwargs`) a call's keyword arguments, `(key=value)`.
    fn object(&mut self, object: &Map<String, Value>, kwargs: bool) -> Option<String> {
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut members = Vec::new();
        let empty = Map::new();
        let properties = object
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let bare = kwargs || self.words.bare_keys;
        for (key, schema) in properties {
            let must = required.contains(&key.as_str());
            // A key Gemma's reader would not read back bare cannot be
            // written.
            let expr = match self.words.bare_keys && !super::gemma::is_key(key, self.starts) {
                true => None,
                false => self.expr(schema),
            };
            match expr {
                Some(value) if bare => {
                    let assign = literal(self.words.args[2]);
                    members.push((format!("{} ws {assign} ws {value}", literal(key)), must));
                }
                Some(value) => {
                    let key = (self.words.literal)(&Value::from(key.as_str()));
                    members.push((format!("{key} ws \":\" ws {value}"), must));
                }
                None if must => return None,
                None => {}
            }
        }
        // Keys beyond the declared ones, by `patternProperties` (whose
        // only pattern here is the marker-free one strings keep anyway) or
        // `additionalProperties`.
        let extra_schema = match object.get("patternProperties").and_then(Value::as_object) {
            Some(patterns) => patterns.values().next().cloned(),
            None => match object.get("additionalProperties") {
                Some(Value::Bool(false)) => None,
                Some(schema) => Some(schema.clone()),
                None => Some(Value::Bool(true)),
            },
        };
        let extra = match extra_schema.filter(|_| !kwargs) {
            Some(schema) => self
                .expr(&schema)
                .map(|value| format!("{} ws \":\" ws {value}", self.words.key)),
            None => None,
        };
        // Each tail: the members from K on, each after a comma.
        let mut tail = match &extra {
            Some(extra) => format!("(ws \",\" ws {extra})*"),
            None => "\"\"".to_owned(),
        };
        let mut firsts = Vec::new();
        for (i, (member, must)) in members.iter().enumerate().rev() {
            let tail_rule = self.define("tail", tail.clone());
            // The first member written may be this one.
            firsts.push((i, format!("{member} {tail_rule}")));
            tail = match must {
                true => format!("ws \",\" ws {member} {tail_rule}"),
                false => format!("(ws \",\" ws {member})? {tail_rule}"),
            };
        }
        firsts.reverse();
        let first_required = members.iter().position(|(_, must)| *must);
        let mut options: Vec<String> = firsts
            .into_iter()
            .filter(|(i, _)| first_required.map_or(true, |f| *i <= f))
            .map(|(_, first)| first)
            .collect();
        if let (None, Some(extra)) = (first_required, &extra) {
            options.push(format!("{extra} (ws \",\" ws {extra})*"));
        }
        let inside = match (options.is_empty(), first_required) {
            (true, _) => String::new(),
            (false, Some(_)) => format!("({}) ", options.join(" | ")),
            (false, None) => format!("({})? ", options.join(" | ")),
        };
        let (open, close) = match kwargs {
            true => (self.words.args[0], self.words.args[1]),
            false => ("{", "}"),
        };
        let body = format!("{} ws {inside}ws {}", literal(open), literal(close));
        Some(self.define("object", body))
    }

    fn array(&mut self, object: &Map<String, Value>) -> Option<String> {
        let min = object.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = object.get("maxItems").and_then(Value::as_u64);
        if max.is_some_and(|max| max < min) {
            return None;
        }
        // The prefix's elements, up to one no value satisfies: the array
        // ends before it.
        let mut prefix = Vec::new();
        let mut ended = false;
        if let Some(Value::Array(items)) = object.get("prefixItems") {
            for item in items.iter().take(max.unwrap_or(u64::MAX) as usize) {
                match self.expr(item) {
                    Some(element) => prefix.push(element),
                    None => {
                        ended = true;
                        break;
                    }
                }
            }
        }
        let item = match (ended, object.get("items")) {
            (true, _) => None,
            (false, Some(schema)) => self.expr(schema),
            (false, None) => Some(self.words.any.to_owned()),
        };
        let p = prefix.len() as u64;
        let (rest_min, rest_max) = (min.saturating_sub(p), max.map(|m| m.saturating_sub(p)));
        let item = item.filter(|_| rest_max != Some(0));
        if rest_min > 0 && item.is_none() {
            return None;
        }
        let sep = "ws \",\" ws ";
        let body = match (prefix.is_empty(), &item) {
            (true, None) => String::new(),
            (true, Some(item)) => {
                let more = repeat(
                    &format!("({sep}{item})"),
                    min.saturating_sub(1),
                    max.map(|m| m - 1),
                )?;
                match min {
                    0 => format!("({item} {more})? "),
                    _ => format!("{item} {more} "),
                }
            }
            (false, _) => {
                // After the prefix, each element after a comma.
                let mut inner = match &item {
                    Some(item) => repeat(&format!("({sep}{item})"), rest_min, rest_max)?,
                    None => String::new(),
                };
                // The prefix from its last element back: each optional
                // past `min`.
                for (i, element) in prefix.iter().enumerate().rev() {
                    let comma = if i == 0 { "" } else { sep };
                    let piece = format!("{comma}{element} {inner}");
                    inner = match (i as u64) < min {
                        true => piece,
                        false => format!("({piece})?"),
                    };
                }
                format!("{inner} ")
            }
        };
        Some(self.define("array", format!("\"[\" ws {body}ws \"]\"")))
    }
}

/// `text` repeated from `min` to `max` (no bound: `None`) times.
fn repeat(text: &str, min: u64, max: Option<u64>) -> Option<String> {
    Some(match (min, max) {
        (_, Some(max)) if max < min => return None,
        (0, None) => format!("{text}*"),
        (1, None) => format!("{text}+"),
        (min, None) => format!("{text}{{{min},}}"),
        (0, Some(0)) => "\"\"".to_owned(),
        (min, Some(max)) if min == max => format!("{text}{{{min}}}"),
        (min, Some(max)) => format!("{text}{{{min},{max}}}"),
    })
}

/// One of `options`, or `None` where there is none.
fn alternatives(options: Vec<String>) -> Option<String> {
    match options.len() {
        0 => None,
        1 => options.into_iter().next(),
        _ => Some(format!("({})", options.join(" | "))),
    }
}

/// `value`'s JSON text, as a literal.
fn json_literal(value: &Value) -> String {
    literal(&value.to_string())
}

/// `part`'s keywords added to `into`: properties and `required` joined,
/// the rest taken where `into` has none.
fn merge(into: &mut Map<String, Value>, part: &Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), into.get_mut(key), value) {
            ("properties", Some(Value::Object(have)), Value::Object(more)) => {
                for (k, v) in more {
                    have.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(more)) => {
                for k in more {
                    if !have.contains(k) {
                        have.push(k.clone());
                    }
                }
            }
            (_, None, _) => {
                into.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

/// An integer within the schema's bounds (and a float's exact ones).
fn integer(object: &Map<String, Value>) -> Option<String> {
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    let mut lo = -SAFE_INTEGER as f64;
    let mut hi = SAFE_INTEGER as f64;
    if let Some(m) = bound("minimum") {
        lo = lo.max(m.ceil());
    }
    if let Some(m) = bound("exclusiveMinimum") {
        lo = lo.max(m.floor() + 1.0);
    }
    if let Some(m) = bound("maximum") {
        hi = hi.min(m.floor());
    }
    if let Some(m) = bound("exclusiveMaximum") {
        hi = hi.min(m.ceil() - 1.0);
    }
    let (lo, hi) = (lo as i64, hi as i64);
    if lo > hi {
        return None;
    }
    let mut options = Vec::new();
    if lo < 0 {
        let (a, b) = ((-hi).max(1) as u64, (-lo) as u64);
        options.push(format!("\"-\" {}", natural(a, b)));
    }
    if hi >= 0 {
        options.push(natural(lo.max(0) as u64, hi as u64));
    }
    alternatives(options)
}

/// The numbers from `lo` to `hi` in decimal, without leading zeros.
fn natural(lo: u64, hi: u64) -> String {
    let digits = |n: u64| n.to_string().len();
    let mut options = Vec::new();
    for width in digits(lo)..=digits(hi) {
        let low = if width == 1 {
            0
        } else {
            10u64.pow(width as u32 - 1)
        };
        let high = 10u64.pow(width as u32) - 1;
        let (a, b) = (lo.max(low), hi.min(high));
        options.push(same_width(&a.to_string(), &b.to_string()));
    }
    alternatives(options).unwrap_or_default()
}

/// The digit strings from `lo` to `hi`, both `lo.len()` digits long.
fn same_width(lo: &str, hi: &str) -> String {
    let (l, h) = (lo.as_bytes()[0], hi.as_bytes()[0]);
    let (lo_rest, hi_rest) = (&lo[1..], &hi[1..]);
    let any = |n: usize| match n {
        0 => String::new(),
        1 => " [0-9]".to_owned(),
        n => format!(" [0-9]{{{n}}}"),
    };
    let digits = |a: u8, b: u8| match a == b {
        true => format!("\"{}\"", a as char),
        false => format!("[{}-{}]", a as char, b as char),
    };
    let full = |s: &str, d: u8| s.bytes().all(|c| c == d);
    if lo_rest.is_empty() {
        return digits(l, h);
    }
    if l == h {
        return format!("\"{}\" {}", l as char, same_width(lo_rest, hi_rest));
    }
    let n = lo_rest.len();
    let mut options = Vec::new();
    // The first digit's range whose rest is free: from `l` if `lo`'s rest
    // is all zeros, to `h` if `hi`'s is all nines.
    let from = if full(lo_rest, b'0') { l } else { l + 1 };
    let to = if full(hi_rest, b'9') { h } else { h - 1 };
    if from == l + 1 {
        let nines = "9".repeat(n);
        options.push(format!("\"{}\" {}", l as char, same_width(lo_rest, &nines)));
    }
    if from <= to {
        options.push(format!("{}{}", digits(from, to), any(n)));
    }
    if to == h - 1 {
        let zeros = "0".repeat(n);
        options.push(format!("\"{}\" {}", h as char, same_width(&zeros, hi_rest)));
    }
    alternatives(options).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ranges_are_exact() {
        assert_eq!(natural(0, 9), "[0-9]");
        assert_eq!(natural(1, 9), "[1-9]");
        assert_eq!(natural(0, 99), "([0-9] | [1-9] [0-9])");
        assert_eq!(natural(15, 42), "(\"1\" [5-9] | [2-3] [0-9] | \"4\" [0-2])");
        let object = serde_json::json!({"minimum": -3, "maximum": 12});
        assert_eq!(
            integer(object.as_object().unwrap()).unwrap(),
            "(\"-\" [1-3] | ([0-9] | \"1\" [0-2]))"
        );
        let empty = serde_json::json!({"minimum": 5, "exclusiveMaximum": 5});
        assert_eq!(integer(empty.as_object().unwrap()), None);
    }

    #[test]
    fn repetitions_are_bounded_as_asked() {
        assert_eq!(repeat("x", 0, None).unwrap(), "x*");
        assert_eq!(repeat("x", 2, Some(4)).unwrap(), "x{2,4}");
        assert_eq!(repeat("x", 3, Some(1)), None);
    }
}
