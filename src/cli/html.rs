//! `--html FILE` of `check`, `replay` and `lint`: one self-contained page
//! per result ([`engine::html`]), written after the result is printed.

use std::path::Path;

use engine::html::{self, Chart, EndMark, Page, Section, Step, StepKind, Tone};
use engine::Trail;
use protocols::lint::{Finding, Inconclusive};
use protocols::Object;

use super::out;
use super::Failure;

/// Writes `page` to `path` and says where on stderr.
pub fn write(path: &Path, page: &str) -> Result<(), Failure> {
    std::fs::write(path, page)
        .map_err(|e| Failure::error(format!("cannot write {}: {e}", path.display())))?;
    out::diagnostic(&format!("HTML report written to {}", path.display()));
    Ok(())
}

/// The page of `prust replay`: whether the trail replays, its chart, and
/// the object's state after each step as the replay saw it.
pub fn replay_page(
    protocol: &str,
    trail: &Trail,
    object: &Object,
    replayed: &Result<String, engine::ReplayError>,
) -> String {
    let (verdict, tone) = match replayed {
        Ok(_) => (
            "the trail replays: the object still follows it".to_string(),
            Tone::Bad,
        ),
        Err(e) => (
            format!(
                "the trail no longer replays: {}",
                e.message.lines().next().unwrap_or_default()
            ),
            Tone::Neutral,
        ),
    };
    let dummies = engine::declared_dummies(object);
    let charts = match trail.to_counterexample(object, dummies) {
        Ok(c) => {
            let mut chart = c.html_chart(trail.formula.as_deref(), false, "the trail");
            chart.add_column(
                "object state",
                "the object's state (Debug) after the step, as the replay saw it",
                c.object_states(object.clone()),
            );
            vec![chart]
        }
        Err(_) => Vec::new(),
    };
    let mut notes = vec![format!("protocol: {protocol}")];
    if charts.is_empty() {
        notes.push("the trail names a role or type the object does not have: no chart".into());
    }
    html::render(&Page {
        title: "prust replay".into(),
        verdict,
        tone,
        formula: trail.formula.clone(),
        notes,
        charts,
    })
}

/// The page of `prust lint`: each finding's witness as a chart.
pub fn lint_page(
    protocol: &str,
    findings: &[Finding],
    inconclusive: &[Inconclusive],
    checks: &[&str],
) -> String {
    let verdict = format!(
        "{} finding{} ({} check{}: {})",
        findings.len(),
        if findings.len() == 1 { "" } else { "s" },
        checks.len(),
        if checks.len() == 1 { "" } else { "s" },
        checks.join(", ")
    );
    let tone = if !findings.is_empty() {
        Tone::Bad
    } else if inconclusive.is_empty() {
        Tone::Good
    } else {
        Tone::Neutral
    };
    let mut notes = vec![format!("protocol: {protocol}")];
    notes.extend(inconclusive.iter().map(|i| {
        format!(
            "inconclusive: {}: {}",
            i.check.name(),
            i.reason.for_audience(engine::hint::Audience::CommandLine)
        )
    }));
    notes.extend(super::lint::omitted_lines(findings));
    html::render(&Page {
        title: format!("prust lint {protocol}"),
        verdict,
        tone,
        formula: None,
        notes,
        charts: findings
            .iter()
            .filter(|f| !f.witness_omitted)
            .map(witness_chart)
            .collect(),
    })
}

/// A finding's witness: its steps' texts (`p SEND <T> TO q`, `q RECV <T>
/// FROM p`, `p CLOSE TO q`) read back into roles and actions, lanes in
/// the LTS's role order.
fn witness_chart(f: &Finding) -> Chart {
    let mut named: Vec<(usize, String)> = Vec::new();
    let mut parsed = Vec::new();
    for s in &f.witness {
        let w: Vec<&str> = s.text.split_whitespace().collect();
        let (from, to) = (s.label.from.index(), s.label.to.index());
        // The acting role is the first word; its peer the last.
        let (actor, peer) = match w.get(1).copied() {
            Some("RECV") => (to, from),
            _ => (from, to),
        };
        for (id, name) in [(actor, w.first()), (peer, w.last())] {
            if let Some(name) = name {
                if !named.iter().any(|(i, _)| *i == id) {
                    named.push((id, name.to_string()));
                }
            }
        }
        let ty = w
            .get(2)
            .map(|t| t.trim_start_matches('<').trim_end_matches('>').to_string())
            .unwrap_or_default();
        parsed.push((actor, peer, w.get(1).copied().unwrap_or("").to_string(), ty));
    }
    named.sort();
    let lane = |id: usize| named.iter().position(|(i, _)| *i == id).unwrap_or(0);
    let steps = f
        .witness
        .iter()
        .zip(&parsed)
        .map(|(s, (actor, peer, verb, ty))| Step {
            role: lane(*actor),
            kind: match verb.as_str() {
                "SEND" => StepKind::Send {
                    to: lane(*peer),
                    message: ty.clone(),
                },
                "RECV" => StepKind::Recv {
                    from: lane(*peer),
                    message: ty.clone(),
                },
                _ => StepKind::Close { to: lane(*peer) },
            },
            text: s.text.clone(),
            cells: Vec::new(),
        })
        .collect();
    let mut chart = Chart {
        title: match &f.channel {
            Some((p, q)) => format!("{} ({p}→{q})", f.check.name()),
            None => f.check.name().to_string(),
        },
        notes: vec![f.summary.clone()],
        roles: named.into_iter().map(|(_, n)| n).collect(),
        steps,
        cycle_start: f.cycle_start,
        ending: f.cycle_start.is_none().then(|| EndMark {
            label: f.summary.clone(),
            roles: Vec::new(),
            tone: Tone::Bad,
        }),
        ..Chart::default()
    };
    chart.add_in_transit_column();
    chart.sections.push(Section {
        title: "witness".into(),
        lines: f
            .witness
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{:>4}. {}", i + 1, s.text))
            .collect(),
    });
    chart
}
