//! Units of energy, mass and volume: the code table, parsing, and the factors that convert a
//! quantity (or a price per unit) from one unit to another.
//!
//! Every unit is stored as its size in the base unit of its dimension (joule, kilogram, cubic
//! metre), written from its exact legal or standard definition. A factor is the ratio of two
//! sizes, so every conversion is one multiplication and one division of exact-as-possible
//! constants; no factor is derived from another rounded factor.

use std::fmt;

use crate::error::{Error, Result};

/// The physical quantity a unit measures. Units convert freely within one dimension; mass and
/// volume convert into each other through a density; energy converts only to energy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// Energy (base unit: the joule).
    Energy,
    /// Mass (base unit: the kilogram).
    Mass,
    /// Volume (base unit: the cubic metre).
    Volume,
}

impl Dimension {
    /// The lower-case name used in messages (`energy`, `mass`, `volume`).
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Energy => "energy",
            Dimension::Mass => "mass",
            Dimension::Volume => "volume",
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A unit of measure from the platform's table (see the [module documentation](super)).
///
/// Two units are equal when they have the same canonical code; an alias parses to the same unit
/// as its canonical code.
#[derive(Debug, Clone, Copy)]
pub struct Unit {
    code: &'static str,
    dimension: Dimension,
    /// The size of one of this unit in the dimension's base unit (J, kg or m3).
    size: f64,
}

impl Unit {
    /// The canonical code (`MWh`, `therm`, `MT`, `BBL`, `m3`...).
    #[cfg(any(test, feature = "internals"))]
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The dimension this unit measures.
    #[cfg(any(test, feature = "internals"))]
    pub fn dimension(&self) -> Dimension {
        self.dimension
    }

    /// The size of one of this unit in the base unit of its dimension (J, kg or m3).
    #[cfg(test)]
    pub(super) fn size(&self) -> f64 {
        self.size
    }
}

impl PartialEq for Unit {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}

impl Eq for Unit {}

impl std::hash::Hash for Unit {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.code.hash(state);
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code)
    }
}

// --- Definitions -------------------------------------------------------------------------------

/// 1 Wh = 3600 J (1 W = 1 J/s, 1 h = 3600 s; SI, exact).
const WATT_HOUR_J: f64 = 3_600.0;

/// 1 Btu (International Table) = 1055.05585262 J (exact by definition: 1 Btu_IT/lb = 2326 J/kg
/// and 1 lb = 0.45359237 kg; ISO 31-4, NIST SP 811 appendix B). The thermochemical Btu
/// (1054.350 J) and the 59 °F Btu (1054.804 J) are not used.
const BTU_IT_J: f64 = 1_055.055_852_62;

/// 1 international avoirdupois pound = 0.45359237 kg (exact, International Yard and Pound
/// Agreement, 1959).
const POUND_KG: f64 = 0.453_592_37;

/// 1 US liquid gallon = 231 cubic inches = 3.785411784 L (exact; 1 in = 0.0254 m).
const US_GALLON_M3: f64 = 0.003_785_411_784;

/// The unit table: canonical code, dimension, size in base units, aliases (matched
/// case-insensitively, like the canonical code).
const TABLE: &[(&str, Dimension, f64, &[&str])] = &[
    // Energy, in joules.
    // 1 kWh = 1000 Wh = 3.6e6 J.
    ("kWh", Dimension::Energy, 1e3 * WATT_HOUR_J, &[]),
    // 1 MWh = 1e6 Wh = 3.6e9 J = 3.6 GJ.
    ("MWh", Dimension::Energy, 1e6 * WATT_HOUR_J, &[]),
    // 1 GWh = 1e9 Wh = 3.6e12 J.
    ("GWh", Dimension::Energy, 1e9 * WATT_HOUR_J, &[]),
    // 1 TWh = 1e12 Wh = 3.6e15 J.
    ("TWh", Dimension::Energy, 1e12 * WATT_HOUR_J, &[]),
    // 1 MJ = 1e6 J.
    ("MJ", Dimension::Energy, 1e6, &[]),
    // 1 GJ = 1e9 J.
    ("GJ", Dimension::Energy, 1e9, &[]),
    // 1 MMBtu = 1e6 Btu_IT = 1.05505585262 GJ. A dekatherm (10 therms) is the same quantity.
    (
        "MMBtu",
        Dimension::Energy,
        1e6 * BTU_IT_J,
        &["DTH", "DEKATHERM", "DEKATHERMS"],
    ),
    // 1 therm = 100 000 Btu_IT = 0.1 MMBtu = 105.505585262 MJ (the therm of UK gas markets,
    // NBP; the EU legal therm of Directive 80/181/EEC rounds it to 105.506 MJ, the US therm of
    // 59 °F Btu is 105.4804 MJ: neither is used).
    (
        "therm",
        Dimension::Energy,
        1e5 * BTU_IT_J,
        &["THERMS", "THM"],
    ),
    // 1 kilotherm = 1000 therms = 1e8 Btu_IT.
    (
        "kth",
        Dimension::Energy,
        1e8 * BTU_IT_J,
        &["KTHERM", "KTHERMS", "KILOTHERM", "KILOTHERMS"],
    ),
    // Mass, in kilograms.
    // 1 g = 0.001 kg.
    ("g", Dimension::Mass, 1e-3, &["GRAM", "GRAMS"]),
    // The kilogram (SI base unit).
    (
        "kg",
        Dimension::Mass,
        1.0,
        &["KGS", "KILOGRAM", "KILOGRAMS"],
    ),
    // 100 kg (a quotation unit of agricultural markets).
    ("100kg", Dimension::Mass, 100.0, &["100KGS"]),
    // 1 metric tonne = 1000 kg.
    (
        "MT",
        Dimension::Mass,
        1e3,
        &["T", "TONNE", "TONNES", "METRIC_TON", "METRIC_TONS"],
    ),
    // 1 pound (avoirdupois) = 0.45359237 kg.
    ("lb", Dimension::Mass, POUND_KG, &["LBS", "POUNDS"]),
    // 1 short ton (US) = 2000 lb = 907.18474 kg. `ST` is the short ton, never the stone.
    (
        "ST",
        Dimension::Mass,
        2000.0 * POUND_KG,
        &["SHORT_TON", "SHORT_TONS", "SHORTTON"],
    ),
    // 1 long ton (imperial) = 2240 lb = 1016.0469088 kg.
    (
        "LT",
        Dimension::Mass,
        2240.0 * POUND_KG,
        &["LONG_TON", "LONG_TONS", "LONGTON"],
    ),
    // 1 troy ounce = 480 grains = 31.1034768 g (exact; 1 grain = 64.79891 mg).
    (
        "ozt",
        Dimension::Mass,
        0.031_103_476_8,
        &["TOZ", "TROY_OZ", "TROYOZ"],
    ),
    // Volume, in cubic metres.
    // 1 L = 1 dm3 = 0.001 m3.
    (
        "L",
        Dimension::Volume,
        1e-3,
        &["LTR", "LITRE", "LITRES", "LITER", "LITERS"],
    ),
    // 1 kL = 1000 L = 1 m3.
    ("kL", Dimension::Volume, 1.0, &["KILOLITRE", "KILOLITER"]),
    // The cubic metre (SI); `cbm` is the shipping abbreviation.
    (
        "m3",
        Dimension::Volume,
        1.0,
        &["CBM", "M³", "CUBIC_METRE", "CUBIC_METER"],
    ),
    // 1 US liquid gallon = 3.785411784 L.
    (
        "gal",
        Dimension::Volume,
        US_GALLON_M3,
        &["GALS", "GALLON", "GALLONS", "USG"],
    ),
    // 1 oil barrel = 42 US gallons = 158.987294928 L (exact).
    (
        "BBL",
        Dimension::Volume,
        42.0 * US_GALLON_M3,
        &["BBLS", "BARREL", "BARRELS"],
    ),
    // 1 US (Winchester) bushel = 2150.42 cubic inches = 35.23907016688 L (exact); a mass per
    // bushel comes from the grain's density (corn at 721 kg/m3: 1 BU = 25.40736959 kg).
    (
        "BU",
        Dimension::Volume,
        0.035_239_070_166_88,
        &["BUSHEL", "BUSHELS"],
    ),
];

/// Every unit of the table with its aliases, in table order.
pub(super) fn all_units() -> impl Iterator<Item = (Unit, &'static [&'static str])> {
    TABLE.iter().map(|&(code, dimension, size, aliases)| {
        (
            Unit {
                code,
                dimension,
                size,
            },
            aliases,
        )
    })
}

/// Parses a unit code: a canonical code or an alias, case-insensitively, surrounding blanks
/// ignored (`MWh`, `mwh`, `TONNE`, `BBLS`, `M3`).
///
/// An unknown code is an [`InvalidParameter`](crate::error::ErrorCode::InvalidParameter) error
/// starting with `unknown unit` and listing the known codes.
pub fn parse_unit(code: &str) -> Result<Unit> {
    let wanted = code.trim().to_uppercase();
    all_units()
        .find(|(unit, aliases)| {
            unit.code.to_uppercase() == wanted || aliases.iter().any(|a| a.to_uppercase() == wanted)
        })
        .map(|(unit, _)| unit)
        .ok_or_else(|| {
            let known: Vec<&str> = all_units().map(|(unit, _)| unit.code).collect();
            Error::invalid_parameter(format!(
                "unknown unit '{}' (known units: {})",
                code.trim(),
                known.join(", ")
            ))
        })
}

/// The factor as a ratio `numerator / denominator`, so that a quantity factor and its price
/// factor are each one correctly rounded division.
fn ratio(from: &Unit, to: &Unit, density_kg_per_m3: Option<f64>) -> Result<(f64, f64)> {
    if from.dimension == to.dimension {
        return Ok((from.size, to.size));
    }
    let density = || -> Result<f64> {
        match density_kg_per_m3 {
            None => Err(Error::invalid_parameter(format!(
                "cannot convert {from} to {to}: no density (give __density in kg/m3)"
            ))),
            Some(d) if d.is_finite() && d > 0.0 => Ok(d),
            Some(d) => Err(Error::invalid_parameter(format!(
                "cannot convert {from} to {to}: density {d} is not a positive number of kg/m3"
            ))),
        }
    };
    match (from.dimension, to.dimension) {
        // q from-units = q * from.size kg = q * from.size / d m3 = q * from.size / (d * to.size)
        (Dimension::Mass, Dimension::Volume) => Ok((from.size, density()? * to.size)),
        // q from-units = q * from.size m3 = q * from.size * d kg
        (Dimension::Volume, Dimension::Mass) => Ok((from.size * density()?, to.size)),
        _ => Err(Error::invalid_parameter(format!(
            "cannot convert {from} to {to}: no heating value ({} does not convert to {}; only mass \
             and volume convert into each other, through a density)",
            from.dimension, to.dimension
        ))),
    }
}

/// The factor that turns a quantity in `from` into the same quantity in `to`
/// (`quantity_in_to = quantity_in_from * factor`; MWh to kWh is 1000).
///
/// Units of one dimension always convert. Mass and volume convert through
/// `density_kg_per_m3` (the `__density` parameter or a product's density), which must then be
/// given and be a positive finite number; it is ignored otherwise. Energy converts only to
/// energy. Impossible conversions are
/// [`InvalidParameter`](crate::error::ErrorCode::InvalidParameter) errors starting with
/// `cannot convert` and naming what is missing.
pub fn quantity_factor(from: &Unit, to: &Unit, density_kg_per_m3: Option<f64>) -> Result<f64> {
    let (num, den) = ratio(from, to, density_kg_per_m3)?;
    Ok(num / den)
}

/// The factor that turns a price per `from` into the same price per `to`
/// (`price_per_to = price_per_from * factor`; EUR/MWh to EUR/kWh is 0.001). It is the inverse
/// of [`quantity_factor`], with the same rules and errors.
pub fn price_factor(from: &Unit, to: &Unit, density_kg_per_m3: Option<f64>) -> Result<f64> {
    let (num, den) = ratio(from, to, density_kg_per_m3)?;
    Ok(den / num)
}

/// Splits a units string that may carry a price's currency: `"EUR/MWh"` gives
/// `(Some("EUR"), "MWh")`, `"GBp/therm"` gives `(Some("GBp"), "therm")`, `"MWh"` gives
/// `(None, "MWh")`. Parts are trimmed.
///
/// The text before the first `/` is taken as a currency when it is three ASCII letters and not
/// itself a unit code; otherwise the whole string is the unit (`"MWh/h"` stays whole, and then
/// does not parse as a unit). The currency is not validated here (see
/// [`parse_currency`](super::fx::parse_currency)).
pub fn split_price_unit(units: &str) -> (Option<&str>, &str) {
    if let Some((left, right)) = units.split_once('/') {
        let left = left.trim();
        if left.len() == 3
            && left.bytes().all(|b| b.is_ascii_alphabetic())
            && parse_unit(left).is_err()
        {
            return (Some(left), right.trim());
        }
    }
    (None, units.trim())
}
