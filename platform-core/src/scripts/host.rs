//! Running stored rhai programs (extension lifecycle scripts, automation scripts and
//! transformers) with the platform's functions.
//!
//! The program sees its inputs as variables (`extension`, `action`, `event`...) and may call:
//!
//! | function | effect |
//! |---|---|
//! | `message(text)` | sends a realtime message on the script's channel |
//! | `save_object(map)` | saves an object as the script's principal (the usual rules and rights) and returns it |
//! | `get_object(id)` | the current object, or `()` when it does not exist |
//! | `secret(id)` | a secret's value; disabled, not-yet-valid or expired secrets throw |
//!
//! **One call, one transaction.** Everything a call writes commits together when the program
//! ends well, and nothing is kept when it fails: the platform's side of the call holds one write
//! transaction on the calling thread (so a chain of automations keeps its depth) and the program
//! runs beside it on a thread of its own, asking for reads and writes over a channel.
//!
//! **Budgets.** A call writes at most [`ScriptLimits::writes`] objects and runs at most
//! [`ScriptLimits::time`]; past either the program fails and its writes roll back, even if it
//! caught the error. The engine's own limits (operations, sizes, depth) apply as well.
//!
//! **Confinement.** A [`Confinement`] narrows what a program may reach beyond its principal's
//! rights: the private source only, and only the secrets it was granted; with `scrub_secrets`
//! no secret value it read appears in its result, its messages or its error.

use crate::auth::Principal;
use crate::clock::format_instant;
use crate::documents::{render, visible, SaveOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{validate_id, Scope, Source};
use crate::script::{compile_script, engine, Profile, ScriptLimits};
use crate::store::{Collection, WriteTx};
use crate::Platform;
use rhai::{Dynamic, EvalAltResult, Map as RhaiMap, Scope as RhaiScope, AST};
use serde_json::Value;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

/// What a program may reach beyond its principal's rights.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Reads and writes only the principal's private source (no `#` ids).
    pub private_only: bool,
    /// When set, `secret(id)` reads only these ids.
    pub secrets: Option<Vec<String>>,
    /// Who the program runs for, in messages (for example "extension acme.tools").
    pub holder: String,
    /// Keeps every secret value the program reads out of its result, messages and error (an
    /// extension's code answers to whoever installed or views it).
    pub scrub_secrets: bool,
}

impl Confinement {
    /// No narrowing: the principal's own rights.
    pub fn none() -> Confinement {
        Confinement::default()
    }
}

/// What a program asks of the platform's side.
enum Request {
    Save(Value, mpsc::Sender<Result<Value>>),
    Get(String, mpsc::Sender<Result<Option<Value>>>),
    Secret(String, mpsc::Sender<Result<String>>),
}

/// The secret values a call has read, to keep them out of everything it says.
#[derive(Clone, Default)]
struct Revealed(Arc<Mutex<Vec<String>>>);

impl Revealed {
    fn add(&self, value: &str) {
        if !value.is_empty() {
            if let Ok(mut v) = self.0.lock() {
                v.push(value.to_string());
            }
        }
    }

    fn scrub(&self, text: &str) -> String {
        let values = self.0.lock().map(|v| v.clone()).unwrap_or_default();
        let mut out = text.to_string();
        for value in values {
            out = out.replace(&value, "[secret]");
        }
        out
    }

    fn scrub_json(&self, v: Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.scrub(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|i| self.scrub_json(i)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (self.scrub(&k), self.scrub_json(v)))
                    .collect(),
            ),
            other => other,
        }
    }
}

fn to_dynamic(v: &Value) -> std::result::Result<Dynamic, Box<EvalAltResult>> {
    rhai::serde::to_dynamic(v)
}

fn thrown(e: Error) -> Box<EvalAltResult> {
    e.public_message().into()
}

/// Asks the platform's side and waits for its answer.
fn ask<T>(
    requests: &mpsc::Sender<Request>,
    make: impl FnOnce(mpsc::Sender<Result<T>>) -> Request,
) -> std::result::Result<T, Box<EvalAltResult>> {
    let (reply, answer) = mpsc::channel();
    requests.send(make(reply)).map_err(|_| {
        thrown(Error::Internal(
            "the script's platform side has stopped".into(),
        ))
    })?;
    answer
        .recv()
        .map_err(|_| {
            thrown(Error::Internal(
                "the script's platform side has stopped".into(),
            ))
        })?
        .map_err(thrown)
}

/// Runs `source` (script `script_id`) as `p` with the principal's own rights, messages going to
/// `channel`; returns the program's value as JSON.
pub fn run(
    platform: &Platform,
    p: &Principal,
    channel: &str,
    source: &str,
    script_id: &str,
    inputs: Value,
) -> Result<Value> {
    run_confined(
        platform,
        p,
        channel,
        source,
        script_id,
        inputs,
        &Confinement::none(),
    )
}

/// Runs `source` as `p`, narrowed by `confinement` (see the module's documentation).
#[allow(clippy::too_many_arguments)]
pub fn run_confined(
    platform: &Platform,
    p: &Principal,
    channel: &str,
    source: &str,
    script_id: &str,
    inputs: Value,
    confinement: &Confinement,
) -> Result<Value> {
    let limits = platform.script_limits();
    let revealed = Revealed::default();
    let started = Instant::now();
    // Compiled here, so a syntax error is reported before anything starts.
    let ast = compile_script(&engine(Profile::Script), script_id, source)?;
    let (requests, inbox) = mpsc::channel::<Request>();
    let over_budget = Mutex::new(None::<String>);
    let outcome = std::thread::scope(|scope| {
        let program = {
            let program = Program {
                platform: platform.clone(),
                who: p.clone(),
                channel: channel.to_string(),
                revealed: revealed.clone(),
                script_id: script_id.to_string(),
                limits,
                started,
            };
            scope.spawn(move || program.run(requests, ast, inputs))
        };
        let side = Side {
            platform,
            p,
            confinement,
            limits,
            revealed: &revealed,
            over_budget: &over_budget,
        };
        let tx = side.serve(inbox);
        let result = program
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("the script's thread panicked".into())));
        let budget = over_budget.lock().unwrap_or_else(|e| e.into_inner()).take();
        match (result, budget) {
            (Ok(value), None) => {
                if let Some(tx) = tx {
                    tx.commit()?;
                }
                Ok(value)
            }
            // Dropping the transaction rolls back whatever the program wrote.
            (Ok(_), Some(why)) => Err(Error::invalid_parameter(format!(
                "script \"{script_id}\" failed: it {why}; nothing it wrote was kept"
            ))),
            (Err(e), _) => Err(e),
        }
    });
    match outcome {
        Ok(value) => Ok(revealed.scrub_json(value)),
        Err(Error::User { code, message }) => Err(Error::User {
            code,
            message: revealed.scrub(&message),
        }),
        Err(e) => Err(e),
    }
}

/// The program's side of a call: its engine, with the platform's functions, on a thread of
/// its own.
struct Program {
    platform: Platform,
    who: Principal,
    channel: String,
    revealed: Revealed,
    script_id: String,
    limits: ScriptLimits,
    started: Instant,
}

impl Program {
    /// Runs the program on its inputs, asking the platform's side over `requests`.
    fn run(self, requests: mpsc::Sender<Request>, ast: AST, inputs: Value) -> Result<Value> {
        let Program {
            platform: pl,
            who,
            channel,
            revealed,
            script_id,
            limits,
            started,
        } = self;
        let mut engine = engine(Profile::Script);
        engine.on_progress(move |_| {
            (started.elapsed() > limits.time).then(|| Dynamic::from("time budget"))
        });
        {
            let (pl, who, revealed) = (pl.clone(), who.clone(), revealed.clone());
            engine.register_fn("message", move |text: &str| {
                pl.extensions().send_message(
                    &who,
                    &channel,
                    &format!("info {}", revealed.scrub(text)),
                )
            });
        }
        register_requests(&mut engine, &requests);
        drop(requests);
        let mut vars = RhaiScope::new();
        if let Value::Object(inputs) = &inputs {
            for (name, v) in inputs {
                let d =
                    to_dynamic(v).map_err(|e| Error::caused(format!("script input {name}"), e))?;
                vars.push_dynamic(name.as_str(), d);
            }
        }
        let out: Dynamic = engine.eval_ast_with_scope(&mut vars, &ast).map_err(|e| {
            let why = match *e {
                EvalAltResult::ErrorTerminated(..) => format!(
                    "ran longer than its time budget of {} ms",
                    limits.time.as_millis()
                ),
                other => other.to_string(),
            };
            Error::new(
                ErrorCode::InvalidParameter,
                format!("script \"{script_id}\" failed: {why}"),
            )
        })?;
        drop(pl);
        rhai::serde::from_dynamic::<Value>(&out).map_err(|e| Error::caused("script result", e))
    }
}

/// `save_object`, `get_object` and `secret`: each a request to the platform's side.
fn register_requests(engine: &mut rhai::Engine, requests: &mpsc::Sender<Request>) {
    {
        let requests = requests.clone();
        engine.register_fn(
            "save_object",
            move |obj: RhaiMap| -> std::result::Result<Dynamic, Box<EvalAltResult>> {
                let body: Value = rhai::serde::from_dynamic(&Dynamic::from_map(obj))?;
                to_dynamic(&ask(&requests, |r| Request::Save(body, r))?)
            },
        );
    }
    {
        let requests = requests.clone();
        engine.register_fn(
            "get_object",
            move |id: &str| -> std::result::Result<Dynamic, Box<EvalAltResult>> {
                match ask(&requests, |r| Request::Get(id.to_string(), r))? {
                    Some(v) => to_dynamic(&v),
                    None => Ok(Dynamic::UNIT),
                }
            },
        );
    }
    {
        let requests = requests.clone();
        engine.register_fn(
            "secret",
            move |id: &str| -> std::result::Result<String, Box<EvalAltResult>> {
                ask(&requests, |r| Request::Secret(id.to_string(), r))
            },
        );
    }
}

/// The platform's side of a call: one write transaction, opened at the first request, serving
/// the program's reads and writes within the write budget.
struct Side<'a, 'p> {
    platform: &'p Platform,
    p: &'a Principal,
    confinement: &'a Confinement,
    limits: ScriptLimits,
    revealed: &'a Revealed,
    over_budget: &'a Mutex<Option<String>>,
}

impl<'p> Side<'_, 'p> {
    /// Answers the program's requests until it ends; the transaction its writes are in.
    fn serve(&self, inbox: mpsc::Receiver<Request>) -> Option<Box<dyn WriteTx + 'p>> {
        let (platform, p, confinement, limits) =
            (self.platform, self.p, self.confinement, self.limits);
        let scrub = confinement.scrub_secrets;
        let mut tx: Option<Box<dyn WriteTx + 'p>> = None;
        let mut writes = 0usize;
        for request in inbox {
            let ready = match tx {
                Some(_) => Ok(()),
                None => platform.store.write().map(|t| tx = Some(t)),
            };
            match request {
                Request::Save(body, reply) => {
                    let out = if writes >= limits.writes {
                        let why = format!(
                            "wrote more than its budget of {} objects in one call",
                            limits.writes
                        );
                        *self.over_budget.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(why.clone());
                        Err(Error::invalid_parameter(format!("the script {why}")))
                    } else {
                        writes += 1;
                        ready.and_then(|()| match tx.as_deref_mut() {
                            Some(tx) => platform.script_save(tx, p, confinement, body),
                            None => Err(Error::Internal("no transaction".into())),
                        })
                    };
                    let _ = reply.send(out);
                }
                Request::Get(id, reply) => {
                    let out = ready.and_then(|()| match tx.as_deref_mut() {
                        Some(tx) => platform.script_get(tx, p, confinement, &id),
                        None => Err(Error::Internal("no transaction".into())),
                    });
                    let _ = reply.send(out);
                }
                Request::Secret(id, reply) => {
                    let out = ready.and_then(|()| match tx.as_deref_mut() {
                        Some(tx) => platform.script_secret(tx, p, confinement, &id),
                        None => Err(Error::Internal("no transaction".into())),
                    });
                    if let (Ok(value), true) = (&out, scrub) {
                        self.revealed.add(value);
                    }
                    let _ = reply.send(out);
                }
            }
        }
        tx
    }
}

impl Platform {
    /// `save_object` of a script: one object, in the call's transaction.
    fn script_save(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        confinement: &Confinement,
        body: Value,
    ) -> Result<Value> {
        if confinement.private_only {
            let id = body.get("_id").and_then(Value::as_str).unwrap_or_default();
            if Source::of_id(id) == Source::Public {
                return Err(Error::forbidden(format!(
                    "{} writes only the tenant's private source, not \"{id}\"",
                    confinement.holder
                )));
            }
        }
        let now = format_instant(self.now());
        let stored = self.objects().save_one(
            tx,
            p,
            Collection::Object,
            body,
            &SaveOptions::default(),
            &now,
            Vec::new(),
        )?;
        Ok(Value::Object(visible(
            p,
            Collection::Object,
            render(&stored, true),
        )))
    }

    /// `get_object` of a script: the current object as the script's principal sees it.
    fn script_get(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        confinement: &Confinement,
        id: &str,
    ) -> Result<Option<Value>> {
        validate_id(id, "get_object id")?;
        let source = Source::of_id(id);
        if confinement.private_only && source == Source::Public {
            return Err(Error::forbidden(format!(
                "{} reads only the tenant's private source, not \"{id}\"",
                confinement.holder
            )));
        }
        let scope = Scope::for_source(source, p);
        Ok(tx
            .current(Collection::Object, &scope, id)?
            .map(|v| Value::Object(visible(p, Collection::Object, render(&v, true)))))
    }

    /// `secret(id)` of a script: only the secrets it was granted, when confined.
    fn script_secret(
        &self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        confinement: &Confinement,
        id: &str,
    ) -> Result<String> {
        if let Some(granted) = &confinement.secrets {
            if !granted.iter().any(|g| g == id) {
                return Err(Error::forbidden(format!(
                    "{} may not read secret \"{id}\": it was not declared in its permissions \
                     and accepted when it was installed",
                    confinement.holder
                )));
            }
        }
        self.secrets().value_in(&*tx, p, id)
    }
}
