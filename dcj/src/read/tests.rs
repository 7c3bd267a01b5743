//! Unit tests of the reader and the printer.

use super::*;

fn one(text: &str) -> Form {
    let r = read(text).unwrap();
    assert_eq!(r.forms.len(), 1, "{text}");
    r.forms.into_iter().next().unwrap()
}

#[test]
fn reads_every_atom() {
    assert_eq!(one("nil").kind, FormKind::Nil);
    assert_eq!(one("true").kind, FormKind::Bool(true));
    assert_eq!(one("-42").kind, FormKind::Int(-42));
    assert_eq!(one("+7").kind, FormKind::Int(7));
    assert_eq!(one("12N").kind, FormKind::Int(12));
    assert_eq!(one("1.5").kind, FormKind::Float(1.5));
    assert_eq!(one("1e3").kind, FormKind::Float(1000.0));
    assert_eq!(one(r#""a\"b\n""#).kind, FormKind::Str("a\"b\n".into()));
    assert_eq!(one(r"\a").kind, FormKind::Char('a'));
    assert_eq!(one(r"\space").kind, FormKind::Char(' '));
    assert_eq!(one(r#"#".$""#).kind, FormKind::Regex(".$".into()));
    assert_eq!(one("s/-->>").kind, FormKind::Symbol("s/-->>".into()));
    assert_eq!(one("-").kind, FormKind::Symbol("-".into()));
    assert_eq!(
        one(".replaceFirst").kind,
        FormKind::Symbol(".replaceFirst".into())
    );
    assert_eq!(one("ω").kind, FormKind::Symbol("ω".into()));
    assert_eq!(
        one("::worker").kind,
        FormKind::Keyword {
            auto: true,
            name: "worker".into()
        }
    );
    assert_eq!(
        one(":a/b").kind,
        FormKind::Keyword {
            auto: false,
            name: "a/b".into()
        }
    );
}

#[test]
fn reads_collections_and_reader_macros() {
    assert_eq!(one("(a [b] {c d} #{e})").to_string(), "(a [b] {c d} #{e})");
    assert_eq!(one("'x").to_string(), "(quote x)");
    assert_eq!(one("@x").to_string(), "(deref x)");
    assert_eq!(one("#'x").to_string(), "(var x)");
    assert_eq!(
        one("`(a ~b ~@c)").to_string(),
        "(syntax-quote (a (unquote b) (unquote-splicing c)))"
    );
    assert_eq!(one("#(inc %)").to_string(), "(fn-literal inc %)");
    assert_eq!(one("(a #_ (b c) d)").to_string(), "(a d)");
    assert_eq!(one("(a #_ #_ b c d)").to_string(), "(a d)");
    assert_eq!(one("(a ^:private b)").to_string(), "(a b)");
    assert_eq!(one("(a ^{:tag x} b)").to_string(), "(a b)");
    assert_eq!(one("(a, b ; comment )\n c)").to_string(), "(a b c)");
}

#[test]
fn spans_cover_the_form() {
    let text = "  (s/cat\n   (x 1))";
    let f = one(text);
    assert_eq!((f.span.start, f.span.end), (2, text.len()));
    let FormKind::List(items) = &f.kind else {
        panic!()
    };
    assert_eq!(&text[items[1].span.start..items[1].span.end], "(x 1)");
    let q = one(" 'x");
    assert_eq!((q.span.start, q.span.end), (1, 3));
}

#[test]
fn stray_closers_are_warnings() {
    let r = read("(a)\n)").unwrap();
    assert_eq!(r.forms.len(), 1);
    assert_eq!(r.warnings.len(), 1);
    assert_eq!(r.warnings[0].span.start, 4);
}

fn error_at(text: &str) -> (usize, usize, String) {
    let e = read(text).unwrap_err();
    (e.line, e.col, e.to_string())
}

#[test]
fn errors_name_line_column_and_hint() {
    let (l, c, m) = error_at("(a\n  (b c)");
    assert_eq!((l, c), (1, 1), "{m}");
    assert!(m.contains("add the matching `)`"), "{m}");
    let (l, c, m) = error_at("(a\n  [b c)");
    assert_eq!((l, c), (2, 7), "{m}");
    assert!(m.contains("expected `]`"), "{m}");
    let (l, c, m) = error_at("(a \"abc");
    assert_eq!((l, c), (1, 4), "{m}");
    assert!(m.contains("unterminated string"), "{m}");
    let (l, c, m) = error_at("(a\n 12x)");
    assert_eq!((l, c), (2, 2), "{m}");
    assert!(m.contains("bad number"), "{m}");
    let (l, c, m) = error_at("x\n  #!foo");
    assert_eq!((l, c), (2, 3), "{m}");
    assert!(m.contains("dispatch"), "{m}");
    let (l, c, m) = error_at("{a}");
    assert_eq!((l, c), (1, 1), "{m}");
    assert!(m.contains("odd number"), "{m}");
    let (l, c, m) = error_at("(a ')");
    assert_eq!((l, c), (1, 4), "{m}");
    assert!(m.contains("prefix"), "{m}");
    let (l, c, m) = error_at("(a \"x\\q\")");
    assert_eq!((l, c), (1, 6), "{m}");
    assert!(m.contains("escape"), "{m}");
    let (_, c, m) = error_at("(: a)");
    assert_eq!(c, 2, "{m}");
    let (_, c, m) = error_at("\\bogus");
    assert_eq!(c, 1, "{m}");
    let (l, _, m) = error_at(&"(".repeat(MAX_DEPTH + 5));
    assert_eq!(l, 1);
    assert!(m.contains("nested"), "{m}");
}
