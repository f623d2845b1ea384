//! Call objects written as Python literals (Sarashina's): declared keys and
//! names as `repr` writes them, values as Python literals.

use super::{accepts, as_lark};
use toolcall_stream::{Constraint, Dialect, Format};

#[test]
fn the_dicts_a_model_writes_are_admitted_and_mistakes_are_not() {
    let calls = "[{'name': 'get_weather', 'arguments': {'city': \"Paris, 'TX'\", 'days': 3}}, \
        {'name': 'run', 'arguments': {'command': 'ls', 'env': {'PATH': '/bin'}, 'dry': True, \
        'meta': {'depth': 2}, 'tags': [1, 'a', None], 'level': 0}}]";
    for dialect in [Dialect::Lark, Dialect::Gbnf] {
        let make = |constraint| as_lark(Format::Sarashina, dialect, constraint);
        // Bare at the output's start, as servers strip the marker, or after it.
        let required = make(Constraint::required());
        for call in [calls.to_owned(), format!("<|tool_calls|>{calls}")] {
            assert!(accepts(&required, &call), "{call}\n{required}");
        }
        for wrong in [
            calls.replace("True", "true"),
            calls.replace("3}", "'3'}"),
            calls.replace("'city'", "\"city\""),
            calls.replace("'run'", "'walk'"),
            calls.replace("Paris", "Par<is"),
            format!("Sure. {calls}"),
        ] {
            assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
        }
        let lazy = make(Constraint::lazy());
        assert!(accepts(&lazy, &format!("Sure.<|tool_calls|>{calls} Done.")));
        assert!(accepts(&lazy, "A list: [1, 2]"));
        assert!(!accepts(&lazy, "[1, 2] is a list"));
    }
}
