//! The quality status of checked points written into the private data (`VALID`,
//! `VALID:Warnings`, `FAILED`), in the transaction of the run or override.

use crate::auth::Principal;
use crate::data::calendar::parse_time;
use crate::data::curve;
use crate::data::series::{self, Window};
use crate::data::series_settings;
use crate::data::DataPayload;
use crate::error::{Error, Result};
use crate::ids::{Scope, Source};
use crate::observations::columns::Columns;
use crate::store::{Collection, DataKey, WriteTx};
use crate::validation::config::Kind;
use crate::validation::records;
use crate::validation::Validation;
use serde_json::{json, Map, Value};

impl Validation<'_> {
    /// Writes the quality status of checked points into the private data (a data change that
    /// does not itself trigger validation), in the transaction of the run or override.
    pub(super) fn write_status(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        target: &str,
        kind: Kind,
        results: &[Value],
    ) -> Result<()> {
        let id = crate::data::read::DataId::parse(target)?;
        let scope = Scope::for_source(Source::of_id(&id.object), p);
        crate::documents::require_write(p, Collection::Object, &scope)?;
        let now = crate::clock::format_instant(self.platform.now());
        tx.hold(&[crate::store::Hold::Document(
            Collection::Object,
            &scope,
            &id.object,
        )])?;
        let object = tx
            .current(Collection::Object, &scope, &id.object)?
            .ok_or_else(|| Error::not_found(format!("data \"{target}\" not found")))?;
        let key = DataKey {
            scope: scope.clone(),
            object: id.object.clone(),
            prop: id.prop.clone(),
        };
        let header = object
            .body
            .get(&id.prop)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut item = Map::new();
        item.insert("_id".into(), json!(id.object));
        item.insert(id.prop.clone(), Value::Object(header.clone()));
        let payload = match kind {
            Kind::TimeSeries => {
                let (_, tz, _) = series_settings(&id.prop, &header)?;
                series_statuses(tx, &key, object.version, tz, results)?
            }
            Kind::Curve => curve_statuses(tx, &key, object.version, target, results)?,
        };
        let opts = crate::documents::SaveOptions {
            reason: Some(crate::data::STATUS_REASON.into()),
            ..Default::default()
        };
        self.platform.objects().save_one(
            tx,
            p,
            Collection::Object,
            Value::Object(item),
            &opts,
            &now,
            vec![(id.prop.clone(), payload)],
        )?;
        Ok(())
    }
}

/// The quality status a record's status writes.
fn quality(status: &str) -> &'static str {
    match status {
        "warning" => "VALID:Warnings",
        s if records::is_failing(s) => "FAILED",
        _ => "VALID",
    }
}

/// The stored observations of a series at the checked points, each with its quality set.
fn series_statuses(
    tx: &dyn WriteTx,
    key: &DataKey,
    version: u32,
    tz: chrono_tz::Tz,
    results: &[Value],
) -> Result<DataPayload> {
    let stored = series::read(tx, key, version, Window::All)?;
    let mut points = Vec::new();
    for r in results {
        let t = parse_time(r["point"].as_str().unwrap_or_default(), tz)?;
        if let Ok(i) = stored.binary_search_by_key(&t, |p| p.t) {
            let mut point = stored[i].clone();
            let mut status = point.status.take().unwrap_or_default();
            status.quality = Some(quality(r["status"].as_str().unwrap_or_default()).into());
            point.status = Some(status);
            points.push(point);
        }
    }
    Ok(DataPayload::Columns(Columns::from_points(&points), false))
}

/// The stored curve of the checked ondate (the last result's), every contract with the
/// quality of that result.
fn curve_statuses(
    tx: &dyn WriteTx,
    key: &DataKey,
    version: u32,
    target: &str,
    results: &[Value],
) -> Result<DataPayload> {
    let r = results.last().cloned().unwrap_or(Value::Null);
    let ondate = r["point"].as_str().unwrap_or_default().to_string();
    let stored = tx
        .curve(key, version, &ondate)?
        .ok_or_else(|| Error::not_found(format!("curve {target}:{ondate} not found")))?;
    let stored = curve::decode(&stored)?;
    let q = quality(r["status"].as_str().unwrap_or_default());
    let contracts: Vec<Value> = stored
        .contracts
        .iter()
        .map(|c| {
            let mut s = c.status.clone().unwrap_or_default();
            s.quality = Some(q.into());
            let mut props: Map<String, Value> = if c.extra.is_empty() {
                Map::new()
            } else {
                serde_json::from_str(&c.extra).unwrap_or_default()
            };
            props.insert("expiry".into(), json!(c.expiry));
            let tenor = if c.absolute.is_empty() {
                &c.tenor
            } else {
                &c.absolute
            };
            json!({"tenor": tenor, "value": c.value.to_json(), "status": s.to_json(), "properties": props})
        })
        .collect();
    let mut sent = Map::new();
    sent.insert("ondate".into(), Value::Object(stored.ondate.clone()));
    sent.insert("contracts".into(), Value::Array(contracts));
    Ok(DataPayload::Curve(Some(sent)))
}
