//! Writes as a token a node keeps, the authentication epoch checked in the write's own
//! transaction (`Tenancy::write_authenticated`): the same guarantees as on SQLite while another
//! node changes tenancy, and a save of one object in the round trips and statements of the
//! save alone.

use super::super::testing::TestSchema;
use super::super::PgStore;
use crate::auth::{Credentials, Role};
use crate::documents::SaveOptions;
use crate::store::Collection;
use crate::Platform;
use std::sync::Arc;

#[test]
fn writes_as_a_kept_token_are_checked_in_their_transaction() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let clock: Arc<dyn crate::clock::Clock> = Arc::new(crate::clock::SystemClock);
    let store: Arc<PgStore> = Arc::new(schema.store());
    let a = Platform::over(store.clone(), clock.clone());
    let b = Platform::over(Arc::new(schema.store()), clock);
    crate::tenancy::tests::writes_as_a_kept_token_are_checked_in_their_transaction(&a, &b);

    // A kept token's save of one object: the round trips of the save, the epoch read with its
    // first (each counted after its statements were prepared on every connection used).
    let token = b
        .tenancy()
        .make_token("acme", "cat", Role::Writer, false)
        .map(|(t, _)| t)
        .unwrap();
    let bearer = Credentials::Bearer(token);
    let save = |id: &str| {
        let (_, out) = a
            .tenancy()
            .write_authenticated(Some(&bearer), None, |who| {
                a.objects().save(
                    who,
                    Collection::Object,
                    serde_json::json!({"_id": id, "n": 1}),
                    &SaveOptions::default(),
                )
            })
            .unwrap();
        out.unwrap();
    };
    for i in 0..8 {
        save(&format!("warm{i}"));
    }
    let who = a.tenancy().authenticate(Some(&bearer), None).unwrap();
    let before = store.round_trips();
    a.objects()
        .save(
            &who,
            Collection::Object,
            serde_json::json!({"_id": "plain", "n": 1}),
            &SaveOptions::default(),
        )
        .unwrap();
    let after = store.round_trips();
    let plain = (after.0 - before.0, after.1 - before.1);
    let before = store.round_trips();
    save("counted");
    let after = store.round_trips();
    // The same round trips and statements: the epoch is a part of the read of the documents.
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        plain,
        "a kept token's save and the same save as a principal at hand (round trips, statements)"
    );
}
