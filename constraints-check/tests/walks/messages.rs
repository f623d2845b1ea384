//! Calls in messages with headers (Harmony, Muse, Inkling, Functionary
//! v3.2): each call a message whose header names its function, answers
//! and reasoning messages of their own.

use super::{accepts, as_lark};
use toolcall_stream::{Constraint, Dialect, Format};

const HARMONY: &str = "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>\
    {\"city\": \"Paris\"}<|call|>";
const MUSE: &str = " to=get_weather<|message|><atem:function_calls>\n<atem:invoke name=\"get_weather\">\n\
    <atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>";
const INKLING: &str = "get_weather<|content_invoke_tool_json|>\
    {\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}<|end_message|>";
const FUNCTIONARY: &str = "get_weather\n{\"city\": \"Paris\"}";

#[test]
fn the_messages_a_model_writes_are_admitted_and_mistakes_are_not() {
    let thinking = || Constraint {
        reasoning: true,
        ..Constraint::lazy()
    };
    for dialect in [Dialect::Lark, Dialect::Gbnf] {
        let make = |format, constraint| as_lark(format, dialect, constraint);
        // Harmony: the call, with the space gpt-oss writes or without;
        // later messages start with `<|start|>assistant`.
        let required = make(Format::OpenAi, Constraint::required());
        let next = "<|start|>assistant";
        for call in [
            HARMONY.to_owned(),
            HARMONY.replace(" <|constrain|>", "<|constrain|>"),
            format!("{HARMONY}{next}{HARMONY}"),
            format!("{HARMONY}<|endoftext|>"),
        ] {
            assert!(accepts(&required, &call), "{call}\n{required}");
        }
        for wrong in [
            format!("Sure. {HARMONY}"),
            HARMONY.replace("get_weather", "get_time"),
            HARMONY.replace("Paris", "Pa<|end|>ris"),
            HARMONY.replace("<|call|>", ""),
            format!("{HARMONY}{HARMONY}"),
        ] {
            assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
        }
        let lazy = make(Format::OpenAi, thinking());
        let answer = "<|channel|>final<|message|>It is sunny.<|return|>";
        let analysis = "<|channel|>analysis<|message|>The user wants the weather.<|end|>";
        let preamble = "<|channel|>commentary<|message|>Let me look.<|end|>";
        for text in [
            answer.to_owned(),
            format!("{analysis}{next}{answer}"),
            format!("{analysis}{next}{preamble}{next}{HARMONY}"),
            format!("{analysis}{next}{HARMONY}"),
            String::new(),
        ] {
            assert!(accepts(&lazy, &text), "{text}\n{lazy}");
        }
        // Text outside any message, and an answer holding a marker.
        for wrong in ["It is sunny.", "<|channel|>final<|message|>a<|call|>"] {
            assert!(!accepts(&lazy, wrong), "admitted {wrong:?}");
        }
        // Reasoning only where asked for.
        let plain = make(Format::OpenAi, Constraint::lazy());
        assert!(!accepts(&plain, &format!("{analysis}{next}{HARMONY}")));

        // Muse: the recipient names the function its invoke calls.
        let required = make(Format::Muse, Constraint::required());
        assert!(accepts(&required, MUSE), "{required}");
        assert!(accepts(&required, &MUSE.replace('\n', "")));
        let two = format!("{MUSE}<|start|>assistant{MUSE}");
        assert!(accepts(&required, &two));
        let other = MUSE.replace("invoke name=\"get_weather\"", "invoke name=\"run\"");
        assert!(!accepts(&required, &other), "admitted {other:?}");
        assert!(!accepts(&required, &MUSE.replace("<|eom|>", "")));
        let lazy = make(Format::Muse, thinking());
        let before = " to=self<|message|>Weather.<|eom|><|start|>assistant to=commentary<|message|>Let me look.<|eom|>";
        assert!(accepts(&lazy, &format!("{before}<|start|>assistant{MUSE}")));
        assert!(accepts(&lazy, " to=user<|message|>It is sunny.<|eot|>"));

        // Inkling: the header's name, then the call object, name first.
        let required = make(Format::Inkling, Constraint::named("get_weather"));
        assert!(accepts(&required, INKLING), "{required}");
        for wrong in [
            INKLING.replace("\"name\":\"get_weather\"", "\"name\":\"run\""),
            INKLING.replace("get_weather<", "run<"),
            format!("{INKLING}<|message_model|>{INKLING}"),
        ] {
            assert!(!accepts(&required, &wrong), "admitted {wrong:?}");
        }
        let lazy = make(Format::Inkling, thinking());
        let text = format!(
            "<|content_thinking|>Weather.<|end_message|><|message_model|><|content_text|>Looking.\
             <|end_message|><|message_model|>{INKLING}<|content_model_end_sampling|>"
        );
        assert!(accepts(&lazy, &text), "{lazy}");

        // Functionary v3.2: `all` answers, each message after `>>>`.
        let required = make(Format::FunctionaryV32, Constraint::required());
        assert!(accepts(&required, FUNCTIONARY), "{required}");
        assert!(accepts(
            &required,
            &format!("{FUNCTIONARY}>>>{FUNCTIONARY}")
        ));
        assert!(!accepts(
            &required,
            &format!("all\nLooking.>>>{FUNCTIONARY}")
        ));
        let lazy = make(Format::FunctionaryV32, Constraint::lazy());
        for text in [
            format!("all\nLooking.>>>{FUNCTIONARY}"),
            "all\nIt is sunny.".to_owned(),
        ] {
            assert!(accepts(&lazy, &text), "{text}\n{lazy}");
        }
        assert!(!accepts(&lazy, "all\nIt is >>> sunny."));
    }
}
