//! Background jobs and the workers that run them.

use super::*;

/// A background worker serving the database (a server's job worker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worker {
    /// A random id the worker chose at start.
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// When it started.
    pub started: DateTime<Utc>,
    /// When it was last seen.
    pub seen: DateTime<Utc>,
}

/// Where a background job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// Waiting for a worker.
    Queued,
    /// A worker took it.
    Running,
    /// It finished with a result.
    Done,
    /// It finished with an error.
    Failed,
}

impl JobStatus {
    /// Every status.
    pub const ALL: [JobStatus; 4] = [
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Done,
        JobStatus::Failed,
    ];

    /// The status's name (`queued`, `running`, `done`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
        }
    }

    /// The status of a name.
    pub fn parse(name: &str) -> Option<JobStatus> {
        JobStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A background job: large work kept in the database until a worker runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The job id (unique across scopes).
    pub id: String,
    /// `run` or `runMany`.
    pub kind: String,
    /// Where it is.
    pub status: JobStatus,
    /// Percent done.
    pub progress: u32,
    /// When it was queued.
    pub created: DateTime<Utc>,
    /// When a worker took it.
    pub started: Option<DateTime<Utc>>,
    /// When it finished.
    pub finished: Option<DateTime<Utc>>,
    /// What it is doing, or how it ended.
    pub message: String,
    /// Who queued it (it runs as this user).
    pub user: String,
    /// The user's role when it was queued.
    pub role: Role,
    /// The user's data-access grants when it was queued.
    pub access: Vec<String>,
    /// The user's view features when it was queued.
    pub features: Vec<String>,
    /// The work (the request as sent).
    pub payload: Value,
    /// No worker takes it before this instant.
    pub not_before: Option<DateTime<Utc>>,
    /// What it produced, once done.
    pub result: Option<Value>,
}

impl Job {
    /// The job's JSON form: `{_id, kind, status, progress, created, started, finished, message,
    /// user, role, access, features, payload, notBefore}`, and `result` once there is one.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut doc = object(json!({
            "_id": self.id, "kind": self.kind, "status": self.status.as_str(),
            "progress": self.progress, "created": format_instant(self.created),
            "started": time_json(self.started), "finished": time_json(self.finished),
            "message": self.message, "user": self.user, "role": self.role.as_str(),
            "access": self.access, "features": self.features, "payload": self.payload,
            "notBefore": time_json(self.not_before),
        }));
        if let Some(result) = &self.result {
            doc.insert("result".into(), result.clone());
        }
        doc
    }

    /// Reads the JSON form of [`Job::to_json`]. A role that is not one reads as `reader`.
    pub fn from_json(doc: &Map<String, Value>) -> Result<Job> {
        let id = text_field(doc, "_id");
        let what = format!("job {id}");
        let status = doc.get("status").and_then(Value::as_str).unwrap_or("");
        let status = JobStatus::parse(status)
            .ok_or_else(|| Error::Internal(format!("{what}: status \"{status}\"")))?;
        Ok(Job {
            kind: text_field(doc, "kind"),
            status,
            progress: doc
                .get("progress")
                .and_then(Value::as_u64)
                .map_or(0, |p| p.min(100) as u32),
            created: required_time(doc, &what, "created")?,
            started: time_field(doc, &what, "started")?,
            finished: time_field(doc, &what, "finished")?,
            message: text_field(doc, "message"),
            user: text_field(doc, "user"),
            role: text_field(doc, "role").parse().unwrap_or(Role::Reader),
            access: texts_field(doc, "access"),
            features: texts_field(doc, "features"),
            payload: doc.get("payload").cloned().unwrap_or(Value::Null),
            not_before: time_field(doc, &what, "notBefore")?,
            result: doc.get("result").cloned(),
            id,
        })
    }

    internal! {
        /// Sets a field of the job by its name in the JSON form, as `Map::insert` would on that
        /// form; answers the field's previous value. A value the field cannot hold (a status that
        /// is not one, a time that is not RFC 3339) leaves the job as it was and answers `None`.
        fn insert(&mut self, field: String, value: Value) -> Option<Value> {
            let mut doc = self.to_json();
            let old = doc.insert(field, value);
            match Job::from_json(&doc) {
                Ok(job) => {
                    *self = job;
                    old
                }
                Err(_) => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        parse_instant(text).unwrap()
    }

    #[test]
    fn a_job_reads_back_its_json_form() {
        let job = Job {
            id: "job-1".into(),
            kind: "run".into(),
            status: JobStatus::Done,
            progress: 100,
            created: at("2024-01-01T00:00:00.000Z"),
            started: Some(at("2024-01-01T00:00:01.000Z")),
            finished: Some(at("2024-01-01T00:00:02.500Z")),
            message: "checked 3 points".into(),
            user: "ann".into(),
            role: Role::Writer,
            access: vec!["a".into()],
            features: vec![],
            payload: json!({"request": {"target": "A:S"}}),
            not_before: None,
            result: Some(json!({"points": 3})),
        };
        let doc = job.to_json();
        let keys: Vec<&str> = doc.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "_id",
                "kind",
                "status",
                "progress",
                "created",
                "started",
                "finished",
                "message",
                "user",
                "role",
                "access",
                "features",
                "payload",
                "notBefore",
                "result"
            ]
        );
        assert_eq!(doc["finished"], "2024-01-01T00:00:02.500Z");
        assert_eq!(Job::from_json(&doc).unwrap(), job);
    }

    #[test]
    fn setting_a_job_field_by_its_json_name_moves_the_typed_field() {
        let mut job = Job::from_json(&object(json!({
            "_id": "j", "kind": "run", "status": "queued", "created": "2024-01-01T00:00:00.000Z",
        })))
        .unwrap();
        assert_eq!(job.role, Role::Reader);
        assert_eq!(
            job.insert("status".into(), json!("running")),
            Some(json!("queued"))
        );
        assert_eq!(job.status, JobStatus::Running);
        assert_eq!(job.insert("status".into(), json!("lost")), None);
        assert_eq!(job.status, JobStatus::Running);
        job.insert("notBefore".into(), json!("2024-01-02T00:00:00Z"));
        assert_eq!(job.not_before, Some(at("2024-01-02T00:00:00Z")));
    }
}
