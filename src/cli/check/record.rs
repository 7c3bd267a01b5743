//! The records of `prust check --format json`: stdout holds one per
//! formula, in order, each on one line (an error that stops the whole command, such as an
//! unknown protocol, comes before any check: no records, exit 3):
//!
//! ```text
//! {"formula":…,"protocol":…,"runtime":"strict"|"liberal"|"on-the-fly",
//!  "verdict":"holds"|"holds-probabilistic"|"violated"|"inconclusive"|"error",
//!  "semantics":"stutter"|"omega",                            (not for errors)
//!  "fairness":"none"|"weak",                                 (not for errors)
//!  "stats":{"product_states":N,"transitions":N,"protocol_states":N,
//!           "automaton_states":N,"max_depth":N,"time_s":SECONDS,
//!           "hash_compaction":BOOL,                          (not for errors)
//!           "bitstate":{"bits":N,"hash_functions":K,"hash_factor":F}},  (--bitstate)
//!  "fingerprints":N,"omission_bound":P,  (holds-probabilistic: --hash-compaction, --bitstate)
//!  "limit":{"kind":"states"|"depth"|"time"|"memory"|"bitstate","value":N},"explored":N,  (inconclusive;
//!  "phase":"build" and a "message" when a limit stopped the build of the object)
//!  "counterexample":{"steps":[{"index":1,"role":…,"action":"SEND"|"RECV"|"CLOSE",
//!      "type":…|null,"peer":…,"text":"white SEND <Move> TO black","in_cycle":false},…],
//!    "ending":{"kind":"none"|"terminated"|"deadlock"|"any_continuation",
//!              "blocked":[…roles…]},                   (violated; blocked: deadlock only)
//!    "starved":[…roles…]},                   (violated: roles the cycle starves)
//!  "message":…}                                        (error)
//! ```
//!
//! The ending is `none` for a lasso (the steps with `in_cycle` repeat
//! forever) and `any_continuation` for a bad prefix (every continuation
//! violates the property). `starved` lists the roles that the lasso's cycle
//! starves (each enabled at every step of the cycle and never moving: the
//! run is not weakly fair, so under `--fairness weak` it is not a
//! counterexample); it is empty for a fair cycle and for a finite run. A
//! time limit's value is in seconds.

use engine::{Ending, Limit, Stats, Verdict};
use prust::Runtime;

use super::Outcome;
use crate::cli::json::{self, Object};

/// The `limit` object of a JSON record: its kind and value.
fn limit_record(limit: &Limit) -> String {
    let mut l = Object::new();
    match limit {
        Limit::States(n) => l.str("kind", "states").u64("value", *n),
        Limit::Depth(n) => l.str("kind", "depth").u64("value", *n),
        Limit::Time(d) => l.str("kind", "time").f64("value", d.as_secs_f64()),
        Limit::Memory(n) => l.str("kind", "memory").u64("value", *n),
        // The value is the bits asked for; the limit they did not fit in
        // is the memory limit's.
        Limit::Bitstate { bits, max_memory } => l
            .str("kind", "bitstate")
            .u64("value", *bits)
            .u64("max_memory", *max_memory),
    };
    l.finish()
}

/// One JSON Lines record of `prust check --format json` (the schema is in
/// the module docs).
pub(super) fn record(protocol: &str, runtime: Runtime, formula: &str, outcome: &Outcome) -> String {
    let mut o = Object::new();
    o.str("formula", formula)
        .str("protocol", protocol)
        .str("runtime", runtime.name());
    let report = match outcome {
        Outcome::Checked(r) => r,
        Outcome::Error(message) => {
            return o
                .str("verdict", "error")
                .str("message", message.trim_end())
                .finish()
        }
        Outcome::Unbuilt(b) => {
            return o
                .str("verdict", "inconclusive")
                .str("phase", "build")
                .raw("limit", &limit_record(&b.limit))
                .u64("explored", b.states)
                .str("message", &b.message)
                .finish()
        }
    };
    let verdict = match &report.verdict {
        Verdict::Holds => "holds",
        Verdict::HoldsProbabilistic { .. } => "holds-probabilistic",
        Verdict::HoldsOnShare { .. } => "holds-on-share",
        Verdict::Violated(_) => "violated",
        Verdict::Inconclusive { .. } => "inconclusive",
    };
    o.str("verdict", verdict)
        .str("semantics", report.semantics.name())
        .str("fairness", report.fairness.name());
    o.raw("stats", &stats(&report.stats));
    match &report.verdict {
        Verdict::Holds => {}
        Verdict::HoldsOnShare { index, count } => {
            o.u64("share", u64::from(*index))
                .u64("shares", u64::from(*count));
        }
        Verdict::HoldsProbabilistic {
            fingerprints,
            omission_bound,
        } => {
            o.u64("fingerprints", *fingerprints)
                .f64("omission_bound", *omission_bound);
        }
        Verdict::Inconclusive { limit, explored } => {
            o.raw("limit", &limit_record(limit))
                .u64("explored", *explored);
        }
        Verdict::Violated(c) => {
            let steps = c.steps().enumerate().map(|(i, step)| {
                let mut s = Object::new();
                s.u64("index", i as u64 + 1)
                    .str("role", &step.role_name)
                    .str("action", &step.kind.to_string())
                    .opt_str("type", step.type_name.as_deref())
                    .str("peer", &step.peer_name)
                    .str("text", &step.to_string())
                    .bool("in_cycle", i >= c.prefix.len());
                s.finish()
            });
            let steps = json::array(steps);
            let mut ending = Object::new();
            match &c.ending {
                None => ending.str("kind", "none"),
                Some(Ending::Terminated) => ending.str("kind", "terminated"),
                Some(Ending::Deadlock { waiting }) => ending
                    .str("kind", "deadlock")
                    .strs("blocked", waiting.iter().map(String::as_str)),
                Some(Ending::AnyContinuation) => ending.str("kind", "any_continuation"),
            };
            let mut cex = Object::new();
            cex.raw("steps", &steps)
                .raw("ending", &ending.finish())
                .strs("starved", c.starved.iter().map(String::as_str));
            o.raw("counterexample", &cex.finish());
        }
    }
    o.finish()
}

/// Every field of [`Stats`]: destructured, so that a field added to the
/// engine's statistics fails to compile here until it is in the JSON too.
fn stats(s: &Stats) -> String {
    let Stats {
        product_states,
        transitions,
        protocol_states,
        automaton_states,
        max_depth,
        time,
        reduction,
        hash_compaction,
        bitstate,
        threads,
        single_thread,
        share,
    } = s;
    let mut o = Object::new();
    o.u64("product_states", *product_states)
        .u64("transitions", *transitions)
        .u64("protocol_states", *protocol_states)
        .u64("automaton_states", *automaton_states)
        .u64("max_depth", *max_depth)
        .f64("time_s", time.as_secs_f64())
        .bool("hash_compaction", *hash_compaction)
        .u64("threads", u64::from(*threads));
    if let Some(b) = bitstate {
        let mut bits = Object::new();
        bits.u64("bits", b.bits)
            .u64("hash_functions", u64::from(b.hash_functions))
            .f64("hash_factor", b.hash_factor(*product_states));
        o.raw("bitstate", &bits.finish());
    }
    if let Some(why) = single_thread {
        o.str("single_thread", why);
    }
    if let Some(sh) = share {
        let mut split = Object::new();
        split
            .u64("index", u64::from(sh.index))
            .u64("count", u64::from(sh.count))
            .u64("level", sh.level)
            .u64("frontier", sh.frontier)
            .u64("own", sh.own)
            .u64("above", sh.above)
            .str("digest", &format!("{:016x}", sh.digest));
        o.raw("share", &split.finish());
    }
    match reduction {
        engine::ReductionStatus::NotDeclared => {}
        engine::ReductionStatus::On { ample_states } => {
            o.str("reduction", "on").u64("ample_states", *ample_states);
        }
        engine::ReductionStatus::Off(why) => {
            o.str("reduction", "off").str("reduction_off", why);
        }
    }
    o.finish()
}
