//! Option values that the library parses: `--runtime` ([`prust::Runtime`]),
//! `--semantics` ([`engine::Semantics`]) and `--fairness`
//! ([`engine::Fairness`]). The command line accepts
//! exactly what their `FromStr` accepts (the rule the `.owl` suites and
//! `PRUST_SEMANTICS` follow too), while `--help` lists the canonical names
//! with their descriptions and a typo gets clap's own error with its "a
//! similar value exists" tip.

use std::ffi::OsStr;
use std::marker::PhantomData;
use std::str::FromStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use engine::{Fairness, Semantics};
use prust::Runtime;

/// A clap value parser built on `T`'s [`FromStr`], which lists `values`
/// (the canonical names) as the possible ones.
#[derive(Clone)]
pub struct Named<T> {
    values: Vec<PossibleValue>,
    parsed: PhantomData<fn() -> T>,
}

impl<T> Named<T> {
    /// A parser listing these (name, description) pairs; the descriptions
    /// are sentences in `--help`, so they start with a capital.
    fn new(values: impl IntoIterator<Item = (&'static str, &'static str)>) -> Self {
        Named {
            values: values
                .into_iter()
                .map(|(name, help)| PossibleValue::new(name).help(capitalised(help)))
                .collect(),
            parsed: PhantomData,
        }
    }
}

/// `--runtime`: strict, liberal, on-the-fly.
pub fn runtime() -> Named<Runtime> {
    Named::new(Runtime::ALL.map(|r| (r.name(), r.describe())))
}

/// `prust lint --runtime`: strict, on-the-fly (lint reads a global LTS;
/// `liberal` still parses, for lint's own error that says where the
/// liberal object is compared).
pub fn lint_runtime() -> Named<Runtime> {
    Named::new([Runtime::Strict, Runtime::OnTheFly].map(|r| (r.name(), r.describe())))
}

/// `--semantics`: stutter, omega.
pub fn semantics() -> Named<Semantics> {
    Named::new(Semantics::ALL.map(|s| (s.name(), s.describe())))
}

/// `--fairness`: `none` or `weak`, each described.
pub fn fairness() -> Named<Fairness> {
    Named::new(Fairness::ALL.map(|f| (f.name(), f.describe())))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

impl<T> TypedValueParser for Named<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        if let Some(parsed) = value.to_str().and_then(|s| s.parse().ok()) {
            return Ok(parsed);
        }
        // Not a name the library reads: clap's error for a value outside
        // the possible ones (with the closest one as a tip).
        PossibleValuesParser::new(self.values.clone()).parse_ref(cmd, arg, value)?;
        // A listed name that FromStr refuses would be a bug of the lists
        // (a test pins them); still an error, never a panic.
        Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidValue,
            format!(
                "`{}` is listed but not understood\n",
                value.to_string_lossy()
            ),
        )
        .with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values.iter().cloned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_is_one_the_library_parses() {
        for r in Runtime::ALL {
            let listed: Vec<_> = runtime().possible_values().unwrap().collect();
            assert!(listed.iter().any(|v| v.get_name() == r.name()));
            assert_eq!(r.name().parse::<Runtime>(), Ok(r));
        }
        let listed: Vec<String> = semantics()
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(listed, ["stutter", "omega"]);
        assert_eq!(capitalised("only infinite runs"), "Only infinite runs");
    }

    /// `--runtime NAME` and `--semantics NAME` on the command line, and the
    /// `runtime NAME` and `semantics NAME` lines of a suite, accept the same
    /// names, and read each as the same value.
    #[test]
    fn the_command_line_and_the_suites_read_the_same_names() {
        use crate::cli::{Args, Command};
        use clap::Parser;

        let check = |option: &str, name: &str| {
            let cli = Args::try_parse_from(["prust", "check", "chess", "G true", option, name]);
            match cli.map(|c| c.command) {
                Ok(Some(Command::Check(a))) => Some((a.runtime, a.semantics)),
                Ok(other) => panic!("{other:?}"),
                Err(_) => None,
            }
        };
        let suite = |line: &str| {
            let text = format!("protocol chess\n{line}\ntest t holds\n \"True\"\n");
            prust::suite::parse(&text).ok()
        };
        let mut names: Vec<String> = Runtime::ALL.iter().map(|r| r.to_string()).collect();
        names.extend(Semantics::ALL.iter().map(|s| s.to_string()));
        names.extend(names.clone().iter().map(|n| n.to_uppercase()));
        names.extend(
            [
                "on_the_fly",
                "spin",
                "prut4j",
                "infinite",
                "lax",
                "stuter",
                "omega2",
                "strict,",
            ]
            .map(String::from),
        );
        for name in &names {
            let cli = check("--runtime", name).map(|(r, _)| vec![r]);
            let file = suite(&format!("runtime {name}")).map(|s| s.runtimes);
            assert_eq!(cli, file, "runtime {name}");
            let cli = check("--semantics", name).map(|(_, s)| vec![s.unwrap()]);
            let file = suite(&format!("semantics {name}")).map(|s| s.semantics);
            assert_eq!(cli, file, "semantics {name}");
        }
        // Each value is read by at least one of the names.
        for r in Runtime::ALL {
            assert_eq!(check("--runtime", r.name()).map(|(r, _)| r), Some(r));
        }
    }
}
