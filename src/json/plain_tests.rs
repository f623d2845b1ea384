//! The shortcut past a reader (`Stepper::takes_plain_string`): wherever a
//! reader says it takes a piece, stepping that piece must give one `Text`
//! event of it all and leave the reader as `read_plain_string` does.

use super::event::{Fed, JsonEvent};
use super::syntax::Syntax;
use crate::Format;

/// Feeds `text` to a fresh reader of `syntax` in pieces of every size up
/// to 12; where the reader takes a piece, checks it against a step over
/// it. How many pieces were taken.
fn taken(syntax: Syntax, text: &str) -> usize {
    let mut taken = 0;
    for size in 1..=12 {
        let mut reader = syntax.reader();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let piece = &text[at..end];
            at = end;
            if !reader.takes_plain_string(piece.as_bytes()) {
                if reader.feed_until(piece, &mut |_, _| false).is_err() {
                    break;
                }
                continue;
            }
            let mut stepped = reader.clone();
            let mut events = Vec::new();
            let fed = stepped.feed_until(piece, &mut |event, _| {
                events.push(format!("{event:?}"));
                false
            });
            let context = format!("{syntax:?}, pieces of {size}, {piece:?}");
            assert!(matches!(fed, Ok(Fed::More)), "{context}: {fed:?}");
            assert_eq!(
                events,
                [format!("{:?}", JsonEvent::Text(piece))],
                "{context}"
            );
            reader.read_plain_string(piece.len());
            assert_eq!(format!("{reader:?}"), format!("{stepped:?}"), "{context}");
            taken += 1;
        }
    }
    taken
}

fn syntax_of(format: Format) -> Syntax {
    format.description().json.expect("a JSON format").syntax
}

#[test]
fn json_pieces_taken_are_those_a_step_reads() {
    let text = r#"{"name": "f", "arguments": {"a": "plain text then \"quoted\" and \\ and \u00e9\ud83d\ude00 é, more words", "b": [1, "nested text"], "c": 2}}"#;
    assert!(taken(syntax_of(Format::Hermes), text) > 0);
}

#[test]
fn python_pieces_taken_are_those_a_step_reads() {
    let calls = "[f(a='one quote \\' \" text\\n and \\x41\\101 é more', b=\"other \\\" ' quote\", \
        c='''triple ' '' text\n over lines ''', d=r'raw \\d \\' text', e=[1, 'in a list'], \
        f={'k': 'in a dict'}, g='line\nend'), g(h=u\"prefixed text here\")]";
    assert!(taken(syntax_of(Format::Pythonic), calls) > 0);
    let literal = "{'name': 'f', 'arguments': {'a': 'literal text \\'here\\' now', \
        'b': \"\"\"triple \" \"\" quotes\"\"\"}}";
    assert!(taken(syntax_of(Format::Sarashina), literal) > 0);
}

#[test]
fn element_pieces_taken_are_those_a_step_reads() {
    let minimax = "<invoke name=\"f\">\n]<]minimax[>[<a>\n  text &amp; &lt;b&gt; &bogus; & a < b ]<]mini ] more text]<]minimax[>[</a>\
        ]<]minimax[>[<o>]<]minimax[>[<k>inner text</k>]<]minimax[>[</k>]<]minimax[>[</o>\
        ]<]minimax[>[<n> 12 ]<]minimax[>[</n>]<]minimax[>[</invoke>";
    assert!(
        taken(
            syntax_of(Format::MiniMaxM3),
            &format!("]<]minimax[>[{minimax}")
        ) > 0
    );
    let cofl = "<cofl:tool_call id=\"0\" name=\"f\">\n<cofl:value name=\"a\" type=\"raw\">raw text &amp; more &quot;q&quot; a &lt; b</cofl:value>\n\
        <cofl:value name=\"j\" type=\"json\">{\"k\": [1, 2]}</cofl:value>\n\
        <cofl:value name=\"s\" string=\"true\">some string text</cofl:value>\n</cofl:tool_call>";
    assert!(taken(syntax_of(Format::CohereCofl), cofl) > 0);
}

#[test]
fn gemma_pieces_taken_are_those_a_step_reads() {
    let gemma = "call:f{a:<|\"|>text with < and <| and <|\" in it, more words<|\"|>,b:\"json \\\" quoted\",c:3,d:[<|\"|>in a list<|\"|>]}";
    assert!(taken(syntax_of(Format::Gemma4), gemma) > 0);
    let function = "call:f{a:<escape>text with < and <esc in it, more words<escape>,b:{c:<escape>nested text<escape>}}";
    assert!(taken(syntax_of(Format::FunctionGemma), function) > 0);
}
