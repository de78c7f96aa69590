//! The object service: [`Objects`], a handle on the documents of every collection.

use crate::Platform;

/// Versioned documents: objects (master data), and the documents of the other collections
/// (types, scripts, validation configurations, extension drafts), with their versions, tags,
/// rollbacks, deletions and lists. From [`Platform::objects`].
///
/// The typed calls (`save_object`, `object`, `object_at`, `roll_back`, `objects`...) work on objects as
/// `Object`s; the JSON
/// calls take a [`crate::api::Collection`] and work on any document as JSON.
///
/// The service holds the platform it runs on (the store documents are versions in, the clock,
/// the types, validation and events a save sets off) and, for a snapshot's handle, the
/// snapshot its one-item reads are made in. Its reads are in `documents::read`; its saves, tags
/// and deletions, with everything they set off, in `crate::save`; `api` adds the typed
/// `Object` over them.
///
/// ```
/// use platform_core::api::objects::Object;
/// let platform = platform_core::Platform::in_memory()?;
/// let me = platform.tenancy().local_principal("default", "me")?;
/// let objects = platform.objects();
///
/// objects.save_object(&me, &Object::new("NBP").with("name", "UK gas hub"), &Default::default())?;
/// let v2 = objects.save_object(&me, &Object::new("NBP").with("units", "therm"), &Default::default())?;
/// assert_eq!(v2.version, Some(2));
/// assert_eq!(v2.properties["name"], "UK gas hub"); // a save merges by default
///
/// assert_eq!(objects.roll_back(&me, "NBP", Some("units were wrong"))?, Some(1));
/// assert!(objects.object(&me, "NBP")?.properties.get("units").is_none());
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Objects<'p> {
    pub(crate) platform: &'p Platform,
    /// The snapshot its one-item reads are made in, for a handle of [`crate::Snapshot`].
    snapshot: Option<&'p crate::Snapshot<'p>>,
}

impl<'p> Objects<'p> {
    pub(crate) fn of(platform: &'p Platform, snapshot: Option<&'p crate::Snapshot<'p>>) -> Self {
        Objects { platform, snapshot }
    }

    /// The read transaction of its snapshot, if it has one.
    pub(crate) fn tx(&self) -> Option<&'p dyn crate::store::ReadTx> {
        self.snapshot.map(|s| s.tx())
    }
}
