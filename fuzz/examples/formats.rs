//! Prints each format of `Format::ALL`, then `Format::Auto`, with the
//! header byte that picks it (its index), one `BYTE NAME` per line, for
//! `seed.sh`:
//! `cargo run --manifest-path fuzz/Cargo.toml --example formats`.

#[path = "../fuzz_targets/common/mod.rs"]
mod common;

fn main() {
    for (index, format) in common::formats().enumerate() {
        println!("{index} {}", format.name());
    }
}
