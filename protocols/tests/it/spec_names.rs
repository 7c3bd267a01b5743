//! A declared role (or type) set is closed: a name the specification uses
//! but did not declare is an error with a did-you-mean, from both the
//! compiled and the on-the-fly build, so that a typo cannot create a new
//! role that nobody talks to (and a property that "holds" because of it).

use engine::NameKind;
use protocols::spec::{alt, call, close, msg, seq, Spec};
use protocols::{bundled, Error, Liberal, Strict};

/// A request and its response, declaring both roles and both types.
fn rpc(server: &str, response: &str) -> Spec {
    Spec::new(
        "rpc",
        seq([
            msg("Req", "client", "server"),
            msg(response, server, "client"),
        ]),
    )
    .roles(["client", "server"])
    .types(["Req", "Resp"])
}

/// The error of every build of `spec`: compiled, compiled and wrapped in
/// each runtime, on the fly. They must agree.
fn errors(spec: &Spec) -> Error {
    let compiled = spec.compile().unwrap_err();
    assert_eq!(Strict::from_spec(spec).unwrap_err(), compiled);
    assert_eq!(Liberal::from_spec(spec).unwrap_err(), compiled);
    assert_eq!(Strict::on_the_fly(spec).err(), Some(compiled.clone()));
    compiled
}

#[test]
fn a_misspelt_role_is_an_error_with_a_suggestion() {
    let e = errors(&rpc("sever", "Resp"));
    match &e {
        Error::Undeclared {
            spec,
            kind,
            name,
            context,
            declared,
            suggestion,
        } => {
            assert_eq!(spec, "rpc");
            assert_eq!(*kind, NameKind::Role);
            assert_eq!(name, "sever");
            assert_eq!(context, "`Resp` from `sever` to `client`");
            assert_eq!(declared, &["client", "server"]);
            assert_eq!(suggestion.as_deref(), Some("server"));
        }
        other => panic!("{other:?}"),
    }
    let text = e.to_string();
    assert!(
        text.contains("role `sever` in `Resp` from `sever` to `client` is not declared; did you mean `server`?"),
        "{text}"
    );
    assert!(
        text.contains("the declared roles are: client, server"),
        "{text}"
    );
    assert!(text.contains("add it to Spec::roles([..])"), "{text}");
    // Without the declaration the typo is a third role, as before.
    let open = Spec::new(
        "rpc",
        seq([
            msg("Req", "client", "server"),
            msg("Resp", "sever", "client"),
        ]),
    );
    let mut roles = open.compile().unwrap().roles().to_vec();
    roles.sort();
    assert_eq!(roles, ["client", "server", "sever"]);
    // The positive side: declared sets keep their order and may hold unused
    // names, and only a declared set is closed.
    let spec = rpc("server", "Resp")
        .roles(["server", "client", "auditor"])
        .types(["Resp", "Req", "Audit"]);
    let lts = spec.compile().unwrap();
    assert_eq!(lts.roles(), ["server", "client", "auditor"]);
    assert_eq!(lts.type_names(), ["Resp", "Req", "Audit"]);
    // Only one of the two may be declared: the other stays open.
    let spec = Spec::new("rpc", msg("Req", "client", "server")).types(["Req"]);
    assert_eq!(spec.compile().unwrap().roles(), ["client", "server"]);
    // Every bundled protocol declares all its names: both builds at the
    // default parameter (on the fly walks the whole text, building no state).
    for p in bundled::list() {
        let spec = bundled::spec_by_name(p.name).unwrap();
        spec.compile().unwrap_or_else(|e| panic!("{}: {e}", p.name));
        Strict::on_the_fly(&spec).unwrap_or_else(|e| panic!("{}: {e}", p.name));
    }
}

#[test]
fn a_misspelt_type_is_an_error_with_a_suggestion() {
    let e = errors(&rpc("server", "Rsep"));
    assert!(
        matches!(&e, Error::Undeclared { kind: NameKind::Type, name, suggestion, declared, .. }
            if name == "Rsep" && suggestion.as_deref() == Some("Resp") && declared == &["Req", "Resp"]),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.contains("message type `Rsep`"), "{text}");
    assert!(
        text.contains("the declared message types are: Req, Resp"),
        "{text}"
    );
    assert!(text.contains("Spec::types([..])"), "{text}");
}

#[test]
fn a_name_far_from_every_declared_one_gets_no_suggestion() {
    let e = errors(&rpc("database", "Resp"));
    assert!(
        matches!(
            &e,
            Error::Undeclared {
                suggestion: None,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn undeclared_names_in_closes_and_in_called_definitions_are_found() {
    // In a close.
    let spec = Spec::new(
        "c",
        msg("Req", "client", "server").then(close("client", "srever")),
    )
    .roles(["client", "server"]);
    let e = errors(&spec);
    assert!(
        matches!(&e, Error::Undeclared { name, context, .. }
            if name == "srever" && context == "the close from `client` to `srever`"),
        "{e:?}"
    );
    // In a definition that only a branch no run needs takes calls: every
    // call the text can reach is checked.
    let spec = Spec::new(
        "retry",
        alt([msg("Req", "client", "server"), call("again", [1])]),
    )
    .define("again", 1, |a| {
        if a[0] == 0 {
            msg("Req", "client", "server")
        } else {
            msg("Req", "client", "servr").then(call("again", [a[0] - 1]))
        }
    })
    .roles(["client", "server"]);
    assert!(
        matches!(&errors(&spec), Error::Undeclared { name, .. } if name == "servr"),
        "{:?}",
        errors(&spec)
    );
}

#[test]
fn declaring_a_name_twice_is_an_error() {
    let spec = rpc("server", "Resp").roles(["client", "server", "client"]);
    let e = errors(&spec);
    assert!(
        matches!(&e, Error::Undeclared { kind: NameKind::Role, name, .. } if name == "client"),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("role `client` is declared twice"),
        "{e}"
    );
    let spec = rpc("server", "Resp").types(["Req", "Resp", "Resp"]);
    assert!(e.to_string().contains("declared twice"), "{e}");
    assert!(matches!(
        errors(&spec),
        Error::Undeclared {
            kind: NameKind::Type,
            ..
        }
    ));
}

/// Without a declaration, roles and types are numbered in order of first
/// use (as `Spec::roles` says), in every build: `let [a, b] =
/// Session::new(..).into_endpoints().try_into()` must not swap them.
#[test]
fn undeclared_roles_and_types_are_numbered_in_order_of_first_use() {
    let token = Spec::new("token", seq([msg("Token", "a", "b"), msg("Ack", "b", "a")]));
    let nested = Spec::new(
        "nested",
        seq([
            msg("First", "x", "y"),
            seq([
                msg("Second", "y", "z"),
                alt([msg("Third", "z", "w"), close("z", "x")]),
            ]),
        ]),
    );
    for (spec, roles, types) in [
        (&token, vec!["a", "b"], vec!["Token", "Ack"]),
        (
            &nested,
            vec!["x", "y", "z", "w"],
            vec!["First", "Second", "Third"],
        ),
    ] {
        let lts = spec.compile().unwrap();
        assert_eq!(lts.roles(), roles, "{}", spec.name());
        assert_eq!(lts.type_names(), types, "{}", spec.name());
        for object in [
            engine::Protocol::roles(&Strict::from_spec(spec).unwrap()),
            engine::Protocol::roles(&Liberal::from_spec(spec).unwrap()),
            engine::Protocol::roles(&Strict::on_the_fly(spec).unwrap()),
        ] {
            assert_eq!(object, roles, "{}", spec.name());
        }
    }
    // The endpoints come in that order.
    let session = protocols::session::Session::new(Strict::from_spec(&token).unwrap());
    let [a, b]: [_; 2] = session.into_endpoints().try_into().unwrap();
    assert_eq!((a.role(), b.role()), (0, 1));
}

/// A message or close from a role to itself is an error of the
/// specification, from every build, not a protocol that deadlocks.
#[test]
fn a_role_talking_to_itself_is_an_error_of_the_specification() {
    for spec in [
        Spec::new("t", seq([msg("Token", "a", "b"), msg("Token", "b", "b")])),
        Spec::new("t", close("b", "b")),
    ] {
        let e = errors(&spec);
        assert!(
            e.to_string()
                .contains("role `b` cannot communicate with itself"),
            "{e}"
        );
    }
}
