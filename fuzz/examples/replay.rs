//! Prints what a `feed`, `split` or `features` input does, without the
//! fuzzer: the header it reads (and `features`' options byte), then the
//! events one-shot and (for `split` and `features`) chunked,
//! one JSON object a line, so that a failure can be read and minimised by
//! hand. A panic in the parser shows as a panic here.
//!
//! `cargo run --example replay -- split regressions/split-….bin`

#[path = "../fuzz_targets/common/mod.rs"]
mod common;

fn print(label: &str, events: &[toolcall_stream::OwnedEvent]) {
    println!("{label}:");
    for event in events {
        println!("  {}", serde_json::to_string(event).expect("serializes"));
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(target), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: replay feed|split|features FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(&path).expect("readable input");
    let Some((header, rest)) = common::Header::split(&data) else {
        eprintln!("too short for a header");
        std::process::exit(2);
    };
    println!("{header}");
    match target.as_str() {
        "feed" => {
            println!("input {:?}", String::from_utf8_lossy(rest));
            let events = common::feed_chunks(&mut header.parser(), [rest]);
            print("one-shot", &toolcall_stream::coalesce(events));
        }
        "split" | "features" => {
            let (options, rest) = match (target.as_str(), rest.split_first()) {
                ("split", _) => (None, rest),
                (_, Some((&options, rest))) => (Some(options), rest),
                (_, None) => {
                    eprintln!("no options byte");
                    std::process::exit(2);
                }
            };
            let parser = || match options {
                Some(options) => common::features_parser(&header, options),
                None => header.parser(),
            };
            if let Some(options) = options {
                println!("options {options:#04x}");
            }
            let Some((input, chunks)) = common::chunked(rest) else {
                eprintln!("no chunk count");
                std::process::exit(2);
            };
            println!("input {:?}", String::from_utf8_lossy(input));
            let lengths: Vec<usize> = chunks.iter().map(|c| c.len()).collect();
            println!("chunk lengths {lengths:?}");
            let one_shot = common::feed_chunks(&mut parser(), [input]);
            print("one-shot", &toolcall_stream::coalesce(one_shot));
            let chunked = common::feed_chunks(&mut parser(), chunks.iter().copied());
            print("chunked", &toolcall_stream::coalesce(chunked));
        }
        other => {
            eprintln!("unknown target {other:?}: feed, split or features");
            std::process::exit(2);
        }
    }
}
