//! The part of Python's regex syntax that response templates write their
//! delimiters in and that a description can say: literal text, optional
//! whitespace (`\s*`, `\n?`), one named group per name, key or value
//! (`(?P<name>\w+)`, `(?P<value>.*?)`), alternatives of literals
//! (`(?:<|im_end|>|<|endoftext|>)`), `^` and `$`. Anything else is
//! refused with what it was, never guessed at.

/// One alternative of a pattern, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// Text matched as written.
    Lit(String),
    /// Optional whitespace (`\s*`, `\s+`, `\n?`, ` *`): layout.
    Space,
    /// A named group.
    Group { name: String, chars: Chars },
    /// `^`: the start of the message.
    Start,
    /// `$`, `\Z`: the end of the output.
    End,
}

/// What a named group matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Chars {
    /// Any text, as little as possible (`.*?`, `[\s\S]+?`): it ends where
    /// what follows begins.
    Lazy,
    /// Characters of a class, as many as there are (`\w+`, `[^>\n]+`).
    Class(Class),
}

/// A character class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Class {
    negated: bool,
    items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Char(char),
    Range(char, char),
    Word,
    NotWord,
    Digit,
    Space,
    NotSpace,
}

impl Class {
    pub(super) fn contains(&self, c: char) -> bool {
        let hit = self.items.iter().any(|item| match *item {
            Item::Char(x) => x == c,
            Item::Range(a, b) => (a..=b).contains(&c),
            Item::Word => c.is_alphanumeric() || c == '_',
            Item::NotWord => !(c.is_alphanumeric() || c == '_'),
            Item::Digit => c.is_ascii_digit(),
            Item::Space => c.is_whitespace(),
            Item::NotSpace => !c.is_whitespace(),
        });
        hit != self.negated
    }

    fn of(item: Item) -> Class {
        Class {
            negated: false,
            items: vec![item],
        }
    }

    fn is_space(&self) -> bool {
        !self.negated
            && self.items.iter().all(|item| match *item {
                Item::Char(c) => c.is_whitespace(),
                Item::Space => true,
                _ => false,
            })
    }

    /// `.` (DOTALL) and `[\s\S]`: every character.
    fn is_any(&self) -> bool {
        let has = |a: &Item, b: &Item| self.items.contains(a) && self.items.contains(b);
        !self.negated
            && (has(&Item::Space, &Item::NotSpace)
                || has(&Item::Word, &Item::NotWord)
                || self.items.contains(&Item::Range('\0', char::MAX)))
    }
}

/// Patterns expand to at most this many alternatives, as vLLM bounds its own.
const MAX_ALTERNATIVES: usize = 16;

/// The alternatives `pattern` matches, each a list of pieces, or what in
/// it cannot be said.
pub(super) fn expand(pattern: &str) -> Result<Vec<Vec<Piece>>, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut reader = Reader { chars, at: 0 };
    let alternatives = reader.alternatives()?;
    if reader.at != reader.chars.len() {
        return Err(format!("an unmatched `)` at {}", reader.at));
    }
    Ok(alternatives.into_iter().map(merge).collect())
}

/// A literal written as a list of literals expands to them.
pub(super) fn literal(text: &str) -> Vec<Piece> {
    vec![Piece::Lit(text.to_owned())]
}

/// Adjacent literals as one, and runs of whitespace as one.
fn merge(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for piece in pieces {
        match (out.last_mut(), piece) {
            (Some(Piece::Lit(a)), Piece::Lit(b)) => a.push_str(&b),
            (Some(Piece::Space), Piece::Space) => {}
            (_, Piece::Lit(b)) if b.is_empty() => {}
            (_, piece) => out.push(piece),
        }
    }
    out
}

struct Reader {
    chars: Vec<char>,
    at: usize,
}

enum Atom {
    Char(char),
    Class(Class),
    Group(Vec<Vec<Piece>>),
    Named(String, Chars),
    Start,
    End,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        if self.chars[self.at..].iter().take(n).copied().eq(s.chars()) {
            self.at += n;
            true
        } else {
            false
        }
    }

    fn alternatives(&mut self) -> Result<Vec<Vec<Piece>>, String> {
        let mut all = self.sequence()?;
        while self.eat("|") {
            all.extend(self.sequence()?);
            if all.len() > MAX_ALTERNATIVES {
                return Err(format!("more than {MAX_ALTERNATIVES} alternatives"));
            }
        }
        Ok(all)
    }

    /// One branch: the alternatives its groups expand to.
    fn sequence(&mut self) -> Result<Vec<Vec<Piece>>, String> {
        let mut branches: Vec<Vec<Piece>> = vec![Vec::new()];
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let start = self.at;
            let atom = self.atom()?;
            let quantifier = self.quantifier();
            let shown: String = self.chars[start..self.at].iter().collect();
            let options = pieces(atom, quantifier, &shown)?;
            branches = branches
                .iter()
                .flat_map(|branch| {
                    options.iter().map(move |option| {
                        let mut b = branch.clone();
                        b.extend(option.iter().cloned());
                        b
                    })
                })
                .collect();
            if branches.len() > MAX_ALTERNATIVES {
                return Err(format!("more than {MAX_ALTERNATIVES} alternatives"));
            }
        }
        Ok(branches)
    }

    fn quantifier(&mut self) -> Option<String> {
        let c = self.peek()?;
        if !matches!(c, '*' | '+' | '?' | '{') {
            return None;
        }
        let start = self.at;
        if c == '{' {
            while let Some(c) = self.peek() {
                self.at += 1;
                if c == '}' {
                    break;
                }
            }
        } else {
            self.at += 1;
        }
        // Lazy and possessive forms.
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1;
        }
        Some(self.chars[start..self.at].iter().collect())
    }

    fn atom(&mut self) -> Result<Atom, String> {
        let c = self.peek().ok_or("an unfinished pattern")?;
        self.at += 1;
        match c {
            '\\' => self.escape(false),
            '[' => self.class().map(Atom::Class),
            '.' => Ok(Atom::Class(Class::of(Item::Range('\0', char::MAX)))),
            '^' => Ok(Atom::Start),
            '$' => Ok(Atom::End),
            '(' => {
                if self.eat("?P<") || self.eat("?<") {
                    let mut name = String::new();
                    while let Some(c) = self.peek() {
                        self.at += 1;
                        if c == '>' {
                            break;
                        }
                        name.push(c);
                    }
                    let chars = self.group_body(&name)?;
                    return Ok(Atom::Named(name, chars));
                }
                if !self.eat("?:") {
                    return Err(if self.peek() == Some('?') {
                        "a look-around or flag group".into()
                    } else {
                        "an unnamed capturing group".into()
                    });
                }
                let inner = self.alternatives()?;
                if !self.eat(")") {
                    return Err("an unclosed group".into());
                }
                Ok(Atom::Group(inner))
            }
            '*' | '+' | '?' | '{' | ')' | '|' => Err(format!("a stray `{c}`")),
            c => Ok(Atom::Char(c)),
        }
    }

    /// A named group's body: one class (or `.`) with a quantifier.
    fn group_body(&mut self, name: &str) -> Result<Chars, String> {
        let start = self.at;
        let atom = self.atom();
        let quantifier = self.quantifier();
        let closed = self.eat(")");
        let body: String = self.chars[start..self.at.saturating_sub(1)]
            .iter()
            .collect();
        let class = match (atom, closed) {
            (Ok(Atom::Class(class)), true) => class,
            _ => {
                return Err(format!(
                "the group `{name}` (a class and a repeat, such as `\\w+`, is what can be said)"
            ))
            }
        };
        match quantifier.as_deref() {
            Some("*?" | "+?") => Ok(Chars::Lazy),
            Some("+" | "*" | "++" | "*+") if class.is_any() => Err(format!(
                "the group `{name}`: `{body}` takes the rest of the text"
            )),
            Some("+" | "*" | "++" | "*+") => Ok(Chars::Class(class)),
            _ => Err(format!("the group `{name}`: `{body}`")),
        }
    }

    fn escape(&mut self, in_class: bool) -> Result<Atom, String> {
        let c = self.peek().ok_or("a `\\` at the end")?;
        self.at += 1;
        let class = |item| Ok(Atom::Class(Class::of(item)));
        match c {
            'n' => Ok(Atom::Char('\n')),
            't' => Ok(Atom::Char('\t')),
            'r' => Ok(Atom::Char('\r')),
            'w' => class(Item::Word),
            'W' => class(Item::NotWord),
            'd' => class(Item::Digit),
            's' => class(Item::Space),
            'S' => class(Item::NotSpace),
            'Z' | 'z' if !in_class => Ok(Atom::End),
            'A' if !in_class => Ok(Atom::Start),
            c if c.is_ascii_alphanumeric() => Err(format!("the escape `\\{c}`")),
            c => Ok(Atom::Char(c)),
        }
    }

    fn class(&mut self) -> Result<Class, String> {
        let negated = self.eat("^");
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek().ok_or("an unclosed `[`")?;
            self.at += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let item = if c == '\\' {
                match self.escape(true)? {
                    Atom::Char(c) => Item::Char(c),
                    Atom::Class(class) => class.items.into_iter().next().ok_or("an empty class")?,
                    _ => return Err("an escape in a class".into()),
                }
            } else {
                Item::Char(c)
            };
            // A range `a-z` (a `-` before `]` is itself).
            if let Item::Char(a) = item {
                if self.peek() == Some('-') && self.chars.get(self.at + 1) != Some(&']') {
                    self.at += 1;
                    let b = self.peek().ok_or("an unclosed `[`")?;
                    self.at += 1;
                    items.push(Item::Range(a, b));
                    continue;
                }
            }
            items.push(item);
        }
        Ok(Class { negated, items })
    }
}

/// The pieces an atom with its quantifier stands for, one list per
/// alternative.
fn pieces(atom: Atom, quantifier: Option<String>, shown: &str) -> Result<Vec<Vec<Piece>>, String> {
    let q = quantifier.as_deref();
    let cannot = || Err(format!("`{shown}`"));
    match atom {
        Atom::Start => Ok(vec![vec![Piece::Start]]),
        Atom::End => Ok(vec![vec![Piece::End]]),
        Atom::Char(c) if q.is_none() => Ok(vec![vec![Piece::Lit(c.to_string())]]),
        Atom::Char(c) if c.is_whitespace() && is_repeat(q) => Ok(vec![vec![Piece::Space]]),
        Atom::Char(c) if q == Some("?") => Ok(vec![vec![Piece::Lit(c.to_string())], vec![]]),
        Atom::Class(class) if class.is_space() && (q.is_none() || is_repeat(q)) => {
            Ok(vec![vec![Piece::Space]])
        }
        Atom::Group(inner) => match q {
            None => Ok(inner),
            Some("?") => {
                let mut options = inner;
                options.push(Vec::new());
                Ok(options)
            }
            _ => cannot(),
        },
        Atom::Named(name, chars) if q.is_none() => Ok(vec![vec![Piece::Group { name, chars }]]),
        _ => cannot(),
    }
}

fn is_repeat(q: Option<&str>) -> bool {
    matches!(q, Some("*" | "+" | "?" | "*?" | "+?" | "??"))
}
