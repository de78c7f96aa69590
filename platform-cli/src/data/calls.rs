//! The requests of `platform data`, each the same on a database file and on a server: read one
//! data item, list data items, and save the series or curves of an import.

use platform_core::api::data::DataQuery;
use platform_core::api::import::Observation;
use platform_core::api::import::{CURVE_TYPE, SERIES_TYPE};
use platform_core::api::time::utc_text;
use platform_core::api::Params;
use platform_core::api::Source;
use platform_core::api::{objects::SaveOptions, ListRequest};
use platform_core::Result;
use serde_json::{json, Map, Value};

use crate::remote::segment;
use crate::target::{Answer, Call, File, Http};

/// One data item by id, read as the query asks (`GET data/v1/{source}/{id}`).
pub struct ReadData {
    /// OBJECT:PROPERTY or OBJECT:PROPERTY:ONDATE.
    pub id: String,
    /// The query parameters (`_range`, `tenor`, `_calendar`...).
    pub pairs: Vec<(String, String)>,
}

impl ReadData {
    /// The source of the object the id names (`#` ids are public).
    fn source(&self) -> Source {
        Source::of_id(self.id.split(':').next().unwrap_or_default())
    }
}

impl Call for ReadData {
    fn local(self, file: &File) -> Result<Answer> {
        let query = DataQuery::from_params(&Params::new(self.pairs.clone()))?;
        file.platform()
            .data()
            .read(file.who()?, self.source(), &self.id, &query)
            .map(Answer::of)
    }

    fn http(self) -> Http {
        Http::get(
            format!("data/v1/{}/{}", self.source(), segment(&self.id)),
            self.pairs,
        )
    }
}

/// The data items of a source, filtered, sorted and paged like objects
/// (`GET data/v1/{source}`).
pub struct ListData {
    /// public, private or all.
    pub source: Source,
    /// The query parameters (filters such as `_objid`, `_sort`, `_limit`, `_range`...).
    pub pairs: Vec<(String, String)>,
}

impl Call for ListData {
    fn local(self, file: &File) -> Result<Answer> {
        let params = Params::new(self.pairs);
        let request = ListRequest::from_params(&params)?;
        let query = DataQuery::from_params(&params)?;
        let page = file
            .platform()
            .data()
            .list(file.who()?, self.source, &request, &query)?;
        Ok(Answer::page(page.items, page.total, page.estimated))
    }

    fn http(self) -> Http {
        Http::get(format!("data/v1/{}", self.source), self.pairs)
    }
}

/// How an import saves: the reason of the new version, and whether the observations replace
/// the stored ones.
#[derive(Clone, Default)]
pub struct Saving {
    /// Replace the observations of the series instead of merging into them; the object's
    /// other fields and data stay (`_replaceData=true` over HTTP).
    pub replace: bool,
    /// The reason stored with the new version.
    pub reason: Option<String>,
    /// Merge the contracts of each curve into the stored curve of its ondate instead of
    /// replacing it (`_merge=true` over HTTP).
    pub merge: bool,
}

impl Saving {
    fn options(&self) -> SaveOptions {
        SaveOptions {
            replace: self.replace,
            reason: self.reason.clone(),
            merge_contracts: self.merge,
            ..SaveOptions::default()
        }
    }

    fn query(&self) -> Vec<(String, String)> {
        let mut query = Vec::new();
        if self.replace {
            query.push(("_replaceData".to_string(), "true".to_string()));
        }
        if self.merge {
            query.push(("_merge".to_string(), "true".to_string()));
        }
        if let Some(r) = &self.reason {
            query.push(("_reason".to_string(), r.clone()));
        }
        query
    }
}

/// Observations into the series `prop` of `object`, in one save (the object is created when
/// absent): `Data::save_series`, or one `POST object/v1`.
pub struct SaveSeries {
    pub object: String,
    pub prop: String,
    /// Series settings merged into its header (calendar, timezone, units, currency).
    pub header: Map<String, Value>,
    pub points: Vec<Observation>,
    pub saving: Saving,
}

impl Call for SaveSeries {
    fn local(self, file: &File) -> Result<Answer> {
        file.platform()
            .data()
            .save_series(
                file.who()?,
                &self.object,
                &self.prop,
                self.header,
                self.points,
                &self.saving.options(),
            )
            .map(Answer::of)
    }

    fn http(self) -> Http {
        let data: Vec<Value> = self
            .points
            .iter()
            .map(|p| {
                let time = utc_text(p.t).unwrap_or_else(|| p.t.to_string());
                p.to_json(time)
            })
            .collect();
        let mut prop = self.header;
        prop.insert("_type".into(), json!(SERIES_TYPE));
        prop.insert("data".into(), Value::Array(data));
        let body = json!({"_id": self.object, self.prop: prop});
        Http::post("object/v1".into(), self.saving.query(), body)
    }
}

/// The curves of several ondates (`{ondate, contracts}` each) into the curve `prop` of
/// `object`, at one object version: `Data::save_curves`, or one `POST object/v1` of an array
/// (one save an ondate, one transaction).
pub struct SaveCurves {
    pub object: String,
    pub prop: String,
    pub header: Map<String, Value>,
    pub curves: Vec<Map<String, Value>>,
    pub saving: Saving,
}

impl Call for SaveCurves {
    fn local(self, file: &File) -> Result<Answer> {
        file.platform()
            .data()
            .save_curves(
                file.who()?,
                &self.object,
                &self.prop,
                self.header,
                self.curves,
                &self.saving.options(),
            )
            .map(Answer::of)
    }

    fn http(self) -> Http {
        let body: Vec<Value> = self
            .curves
            .into_iter()
            .map(|curve| {
                let mut prop = self.header.clone();
                prop.insert("_type".into(), json!(CURVE_TYPE));
                prop.extend(curve);
                json!({"_id": self.object, self.prop.clone(): prop})
            })
            .collect();
        Http::post("object/v1".into(), self.saving.query(), Value::Array(body))
    }
}
