//! Unit and currency conversion of data values: pure functions, no store access.
//!
//! The data service converts on read (`units=`, `currency=`, `__density=`). A series' `units`
//! names what its values measure; when its `currency` is set too, the values are prices *per*
//! unit (currency GBP, units `therm`: GBP/therm) and convert with [`price_factor`] instead of
//! [`quantity_factor`]. A units string may carry the currency itself (`EUR/MWh`, see
//! [`split_price_unit`]). Converting a price into another currency and unit multiplies by both
//! factors.
//!
//! # Units ([`units`])
//!
//! Codes are case-insensitive; aliases parse to the canonical code. Every size is written from
//! its exact definition (the comments in `units.rs` cite them).
//!
//! | Dimension | Canonical | Aliases                         | Definition                               |
//! |-----------|-----------|---------------------------------|------------------------------------------|
//! | energy    | `kWh`     |                                 | 3.6 MJ                                   |
//! | energy    | `MWh`     |                                 | 3.6 GJ (1 Wh = 3600 J)                   |
//! | energy    | `GWh`     |                                 | 3.6 TJ                                   |
//! | energy    | `TWh`     |                                 | 3.6 PJ                                   |
//! | energy    | `MJ`      |                                 | 10^6 J                                   |
//! | energy    | `GJ`      |                                 | 10^9 J                                   |
//! | energy    | `MMBtu`   | `DTH`, `DEKATHERM(S)`           | 10^6 Btu_IT = 1.05505585262 GJ           |
//! | energy    | `therm`   | `THERMS`, `THM`                 | 0.1 MMBtu = 105.505585262 MJ             |
//! | energy    | `kth`     | `KTHERM(S)`, `KILOTHERM(S)`     | 1000 therm                               |
//! | mass      | `g`       | `GRAM(S)`                       | 0.001 kg                                 |
//! | mass      | `kg`      | `KGS`, `KILOGRAM(S)`            | SI base unit                             |
//! | mass      | `100kg`   | `100KGS`                        | 100 kg                                   |
//! | mass      | `MT`      | `T`, `TONNE(S)`, `METRIC_TON(S)`| 1000 kg (metric tonne)                   |
//! | mass      | `lb`      | `LBS`, `POUNDS`                 | 0.45359237 kg (international pound)      |
//! | mass      | `ST`      | `SHORT_TON(S)`, `SHORTTON`      | 2000 lb = 907.18474 kg (US short ton)    |
//! | mass      | `LT`      | `LONG_TON(S)`, `LONGTON`        | 2240 lb = 1016.0469088 kg (long ton)     |
//! | mass      | `ozt`     | `TOZ`, `TROY_OZ`, `TROYOZ`      | 31.1034768 g (troy ounce)                |
//! | volume    | `L`       | `LTR`, `LITRE(S)`, `LITER(S)`   | 0.001 m3                                 |
//! | volume    | `kL`      | `KILOLITRE`, `KILOLITER`        | 1 m3                                     |
//! | volume    | `m3`      | `CBM`, `M³`, `CUBIC_METRE/METER`| SI                                       |
//! | volume    | `gal`     | `GALS`, `GALLON(S)`, `USG`      | US gallon, 231 in3 = 3.785411784 L       |
//! | volume    | `BBL`     | `BBLS`, `BARREL(S)`             | 42 gal = 158.987294928 L (oil barrel)    |
//! | volume    | `BU`      | `BUSHEL(S)`                     | US bushel, 2150.42 in3 = 35.23907016688 L|
//!
//! Btu is the International Table Btu (1055.05585262 J). `ST` is the short ton, not the stone;
//! ambiguous codes (`ton`, `MBtu`, `ML`, imperial gallons, `cwt`) are deliberately absent.
//!
//! Rules:
//! - units of one dimension always convert;
//! - mass and volume convert into each other through a density in kg/m3 (the `__density`
//!   parameter or the product's `density`); without one: `cannot convert MT to BBL: no density
//!   (give __density in kg/m3)`;
//! - energy converts only to energy (no heating value is supported): `cannot convert MWh to MT:
//!   no heating value (...)`;
//! - an unknown code: `unknown unit 'xyz' (known units: ...)`.
//!
//! All these are [`InvalidParameter`](crate::error::ErrorCode::InvalidParameter) errors; the
//! caller may re-code them.
//!
//! # Currencies ([`fx`])
//!
//! Rates come from the public FX series `#FX.<BASE><QUOTE>`, property `SPOT` (1 BASE = rate
//! QUOTE), read by the caller through a [`RateSource`] at an instant (the observation at it or the
//! last before it). [`rate`] tries, in order: the same currency (1); the direct pair; the inverse
//! pair (1/rate); a cross through EUR; a cross through USD (each leg direct or inverse). When all
//! fail: `cannot convert GBP to JPY on 2024-03-01: no FX rate (looked for #FX.GBPJPY,
//! #FX.JPYGBP, and crosses through EUR and USD)`.
//!
//! Currency codes are three letters (upper-cased). As a market-convention extra, minor units
//! worth 1/100 of their currency are accepted: `GBp`/`GBX` (pence), `USc`/`USX` (US cents),
//! `EUc` (euro cents); they use their currency's series and are scaled by 100 (`GBp` to `GBP`
//! is 0.01 with no lookup).
//!
//! (The unit test `the_module_example_converts_therms_and_crosses_currencies` shows each.)

pub mod fx;
pub mod units;

#[cfg(test)]
mod tests;

pub use fx::{parse_currency, rate, RateSource};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use fx::Currency;
pub use units::{parse_unit, price_factor, quantity_factor, split_price_unit};
// Named by the tests, benches and fuzz targets only.
#[cfg(feature = "internals")]
pub use units::{Dimension, Unit};
