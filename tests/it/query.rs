//! Finding objects over HTTP: filters, `_filter`, types, search, projection, sorting, distinct,
//! on private, public and `all` lists, with paging.

use crate::common::{Client, TestServer};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// Percent-encodes a query value.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

fn ids(body: &Value) -> Vec<String> {
    body.as_array()
        .unwrap()
        .iter()
        .map(|o| o["_id"].as_str().unwrap().to_string())
        .collect()
}

/// Hubs in both sources: public #-ids, private plain ids.
async fn seed(c: &Client<'_>) {
    let r = c
        .post(
            "/object/v1",
            json!([
                {"_id": "#NBP", "_type": "#GasHub", "name": "National Balancing Point", "description": "UK gas hub", "classification": "gas", "country": "GB", "capacity": 120, "opened": "1996-03-01", "geolocation": {"type": "Point", "coordinates": [-1.5, 52.5]}, "meta": {"tier": 1, "tags": ["liquid"]}},
                {"_id": "#TTF", "_type": "#GasHub", "name": "Title Transfer Facility", "description": "Dutch gas hub", "classification": "gas", "country": "NL", "capacity": 300, "opened": "2003-01-01", "geolocation": [5.3, 52.1], "meta": {"tier": 1}},
                {"_id": "#EEX", "_type": "#PowerHub", "name": "EEX Power", "description": "German power exchange", "classification": "power", "country": "DE", "capacity": 80.5, "opened": "2002-07-01", "geolocation": [12.4, 51.3], "meta": {"tier": 2}},
                {"_id": "PEG", "_type": "GasHubLocal", "name": "Point d'Echange de Gaz", "description": "French gas hub", "classification": "gas", "country": "FR", "capacity": "n/a", "opened": "2004-01-01T06:00:00+01:00", "geolocation": [2.35, 48.85]},
                {"_id": "MYBOOK", "_type": "Book", "name": "Trading book", "country": "GB", "capacity": 2}
            ]),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

async fn setup(s: &TestServer) -> Client<'_> {
    let c = s.client(Role::Platform);
    for t in [
        json!({"_id": "#Hub"}),
        json!({"_id": "#GasHub", "_extends": "#Hub"}),
        json!({"_id": "#PowerHub", "_extends": "#Hub"}),
        json!({"_id": "GasHubLocal", "_extends": "#GasHub"}),
    ] {
        assert_eq!(c.post("/type/v1", t).await.status, 200);
    }
    seed(&c).await;
    c
}

#[actix_rt::test]
async fn exact_values_match_text_and_json_text() {
    let s = TestServer::new();
    let c = setup(&s).await;
    assert_eq!(
        ids(&c.get("/object/v1/public?country=GB").await.body),
        vec!["#NBP"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?country=GB").await.body),
        vec!["#NBP", "MYBOOK"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/public?capacity=120").await.body),
        vec!["#NBP"]
    );
    assert!(ids(&c.get("/object/v1/public?capacity=120.0").await.body).is_empty());
    assert!(
        ids(&c.get("/object/v1/public?country=gb").await.body).is_empty(),
        "case-sensitive"
    );
    assert_eq!(
        ids(&c.get("/object/v1/public?meta.tier=2").await.body),
        vec!["#EEX"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?country=GB&capacity=2").await.body),
        vec!["MYBOOK"]
    );
}

#[actix_rt::test]
async fn filter_functions() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let q = |query: &str| {
        let c = c.clone();
        let query = query.to_string();
        async move {
            let r = c.get(&format!("/object/v1/all?{query}")).await;
            assert_eq!(r.status, 200, "{query}: {:?}", r.body);
            ids(&r.body)
        }
    };
    assert_eq!(
        q(&format!("capacity={}", enc("range(80,120)"))).await,
        vec!["#EEX", "#NBP"]
    );
    assert_eq!(
        q(&format!("capacity={}", enc("gt(120)"))).await,
        vec!["#TTF"]
    );
    assert_eq!(
        q(&format!("capacity={}", enc("gte(120)"))).await,
        vec!["#NBP", "#TTF"]
    );
    assert_eq!(
        q(&format!("capacity={}", enc("lt(80.5)"))).await,
        vec!["MYBOOK"]
    );
    assert_eq!(
        q(&format!("capacity={}", enc("lte(80.5)"))).await,
        vec!["#EEX", "MYBOOK"]
    );
    assert_eq!(
        q(&format!("country={}", enc("ne(GB)"))).await,
        vec!["#EEX", "#TTF", "PEG"]
    );
    assert_eq!(
        q(&format!("country={}", enc("in(NL,FR,XX)"))).await,
        vec!["#TTF", "PEG"]
    );
    // Dates compare chronologically (PEG opened 2004-01-01T05:00Z).
    assert_eq!(
        q(&format!("opened={}", enc("range(2002,2004)")))
            .await
            .len(),
        0,
        "2002 is not a full date"
    );
    assert_eq!(
        q(&format!(
            "opened={}",
            enc("range(2002-01-01,2004-01-01T05:00:00Z)")
        ))
        .await,
        vec!["#EEX", "#TTF", "PEG"]
    );
    assert_eq!(
        q(&format!("opened={}", enc("lt(2004-01-01T05:30:00Z)"))).await,
        vec!["#EEX", "#NBP", "#TTF", "PEG"]
    );
    assert_eq!(
        q(&format!("opened={}", enc("gt(2004-01-01T04:59:00Z)"))).await,
        vec!["PEG"]
    );
    // Text ranges compare strings.
    assert_eq!(
        q(&format!("name={}", enc("range(A,P)"))).await,
        vec!["#EEX", "#NBP"]
    );
    // Within 0.06 rad of Paris: PEG only; within 0.07 rad: the Dutch hub too (the UK one is 0.075 away).
    assert_eq!(
        q(&format!(
            "geolocation={}",
            enc("within(sphere([2.35,48.85],0.06))")
        ))
        .await,
        vec!["PEG"]
    );
    assert_eq!(
        q(&format!(
            "geolocation={}",
            enc("within(sphere([2.35,48.85],0.07))")
        ))
        .await,
        vec!["#TTF", "PEG"]
    );
    // Several filters AND together.
    assert_eq!(
        q(&format!("classification=gas&capacity={}", enc("gt(100)"))).await,
        vec!["#NBP", "#TTF"]
    );
    // eq() matches text that looks like a call.
    assert!(q(&format!("name={}", enc("eq(\"gt(1)\")")))
        .await
        .is_empty());
}

#[actix_rt::test]
async fn json_filters() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let f = |filter: Value| format!("/object/v1/all?_filter={}", enc(&filter.to_string()));
    assert_eq!(
        ids(&c.get(&f(json!({"capacity": {"$gt": 100}}))).await.body),
        vec!["#NBP", "#TTF"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"$or": [{"country": "FR"}, {"meta.tier": 2}]})))
            .await
            .body),
        vec!["#EEX", "PEG"]
    );
    assert_eq!(
        ids(&c
            .get(&f(
                json!({"$and": [{"classification": "gas"}, {"country": {"$ne": "GB"}}]})
            ))
            .await
            .body),
        vec!["#TTF", "PEG"]
    );
    assert_eq!(
        ids(&c
            .get(&f(
                json!({"$nor": [{"classification": "gas"}, {"country": "GB"}]})
            ))
            .await
            .body),
        vec!["#EEX"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"capacity": {"$not": {"$gte": 100}}})))
            .await
            .body),
        vec!["#EEX", "MYBOOK", "PEG"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"country": {"$in": ["NL", "DE"]}})))
            .await
            .body),
        vec!["#EEX", "#TTF"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"country": {"$nin": ["NL", "DE", "GB"]}})))
            .await
            .body),
        vec!["PEG"]
    );
    assert_eq!(
        ids(&c.get(&f(json!({"meta": {"$exists": false}}))).await.body),
        vec!["MYBOOK", "PEG"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"name": {"$regex": "^t", "$options": "i"}})))
            .await
            .body),
        vec!["#TTF", "MYBOOK"]
    );
    assert_eq!(
        ids(&c.get(&f(json!({"capacity": {"$eq": 2}}))).await.body),
        vec!["MYBOOK"]
    );
    assert_eq!(
        ids(&c.get(&f(json!({"meta.tags": "liquid"}))).await.body),
        vec!["#NBP"],
        "array contains"
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"capacity": {"$lte": 80.5, "$gt": 2}})))
            .await
            .body),
        vec!["#EEX"]
    );
    assert_eq!(
        ids(&c
            .get(&f(json!({"opened": {"$gte": "2003-01-01"}})))
            .await
            .body),
        vec!["#TTF", "PEG"]
    );
    // ANDed with query-parameter filters.
    let both = format!("{}&country=GB", f(json!({"classification": "gas"})));
    assert_eq!(ids(&c.get(&both).await.body), vec!["#NBP"]);
}

#[actix_rt::test]
async fn types_exact_and_with_subtypes() {
    let s = TestServer::new();
    let c = setup(&s).await;
    assert_eq!(
        ids(&c.get("/object/v1/all?_type=%23GasHub").await.body),
        vec!["#NBP", "#TTF"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?%23type=%23GasHub").await.body),
        vec!["#NBP", "#TTF", "PEG"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?%23type=%23Hub").await.body),
        vec!["#EEX", "#NBP", "#TTF", "PEG"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/public?%23type=%23Hub").await.body),
        vec!["#EEX", "#NBP", "#TTF"]
    );
    assert_eq!(c.get("/object/v1/all?%23type=%23Object").await.total(), 5);
    assert!(ids(&c.get("/object/v1/all?%23type=Nothing").await.body).is_empty());
    // Another tenant's private subtype does not widen this tenant's #type.
    let other = s.client_of("globex", "bob", Role::Writer);
    other
        .post("/type/v1", json!({"_id": "Mine", "_extends": "#GasHub"}))
        .await;
    other.save(json!({"_id": "X", "_type": "Mine"})).await;
    assert_eq!(
        ids(&other.get("/object/v1/all?%23type=%23GasHub").await.body),
        vec!["#NBP", "#TTF", "X"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?%23type=%23GasHub").await.body),
        vec!["#NBP", "#TTF", "PEG"]
    );
}

#[actix_rt::test]
async fn search_terms_and_result_fields() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let r = c.get("/object/v1/all?_search=gas%20hub").await;
    assert_eq!(ids(&r.body), vec!["#NBP", "#TTF", "PEG"]);
    assert_eq!(
        r.body[0],
        json!({"_id": "#NBP", "name": "National Balancing Point", "description": "UK gas hub", "classification": "gas", "geolocation": {"type": "Point", "coordinates": [-1.5, 52.5]}})
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?_search=dutch%7Cfrench").await.body),
        vec!["#TTF", "PEG"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?_search=hub%20-dutch").await.body),
        vec!["#NBP", "PEG"]
    );
    assert_eq!(
        ids(&c.get("/object/v1/all?_search=MYBO").await.body),
        vec!["MYBOOK"],
        "ids are searched"
    );
    assert!(
        ids(&c.get("/object/v1/all?_search=GB").await.body).is_empty(),
        "only the search fields"
    );
    let with_fields = c
        .get("/object/v1/public?_search=power&_project=country,capacity")
        .await;
    assert_eq!(with_fields.body[0]["country"], "DE");
    assert_eq!(with_fields.body[0]["capacity"], 80.5);
    assert_eq!(with_fields.body[0]["name"], "EEX Power");
    assert!(with_fields.body[0].get("opened").is_none());
    // Search ANDs with filters, and counts.
    let r = c.get("/object/v1/all?_search=gas&country=NL").await;
    assert_eq!((ids(&r.body), r.total()), (vec!["#TTF".to_string()], 1));
}

#[actix_rt::test]
async fn searchinfo_completes_ids_and_names() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let r = c.get("/object/v1/all?_searchinfo=t").await;
    assert_eq!(
        r.body,
        json!([{"_id": "#TTF", "name": "Title Transfer Facility"}, {"_id": "MYBOOK", "name": "Trading book"}])
    );
    let r = c.get("/object/v1/all?_searchinfo=%23n").await;
    assert_eq!(
        r.body,
        json!([{"_id": "#NBP", "name": "National Balancing Point"}])
    );
    let r = c.get("/object/v1/all?_searchinfo=p&_limit=1").await;
    assert_eq!(ids(&r.body), vec!["PEG"]);
    let r = c.get("/object/v1/all?_searchinfo=POINT").await;
    assert_eq!(ids(&r.body), vec!["PEG"], "PEG's name starts with Point");
}

#[actix_rt::test]
async fn projection_sort_and_distinct() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let r = c
        .get("/object/v1/all?_project=country&_sort=-country")
        .await;
    assert_eq!(r.body[0], json!({"_id": "#TTF", "country": "NL"}));
    let r = c
        .get(&format!(
            "/object/v1/all?_project={}&_sort={}",
            enc(r#"{"country":1,"_id":0}"#),
            enc(r#"{"country":1,"_id":-1}"#)
        ))
        .await;
    assert_eq!(
        r.body,
        json!([{"country": "DE"}, {"country": "FR"}, {"country": "GB"}, {"country": "GB"}, {"country": "NL"}])
    );
    let r = c.get(&format!("/object/v1/public?_project={}", enc(r#"{"meta":0,"geolocation":0,"_oid":0,"_timestamp":0,"_user":0,"_tag":0,"_version":0}"#))).await;
    assert_eq!(
        r.body[0],
        json!({"_id": "#EEX", "_type": "#PowerHub", "name": "EEX Power", "description": "German power exchange", "classification": "power", "country": "DE", "capacity": 80.5, "opened": "2002-07-01"})
    );
    let r = c
        .get("/object/v1/all?_sort=capacity,-name&_project=capacity")
        .await;
    assert_eq!(ids(&r.body), vec!["MYBOOK", "#EEX", "#NBP", "#TTF", "PEG"]);
    let r = c.get("/object/v1/all?_distinct=country").await;
    assert_eq!(r.body, json!(["DE", "FR", "GB", "NL"]));
    assert_eq!(r.total(), 4);
    let r = c
        .get("/object/v1/public?_distinct=classification&country=ne(DE)")
        .await;
    assert_eq!(r.body, json!(["gas"]));
}

#[actix_rt::test]
async fn paging_counts_the_filtered_total() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let r = c.get("/object/v1/all?classification=gas&_limit=2").await;
    assert_eq!(
        (ids(&r.body), r.total()),
        (vec!["#NBP".to_string(), "#TTF".to_string()], 3)
    );
    let r = c
        .get("/object/v1/all?classification=gas&_limit=2&_skip=2")
        .await;
    assert_eq!((ids(&r.body), r.total()), (vec!["PEG".to_string()], 3));
    let r = c.get("/object/v1/private?classification=gas").await;
    assert_eq!((ids(&r.body), r.total()), (vec!["PEG".to_string()], 1));
}

#[actix_rt::test]
async fn a_long_query_travels_in_a_form_body() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let many: Vec<String> = (0..600)
        .map(|i| format!("X{i}"))
        .chain(["NL".to_string()])
        .collect();
    let form = format!("country=in({})&_project=country", many.join(","));
    assert!(form.len() > 2048);
    let r = c.get_form("/object/v1/all", &enc_form(&form)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body, json!([{"_id": "#TTF", "country": "NL"}]));
}

fn enc_form(form: &str) -> String {
    form.split('&')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            format!("{}={}", enc(k), enc(v))
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[actix_rt::test]
async fn bad_queries_are_400_naming_the_parameter() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let cases = [
        (
            format!("capacity={}", enc("foo(1)")),
            "unknown filter function \"foo\"",
        ),
        (format!("_filter={}", enc("{\"a\":")), "_filter"),
        (
            format!("_filter={}", enc("{\"a\":{\"$where\":1}}")),
            "$where",
        ),
        (format!("_filter={}", enc("[1]")), "_filter"),
        (format!("_sort={}", enc("a,,b")), "_sort"),
        (format!("_project={}", enc("{\"a\":1,\"b\":0}")), "_project"),
        (format!("meta.tier={}", enc("gt(high)")), "meta.tier"),
        (format!("_search={}", enc("\"open")), "_search"),
        (format!("_distinct={}", enc("a..b")), "_distinct"),
        (
            format!("geolocation={}", enc("within(sphere(1,2))")),
            "geolocation",
        ),
        (format!("capacity={}", enc("range(1,b)")), "capacity"),
    ];
    for (query, needle) in cases {
        let m = c
            .get(&format!("/object/v1/all?{query}"))
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains(needle), "{query}: {m}");
    }
}

/// Follows `x-platform-next` from a first page to the end; returns the ids in order and the
/// totals each page answered.
async fn walk(c: &Client<'_>, first: &str) -> (Vec<String>, Vec<u64>) {
    let (mut got, mut totals) = (Vec::new(), Vec::new());
    let mut r = c.get(first).await;
    loop {
        assert_eq!(r.status, 200, "{:?}", r.body);
        got.extend(ids(&r.body));
        totals.push(r.total());
        let Some(next) = r.header("x-platform-next") else {
            break;
        };
        assert!(got.len() < 100, "the walk does not end: {got:?}");
        r = c.get(&format!("{first}&_after={}", enc(&next))).await;
    }
    (got, totals)
}

#[actix_rt::test]
async fn keyset_pages_follow_the_cursor_to_the_end() {
    let s = TestServer::new();
    let c = setup(&s).await;
    for (sort, filter) in [
        ("", ""),
        ("&_sort=-capacity", ""),
        ("&_sort=country,-_id", ""),
        ("&_sort=-meta.tier,name", "&_type=%23GasHub"),
        ("&_sort=capacity", "&capacity=gt(1)"),
    ] {
        let whole = c
            .get(&format!("/object/v1/all?_limit=-1{sort}{filter}"))
            .await;
        assert_eq!(whole.status, 200, "{:?}", whole.body);
        // A list on one page carries no cursor.
        assert_eq!(whole.header("x-platform-next"), None);
        let expected = ids(&whole.body);
        for size in [1, 2, 3] {
            let (got, totals) =
                walk(&c, &format!("/object/v1/all?_limit={size}{sort}{filter}")).await;
            assert_eq!(got, expected, "{sort}{filter} in pages of {size}");
            assert!(
                totals.iter().all(|t| *t == expected.len() as u64),
                "{totals:?}"
            );
            assert_eq!(
                totals.len(),
                expected.len().div_ceil(size),
                "no empty last page"
            );
        }
    }
    // The page by cursor is the page by _skip.
    let by_skip = c.get("/object/v1/all?_sort=name&_limit=2&_skip=2").await;
    let first = c.get("/object/v1/all?_sort=name&_limit=2").await;
    let next = first.header("x-platform-next").expect("a cursor");
    let by_cursor = c
        .get(&format!("/object/v1/all?_sort=name&_limit=2&_after={next}"))
        .await;
    assert_eq!(by_cursor.body, by_skip.body);
    assert_eq!(by_cursor.total(), by_skip.total());
}

#[actix_rt::test]
async fn a_bad_cursor_is_refused_and_changes_nothing() {
    let s = TestServer::new();
    let c = setup(&s).await;
    let first = c.get("/object/v1/all?_sort=-capacity&_limit=2").await;
    let next = first.header("x-platform-next").expect("a cursor");
    for (query, says) in [
        (
            format!("_after={next}"),
            "made for _sort=-capacity, not the default order",
        ),
        (
            format!("_sort=capacity&_after={next}"),
            "made for _sort=-capacity, not _sort=capacity",
        ),
        ("_after=not-a-cursor".to_string(), "not a cursor"),
        ("_after=".to_string(), "not a cursor"),
        ("_after=W10".to_string(), "not a cursor"),
        (
            format!("_sort=-capacity&_after={next}&_skip=1"),
            "not with _skip",
        ),
        (
            format!("_sort=-capacity&_after={next}&_distinct=country"),
            "not with _distinct",
        ),
        (
            format!("_sort=-capacity&_after={next}&_searchinfo=t"),
            "not with _searchinfo",
        ),
    ] {
        let r = c.get(&format!("/object/v1/all?{query}")).await;
        let message = r.assert_error(400, "INVALID_PARAMETER");
        assert!(message.contains(says), "{query}: {message}");
    }
    // Not on the data list, which pages with _skip.
    let r = c
        .get(&format!("/data/v1/private?_sort=-capacity&_after={next}"))
        .await;
    assert!(r.assert_error(400, "INVALID_PARAMETER").contains("_skip"));
    // The last page carries no cursor; the list is unchanged.
    let r = c.get("/object/v1/all?_sort=-capacity&_limit=100").await;
    assert_eq!(r.header("x-platform-next"), None);
    assert_eq!(r.total(), 5);
}

/// A list past 10,000 matches answers an estimated total and says so in `x-platform-total`;
/// `_count=exact` counts every match; a shorter list is exact; a bad `_count` is a 400.
#[actix_rt::test]
async fn long_lists_say_when_their_total_is_an_estimate() {
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    const METERS: u64 = 10_500;
    for start in (0..METERS).step_by(1500) {
        let batch: Vec<Value> = (start..(start + 1500).min(METERS))
            .map(|i| json!({"_id": format!("M{i:05}"), "_type": "Meter", "zone": i % 3}))
            .collect();
        let r = c.post("/object/v1", Value::Array(batch)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let kind = |r: &crate::common::Resp| r.header("x-platform-total");
    // Fewer matches than the threshold: exact.
    let r = c
        .get("/object/v1/private?_type=Meter&zone=0&_limit=5")
        .await;
    assert_eq!((r.total(), kind(&r).as_deref()), (3500, Some("exact")));
    // Past it: an estimate within a few percent, above the threshold, with the same page.
    let r = c.get("/object/v1/private?_type=Meter&_limit=5").await;
    assert_eq!(kind(&r).as_deref(), Some("estimated"));
    let estimate = r.total();
    assert!(
        estimate > 10_000 && estimate.abs_diff(METERS) < METERS / 10,
        "{estimate}"
    );
    assert_eq!(
        ids(&r.body),
        ["M00000", "M00001", "M00002", "M00003", "M00004"]
    );
    let exact = c
        .get("/object/v1/private?_type=Meter&_limit=5&_count=exact")
        .await;
    assert_eq!(
        (exact.total(), kind(&exact).as_deref()),
        (METERS, Some("exact"))
    );
    assert_eq!(exact.body, r.body);
    // The console's pager says it is an estimate.
    let page = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/console?type=Meter")
                .insert_header(("accept", "text/html"))
                .insert_header(("authorization", c.auth.clone().unwrap())),
        )
        .await;
    let html = page.body.as_str().unwrap_or_default().to_string();
    assert!(html.contains(&format!("of about {estimate}")), "{html}");
    // A bad _count is refused, naming it.
    for bad in ["Exact", "", "none"] {
        let r = c.get(&format!("/object/v1/private?_count={bad}")).await;
        assert!(
            r.assert_error(400, "INVALID_PARAMETER").contains("_count"),
            "{bad}"
        );
    }
}
