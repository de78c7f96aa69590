//! Where an id lives (its scope through a named source), who may write there, and a version
//! reference resolved to a number.

use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::ids::{Scope, Source, VersionRef};
use crate::store::{Collection, ReadTx};

/// Resolves a version reference to an existing version number.
pub(crate) fn resolve_version(
    tx: &dyn ReadTx,
    coll: Collection,
    scope: &Scope,
    id: &str,
    which: &VersionRef,
) -> Result<u32> {
    let missing = || Error::not_found(format!("{} \"{id}\" has no {which}", coll.noun()));
    let number = match which {
        VersionRef::Number(n) => *n,
        VersionRef::Tag(tag) => tx.tagged(coll, scope, id, tag)?.ok_or_else(missing)?,
        VersionRef::AsOf(at) => {
            VersionRef::pick_as_of(*at, &tx.versions(coll, scope, id)?).ok_or_else(missing)?
        }
    };
    tx.version(coll, scope, id, number)?.ok_or_else(missing)?;
    Ok(number)
}

/// The scope of an id read through a named source (an id of the other source is not there).
pub(crate) fn scope_for_key(
    p: &Principal,
    coll: Collection,
    source: Source,
    id: &str,
) -> Result<Scope> {
    if !coll.sourced_by_hash() {
        return match source {
            Source::All => Err(Error::not_found(format!(
                "the all source is for objects and data; read {}s from public or private",
                coll.noun()
            ))),
            s => Ok(Scope::for_source(s, p)),
        };
    }
    let home = Source::of_id(id);
    match source {
        Source::All => Ok(Scope::for_source(home, p)),
        s if s == home => Ok(Scope::for_source(s, p)),
        s => Err(Error::not_found(format!(
            "{} \"{id}\" not found in the {s} source",
            coll.noun()
        ))),
    }
}

/// Writes name their source: `all` is for reading from both.
pub(crate) fn refuse_all(source: Source) -> Result<()> {
    if source == Source::All {
        return Err(Error::invalid_parameter(
            "cannot write to the all source: use public or private",
        ));
    }
    Ok(())
}

/// Fails unless the caller may write documents of a collection to a scope.
pub(crate) fn require_write(p: &Principal, coll: Collection, scope: &Scope) -> Result<()> {
    p.require_write(scope, coll.noun())?;
    if coll == Collection::Extension {
        p.require(crate::auth::Role::Admin, "writing extensions")?;
    }
    Ok(())
}

pub(crate) fn not_found(coll: Collection, id: &str, source: Source) -> Error {
    Error::not_found(format!(
        "{} \"{id}\" not found in the {source} source",
        coll.noun()
    ))
}
