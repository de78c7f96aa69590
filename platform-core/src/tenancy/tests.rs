//! Bootstrap, tokens kept across processes, snapshots and listings.

use super::*;
use crate::auth::Credentials;

fn admin_of(p: &Platform, token: &str) -> Principal {
    p.tenancy()
        .authenticate(Some(&Credentials::Bearer(token.to_string())), None)
        .unwrap()
}

#[test]
fn the_first_admin_is_made_once_on_a_database_without_one() {
    let p = Platform::in_memory().unwrap();
    let token = p
        .tenancy()
        .bootstrap()
        .unwrap()
        .expect("a fresh database gets its admin");
    let who = admin_of(&p, &token);
    assert_eq!(
        (who.tenant.as_str(), who.user.as_str(), who.role),
        (DEFAULT_TENANT, DEFAULT_ADMIN, Role::Platform)
    );
    assert_eq!(p.tenancy().bootstrap().unwrap(), None, "only once");
}

#[test]
fn a_database_first_written_without_an_admin_still_gets_one() {
    // A program (or a command) wrote first: a tenant, a writer, data, but no platform user.
    let p = Platform::in_memory().unwrap();
    p.tenancy().local_principal("default", "cli").unwrap();
    p.tenancy()
        .make_token("acme", "ann", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    let token = p
        .tenancy()
        .bootstrap()
        .unwrap()
        .expect("no platform user yet");
    assert_eq!(admin_of(&p, &token).role, Role::Platform);
    assert_eq!(p.tenancy().bootstrap().unwrap(), None);
    // A database whose platform user was made by hand gets no second one.
    let q = Platform::in_memory().unwrap();
    q.tenancy()
        .make_token("ops", "root", Role::Platform, false)
        .map(|(t, _)| t)
        .unwrap();
    assert_eq!(q.tenancy().bootstrap().unwrap(), None);
}

/// A token authenticated (and kept) by `a` is refused by `a` from the request after another
/// platform of the same database (`b`, another process) revokes it; a role or grant that `b`
/// changes is what `a` answers next; a Basic user other than the token's is refused from
/// the kept entry too.
pub(crate) fn changes_by_another_platform_reach_the_kept_tokens(a: &Platform, b: &Platform) {
    let bearer = |t: &str| Credentials::Bearer(t.to_string());
    let token = b
        .tenancy()
        .make_token("acme", "ann", Role::Reader, false)
        .map(|(t, _)| t)
        .unwrap();
    let other = b
        .tenancy()
        .make_token("acme", "bob", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    for _ in 0..2 {
        assert_eq!(
            a.tenancy()
                .authenticate(Some(&bearer(&token)), None)
                .unwrap()
                .role,
            Role::Reader
        );
    }
    let basic = Credentials::Basic {
        user: "eve".into(),
        token: token.clone(),
    };
    assert_eq!(
        a.tenancy()
            .authenticate(Some(&basic), None)
            .unwrap_err()
            .code(),
        ErrorCode::NotAuthenticated
    );
    b.tenancy()
        .make_token("acme", "ann", Role::Admin, true)
        .unwrap();
    assert_eq!(
        a.tenancy()
            .authenticate(Some(&bearer(&token)), None)
            .unwrap()
            .role,
        Role::Admin
    );
    b.tenancy()
        .grant("acme", "ann", &Grant::Access("traders".into()))
        .unwrap();
    assert_eq!(
        a.tenancy()
            .authenticate(Some(&bearer(&token)), None)
            .unwrap()
            .grants
            .access,
        ["traders"]
    );
    assert!(b.tenancy().revoke_token(&token).unwrap());
    assert_eq!(
        a.tenancy()
            .authenticate(Some(&bearer(&token)), None)
            .unwrap_err()
            .code(),
        ErrorCode::NotAuthenticated
    );
    assert_eq!(
        a.tenancy()
            .authenticate(Some(&bearer(&other)), None)
            .unwrap()
            .user,
        "bob"
    );
}

#[test]
fn a_token_kept_by_one_process_is_refused_once_another_revokes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let a = Platform::open(&path).unwrap();
    let b = Platform::open(&path).unwrap();
    changes_by_another_platform_reach_the_kept_tokens(&a, &b);
}

#[test]
fn a_snapshot_authenticates_and_reads_in_one_committed_state() {
    use crate::ids::Source;
    use crate::store::Collection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let (a, b) = (
        Platform::open(&path).unwrap(),
        Platform::open(&path).unwrap(),
    );
    let bearer = |t: &str| Credentials::Bearer(t.to_string());
    let token = b
        .tenancy()
        .make_token("acme", "ann", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    let ann = a
        .tenancy()
        .authenticate(Some(&bearer(&token)), None)
        .unwrap();
    let save = |name: &str| {
        b.objects()
            .save(
                &ann,
                Collection::Object,
                serde_json::json!({"_id": "X", "name": name}),
                &Default::default(),
            )
            .unwrap();
    };
    save("first");
    let name = |v: serde_json::Value| v["name"].as_str().unwrap().to_string();
    let read_in = |s: &crate::Snapshot| {
        let who = s.tenancy().authenticate(Some(&bearer(&token)), None)?;
        s.objects()
            .get(&who, Collection::Object, Source::Private, "X", None, None)
            .map(name)
    };
    let before = a.snapshot().unwrap();
    assert_eq!(read_in(&before).unwrap(), "first");
    // Another process saves a version and revokes the token: the snapshot taken before
    // still reads the state it began with, as one read of it would have.
    save("second");
    b.tenancy().revoke_token(&token).unwrap();
    assert_eq!(read_in(&before).unwrap(), "first");
    drop(before);
    // A snapshot taken after refuses the token, though this process has it kept.
    let after = a.snapshot().unwrap();
    assert_eq!(
        read_in(&after).unwrap_err().code(),
        ErrorCode::NotAuthenticated
    );
    // Another version is read through the snapshot by number as well.
    let v1 = after
        .objects()
        .get(
            &ann,
            Collection::Object,
            Source::Private,
            "X",
            Some(&crate::ids::VersionRef::Number(1)),
            None,
        )
        .unwrap();
    assert_eq!(name(v1), "first");
}

#[test]
fn tokens_and_environments_are_listed_without_secrets() {
    let p = Platform::in_memory().unwrap();
    let t1 = p
        .tenancy()
        .make_token("acme", "ann", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    p.tenancy()
        .make_token("acme", "bob", Role::Reader, false)
        .map(|(t, _)| t)
        .unwrap();
    p.tenancy()
        .make_token("zed", "zoe", Role::Admin, false)
        .map(|(t, _)| t)
        .unwrap();
    p.tenancy().revoke_token(&t1).unwrap();
    let acme = p.tenancy().tokens(Some("acme")).unwrap();
    assert_eq!(acme.len(), 2);
    assert_eq!((acme[0].user.as_str(), acme[0].role), ("ann", Role::Writer));
    assert!(acme[0].revoked.is_some() && acme[1].revoked.is_none());
    assert_eq!(acme[0].id.len(), 12);
    assert!(
        !t1.contains(&acme[0].id),
        "the listing id is not a part of the token"
    );
    assert_eq!(p.tenancy().tokens(None).unwrap().len(), 3);
    p.tenancy().create_environment("acme", "test").unwrap();
    let envs: Vec<String> = p
        .tenancy()
        .environments("acme")
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(envs, ["production", "test"]);
    assert_eq!(
        p.tenancy().environments("nobody").unwrap_err().code(),
        ErrorCode::NotFound
    );
}

/// Writes as a token `a` keeps ([`Tenancy::write_authenticated`]) while `b` (another process of
/// the same database) changes tenancy: the epoch is checked in the write's own transaction, so
/// a write made as a principal gone stale rolls back and is made again as the caller is now
/// (once, stored once), a lowered role or a revoked token is refused with nothing written, and
/// a call that writes nothing is checked after it. Returns the principal `b` reads as.
pub(crate) fn writes_as_a_kept_token_are_checked_in_their_transaction(
    a: &Platform,
    b: &Platform,
) -> Principal {
    use crate::documents::SaveOptions;
    use crate::ids::Source;
    use crate::store::Collection;
    use std::cell::Cell;
    let looker = b.tenancy().local_principal("acme", "looker").unwrap();
    let token = b
        .tenancy()
        .make_token("acme", "ann", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    let bearer = Credentials::Bearer(token.clone());
    let runs = Cell::new(0);
    let write = |id: &str| {
        runs.set(0);
        a.tenancy()
            .write_authenticated(Some(&bearer), None, |who| {
                runs.set(runs.get() + 1);
                a.objects().save(
                    who,
                    Collection::Object,
                    serde_json::json!({"_id": id, "by": who.user}),
                    &SaveOptions::default(),
                )
            })
            .map(|(who, out)| (who.role, out.map(|v| v["_version"].clone())))
    };
    let stored = |id: &str| {
        b.objects()
            .get(&looker, Collection::Object, Source::Private, id, None, None)
            .ok()
            .map(|v| v["_version"].clone())
    };
    // Not kept yet: authenticated first, then kept.
    let (role, out) = write("A").unwrap();
    assert_eq!(
        (role, out.unwrap(), runs.get()),
        (Role::Writer, serde_json::Value::from(1), 1)
    );
    let (_, out) = write("B").unwrap();
    assert_eq!(
        (out.unwrap(), runs.get()),
        (serde_json::Value::from(1), 1),
        "kept: made once"
    );
    // Another user's token moves the epoch: the write made as the kept principal rolls back
    // and is made again, stored once.
    b.tenancy()
        .make_token("acme", "bob", Role::Reader, false)
        .unwrap();
    let (_, out) = write("C").unwrap();
    assert_eq!(
        (out.unwrap(), runs.get()),
        (serde_json::Value::from(1), 2),
        "made again"
    );
    assert_eq!(stored("C"), Some(serde_json::Value::from(1)));
    // A role lowered by `b`: the kept writer is not used; refused, nothing written.
    b.tenancy()
        .make_token("acme", "ann", Role::Reader, true)
        .unwrap();
    let (role, out) = write("D").unwrap();
    assert_eq!(role, Role::Reader);
    assert_eq!(out.unwrap_err().code(), ErrorCode::NotAuthorized);
    assert_eq!(stored("D"), None);
    // Revoked: refused, nothing written.
    b.tenancy()
        .make_token("acme", "ann", Role::Writer, true)
        .unwrap();
    assert_eq!(write("E").unwrap().1.unwrap(), serde_json::Value::from(1));
    assert!(b.tenancy().revoke_token(&token).unwrap());
    assert_eq!(write("F").unwrap_err().code(), ErrorCode::NotAuthenticated);
    assert_eq!(stored("F"), None);
    // A call that commits no write is checked after it.
    let read = a.tenancy().write_authenticated(Some(&bearer), None, |who| {
        a.objects()
            .get(who, Collection::Object, Source::Private, "A", None, None)
    });
    assert_eq!(read.unwrap_err().code(), ErrorCode::NotAuthenticated);
    looker
}

#[test]
fn writes_as_a_kept_token_are_checked_in_their_transaction_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let a = Platform::open(&path).unwrap();
    let b = Platform::open(&path).unwrap();
    writes_as_a_kept_token_are_checked_in_their_transaction(&a, &b);
}
