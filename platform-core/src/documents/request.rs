//! A list request: filters, `#type`, `_search`, `_searchinfo`, `_distinct`, sort, projection
//! and paging read from the query parameters.

use crate::error::{Error, Result};
use crate::query::sort::check_field;
use crate::query::{
    filter, search, Cursor, Filter, ListQuery, Paging, Params, Projection, SortSpec,
};
use serde_json::Value;

/// The fields a `_search` result carries (with `_id`), before `_project` adds more.
pub const SEARCH_RESULT_FIELDS: [&str; 4] =
    ["name", "description", "classification", "geolocation"];

/// A parsed list request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListRequest {
    /// What the store evaluates (filters, order, page).
    pub query: ListQuery,
    /// Fields to return.
    pub project: Option<Projection>,
    /// `#type=T`: T and every type that extends it (resolved when the list runs).
    pub type_tree: Option<String>,
    /// `_distinct=field`: return the distinct string values of the field instead of items.
    pub distinct: Option<String>,
    /// `_searchinfo=text`: return `{_id, name}` of items whose id or name starts with the text.
    pub searchinfo: Option<String>,
    /// `_id=...` (repeated): fetch these ids, each from its own source (only from `all`).
    pub ids: Vec<String>,
    /// `_asof=<instant>`: list the version of each document that was current then.
    pub as_of: Option<chrono::DateTime<chrono::Utc>>,
    /// `_after=<cursor>`: the keyset page after the item the cursor was made from.
    pub after: Option<Cursor>,
}

impl ListRequest {
    /// Reads every list parameter: `field=value` filters (system fields such as `_user` or
    /// `_objid` included), `_filter`, `_type`, `#type`, `_search`, `_searchinfo`, `_distinct`,
    /// `_sort`, `_project`, `_limit`, `_skip`, `_after`, `_count`. Other standard parameters belong to other
    /// features and are left alone; an unknown one starting with `_` is refused, and so is
    /// `_function` (a list that has functions answers them before it reads a list request).
    pub fn from_params(params: &Params) -> Result<ListRequest> {
        params.check_names()?;
        let as_of = match params.get("_asof").map(crate::ids::VersionRef::as_of) {
            Some(Ok(crate::ids::VersionRef::AsOf(at))) => Some(at),
            Some(Err(e)) => return Err(e),
            _ => None,
        };
        if let Some(function) = params.get("_function") {
            return Err(Error::invalid_parameter(format!(
                "unknown _function \"{function}\" on a list"
            )));
        }
        let mut parts = Vec::new();
        let mut type_tree = None;
        for (key, value) in params.pairs() {
            match key.as_str() {
                "#type" => type_tree = Some(value.clone()),
                // `_id` fetches by id (`all`) and `_type` is the type filter below.
                "_id" | "_type" => {}
                // The tags of the current version: a document carrying the tag matches.
                "_tag" if !value.ends_with(')') => parts.push(Filter::Eq {
                    path: key.clone(),
                    value: Value::String(value.clone()),
                }),
                k if crate::query::params::SYSTEM_FIELDS.contains(&k) => {
                    parts.push(filter::parse_param(k, value)?)
                }
                k if k.starts_with('_') => {}
                k => parts.push(filter::parse_param(k, value)?),
            }
        }
        if let Some(t) = params.get("_type") {
            parts.push(Filter::TypeIn(vec![t.to_string()]));
        }
        if let Some(f) = params.get("_filter") {
            parts.push(filter::parse_json_filter(f)?);
        }
        let mut project = Projection::from_params(params)?;
        if let Some(text) = params.get("_search") {
            parts.push(search::parse(text)?);
            project = Some(match project {
                Some(p) if p.is_include() => p.with_fields(&SEARCH_RESULT_FIELDS),
                _ => Projection::include(&SEARCH_RESULT_FIELDS),
            });
        }
        let distinct = match params.get("_distinct") {
            Some(field) => {
                check_field(field)
                    .map_err(|why| Error::invalid_parameter(format!("invalid _distinct: {why}")))?;
                Some(field.to_string())
            }
            None => None,
        };
        let sort = params
            .get("_sort")
            .map(SortSpec::parse)
            .transpose()?
            .unwrap_or_default();
        let filter = Filter::and(parts);
        filter.check_size()?;
        let after = match params.get("_after") {
            None => None,
            Some(text) => {
                // A keyset page of a plain list: the other ways to page or shape a list
                // would each give the cursor another meaning.
                for other in [
                    "_skip",
                    "_asof",
                    "_distinct",
                    "_searchinfo",
                    "_id",
                    "_profile",
                ] {
                    if params.get(other).is_some() {
                        return Err(Error::invalid_parameter(format!(
                            "_after pages a list by cursor: not with {other}"
                        )));
                    }
                }
                Some(Cursor::decode(text, &sort)?)
            }
        };
        Ok(ListRequest {
            query: ListQuery {
                filter,
                sort,
                paging: Paging::from_params(params)?,
                total: crate::query::Total::from_params(params)?,
            },
            project,
            type_tree,
            distinct,
            searchinfo: params.get("_searchinfo").map(filter::fold),
            ids: params.all("_id").into_iter().map(str::to_string).collect(),
            as_of,
            after,
        })
    }
}
