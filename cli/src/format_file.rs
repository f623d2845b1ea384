//! `--format-file`: formats of a user's own, read from format files
//! (docs/custom-formats.md), and format names that may name them.

use std::path::Path;

use toolcall_stream::Format;

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
