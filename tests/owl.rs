//! Runs every entry of every `.owl` suite under `tests/owl/` as its own test
//! (`cargo test --test owl -- topologies`, `cargo test --test owl -- --list`).
fn main() {
    prust::suite::main("tests/owl");
}
