//! Prints each format of `Format::ALL` with the header byte that picks it
//! (its index), one `BYTE NAME` per line, for `seed.sh`:
//! `cargo run --manifest-path fuzz/Cargo.toml --example formats`.

use toolcall_stream::Format;

fn main() {
    for (index, format) in Format::ALL.iter().enumerate() {
        println!("{index} {}", format.name());
    }
}
