//! Query parameters as an ordered list of decoded `key=value` pairs (keys may repeat).

use crate::error::{Error, Result};

/// The parameters starting with `_` that the platform reads: the interface's standard
/// parameters, then the platform's own (`docs/decisions.md`).
pub const STANDARD: [&str; 42] = [
    "_sort",
    "_limit",
    "_skip",
    "_after",
    "_count",
    "_search",
    "_searchinfo",
    "_distinct",
    "_reason",
    "_profile",
    "_project",
    "_delay",
    "_wait",
    "_range",
    "_replace",
    "_replaceData",
    "_filter",
    "_function",
    "_id",
    "_type",
    "_version",
    "_template",
    "_publish",
    "_accept",
    "_onDuplicate",
    "_run",
    "__density",
    "_calendar",
    "_observed",
    "_distribution",
    "_block",
    "_timezone",
    "_asof",
    "_shape",
    "_weights",
    "_tolerance",
    "_continuation",
    "_roll",
    "_settlement",
    "_nearest",
    "_adjust",
    "_merge",
];

/// The system fields of documents and data items, which filter lists like any field.
pub const SYSTEM_FIELDS: [&str; 11] = [
    "_id",
    "_type",
    "_oid",
    "_version",
    "_timestamp",
    "_user",
    "_tag",
    "_objid",
    "_dataid",
    "_objtype",
    "_access",
];

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

    /// Refuses a parameter that starts with `_` and is neither a standard parameter nor a
    /// system field (a typo such as `_limt` would otherwise be ignored), naming it and the
    /// closest known name.
    pub fn check_names(&self) -> Result<()> {
        for (k, _) in &self.pairs {
            if !k.starts_with('_')
                || STANDARD.contains(&k.as_str())
                || SYSTEM_FIELDS.contains(&k.as_str())
            {
                continue;
            }
            let known = STANDARD.iter().chain(SYSTEM_FIELDS.iter());
            let closest = known
                .map(|name| (distance(k, name), *name))
                .min()
                .filter(|(d, _)| *d <= 2)
                .map(|(_, name)| format!(" (did you mean {name}?)"))
                .unwrap_or_default();
            return Err(Error::invalid_parameter(format!(
                "unknown parameter \"{k}\"{closest}: a parameter starting with _ is one of {}, \
                 or a system field to filter on: {}",
                STANDARD.join(" "),
                SYSTEM_FIELDS.join(" ")
            )));
        }
        Ok(())
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

/// The edit distance of two names (insertions, deletions and substitutions).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn unknown_underscore_parameters_are_named_with_the_closest_known_one() {
        let ok = Params::from_slice(&[
            ("_limit", "5"),
            ("_user", "bob"),
            ("country", "NL"),
            ("__density", "0.8"),
        ]);
        assert!(ok.check_names().is_ok());
        let err = Params::from_slice(&[("_limt", "5")])
            .check_names()
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown parameter \"_limt\" (did you mean _limit?)"),
            "{err}"
        );
        let err = Params::from_slice(&[("_nothing_like_it", "1")])
            .check_names()
            .unwrap_err();
        assert!(!err.to_string().contains("did you mean"), "{err}");
        assert_eq!(distance("_limt", "_limit"), 1);
        assert_eq!(distance("", "ab"), 2);
    }
}
