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
        }
        f.write_str(" (alias: qwen3_xml)")
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        match name {
            "qwen3_coder" | "qwen3_xml" | "qwen3-coder" => Ok(Format::Qwen3Coder),
            _ => Err(UnknownFormat {
                name: name.to_owned(),
            }),
        }
    }
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
