//! `platform object get|put|list|delete`: on a database file through the core, or on a server
//! through its REST interface (`--url` and `--token`). Both print the same JSON.

use clap::Subcommand;
use platform_core::api::Collection;
use platform_core::api::Params;
use platform_core::api::{objects::DeleteTarget, objects::SaveOptions, ListRequest};
use platform_core::api::{Source, VersionRef};
use platform_core::Result;
use serde_json::Value;
use std::path::PathBuf;

use crate::output::{self, Format};
use crate::remote::segment;
use crate::target::{pairs, print_total, Answer, Call, File, Http, TargetArgs};

#[derive(Subcommand)]
pub enum ObjectCommand {
    /// Print one object, or one version of it.
    Get {
        #[command(flatten)]
        target: TargetArgs,
        /// Object id ('#' ids are public).
        key: String,
        /// A version number or tag.
        #[arg(long)]
        version: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Save the JSON object or array in FILE (or standard input).
    Put {
        #[command(flatten)]
        target: TargetArgs,
        /// A JSON file; '-' or nothing reads standard input.
        file: Option<PathBuf>,
        /// Replace instead of merge.
        #[arg(long)]
        replace: bool,
        /// The reason stored with the new version.
        #[arg(long)]
        reason: Option<String>,
    },
    /// List objects of a source; the total goes to standard error.
    List {
        #[command(flatten)]
        target: TargetArgs,
        /// public, private or all.
        #[arg(long, default_value = "private")]
        source: String,
        /// Query parameters as key=value (e.g. _limit=10 _sort=-name _type=%23Fund).
        params: Vec<String>,
        /// Output format (table and csv: every field the objects hold).
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// Delete the latest version (rollback), one version, or all.
    Delete {
        #[command(flatten)]
        target: TargetArgs,
        /// Object id.
        key: String,
        /// Delete this version (number or tag) instead of the latest.
        #[arg(long, conflicts_with = "all")]
        version: Option<String>,
        /// Delete every version.
        #[arg(long)]
        all: bool,
        /// The reason recorded.
        #[arg(long)]
        reason: Option<String>,
    },
}

pub fn run(cmd: ObjectCommand) -> Result<()> {
    let mut format = Format::Json;
    let out = match cmd {
        ObjectCommand::Get {
            target,
            key,
            version,
            format: f,
        } => {
            format = f;
            target.open()?.send(GetObject { key, version })?.body
        }
        ObjectCommand::Put {
            target,
            file,
            replace,
            reason,
        } => {
            let body = crate::input::read_json(file.as_deref())?;
            let save = SaveObject {
                body,
                replace,
                reason,
            };
            target.open()?.send(save)?.body
        }
        ObjectCommand::List {
            target,
            source,
            params,
            format: f,
        } => {
            format = f;
            let list = ListObjects {
                source: source.parse()?,
                pairs: pairs(&params)?,
            };
            let answer = target.open()?.send(list)?;
            print_total(answer.total);
            answer.body
        }
        ObjectCommand::Delete {
            target,
            key,
            version,
            all,
            reason,
        } => {
            let delete = DeleteObject {
                key,
                version,
                all,
                reason,
            };
            target.open()?.send(delete)?.body
        }
    };
    // Table and CSV: one row per object (a list), or the one object; every field it holds.
    let rows = || match &out {
        Value::Array(items) => output::Table::of_all(items),
        one => output::Table::of_all(std::slice::from_ref(one)),
    };
    output::print(format, &out, rows, "")
}

/// One object (`GET object/v1/{source}/{key}[/{version}]`).
pub struct GetObject {
    /// Its id (`#` ids are public).
    pub key: String,
    /// A version number or tag.
    pub version: Option<String>,
}

impl Call for GetObject {
    fn local(self, file: &File) -> Result<Answer> {
        let version = self
            .version
            .as_deref()
            .map(str::parse::<VersionRef>)
            .transpose()?;
        let source = Source::of_id(&self.key);
        file.platform()
            .objects()
            .get(
                file.who()?,
                Collection::Object,
                source,
                &self.key,
                version.as_ref(),
                None,
            )
            .map(Answer::of)
    }

    fn http(self) -> Http {
        let mut path = format!(
            "object/v1/{}/{}",
            Source::of_id(&self.key),
            segment(&self.key)
        );
        if let Some(v) = self.version {
            path = format!("{path}/{}", segment(&v));
        }
        Http::get(path, Vec::new())
    }
}

/// Saves an object or an array of them (`POST object/v1`).
struct SaveObject {
    body: Value,
    replace: bool,
    reason: Option<String>,
}

impl Call for SaveObject {
    fn local(self, file: &File) -> Result<Answer> {
        let opts = SaveOptions {
            replace: self.replace,
            reason: self.reason,
            ..SaveOptions::default()
        };
        file.platform()
            .objects()
            .save(file.who()?, Collection::Object, self.body, &opts)
            .map(Answer::of)
    }

    fn http(self) -> Http {
        let mut query = Vec::new();
        if self.replace {
            query.push(("_replace".to_string(), "true".to_string()));
        }
        if let Some(reason) = self.reason {
            query.push(("_reason".to_string(), reason));
        }
        Http::post("object/v1".into(), query, self.body)
    }
}

/// Lists the objects of a source (`GET object/v1/{source}`).
struct ListObjects {
    source: Source,
    pairs: Vec<(String, String)>,
}

impl Call for ListObjects {
    fn local(self, file: &File) -> Result<Answer> {
        let request = ListRequest::from_params(&Params::new(self.pairs))?;
        let page = file.platform().objects().list(
            file.who()?,
            Collection::Object,
            self.source,
            &request,
        )?;
        Ok(Answer::page(page.items, page.total, page.estimated))
    }

    fn http(self) -> Http {
        Http::get(format!("object/v1/{}", self.source), self.pairs)
    }
}

/// Deletes the latest version, one version or all (`DELETE object/v1/{source}/{key}[/...]`).
struct DeleteObject {
    key: String,
    /// One version (number or tag) instead of the latest.
    version: Option<String>,
    /// Every version.
    all: bool,
    reason: Option<String>,
}

impl Call for DeleteObject {
    fn local(self, file: &File) -> Result<Answer> {
        let what = match (self.all, &self.version) {
            (true, _) => DeleteTarget::All,
            (false, Some(v)) => DeleteTarget::Version(v.parse()?),
            (false, None) => DeleteTarget::Latest,
        };
        file.platform()
            .objects()
            .delete(
                file.who()?,
                Collection::Object,
                Source::of_id(&self.key),
                &self.key,
                &what,
                self.reason.as_deref(),
            )
            .and_then(|gone| Answer::typed(&gone))
    }

    fn http(self) -> Http {
        let mut path = format!(
            "object/v1/{}/{}",
            Source::of_id(&self.key),
            segment(&self.key)
        );
        if self.all {
            path.push_str("/*");
        } else if let Some(v) = &self.version {
            path = format!("{path}/{}", segment(v));
        }
        Http {
            method: "DELETE",
            path,
            query: self
                .reason
                .into_iter()
                .map(|r| ("_reason".to_string(), r))
                .collect(),
            body: None,
        }
    }
}
