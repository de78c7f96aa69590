//! [`Data::import_csv`]: a CSV text into one series or curve of an object
//! ([`crate::api::interface::series::import`]).

use super::data::Data;
use crate::auth::Principal;
use crate::error::Result;
use crate::save::csv_import::{CsvImport, CsvImported};

impl Data<'_> {
    /// Imports a CSV text into the series (or curve) `id` (`OBJ:PROP`) of an object that
    /// exists, as `platform data import` reads a file: `time,value[,status]` rows, or
    /// `settlementDate,settlementPeriod,value` rows into a HALFHOURLY series, or
    /// `ondate,tenor,value` rows into a curve (see [`crate::api::interface::series::import`]). The observations
    /// merge into the series as a JSON save of the object does (or replace its observations
    /// with `req.replace`), in one transaction; `req.calendar` and `req.timezone` make a new
    /// series and must agree with an existing one. Every bad row is an error naming its line,
    /// and nothing is written. The REST form is `POST /data/v1/{source}/{OBJ:PROP}` with
    /// `Content-Type: text/csv`.
    ///
    /// ```
    /// use platform_core::api::{CsvImport, Object};
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
        self.platform.import_csv(p, id, text, req)
    }
}
