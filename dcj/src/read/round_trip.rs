//! Printing a form and reading it back gives the same form, for random
//! forms of every kind (a unit test: forms are the reader's insides).

use super::{read, Form, FormKind};
use crate::Span;
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = FormKind> {
    prop_oneof![
        Just(FormKind::Nil),
        any::<bool>().prop_map(FormKind::Bool),
        any::<i64>().prop_map(FormKind::Int),
        (-1.0e12f64..1.0e12).prop_map(FormKind::Float),
        "[ -~\\n\\té]{0,8}".prop_map(FormKind::Str),
        "[a-zA-Z*+!_?<>=][a-zA-Z0-9*+!_?<>=.-]{0,6}(/[a-z-]{1,5})?"
            .prop_filter("reserved", |s| !["nil", "true", "false"]
                .contains(&s.as_str()))
            // `+0` reads as a number, as in Clojure
            .prop_filter("number", |s| !s.starts_with(['+', '-'])
                || !s[1..].starts_with(|c: char| c.is_ascii_digit()))
            .prop_map(FormKind::Symbol),
        (any::<bool>(), "[a-z][a-z0-9-]{0,6}")
            .prop_map(|(auto, name)| FormKind::Keyword { auto, name }),
        proptest::char::range('!', '~').prop_map(FormKind::Char),
    ]
}

fn form() -> impl Strategy<Value = Form> {
    let f = |kind| Form {
        kind,
        span: Span::default(),
    };
    leaf().prop_map(f).prop_recursive(4, 40, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(move |v| f(FormKind::List(v))),
            proptest::collection::vec(inner.clone(), 0..5)
                .prop_map(move |v| f(FormKind::Vector(v))),
            proptest::collection::vec(inner.clone(), 0..5).prop_map(move |v| f(FormKind::Set(v))),
            proptest::collection::vec(inner, 0..3).prop_map(move |v| f(FormKind::Map(
                v.iter().flat_map(|x| [x.clone(), x.clone()]).collect()
            ))),
        ]
    })
}

proptest! {
    #[test]
    fn printed_forms_read_back_equal(forms in proptest::collection::vec(form(), 1..4)) {
        let text: Vec<String> = forms.iter().map(Form::to_string).collect();
        let text = text.join("\n");
        let back = read(&text).map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(back.forms, forms);
        prop_assert!(back.warnings.is_empty());
    }
}
