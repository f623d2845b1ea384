//! The GBNF dialect (llama.cpp's `grammar`; xgrammar's EBNF reads it too).
//! GBNF has no lazy rules and no negation, so text that holds no marker is
//! written as an automaton: one rule per state of a search for the
//! format's markers, each naming the state the next character leads to.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

use serde_json::Value;

use super::ebnf::{self, Place, Syntax};
use super::gbnf_json::JsonRules;
use super::gbnf_text::{class_char, literal};
use super::shape::{Guard, Shape};
use super::{Constraint, ConstraintError};
use crate::tools::Tools;

/// The grammar for the calls to `names` (declared in `tools`).
pub(super) fn write(
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
) -> Result<String, ConstraintError> {
    let mut out = String::new();
    let mut gbnf = Gbnf {
        search: Search::new(&shape.text_markers()),
        lead: shape.lead(),
        trail: shape.trail(),
        texts: HashMap::new(),
        json: shape.json_rules(),
    };
    let starts = &shape.marker_starts;
    ebnf::write(&mut out, &mut gbnf, shape, tools, names, constraint, starts);
    finished(out, gbnf)
}

/// The grammar of what a call's wrapper holds, from after its opener up to
/// its closer (as xgrammar's EBNF reads it, `root` first): for a structural
/// tag's content where no style of xgrammar's fits (Python calls).
pub(super) fn body(
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    parallel: bool,
) -> Result<String, ConstraintError> {
    let mut out = String::new();
    let mut gbnf = Gbnf {
        search: Search::new(&shape.markers),
        lead: None,
        trail: None,
        texts: HashMap::new(),
        json: shape.json_rules(),
    };
    let starts = &shape.marker_starts;
    ebnf::write_body(&mut out, &mut gbnf, shape, tools, names, parallel, starts);
    // No text automaton: the values are literals.
    gbnf.json.finish(&mut out);
    finished(out, gbnf)
}

/// `out`, or why no call may be written.
fn finished(out: String, gbnf: Gbnf) -> Result<String, ConstraintError> {
    // JSON no value satisfies where one is required (deep in a required
    // parameter): no call may be written.
    match gbnf.json.never {
        true => Err(ConstraintError::Unsatisfiable),
        false => Ok(out),
    }
}

struct Gbnf {
    search: Search,
    /// What the content's text may not start with.
    lead: Option<Guard>,
    /// What text right after a call may not start with.
    trail: Option<Guard>,
    /// The automata written so far, by what ends them (`None`: free text)
    /// and where they stand, if that restricts them: the name of each's
    /// first state.
    texts: HashMap<(Option<String>, Place), String>,
    json: JsonRules,
}

impl Gbnf {
    /// What text at `place` may not start with.
    fn guard(&self, place: Place) -> Option<&Guard> {
        match place {
            Place::Start => self.lead.as_ref(),
            Place::AfterCall => self.trail.as_ref(),
            Place::Inside => None,
        }
    }

    /// The first state of the automaton that ends at `closer` (at none:
    /// free text), writing it the first time.
    fn automaton(&mut self, out: &mut String, closer: Option<&str>, place: Place) -> String {
        let guard = self.guard(place);
        let place = if guard.is_some() {
            place
        } else {
            Place::Inside
        };
        let key = (closer.map(str::to_owned), place);
        if let Some(name) = self.texts.get(&key) {
            return name.clone();
        }
        let prefix = match (closer, place) {
            (None, Place::Start) => "lead".to_owned(),
            (None, Place::AfterCall) => "trail".to_owned(),
            (None, Place::Inside) => "text".to_owned(),
            (Some(_), _) => format!("until{}", self.texts.len()),
        };
        let end = closer.and_then(|c| self.search.markers.iter().position(|m| m == c));
        let first = self.search.write(out, &prefix, end, self.guard(place));
        self.texts.insert(key, first.clone());
        first
    }
}

impl Syntax for Gbnf {
    fn name(&self, rule: &str) -> String {
        // GBNF names hold letters, digits and dashes; its first rule is
        // `root`.
        match rule {
            "start" => "root".to_owned(),
            _ => rule.replace('_', "-"),
        }
    }

    fn literal(&self, text: &str) -> String {
        literal(text)
    }

    fn define(&mut self, out: &mut String, rule: &str, body: &str) {
        let _ = writeln!(out, "{} ::= {body}", self.name(rule));
    }

    fn text_then(&mut self, out: &mut String, rule: &str, closer: &str, place: Place) {
        // A marker the closer begins with ends the text first (MiniMax-M3's
        // namespace token before `<tool_call>`): the rest of the closer
        // follows it.
        let begins = self
            .search
            .markers
            .iter()
            .filter(|m| m.len() < closer.len() && closer.starts_with(m.as_str()))
            .max_by_key(|m| m.len())
            .cloned();
        let (end, rest) = match &begins {
            Some(m) => (m.as_str(), &closer[m.len()..]),
            None => (closer, ""),
        };
        let first = self.automaton(out, Some(end), place);
        let body = match rest.is_empty() {
            true => first,
            false => format!("{first} {}", literal(rest)),
        };
        self.define(out, rule, &body);
    }

    fn json(&mut self, out: &mut String, rule: &str, schema: &Value) {
        let name = self.name(rule);
        self.json.write(out, &name, schema);
    }

    fn kwargs(&mut self, out: &mut String, rule: &str, schema: &Value) {
        let name = self.name(rule);
        self.json.write_kwargs(out, &name, schema);
    }

    fn pattern(&self, class: &str) -> String {
        class.to_owned()
    }

    fn any_text(&self) -> String {
        match self.trail {
            Some(_) => "trail".into(),
            None => "text".into(),
        }
    }

    fn any_lead(&self) -> String {
        match self.lead {
            Some(_) => "lead".into(),
            None => "text".into(),
        }
    }

    fn any_lead_line(&self) -> String {
        format!("({} \"\\n\")", self.any_lead())
    }

    fn finish(&mut self, out: &mut String) {
        let text = self.automaton(out, None, Place::Inside);
        let _ = writeln!(out, "text ::= {text}");
        for (place, rule) in [(Place::Start, "lead"), (Place::AfterCall, "trail")] {
            if self.guard(place).is_some() {
                let first = self.automaton(out, None, place);
                let _ = writeln!(out, "{rule} ::= {first}");
            }
        }
        self.json.finish(out);
    }
}

/// A search for the markers, one character at a time (Aho-Corasick's
/// automaton over characters): each state is the longest marker prefix
/// the text ends with.
struct Search {
    markers: Vec<String>,
    /// Each state's next states, by character, as the trie has them.
    next: Vec<BTreeMap<char, usize>>,
    /// Each state's fallback: the longest proper suffix that is a state.
    fail: Vec<usize>,
    /// The markers that end at each state (its own and its fallbacks').
    ends: Vec<BTreeSet<usize>>,
}

impl Search {
    fn new(markers: &[&str]) -> Search {
        let mut search = Search {
            markers: markers.iter().map(|m| (*m).to_owned()).collect(),
            next: vec![BTreeMap::new()],
            fail: vec![0],
            ends: vec![BTreeSet::new()],
        };
        for (i, marker) in markers.iter().enumerate() {
            let mut state = 0;
            for c in marker.chars() {
                state = match search.next[state].get(&c) {
                    Some(&s) => s,
                    None => {
                        search.next.push(BTreeMap::new());
                        search.fail.push(0);
                        search.ends.push(BTreeSet::new());
                        let new = search.next.len() - 1;
                        search.next[state].insert(c, new);
                        new
                    }
                };
            }
            search.ends[state].insert(i);
        }
        // Breadth first: a state's fallback is nearer the root.
        let mut queue: std::collections::VecDeque<usize> =
            search.next[0].values().copied().collect();
        while let Some(state) = queue.pop_front() {
            let edges: Vec<(char, usize)> =
                search.next[state].iter().map(|(c, s)| (*c, *s)).collect();
            for (c, child) in edges {
                let fail = search.step(search.fail[state], c, child);
                search.fail[child] = fail;
                let inherited = search.ends[fail].clone();
                search.ends[child].extend(inherited);
                queue.push_back(child);
            }
        }
        search
    }

    /// The state after `c` from `state`, never `not` (a state's own child
    /// is not its fallback).
    fn step(&self, mut state: usize, c: char, not: usize) -> usize {
        loop {
            if let Some(&s) = self.next[state].get(&c) {
                if s != not {
                    return s;
                }
            }
            if state == 0 {
                return 0;
            }
            state = self.fail[state];
        }
    }

    /// The state after `c` from `state`.
    fn delta(&self, state: usize, c: char) -> usize {
        self.step(state, c, usize::MAX)
    }

    /// The characters that lead somewhere other than the start from
    /// `state`: its own edges and its fallbacks'.
    fn edges(&self, mut state: usize) -> BTreeSet<char> {
        let mut chars = BTreeSet::new();
        loop {
            chars.extend(self.next[state].keys());
            if state == 0 {
                return chars;
            }
            state = self.fail[state];
        }
    }

    /// Writes the automaton as rules named `PREFIX-STATE`: text that holds
    /// no marker, then (`end`) that marker, which the first one ends, or
    /// (no `end`) stopping at any state. With `guard`, the text starts
    /// with none of its `opens` after whitespace and its `after` (no JSON
    /// object or list). Gives the first state's name.
    fn write(
        &self,
        out: &mut String,
        prefix: &str,
        end: Option<usize>,
        guard: Option<&Guard>,
    ) -> String {
        let name = |state: usize| format!("{prefix}-{state}");
        // Where no line may open a body, a line end leads to a state of
        // its own, which keeps the line's first character from doing so.
        let line = guard
            .filter(|g| !g.line_opens.is_empty())
            .map(|_| format!("{prefix}-line"));
        let line = line.as_deref();
        for state in 0..self.next.len() {
            // A state a marker ends at is never entered.
            if !self.ends[state].is_empty() {
                continue;
            }
            let alternatives = self.alternatives(state, end, &name, &BTreeSet::new(), line);
            let _ = writeln!(out, "{} ::= {}", name(state), alternatives.join(" | "));
        }
        let Some(guard) = guard else {
            return name(0);
        };
        let ws: BTreeSet<char> = [' ', '\t', '\r', '\n'].into();
        if let Some(line) = line {
            let mut skip = ws.clone();
            skip.extend(guard.line_opens.chars());
            let mut alternatives = vec![format!("[ \\t\\r\\n] {line}")];
            alternatives.extend(self.alternatives(0, end, &name, &skip, None));
            let _ = writeln!(out, "{line} ::= {}", alternatives.join(" | "));
        }
        let first = format!("{prefix}-start");
        let mut skip = ws;
        skip.extend(guard.after.chars());
        let after: String = guard.after.chars().map(class_char).collect();
        let mut alternatives = match line {
            Some(line) => vec![
                format!("[ \\t\\r{after}] {first}"),
                format!("\"\\n\" {line}"),
            ],
            None => vec![format!("[ \\t\\r\\n{after}] {first}")],
        };
        skip.extend(guard.opens.chars());
        alternatives.extend(self.alternatives(0, end, &name, &skip, line));
        let _ = writeln!(out, "{first} ::= {}", alternatives.join(" | "));
        first
    }

    /// The ways on from `state`, leaving out the characters in `skip`; a
    /// line end leads to `line`, where one is named.
    fn alternatives(
        &self,
        state: usize,
        end: Option<usize>,
        name: &dyn Fn(usize) -> String,
        skip: &BTreeSet<char>,
        line: Option<&str>,
    ) -> Vec<String> {
        let mut alternatives = Vec::new();
        if end.is_none() {
            alternatives.push("\"\"".to_owned());
        }
        let edges = self.edges(state);
        let mut others: BTreeSet<char> = edges.union(skip).copied().collect();
        // (No marker holds a line end where lines are kept: `Shape::of`.)
        if let (Some(line), false) = (line, skip.contains(&'\n')) {
            alternatives.push(format!("\"\\n\" {line}"));
            others.insert('\n');
        }
        for &c in &edges {
            if skip.contains(&c) {
                continue;
            }
            let to = self.delta(state, c);
            let text = literal(&c.to_string());
            match (&self.ends[to], end) {
                (ends, _) if ends.is_empty() => alternatives.push(format!("{text} {}", name(to))),
                // The closer ends the text, as it does for the parser.
                (ends, Some(end)) if ends.contains(&end) => alternatives.push(text),
                // Any other marker may not be written here.
                _ => {}
            }
        }
        let others: String = others.iter().map(|&c| class_char(c)).collect();
        // Any character, where none is kept out (a format with no marker).
        let class = match others.is_empty() {
            true => "[\\u0000-\\U0010FFFF]".to_owned(),
            false => format!("[^{others}]"),
        };
        alternatives.push(format!("{class} {}", name(0)));
        alternatives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_steps_through_overlapping_markers() {
        let search = Search::new(&["<tool_call>", "</tool_call>", "<think>"]);
        // `<t` then `o` stays inside `<tool_call>`; `<<` starts over.
        let lt = search.delta(0, '<');
        assert_eq!(search.delta(lt, '<'), lt);
        let mut state = 0;
        for c in "<tool_call>".chars() {
            state = search.delta(state, c);
        }
        assert_eq!(search.ends[state], [0].into());
        assert!(search.edges(lt).contains(&'/'));
    }
}
