//! The REST CSV import (`POST /data/v1/{source}/{OBJ:PROP}`, `Data::import_csv`): a CSV text
//! read by this module's reader into one series (or curve) of an object that exists, saved
//! like a JSON save of the object carrying it (merged, or its observations replaced), in one
//! transaction. Every bad row is refused naming its line, and nothing is written. It sits with
//! the saves since it is one; the reader it uses is the data service's (`data::import`).

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::data::calendar::{format_time, parse_zone, Calendar};
use crate::data::columns::Columns;
use crate::data::import::{
    csv_records_choosing, curve_rows, parse_delimiter, ColumnChoice, PointReader, Records,
};
use crate::data::series::{sort_payload, OnDuplicate, PayloadNames};
use crate::data::value_type::{check_values, Sent, Stored, ValueRule};
use crate::data::Data;
use crate::data::{self, DataKind, DataPayload, CURVE_TYPE, SERIES_TYPE};
use crate::documents::SaveOptions;
use crate::documents::{render_owned, visible};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::json::json_kind;
use crate::query::Params;
use crate::store::{Collection, DataKey, Hold, ReadTx};
use serde_json::{Map, Value};

/// How a CSV text is imported into one series or curve of an object ([`crate::api::data::Data::import_csv`],
/// the query of `POST /data/v1/{source}/{OBJ:PROP}`). The default merges into the series as a
/// JSON save does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CsvImport {
    /// The source the object is sought in (`public` for `#` ids, else `private`); `None` takes
    /// the id's. `all` is refused: a write goes to one source.
    pub source: Option<Source>,
    /// The calendar of a series the import makes (`calendar`); with an existing series it must
    /// agree with the series' calendar.
    pub calendar: Option<String>,
    /// The time zone of a series the import makes (`timezone`), in which times without an
    /// offset are read; with an existing series it must agree with the series' zone.
    pub timezone: Option<String>,
    /// The observations of the text replace the series' observations (`_replaceData=true`);
    /// the object's other fields and data stay.
    pub replace: bool,
    /// The reason stored with the object version (`_reason`).
    pub reason: Option<String>,
    /// A time (or a curve's ondate and tenor) the text holds twice: refused, or the first or
    /// the last kept (`_onDuplicate`).
    pub on_duplicate: OnDuplicate,
    /// The field separator (`delimiter`: `,`, `;` or `tab`); detected when `None`.
    pub delimiter: Option<u8>,
    /// The contracts of a curve's rows are merged into the stored curve of their ondate by
    /// contract instead of replacing it (`_merge=true`).
    pub merge: bool,
    /// A CSV as published: the header's column of the values (`valueColumn`, any case); the
    /// other columns that key no row are left out ([`ColumnChoice`]).
    pub value_column: Option<String>,
    /// A CSV as published: the header's column of the times (`timeColumn`, any case).
    pub time_column: Option<String>,
    /// The expiry calendar of a curve (`expiryCalendar`), set in its header: each contract of
    /// an ondate that names none expires by it.
    pub expiry_calendar: Option<String>,
}

impl CsvImport {
    /// Reads `_replaceData`, `_merge`, `_reason`, `_onDuplicate`, `calendar`, `timezone`,
    /// `delimiter`, `valueColumn`, `timeColumn` and `expiryCalendar` of a query, for `source`.
    /// `_replace` (which replaces a whole object) is refused.
    pub fn from_params(params: &Params, source: Source) -> Result<CsvImport> {
        if params.get("_replace").is_some() {
            return Err(Error::invalid_parameter(
                "_replace replaces a whole object: a CSV import writes one series, and \
                 _replaceData=true replaces its observations",
            ));
        }
        let text = |name: &str| params.get(name).map(str::to_string);
        Ok(CsvImport {
            source: Some(source),
            calendar: text("calendar"),
            timezone: text("timezone"),
            replace: params.flag("_replaceData")?,
            reason: text("_reason"),
            on_duplicate: params
                .get("_onDuplicate")
                .map(OnDuplicate::parse)
                .transpose()?
                .unwrap_or_default(),
            delimiter: params.get("delimiter").map(parse_delimiter).transpose()?,
            merge: params.flag("_merge")?,
            value_column: text("valueColumn"),
            time_column: text("timeColumn"),
            expiry_calendar: text("expiryCalendar"),
        })
    }
}

/// What a CSV import stored.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvImported {
    /// The object as saved, as a save of the object answers it (the unchanged object when the
    /// text held what the data holds already).
    pub saved: Map<String, Value>,
    /// The object version current after the import.
    pub version: u32,
    /// The observations (or a curve's contracts) read from the text.
    pub read: usize,
    /// Of those, the ones the text held twice and `on_duplicate` left out.
    pub dropped: usize,
}

impl CsvImported {
    /// The answer of `POST /data/v1/{source}/{OBJ:PROP}`: the saved object with `_read` (the
    /// observations read) and `_dropped` (those left out as repeats).
    pub fn to_json(&self) -> Value {
        let mut out = self.saved.clone();
        out.insert("_read".into(), Value::from(self.read));
        out.insert("_dropped".into(), Value::from(self.dropped));
        Value::Object(out)
    }
}

/// Where an import goes: the object, its scope and the data property, as stored when the
/// text was read.
struct Target {
    object: String,
    prop: String,
    id: String,
    home: Source,
    scope: Scope,
    /// The stored version of the object.
    version: u32,
    /// The stored header of the property, if it holds data.
    header: Option<Map<String, Value>>,
}

impl Target {
    fn kind(&self) -> Option<DataKind> {
        self.header.as_ref().and_then(DataKind::of_header)
    }

    fn key(&self) -> DataKey {
        DataKey {
            scope: self.scope.clone(),
            object: self.object.clone(),
            prop: self.prop.clone(),
        }
    }
}

/// What the text becomes: the header fields sent, the payload, and its counts.
struct Parsed {
    header: Map<String, Value>,
    payload: DataPayload,
    read: usize,
    dropped: usize,
}

impl Data<'_> {
    /// Imports a CSV text into the series (or curve) `id` (`OBJ:PROP`) of an object that
    /// exists, as `platform data import` reads a file: `time,value[,status]` rows, or
    /// `settlementDate,settlementPeriod,value` rows into a HALFHOURLY series, or
    /// `ondate,tenor,value` rows into a curve (see [`crate::api::import`]). The observations
    /// merge into the series as a JSON save of the object does (or replace its observations
    /// with `req.replace`), in one transaction; `req.calendar` and `req.timezone` make a new
    /// series and must agree with an existing one. Every bad row is an error naming its line,
    /// and nothing is written. The REST form is `POST /data/v1/{source}/{OBJ:PROP}` with
    /// `Content-Type: text/csv`.
    ///
    /// ```
    /// use platform_core::api::{data::CsvImport, objects::Object};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.objects().save_object(&me, &Object::new("GB"), &Default::default())?;
    /// let csv = "SettlementDate,SettlementPeriod,value\n2025-10-26,1,51.2\n2025-10-26,50,48.0\n";
    /// let req = CsvImport {
    ///     calendar: Some("HALFHOURLY".into()),
    ///     timezone: Some("Europe/London".into()),
    ///     ..Default::default()
    /// };
    /// let done = platform.data().import_csv(&me, "GB:IMBALANCE", csv, &req)?;
    /// assert_eq!((done.read, done.version), (2, 2));
    /// let late = "SettlementDate,SettlementPeriod,value\n2025-10-26,51,1\n";
    /// let err = platform.data().import_csv(&me, "GB:IMBALANCE", late, &Default::default()).unwrap_err();
    /// assert!(err.to_string().starts_with("line 2: settlementPeriod 51: settlement day 2025-10-26 has 50"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn import_csv(
        &self,
        p: &Principal,
        id: &str,
        text: &str,
        req: &CsvImport,
    ) -> Result<CsvImported> {
        let tx = self.platform.read()?;
        let target = target(tx.as_ref(), p, id, req)?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if matches!(text.trim_start().as_bytes().first(), Some(b'[' | b'{')) {
            return Err(Error::invalid_body(format!(
                "the body is JSON: this import reads CSV (time,value[,status] or \
                 settlementDate,settlementPeriod,value); save JSON observations of {id} with \
                 POST /object/v1"
            )));
        }
        let choice = ColumnChoice {
            value: req.value_column.clone(),
            time: req.time_column.clone(),
            ..ColumnChoice::default()
        };
        let records = csv_records_choosing(text, req.delimiter, &choice, &())?;
        if records.is_empty() {
            return Err(Error::invalid_body(format!(
                "the CSV holds no observations for {id}: send time,value[,status] or \
                 settlementDate,settlementPeriod,value rows"
            )));
        }
        let curve = records.is_curve(target.kind() == Some(DataKind::Curve));
        let parsed = match curve {
            true => curve_payload(&target, &records, req)?,
            false => series_payload(tx.as_ref(), p, &target, &records, req)?,
        };
        drop(tx);
        self.save_import(p, &target, parsed, req)
    }

    /// Saves what the text became, in one transaction, if the object and the property's header
    /// are still as they were when the text was read.
    fn save_import(
        &self,
        p: &Principal,
        target: &Target,
        parsed: Parsed,
        req: &CsvImport,
    ) -> Result<CsvImported> {
        let mut item = Map::new();
        item.insert("_id".into(), Value::String(target.object.clone()));
        item.insert(target.prop.clone(), Value::Object(parsed.header));
        let item = Value::Object(item);
        let opts = SaveOptions {
            replace: false,
            replace_data: req.replace,
            reason: req.reason.clone(),
            source: Some(target.home),
            on_duplicate: req.on_duplicate,
            merge_contracts: req.merge,
        };
        let now = format_instant(self.platform.now());
        let typed = vec![(target.prop.clone(), parsed.payload)];
        let mut typed = crate::EachTry::new(self.platform, typed);
        let stored = self.platform.write(|tx| {
            let (coll, scope, object) = (Collection::Object, &target.scope, &target.object);
            tx.hold(&[Hold::Document(coll, scope, object)])?;
            let current = tx
                .current(coll, scope, object)?
                .ok_or_else(|| no_object(&target.object, target.home))?;
            let header = current.body.get(&target.prop).and_then(Value::as_object);
            if header != target.header.as_ref() {
                return Err(Error::new(
                    ErrorCode::Conflict,
                    format!(
                        "{} changed while the CSV was read: send it again",
                        target.id
                    ),
                ));
            }
            self.platform.objects().save_one_noting(
                tx,
                p,
                coll,
                item.clone(),
                &opts,
                &now,
                typed.get()?,
            )
        })?;
        let (stored, changes) = stored;
        let mut saved = visible(p, Collection::Object, render_owned(stored.clone(), true));
        data::note_replaced_curves(&mut saved, &target.object, &changes);
        Ok(CsvImported {
            version: stored.version,
            saved,
            read: parsed.read,
            dropped: parsed.dropped,
        })
    }
}

fn no_object(object: &str, source: Source) -> Error {
    Error::not_found(format!(
        "object \"{object}\" not found in the {source} source: save the object first (POST \
         /object/v1), then import its data"
    ))
}

/// The object and property `id` names, as stored, for a caller who may write them.
fn target(tx: &dyn ReadTx, p: &Principal, id: &str, req: &CsvImport) -> Result<Target> {
    let data_id = data::read::DataId::parse(id)?;
    if data_id.ondate.is_some() {
        return Err(Error::invalid_parameter(format!(
            "\"{id}\" names one curve: import into OBJECT:PROPERTY (the CSV names the ondates)"
        )));
    }
    let options = SaveOptions {
        source: req.source,
        ..SaveOptions::default()
    };
    let home = crate::save::home_source(Collection::Object, &data_id.object, &options)?;
    let scope = Scope::for_source(home, p);
    p.require_write(&scope, Collection::Object.noun())?;
    let stored = tx
        .current(Collection::Object, &scope, &data_id.object)?
        .ok_or_else(|| no_object(&data_id.object, home))?;
    // Writing is not restricted by access roles (docs/decisions.md), as on a save.
    let header = match stored.body.get(&data_id.prop) {
        None => None,
        Some(Value::Object(h)) if DataKind::of_header(h).is_some() => Some(h.clone()),
        Some(other) => {
            return Err(Error::invalid_parameter(format!(
                "{} of object \"{}\" is a field holding {}, not a series or curve: import into \
                 another name",
                data_id.prop,
                data_id.object,
                json_kind(other)
            )))
        }
    };
    Ok(Target {
        id: format!("{}:{}", data_id.object, data_id.prop),
        object: data_id.object,
        prop: data_id.prop,
        home,
        scope,
        version: stored.version,
        header,
    })
}

/// The header fields an import sends: the calendar and zone of a new series or curve; with
/// a stored one, each given must agree with the stored one (a 400 naming both).
fn settings_header(target: &Target, req: &CsvImport, kind: DataKind) -> Result<Map<String, Value>> {
    let mut header = Map::new();
    let type_name = match kind {
        DataKind::Series => SERIES_TYPE,
        DataKind::Curve => CURVE_TYPE,
    };
    header.insert("_type".into(), Value::String(type_name.into()));
    if kind == DataKind::Curve && req.calendar.is_some() {
        return Err(Error::invalid_parameter(format!(
            "calendar: {} holds a curve (ondate,tenor,value), which has no calendar",
            target.id
        )));
    }
    match (&req.expiry_calendar, kind) {
        (Some(_), DataKind::Series) => {
            return Err(Error::invalid_parameter(format!(
                "expiryCalendar sets when a curve's contracts expire; the CSV is a time series \
                 for {}",
                target.id
            )))
        }
        // Set in the header of a new curve or an existing one (the calendar of the ondates
        // written from now on; stored ones keep their expiries).
        (Some(id), DataKind::Curve) => {
            header.insert("expiryCalendar".into(), Value::String(id.clone()));
        }
        (None, _) => {}
    }
    let Some(stored) = &target.header else {
        for (field, value) in [("calendar", &req.calendar), ("timezone", &req.timezone)] {
            if let Some(v) = value {
                header.insert(field.into(), Value::String(v.clone()));
            }
        }
        return Ok(header);
    };
    let stored_text = |field: &str, default: &str| {
        stored
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or(default)
            .to_string()
    };
    if let Some(sent) = &req.calendar {
        let had = stored_text("calendar", "SPARSE");
        if !same_calendar(sent, &had) {
            return Err(disagree("calendar", sent, &target.id, &had));
        }
    }
    if let Some(sent) = &req.timezone {
        let had = stored_text("timezone", "UTC");
        if parse_zone(Some(sent))? != parse_zone(Some(&had))? {
            return Err(disagree("timezone", sent, &target.id, &had));
        }
    }
    Ok(header)
}

fn same_calendar(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
        || matches!(
            (Calendar::parse(Some(a)), Calendar::parse(Some(b))),
            (Ok(x), Ok(y)) if x == y
        )
}

fn disagree(field: &str, sent: &str, id: &str, had: &str) -> Error {
    Error::invalid_parameter(format!(
        "{field}={sent} disagrees with the {field} of {id}, {had}: leave {field} out (it sets \
         a new series), or import into another name"
    ))
}

/// Refuses a text of one kind into a property of the other.
fn check_kind(target: &Target, kind: DataKind) -> Result<()> {
    let name = |k: DataKind| match k {
        DataKind::Series => "time series",
        DataKind::Curve => "curve",
    };
    match target.kind() {
        Some(stored) if stored != kind => Err(Error::invalid_body(format!(
            "{} holds a {}, the CSV a {}: import into another name, or delete the property first",
            target.id,
            name(stored),
            name(kind)
        ))),
        _ => Ok(()),
    }
}

/// The observations of a series text, each checked on its line: time and calendar (holidays
/// too), text where the series holds numbers, a time held twice.
fn series_payload(
    tx: &dyn ReadTx,
    p: &Principal,
    target: &Target,
    records: &Records,
    req: &CsvImport,
) -> Result<Parsed> {
    check_kind(target, DataKind::Series)?;
    let header = settings_header(target, req, DataKind::Series)?;
    let mut merged = target.header.clone().unwrap_or_default();
    merged.extend(header.clone());
    let (calendar, tz, code) = data::series_settings(&target.prop, &merged)?;
    let mut reader = PointReader::new(calendar, tz, &code);
    let (mut points, lines) = reader.csv(records, &())?;
    let place = |i: usize| format!("line {}", lines[i]);
    if data::names_holiday_calendar(&code) {
        let what = format!("{}.calendar", target.prop);
        let holidays = crate::calendars::holidays_of(tx, p, &code, &what)?;
        for (i, point) in points.iter().enumerate() {
            data::check_holiday(Some(&holidays), point.t, tz, &code)
                .map_err(|e| data::prefix(&place(i), e))?;
        }
    }
    let rule = ValueRule::of_header(&target.prop, &merged)?;
    let values = points.iter().map(|p| Sent::of(&p.v)).enumerate();
    // "NaN" in a numeric series is made null where the columns are written.
    check_values(&rule, values, &place, || match &target.header {
        Some(_) if !req.replace => data::stored_values(tx, &target.key(), Some(target.version)),
        _ => Ok(Stored::Nothing),
    })?;
    let names = PayloadNames {
        place: &place,
        time: &|t| format_time(t, calendar, tz),
        hint: "or keep one with _onDuplicate=first|last",
    };
    let read = points.len();
    let dropped = sort_payload(&mut points, req.on_duplicate, &names)?;
    let columns = Columns::from_points(&points);
    Ok(Parsed {
        header,
        payload: DataPayload::Columns(columns, req.replace),
        read,
        dropped,
    })
}

/// The curves of a curve text, by ondate.
fn curve_payload(target: &Target, records: &Records, req: &CsvImport) -> Result<Parsed> {
    check_kind(target, DataKind::Curve)?;
    if req.replace {
        return Err(Error::invalid_parameter(format!(
            "_replaceData replaces a series' observations: {} takes curves, each ondate \
             replacing the curve of that ondate",
            target.id
        )));
    }
    let header = settings_header(target, req, DataKind::Curve)?;
    let hint = "or keep one with _onDuplicate=first|last";
    let rows = curve_rows(records, &target.prop, req.on_duplicate, hint)?;
    let (read, dropped) = (rows.contracts() + rows.dropped, rows.dropped);
    Ok(Parsed {
        header,
        payload: DataPayload::Curves(rows.into_sent()),
        read,
        dropped,
    })
}
