//! The object service's calls that answer objects ([`Object`]): lists of objects and objects
//! by id, each a stored document seen as an object.

use super::object::Object;
use crate::auth::Principal;
use crate::documents::ListRequest;
use crate::documents::Objects;
use crate::error::{Error, Result};
use crate::ids::Source;
use crate::store::{Collection, Page};
use serde_json::{Map, Value};

/// An object of a JSON answer ([`Object::from_json`]); one that does not read as an object is
/// the platform's fault.
fn answered_object(answer: Value) -> Result<Object> {
    Object::from_json(answer).map_err(|e| Error::Internal(format!("an object answer: {e}")))
}

/// Refuses a list request whose JSON answer holds no objects: `_distinct` (values) and a
/// projection that leaves `_id` out.
fn objects_only(req: &ListRequest) -> Result<()> {
    if req.distinct.is_some() {
        return Err(Error::invalid_parameter(
            "_distinct lists values, not objects: ask Objects::list for them",
        ));
    }
    if let Some(pr) = &req.project {
        let mut probe = Map::new();
        probe.insert("_id".into(), Value::String(String::new()));
        if !pr.apply(&probe, true).contains_key("_id") {
            return Err(Error::invalid_parameter(
                "_project leaves _id out, and an object has an id: ask Objects::list for them",
            ));
        }
    }
    Ok(())
}

fn objects_of(page: Page<Value>) -> Result<Page<Object>> {
    Ok(Page {
        items: page
            .items
            .into_iter()
            .map(answered_object)
            .collect::<Result<_>>()?,
        total: page.total,
        estimated: page.estimated,
    })
}

impl Objects<'_> {
    /// Typed [`list`](Self::list) of objects: the current objects of `source`, filtered,
    /// sorted and paged as the request asks, with the total before paging. `_searchinfo` gives
    /// objects with their `name` only, a projection objects with the fields it keeps; `_asof`
    /// gives each object as it was then. `_distinct` (values, not objects) and a projection
    /// without `_id` are refused.
    ///
    /// ```
    /// use platform_core::api::{ListRequest, objects::Object, Params, Source};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let objects = platform.objects();
    /// for (id, zone) in [("NBP", "UK"), ("TTF", "NL"), ("ZTP", "BE"), ("PEG", "FR")] {
    ///     objects.save_object(&me, &Object::new(id).with_type("Hub").with("zone", zone), &Default::default())?;
    /// }
    /// let req = ListRequest::from_params(&Params::from_slice(&[("_type", "Hub"), ("_sort", "-zone"), ("_limit", "2")]))?;
    /// let page = objects.objects(&me, Source::Private, &req)?;
    /// let ids: Vec<&str> = page.items.iter().map(|o| o.id.as_str()).collect();
    /// assert_eq!((ids, page.total), (vec!["NBP", "TTF"], 4));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn objects(
        &self,
        p: &Principal,
        source: Source,
        req: &ListRequest,
    ) -> Result<Page<Object>> {
        objects_only(req)?;
        objects_of(self.list(p, Collection::Object, source, req)?)
    }

    /// Typed [`list_with_next`](Self::list_with_next): [`objects`](Self::objects), with the
    /// cursor of the next page (the `_after` that reads it) when objects follow a plain list's
    /// page.
    ///
    /// ```
    /// use platform_core::api::{ListRequest, objects::Object, Params, Source};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// for id in ["A", "B", "C"] {
    ///     platform.objects().save_object(&me, &Object::new(id), &Default::default())?;
    /// }
    /// let first = ListRequest::from_params(&Params::from_slice(&[("_limit", "2")]))?;
    /// let (page, next) = platform.objects().objects_with_next(&me, Source::Private, &first)?;
    /// assert_eq!(page.items.len(), 2);
    /// let rest = ListRequest::from_params(&Params::from_slice(&[("_limit", "2"), ("_after", next.as_deref().unwrap())]))?;
    /// let (page, next) = platform.objects().objects_with_next(&me, Source::Private, &rest)?;
    /// assert_eq!((page.items[0].id.as_str(), next), ("C", None));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn objects_with_next(
        &self,
        p: &Principal,
        source: Source,
        req: &ListRequest,
    ) -> Result<(Page<Object>, Option<String>)> {
        objects_only(req)?;
        let (page, next) = self.list_with_next(p, Collection::Object, source, req)?;
        Ok((objects_of(page)?, next))
    }

    /// The current objects with these ids, each from the source its id names, in the order of
    /// `ids`; ids not found are left out.
    ///
    /// ```
    /// use platform_core::api::objects::Object;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.objects().save_object(&me, &Object::new("NBP").with("zone", "UK"), &Default::default())?;
    /// platform.objects().save_object(&me, &Object::new("TTF").with("zone", "NL"), &Default::default())?;
    /// let found = platform.objects().objects_by_id(&me, &["TTF", "NOPE", "NBP"])?;
    /// let zones: Vec<&str> = found.iter().map(|o| o.properties["zone"].as_str().unwrap()).collect();
    /// assert_eq!(zones, ["NL", "UK"]);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn objects_by_id(&self, p: &Principal, ids: &[&str]) -> Result<Vec<Object>> {
        let found = self.get_many(p, Collection::Object, ids, None)?;
        found.into_iter().map(answered_object).collect()
    }
}

#[cfg(test)]
mod tests;
