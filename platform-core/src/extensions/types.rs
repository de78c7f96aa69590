//! The extensions a program writes and reads: [`Extension`] and [`StoredExtension`], with their
//! [`ExtensionView`]s, [`ExtensionResources`] and [`Permission`]s, and the answers of an install
//! and an uninstall ([`InstalledExtension`], [`UninstalledExtension`]). Their JSON forms (the
//! wire's) are written in `form`.

use crate::error::{Error, Result};
use crate::query::Params;
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// The order of a document's fields as stored, which its JSON form keeps. It is how the
/// document is written, not what it holds: two orders are always equal, as two JSON objects
/// with the same fields are.
#[derive(Debug, Clone, Default)]
pub(super) struct Order(pub(super) Vec<String>);

impl PartialEq for Order {
    fn eq(&self, _: &Order) -> bool {
        true
    }
}

/// A permission an extension asks for and an installer grants: `secret:<id>`, reading the
/// installing tenant's secret `<id>` from the extension's scripts and views.
///
/// ```
/// use platform_core::api::extensions::Permission;
/// let p: Permission = "secret:feed".parse()?;
/// assert_eq!(p, Permission::secret("feed"));
/// assert_eq!(p.to_string(), "secret:feed");
/// assert!("feed".parse::<Permission>().is_err());
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Permission {
    /// Reading the secret with this id (`secret:<id>`).
    Secret(String),
}

impl Permission {
    /// The permission to read the secret `id`.
    pub fn secret(id: impl Into<String>) -> Permission {
        Permission::Secret(id.into())
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Permission::Secret(id) => write!(f, "secret:{id}"),
        }
    }
}

impl FromStr for Permission {
    type Err = Error;

    /// Reads `secret:<id>` (the id is checked by the service that receives it).
    fn from_str(text: &str) -> Result<Permission> {
        match text.strip_prefix("secret:") {
            Some(id) => Ok(Permission::Secret(id.to_string())),
            None => Err(Error::invalid_body(format!(
                "\"{text}\" is not a permission: expected secret:<id>"
            ))),
        }
    }
}

impl TryFrom<String> for Permission {
    type Error = Error;

    fn try_from(text: String) -> Result<Permission> {
        text.parse()
    }
}

impl From<Permission> for String {
    fn from(p: Permission) -> String {
        p.to_string()
    }
}

/// A lifecycle step of an extension, and the name of its script under `resources.script`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lifecycle {
    /// A first install (`install`): its script runs once the resources are copied.
    Install,
    /// An install over an older installed version (`upgrade`).
    Upgrade,
    /// An uninstall (`uninstall`): its script runs once the resources are removed.
    Uninstall,
}

impl Lifecycle {
    /// Its name: `install`, `upgrade` or `uninstall`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lifecycle::Install => "install",
            Lifecycle::Upgrade => "upgrade",
            Lifecycle::Uninstall => "uninstall",
        }
    }
}

/// The resources of one service an extension carries: an array of ids, or names to ids (in
/// the order they are written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceIds {
    /// An array of ids.
    List(Vec<String>),
    /// Names to ids (under `script`, the names `install`, `upgrade` and `uninstall` name the
    /// lifecycle scripts).
    Named(IndexMap<String, String>),
}

impl ResourceIds {
    /// The ids, in either form.
    pub fn ids(&self) -> Vec<&str> {
        match self {
            ResourceIds::List(ids) => ids.iter().map(String::as_str).collect(),
            ResourceIds::Named(names) => names.values().map(String::as_str).collect(),
        }
    }
}

/// The resources an extension carries (`resources`): service names (`object`, `type`,
/// `script`) to the ids of their items, copied into the installing tenant's private source
/// (public `#` ids are shared, not copied). Its JSON form keeps the order they are written in.
///
/// ```
/// use platform_core::api::{extensions::ExtensionResources, extensions::Lifecycle};
/// let r = ExtensionResources::default()
///     .with("object", "HUBLIST")
///     .with_script(Lifecycle::Install, "acme-install");
/// assert_eq!(r.ids("object"), ["HUBLIST"]);
/// assert_eq!(r.script(Lifecycle::Install), Some("acme-install"));
/// assert_eq!(
///     serde_json::to_string(&r).unwrap(),
///     r#"{"object":["HUBLIST"],"script":{"install":"acme-install"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtensionResources {
    /// Each service's resources.
    pub services: IndexMap<String, ResourceIds>,
}

impl ExtensionResources {
    /// The same resources with `id` added to `service` (by its own id as name when the
    /// service's resources are named).
    pub fn with(mut self, service: &str, id: impl Into<String>) -> ExtensionResources {
        let id = id.into();
        match self
            .services
            .entry(service.to_string())
            .or_insert_with(|| ResourceIds::List(Vec::new()))
        {
            ResourceIds::List(ids) => ids.push(id),
            ResourceIds::Named(names) => {
                names.insert(id.clone(), id);
            }
        }
        self
    }

    /// The same resources with `id` named `name` under `service` (ids listed before are named
    /// by themselves).
    pub fn with_named(
        mut self,
        service: &str,
        name: impl Into<String>,
        id: impl Into<String>,
    ) -> ExtensionResources {
        let entry = self
            .services
            .entry(service.to_string())
            .or_insert_with(|| ResourceIds::Named(IndexMap::new()));
        if let ResourceIds::List(ids) = entry {
            let named = ids.iter().map(|i| (i.clone(), i.clone())).collect();
            *entry = ResourceIds::Named(named);
        }
        if let ResourceIds::Named(names) = entry {
            names.insert(name.into(), id.into());
        }
        self
    }

    /// The same resources with script `id` as the script of lifecycle step `step`.
    pub fn with_script(self, step: Lifecycle, id: impl Into<String>) -> ExtensionResources {
        self.with_named("script", step.as_str(), id)
    }

    /// The ids of `service`'s resources.
    pub fn ids(&self, service: &str) -> Vec<&str> {
        self.services
            .get(service)
            .map(ResourceIds::ids)
            .unwrap_or_default()
    }

    /// The id of the script of lifecycle step `step`, if there is one.
    pub fn script(&self, step: Lifecycle) -> Option<&str> {
        match self.services.get("script")? {
            ResourceIds::Named(names) => names.get(step.as_str()).map(String::as_str),
            ResourceIds::List(_) => None,
        }
    }
}

/// A view of an extension, shown in the portal or the spreadsheet add-in. What is `None` is
/// not sent; a stored view has `section` (default `Extension`), `tabname` (default `Main`),
/// `excel` and `insights` (default false). A view read from the store writes its fields in
/// the order they are stored.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtensionView {
    /// The view's name, unique in the extension.
    pub name: String,
    /// What it shows.
    pub description: Option<String>,
    /// The template script holding the view's code.
    pub script: Option<String>,
    /// The feature a user needs to see it.
    pub feature: Option<String>,
    /// The menu section.
    pub section: Option<String>,
    /// The tab name.
    pub tabname: Option<String>,
    /// The name in the Apps tab.
    pub appname: Option<String>,
    /// Icon name.
    pub icon: Option<String>,
    /// Whether it is a spreadsheet add-in view.
    pub excel: Option<bool>,
    /// Whether it adds an Insights tab.
    pub insights: Option<bool>,
    /// Its other fields, sent as they are; a stored field whose value is not of its field's
    /// type (a null, a number for a text) is kept here too.
    pub other: Map<String, Value>,
    /// The order of its fields as stored.
    pub(super) order: Order,
}

impl ExtensionView {
    /// A view `name` rendered by the template script `script`.
    pub fn new(name: impl Into<String>, script: impl Into<String>) -> ExtensionView {
        ExtensionView {
            name: name.into(),
            script: Some(script.into()),
            ..ExtensionView::default()
        }
    }
}

/// An extension draft as a program writes it: what is `None` is not sent, and stays as stored
/// (a save merges into the stored draft). The service checks it as it checks any extension
/// document, so an id other than `<publisher>.<code>` is refused. One read from the store
/// writes its fields in the order they are stored.
///
/// ```
/// use platform_core::api::{extensions::Extension, extensions::Lifecycle, extensions::Permission};
/// let e = Extension::new("acme", "prices")
///     .with_name("Prices")
///     .with_resource("object", "HUBLIST")
///     .with_script(Lifecycle::Install, "acme-install")
///     .with_permission(Permission::secret("feed"));
/// assert_eq!(e.id, "acme.prices");
/// assert_eq!(
///     serde_json::to_value(&e).unwrap(),
///     serde_json::json!({"_id": "acme.prices", "publisher": "acme", "code": "prices",
///         "name": "Prices", "permissions": ["secret:feed"],
///         "resources": {"object": ["HUBLIST"], "script": {"install": "acme-install"}}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Extension {
    /// Its id (`_id`): `<publisher>.<code>`.
    pub id: String,
    /// The publisher: the tenant that may publish it.
    pub publisher: String,
    /// Its code, unique for the publisher.
    pub code: String,
    /// Display name.
    pub name: Option<String>,
    /// The long description of the catalogue.
    pub description: Option<String>,
    /// Icon name.
    pub icon: Option<String>,
    /// Its views.
    pub views: Option<Vec<ExtensionView>>,
    /// The resources it carries.
    pub resources: Option<ExtensionResources>,
    /// The permissions it asks for.
    pub permissions: Option<Vec<Permission>>,
    /// Its other fields, sent as they are; a stored field whose value is not of its field's
    /// type (a null, a number for a name) is kept here too.
    pub other: Map<String, Value>,
    /// The order of its fields as stored (those of [`StoredExtension`] among them).
    pub(super) order: Order,
}

impl Extension {
    /// A new extension `<publisher>.<code>`.
    pub fn new(publisher: impl Into<String>, code: impl Into<String>) -> Extension {
        let (publisher, code) = (publisher.into(), code.into());
        Extension {
            id: format!("{publisher}.{code}"),
            publisher,
            code,
            ..Extension::default()
        }
    }

    /// The same extension with a display name.
    pub fn with_name(self, name: impl Into<String>) -> Extension {
        Extension {
            name: Some(name.into()),
            ..self
        }
    }

    /// The same extension with a view more.
    pub fn with_view(mut self, view: ExtensionView) -> Extension {
        self.views.get_or_insert_with(Vec::new).push(view);
        self
    }

    /// The same extension carrying `id` of `service` too.
    pub fn with_resource(mut self, service: &str, id: impl Into<String>) -> Extension {
        let resources = self.resources.take().unwrap_or_default();
        self.resources = Some(resources.with(service, id));
        self
    }

    /// The same extension with script `id` as its script of lifecycle step `step`.
    pub fn with_script(mut self, step: Lifecycle, id: impl Into<String>) -> Extension {
        let resources = self.resources.take().unwrap_or_default();
        self.resources = Some(resources.with_script(step, id));
        self
    }

    /// The same extension asking for `permission` too.
    pub fn with_permission(mut self, permission: Permission) -> Extension {
        self.permissions
            .get_or_insert_with(Vec::new)
            .push(permission);
        self
    }
}

/// An extension as stored: a draft, a catalogue entry (published) or an installed copy, with
/// its version and last write. Its JSON form is the stored document's, field for field and in
/// the stored order (`_type` and the system fields `_oid`, `_timestamp`, `_user`, `_tag`,
/// `_version`, `_reason` included).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredExtension {
    /// The extension.
    pub extension: Extension,
    /// Its version (`_version`).
    pub version: u32,
    /// When it was last written (`_timestamp`).
    pub timestamp: DateTime<Utc>,
    /// Who last wrote it (`_user`).
    pub user: String,
    /// The tags of this version (`_tag`).
    pub tags: Vec<String>,
    /// Why it was written (`_reason`), when told.
    pub reason: Option<String>,
    /// The tenant that published it (`_publishedBy`): set on catalogue entries and installed
    /// copies.
    pub published_by: Option<String>,
    /// The published version an installed copy is of (`_installedVersion`).
    pub installed_version: Option<u32>,
    /// The permissions an installed copy was granted (`_accepted`).
    pub accepted: Option<Vec<Permission>>,
}

impl StoredExtension {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.extension.id
    }
}

/// What a lifecycle script of an extension did. Its JSON form: `{"id", "ok": true, "result"}`,
/// or `{"id", "ok": false, "error"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct LifecycleRun {
    /// The script's id (`id`).
    pub script: String,
    /// What it answered (`result`), or why it failed or did not run (`error`): a failure
    /// after the resources were copied leaves the copy in place.
    pub outcome: std::result::Result<Value, String>,
}

impl LifecycleRun {
    /// Whether the script ran to its end (`ok`).
    pub fn ok(&self) -> bool {
        self.outcome.is_ok()
    }
}

/// The permissions an installer grants the extension it installs, as sent
/// (`_accept=secret:<id>`, repeated or comma-separated): the install refuses one the
/// extension does not ask for, naming it.
///
/// ```
/// use platform_core::api::{extensions::Acceptance, Params, extensions::Permission};
/// let sent = Params::from_slice(&[("_accept", "secret:feed, secret:smtp"), ("_accept", "")]);
/// let granted = Acceptance::of([Permission::secret("feed"), Permission::secret("smtp")]);
/// assert_eq!(Acceptance::from_params(&sent), granted);
/// assert_eq!(Acceptance::from_params(&Params::default()), Acceptance::default());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Acceptance {
    /// Each permission granted, as sent.
    pub(super) accepted: Vec<String>,
}

impl Acceptance {
    /// Granting `permissions`.
    pub fn of(permissions: impl IntoIterator<Item = Permission>) -> Acceptance {
        Acceptance {
            accepted: permissions.into_iter().map(String::from).collect(),
        }
    }

    /// The `_accept` parameters of an install: every value, a comma-separated one split, the
    /// blanks left out.
    pub fn from_params(params: &Params) -> Acceptance {
        let accepted = params
            .all("_accept")
            .into_iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        Acceptance { accepted }
    }
}

/// The answer of an install or upgrade of an extension.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstalledExtension {
    /// The extension (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// [`Lifecycle::Install`], or [`Lifecycle::Upgrade`] over an older installed version.
    pub action: Lifecycle,
    /// Whether it is installed (always true).
    pub installed: bool,
    /// The published version installed.
    pub version: u32,
    /// The permissions it asks for, as its catalogue entry lists them (empty when it lists
    /// none); `None` (null) when the entry holds null, which only a write of the entry by hand
    /// leaves (a publish always lists them).
    pub permissions: Option<Vec<Permission>>,
    /// The permissions granted to it.
    pub accepted: Vec<Permission>,
    /// What the `install` (or `upgrade`) script did; `None` when the extension has none.
    pub script: Option<LifecycleRun>,
}

/// The answer of an uninstall of an extension.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UninstalledExtension {
    /// The extension (`_id`).
    #[serde(rename = "_id")]
    pub id: String,
    /// [`Lifecycle::Uninstall`].
    pub action: Lifecycle,
    /// Whether it is installed (always false).
    pub installed: bool,
    /// What the `uninstall` script did; `None` when the extension has none.
    pub script: Option<LifecycleRun>,
}
