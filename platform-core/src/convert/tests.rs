use std::cell::RefCell;
use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use super::fx::{parse_currency, rate, RateSource};
use super::units::{
    all_units, parse_unit, price_factor, quantity_factor, split_price_unit, Dimension, Unit,
};
use crate::error::{Error, ErrorCode, Result};

// --- helpers -----------------------------------------------------------------------------------

fn u(code: &str) -> Unit {
    parse_unit(code).unwrap_or_else(|e| panic!("{code}: {e}"))
}

fn q(from: &str, to: &str) -> f64 {
    quantity_factor(&u(from), &u(to), None).unwrap()
}

fn assert_rel(actual: f64, expected: f64, tol: f64) {
    let err = ((actual - expected) / expected).abs();
    assert!(
        err <= tol,
        "{actual} != {expected} (relative error {err:e} > {tol:e})"
    );
}

/// Within a few ulps: the factors are one division of exactly written constants.
fn assert_close(actual: f64, expected: f64) {
    assert_rel(actual, expected, 1e-15);
}

fn message(e: Error) -> String {
    assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
    e.to_string()
}

fn date(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap()
}

/// An in-memory FX store: per pair, dated rates; answers the rate at `at` or the last before,
/// and records every pair asked for.
#[derive(Default)]
struct Rates {
    series: HashMap<String, Vec<(DateTime<Utc>, f64)>>,
    asked: RefCell<Vec<String>>,
}

impl Rates {
    fn with(pairs: &[(&str, f64)]) -> Rates {
        let mut rates = Rates::default();
        for (pair, r) in pairs {
            rates.add(pair, date(2000, 1, 1), *r);
        }
        rates
    }

    fn add(&mut self, pair: &str, at: DateTime<Utc>, r: f64) {
        let obs = self.series.entry(pair.to_string()).or_default();
        obs.push((at, r));
        obs.sort_by_key(|(t, _)| *t);
    }

    fn asked(&self) -> Vec<String> {
        self.asked.borrow().clone()
    }
}

impl RateSource for Rates {
    fn spot(&self, pair: &str, at: DateTime<Utc>) -> Result<Option<f64>> {
        self.asked.borrow_mut().push(pair.to_string());
        Ok(self
            .series
            .get(pair)
            .and_then(|obs| obs.iter().rev().find(|(t, _)| *t <= at))
            .map(|(_, r)| *r))
    }
}

fn fx(source: &Rates, from: &str, to: &str) -> Result<f64> {
    rate(source, from, to, date(2024, 3, 1))
}

// --- unit table --------------------------------------------------------------------------------

#[test]
fn codes_parse_case_insensitively_with_aliases() {
    for (input, canonical, dimension) in [
        ("MWh", "MWh", Dimension::Energy),
        ("mwh", "MWh", Dimension::Energy),
        (" MWH ", "MWh", Dimension::Energy),
        ("kwh", "kWh", Dimension::Energy),
        ("GWh", "GWh", Dimension::Energy),
        ("twh", "TWh", Dimension::Energy),
        ("gj", "GJ", Dimension::Energy),
        ("mj", "MJ", Dimension::Energy),
        ("MMBTU", "MMBtu", Dimension::Energy),
        ("Dth", "MMBtu", Dimension::Energy),
        ("THERM", "therm", Dimension::Energy),
        ("therms", "therm", Dimension::Energy),
        ("KTH", "kth", Dimension::Energy),
        ("kilotherm", "kth", Dimension::Energy),
        ("MT", "MT", Dimension::Mass),
        ("mt", "MT", Dimension::Mass),
        ("t", "MT", Dimension::Mass),
        ("TONNE", "MT", Dimension::Mass),
        ("tonnes", "MT", Dimension::Mass),
        ("KG", "kg", Dimension::Mass),
        ("kgs", "kg", Dimension::Mass),
        ("G", "g", Dimension::Mass),
        ("LBS", "lb", Dimension::Mass),
        ("st", "ST", Dimension::Mass),
        ("short_ton", "ST", Dimension::Mass),
        ("lt", "LT", Dimension::Mass),
        ("OZT", "ozt", Dimension::Mass),
        ("100KGS", "100kg", Dimension::Mass),
        ("BBL", "BBL", Dimension::Volume),
        ("BBLS", "BBL", Dimension::Volume),
        ("barrels", "BBL", Dimension::Volume),
        ("M3", "m3", Dimension::Volume),
        ("m³", "m3", Dimension::Volume),
        ("cbm", "m3", Dimension::Volume),
        ("l", "L", Dimension::Volume),
        ("litres", "L", Dimension::Volume),
        ("KL", "kL", Dimension::Volume),
        ("GAL", "gal", Dimension::Volume),
        ("gallons", "gal", Dimension::Volume),
        ("bu", "BU", Dimension::Volume),
    ] {
        let unit = u(input);
        assert_eq!(unit.code(), canonical, "{input}");
        assert_eq!(unit.dimension(), dimension, "{input}");
        assert_eq!(unit.to_string(), canonical);
    }
    assert_eq!(u("TONNE"), u("MT"));
    assert_ne!(u("MT"), u("kg"));
    assert_eq!(Dimension::Volume.to_string(), "volume");
}

#[test]
fn every_code_and_alias_is_unique_and_parses_to_itself() {
    let mut seen = HashMap::new();
    for (unit, aliases) in all_units() {
        assert!(unit.size() > 0.0 && unit.size().is_finite());
        for name in std::iter::once(&unit.code()).chain(aliases) {
            assert_eq!(u(name), unit, "{name}");
            assert_eq!(u(&name.to_lowercase()), unit, "{name}");
            assert_eq!(u(&name.to_uppercase()), unit, "{name}");
            let previous = seen.insert(name.to_uppercase(), unit.code());
            assert!(previous.is_none(), "{name} defined twice");
        }
    }
    assert_eq!(all_units().count(), 23);
}

#[test]
fn unknown_units_are_errors() {
    for code in [
        "", "foo", "ton", "MBtu", "kg/m3", "EUR/MWh", "stone", "MWh2",
    ] {
        let m = message(parse_unit(code).unwrap_err());
        assert!(m.starts_with("unknown unit '"), "{m}");
        assert!(m.contains("MWh, GWh") || m.contains("kWh, MWh"), "{m}");
    }
    let m = message(parse_unit(" foo ").unwrap_err());
    assert!(
        m.starts_with("unknown unit 'foo' (known units: kWh, MWh,"),
        "{m}"
    );
}

// --- energy ------------------------------------------------------------------------------------

#[test]
fn energy_factors_match_their_definitions() {
    assert_close(q("MWh", "kWh"), 1000.0);
    assert_close(q("kWh", "MWh"), 0.001);
    assert_close(q("GWh", "MWh"), 1000.0);
    assert_close(q("TWh", "GWh"), 1000.0);
    assert_close(q("TWh", "kWh"), 1e9);
    assert_close(q("MWh", "GJ"), 3.6);
    assert_close(q("kWh", "MJ"), 3.6);
    assert_close(q("GJ", "MJ"), 1000.0);
    assert_close(q("GWh", "GJ"), 3600.0);
    // 1 MMBtu = 1e6 Btu_IT = 1.05505585262 GJ
    assert_close(q("MMBtu", "GJ"), 1.05505585262);
    assert_close(q("MMBtu", "MJ"), 1055.05585262);
    assert_close(q("GJ", "MMBtu"), 0.9478171203133172);
    assert_close(q("DTH", "MMBtu"), 1.0);
    // 1 therm = 0.1 MMBtu = 105.505585262 MJ = 0.0293071070172222... MWh
    assert_close(q("therm", "MMBtu"), 0.1);
    assert_close(q("therm", "MJ"), 105.505585262);
    assert_close(q("therm", "MWh"), 0.029_307_107_017_222_222);
    assert_close(q("therm", "kWh"), 29.307_107_017_222_222);
    assert_close(q("MWh", "therm"), 34.121_416_331_279_42);
    assert_close(q("MWh", "MMBtu"), 3.412_141_633_127_942);
    // 1 kth = 1000 therm
    assert_close(q("kth", "therm"), 1000.0);
    assert_close(q("kth", "MWh"), 29.307_107_017_222_222);
    assert_close(q("kth", "MMBtu"), 100.0);
    assert_eq!(q("therm", "THERMS"), 1.0);
}

// --- mass --------------------------------------------------------------------------------------

#[test]
fn mass_factors_match_their_definitions() {
    assert_close(q("MT", "kg"), 1000.0);
    assert_close(q("t", "kg"), 1000.0);
    assert_close(q("kg", "g"), 1000.0);
    assert_close(q("MT", "g"), 1e6);
    assert_close(q("100kg", "kg"), 100.0);
    assert_close(q("MT", "100kg"), 10.0);
    // 1 lb = 0.45359237 kg (exact)
    assert_close(q("lb", "kg"), 0.453_592_37);
    assert_close(q("MT", "lb"), 2_204.622_621_848_776);
    // short ton 2000 lb, long ton 2240 lb
    assert_close(q("ST", "lb"), 2000.0);
    assert_close(q("ST", "MT"), 0.907_184_74);
    assert_close(q("LT", "lb"), 2240.0);
    assert_close(q("LT", "kg"), 1_016.046_908_8);
    // troy ounce 31.1034768 g
    assert_close(q("ozt", "g"), 31.103_476_8);
    assert_close(q("kg", "ozt"), 32.150_746_568_627_98);
}

// --- volume ------------------------------------------------------------------------------------

#[test]
fn volume_factors_match_their_definitions() {
    // 1 BBL = 42 US gal = 158.987294928 L
    assert_close(q("BBL", "gal"), 42.0);
    assert_close(q("BBL", "L"), 158.987_294_928);
    assert_close(q("m3", "BBL"), 6.289_810_770_432_105);
    assert_close(q("gal", "L"), 3.785_411_784);
    assert_close(q("m3", "L"), 1000.0);
    assert_close(q("kL", "L"), 1000.0);
    assert_close(q("kL", "m3"), 1.0);
    assert_close(q("cbm", "m3"), 1.0);
    // US bushel 2150.42 in3 = 35.23907016688 L
    assert_close(q("BU", "L"), 35.239_070_166_88);
}

// --- round trips, prices -----------------------------------------------------------------------

#[test]
fn every_conversion_round_trips() {
    let density = Some(845.0);
    let units: Vec<Unit> = all_units().map(|(unit, _)| unit).collect();
    for a in &units {
        for b in &units {
            let there = quantity_factor(a, b, density);
            let back = quantity_factor(b, a, density);
            match (a.dimension(), b.dimension()) {
                (Dimension::Energy, Dimension::Energy)
                | (Dimension::Mass | Dimension::Volume, Dimension::Mass | Dimension::Volume) => {
                    for x in [1.0, 123.456, 7.5e-4, 9.87e8] {
                        let y = x * there.as_ref().unwrap();
                        assert_rel(y * back.as_ref().unwrap(), x, 1e-12);
                        let p = x * price_factor(a, b, density).unwrap();
                        assert_rel(p * price_factor(b, a, density).unwrap(), x, 1e-12);
                    }
                }
                _ => {
                    assert!(there.is_err() && back.is_err(), "{a} {b}");
                }
            }
        }
        assert_eq!(quantity_factor(a, a, None).unwrap(), 1.0);
        assert_eq!(price_factor(a, a, None).unwrap(), 1.0);
    }
}

#[test]
fn price_factor_is_the_inverse_of_quantity_factor() {
    let (mwh, kwh, therm) = (u("MWh"), u("kWh"), u("therm"));
    // 50 EUR/MWh = 0.05 EUR/kWh, while 1 MWh = 1000 kWh
    assert_close(50.0 * price_factor(&mwh, &kwh, None).unwrap(), 0.05);
    assert_close(quantity_factor(&mwh, &kwh, None).unwrap(), 1000.0);
    // 0.8 GBP/therm = 27.297... GBP/MWh
    assert_close(
        0.8 * price_factor(&therm, &mwh, None).unwrap(),
        27.297_133_065_023_535,
    );
    for (a, b, d) in [
        ("MMBtu", "GJ", None),
        ("BBL", "m3", None),
        ("MT", "BBL", Some(845.0)),
        ("BU", "MT", Some(721.0)),
    ] {
        let (a, b) = (u(a), u(b));
        let qf = quantity_factor(&a, &b, d).unwrap();
        let pf = price_factor(&a, &b, d).unwrap();
        assert_rel(qf * pf, 1.0, 1e-15);
        assert_close(pf, quantity_factor(&b, &a, d).unwrap());
    }
}

// --- density -----------------------------------------------------------------------------------

#[test]
fn mass_and_volume_convert_through_a_density() {
    let gasoil = Some(845.0);
    // 1 MT at 845 kg/m3 = 1000/845 m3 = 7.44356304... BBL
    assert_close(
        quantity_factor(&u("MT"), &u("BBL"), gasoil).unwrap(),
        7.443_563_041_931_485,
    );
    // 1 BBL at 845 kg/m3 = 0.158987294928 * 845 kg = 0.13434426421416 MT
    assert_close(
        quantity_factor(&u("BBL"), &u("MT"), gasoil).unwrap(),
        0.134_344_264_214_16,
    );
    // 700 USD/MT of gasoil = 94.04... USD/BBL
    assert_close(
        700.0 * price_factor(&u("MT"), &u("BBL"), gasoil).unwrap(),
        700.0 * 0.134_344_264_214_16,
    );
    assert_close(
        quantity_factor(&u("kg"), &u("L"), Some(1000.0)).unwrap(),
        1.0,
    );
    // corn at 721 kg/m3: 1 BU = 25.40736959032048 kg; 1 MT = 39.3586591656... BU
    let corn = Some(721.0);
    assert_close(
        quantity_factor(&u("BU"), &u("kg"), corn).unwrap(),
        25.407_369_590_320_48,
    );
    assert_close(
        quantity_factor(&u("MT"), &u("BU"), corn).unwrap(),
        39.358_659_165_605_75,
    );
    // a density is ignored within one dimension
    assert_close(quantity_factor(&u("MT"), &u("kg"), gasoil).unwrap(), 1000.0);
}

#[test]
fn mass_to_volume_without_a_density_is_an_error() {
    let m = message(quantity_factor(&u("MT"), &u("BBL"), None).unwrap_err());
    assert_eq!(
        m,
        "cannot convert MT to BBL: no density (give __density in kg/m3)"
    );
    let m = message(price_factor(&u("bbls"), &u("tonne"), None).unwrap_err());
    assert_eq!(
        m,
        "cannot convert BBL to MT: no density (give __density in kg/m3)"
    );
    for bad in [0.0, -845.0, f64::NAN, f64::INFINITY] {
        let m = message(quantity_factor(&u("MT"), &u("m3"), Some(bad)).unwrap_err());
        assert!(
            m.starts_with("cannot convert MT to m3: density ")
                && m.ends_with("is not a positive number of kg/m3"),
            "{m}"
        );
    }
}

#[test]
fn energy_does_not_convert_to_mass_or_volume() {
    for (a, b) in [("MWh", "MT"), ("MT", "MWh"), ("therm", "BBL"), ("m3", "GJ")] {
        for density in [None, Some(845.0)] {
            let m = message(quantity_factor(&u(a), &u(b), density).unwrap_err());
            let expected = format!("cannot convert {} to {}: no heating value", u(a), u(b));
            assert!(m.starts_with(&expected), "{m}");
            assert!(price_factor(&u(a), &u(b), density).is_err());
        }
    }
    let m = message(quantity_factor(&u("MWh"), &u("MT"), None).unwrap_err());
    assert_eq!(
        m,
        "cannot convert MWh to MT: no heating value (energy does not convert to mass; only mass \
         and volume convert into each other, through a density)"
    );
}

// --- price units -------------------------------------------------------------------------------

#[test]
fn price_units_split_into_currency_and_unit() {
    assert_eq!(split_price_unit("EUR/MWh"), (Some("EUR"), "MWh"));
    assert_eq!(split_price_unit("GBP/therm"), (Some("GBP"), "therm"));
    assert_eq!(split_price_unit("GBp/therm"), (Some("GBp"), "therm"));
    assert_eq!(split_price_unit(" usd / bbl "), (Some("usd"), "bbl"));
    assert_eq!(split_price_unit("USD/MT"), (Some("USD"), "MT"));
    assert_eq!(split_price_unit("MWh"), (None, "MWh"));
    assert_eq!(split_price_unit(" therm "), (None, "therm"));
    assert_eq!(split_price_unit(""), (None, ""));
    // the left side is not a currency: the whole string is the unit
    assert_eq!(split_price_unit("kg/m3"), (None, "kg/m3"));
    assert_eq!(split_price_unit("MWh/h"), (None, "MWh/h"));
    assert_eq!(split_price_unit("EURO/MWh"), (None, "EURO/MWh"));
    assert_eq!(split_price_unit("/MWh"), (None, "/MWh"));
    assert_eq!(split_price_unit("EUR/"), (Some("EUR"), ""));
}

// --- currencies --------------------------------------------------------------------------------

#[test]
fn currency_codes_are_three_letters_or_minor_units() {
    for (input, code, iso, scale) in [
        ("EUR", "EUR", "EUR", 1.0),
        ("eur", "EUR", "EUR", 1.0),
        (" gbp ", "GBP", "GBP", 1.0),
        ("GBp", "GBp", "GBP", 0.01),
        ("GBX", "GBX", "GBP", 0.01),
        ("gbx", "GBX", "GBP", 0.01),
        ("USc", "USc", "USD", 0.01),
        ("USX", "USX", "USD", 0.01),
        ("EUc", "EUc", "EUR", 0.01),
    ] {
        let c = parse_currency(input).unwrap();
        assert_eq!(
            (c.code(), c.iso(), c.scale()),
            (code, iso, scale),
            "{input}"
        );
        assert_eq!(c.to_string(), code);
    }
    for bad in ["", "EU", "EURO", "E1R", "€", "EUR/MWh"] {
        let m = message(parse_currency(bad).unwrap_err());
        assert!(m.starts_with("unknown currency '"), "{m}");
    }
    let m = message(fx(&Rates::default(), "EURO", "GBP").unwrap_err());
    assert!(m.starts_with("unknown currency 'EURO'"), "{m}");
}

// --- FX ----------------------------------------------------------------------------------------

#[test]
fn the_same_currency_is_one_without_a_lookup() {
    let rates = Rates::default();
    assert_eq!(fx(&rates, "EUR", "EUR").unwrap(), 1.0);
    assert_eq!(fx(&rates, "eur", "EUR").unwrap(), 1.0);
    assert!(rates.asked().is_empty());
}

#[test]
fn a_direct_pair_is_used_first() {
    let rates = Rates::with(&[("EURGBP", 0.85), ("GBPEUR", 1.2)]);
    assert_eq!(fx(&rates, "EUR", "GBP").unwrap(), 0.85);
    assert_eq!(fx(&rates, "gbp", "eur").unwrap(), 1.2);
    assert_eq!(rates.asked(), ["EURGBP", "GBPEUR"]);
}

#[test]
fn an_inverse_pair_is_inverted() {
    let rates = Rates::with(&[("EURGBP", 0.85)]);
    assert_close(fx(&rates, "GBP", "EUR").unwrap(), 1.0 / 0.85);
    assert_eq!(rates.asked(), ["GBPEUR", "EURGBP"]);
}

#[test]
fn a_cross_rate_goes_through_eur_first() {
    // GBP -> EUR (inverse of EURGBP) -> JPY (direct EURJPY)
    let rates = Rates::with(&[
        ("EURGBP", 0.85),
        ("EURJPY", 160.0),
        ("GBPUSD", 1.25),
        ("USDJPY", 150.0),
    ]);
    assert_close(fx(&rates, "GBP", "JPY").unwrap(), 160.0 / 0.85);
    assert_eq!(
        rates.asked(),
        ["GBPJPY", "JPYGBP", "GBPEUR", "EURGBP", "EURJPY"]
    );
    // JPY -> EUR (inverse of EURJPY) -> GBP (direct EURGBP)
    assert_close(fx(&rates, "JPY", "GBP").unwrap(), 0.85 / 160.0);
}

#[test]
fn a_cross_rate_goes_through_usd_when_eur_legs_are_missing() {
    let rates = Rates::with(&[("GBPUSD", 1.25), ("USDJPY", 150.0), ("EURGBP", 0.85)]);
    // GBP -> EUR exists but EUR -> JPY does not: USD
    assert_close(fx(&rates, "GBP", "JPY").unwrap(), 1.25 * 150.0);
    assert_close(fx(&rates, "JPY", "GBP").unwrap(), 1.0 / (1.25 * 150.0));
    // from EUR, the only cross is through USD: EUR -> USD (inverse USDEUR) -> JPY
    let rates = Rates::with(&[("USDEUR", 0.9), ("JPYUSD", 1.0 / 150.0)]);
    assert_close(fx(&rates, "EUR", "JPY").unwrap(), 150.0 / 0.9);
    assert_eq!(
        rates.asked(),
        ["EURJPY", "JPYEUR", "EURUSD", "USDEUR", "USDJPY", "JPYUSD"]
    );
}

#[test]
fn a_missing_rate_names_what_was_looked_for() {
    let rates = Rates::with(&[("EURGBP", 0.85), ("GBPUSD", 1.25)]);
    let m = message(fx(&rates, "GBP", "JPY").unwrap_err());
    assert_eq!(
        m,
        "cannot convert GBP to JPY on 2024-03-01: no FX rate (looked for #FX.GBPJPY, #FX.JPYGBP, \
         and crosses through EUR and USD)"
    );
    let m = message(fx(&rates, "EUR", "JPY").unwrap_err());
    assert_eq!(
        m,
        "cannot convert EUR to JPY on 2024-03-01: no FX rate (looked for #FX.EURJPY, #FX.JPYEUR, \
         and a cross through USD)"
    );
    let m = message(fx(&rates, "usd", "eur").unwrap_err());
    assert_eq!(
        m,
        "cannot convert USD to EUR on 2024-03-01: no FX rate (looked for #FX.USDEUR and \
         #FX.EURUSD)"
    );
    // minor units show as given, pairs by ISO code; a time of day shows in full
    let at = Utc.with_ymd_and_hms(2024, 3, 1, 16, 30, 0).unwrap();
    let m = message(rate(&rates, "GBp", "JPY", at).unwrap_err());
    assert_eq!(
        m,
        "cannot convert GBp to JPY on 2024-03-01T16:30:00Z: no FX rate (looked for #FX.GBPJPY, \
         #FX.JPYGBP, and crosses through EUR and USD)"
    );
}

#[test]
fn minor_units_scale_by_a_hundred() {
    let rates = Rates::with(&[("EURGBP", 0.85), ("EURUSD", 1.1)]);
    assert_eq!(fx(&rates, "GBp", "GBP").unwrap(), 0.01);
    assert_eq!(fx(&rates, "GBP", "GBX").unwrap(), 100.0);
    assert_eq!(fx(&rates, "GBp", "gbx").unwrap(), 1.0);
    assert_eq!(fx(&rates, "USc", "USD").unwrap(), 0.01);
    assert_eq!(fx(&rates, "EUc", "EUR").unwrap(), 0.01);
    assert!(rates.asked().is_empty());
    // 1 EUR = 0.85 GBP = 85 GBp; 1 GBp = 1/85 EUR
    assert_close(fx(&rates, "EUR", "GBp").unwrap(), 85.0);
    assert_close(fx(&rates, "GBX", "EUR").unwrap(), 1.0 / 85.0);
    // 1 USc = 0.01 USD = 0.01/1.1 EUR = 1/1.1 EUc
    assert_close(fx(&rates, "USc", "EUc").unwrap(), 1.0 / 1.1);
    // a cross: 1 GBp = 0.01/0.85 EUR = 0.01 * 1.1/0.85 USD = 1.1/0.85 USc
    assert_close(fx(&rates, "GBp", "USX").unwrap(), 1.1 / 0.85);
    // GBP is pounds, GBp is pence
    assert_close(fx(&rates, "GBP", "EUR").unwrap(), 1.0 / 0.85);
}

#[test]
fn the_rate_is_the_one_at_or_last_before_the_instant() {
    let mut rates = Rates::default();
    rates.add("EURGBP", date(2024, 2, 28), 0.84);
    rates.add("EURGBP", date(2024, 3, 1), 0.85);
    rates.add("EURGBP", date(2024, 3, 4), 0.86);
    let at = |y, m, d| rate(&rates, "EUR", "GBP", date(y, m, d));
    assert_eq!(at(2024, 3, 1).unwrap(), 0.85);
    assert_eq!(at(2024, 3, 3).unwrap(), 0.85);
    assert_eq!(at(2024, 2, 29).unwrap(), 0.84);
    assert_eq!(at(2024, 3, 5).unwrap(), 0.86);
    let m = message(at(2024, 2, 27).unwrap_err());
    assert!(
        m.starts_with("cannot convert EUR to GBP on 2024-02-27: no FX rate"),
        "{m}"
    );
}

#[test]
fn an_unusable_rate_is_an_error_naming_its_series() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let rates = Rates::with(&[("EURGBP", bad)]);
        let m = message(fx(&rates, "GBP", "EUR").unwrap_err());
        assert!(
            m.starts_with("cannot convert GBP to EUR on 2024-03-01: #FX.EURGBP SPOT is "),
            "{m}"
        );
    }
}

#[test]
fn source_errors_pass_through_and_closures_are_sources() {
    let failing = |_: &str, _: DateTime<Utc>| -> Result<Option<f64>> {
        Err(Error::Internal("store down".into()))
    };
    let e = rate(&failing, "EUR", "GBP", date(2024, 3, 1)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Internal);

    let day = NaiveDate::from_ymd_opt(2024, 3, 1).unwrap();
    let dated = move |pair: &str, at: DateTime<Utc>| -> Result<Option<f64>> {
        Ok((pair == "EURUSD" && at.date_naive() >= day).then_some(1.08))
    };
    assert_close(
        rate(&dated, "USD", "EUR", date(2024, 3, 2)).unwrap(),
        1.0 / 1.08,
    );
    assert!(rate(&dated, "USD", "EUR", date(2024, 2, 29)).is_err());
}

#[test]
fn the_module_example_converts_therms_and_crosses_currencies() {
    use crate::convert::{parse_unit, price_factor, quantity_factor, rate};

    let (mwh, therm) = (parse_unit("MWh").unwrap(), parse_unit("THERMS").unwrap());
    let q = quantity_factor(&mwh, &therm, None).unwrap();
    assert!((q - 34.121_416_331_279_42).abs() < 1e-12);
    // 50 EUR/MWh in EUR/therm
    let p = 50.0 * price_factor(&mwh, &therm, None).unwrap();
    assert!((p - 1.465355350861111).abs() < 1e-12);

    let rates = |pair: &str, _at: chrono::DateTime<chrono::Utc>| -> crate::Result<_> {
        Ok((pair == "EURGBP").then_some(0.85))
    };
    let at = chrono::DateTime::UNIX_EPOCH;
    assert!((rate(&rates, "GBP", "EUR", at).unwrap() - 1.0 / 0.85).abs() < 1e-15);
    assert!((rate(&rates, "EUR", "GBp", at).unwrap() - 85.0).abs() < 1e-12);
}
