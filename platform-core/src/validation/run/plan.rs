//! A run planned: the request checked, the configuration and points loaded, then refused,
//! sent to the background, or checked (and, for a run, laid into its chunks on this thread).

use super::answer::{RunTimings, ValidationResult};
use super::evaluate::evaluate;
use super::layout::{build, run_span, Checked};
use super::load::{Loaded, Prepared};
use super::request::RunRequest;
use super::MAX_TEST_POINTS;
use crate::auth::Principal;
use crate::error::{Error, Result};
use crate::validation::config::Kind;
use crate::validation::jobs::QueuedRun;
use crate::validation::records::PointFormat;
use crate::validation::shared::ms;
use crate::validation::Validation;
use serde_json::json;
use std::time::Instant;

/// What `plan_run` found to do.
pub(crate) enum Planned {
    /// Sent to the background.
    Queued(QueuedRun),
    /// Nothing ran: the answer, the configuration's name, and why when it could not run.
    Nothing {
        answer: ValidationResult,
        name: Option<String>,
        error: Option<&'static str>,
    },
    /// Points checked, to be stored (or shown, for a test).
    Checked(Box<Checked>),
}

/// The answer of a run that checked nothing: with the time spent loading scripts and reading
/// data.
fn empty_answer(
    target: &str,
    kind: Kind,
    test: bool,
    message: &str,
    (scripts, read): (f64, f64),
) -> ValidationResult {
    ValidationResult {
        target: target.to_string(),
        kind: kind.typed(),
        test,
        timings: RunTimings {
            scripts,
            read,
            ..RunTimings::default()
        },
        message: Some(message.to_string()),
        ..ValidationResult::default()
    }
}

impl Validation<'_> {
    /// Reads and checks the points of a run (a background run, a delayed one, or one past
    /// `maxPoints`, is queued instead unless `in_job`).
    pub(crate) fn plan_run(
        &self,
        p: &Principal,
        req: &RunRequest,
        test: bool,
        origin: &str,
        in_job: bool,
        detail: bool,
    ) -> Result<Planned> {
        if !test {
            p.require(crate::auth::Role::Writer, "running validation")?;
        }
        let delay = when_to_run(req, test)?;
        let tx = self.platform.read()?;
        let (target, prep) = self.prepare(tx.as_ref(), p, req, test)?;
        let queue = || {
            self.platform
                .jobs()
                .queue(
                    p,
                    "run",
                    json!({"request": req.body(), "origin": "background"}),
                )
                .map(Planned::Queued)
        };
        if delay && !in_job {
            // A delayed run is a job that may not start before its time; no thread waits.
            drop(tx);
            return queue();
        }
        let read_started = Instant::now();
        let data = self.load_points(tx.as_ref(), p, &target, &prep, req)?;
        drop(tx);
        let read_ms = ms(read_started);
        let count = data.count();
        if test && count > MAX_TEST_POINTS {
            return Err(Error::invalid_parameter(format!(
                "test checks at most {MAX_TEST_POINTS} points; the range holds {count}"
            )));
        }
        if !test && !in_job && (req.background || count > prep.config.options.max_points) {
            return queue();
        }
        let kind = prep.config.kind;
        let nothing = |message: &str, error: Option<&'static str>| Planned::Nothing {
            answer: empty_answer(&target, kind, test, message, (prep.scripts_ms, read_ms)),
            name: prep.config.name(),
            error,
        };
        if !prep.config.enabled {
            return Ok(nothing("the configuration is disabled", Some("disabled")));
        }
        if count == 0 {
            return Ok(nothing("no data points to check", None));
        }
        let mut checked = check(prep, &data, req, target, test, origin, read_ms);
        if !test {
            let ctx = self.run_context(p, &checked);
            let tx = self.platform.read()?;
            let results = std::mem::take(&mut checked.results);
            checked.built = Some(build(
                Some(tx.as_ref()),
                &p.private_scope(),
                &checked,
                results,
                &ctx,
                detail,
            )?);
        }
        Ok(Planned::Checked(Box::new(checked)))
    }
}

/// Refuses what a request may not ask (a background test or one on points, a delayed test,
/// a test of too many points), and says whether it is delayed.
fn when_to_run(req: &RunRequest, test: bool) -> Result<bool> {
    if req.background {
        if test {
            return Err(Error::invalid_parameter(
                "background applies to run: a test runs at once",
            ));
        }
        if !req.points.is_empty() || (req.from.is_none() && req.to.is_none()) {
            return Err(Error::invalid_parameter(
                "a background run needs a range (from, to), not points",
            ));
        }
    }
    let delay = req.delay_ms.is_some_and(|d| d > 0);
    if test && delay {
        return Err(Error::invalid_parameter(
            "_delay applies to run: a test runs at once",
        ));
    }
    if test && req.points.len() > MAX_TEST_POINTS {
        return Err(Error::invalid_parameter(format!(
            "test checks at most {MAX_TEST_POINTS} points; {} were given",
            req.points.len()
        )));
    }
    Ok(delay)
}

/// Checks the loaded points of a run: the run checked, not laid out yet.
fn check(
    prep: Prepared,
    data: &Loaded,
    req: &RunRequest,
    target: String,
    test: bool,
    origin: &str,
    read_ms: f64,
) -> Checked {
    let checks_started = Instant::now();
    let (results, set, check_ms) = evaluate(&prep, data, req.tenors.as_deref());
    let checks_ms = ms(checks_started);
    let format = match data {
        Loaded::Series { calendar, tz, .. } => Some(PointFormat {
            calendar: *calendar,
            tz: *tz,
        }),
        Loaded::Curves { .. } => None,
    };
    let mut checked = Checked {
        target,
        truncated: data.truncated(),
        config: prep.config,
        results,
        set,
        check_ms,
        format,
        test,
        partial: req.checks.is_some() || req.tenors.is_some(),
        origin: origin.to_string(),
        timings: (prep.scripts_ms, read_ms, checks_ms),
        built: None,
        span: ((0, 0), (0, 0)),
    };
    checked.span = run_span(&checked);
    checked
}
