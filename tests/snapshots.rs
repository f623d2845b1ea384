//! One insta snapshot per fixture: the input, its coalesced event stream
//! and the message `parse` makes of it. Snapshots live in `snapshots/`.

mod common;

use common::{check_contract, fixtures, one_shot, render};

#[test]
fn every_fixture_matches_its_snapshot() {
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        let events = one_shot(&mut parser, &fixture.input);
        check_contract(&events, &fixture.name);
        let message = parser.parse(&fixture.input);
        let body = format!(
            "input: {}\nmode: {}\n--- events\n{}--- parse\n{}\n",
            serde_json::to_string(&String::from_utf8_lossy(&fixture.input)).unwrap(),
            fixture.mode,
            render(events),
            serde_json::to_string_pretty(&message).unwrap(),
        );
        insta::with_settings!({
            snapshot_path => "../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("{}__{}", fixture.format, fixture.name), body);
        });
    }
}
