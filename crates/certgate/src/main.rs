//! The `certgate` binary: wires subcommands to the domain crates, nothing more.
#![forbid(unsafe_code)]

fn main() {
    println!("certgate");
}
