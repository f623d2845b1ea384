//! Writes the inputs `scripts/against_baseline.py` measures, made by the
//! bench's own transcript generator, into a folder:
//!
//! ```text
//! cargo run --release --example bench_inputs -- DIR
//! ```
//!
//! `prose-10MB.txt` (content only), `tool_dense-10MB.txt` (Qwen3-Coder),
//! `tool_dense_glm-0.8MB.txt` (GLM-4.5) and `tools.json` (the request's
//! tools for their calls). The files, not the generator, are what a
//! baseline build reads, so both builds read the same bytes.

use std::path::PathBuf;
use std::process::ExitCode;

#[path = "../benches/support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

const MB: usize = 1_000_000;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: bench_inputs DIR");
        return ExitCode::from(2);
    };
    let files = [
        ("prose-10MB.txt", transcript::content_only(10 * MB).text),
        ("tool_dense-10MB.txt", transcript::mixed(10 * MB).text),
        (
            "tool_dense_glm-0.8MB.txt",
            transcript::mixed_glm(8 * MB / 10).text,
        ),
        ("tools.json", transcript::TOOLS.to_owned()),
    ];
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("bench_inputs: cannot create {}: {e}", dir.display());
        return ExitCode::from(1);
    }
    for (name, text) in files {
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("bench_inputs: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
