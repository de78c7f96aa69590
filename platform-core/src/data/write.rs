//! Typed entry points for programs and bulk loads: write and read observations without going
//! through JSON. They follow the same rules as an object save carrying the series.

use super::series::{self, Window};
use super::{DataKind, DataPayload, CURVE_TYPE, SERIES_TYPE};
use crate::auth::Principal;
use crate::clock::format_instant;
use crate::documents::{render, SaveOptions};
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::observations::columns::Columns;
use crate::observations::model::Point;
use crate::store::{Collection, DataKey, DataRead};
use crate::Platform;
use serde_json::{Map, Value};

impl Platform {
    /// Writes observations to the series `prop` of `object` in one transaction, creating the
    /// object and the series when absent. `header` (calendar, timezone, units...) merges into
    /// the series header; `opts.replace` replaces the series' observations. Returns the saved
    /// object.
    pub(crate) fn save_series(
        &self,
        p: &Principal,
        object: &str,
        prop: &str,
        header: Map<String, Value>,
        points: Vec<Point>,
        opts: &SaveOptions,
    ) -> Result<Value> {
        let columns = Columns::from_points(&points);
        drop(points);
        self.save_series_columns(p, object, prop, header, columns, opts)
    }

    /// [`Platform::save_series`] of observations as columns.
    pub(crate) fn save_series_columns(
        &self,
        p: &Principal,
        object: &str,
        prop: &str,
        header: Map<String, Value>,
        columns: Columns,
        opts: &SaveOptions,
    ) -> Result<Value> {
        columns
            .check()
            .map_err(|e| super::prefix(&format!("{prop}.data"), e))?;
        let typed = vec![(
            prop.to_string(),
            DataPayload::Columns(columns, opts.replace),
        )];
        self.save_typed(p, object, prop, SERIES_TYPE, header, typed, opts)
    }

    /// Writes the curves of several ondates (`{ondate, contracts}` each, as a curve property
    /// sends them) to the curve `prop` of `object` at one object version, in one transaction,
    /// creating the object and the curve when absent; an ondate sent twice is refused. Returns
    /// the saved object.
    pub(crate) fn save_curves(
        &self,
        p: &Principal,
        object: &str,
        prop: &str,
        header: Map<String, Value>,
        curves: Vec<Map<String, Value>>,
        opts: &SaveOptions,
    ) -> Result<Value> {
        let mut seen = std::collections::HashSet::new();
        for c in &curves {
            let ondate = c.get("ondate").map(Value::to_string).unwrap_or_default();
            if !seen.insert(ondate.clone()) {
                return Err(Error::invalid_body(format!(
                    "{prop}: the ondate {ondate} is sent twice: send each curve once"
                )));
            }
        }
        let typed = vec![(prop.to_string(), DataPayload::Curves(curves))];
        self.save_typed(p, object, prop, CURVE_TYPE, header, typed, opts)
    }

    #[allow(clippy::too_many_arguments)]
    fn save_typed(
        &self,
        p: &Principal,
        object: &str,
        prop: &str,
        kind: &str,
        header: Map<String, Value>,
        typed: Vec<(String, DataPayload)>,
        opts: &SaveOptions,
    ) -> Result<Value> {
        let mut header = header;
        header.insert("_type".into(), Value::String(kind.into()));
        let mut item = Map::new();
        item.insert("_id".into(), Value::String(object.to_string()));
        item.insert(prop.to_string(), Value::Object(header));
        let now = format_instant(self.now());
        // `replace` applies to the data here; the object's other fields stay.
        let object_opts = SaveOptions {
            replace: false,
            ..opts.clone()
        };
        let mut typed = crate::EachTry::new(self, typed);
        let stored = self.write(|tx| {
            self.objects().save_one(
                tx,
                p,
                Collection::Object,
                Value::Object(item.clone()),
                &object_opts,
                &now,
                typed.get()?,
            )
        })?;
        Ok(Value::Object(render(&stored, true)))
    }

    /// Reads observations of a series (`OBJ:PROP`) at the current object version or `version`.
    pub(crate) fn read_series(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        window: Window,
        version: Option<u32>,
    ) -> Result<Vec<Point>> {
        self.with_series(p, source, id, version, |tx, key, version| {
            series::read(tx, key, version, window)
        })
    }

    /// [`Platform::read_series`] as columns.
    pub(crate) fn read_series_columns(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        window: Window,
        version: Option<u32>,
    ) -> Result<Columns> {
        self.with_series(p, source, id, version, |tx, key, version| {
            series::read_columns(tx, key, version, window)
        })
    }

    /// [`Platform::read_series_columns`] of several series at their current versions, in one
    /// read transaction whose reads are named ahead (one round trip on a store a network
    /// away): the series in the order of `ids`.
    pub(crate) fn read_series_columns_many(
        &self,
        p: &Principal,
        ids: &[&str],
        window: Window,
    ) -> Result<Vec<Columns>> {
        let tx = self.read()?;
        super::read::read_series_ahead(tx.as_ref(), p, ids)?;
        ids.iter()
            .map(|id| {
                self.with_series_in(tx.as_ref(), p, Source::All, id, None, |tx, key, v| {
                    series::read_columns(tx, key, v, window)
                })
            })
            .collect()
    }

    /// Runs `read` on the series `id` at the current object version or `version`, in a read
    /// transaction.
    fn with_series<T>(
        &self,
        p: &Principal,
        source: Source,
        id: &str,
        version: Option<u32>,
        read: impl FnOnce(&dyn DataRead, &DataKey, u32) -> Result<T>,
    ) -> Result<T> {
        let tx = self.read()?;
        self.with_series_in(tx.as_ref(), p, source, id, version, read)
    }

    /// [`Platform::with_series`] in a given transaction.
    fn with_series_in<T>(
        &self,
        tx: &dyn crate::store::ReadTx,
        p: &Principal,
        source: Source,
        id: &str,
        version: Option<u32>,
        read: impl FnOnce(&dyn DataRead, &DataKey, u32) -> Result<T>,
    ) -> Result<T> {
        let (data_id, scope) = super::read::data_scope(p, source, id)?;
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
        read(tx, &key, version.unwrap_or(current.version))
    }
}
