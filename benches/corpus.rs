//! A seeded corpus of market-data objects, the same on every run and machine.
// Each bench includes this module and uses its own part of it.
#![allow(dead_code)]

use serde_json::{json, Value};

/// A small, fast, seeded generator (xorshift64*), so the corpus needs no dependency.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A float in `0..1`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const COUNTRIES: [&str; 8] = ["GB", "NL", "DE", "FR", "BE", "IT", "ES", "NO"];
const CLASSES: [&str; 4] = ["gas", "power", "oil", "coal"];
const TYPES: [&str; 4] = ["#GasHub", "#PowerHub", "#Refinery", "#Port"];

/// Object `i` of the corpus: about 20 fields, with names, numbers, dates, nesting and a location.
pub fn object(i: u64, rng: &mut Rng) -> Value {
    let class = CLASSES[rng.below(4) as usize];
    let pick =
        |rng: &mut Rng, options: &[&'static str]| options[rng.below(options.len() as u64) as usize];
    let name = format!(
        "{} hub {i}",
        pick(rng, &["North", "South", "East", "West", "Central"])
    );
    let currency = pick(rng, &["EUR", "GBP", "USD"]);
    let units = pick(rng, &["MWh", "therm", "MMBtu"]);
    json!({
        "_id": format!("OBJ{i:06}"),
        "_type": TYPES[rng.below(4) as usize],
        "name": name,
        "description": format!("A {class} location number {i} in the synthetic corpus"),
        "classification": class,
        "country": COUNTRIES[rng.below(8) as usize],
        "capacity": rng.below(1000),
        "price": (rng.unit() * 10000.0).round() / 100.0,
        "opened": format!("{}-{:02}-{:02}", 1990 + rng.below(35), 1 + rng.below(12), 1 + rng.below(28)),
        "active": rng.below(10) > 1,
        "currency": currency,
        "units": units,
        "operator": format!("Operator {}", rng.below(200)),
        "region": format!("R{}", rng.below(50)),
        "timezone": "Europe/London",
        "calendar": "BUSINESS",
        "source": "synthetic",
        "rating": rng.below(5) + 1,
        "meta": {"tier": rng.below(3) + 1, "tags": ["liquid", "hub"]},
        "geolocation": [rng.unit() * 30.0 - 10.0, 40.0 + rng.unit() * 20.0]
    })
}

/// The first `n` objects of the corpus for a seed.
pub fn objects(n: u64, seed: u64) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    (0..n).map(|i| object(i, &mut rng)).collect()
}
