//! Query parameters as an ordered list of decoded `key=value` pairs (keys may repeat).

use crate::error::{Error, Result};

/// Decoded query parameters, in the order they were given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    /// Parameters from decoded pairs.
    pub fn new(pairs: Vec<(String, String)>) -> Self {
        Params { pairs }
    }

    /// Builds parameters from `(&str, &str)` pairs.
    pub fn from_slice(pairs: &[(&str, &str)]) -> Self {
        Params::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// The last value of a parameter.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a repeated parameter, in order.
    pub fn all(&self, key: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether the parameter is present.
    pub fn has(&self, key: &str) -> bool {
        self.pairs.iter().any(|(k, _)| k == key)
    }

    /// The pairs, in order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// A boolean flag: absent is false; `true`/`1`/empty is true; `false`/`0` is false.
    pub fn flag(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            None => Ok(false),
            Some("" | "true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(other) => Err(Error::invalid_parameter(format!(
                "{key} must be true or false, not \"{other}\""
            ))),
        }
    }
}
