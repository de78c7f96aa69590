use super::*;

/// Tenants with their environments, users, grants and tokens.
pub fn tenants_environments_users_grants_and_tokens(store: Arc<dyn Store>) {
    let store = &*store;
    let t0 = at("2024-01-01T00:00:00.123Z");
    let t1 = t0 + TimeDelta::seconds(1);
    write(store, |tx| {
        tx.ensure_tenant("acme", t0).unwrap();
        tx.ensure_tenant("acme", t1).unwrap();
        tx.ensure_tenant("zed", t0).unwrap();
        assert!(tx.create_environment("acme", "test", t1).unwrap());
        assert!(!tx.create_environment("acme", "test", t0).unwrap());
        tx.upsert_user("acme", "ann", Role::Writer, t0).unwrap();
        tx.upsert_user("acme", "bob", Role::Reader, t0).unwrap();
        tx.upsert_user("zed", "zoe", Role::Platform, t0).unwrap();
        tx.upsert_user("acme", "bob", Role::Admin, t1).unwrap();
        tx.insert_token("aaaa1111bbbb2222", "acme", "ann", t0)
            .unwrap();
        tx.insert_token("cccc3333dddd4444", "acme", "ann", t1)
            .unwrap();
        tx.insert_token("eeee5555ffff6666", "zed", "zoe", t0)
            .unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.tenant_count().unwrap(), 2);
    let envs: Vec<(String, DateTime<Utc>)> = tx
        .environments("acme")
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.created))
        .collect();
    assert_eq!(envs, [("production".into(), t0), ("test".into(), t1)]);
    assert!(tx.environments("nobody").unwrap().is_empty());
    assert!(tx.environment_exists("zed", "production").unwrap());
    assert!(!tx.environment_exists("zed", "test").unwrap());
    assert!(tx.user_exists("acme", "bob").unwrap());
    assert!(!tx.user_exists("zed", "bob").unwrap());
    assert_eq!(
        tx.users_with_role(Role::Admin).unwrap(),
        1,
        "the role was changed"
    );
    assert_eq!(tx.users_with_role(Role::Reader).unwrap(), 0);
    let record = tx.token("aaaa1111bbbb2222").unwrap().unwrap();
    assert_eq!(
        (
            record.tenant.as_str(),
            record.user.as_str(),
            record.role,
            record.revoked
        ),
        ("acme", "ann", Role::Writer, false)
    );
    assert_eq!(tx.token("nope").unwrap(), None);
    let listed = tx.tokens(Some("acme")).unwrap();
    assert_eq!(
        ids(&listed, |t| t.id.as_str()),
        ["aaaa1111bbbb", "cccc3333dddd"]
    );
    assert_eq!((listed[1].created, listed[1].revoked), (t1, None));
    assert_eq!(tx.tokens(None).unwrap().len(), 3);
    drop(tx);

    let t2 = t1 + TimeDelta::milliseconds(1);
    write(store, |tx| {
        let one = TokenSelector::Hash("aaaa1111bbbb2222".into());
        assert_eq!(tx.revoke_tokens(&one, t2).unwrap(), 1);
        assert_eq!(tx.revoke_tokens(&one, t2).unwrap(), 0, "already revoked");
        let ann = TokenSelector::User {
            tenant: "acme".into(),
            user: "ann".into(),
        };
        assert_eq!(tx.revoke_tokens(&ann, t2).unwrap(), 1);
        let grant = |n: &str| Grant::Access(n.into());
        assert!(tx
            .set_grant("acme", "bob", &Grant::Feature("charts".into()), true)
            .unwrap());
        assert!(tx.set_grant("acme", "bob", &grant("ops"), true).unwrap());
        assert!(tx.set_grant("acme", "bob", &grant("desk"), true).unwrap());
        assert!(!tx.set_grant("acme", "bob", &grant("desk"), true).unwrap());
        assert!(tx.set_grant("acme", "bob", &grant("ops"), false).unwrap());
        assert!(!tx.set_grant("acme", "bob", &grant("ops"), false).unwrap());
    });
    let tx = store.read().unwrap();
    assert!(tx.token("aaaa1111bbbb2222").unwrap().unwrap().revoked);
    let listed = tx.tokens(Some("acme")).unwrap();
    assert_eq!(listed[0].revoked, Some(t2));
    assert!(!tx.token("eeee5555ffff6666").unwrap().unwrap().revoked);
    assert_eq!(
        tx.grants("acme", "bob").unwrap(),
        [
            Grant::Access("desk".into()),
            Grant::Feature("charts".into())
        ]
    );
    assert!(tx.grants("acme", "ann").unwrap().is_empty());
}

/// Every change to what authenticates a request raises the authentication epoch in its own
/// transaction (so that a kept token is never used past it); reads and dropped writes do not.
pub fn the_auth_epoch_rises_with_every_change_to_authentication(store: Arc<dyn Store>) {
    let store = &*store;
    let t0 = at("2024-01-01T00:00:00Z");
    let epoch = || {
        let n = store.auth_epoch().unwrap();
        assert_eq!(store.read().unwrap().auth_epoch().unwrap(), n);
        n
    };
    let mut last = epoch();
    let mut rises = |what: &str, change: &dyn Fn(&mut dyn WriteTx)| {
        write(store, |tx| change(tx));
        let now = epoch();
        assert!(now > last, "{what}: the epoch stayed at {now}");
        last = now;
    };
    rises("a new tenant", &|tx| tx.ensure_tenant("acme", t0).unwrap());
    rises("a new environment", &|tx| {
        assert!(tx.create_environment("acme", "test", t0).unwrap())
    });
    rises("a new user", &|tx| {
        tx.upsert_user("acme", "ann", Role::Reader, t0).unwrap()
    });
    rises("a role changed", &|tx| {
        tx.upsert_user("acme", "ann", Role::Admin, t0).unwrap()
    });
    rises("a grant", &|tx| {
        assert!(tx
            .set_grant("acme", "ann", &Grant::Access("traders".into()), true)
            .unwrap())
    });
    rises("a grant taken back", &|tx| {
        assert!(tx
            .set_grant("acme", "ann", &Grant::Access("traders".into()), false)
            .unwrap())
    });
    rises("a token", &|tx| {
        tx.insert_token("aaaa1111bbbb2222", "acme", "ann", t0)
            .unwrap()
    });
    rises("a token revoked", &|tx| {
        assert_eq!(
            tx.revoke_tokens(&TokenSelector::Hash("aaaa1111bbbb2222".into()), t0)
                .unwrap(),
            1
        )
    });
    // Reads, writes of anything else, and a dropped write leave it.
    let before = epoch();
    let tx = store.read().unwrap();
    tx.token("aaaa1111bbbb2222").unwrap();
    drop(tx);
    let row = SecretRow {
        id: "k".into(),
        meta: object(json!({"_id": "k", "_type": "VarSecret"})),
        nonce: vec![1; 12],
        ciphertext: vec![1, 2, 3],
        updated: t0,
        user: "ann".into(),
    };
    write(store, |tx| {
        hold_secret(tx, &acme(), &row.id);
        tx.put_secret(&acme(), &row).unwrap()
    });
    {
        let mut tx = store.write().unwrap();
        tx.insert_token("cccc3333dddd4444", "acme", "ann", t0)
            .unwrap();
        drop(tx);
    }
    assert_eq!(epoch(), before);
}

/// Secrets: by scope and id, sealed bytes kept as given.
pub fn secrets_are_kept_by_scope(store: Arc<dyn Store>) {
    let store = &*store;
    let secret = |id: &str, n: u8| SecretRow {
        id: id.into(),
        meta: object(json!({"_id": id, "_type": "VarSecret", "enabled": n & 1 == 0})),
        nonce: vec![n; 12],
        ciphertext: vec![n, 0, 255, n],
        updated: at("2024-01-01T00:00:00.007Z") + TimeDelta::seconds(i64::from(n)),
        user: "ann".into(),
    };
    write(store, |tx| {
        hold_secret(tx, &acme(), "b");
        tx.put_secret(&acme(), &secret("b", 1)).unwrap();
        hold_secret(tx, &acme(), "a");
        tx.put_secret(&acme(), &secret("a", 2)).unwrap();
        hold_secret(tx, &acme_test(), "a");
        tx.put_secret(&acme_test(), &secret("a", 3)).unwrap();
        hold_secret(tx, &acme(), "b");
        tx.put_secret(&acme(), &secret("b", 4)).unwrap();
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.secret(&acme(), "b").unwrap(), Some(secret("b", 4)));
    assert_eq!(tx.secret(&acme_test(), "b").unwrap(), None);
    assert_eq!(
        tx.secrets(&acme()).unwrap(),
        [secret("a", 2), secret("b", 4)]
    );
    drop(tx);
    write(store, |tx| {
        hold_secret(tx, &acme(), "a");
        assert!(tx.delete_secret(&acme(), "a").unwrap());
        assert!(!tx.delete_secret(&acme(), "a").unwrap());
    });
    let tx = store.read().unwrap();
    assert_eq!(tx.secrets(&acme()).unwrap(), [secret("b", 4)]);
    assert_eq!(tx.secrets(&acme_test()).unwrap(), [secret("a", 3)]);
}
