//! The SQL expressions that read the columns the document tables keep in a compact form
//! (`layout`): a time as its text, a current row's folded id; and the folding a row keeps.

/// The text of a stored time (a column `$col` of integer milliseconds or of text), as
/// `time_text` writes it: built-in SQL, for filters, sorts and indexes.
macro_rules! time_text_of {
    ($col:literal) => {
        concat!(
            "(CASE WHEN typeof(",
            $col,
            ") = 'integer' THEN strftime('%Y-%m-%dT%H:%M:%S', ",
            $col,
            " / 1000, 'unixepoch') || '.' || substr(",
            $col,
            " % 1000 + 1000, 2) || 'Z' ELSE ",
            $col,
            " END)"
        )
    };
}
pub(crate) use time_text_of;

/// [`time_text_of`] of a current row's `timestamp` (`h`, and unqualified).
pub(crate) const TIME_TEXT: &str = time_text_of!("h.timestamp");
pub(crate) const TIME_TEXT_BARE: &str = time_text_of!("timestamp");

/// The folded id of a current row (`h`, and unqualified).
pub(crate) const ID_FOLD: &str = "coalesce(h.id_fold, lower(h.id))";
pub(crate) const ID_FOLD_BARE: &str = "coalesce(id_fold, lower(id))";

/// The folded id a current row keeps: the folding where SQLite's `lower()` gives another.
pub(crate) fn fold_kept(text: &str) -> Option<String> {
    let folded = crate::query::filter::fold(text);
    (folded != text.to_ascii_lowercase()).then_some(folded)
}
