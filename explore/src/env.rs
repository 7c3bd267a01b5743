//! Reading the `PRUST_*` variables that [`Explorer::new`](super::Explorer::new) takes its
//! defaults from: each one that does not parse is an [`ExploreError::Env`].

use std::time::Duration;

use super::error::ExploreError;

/// An [`ExploreError::Env`] for `variable=value`.
pub(crate) fn env_error(variable: &str, value: &str, message: &str) -> ExploreError {
    ExploreError::Env {
        variable: variable.into(),
        value: value.into(),
        message: message.into(),
    }
}

/// The value of `name`, if set (not Unicode: an error, not "unset").
pub(crate) fn env_var(name: &str) -> Result<Option<String>, ExploreError> {
    match std::env::var(name) {
        Ok(v) => Ok(Some(v)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => {
            Err(env_error(name, &v.to_string_lossy(), "not valid Unicode"))
        }
    }
}

/// A whole number (`_` separators allowed), if `name` is set.
pub(crate) fn env_count(name: &str) -> Result<Option<usize>, ExploreError> {
    let Some(v) = env_var(name)? else {
        return Ok(None);
    };
    let digits: String = v.trim().chars().filter(|&c| c != '_').collect();
    digits
        .parse()
        .map(Some)
        .map_err(|_| env_error(name, &v, "expected a whole number such as 1000"))
}

/// Seconds, `inf` or above 10⁹ for none.
pub(crate) fn env_seconds(name: &str) -> Result<Option<Option<Duration>>, ExploreError> {
    let Some(v) = env_var(name)? else {
        return Ok(None);
    };
    let secs: f64 = v
        .trim()
        .parse()
        .map_err(|_| env_error(name, &v, "expected a number of seconds such as 30 or 0.5"))?;
    if secs.is_nan() || secs < 0.0 {
        return Err(env_error(
            name,
            &v,
            "expected a non-negative number of seconds",
        ));
    }
    Ok(Some(if secs > 1e9 {
        None
    } else {
        Some(Duration::from_secs_f64(secs))
    }))
}
