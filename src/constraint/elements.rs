//! Calls written as elements (the element syntax), read as marked-up
//! parameters: each value an element closed by its tag, said to be text or
//! JSON by an attribute where the format has one.

/// Parameters as elements: each closed by `</TAG>` after the prefix, its
/// tag its key or (named by an attribute) the value element's.
#[derive(Clone, Copy)]
pub(super) struct Elements {
    pub prefix: &'static str,
    /// The value element's tag, where an attribute names the value.
    pub value_tag: Option<&'static str>,
    /// The attribute that names a function, or a value where one does.
    pub name: &'static str,
    /// The call element's tag.
    pub call: &'static str,
}

impl Elements {
    /// The marker that ends a text value: the prefix every tag carries,
    /// else `</`, which begins every closer (a `<` that opens no element is
    /// text).
    pub(super) fn ends_text(&self) -> &'static str {
        match self.prefix {
            "" => "</",
            prefix => prefix,
        }
    }

    /// A parameter's opener, with the attribute that says how its value
    /// is read (after a space), if any.
    pub(super) fn head(&self, key: &str, attribute: &str) -> String {
        match self.value_tag {
            None => format!("{}<{key}>", self.prefix),
            Some(tag) => format!("{}<{tag} {}=\"{key}\"{attribute}>", self.prefix, self.name),
        }
    }

    pub(super) fn close(&self, key: &str) -> String {
        format!("{}</{}>", self.prefix, self.value_tag.unwrap_or(key))
    }

    /// Whether the reader reads `key` back as written: a tag's name, or
    /// an attribute's quoted value that holds no entity.
    pub(super) fn writes(&self, key: &str) -> bool {
        let bad: &[char] = match self.value_tag {
            None => &['<', '>', '/', '=', '"', '\'', '&', ' ', '\t', '\n', '\r'],
            Some(_) => &['<', '>', '"', '&'],
        };
        !key.is_empty() && !key.contains(bad)
    }
}
