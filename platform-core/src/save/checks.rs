//! The checks a document passes before it is saved, by its collection: each service's own
//! rules for what its documents may hold.

use crate::auth::Principal;
use crate::documents::Objects;
use crate::error::Result;
use crate::store::{Collection, DocumentRead};
use serde_json::{Map, Value};

impl Objects<'_> {
    /// Checks the fields of a document before it is saved (rules that depend on the collection).
    pub(crate) fn check_document(
        &self,
        tx: &dyn DocumentRead,
        p: &Principal,
        coll: Collection,
        fields: &Map<String, Value>,
    ) -> Result<()> {
        match coll {
            Collection::Object => Ok(()),
            Collection::Type => crate::types::check_type_definition(tx, p, fields),
            Collection::Script => crate::scripts::check_script(fields),
            Collection::Extension => crate::extensions::check_extension(fields),
            Collection::ValidationConfig => crate::validation::check_config(tx, p, fields),
            Collection::Calendar => crate::calendars::check_calendar(tx, p, fields),
        }
    }
}
