//! The password of a connection whose URL has none, found as libpq finds it: `PGPASSWORD`, then
//! the pass file (the URL's `passfile`, else `PGPASSFILE`, else `~/.pgpass`).
//!
//! A pass file has lines `hostname:port:database:username:password`; `*` in one of the first
//! four fields matches anything, `\:` and `\\` stand for `:` and `\`, lines starting with `#`
//! are comments, and the first line that matches wins. A file that its group or others may
//! read or write is ignored with a warning (it should be `chmod 600`), as libpq ignores it.

use crate::error::{Error, Result};
use tokio_postgres::config::Host;

/// Reads the environment (a variable's value; tests give their own).
pub(crate) type Env<'e> = &'e dyn Fn(&str) -> Option<String>;

/// Where the password for `config` comes from, when not from the URL: `None` when none is
/// found. The hosts of a multi-host URL share one password: pass file lines that give them
/// different passwords are an error.
pub(crate) fn password(
    config: &tokio_postgres::Config,
    passfile: Option<&str>,
    env: Env<'_>,
) -> Result<Option<String>> {
    if let Some(pw) = env("PGPASSWORD").filter(|p| !p.is_empty()) {
        return Ok(Some(pw));
    }
    let file = match passfile
        .map(str::to_string)
        .or_else(|| env("PGPASSFILE").filter(|p| !p.is_empty()))
    {
        Some(file) => file,
        None => match env("HOME").filter(|h| !h.is_empty()) {
            Some(home) => format!("{}/.pgpass", home.trim_end_matches('/')),
            None => return Ok(None),
        },
    };
    let Some(text) = read_pass_file(&file) else {
        return Ok(None);
    };
    let user = config
        .get_user()
        .map(str::to_string)
        .or_else(|| env("USER"))
        .or_else(|| env("LOGNAME"))
        .unwrap_or_default();
    let database = config.get_dbname().unwrap_or(&user).to_string();
    let ports = config.get_ports();
    let hosts: Vec<String> = if config.get_hosts().is_empty() {
        vec!["localhost".to_string()]
    } else {
        config.get_hosts().iter().map(host_name).collect()
    };
    let mut found: Option<(String, String)> = None;
    for (i, host) in hosts.iter().enumerate() {
        let port = match ports {
            [] => 5432,
            [one] => *one,
            many => many.get(i).copied().unwrap_or(5432),
        };
        let Some(pw) = find(&text, host, &port.to_string(), &database, &user) else {
            continue;
        };
        match &found {
            Some((first, other)) if *other != pw => {
                return Err(Error::invalid_parameter(format!(
                    "the pass file {file} gives the hosts {first} and {host} different \
                     passwords; the hosts of one URL share one password"
                )));
            }
            Some(_) => {}
            None => found = Some((host.clone(), pw)),
        }
    }
    Ok(found.map(|(_, pw)| pw))
}

/// A host as a pass file names it: a socket directory that is PostgreSQL's default is
/// `localhost`.
fn host_name(host: &Host) -> String {
    match host {
        Host::Tcp(name) => name.clone(),
        Host::Unix(path) => {
            let path = path.to_string_lossy();
            match path.trim_end_matches('/') {
                "/var/run/postgresql" | "/run/postgresql" | "/tmp" => "localhost".to_string(),
                other => other.to_string(),
            }
        }
    }
}

/// The pass file's text, or `None` when it is absent, not a plain file, or open to others
/// (with a warning for the last two, and when it cannot be read).
fn read_pass_file(file: &str) -> Option<String> {
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() {
        warn(&format!(
            "the password file {file} is not a plain file: it is ignored"
        ));
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            warn(&format!(
                "the password file {file} has group or world access: it is ignored; its \
                 permissions should be u=rw (0600) or less (chmod 600 {file})"
            ));
            return None;
        }
    }
    match std::fs::read_to_string(file) {
        Ok(text) => Some(text),
        Err(e) => {
            warn(&format!(
                "cannot read the password file {file}: {e}; it is ignored"
            ));
            None
        }
    }
}

/// A warning in the log, or on stderr where the process keeps no log (a command), as libpq
/// prints it.
fn warn(message: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!("{message}");
    } else {
        eprintln!("warning: {message}");
    }
}

/// The password of the first line of `text` that matches, when one does (an empty password
/// counts as none).
pub(crate) fn find(
    text: &str,
    host: &str,
    port: &str,
    database: &str,
    user: &str,
) -> Option<String> {
    text.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let fields = fields(line)?;
            let matches = |(field, wild): &(String, bool), value: &str| *wild || field == value;
            (matches(&fields[0], host)
                && matches(&fields[1], port)
                && matches(&fields[2], database)
                && matches(&fields[3], user))
            .then(|| fields[4].0.clone())
        })
        .filter(|pw| !pw.is_empty())
}

/// The five fields of a line, unescaped, each with whether it is the wildcard (`*` alone);
/// `None` for a line of fewer. The password ends at the next unescaped `:`.
fn fields(line: &str) -> Option<Vec<(String, bool)>> {
    let mut fields = Vec::with_capacity(5);
    let mut field = String::new();
    let mut escaped_any = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => {
                    field.push(next);
                    escaped_any = true;
                }
                None => field.push('\\'),
            },
            ':' => {
                let wild = field == "*" && !escaped_any;
                fields.push((std::mem::take(&mut field), wild));
                escaped_any = false;
                if fields.len() == 5 {
                    return Some(fields);
                }
            }
            c => field.push(c),
        }
    }
    if fields.len() == 4 {
        fields.push((field, false));
        return Some(fields);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_matching_line_wins_with_wildcards_and_escapes() {
        let text = "# a comment:*:*:*:nope\n\
                    db.example:5432:platform:app:first\n\
                    db.example:5432:platform:app:second\n\
                    *:5433:*:app:any\\:host\\\\pw\n\
                    h\\:x:*:*:*:colon-host\r\n\
                    \\*:*:*:*:literal-star\n\
                    short:5432:platform:app\n\
                    *:*:*:other:\n";
        assert_eq!(
            find(text, "db.example", "5432", "platform", "app").as_deref(),
            Some("first")
        );
        assert_eq!(
            find(text, "anything", "5433", "x", "app").as_deref(),
            Some("any:host\\pw")
        );
        assert_eq!(
            find(text, "h:x", "1", "d", "u").as_deref(),
            Some("colon-host")
        );
        assert_eq!(
            find(text, "*", "1", "d", "u").as_deref(),
            Some("literal-star")
        );
        // `\*` is a literal star, not a wildcard; a line of four fields matches nothing; an
        // empty password is none.
        assert_eq!(find(text, "short", "5432", "platform", "app"), None);
        assert_eq!(find(text, "x", "1", "d", "other"), None);
        assert_eq!(find(text, "db.example", "5432", "platform", "bob"), None);
        // A comment is not a line of the file.
        assert_eq!(find(text, "# a comment", "1", "d", "u"), None);
    }

    #[test]
    fn the_password_ends_at_the_next_colon() {
        assert_eq!(
            find("h:1:d:u:pw:extra\n", "h", "1", "d", "u").as_deref(),
            Some("pw")
        );
    }

    fn env_of<'a>(vars: &'a [(&'a str, String)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[cfg(unix)]
    fn pass_file(dir: &std::path::Path, text: &str, mode: u32) -> String {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join("pass");
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        file.to_string_lossy().into_owned()
    }

    #[test]
    #[cfg(unix)]
    fn pgpassword_comes_first_then_the_pass_file_unless_others_may_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let config: tokio_postgres::Config =
            "postgres://app@db.example:6432/platform".parse().unwrap();
        let file = pass_file(
            dir.path(),
            "db.example:6432:platform:app:from-file\n",
            0o600,
        );
        let env = [
            ("PGPASSFILE", file.clone()),
            ("PGPASSWORD", "from-env".into()),
        ];
        assert_eq!(
            password(&config, None, &env_of(&env)).unwrap().as_deref(),
            Some("from-env")
        );
        let env = [("PGPASSFILE", file.clone()), ("PGPASSWORD", String::new())];
        assert_eq!(
            password(&config, None, &env_of(&env)).unwrap().as_deref(),
            Some("from-file")
        );
        // The URL's passfile before PGPASSFILE; ~/.pgpass without either.
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let other = pass_file(&home, "*:*:*:*:from-passfile\n", 0o600);
        let env = [("PGPASSFILE", file.clone())];
        assert_eq!(
            password(&config, Some(&other), &env_of(&env))
                .unwrap()
                .as_deref(),
            Some("from-passfile")
        );
        std::fs::rename(&other, home.join(".pgpass")).unwrap();
        let env = [("HOME", home.to_string_lossy().into_owned())];
        assert_eq!(
            password(&config, None, &env_of(&env)).unwrap().as_deref(),
            Some("from-passfile")
        );
        // Readable by the group: ignored.
        let file = pass_file(dir.path(), "*:*:*:*:open\n", 0o640);
        assert_eq!(
            password(&config, None, &env_of(&[("PGPASSFILE", file)])).unwrap(),
            None
        );
        // Absent: none.
        let env = [(
            "PGPASSFILE",
            dir.path().join("absent").to_string_lossy().into_owned(),
        )];
        assert_eq!(password(&config, None, &env_of(&env)).unwrap(), None);
    }

    #[test]
    #[cfg(unix)]
    fn the_hosts_of_a_multi_host_url_share_a_password() {
        let dir = tempfile::tempdir().unwrap();
        let config: tokio_postgres::Config =
            "postgres://app@h1:5432,h2:5433/platform?target_session_attrs=read-write"
                .parse()
                .unwrap();
        let file = pass_file(
            dir.path(),
            "h2:5433:platform:app:secret-two\nh1:*:*:*:secret-one\n",
            0o600,
        );
        let e = password(&config, None, &env_of(&[("PGPASSFILE", file)])).unwrap_err();
        assert!(e.to_string().contains("h1 and h2"), "{e}");
        assert!(!e.to_string().contains("secret"), "{e}");
        let file = pass_file(dir.path(), "h2:5433:platform:app:same\n", 0o600);
        assert_eq!(
            password(&config, None, &env_of(&[("PGPASSFILE", file)]))
                .unwrap()
                .as_deref(),
            Some("same")
        );
    }
}
