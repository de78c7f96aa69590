//! How `data get` prints a data item as rows (`--format table|csv`): a series, a tenor's
//! history, a continuation with the contract of each point, a curve, the curves of a range (a
//! contract a row, each with its ondate), a curve's tenors.

use crate::output::{self, Table};
use serde_json::Value;

/// A data item as rows: a series (or a tenor's history) as time, value and status; a curve as
/// its contracts with their periods; a curve's tenors one a row.
pub(super) fn data_table(item: &Value) -> Table {
    // The curves of a range: each contract with its ondate.
    if let Value::Array(curves) = item {
        if curves.iter().any(|c| c.get("contracts").is_some()) {
            return curves_table(curves);
        }
    }
    if let Value::Array(tenors) = item {
        let mut t = Table::new(&["tenor"]);
        for code in tenors {
            t.push(vec![output::text(Some(code))]);
        }
        return t;
    }
    if let Some(Value::Array(contracts)) = item.get("contracts") {
        return curve_table(item, contracts);
    }
    let points = item["data"].as_array().map_or(&[][..], Vec::as_slice);
    // A continuation's points name the contract each holds.
    if item["properties"]["continuation"].is_string()
        || points
            .iter()
            .any(|p| p["properties"]["absolute"].is_string())
    {
        return continuation_table(points, item["properties"]["adjust"].is_string());
    }
    // Points keyed by settlement date and period (`--settlement GB`) show them after the time.
    if points.iter().any(|p| p["settlementPeriod"].is_number()) {
        return settlement_table(points);
    }
    series_table(points)
}

/// A curve's contracts with their periods: with the weight each holds when the curve names
/// its weights, else with their absolute contract and expiry.
fn curve_table(item: &Value, contracts: &[Value]) -> Table {
    if let Some(Value::String(weights)) = item.get("weights") {
        // Days, or hours (of the day or of a block such as PEAK).
        let weights = if weights == "days" { "days" } else { "hours" };
        let weight = format!("properties.{weights}");
        return Table::of(
            contracts,
            &[
                "tenor",
                "value",
                "properties.from",
                "properties.start",
                "properties.end",
                &weight,
            ],
        )
        .renamed(&["tenor", "value", "from", "start", "end", weights]);
    }
    Table::of(
        contracts,
        &[
            "tenor",
            "value",
            "properties.absolute",
            "properties.start",
            "properties.end",
            "properties.expiry",
        ],
    )
    .renamed(&["tenor", "value", "absolute", "start", "end", "expiry"])
}

/// A continuation's points, each with the contract it holds (and, back-adjusted, how far its
/// price moved).
fn continuation_table(points: &[Value], adjusted: bool) -> Table {
    let mut paths = vec!["time", "value", "properties.absolute"];
    let mut names = vec!["time", "value", "absolute"];
    if adjusted {
        paths.push("properties.adjustment");
        names.push("adjustment");
    }
    paths.extend(["status.quality", "status.source", "status.reliability"]);
    names.extend(["quality", "source", "reliability"]);
    Table::of(points, &paths).renamed(&names)
}

/// The curves of a range, a contract a row, each with its ondate.
fn curves_table(curves: &[Value]) -> Table {
    let mut t = Table::new(&[
        "ondate", "tenor", "value", "absolute", "start", "end", "expiry",
    ]);
    for curve in curves {
        let ondate = output::text(Some(&curve["ondate"]["curveDate"]));
        for c in curve["contracts"].as_array().map_or(&[][..], Vec::as_slice) {
            let mut row = vec![ondate.clone()];
            row.extend(["tenor", "value"].iter().map(|k| output::text(c.get(*k))));
            row.extend(
                ["absolute", "start", "end", "expiry"]
                    .iter()
                    .map(|k| output::text(c["properties"].get(*k))),
            );
            t.push(row);
        }
    }
    t
}

/// Points keyed by settlement date and period, shown after the time.
fn settlement_table(points: &[Value]) -> Table {
    Table::of(
        points,
        &[
            "time",
            "settlementDate",
            "settlementPeriod",
            "value",
            "status.quality",
            "status.source",
            "status.reliability",
        ],
    )
    .renamed(&[
        "time",
        "settlementDate",
        "settlementPeriod",
        "value",
        "quality",
        "source",
        "reliability",
    ])
}

/// A series' points as time, value and status.
fn series_table(points: &[Value]) -> Table {
    Table::of(
        points,
        &[
            "time",
            "value",
            "status.quality",
            "status.source",
            "status.reliability",
        ],
    )
    .renamed(&["time", "value", "quality", "source", "reliability"])
}
