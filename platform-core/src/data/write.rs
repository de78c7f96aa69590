//! Typed entry points for programs and bulk loads: write and read observations without going
//! through JSON. They follow the same rules as an object save carrying the series.

use super::model::Point;
use super::series::{self, Window};
use super::{DataKind, DataPayload, SERIES_TYPE};
use crate::auth::Principal;
use crate::clock::format_instant;
use crate::documents::{render, SaveOptions};
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::store::{Collection, DataKey};
use crate::Platform;
use serde_json::{Map, Value};

impl Platform {
    /// Writes observations to the series `prop` of `object` in one transaction, creating the
    /// object and the series when absent. `header` (calendar, timezone, units...) merges into
    /// the series header; `opts.replace` replaces the series' observations. Returns the saved
    /// object.
    pub fn save_series(
        &self,
        p: &Principal,
        object: &str,
        prop: &str,
        header: Map<String, Value>,
        points: Vec<Point>,
        opts: &SaveOptions,
    ) -> Result<Value> {
        let mut header = header;
        header.insert("_type".into(), Value::String(SERIES_TYPE.into()));
        let mut item = Map::new();
        item.insert("_id".into(), Value::String(object.to_string()));
        item.insert(prop.to_string(), Value::Object(header));
        let now = format_instant(self.now());
        // `replace` applies to the series here; the object's other fields stay.
        let object_opts = SaveOptions {
            replace: false,
            ..opts.clone()
        };
        let typed = vec![(prop.to_string(), DataPayload::Points(points, opts.replace))];
        let stored = self.write(|tx| {
            self.save_one(
                tx,
                p,
                Collection::Object,
                Value::Object(item),
                &object_opts,
                &now,
                typed,
            )
        })?;
        Ok(Value::Object(render(&stored, true)))
    }

    /// Reads observations of a series (`OBJ:PROP`) at the current object version or `version`.
    pub fn read_series(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        window: Window,
        version: Option<u32>,
    ) -> Result<Vec<Point>> {
        let (data_id, scope) = super::read::data_scope(p, source, id)?;
        let tx = self.read()?;
        let current = tx
            .current(Collection::Object, &scope, &data_id.object)?
            .ok_or_else(|| Error::not_found(format!("data \"{id}\" not found")))?;
        if current.body.get(&data_id.prop).and_then(DataKind::of) != Some(DataKind::Series) {
            return Err(Error::not_found(format!(
                "data \"{id}\" is not a time series"
            )));
        }
        let key = DataKey {
            scope,
            object: data_id.object,
            prop: data_id.prop,
        };
        series::read(
            tx.as_ref(),
            &key,
            version.unwrap_or(current.version),
            window,
        )
    }
}
