//! The requests of `platform validate`, each the same on a database file and on a server: the
//! functions of the validation service, its records, statistics and jobs, and validation
//! configurations.

use platform_core::api::Collection;
use platform_core::api::Params;
use platform_core::api::{objects::SaveOptions, ListRequest};
use platform_core::api::{
    validation::RecordsAction, validation::StatsQuery, validation::SuggestionRequest,
    validation::TuningRequest,
};
use platform_core::api::{
    validation::ValidationBatch, validation::ValidationRequest, Source, VersionRef,
};
use platform_core::{Error, Result};
use platform_server::wire::to_wire;
use serde_json::Value;

use crate::remote::segment;
use crate::target::{Answer, Call, File, Http};

/// A function of the validation service that takes a JSON body (`POST
/// validation/v1?_function=NAME`): run, test, runMany, suggest, tune, override, removeOverride
/// or comment.
pub struct Function {
    /// The function's name.
    pub name: &'static str,
    /// Its request body.
    pub body: Value,
    /// Over HTTP, how many seconds the server waits for a run that goes to the background
    /// (`_wait`) before it answers the queued job. On a file the command follows the job
    /// itself.
    pub wait: Option<u64>,
}

impl Function {
    /// The function `name` with `body`, answered at once.
    pub fn new(name: &'static str, body: Value) -> Function {
        Function {
            name,
            body,
            wait: None,
        }
    }
}

impl Call for Function {
    fn local(self, file: &File) -> Result<Answer> {
        let (platform, who) = (file.platform(), file.who()?);
        let validation = platform.validation();
        let body = &self.body;
        match self.name {
            "run" => Answer::typed(&validation.run(who, &ValidationRequest::from_body(body)?)?),
            "test" => Answer::typed(&validation.test(who, &ValidationRequest::from_body(body)?)?),
            "runMany" => {
                Answer::typed(&validation.run_batch(who, &ValidationBatch::from_body(body)?)?)
            }
            "suggest" => {
                Answer::typed(&validation.suggest(who, &SuggestionRequest::from_body(body)?)?)
            }
            "tune" => Answer::typed(&validation.tune(who, &TuningRequest::from_body(body)?)?),
            "override" | "removeOverride" | "comment" => {
                // The caller may act on records before the body is read, as the server asks.
                validation.may_act_on_records(who, self.name)?;
                let outcomes = match RecordsAction::from_body(self.name, body)? {
                    RecordsAction::Override { ids, reason } => {
                        validation.override_records(who, &ids, &reason)?
                    }
                    RecordsAction::RemoveOverride { ids } => {
                        validation.remove_overrides(who, &ids)?
                    }
                    RecordsAction::Comment { ids, message } => {
                        validation.comment_records(who, &ids, &message)?
                    }
                };
                Answer::typed(&outcomes)
            }
            other => Err(Error::invalid_parameter(format!(
                "no validation function \"{other}\""
            ))),
        }
    }

    fn http(self) -> Http {
        let mut query = vec![("_function".to_string(), self.name.to_string())];
        if let Some(secs) = self.wait {
            query.push(("_wait".to_string(), secs.to_string()));
        }
        Http::post("validation/v1".into(), query, self.body)
    }
}

/// The dashboard statistics (`GET validation/v1?_function=stats`).
pub struct Stats {
    /// from, to, target, kind, group.
    pub pairs: Vec<(String, String)>,
}

impl Call for Stats {
    fn local(self, file: &File) -> Result<Answer> {
        let query = StatsQuery::from_params(&Params::new(self.pairs))?;
        Answer::typed(&file.platform().validation().stats(file.who()?, &query)?)
    }

    fn http(self) -> Http {
        let mut query = vec![("_function".to_string(), "stats".to_string())];
        query.extend(self.pairs);
        Http::get("validation/v1".into(), query)
    }
}

/// The background jobs, newest first (`GET validation/v1?_function=jobs`).
pub struct Jobs;

impl Call for Jobs {
    fn local(self, file: &File) -> Result<Answer> {
        let jobs = file.platform().jobs().jobs(file.who()?)?;
        Answer::typed(&jobs)
    }

    fn http(self) -> Http {
        Http::get(
            "validation/v1".into(),
            vec![("_function".to_string(), "jobs".to_string())],
        )
    }
}

/// The validation records, filtered, sorted and paged like objects (`GET validation/v1`).
pub struct Records {
    /// The query parameters (`status=failing`, `target=...`, `_sort`, `_limit`...).
    pub pairs: Vec<(String, String)>,
}

impl Call for Records {
    fn local(self, file: &File) -> Result<Answer> {
        let request = ListRequest::from_params(&Params::new(self.pairs))?;
        let validation = file.platform().validation();
        // A projection or `_distinct` answers values of records, else whole records.
        if request.project.is_some() || request.distinct.is_some() {
            let page = validation.record_values(file.who()?, &request)?;
            return Ok(Answer::page(page.items, page.total, page.estimated));
        }
        let page = validation.records(file.who()?, &request)?;
        let items = page.items.iter().map(to_wire).collect::<Result<_>>()?;
        Ok(Answer::page(items, page.total, page.estimated))
    }

    fn http(self) -> Http {
        Http::get("validation/v1".into(), self.pairs)
    }
}

/// The validation configuration of a data item, or one version of it (`GET
/// validationconfig/v1/{id}[/{version}]`).
pub struct GetConfig {
    /// The data item, OBJECT:PROPERTY.
    pub target: String,
    /// A version number or tag.
    pub version: Option<String>,
}

impl Call for GetConfig {
    fn local(self, file: &File) -> Result<Answer> {
        let version = self
            .version
            .as_deref()
            .map(str::parse::<VersionRef>)
            .transpose()?;
        file.platform()
            .objects()
            .get(
                file.who()?,
                Collection::ValidationConfig,
                Source::Private,
                &self.target,
                version.as_ref(),
                None,
            )
            .map(Answer::of)
    }

    fn http(self) -> Http {
        let mut path = format!("validationconfig/v1/{}", segment(&self.target));
        if let Some(v) = self.version {
            path = format!("{path}/{}", segment(&v));
        }
        Http::get(path, Vec::new())
    }
}

/// Saves a validation configuration, or an array of them (`POST validationconfig/v1`).
pub struct SaveConfig {
    pub body: Value,
    pub replace: bool,
    pub reason: Option<String>,
}

impl Call for SaveConfig {
    fn local(self, file: &File) -> Result<Answer> {
        let opts = SaveOptions {
            replace: self.replace,
            reason: self.reason,
            source: Some(Source::Private),
            ..SaveOptions::default()
        };
        file.platform()
            .objects()
            .save(file.who()?, Collection::ValidationConfig, self.body, &opts)
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
        Http::post("validationconfig/v1".into(), query, self.body)
    }
}
