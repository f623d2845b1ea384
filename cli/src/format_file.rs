//! `--format-file`: formats of a user's own, read from format files
//! (docs/custom-formats.md), and format names that may name them; and the
//! `toolcall format-file` command, which writes and checks such files.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::Fatal;

use toolcall_stream::{Format, Role};

/// Reads the format file at `path`; errors name the file, the line and
/// the rule broken.
pub fn read(path: &Path) -> Result<Format, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read format file {}: {e}", path.display()))?;
    Format::from_toml(&text).map_err(|e| format!("format file {}: {e}", path.display()))
}

/// The format a model's configuration describes in its `response_template`
/// (vLLM's `hf` and `beam` parsers), under `name`. `path` is the model's
/// `tokenizer_config.json`, or the model's directory holding it.
pub fn read_model_config(path: &Path, name: &str) -> Result<Format, String> {
    let file = if path.is_dir() {
        path.join("tokenizer_config.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read model config {}: {e}", file.display()))?;
    Format::from_response_template(name, &text)
        .map_err(|e| format!("model config {}: {e}", file.display()))
}

/// The name a format read from a model config takes: the `--format` given
/// with it, which must be `hf` or `beam` (vLLM's names for such formats),
/// else `hf`.
pub fn model_config_format_name(format: Option<&str>) -> Result<String, String> {
    match format.map(normal) {
        None => Ok("hf".to_owned()),
        Some(name) if name == "hf" || name == "beam" => Ok(name),
        Some(_) => Err(format!(
            "--format {} with --format-from-model-config: the model config says the format; \
             leave out --format (or give hf or beam, vLLM's names for it)",
            format.unwrap_or_default()
        )),
    }
}

/// Formats read from files, found by name beside the built-in ones.
#[derive(Default)]
pub struct Custom {
    formats: Vec<Format>,
}

impl Custom {
    /// Reads each file; two files may not name one format.
    pub fn read_all<P: AsRef<Path>>(paths: &[P]) -> Result<Custom, String> {
        let mut custom = Custom::default();
        for path in paths {
            let format = read(path.as_ref())?;
            if custom.find(format.name()).is_some() {
                return Err(format!(
                    "format file {}: another format file already names a format {:?}",
                    path.as_ref().display(),
                    format.name()
                ));
            }
            custom.formats.push(format);
        }
        Ok(custom)
    }

    /// Adds a format read otherwise (from a model config); its name may not
    /// be a format file's.
    pub fn add(&mut self, format: Format) -> Result<(), String> {
        if self.find(format.name()).is_some() {
            return Err(format!(
                "a format file already names a format {:?}",
                format.name()
            ));
        }
        self.formats.push(format);
        Ok(())
    }

    /// The formats, in the order of their files.
    pub fn formats(&self) -> &[Format] {
        &self.formats
    }

    fn find(&self, name: &str) -> Option<Format> {
        let wanted = normal(name);
        self.formats.iter().copied().find(|format| {
            normal(format.name()) == wanted || format.aliases().iter().any(|a| normal(a) == wanted)
        })
    }

    /// The format `name` names: a format file's, else a built-in one.
    pub fn lookup(&self, name: &str) -> Result<Format, String> {
        if let Some(format) = self.find(name) {
            return Ok(format);
        }
        name.parse::<Format>().map_err(|e| {
            if self.formats.is_empty() {
                e.to_string()
            } else {
                let names: Vec<&str> = self.formats.iter().map(|f| f.name()).collect();
                format!("{e}; or from --format-file: {}", names.join(", "))
            }
        })
    }
}

/// Names as users type them: case and `-`/`_` do not matter, as for the
/// built-in formats.
fn normal(name: &str) -> String {
    name.to_ascii_lowercase().replace('-', "_")
}

/// `toolcall format-file --check FILE SAMPLE`: reads SAMPLE with the format
/// FILE describes and says what came of it: the calls, the diagnostics, and
/// each opener of the format that was returned as content, with the
/// markers and text that followed it, as the format spells them. The
/// report, and whether every opener began a call.
pub fn check(file: &Path, sample: &Path) -> Result<(String, bool), String> {
    let format = read(file)?;
    let text = std::fs::read_to_string(sample)
        .map_err(|e| format!("cannot read sample {}: {e}", sample.display()))?;
    Ok(check_text(format, &text, &sample.display().to_string()))
}

fn check_text(format: Format, text: &str, sample: &str) -> (String, bool) {
    use std::fmt::Write as _;
    let message = toolcall_stream::parse(format, text);
    let mut out = String::new();
    let calls = message.tool_calls.len();
    let _ = writeln!(
        out,
        "{sample}: read as {}: {calls} call{}, {} diagnostic{}",
        format.name(),
        plural(calls),
        message.diagnostics.len(),
        plural(message.diagnostics.len())
    );
    for call in &message.tool_calls {
        let end = if call.complete { "" } else { " (incomplete)" };
        let _ = writeln!(
            out,
            "call {}: {} {}{end}",
            call.index, call.name, call.arguments
        );
    }
    for diagnostic in &message.diagnostics {
        let _ = writeln!(
            out,
            "diagnostic at bytes {}: {}: {}",
            diagnostic.span, diagnostic.kind, diagnostic.message
        );
    }
    let markers: Vec<(Role, &str)> = format.markers().collect();
    let content = message.content.as_deref().unwrap_or("");
    let mut unread = 0;
    let mut searched = 0;
    for (at, role, opener) in openers(content, &markers) {
        unread += 1;
        // Where in the sample: the opener and the content after it, found
        // from where the last one was.
        let stretch = stretch_after(content, at, &markers);
        let place = text[searched..].find(stretch).map(|k| searched + k);
        if let Some(k) = place {
            searched = k + opener.len();
        }
        let place = place.map_or("in the content".to_owned(), |k| format!("byte {k}"));
        let _ = writeln!(
            out,
            "{place}: `{opener}` ({role}) began no call: it and what follows are content. \
             As the format reads them: {}",
            pieces(stretch, &markers).join(", ")
        );
        let absent = absent_after(&stretch[opener.len()..], role, &markers);
        if !absent.is_empty() {
            let _ = writeln!(
                out,
                "  of the markers a call is written with, none of these came after it: {}",
                absent.join(", ")
            );
        }
    }
    if unread > 0 {
        let _ = writeln!(
            out,
            "the format read {unread} opener{} as content: compare what follows each with \
             what the format's keys say (docs/custom-formats.md)",
            plural(unread)
        );
    } else if calls == 0 {
        let _ = writeln!(out, "no opener of the format is in the sample");
    }
    (out, unread == 0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Markers that open something a call may be in.
fn is_opener(role: Role) -> bool {
    matches!(
        role,
        Role::CallOpen | Role::FuncOpen | Role::ItemOpen | Role::HeadOpen
    )
}

/// The roles a call is written with after its opener (as far as the
/// format spells them) that `after` holds no spelling of, each by its
/// first spelling: a fact about the sample, for the reader to weigh.
fn absent_after(after: &str, opener: Role, markers: &[(Role, &str)]) -> Vec<String> {
    const IN_A_CALL: [Role; 11] = [
        Role::FuncOpen,
        Role::IdOpen,
        Role::ArgsOpen,
        Role::ParamOpen,
        Role::KeyClose,
        Role::ValueOpen,
        Role::ParamClose,
        Role::FuncClose,
        Role::ItemSep,
        Role::ItemClose,
        Role::CallClose,
    ];
    // Cut as the format reads it: `>>` inside `<<END>>` is not `>>`.
    let mut found = Vec::new();
    let mut at = 0;
    while at < after.len() {
        match marker_at(&after[at..], markers) {
            Some((role, m)) => {
                found.push(role);
                at += m.len();
            }
            None => at += after[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    let mut absent = Vec::new();
    for role in IN_A_CALL.into_iter().filter(|&r| r != opener) {
        let first = markers.iter().find(|(r, _)| *r == role);
        if let Some((_, spelling)) = first.filter(|_| !found.contains(&role)) {
            absent.push(format!("`{spelling}` ({role})"));
        }
    }
    absent
}

/// The marker of `markers` at the start of `s`, the longest.
fn marker_at<'m>(s: &str, markers: &[(Role, &'m str)]) -> Option<(Role, &'m str)> {
    markers
        .iter()
        .filter(|(_, m)| s.starts_with(m))
        .max_by_key(|(_, m)| m.len())
        .copied()
}

/// Each opener in `content`: its offset, role and spelling.
fn openers<'m>(content: &str, markers: &[(Role, &'m str)]) -> Vec<(usize, Role, &'m str)> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < content.len() {
        match marker_at(&content[at..], markers) {
            Some((role, m)) if is_opener(role) => {
                found.push((at, role, m));
                at += m.len();
            }
            Some((_, m)) => at += m.len(),
            None => at += content[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    found
}

/// The content from the opener at `at` up to the next opener (at most a
/// few hundred bytes).
fn stretch_after<'c>(content: &'c str, at: usize, markers: &[(Role, &str)]) -> &'c str {
    let first = marker_at(&content[at..], markers).map_or(1, |(_, m)| m.len());
    let next = openers(&content[at + first..], markers)
        .first()
        .map_or(content.len(), |(k, _, _)| at + first + k);
    let mut end = next.min(at + 400);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    &content[at..end]
}

/// `s` as the format's markers cut it: each marker with its role, and the
/// text between.
fn pieces(s: &str, markers: &[(Role, &str)]) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut at = 0;
    while at < s.len() {
        if let Some((role, m)) = marker_at(&s[at..], markers) {
            if !text.is_empty() {
                pieces.push(format!("text {:?}", std::mem::take(&mut text)));
            }
            pieces.push(format!("`{m}` ({role})"));
            at += m.len();
        } else {
            let c = s[at..].chars().next().unwrap_or(' ');
            text.push(c);
            at += c.len_utf8();
        }
    }
    if !text.is_empty() {
        pieces.push(format!("text {text:?}"));
    }
    if pieces.len() == 1 {
        pieces.push("then the end of the sample".to_owned());
    }
    pieces
}

/// `toolcall format-file`.
pub fn write_format_file(format: Format) -> Result<(), Fatal> {
    if format == Format::Auto {
        return Err(Fatal(
            "auto is not a format to start from: name the format the model writes".to_owned(),
        ));
    }
    io::stdout()
        .write_all(format.to_toml().as_bytes())
        .map_err(|e| Fatal(format!("cannot write: {e}")))
}

/// `toolcall format-file --check FILE SAMPLE`: exit code 1 when an opener
/// of the format began no call.
pub fn check_format_file(paths: &[PathBuf]) -> Result<(), Fatal> {
    let [file, sample] = paths else {
        return Err(Fatal("--check takes a format file and a sample".to_owned()));
    };
    let (report, every_opener_read) = check(file, sample).map_err(Fatal)?;
    print!("{report}");
    let _ = io::stdout().flush();
    if every_opener_read {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
