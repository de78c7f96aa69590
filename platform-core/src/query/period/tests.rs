use super::*;

fn date(text: &str) -> NaiveDate {
    text.parse().expect("test date")
}

fn absolute(code: &str) -> AbsolutePeriod {
    match parse(code).expect("parses") {
        Period::Absolute(p) => p,
        other => panic!("{code} parsed as {other:?}"),
    }
}

fn at(code: &str, ondate: &str) -> ResolvedPeriod {
    parse(code)
        .and_then(|p| p.resolve(date(ondate)))
        .expect("resolves")
}

#[test]
fn week_ordinals_start_on_monday() {
    assert_eq!(date("0001-01-01").weekday(), Weekday::Mon);
    let week = AbsolutePeriod::containing(PeriodUnit::Week, date("2024-03-01")).expect("ok");
    assert_eq!(week.start(), date("2024-02-26"));
    assert_eq!(week.end(), date("2024-03-03"));
}

#[test]
fn iso_week_53() {
    let w53 = absolute("2020W53");
    assert_eq!(w53.start(), date("2020-12-28"));
    assert_eq!(w53.end(), date("2021-01-03"));
    assert!(parse("2021W53").is_err());
    // At 2021-01-02 (ISO 2020-W53), W00 is 2020W53 and W01 is 2021W01.
    let w00 = at("W00", "2021-01-02");
    assert_eq!(w00.absolute.map(|p| p.to_string()), Some("2020W53".into()));
    let w01 = at("W01", "2021-01-02");
    assert_eq!(w01.absolute.map(|p| p.to_string()), Some("2021W01".into()));
    assert_eq!(
        w53.relative_at(date("2020-12-27")).map(|r| r.to_string()),
        Some("W01".into())
    );
}

#[test]
fn weekends_are_the_saturday_and_sunday_of_an_iso_week() {
    // Wednesday 27 November 2024: the next weekend is 30 November and 1 December, the
    // weekend of ISO week 48.
    let wkd = at("WKD01", "2024-11-27");
    assert_eq!(
        (wkd.delivery.start, wkd.delivery.end, wkd.delivery.expiry),
        (date("2024-11-30"), date("2024-12-01"), date("2024-11-29"))
    );
    assert_eq!(
        wkd.absolute.map(|a| a.to_string()),
        Some("2024WKD48".into())
    );
    // On the Friday before, the same; on the Saturday, that weekend is WKD00 and WKD01
    // the next one.
    assert_eq!(at("WKD01", "2024-11-29"), wkd);
    assert_eq!(at("WKD00", "2024-11-30"), wkd);
    assert_eq!(at("WKD00", "2024-12-01"), wkd);
    assert_eq!(at("WKD01", "2024-11-30").delivery.start, date("2024-12-07"));
    assert_eq!(at("WKD02", "2024-11-27").delivery.start, date("2024-12-07"));
    let abs = absolute("2024wkd48");
    assert_eq!(
        (abs.start(), abs.end()),
        (date("2024-11-30"), date("2024-12-01"))
    );
    assert_eq!(
        abs.relative_at(date("2024-11-27")).map(|r| r.to_string()),
        Some("WKD01".into())
    );
    // The weekend of ISO week 53 of 2020 is in January 2021.
    let w53 = absolute("2020WKD53");
    assert_eq!(
        (w53.start(), w53.end()),
        (date("2021-01-02"), date("2021-01-03"))
    );
    assert_eq!(w53.to_string(), "2020WKD53");
    assert!(parse("2021WKD53").is_err());
    assert_eq!(parse("wkd1").expect("wkd1").to_string(), "WKD01");
    // A weekend sorts between a day-ahead and a week.
    assert!(PeriodUnit::DayAhead < PeriodUnit::Weekend && PeriodUnit::Weekend < PeriodUnit::Week);
}

#[test]
fn saturday_and_sunday_deliver_the_next_such_day() {
    for (code, ondate, day) in [
        ("SAT", "2024-11-27", "2024-11-30"),
        ("SAT", "2024-11-29", "2024-11-30"),
        ("SAT", "2024-11-30", "2024-12-07"),
        ("SUN", "2024-11-30", "2024-12-01"),
        ("sun", "2024-12-01", "2024-12-08"),
    ] {
        let r = at(code, ondate);
        assert_eq!(
            (r.delivery.start, r.delivery.end),
            (date(day), date(day)),
            "{code} {ondate}"
        );
        assert_eq!(r.delivery.expiry, date(day).pred_opt().unwrap());
        let absolute = format!("{}D{}", &day[..4], day[5..].replace('-', ""));
        assert_eq!(r.absolute.map(|a| a.to_string()), Some(absolute));
    }
    assert_eq!(parse("sat").expect("sat").to_string(), "SAT");
    assert!(parse("SAT").expect("sat").is_relative());
}

#[test]
fn season_two_crosses_the_year() {
    let s2 = absolute("2024S02");
    assert_eq!(s2.start(), date("2024-10-01"));
    assert_eq!(s2.end(), date("2025-03-31"));
    // A winter ondate sits in the previous year's S02.
    let s00 = at("S00", "2025-02-15");
    assert_eq!(s00.absolute, Some(s2));
    assert_eq!(s2.relative_at(date("2025-03-31")).map(|r| r.index), Some(0));
    assert_eq!(s2.relative_at(date("2025-04-01")), None);
}

#[test]
fn leap_year_periods() {
    assert_eq!(absolute("2024M02").end(), date("2024-02-29"));
    assert_eq!(absolute("2100M02").end(), date("2100-02-28"));
    assert!(parse("2023D0229").is_err());
    assert_eq!(absolute("2024D0229").to_string(), "2024D0229");
    assert_eq!(at("M01", "2024-01-31").delivery.end, date("2024-02-29"));
}

#[test]
fn canonical_forms() {
    for (input, canonical) in [
        ("2024Q2", "2024Q02"),
        ("2024q02", "2024Q02"),
        ("2024M3", "2024M03"),
        ("2024HY1", "2024HY01"),
        ("2024da0302", "2024DA0302"),
        ("2024y", "2024Y"),
        ("m1", "M01"),
        ("DA001", "DA01"),
        ("bom", "BOM"),
        ("M123", "M123"),
    ] {
        assert_eq!(parse(input).expect(input).to_string(), canonical);
    }
}

#[test]
fn empty_balance_is_an_error() {
    let err = parse("BOM")
        .and_then(|p| p.resolve(date("2024-03-31")))
        .expect_err("empty");
    assert!(err.message.contains("\"BOM\""), "{}", err.message);
    assert!(at("BOW", "2024-03-30").delivery.start == date("2024-03-31"));
}

#[test]
fn year_range_is_enforced() {
    assert!(parse("Y01")
        .and_then(|p| p.resolve(date("9999-06-01")))
        .is_err());
    assert!(parse("M4294967295")
        .and_then(|p| p.resolve(date("2024-01-01")))
        .is_err());
    assert!(parse("M4294967296").is_err());
    assert_eq!(
        Some(absolute("0000Y").delivery().expiry),
        NaiveDate::from_ymd_opt(-1, 12, 31)
    );
}

#[test]
fn error_messages_name_the_input() {
    for bad in [
        "",
        "2024",
        "2024X",
        "2024Y1",
        "2024D031",
        "2024W",
        "2024M123",
        "HY",
        "DAX",
        "BOX",
        "WKD",
        "2024WKD",
        "2024WKD1X",
        "SATX",
    ] {
        let err = parse(bad).expect_err(bad);
        assert!(
            err.message
                .starts_with(&format!("invalid period code \"{bad}\": ")),
            "{}",
            err.message
        );
    }
}
