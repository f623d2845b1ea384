//! Split invariance over every fixture: chunk sizes 1 to 16, every single
//! cut point, and seeded random splits all give the one-shot events, and
//! `parse()` agrees with the stream.

mod common;

use common::{check_contract, chunked, feed_cut, fixtures, message_of, one_shot, Rng};
use toolcall_stream::coalesce;

#[test]
fn chunk_sizes_1_to_16_match_one_shot() {
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        let expected = coalesce(one_shot(&mut parser, &fixture.input));
        for size in 1..=16 {
            let events = chunked(&mut parser, &fixture.input, size);
            let context = format!("{} at chunk size {size}", fixture.name);
            check_contract(&events, &context);
            assert_eq!(coalesce(events), expected, "{context}");
        }
    }
}

#[test]
fn every_single_cut_matches_one_shot() {
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        let expected = coalesce(one_shot(&mut parser, &fixture.input));
        for cut in 1..fixture.input.len() {
            let events = feed_cut(&mut parser, &fixture.input, &[cut]);
            assert_eq!(coalesce(events), expected, "{} cut at {cut}", fixture.name);
        }
    }
}

#[test]
fn seeded_random_splits_match_one_shot() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        let expected = coalesce(one_shot(&mut parser, &fixture.input));
        for round in 0..64 {
            let cuts = rng.cuts(fixture.input.len());
            let events = feed_cut(&mut parser, &fixture.input, &cuts);
            let context = format!("{} round {round} cuts {cuts:?}", fixture.name);
            check_contract(&events, &context);
            assert_eq!(coalesce(events), expected, "{context}");
        }
    }
}

#[test]
fn parse_equals_the_collected_stream() {
    for fixture in fixtures() {
        // `parse` is the stream with unreadable calls as content.
        let mut parser = fixture.builder().unreadable_calls_as_content(true).build();
        let streamed = message_of(&chunked(&mut parser, &fixture.input, 3));
        let parsed = fixture.parser().parse(&fixture.input);
        assert_eq!(parsed, streamed, "{}", fixture.name);
    }
}

/// Empty chunks say nothing: fed between every pair of bytes, they change
/// no event (a value must not count as begun because of one).
#[test]
fn empty_chunks_change_nothing() {
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        let expected = coalesce(one_shot(&mut parser, &fixture.input));
        let cuts: Vec<usize> = (1..fixture.input.len()).flat_map(|i| [i, i]).collect();
        let events = feed_cut(&mut parser, &fixture.input, &cuts);
        check_contract(&events, &fixture.name);
        assert_eq!(coalesce(events), expected, "{}", fixture.name);
    }
}

/// A near-miss closer met while the text before it still had to decide a
/// tentative state (a near miss or a key inside a value): every cut gives
/// the one-shot events (found by the property tests).
#[test]
fn near_misses_after_tentative_states_do_not_depend_on_the_split() {
    use toolcall_stream::{Format, Ids, Parser};
    let inputs: [&[u8]; 2] = [
        b"<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value></arg_value{\"k\": 1}</arg_values><tool_call></arg_value>\n</tool_call>get_weather\xc3\xa9<tool_calls>/<tool_call>",
        b"<tool_call>get_weather<arg_key>city</arg_key><arg_value><arg_key></arg_values></arg_values>\n\n<tool",
    ];
    for input in inputs {
        for format in [Format::Glm45, Format::Glm47] {
            let mut parser = Parser::builder()
                .format(format)
                .ids(Ids::sequential("c"))
                .build();
            let expected = coalesce(one_shot(&mut parser, input));
            for cut in 1..input.len() {
                let events = feed_cut(&mut parser, input, &[cut]);
                assert_eq!(coalesce(events), expected, "{format} cut at {cut}");
            }
        }
    }
}

/// An opener met where the previous opening's JSON body was to begin ends
/// that opening and begins its own, from its own bytes: the body after it,
/// given back as content, is placed there at every split (another
/// format's call in it is reported at its own bytes).
#[test]
fn an_opener_read_again_begins_where_it_is() {
    let second = "<longcat_tool_call>{\"arguments\": {\"[TOOL_CALLS]g[ARGS]{}\": 1}, \"name\": 5}";
    // After an opener whose body was to begin, and inside a call whose
    // JSON became unreadable.
    for first in [
        "<longcat_tool_call>",
        "<longcat_tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ",
    ] {
        opener_read_again(first, second);
    }
}

fn opener_read_again(first: &str, second: &str) {
    use toolcall_stream::{DiagnosticKind, Format, Ids, OwnedEvent, Parser};
    let input = format!("{first}{second}</longcat_tool_call>");
    let opener = input.find("[TOOL_CALLS]").unwrap() as u64;
    let body = first.len() as u64;
    let mut parser = Parser::builder()
        .format(Format::LongCat)
        .ids(Ids::sequential("call_"))
        .build();
    let whole = coalesce(one_shot(&mut parser, input.as_bytes()));
    let starts = |kind| {
        whole
            .iter()
            .filter_map(|event| match event {
                OwnedEvent::Diagnostic { kind: k, span, .. } if *k == kind => Some(span.start),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(starts(DiagnosticKind::ForeignFormat), [opener], "{whole:?}");
    let invalid = starts(DiagnosticKind::InvalidJson);
    assert_eq!(invalid.last(), Some(&body), "{whole:?}");
    for cut in 1..input.len() {
        let split = coalesce(feed_cut(&mut parser, input.as_bytes(), &[cut]));
        assert_eq!(split, whole, "cut at {cut}");
    }
}
