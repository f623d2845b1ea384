//! Formats of a user's own: the builder, the rules only they can break,
//! and format files saying everything the built-in descriptions say.

use super::owned::Owned;
use super::*;

#[test]
fn equal_descriptions_are_one_format_and_different_ones_two() {
    let build = |call_open: &str| {
        FormatBuilder::based_on("equal_test", Format::Qwen3Coder)
            .marker(Role::CallOpen, call_open)
            .build()
            .unwrap()
    };
    assert_eq!(build("<a>"), build("<a>"));
    assert_ne!(build("<a>"), build("<b>"));
    assert_eq!(build("<a>").name(), "equal_test");
    assert!(matches!(build("<a>"), Format::Custom(_)));
}

#[test]
fn a_name_is_its_own() {
    for name in ["", " ", "qwen3_coder", "Qwen3-Coder", "qwen3.5", "auto"] {
        let error = FormatBuilder::based_on(name, Format::Qwen3Coder)
            .build()
            .unwrap_err();
        assert_eq!(error, DescriptionError::Name(name.to_owned()), "{name:?}");
    }
    let error = FormatBuilder::based_on("mine", Format::Qwen3Coder)
        .alias("glm4")
        .build()
        .unwrap_err();
    assert_eq!(error, DescriptionError::Name("glm4".to_owned()));
}

#[test]
fn rules_only_a_users_description_can_break() {
    let qwen = || FormatBuilder::based_on("rules_test", Format::Qwen3Coder);
    assert_eq!(
        qwen().function_name_end(NameEnd::Byte(0xE2)).build(),
        Err(DescriptionError::NameEndNotAscii(0xE2))
    );
    assert_eq!(
        qwen().json_value_attribute("string", "false").build(),
        Err(DescriptionError::AttributeWithoutQuotedNames)
    );
    assert_eq!(
        FormatBuilder::based_on("rules_test", Format::Hermes)
            .json_body(["name"], Vec::<String>::new(), false)
            .build(),
        Err(DescriptionError::EmptyKeys("arguments"))
    );
    assert_eq!(
        qwen()
            .markers(Role::CallClose, Vec::<String>::new())
            .build(),
        Err(DescriptionError::MissingRole(Role::CallClose))
    );
}

/// A description with its markers and grammar lists in one order, for
/// comparing descriptions that list them differently.
#[cfg(feature = "toml")]
fn normal(mut owned: Owned) -> Owned {
    owned.name = String::new();
    owned.aliases.clear();
    owned.markers.sort_by_key(|(role, _)| *role);
    owned.follows.sort_by_key(|(closer, _)| *closer);
    if let Some(keys) = owned.json.as_mut().and_then(|json| json.body.as_mut()) {
        if keys.name_is_key {
            keys.name.clear();
            keys.arguments.clear();
        }
    }
    owned
}

#[cfg(feature = "toml")]
#[test]
fn every_built_in_description_reads_back_whole_from_its_format_file() {
    for &format in Format::ALL {
        let file = format.to_toml();
        let read =
            super::toml_file::builder_of(&file).unwrap_or_else(|e| panic!("{format}: {e}\n{file}"));
        assert_eq!(
            normal(read.owned().clone()),
            normal(Owned::of(format.description(), String::new())),
            "{format}:\n{file}"
        );
        let custom = Format::from_toml(&file).unwrap();
        assert_eq!(custom.name(), format!("custom_{}", format.name()));
    }
}
