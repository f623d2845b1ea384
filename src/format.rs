//! Formats as data: the markers a format uses and how its values are laid
//! out. The engine in `machine.rs` is shared; a format only fills in this
//! table, so adding one means adding a description, not a parser.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::scan::MarkerSet;

/// The structural role a marker plays. The engine's state machine is written
/// in terms of roles, never in terms of a format's spelling of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// Opens the wrapper around one or more calls (`<tool_call>`).
    CallOpen,
    /// Closes the wrapper (`</tool_call>`).
    CallClose,
    /// Opens a call; the function name follows up to `name_end`
    /// (`<function=`).
    FuncOpen,
    /// Closes a call (`</function>`).
    FuncClose,
    /// Opens a parameter; its name follows up to `name_end`
    /// (`<parameter=`).
    ParamOpen,
    /// Closes a parameter value (`</parameter>`).
    ParamClose,
}

/// A format's description: the spelling of each marker and its value layout.
pub(crate) struct Spec {
    /// Every marker, each beginning with `<` and holding no other `<`: the
    /// scanner relies on this to never re-scan the bytes of a failed match.
    pub markers: &'static [(Marker, &'static str)],
    /// The byte that ends a function or parameter name.
    pub name_end: u8,
    /// Whether one leading and one trailing `\n` are part of the template's
    /// layout rather than of the value (Qwen3-Coder puts each value on its
    /// own lines).
    pub strip_one_newline: bool,
}

impl Spec {
    pub(crate) fn text(&self, marker: Marker) -> &'static str {
        self.markers
            .iter()
            .find(|(m, _)| *m == marker)
            .map(|(_, text)| *text)
            .unwrap_or("")
    }
}

const QWEN3_CODER: Spec = Spec {
    markers: &[
        (Marker::CallOpen, "<tool_call>"),
        (Marker::CallClose, "</tool_call>"),
        (Marker::FuncOpen, "<function="),
        (Marker::FuncClose, "</function>"),
        (Marker::ParamOpen, "<parameter="),
        (Marker::ParamClose, "</parameter>"),
    ],
    name_end: b'>',
    strip_one_newline: true,
};

/// A model's tool-call format. Names follow vLLM's `--tool-call-parser`
/// names, so `"qwen3_coder".parse::<Format>()` works as users expect.
///
/// # Example
/// ```
/// use toolcall_stream::Format;
/// let format: Format = "qwen3_coder".parse().unwrap();
/// assert_eq!(format, Format::Qwen3Coder);
/// assert_eq!(format.name(), "qwen3_coder");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// Qwen3-Coder XML, also emitted by Qwen3.5 and Qwen3.6:
    /// `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>`
    /// `</function></tool_call>`. vLLM names: `qwen3_coder`, `qwen3_xml`.
    #[default]
    Qwen3Coder,
}

impl Format {
    /// Every format this version knows, in documentation order.
    pub const ALL: &'static [Format] = &[Format::Qwen3Coder];

    /// The canonical (vLLM) name of the format.
    pub fn name(self) -> &'static str {
        match self {
            Format::Qwen3Coder => "qwen3_coder",
        }
    }

    /// The other names that [`FromStr`] accepts for the format, besides
    /// [`name`](Format::name): vLLM registers some parsers twice.
    ///
    /// ```
    /// use toolcall_stream::Format;
    /// assert_eq!(Format::Qwen3Coder.aliases(), ["qwen3_xml"]);
    /// ```
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Qwen3Coder => &["qwen3_xml"],
        }
    }

    pub(crate) fn compiled(self) -> &'static Compiled {
        static QWEN: OnceLock<Compiled> = OnceLock::new();
        match self {
            Format::Qwen3Coder => QWEN.get_or_init(|| Compiled::new(&QWEN3_CODER)),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error returned when a format name is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat {
    name: String,
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown format {:?}; known formats: ", self.name)?;
        for (i, format) in Format::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(format.name())?;
            if !format.aliases().is_empty() {
                write!(f, " (alias: {})", format.aliases().join(", "))?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for UnknownFormat {}

/// Names are matched ignoring ASCII case, with `-` and `_` alike: users
/// type `Qwen3-Coder` as often as vLLM's `qwen3_coder`.
impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        let wanted = normalise(name);
        Format::ALL
            .iter()
            .copied()
            .find(|format| format.name() == wanted || format.aliases().contains(&wanted.as_str()))
            .ok_or_else(|| UnknownFormat {
                name: name.to_owned(),
            })
    }
}

/// The form names are compared in; every name and alias is written in it.
fn normalise(name: &str) -> String {
    name.to_ascii_lowercase().replace('-', "_")
}

/// A format's spec together with its marker automaton, built once per
/// process and shared by every parser of that format.
pub(crate) struct Compiled {
    pub spec: &'static Spec,
    pub markers: MarkerSet,
}

impl Compiled {
    fn new(spec: &'static Spec) -> Compiled {
        Compiled {
            spec,
            markers: MarkerSet::new(spec.markers),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_parses_back_to_its_format() {
        for &format in Format::ALL {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
            for alias in format.aliases() {
                assert_eq!(alias.parse::<Format>(), Ok(format), "{alias}");
                assert_ne!(*alias, format.name());
            }
        }
    }

    #[test]
    fn names_ignore_case_and_dash_versus_underscore() {
        for name in ["QWEN3-CODER", "Qwen3_Xml", "qwen3-xml", "qwen3_CODER"] {
            assert_eq!(name.parse::<Format>(), Ok(Format::Qwen3Coder), "{name}");
        }
    }

    #[test]
    fn unknown_names_are_rejected_with_the_known_ones_listed() {
        for name in [
            "",
            "qwen3",
            "qwen3 coder",
            "qwen3__coder",
            " qwen3_coder",
            "qwen3–coder",
        ] {
            let error = name.parse::<Format>().unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("unknown format {name:?}; known formats: qwen3_coder (alias: qwen3_xml)")
            );
        }
    }

    #[test]
    fn names_are_normal_and_no_two_formats_share_one() {
        let mut seen = std::collections::BTreeSet::new();
        for &format in Format::ALL {
            for name in std::iter::once(format.name()).chain(format.aliases().iter().copied()) {
                // Otherwise the name could never match.
                assert_eq!(normalise(name), name);
                assert!(seen.insert(name), "{name} is taken twice");
            }
        }
    }
}
