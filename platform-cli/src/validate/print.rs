//! How `platform validate` prints its answers: a table of a run or test (a row per point), of
//! a runMany (a row per data item), of a suggest or a tune, and of a queued job.

use super::queued;
use crate::output::{print, text, Format, Table};
use platform_core::api::validation::ValidationStatus;
use platform_core::Result;
use serde_json::Value;

/// A run or test answer: a row per result (point, status, message), then the counts. A
/// table or CSV shows the points that did not pass, and says how many others it left out,
/// unless `all`; JSON is the answer whole.
pub(super) fn print_run(out: &Value, format: Format, all: bool) -> Result<()> {
    if let Some(how) = queued(out) {
        return print_queued(out, how, format);
    }
    let results = out["results"].as_array().map_or(&[][..], Vec::as_slice);
    let shown: Vec<Value> = results
        .iter()
        .filter(|r| all || !passed(r))
        .cloned()
        .collect();
    let mut footer = counts_line(out["points"].as_u64().unwrap_or(0), "point", &out["counts"]);
    let left_out = results.len() - shown.len();
    if left_out > 0 {
        let (it, they) = if left_out == 1 {
            ("point", "it")
        } else {
            ("points", "them")
        };
        footer.push_str(&format!(
            " ({left_out} passing {it} not shown: --all shows {they})"
        ));
    }
    if out["test"] == true {
        footer.push_str(" (test: nothing stored)");
    }
    if let Some(m) = out["message"].as_str() {
        footer.push_str(&format!(" ({m})"));
    }
    footer.push('\n');
    print(
        format,
        out,
        || Table::of(&shown, &["point", "status", "message"]),
        &footer,
    )
}

/// Whether a result's point passed (valid, skipped or overridden), by the core's rule.
fn passed(result: &Value) -> bool {
    serde_json::from_value::<ValidationStatus>(result["status"].clone())
        .is_ok_and(ValidationStatus::passed)
}

/// A runMany answer: a row per data item (target, status, message), then the counts.
pub(super) fn print_many(out: &Value, format: Format) -> Result<()> {
    if let Some(how) = queued(out) {
        return print_queued(out, how, format);
    }
    let results = out["results"].as_array().map_or(&[][..], Vec::as_slice);
    let rows = || {
        let mut t = Table::new(&["target", "status", "message"]);
        for r in results {
            let message = match (&r["error"], &r["message"]) {
                (Value::String(e), _) => e.clone(),
                (_, Value::String(m)) => m.clone(),
                _ => counts_line(r["points"].as_u64().unwrap_or(0), "point", &r["counts"]),
            };
            t.push(vec![text(r.get("target")), text(r.get("status")), message]);
        }
        t
    };
    let footer = counts_line(
        out["targets"].as_u64().unwrap_or(0),
        "target",
        &out["counts"],
    );
    print(format, out, rows, &format!("{footer}\n"))
}

/// A suggest answer: a row per suggested check (target, check, severity, failures/runs,
/// whether it passed on every point, expression), then each item's message or error.
pub(super) fn print_suggest(out: &Value, format: Format) -> Result<()> {
    let mut notes = String::new();
    let mut t = Table::new(&["target", "check", "severity", "failed", "ok", "expression"]);
    for r in out["results"].as_array().into_iter().flatten() {
        let target = text(r.get("target"));
        for c in r["checks"].as_array().into_iter().flatten() {
            let scope = match c["scope"].as_str() {
                Some(s) => format!(" [{s}]"),
                None => String::new(),
            };
            t.push(vec![
                target.clone(),
                format!("{}{scope}", text(c.get("id"))),
                text(c.get("severity")),
                format!("{}/{}", text(c.get("failures")), text(c.get("runs"))),
                match (c["suggested"] == true, c["inConfig"] == true) {
                    (true, _) => "yes".into(),
                    (false, true) => "kept".into(),
                    (false, false) => "no".into(),
                },
                text(c.get("expression")),
            ]);
        }
        for k in ["error", "message"] {
            if let Some(m) = r[k].as_str() {
                notes.push_str(&format!("{target}: {k}: {m}\n"));
            }
        }
    }
    notes.push_str(&format!(
        "window {} .. {} ({} days); nothing stored\n",
        text(out.get("from")),
        text(out.get("to")),
        text(out.get("days"))
    ));
    print(format, out, || t, &notes)
}

/// A tune answer: a row per check (check, failing, window before -> after, expression,
/// suggested), then each check's reason.
pub(super) fn print_tune(out: &Value, format: Format) -> Result<()> {
    let mut reasons = String::new();
    let mut t = Table::new(&["check", "failing", "window", "expression", "suggested"]);
    for r in out["results"].as_array().into_iter().flatten() {
        for c in r["checks"].as_array().into_iter().flatten() {
            let w = &c["window"];
            t.push(vec![
                text(c.get("id")),
                text(c.get("failing")),
                format!(
                    "{} -> {} of {}",
                    text(w.get("before")),
                    text(w.get("after")),
                    text(w.get("runs"))
                ),
                text(c.get("expression")),
                match &c["suggested"] {
                    Value::Null => "-".into(),
                    v => text(Some(v)),
                },
            ]);
            reasons.push_str(&format!(
                "{}: {}\n",
                text(c.get("id")),
                text(c.get("reason"))
            ));
        }
        for k in ["error", "message"] {
            if let Some(m) = r[k].as_str() {
                reasons.push_str(&format!("{}: {k}: {m}\n", text(r.get("target"))));
            }
        }
    }
    reasons.push_str("nothing stored\n");
    print(format, out, || t, &reasons)
}

/// A queued run: its message (who runs it) on standard error, the answer in JSON or as one row.
fn print_queued(out: &Value, how: &str, format: Format) -> Result<()> {
    eprintln!("{how}");
    print(
        format,
        out,
        || Table::of(std::slice::from_ref(out), &["job", "message"]),
        "",
    )
}

/// `7 points: valid 4, warning 1, severe 2`.
pub(super) fn counts_line(n: u64, what: &str, counts: &Value) -> String {
    let parts: Vec<String> = counts
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, k)| format!("{status} {}", text(Some(k))))
        .collect();
    let plural = if n == 1 { "" } else { "s" };
    if parts.is_empty() {
        format!("{n} {what}{plural}")
    } else {
        format!("{n} {what}{plural}: {}", parts.join(", "))
    }
}
