fn main() {
    eprintln!("prust: not yet");
    std::process::exit(2);
}
