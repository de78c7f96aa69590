//! `_search` and `_searchinfo`: free-text search over `_id`, `name`, `description` and
//! `classification`.
//!
//! ```text
//! search := term (' '+ term)*          every term must match (AND)
//! term   := ['-'] word ('|' word)*     any word may match (OR); '-' negates the term (NOT)
//! word   := '"' chars '"' | chars      a quoted word may hold spaces and '|'
//! ```
//! A word matches when the case-folded searchable text contains it. `_searchinfo=text` finds
//! items whose `_id` or `name` starts with the text (case-folded), for auto-complete. A search
//! has at most [`MAX_SEARCH_WORDS`] words.

use crate::error::{Error, Result};
use crate::query::filter::{fold, Filter, SearchTerm};

/// The most words a `_search` may hold (over all its terms).
pub const MAX_SEARCH_WORDS: usize = 32;

/// Parses a `_search` expression.
pub fn parse(text: &str) -> Result<Filter> {
    let bad = |why: &str| Error::invalid_parameter(format!("invalid _search \"{text}\": {why}"));
    let mut terms = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let negated = chars.peek() == Some(&'-');
        if negated {
            chars.next();
        }
        let mut any_of = Vec::new();
        loop {
            let mut word = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '"' {
                        closed = true;
                        break;
                    }
                    word.push(c);
                }
                if !closed {
                    return Err(bad("unbalanced quote"));
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || c == '|' {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
            }
            if word.is_empty() {
                return Err(bad("empty word (check '-' and '|')"));
            }
            any_of.push(fold(&word));
            if chars.peek() == Some(&'|') {
                chars.next();
                continue;
            }
            break;
        }
        terms.push(SearchTerm { any_of, negated });
    }
    if terms.is_empty() {
        return Err(bad("no search terms"));
    }
    let words: usize = terms.iter().map(|t| t.any_of.len()).sum();
    if words > MAX_SEARCH_WORDS {
        return Err(Error::invalid_parameter(format!(
            "_search has {words} words; a search takes at most {MAX_SEARCH_WORDS}"
        )));
    }
    Ok(Filter::Search(terms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hits(expr: &str, doc: serde_json::Value) -> bool {
        parse(expr).unwrap().matches(doc.as_object().unwrap())
    }

    #[test]
    fn terms_and_or_not() {
        let doc = json!({"_id": "NBP", "name": "UK Gas Hub", "description": "national balancing point", "x": "europe"});
        assert!(hits("gas", doc.clone()));
        assert!(hits("GAS hub", doc.clone()));
        assert!(!hits("gas power", doc.clone()));
        assert!(hits("power|balancing", doc.clone()));
        assert!(!hits("-national", doc.clone()));
        assert!(hits("gas -germany", doc.clone()));
        assert!(
            !hits("europe", doc.clone()),
            "only the search fields are searched"
        );
        assert!(hits("\"gas hub\"", doc.clone()));
        assert!(hits("nbp", doc));
    }

    #[test]
    fn bad_expressions() {
        for bad in ["", "   ", "-", "a|", "|a", "\"open", "a -"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
