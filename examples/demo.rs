//! `cargo run --example demo`: the same as `gatehouse demo`, until the CLI
//! wires it.

fn main() -> anyhow::Result<()> {
    gatehouse::demo::run()
}
