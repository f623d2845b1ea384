//! The description rules, names and aliases.

use super::*;
use crate::engine::Compiled;

const fn desc(markers: &'static [(Role, &'static str)]) -> Description {
    Description {
        name: "test",
        markers,
        func_name_end: NameEnd::Byte(b'>'),
        param_name_end: NameEnd::Byte(b'>'),
        ..Description::BLANK
    }
}

const MINIMAL: &[(Role, &str)] = &[
    (Role::CallOpen, "<call>"),
    (Role::CallClose, "</call>"),
    (Role::FuncOpen, "<fn="),
    (Role::ParamOpen, "<p="),
    (Role::ParamClose, "</p>"),
];

#[test]
fn every_built_in_format_is_valid() {
    for format in Format::ALL {
        assert_eq!(format.description().validate(), Ok(()), "{format}");
        let _ = Compiled::of(*format);
    }
}

#[test]
fn a_minimal_description_is_valid() {
    static D: Description = desc(MINIMAL);
    assert_eq!(D.validate(), Ok(()));
}

#[test]
fn an_empty_marker_is_refused() {
    static D: Description = desc(&[(Role::CallOpen, "")]);
    assert_eq!(
        D.validate(),
        Err(DescriptionError::EmptyMarker(Role::CallOpen))
    );
}

#[test]
fn a_role_may_be_spelled_twice_and_is_named_by_its_first_spelling() {
    static D: Description = desc(&[
        (Role::CallOpen, "<call>"),
        (Role::CallOpen, "[call]"),
        (Role::CallClose, "</call>"),
        (Role::FuncOpen, "<fn="),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ]);
    assert_eq!(D.validate(), Ok(()));
    let compiled = Compiled::new(&D).unwrap();
    assert_eq!(compiled.text(Role::CallOpen), "<call>");
}

#[test]
fn markers_must_be_prefix_free() {
    static D: Description = desc(&[
        (Role::CallOpen, "<call>"),
        (Role::CallClose, "<call>x"),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ]);
    assert_eq!(
        D.validate(),
        Err(DescriptionError::Prefix("<call>".into(), "<call>x".into()))
    );
}

#[test]
fn a_marker_inside_a_marker_is_refused() {
    static D: Description = desc(&[
        (Role::CallOpen, "<call<p=>"),
        (Role::CallClose, "</call>"),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ]);
    assert_eq!(
        D.validate(),
        Err(DescriptionError::Contains("<call<p=>".into(), "<p=".into()))
    );
    // A first byte alone is allowed: the set re-anchors.
    static E: Description = desc(&[
        (Role::CallOpen, "<call<>"),
        (Role::CallClose, "</call>"),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ]);
    assert_eq!(E.validate(), Ok(()));
}

#[test]
fn an_item_needs_its_closer_and_a_type_word_its_separator() {
    const ITEM: &[(Role, &str)] = &[
        (Role::CallOpen, "<call>"),
        (Role::CallClose, "</call>"),
        (Role::ItemOpen, "<item>"),
        (Role::FuncOpen, "<fn="),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ];
    static NO_CLOSE: Description = desc(ITEM);
    assert_eq!(
        NO_CLOSE.validate(),
        Err(DescriptionError::MissingRole(Role::ItemClose))
    );
    static NO_SEP: Description = Description {
        item_type: Some("function"),
        ..desc(&[
            (Role::CallOpen, "<call>"),
            (Role::CallClose, "</call>"),
            (Role::ItemOpen, "<item>"),
            (Role::ItemClose, "</item>"),
            (Role::FuncOpen, "<fn="),
            (Role::ParamOpen, "<p="),
            (Role::ParamClose, "</p>"),
        ])
    };
    assert_eq!(
        NO_SEP.validate(),
        Err(DescriptionError::MissingRole(Role::ItemSep))
    );
    // A type word needs items.
    static NO_ITEM: Description = Description {
        item_type: Some("function"),
        ..desc(MINIMAL)
    };
    assert_eq!(
        NO_ITEM.validate(),
        Err(DescriptionError::MissingRole(Role::ItemOpen))
    );
}

#[test]
fn every_role_the_grammar_needs_is_spelled() {
    static NO_CLOSE: Description = desc(&[
        (Role::CallOpen, "<call>"),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ]);
    assert_eq!(
        NO_CLOSE.validate(),
        Err(DescriptionError::MissingRole(Role::CallClose))
    );
    static KEY_MARKER: Description = Description {
        param_name_end: NameEnd::Marker { line: false },
        ..desc(MINIMAL)
    };
    assert_eq!(
        KEY_MARKER.validate(),
        Err(DescriptionError::MissingRole(Role::KeyClose))
    );
    static UNSPELLED: Description = Description {
        follows: &[(Role::ParamClose, &[Role::FuncClose])],
        ..desc(MINIMAL)
    };
    assert_eq!(
        UNSPELLED.validate(),
        Err(DescriptionError::UnspelledRole(Role::FuncClose))
    );
}

/// An id before the name (`Json::id_before_name`, Solar Open) needs JSON
/// arguments after the name, `IdOpen` to end the id, names that end at a
/// marker, and no other reading of the text before `ArgsOpen`.
#[test]
fn an_id_before_the_name_needs_what_reads_it() {
    const ID_FIRST: &[(Role, &str)] = &[
        (Role::CallOpen, "<calls>"),
        (Role::FuncOpen, "<call>"),
        (Role::FuncClose, "</call>"),
        (Role::IdOpen, "<name>"),
        (Role::ArgsOpen, "<args>"),
    ];
    const ON: Json = Json {
        id_before_name: true,
        ..Json::ARGS
    };
    static SOLAR_LIKE: Description = Description::json("id_first", ID_FIRST, ON);
    assert_eq!(SOLAR_LIKE.validate(), Ok(()));
    assert_eq!(super::builtin::solar::SOLAR_OPEN.validate(), Ok(()));
    static NO_ID_OPEN: Description = Description::json(
        "id_first",
        &[
            (Role::CallOpen, "<calls>"),
            (Role::FuncOpen, "<call>"),
            (Role::FuncClose, "</call>"),
            (Role::ArgsOpen, "<args>"),
        ],
        ON,
    );
    assert_eq!(
        NO_ID_OPEN.validate(),
        Err(DescriptionError::MissingRole(Role::IdOpen))
    );
    static NOT_ARGS: Description = Description {
        json: Some(Json {
            id_before_name: true,
            ..Json::body(BodyKeys {
                name: &["name"],
                arguments: &["arguments"],
                list: false,
                name_is_key: false,
            })
        }),
        ..Description::json("id_first", ID_FIRST, ON)
    };
    static BYTE_END: Description = Description {
        func_name_end: NameEnd::Byte(b'>'),
        ..Description::json("id_first", ID_FIRST, ON)
    };
    static TYPED: Description = Description::json(
        "id_first",
        ID_FIRST,
        Json {
            call_type: Some("function"),
            ..ON
        },
    );
    for (d, rule_part) in [
        (&NOT_ARGS, "arguments_after_name"),
        (&BYTE_END, "end at a byte"),
        (&TYPED, "call_type"),
    ] {
        let error = d.validate().unwrap_err();
        assert!(
            matches!(error, DescriptionError::IdBeforeName(_)),
            "{error}"
        );
        assert!(error.to_string().contains(rule_part), "{error}");
        assert_eq!(
            error.rule(),
            "an id before the name needs JSON arguments after a name that ends at a marker"
        );
    }
}

#[test]
fn a_name_cannot_end_at_a_marker_first_byte() {
    static D: Description = Description {
        func_name_end: NameEnd::Byte(b'<'),
        ..desc(MINIMAL)
    };
    assert_eq!(
        D.validate(),
        Err(DescriptionError::NameEndStartsMarker(b'<'))
    );
}

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
    assert_eq!("GLM45".parse::<Format>(), Ok(Format::Glm45));
    assert_eq!("Glm47".parse::<Format>(), Ok(Format::Glm47));
    // vLLM spells this one with dashes; both spellings match.
    for name in ["granite-20b-fc", "granite_20b_fc", "Granite-20B-FC"] {
        assert_eq!(name.parse::<Format>(), Ok(Format::Granite20bFc), "{name}");
    }
    assert_eq!(Format::Granite20bFc.name(), "granite-20b-fc");
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
            format!(
                "unknown format {name:?}; known formats: qwen3_coder (aliases: qwen3_xml, qwen3.5, \
                 mimo, nemotron-3-nano, step3p5, step5), glm45 (aliases: glm-4.5, glm4, glm46, spark25, spark3, \
                 hyperclovax), glm47 (aliases: glm-4.7, glm5, ling3), hermes (aliases: granite4, qwen3_json, trinity, exaone), kimi_k2, deepseek_v31, deepseek_v3, longcat, internlm, jamba, hunyuan_a13b, \
                 granite, phi4_mini_json, mistral, openai (aliases: gpt_oss, harmony), \
                 llama3_json (alias: llama4_json), minimax, cohere_command3 (alias: cohere_command4), \
                 granite-20b-fc, xlam, apertus (alias: apertus2509), gigachat3, xml_tool_use, xml_function_call, bare_json (alias: json), seed_oss, minimax_m2, deepseek_v32, deepseek_v4, xml_invoke, kimi_k3, step3, pythonic (alias: llama4_pythonic), olmo3, lfm2, gemma4, \
                 functiongemma, ernie45, nemotron_json, openpangu_v2, solar_open2, deepseek_v41, gigachat35, minimax_m3, plamo3, inkling, hy_v3 (alias: hy3), hy_v4 (alias: hy4), iquest_q1, telechat4, k2_horizon (alias: k2h), poolside_v1 (alias: laguna), dots, muse (aliases: musespark1x, muse_glimmer, glimmer, muse_spark), sarashina, functionary_v31 (aliases: functionary_v3_1, functionary), solar_open, minicpm5, functionary_v32 (alias: functionary_v3_2), cohere_cofl (aliases: cmd5, cohere_xml), or auto (detected from the output)"
            )
        );
    }
}

#[test]
fn names_are_normal_and_no_two_formats_share_one() {
    let mut seen = std::collections::BTreeSet::new();
    for &format in Format::ALL {
        for name in std::iter::once(format.name()).chain(format.aliases().iter().copied()) {
            // Lower case (a name is shown as written, and matched
            // normalised, so `-` may stand for `_`).
            assert_eq!(name.to_ascii_lowercase(), name);
            let normal = normalise(name);
            assert!(seen.insert(normal), "{name} is taken twice");
        }
    }
}

#[test]
fn an_end_of_turn_marker_keeps_the_marker_rules() {
    static EOT: Description = desc(&[
        (Role::CallOpen, "<call>"),
        (Role::CallClose, "</call>"),
        (Role::FuncOpen, "<fn="),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
        (Role::EndOfTurn, "<|end|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ]);
    assert_eq!(EOT.validate(), Ok(()));
    static PREFIX: Description = desc(&[
        (Role::CallOpen, "<call>"),
        (Role::CallClose, "</call>"),
        (Role::FuncOpen, "<fn="),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
        (Role::EndOfTurn, "<c"),
    ]);
    assert_eq!(
        PREFIX.validate(),
        Err(DescriptionError::Prefix("<c".into(), "<call>".into()))
    );
    static EMPTY: Description = desc(&[(Role::EndOfTurn, "")]);
    assert_eq!(
        EMPTY.validate(),
        Err(DescriptionError::EmptyMarker(Role::EndOfTurn))
    );
    assert_eq!("end_of_turn".parse::<Role>(), Ok(Role::EndOfTurn));
    assert_eq!(Role::EndOfTurn.key(), "end_of_turn");
}
