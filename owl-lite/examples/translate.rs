//! Prints a formula as parsed, simplified and translated (HOA):
//! `cargo run -p owl-lite --example translate -- [--negate] [--raw] FORMULA`.

use owl_lite::{parse, translate, TranslateOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let negate = args.iter().any(|a| a == "--negate");
    let raw = args.iter().any(|a| a == "--raw");
    let Some(text) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: translate [--negate] [--raw] FORMULA");
        std::process::exit(2);
    };
    let f = match parse(text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let f = if negate { f.negate() } else { f };
    println!("formula:    {f}");
    println!("simplified: {}", f.simplify());
    let opts = TranslateOptions::default().reduce(!raw).simplify(!raw);
    match translate(&f, &opts) {
        Ok(a) => print!("{}", a.to_hoa()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
