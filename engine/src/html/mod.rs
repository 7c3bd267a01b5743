//! Results as self-contained HTML pages: one file a result, no network,
//! no external script or font (the SVG, the style sheet and a small
//! script are inline), readable on screen and printed.
//!
//! A page is plain data ([`Page`]: a verdict, then [`Chart`]s of runs with
//! per-step cells) written by [`render`]. The engine fills one from a
//! check's report ([`Report::write_html`](crate::Report::write_html));
//! other front ends (an exploration's failures, lint's witnesses) fill
//! their own and call the same writer, so every run is drawn alike.
//!
//! ```
//! use engine::html::{render, Chart, Page, Step, StepKind, Tone};
//! let mut chart = Chart {
//!     title: "a run".into(),
//!     roles: vec!["client".into(), "server".into()],
//!     ..Chart::default()
//! };
//! chart.steps.push(Step {
//!     role: 0,
//!     kind: StepKind::Send { to: 1, message: "Hello".into() },
//!     text: "client SEND <Hello> TO server".into(),
//!     cells: vec![],
//! });
//! chart.add_in_transit_column();
//! let page = Page { title: "demo".into(), verdict: "ok".into(), tone: Tone::Good,
//!                   charts: vec![chart], ..Page::default() };
//! let html = render(&page);
//! assert!(html.contains("client→server: &lt;Hello&gt;"));
//! ```

mod assets;
mod page;
mod render;
mod report;
mod truth;

pub use page::{Cell, Chart, Column, EndMark, Page, Section, Step, StepKind, Tone};
pub use render::render;
