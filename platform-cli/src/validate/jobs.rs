//! Runs that went to the background: followed to their end ([`follow`]), or worked off
//! ([`work`]); and the spinner of a call that may take a while.

use super::calls::Jobs;
use super::queued;
use crate::target::Target;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use platform_core::{Error, Platform, Result};
use serde_json::Value;
use std::io::IsTerminal as _;
use std::time::Duration;

/// Follows a run that went to the background to its end and returns its result (the answer
/// it would have given at once); any other answer as it is. The job is read as any request is,
/// from the file or the server. Through a server, that server runs it; on a file, a server
/// working on the file runs it and it is watched, else this process runs the queued jobs,
/// oldest first, until this one has run. On a terminal a bar shows the job's progress.
pub(super) fn follow(target: &Target, out: Value) -> Result<Value> {
    let Some(id) = queued(&out).and(out["job"].as_str()).map(str::to_string) else {
        return Ok(out);
    };
    let draw = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(100), draw);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {percent}% {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("job {id}"));
    let mut took_over = false;
    let result = loop {
        let job = match target.send(Jobs)?.body {
            Value::Array(jobs) => jobs.into_iter().find(|j| j["_id"] == id.as_str()),
            _ => None,
        }
        .ok_or_else(|| Error::not_found(format!("job {id} is gone")))?;
        bar.set_position(job["progress"].as_u64().unwrap_or(0));
        match job["status"].as_str() {
            Some("done") => break Ok(job["result"].clone()),
            Some("failed") => {
                break Err(Error::invalid_parameter(format!(
                    "job {id} failed: {}",
                    job["message"].as_str().unwrap_or_default()
                )))
            }
            _ => {}
        }
        match target {
            Target::File(file) if file.platform().jobs().live_workers()?.is_empty() => {
                let platform = file.platform();
                if !took_over {
                    platform.jobs().take_over()?;
                    took_over = true;
                }
                if !platform.jobs().run_next()? {
                    // Not due yet (a _delay): wait for it.
                    std::thread::sleep(Duration::from_millis(200));
                }
            }
            // A server runs it (the one working on the file, or the one of --url).
            _ => std::thread::sleep(Duration::from_millis(300)),
        }
    };
    bar.finish_and_clear();
    result
}

pub(super) fn work(platform: &Platform) -> Result<()> {
    let requeued = platform.jobs().take_over()?;
    if requeued > 0 {
        eprintln!("{requeued} interrupted job(s) queued again");
    }
    let spinner = spinner("running background jobs".into());
    let mut ran = 0u64;
    let outcome = loop {
        match platform.jobs().run_next() {
            Ok(true) => {
                ran += 1;
                spinner.set_message(format!("running background jobs ({ran} done)"));
            }
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    spinner.finish_and_clear();
    eprintln!("{ran} job(s) run");
    outcome
}

/// Runs one core call, with a spinner on a terminal when `show`.
pub(super) fn with_spinner<T>(show: bool, what: &str, call: impl FnOnce() -> T) -> T {
    if !show {
        return call();
    }
    let s = spinner(format!("{what}..."));
    let out = call();
    s.finish_and_clear();
    out
}

fn spinner(message: String) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let s = ProgressBar::with_draw_target(None, target);
    s.set_style(ProgressStyle::default_spinner());
    s.set_message(message);
    s.enable_steady_tick(Duration::from_millis(120));
    s
}
