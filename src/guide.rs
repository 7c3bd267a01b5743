//! The user guide: what prust does, and how to test a protocol with it.
//!
//! Each chapter is a page of its own, read in this order:
//!
//! 1. [Background](background): what prust does, and why
//! 2. [Writing tests](writing_tests): specification → object → check
//! 3. [Real threads on the same object](threads)
//! 4. [From `std::sync::mpsc` to `prust::channel`, side by side](from_mpsc)
//! 5. [Exploring your program's schedules](exploring)
//! 6. [Debugging failures](debugging)
//! 7. [The command line](command_line)
//! 8. [Limitations](limitations)
//!
//! The chapters are documentation only: they hold no items. Their text is
//! the Markdown files next to this one, so that it reads as prose and not
//! as comment lines; their examples run as doc tests.

/// What prust does, and why: adaptation-based model checking, strict and
/// liberal objects, finite runs.
pub mod background {
    #![doc = include_str!("guide/background.md")]
}

/// Specifications, dummies, hand-written objects, formulas and atoms,
/// `.owl` property suites.
pub mod writing_tests {
    #![doc = include_str!("guide/writing_tests.md")]
}

/// The blocking API: each thread owns one role's endpoint.
pub mod threads {
    #![doc = include_str!("guide/threads.md")]
}

/// The same program with `std::sync::mpsc` and with `prust::channel`: only
/// the lines that make the channels differ.
pub mod from_mpsc {
    #![doc = include_str!("guide/from_mpsc.md")]
}

/// `prust::explore`: every schedule of your role threads.
pub mod exploring {
    #![doc = include_str!("guide/exploring.md")]
}

/// Counterexamples, replay, trails, limits.
pub mod debugging {
    #![doc = include_str!("guide/debugging.md")]
}

/// `prust check`, `lint`, `import`, `lts`, `replay`, exit codes.
pub mod command_line {
    #![doc = include_str!("guide/command_line.md")]
}

/// What prust does not do (yet).
pub mod limitations {
    #![doc = include_str!("guide/limitations.md")]
}
