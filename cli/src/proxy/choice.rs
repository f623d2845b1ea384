//! Which format a request's model writes (`--format`, `--model-map`,
//! `--default-format`, the model's name), and why: the choice and its
//! reason go on the request's log line; a request that gets no format
//! passes through, and says why.

use std::path::Path;

use serde_json::Value;
use toolcall_stream::Format;

use crate::format_file::Custom;

/// The advice a model with no format gets, in the log.
const SETS_ONE: &str = "--format, --default-format or --model-map sets one";

/// Which format a request's model writes.
pub enum FormatChoice {
    /// Every model's: `by` is the flag that said so (`--format`,
    /// `--format-file`, `--format-from-model-config`).
    Fixed { format: Format, by: &'static str },
    /// By the request's `model`: the `--model-map` (empty without one),
    /// then the model's name (`Format::for_model`), then `default`
    /// (`--default-format`).
    ByModel {
        map: ModelMap,
        default: Option<Format>,
    },
}

/// A format chosen for a request, and why.
#[derive(Debug, PartialEq, Eq)]
pub struct Chosen {
    pub format: Format,
    /// `by --format`, `by model name, pattern "qwen3-coder"`, …
    pub why: String,
}

impl Chosen {
    /// `format NAME WHY`, for the log line.
    pub fn describe(&self) -> String {
        format!("format {} {}", self.format, self.why)
    }
}

/// Why a chat request passes through unparsed: its `reason` labels the
/// passthrough counter in `/metrics`.
#[derive(Debug, PartialEq, Eq)]
pub enum Passthrough {
    /// The body is not JSON: the upstream judges it.
    NotJson,
    /// No `tools`: nothing to parse.
    NoTools,
    /// No `model` (and no format for every model).
    NoModel,
    /// A `model` whose name says no format, and no map entry or default.
    UnknownModel(String),
}

impl Passthrough {
    /// The `reason` label in `/metrics`.
    pub fn reason(&self) -> &'static str {
        match self {
            Passthrough::NotJson => "not_json",
            Passthrough::NoTools => "no_tools",
            Passthrough::NoModel => "no_model",
            Passthrough::UnknownModel(_) => "unknown_model",
        }
    }

    /// What is missing, in words: `model "my-model" names no format`.
    pub fn what(&self) -> String {
        match self {
            Passthrough::NotJson => "the body is not JSON".to_owned(),
            Passthrough::NoTools => "no tools in the request".to_owned(),
            Passthrough::NoModel => "no \"model\" names a format".to_owned(),
            Passthrough::UnknownModel(model) => format!("model {model:?} names no format"),
        }
    }

    /// The note on the request's log line, with the flags that would give
    /// a model a format.
    pub fn describe(&self) -> String {
        match self {
            Passthrough::NotJson | Passthrough::NoTools => format!("passthrough: {}", self.what()),
            Passthrough::NoModel | Passthrough::UnknownModel(_) => {
                format!("passthrough: {}; {SETS_ONE}", self.what())
            }
        }
    }

    /// The note of an agent route, which translates the request all the
    /// same: the calls are then whatever the upstream made of them.
    pub fn describe_for_agents(&self) -> String {
        format!("{}: calls are the upstream's own ({SETS_ONE})", self.what())
    }
}

impl FormatChoice {
    /// The format for a request's `model` and why, or why there is none.
    pub fn choose(&self, model: Option<&str>) -> Result<Chosen, Passthrough> {
        let (map, default) = match self {
            FormatChoice::Fixed { format, by } => {
                return Ok(Chosen {
                    format: *format,
                    why: format!("by {by}"),
                })
            }
            FormatChoice::ByModel { map, default } => (map, default),
        };
        if let Some((key, entry)) = map.lookup_key(model.unwrap_or("")) {
            if let Some(format) = entry.format {
                let why = format!("by --model-map {key:?}");
                return Ok(Chosen { format, why });
            }
            let by_target = entry.model.as_deref().and_then(|target| {
                let (pattern, format) = Format::model_pattern(target)?;
                let why =
                    format!("by --model-map {key:?} \u{2192} {target:?}, pattern {pattern:?}");
                Some(Chosen { format, why })
            });
            if let Some(chosen) = by_target {
                return Ok(chosen);
            }
        }
        if let Some((pattern, format)) = model.and_then(Format::model_pattern) {
            let why = format!("by model name, pattern {pattern:?}");
            return Ok(Chosen { format, why });
        }
        let missing = match model {
            Some(model) if !model.is_empty() => Passthrough::UnknownModel(model.to_owned()),
            _ => Passthrough::NoModel,
        };
        match default {
            Some(format) => {
                let why = match &missing {
                    Passthrough::UnknownModel(model) => {
                        format!("by --default-format: model {model:?} names none")
                    }
                    _ => "by --default-format: no \"model\"".to_owned(),
                };
                Ok(Chosen {
                    format: *format,
                    why,
                })
            }
            None => Err(missing),
        }
    }

    /// The format for a request's `model`; `None`: pass it through.
    #[cfg(test)]
    pub fn for_model(&self, model: Option<&str>) -> Option<Format> {
        self.choose(model).ok().map(|chosen| chosen.format)
    }

    /// How formats are chosen, for the start-up log.
    pub fn describe(&self) -> String {
        match self {
            FormatChoice::Fixed { format, by } => {
                format!("every request's format is {format} ({by})")
            }
            FormatChoice::ByModel { map, default } => {
                let map = if map.is_empty() {
                    ""
                } else {
                    "the --model-map entry for its \"model\", else "
                };
                let otherwise = match default {
                    Some(format) => {
                        format!("; a model that names none is read as {format} (--default-format)")
                    }
                    None => format!(
                        "; a request whose model names none passes through unparsed ({SETS_ONE})"
                    ),
                };
                format!(
                    "each chat request's format is {map}the one its \"model\" names (docs/models.md lists the names known){otherwise}"
                )
            }
        }
    }

    /// Whether some `--model-map` entry names an upstream model.
    pub fn renames_models(&self) -> bool {
        match self {
            FormatChoice::Fixed { .. } => false,
            FormatChoice::ByModel { map, .. } => map
                .exact
                .iter()
                .chain(&map.prefixes)
                .any(|(_, entry)| entry.model.is_some()),
        }
    }

    /// The upstream's name for a client's `model`, when `--model-map`
    /// gives one.
    pub fn upstream_model(&self, model: &str) -> Option<&str> {
        match self {
            FormatChoice::Fixed { .. } => None,
            FormatChoice::ByModel { map, .. } => map.lookup_entry(model)?.model.as_deref(),
        }
    }
}

/// What `--model-map` says of a model: its format, the upstream's name
/// for it, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapEntry {
    pub format: Option<Format>,
    pub model: Option<String>,
}

/// `--model-map`: exact names and `prefix*` patterns.
#[derive(Debug, Default)]
pub struct ModelMap {
    exact: Vec<(String, MapEntry)>,
    /// Longest prefix first, so that the most specific pattern wins.
    prefixes: Vec<(String, MapEntry)>,
}

impl ModelMap {
    fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.prefixes.is_empty()
    }

    pub fn read(path: &Path, custom: &Custom) -> Result<ModelMap, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read model map {}: {e}", path.display()))?;
        ModelMap::from_json_with(&text, custom)
            .map_err(|e| format!("bad model map {}: {e}", path.display()))
    }

    #[cfg(test)]
    pub fn from_json(text: &str) -> Result<ModelMap, String> {
        ModelMap::from_json_with(text, &Custom::default())
    }

    /// The map in `text`, whose formats may be `custom` ones.
    pub fn from_json_with(text: &str, custom: &Custom) -> Result<ModelMap, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let entries = value
            .as_object()
            .ok_or("a model map is a JSON object of model names to formats")?;
        let mut map = ModelMap::default();
        for (key, value) in entries {
            let entry = MapEntry::read(value, custom).map_err(|e| format!("{key:?}: {e}"))?;
            match key.strip_suffix('*') {
                Some(prefix) => map.prefixes.push((prefix.to_owned(), entry)),
                None => map.exact.push((key.clone(), entry)),
            }
        }
        map.prefixes
            .sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
        Ok(map)
    }

    /// The format the map gives `model`, if any.
    #[cfg(test)]
    pub fn lookup(&self, model: &str) -> Option<Format> {
        self.lookup_entry(model)?.format
    }

    /// The entry for `model`: an exact key, else the longest pattern.
    pub fn lookup_entry(&self, model: &str) -> Option<&MapEntry> {
        self.lookup_key(model).map(|(_, entry)| entry)
    }

    /// The entry for `model` and its key as the file writes it (`local/*`).
    fn lookup_key(&self, model: &str) -> Option<(String, &MapEntry)> {
        let exact = self.exact.iter().find(|(name, _)| name == model);
        if let Some((name, entry)) = exact {
            return Some((name.clone(), entry));
        }
        let (prefix, entry) = self
            .prefixes
            .iter()
            .find(|(p, _)| model.starts_with(p.as_str()))?;
        Some((format!("{prefix}*"), entry))
    }
}

impl MapEntry {
    /// A map value: a format's name, or `{"model": …, "format": …}`.
    fn read(value: &Value, custom: &Custom) -> Result<MapEntry, String> {
        match value {
            Value::String(name) => Ok(MapEntry {
                format: Some(custom.lookup(name)?),
                model: None,
            }),
            Value::Object(members) => {
                let mut entry = MapEntry::default();
                for (key, value) in members {
                    let text = value
                        .as_str()
                        .ok_or_else(|| format!("\"{key}\" is not a string"))?;
                    match key.as_str() {
                        "format" => entry.format = Some(custom.lookup(text)?),
                        "model" if !text.is_empty() => entry.model = Some(text.to_owned()),
                        "model" => return Err("\"model\" is empty".to_owned()),
                        other => {
                            return Err(format!(
                                "unknown key \"{other}\" (a value is a format's name, or an object with \"model\" and/or \"format\")"
                            ))
                        }
                    }
                }
                Ok(entry)
            }
            _ => Err("expected a format's name or {\"model\": …, \"format\": …}".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_map_prefers_exact_then_longest_prefix() {
        let map = ModelMap::from_json(
            r#"{"glm-4.7": "glm47", "glm-*": "glm45", "glm-4.7-air*": "qwen3_coder", "*": "qwen3_xml"}"#,
        )
        .unwrap();
        assert_eq!(map.lookup("glm-4.7"), Some(Format::Glm47));
        assert_eq!(map.lookup("glm-4.7-air-fp8"), Some(Format::Qwen3Coder));
        assert_eq!(map.lookup("glm-4.5"), Some(Format::Glm45));
        assert_eq!(map.lookup("anything"), Some(Format::Qwen3Coder));
        let no_fallback = ModelMap::from_json(r#"{"a*": "glm45"}"#).unwrap();
        assert_eq!(no_fallback.lookup("b"), None);
    }

    #[test]
    fn without_a_flag_the_format_comes_from_the_model_name() {
        let choice = FormatChoice::ByModel {
            map: ModelMap::default(),
            default: None,
        };
        assert_eq!(
            choice.for_model(Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")),
            Some(Format::Qwen3Coder)
        );
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7")),
            Some(Format::Glm47)
        );
        assert_eq!(choice.for_model(Some("gpt-oss:20b")), Some(Format::OpenAi));
        // No format by name, or no name: passed through, as a model a map
        // does not know.
        assert_eq!(choice.for_model(Some("my-model")), None);
        assert_eq!(choice.for_model(Some("")), None);
        assert_eq!(choice.for_model(None), None);
    }

    #[test]
    fn the_map_wins_then_the_model_name() {
        let map =
            ModelMap::from_json(r#"{"zai-org/GLM-4.7": "glm45", "local/*": "hermes"}"#).unwrap();
        let choice = FormatChoice::ByModel { map, default: None };
        // The map over the name...
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7")),
            Some(Format::Glm45)
        );
        assert_eq!(
            choice.for_model(Some("local/anything")),
            Some(Format::Hermes)
        );
        // ...then the name, for models the map does not hold.
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7-Flash")),
            Some(Format::Glm47)
        );
        assert_eq!(
            choice.for_model(Some("deepseek-ai/DeepSeek-V3.1")),
            Some(Format::DeepSeekV31)
        );
        assert_eq!(choice.for_model(Some("unknown/model")), None);
        // `--format` is every model's.
        let fixed = FormatChoice::Fixed {
            format: Format::Glm45,
            by: "--format",
        };
        assert_eq!(
            fixed.for_model(Some("openai/gpt-oss-120b")),
            Some(Format::Glm45)
        );
        assert_eq!(fixed.for_model(None), Some(Format::Glm45));
    }

    #[test]
    fn model_map_rejects_bad_entries() {
        assert!(ModelMap::from_json("[]").is_err());
        assert!(ModelMap::from_json(r#"{"m": 1}"#).is_err());
        assert!(ModelMap::from_json(r#"{"m": "no_such_format"}"#).is_err());
        let error = ModelMap::from_json(r#"{"m": {"modle": "x"}}"#).unwrap_err();
        assert!(error.contains("unknown key \"modle\""), "{error}");
        assert!(ModelMap::from_json(r#"{"m": {"model": ""}}"#).is_err());
        assert!(ModelMap::from_json(r#"{"m": {"format": 3}}"#).is_err());
    }

    #[test]
    fn model_map_names_the_upstream_model() {
        let map = ModelMap::from_json(
            r#"{"claude-*": {"model": "zai-org/GLM-4.7"},
                "gpt-5*": {"model": "local/any", "format": "hermes"},
                "*": {"model": "Qwen/Qwen3-Coder-30B-A3B-Instruct"}}"#,
        )
        .unwrap();
        let choice = FormatChoice::ByModel { map, default: None };
        // The target's name says the format...
        assert_eq!(
            choice.upstream_model("claude-sonnet-4-5"),
            Some("zai-org/GLM-4.7")
        );
        assert_eq!(
            choice.for_model(Some("claude-sonnet-4-5")),
            Some(Format::Glm47)
        );
        // ...unless the entry names one.
        assert_eq!(choice.upstream_model("gpt-5-codex"), Some("local/any"));
        assert_eq!(choice.for_model(Some("gpt-5-codex")), Some(Format::Hermes));
        // `*` is every other model.
        assert_eq!(
            choice.upstream_model("anything"),
            Some("Qwen/Qwen3-Coder-30B-A3B-Instruct")
        );
        assert_eq!(choice.for_model(Some("anything")), Some(Format::Qwen3Coder));
        assert_eq!(
            FormatChoice::Fixed {
                format: Format::Hermes,
                by: "--format"
            }
            .upstream_model("x"),
            None
        );
    }

    #[test]
    fn the_choice_says_why_and_a_passthrough_its_reason() {
        let map = ModelMap::from_json(
            r#"{"local/*": "hermes", "claude-*": {"model": "zai-org/GLM-4.7"}}"#,
        )
        .unwrap();
        let choice = FormatChoice::ByModel { map, default: None };
        let why = |model| choice.choose(Some(model)).map(|chosen| chosen.describe());
        assert_eq!(
            why("local/x"),
            Ok("format hermes by --model-map \"local/*\"".to_owned())
        );
        assert_eq!(
            why("claude-opus"),
            Ok(
                "format glm47 by --model-map \"claude-*\" \u{2192} \"zai-org/GLM-4.7\", pattern \"glm-4.7\""
                    .to_owned()
            )
        );
        assert_eq!(
            why("meta-llama/Llama-3.2-3B-Instruct"),
            Ok("format pythonic by model name, pattern \"llama-3.2\"".to_owned())
        );
        let unknown = choice.choose(Some("my-model")).unwrap_err();
        assert_eq!(unknown, Passthrough::UnknownModel("my-model".to_owned()));
        assert_eq!(unknown.reason(), "unknown_model");
        assert_eq!(
            unknown.describe(),
            "passthrough: model \"my-model\" names no format; --format, --default-format or --model-map sets one"
        );
        assert_eq!(choice.choose(None), Err(Passthrough::NoModel));
        assert_eq!(choice.choose(Some("")), Err(Passthrough::NoModel));
        let fixed = FormatChoice::Fixed {
            format: Format::Glm45,
            by: "--format",
        };
        assert_eq!(
            fixed.choose(None).unwrap().describe(),
            "format glm45 by --format"
        );
    }

    #[test]
    fn the_default_format_reads_models_that_name_none() {
        let map = ModelMap::from_json(r#"{"local/*": "hermes"}"#).unwrap();
        let choice = FormatChoice::ByModel {
            map,
            default: Some(Format::Glm45),
        };
        // The map, then the name, then the default.
        assert_eq!(choice.for_model(Some("local/x")), Some(Format::Hermes));
        assert_eq!(
            choice.for_model(Some("zai-org/GLM-4.7")),
            Some(Format::Glm47)
        );
        assert_eq!(
            choice.choose(Some("my-model")).unwrap().describe(),
            "format glm45 by --default-format: model \"my-model\" names none"
        );
        assert_eq!(choice.for_model(None), Some(Format::Glm45));
        assert!(choice
            .describe()
            .contains("read as glm45 (--default-format)"));
        let without = FormatChoice::ByModel {
            map: ModelMap::default(),
            default: None,
        };
        assert!(
            without.describe().contains("passes through unparsed"),
            "{}",
            without.describe()
        );
    }
}
