//! The writer: a [`Page`] as one HTML file with inline CSS, SVG and a
//! small script, nothing fetched. Every row of a chart has one height in
//! the SVG and in the table beside it, so that the two line up; lanes have
//! one width, wide enough for the longest role name shown, so that roles
//! never overlap; each row carries one label, cut to its lane, so that
//! labels never overlap either. Deterministic: the same page gives the
//! same bytes.

use std::fmt::Write as _;

use super::page::{pair, Chart, Page, StepKind, Tone};

/// Height of a step's row, in CSS pixels (the SVG and the table's rows).
const ROW: usize = 24;
/// Height of the heading row (role names, column names).
const HEAD: usize = 44;
/// Width of the gutter left of the first lane: the cycle bracket and the
/// step numbers.
const GUTTER: usize = 72;
/// Width of a character of the monospace labels (11 px), rounded up.
const CHAR: f64 = 6.8;
/// Lanes are at least this wide, and at most [`MAX_LANE`].
const MIN_LANE: usize = 120;
const MAX_LANE: usize = 240;

/// `s` with `& < > " '` escaped: safe in text and in quoted attributes.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to at most `max` characters (with `…`).
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

fn tone_class(t: Tone) -> &'static str {
    match t {
        Tone::Good => "good",
        Tone::Bad => "bad",
        Tone::Neutral => "neutral",
    }
}

/// The page as one self-contained HTML document.
pub fn render(page: &Page) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(h, "<title>{}</title>", esc(&page.title));
    let _ = writeln!(h, "<style>{}</style>\n</head>\n<body>", super::assets::CSS);
    let _ = writeln!(h, "<header>\n<h1>{}</h1>", esc(&page.title));
    let _ = writeln!(
        h,
        "<p class=\"verdict {}\" id=\"verdict\">{}</p>",
        tone_class(page.tone),
        esc(&page.verdict)
    );
    if let Some(f) = &page.formula {
        let _ = writeln!(
            h,
            "<p class=\"formula\">formula: <code>{}</code></p>",
            esc(f)
        );
    }
    if !page.notes.is_empty() {
        h.push_str("<ul class=\"notes\">\n");
        for n in &page.notes {
            let _ = writeln!(h, "<li>{}</li>", esc(n));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</header>\n");
    for (k, chart) in page.charts.iter().enumerate() {
        chart_html(&mut h, chart, k);
    }
    h.push_str("<pre id=\"selftest\" hidden></pre>\n");
    let _ = writeln!(
        h,
        "<script>{}</script>\n</body>\n</html>",
        super::assets::JS
    );
    h
}

/// The lane width for `roles`: the longest name fits (up to the maximum).
fn lane_width(roles: &[String]) -> usize {
    let longest = roles.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    ((longest as f64 * CHAR) as usize + 24).clamp(MIN_LANE, MAX_LANE)
}

fn chart_html(h: &mut String, c: &Chart, k: usize) {
    let n = c.steps.len();
    let lane = lane_width(&c.roles);
    let fit = |width: usize| ((width as f64 - 10.0) / CHAR) as usize;
    let x = |r: usize| GUTTER + lane * r + lane / 2;
    let width = GUTTER + lane * c.roles.len().max(1) + 8;
    // Rows: the steps, then the back edge of a cycle or the ending (two
    // rows: the marks, then the words).
    let tail = if c.cycle_start.is_some() || c.ending.is_some() {
        2
    } else {
        0
    };
    let height = (n + tail) * ROW + 4;
    let _ = writeln!(
        h,
        "<section class=\"chart\" id=\"chart{k}\" data-steps=\"{n}\" data-roles=\"{}\" \
         data-cycle=\"{}\">",
        c.roles.len(),
        c.cycle_start.map_or(String::new(), |p| format!("{p}-{n}"))
    );
    let _ = writeln!(h, "<h2>{}</h2>", esc(&c.title));
    for note in &c.notes {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", esc(note));
    }
    if !c.legend.is_empty() {
        h.push_str("<dl class=\"legend\">\n");
        for (abbr, text) in &c.legend {
            let _ = writeln!(
                h,
                "<dt>{}</dt><dd><code>{}</code></dd>",
                esc(abbr),
                esc(text)
            );
        }
        h.push_str("</dl>\n");
    }
    if n == 0 && c.ending.is_none() {
        h.push_str("<p class=\"note\">(no step)</p>\n");
    }
    h.push_str("<div class=\"trace\">\n<div class=\"lanes\">\n");

    // The heading: one box per role, sticky above the rows.
    let _ = writeln!(
        h,
        "<svg class=\"head\" width=\"{width}\" height=\"{HEAD}\" \
         viewBox=\"0 0 {width} {HEAD}\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    let _ = writeln!(
        h,
        "<text class=\"num\" x=\"{}\" y=\"{}\">step</text>",
        GUTTER - 8,
        HEAD / 2 + 4
    );
    for (r, name) in c.roles.iter().enumerate() {
        let shown = cut(name, fit(lane - 8));
        let w = (shown.chars().count() as f64 * CHAR) as usize + 12;
        let _ = writeln!(
            h,
            "<g class=\"role\" data-lane=\"{r}\"><title>{}</title>\
             <rect x=\"{}\" y=\"8\" width=\"{w}\" height=\"{}\" rx=\"4\"/>\
             <text x=\"{}\" y=\"{}\">{}</text></g>",
            esc(name),
            x(r) - w / 2,
            HEAD - 16,
            x(r),
            HEAD / 2 + 4,
            esc(&shown)
        );
    }
    h.push_str("</svg>\n");

    // The rows.
    let _ = writeln!(
        h,
        "<svg class=\"body\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    let _ = writeln!(
        h,
        "<defs><marker id=\"arr{k}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>"
    );
    for i in 0..n {
        let _ = writeln!(
            h,
            "<rect class=\"band{}\" x=\"0\" y=\"{}\" width=\"{width}\" height=\"{ROW}\"/>",
            if i % 2 == 1 { " odd" } else { "" },
            i * ROW
        );
    }
    // Lifelines, and a starved role's stretch over the cycle.
    let life_end = n * ROW + if tail > 0 { ROW } else { 0 };
    for r in 0..c.roles.len() {
        let _ = writeln!(
            h,
            "<line class=\"lifeline\" data-lane=\"{r}\" x1=\"{0}\" y1=\"0\" x2=\"{0}\" y2=\"{life_end}\"/>",
            x(r)
        );
    }
    if let Some(p) = c.cycle_start {
        for &r in &c.starved {
            if r < c.roles.len() {
                let _ = writeln!(
                    h,
                    "<line class=\"starved\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\">\
                     <title>{3} is starved: enabled at every step of the cycle, never moves</title></line>",
                    x(r),
                    p * ROW,
                    n * ROW,
                    esc(&c.roles[r])
                );
            }
        }
    }
    // Arrows: each send to the receive that takes its message.
    let pairing = pair(&c.steps);
    let cy = |i: usize| i * ROW + ROW / 2;
    for (i, st) in c.steps.iter().enumerate() {
        match &st.kind {
            StepKind::Send { to, .. } => {
                let (y2, class) = match pairing.recv_of[i] {
                    Some(j) => (cy(j), "msg"),
                    // Received in a later turn of the cycle, or never.
                    None => (cy(i) + ROW * 3 / 4, "msg open"),
                };
                let _ = writeln!(
                    h,
                    "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{y2}\" \
                     marker-end=\"url(#arr{k})\"/>",
                    x(st.role),
                    cy(i),
                    x(*to)
                );
            }
            StepKind::Recv { from, .. } if pairing.send_of[i].is_none() => {
                // Sent in an earlier turn of the cycle.
                let _ = writeln!(
                    h,
                    "<line class=\"msg open\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" \
                     marker-end=\"url(#arr{k})\"/>",
                    x(*from),
                    cy(i) - ROW * 3 / 4,
                    x(st.role),
                    cy(i)
                );
            }
            _ => {}
        }
    }
    // One group a step: its number, its mark and its one label.
    for (i, st) in c.steps.iter().enumerate() {
        let _ = write!(
            h,
            "<g class=\"step\" data-i=\"{i}\"><title>{}. {}</title>",
            i + 1,
            esc(&st.text)
        );
        let _ = write!(
            h,
            "<text class=\"num\" x=\"{}\" y=\"{}\">{}</text>",
            GUTTER - 8,
            cy(i) + 4,
            i + 1
        );
        let xr = x(st.role);
        let (label, toward) = match &st.kind {
            StepKind::Send { to, message } => (format!("<{message}>"), Some(*to)),
            StepKind::Recv { from, message } => (format!("<{message}>"), Some(*from)),
            StepKind::Close { to } => ("close".to_string(), Some(*to)),
            StepKind::Local { label } => (label.clone(), None),
        };
        let _ = write!(
            h,
            "<circle class=\"dot\" cx=\"{xr}\" cy=\"{}\" r=\"3\"/>",
            cy(i)
        );
        if let StepKind::Close { .. } | StepKind::Local { .. } = st.kind {
            let _ = write!(
                h,
                "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\"/>",
                if matches!(st.kind, StepKind::Close { .. }) {
                    "close"
                } else {
                    "local"
                },
                xr - 6,
                cy(i) - 6
            );
        }
        // The label sits beside the acting lifeline, on the side of the
        // peer (right of the last lane goes left), within one lane.
        let last = st.role + 1 == c.roles.len();
        let left = match (toward, &st.kind) {
            // A receive's label keeps clear of the arrow coming in: on the
            // far side from the sender, where there is a lane's room.
            (Some(p), StepKind::Recv { .. }) if p < st.role && !last => false,
            (Some(p), StepKind::Recv { .. }) if p > st.role && st.role > 0 => true,
            (Some(p), _) => p < st.role,
            (None, _) => last && st.role > 0,
        };
        let shown = cut(&label, fit(lane - 12));
        let (lx, anchor) = if left {
            (xr - 9, "end")
        } else {
            (xr + 9, "start")
        };
        let _ = writeln!(
            h,
            "<text class=\"lbl\" x=\"{lx}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text></g>",
            cy(i) - 3,
            esc(&shown)
        );
    }
    // The cycle's bracket, its back edge, or the ending.
    if let Some(p) = c.cycle_start.filter(|&p| p < n) {
        let (top, bottom) = (p * ROW + 1, n * ROW - 1);
        let _ = writeln!(
            h,
            "<g class=\"cycle\" data-from=\"{p}\" data-to=\"{n}\"><title>steps {}–{n} repeat \
             forever</title><path d=\"M16,{top} H8 V{bottom} H16\"/>\
             <text class=\"cyclbl\" transform=\"translate(22,{}) rotate(-90)\">cycle</text></g>",
            p + 1,
            (top + bottom) / 2 + 14
        );
        let _ = writeln!(
            h,
            "<path class=\"back\" d=\"M{0},{1} H8 V{2}\" marker-end=\"url(#arr{k})\"/>\
             <text class=\"end neutral\" x=\"{0}\" y=\"{3}\">↺ back to step {4}, forever</text>",
            GUTTER,
            n * ROW + ROW / 2,
            top + 2,
            (n + 1) * ROW + ROW / 2 + 4,
            p + 1
        );
    } else if let Some(e) = &c.ending {
        let y = n * ROW + ROW / 2;
        let _ = write!(h, "<g class=\"ending {}\">", tone_class(e.tone));
        for &r in &e.roles {
            if r < c.roles.len() {
                let _ = write!(
                    h,
                    "<path class=\"mark\" d=\"M{0},{1} l10,10 m0,-10 l-10,10\"/>",
                    x(r) - 5,
                    y - 5
                );
            }
        }
        if e.roles.is_empty() {
            let _ = write!(
                h,
                "<line class=\"bar\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                x(0).saturating_sub(lane / 4),
                x(c.roles.len().max(1) - 1) + lane / 4
            );
        }
        let _ = writeln!(
            h,
            "<text class=\"end\" x=\"{GUTTER}\" y=\"{}\">{}</text></g>",
            (n + 1) * ROW + ROW / 2 + 4,
            esc(&e.label)
        );
    }
    h.push_str("</svg>\n</div>\n");

    // The per-step columns.
    h.push_str("<table class=\"cols\">\n<thead><tr><th title=\"the step\">step</th>");
    for col in &c.columns {
        let _ = write!(
            h,
            "<th title=\"{}\">{}</th>",
            esc(&col.about),
            esc(&col.name)
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (i, st) in c.steps.iter().enumerate() {
        let _ = write!(
            h,
            "<tr data-i=\"{i}\"><td class=\"what\" title=\"{0}\">{1}. {0}</td>",
            esc(&st.text),
            i + 1
        );
        for cell in &st.cells {
            let class = cell.tone.map_or("", tone_class);
            let hover = cell.hover.as_deref().unwrap_or(&cell.text);
            let _ = write!(
                h,
                "<td class=\"{class}\" title=\"{}\">{}</td>",
                esc(hover),
                esc(&cell.text)
            );
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n</div>\n");
    for s in &c.sections {
        let _ = writeln!(h, "<h3>{}</h3>\n<pre class=\"section\">", esc(&s.title));
        for line in &s.lines {
            let _ = writeln!(h, "{}", esc(line));
        }
        h.push_str("</pre>\n");
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_everywhere() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(esc("\u{1b}[31m"), "&#x1b;[31m");
    }

    #[test]
    fn long_names_are_cut_with_an_ellipsis() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }
}
