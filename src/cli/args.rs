//! A small command-line argument reader: subcommand, flags with values,
//! positionals. Hand-written because the CLI has four subcommands and a
//! handful of flags; errors say what was wrong and what was expected.

use std::fmt;

use engine::names::closest;

/// A usage error: printed with the usage text, exit code 2 or 3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: String,
    pub hint: Option<String>,
}

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        UsageError {
            message: message.into(),
            hint: None,
        }
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

/// The arguments of one subcommand, split into flags and positionals.
#[derive(Debug, Default)]
pub struct Args {
    flags: Vec<(String, Option<String>)>,
    pub positionals: Vec<String>,
}

/// What a subcommand accepts: flags that take a value and flags that don't.
pub struct Spec<'a> {
    pub valued: &'a [&'a str],
    pub switches: &'a [&'a str],
}

impl Args {
    /// Splits `raw` by `spec`. `--flag value` and `--flag=value` both work;
    /// `--` ends the flags (so a formula may start with `-`).
    pub fn parse(raw: &[String], spec: &Spec<'_>) -> Result<Args, UsageError> {
        let mut args = Args::default();
        let mut it = raw.iter();
        let mut only_positionals = false;
        while let Some(a) = it.next() {
            if only_positionals || !a.starts_with("--") || a == "-" {
                args.positionals.push(a.clone());
                continue;
            }
            if a == "--" {
                only_positionals = true;
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (a.as_str(), None),
            };
            if spec.valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| UsageError::new(format!("{name} needs a value")))?,
                };
                args.flags.push((name.to_string(), Some(value)));
            } else if spec.switches.contains(&name) {
                if inline.is_some() {
                    return Err(UsageError::new(format!("{name} takes no value")));
                }
                args.flags.push((name.to_string(), None));
            } else {
                let known: Vec<&str> = spec.valued.iter().chain(spec.switches).copied().collect();
                let mut e = UsageError::new(format!("unknown option {name}"));
                e = e.hint(match closest(name, known.iter().copied()) {
                    Some(c) => format!("did you mean {c}? (options: {})", known.join(", ")),
                    None if known.is_empty() => "this command takes no options".to_string(),
                    None => format!("options: {}", known.join(", ")),
                });
                return Err(e);
            }
        }
        Ok(args)
    }

    /// The last value given for `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Whether the switch `name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| n == name)
    }

    /// The value of `name` parsed as a number, with an error naming the flag.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, UsageError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| UsageError::new(format!("{name} expects a number, got {v:?}"))),
        }
    }

    /// The value of `name`, which must be one of `choices`.
    pub fn choice<'c>(
        &self,
        name: &str,
        choices: &[&'c str],
    ) -> Result<Option<&'c str>, UsageError> {
        match self.value(name) {
            None => Ok(None),
            Some(v) => choices
                .iter()
                .find(|c| **c == v)
                .copied()
                .map(Some)
                .ok_or_else(|| {
                    UsageError::new(format!(
                        "{name} {v:?} is not one of: {}",
                        choices.join(", ")
                    ))
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }
    const SPEC: Spec<'static> = Spec {
        valued: &["--format", "--max-states"],
        switches: &["--negate"],
    };

    #[test]
    fn flags_and_positionals() {
        let a = Args::parse(
            &s(&["--format=dot", "G p", "--negate", "--max-states", "10"]),
            &SPEC,
        )
        .unwrap();
        assert_eq!(a.value("--format"), Some("dot"));
        assert!(a.switch("--negate"));
        assert_eq!(a.number::<u64>("--max-states").unwrap(), Some(10));
        assert_eq!(a.positionals, s(&["G p"]));
    }

    #[test]
    fn double_dash_ends_flags() {
        let a = Args::parse(&s(&["--", "--negate"]), &SPEC).unwrap();
        assert!(!a.switch("--negate"));
        assert_eq!(a.positionals, s(&["--negate"]));
    }

    #[test]
    fn unknown_flag_suggests() {
        let e = Args::parse(&s(&["--formt", "dot"]), &SPEC).unwrap_err();
        assert!(e.to_string().contains("did you mean --format"), "{e}");
    }

    #[test]
    fn bad_values_are_errors() {
        assert!(Args::parse(&s(&["--format"]), &SPEC).is_err());
        let a = Args::parse(&s(&["--max-states", "ten", "--format", "svg"]), &SPEC).unwrap();
        assert!(a.number::<u64>("--max-states").is_err());
        assert!(a.choice("--format", &["hoa", "dot"]).is_err());
    }
}
