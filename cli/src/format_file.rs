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
