//! Typed entry points for programs and bulk loads: write and read observations without going
//! through JSON. They follow the same rules as an object save carrying the series.

use super::series::{self, Window};
use super::{DataKind, DataPayload, CURVE_TYPE, SERIES_TYPE};
use crate::auth::Principal;
use crate::clock::format_instant;
use crate::data::Data;
use crate::documents::{render, SaveOptions};
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::observations::columns::Columns;
use crate::observations::model::Point;
use crate::store::{Collection, DataKey, DataRead};
use serde_json::{Map, Value};

impl Data<'_> {
    /// JSON: bulk write of observations with statuses and text values (the CLI's file loads):
    /// to the series `prop` of `object`, with `header` merged into the series header. Returns
    /// the saved object as JSON; [`Data::write_series`] is the typed write of numbers.
    pub fn save_series(
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
        self.save_columns(p, object, prop, header, columns, opts)
    }

    /// JSON: [`Data::save_series`] of observations as columns (times and numbers in two arrays, the
    /// observations that are not plain numbers listed apart, as [`Data::read_columns`] answers
    /// them): the fastest way to write a long series, with no value built per observation.
    pub fn save_columns(
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

    /// JSON: bulk write of the curves of several ondates (`{ondate, contracts}` each, as a curve
    /// property sends them) at one object version; an ondate sent twice is refused. Returns
    /// the saved object as JSON; [`Data::write_curve`] is the typed write of one ondate.
    pub fn save_curves(
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
        let now = format_instant(self.platform.now());
        // `replace` applies to the data here; the object's other fields stay.
        let object_opts = SaveOptions {
            replace: false,
            ..opts.clone()
        };
        let mut typed = crate::EachTry::new(self.platform, typed);
        let (stored, changes) = self.platform.write(|tx| {
            self.platform.objects().save_one_noting(
                tx,
                p,
                Collection::Object,
                Value::Object(item.clone()),
                &object_opts,
                &now,
                typed.get()?,
            )
        })?;
        let mut answer = render(&stored, true);
        super::note_replaced_curves(&mut answer, object, &changes);
        Ok(Value::Object(answer))
    }

    /// Bulk read of the stored observations of a series (`OBJ:PROP`), with their statuses, at
    /// the current object version or `version`; no conversion.
    pub fn read_points(
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

    /// [`Data::read_points`] as columns: times and numbers in two arrays, the observations that
    /// are not plain numbers (null or text values, statuses) listed apart. The fastest way to
    /// read a long series, with no value built per observation.
    pub fn read_columns(
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

    /// [`Data::read_columns`] of several series (each from its own source) at their current
    /// versions, in one read: in the order of `ids`. A store a network away reads them all in
    /// one round trip.
    ///
    /// ```
    /// use platform_core::api::data::Point;
    /// use platform_core::api::data::Window;
    /// use chrono::{TimeZone, Utc};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// for (id, value) in [("NBP:SPOT", 71.3), ("TTF:SPOT", 34.5)] {
    ///     platform.data().write_series(&me, id, &[Point::new(at, value)], &Default::default())?;
    /// }
    /// let both = platform.data().read_columns_many(&me, &["TTF:SPOT", "NBP:SPOT"], Window::All)?;
    /// assert_eq!((both[0].values[0], both[1].values[0]), (34.5, 71.3));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn read_columns_many(
        &self,
        p: &Principal,
        ids: &[&str],
        window: Window,
    ) -> Result<Vec<Columns>> {
        let tx = self.platform.read()?;
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
        let tx = self.platform.read()?;
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
