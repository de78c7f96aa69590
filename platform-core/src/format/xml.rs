//! XML rendering (`Accept: application/xml`): a well-formed XML 1.0 document mirroring the JSON.
//!
//! ## Mapping
//!
//! | JSON | XML |
//! | --- | --- |
//! | the value given with root `r` | `<?xml version="1.0" encoding="UTF-8"?>` then `<r>...</r>` |
//! | object member `"k": v` | child element `<k>v</k>` |
//! | member whose key is not an XML name (`#type`, `a b`, `1st`, `a:b`, `""`) | `<field name="the key">v</field>` |
//! | array `[a, b]` | repeated children `<item>a</item><item>b</item>` |
//! | string | its text, escaped |
//! | number, boolean | its JSON text (`1.5`, `true`) |
//! | `null` | an empty element with `null="true"`: `<k null="true"/>` |
//! | empty string | `<k></k>` |
//! | empty object or array | `<k/>` |
//!
//! A list response is rendered from a JSON array with root `items`
//! (`<items><item>...</item>...</items>`), one object with root `item`.
//!
//! Details:
//! - An XML name here is an XML 1.0 (5th edition) `Name` without `:` (colons would make the
//!   document namespace-ill-formed); non-ASCII letters are allowed (`<größe>`).
//! - Text and attribute values escape `& < > " '` as `&amp; &lt; &gt; &quot; &apos;`, and CR as
//!   `&#13;` so that it survives end-of-line normalisation. In attribute values tab and LF are
//!   written `&#9;` and `&#10;` too.
//! - Characters XML 1.0 does not allow (control characters other than tab, LF and CR, U+FFFE and
//!   U+FFFF) are replaced by U+FFFD, in text and in keys.
//! - The document is indented by two spaces per level; an element holding text is written on
//!   one line, so no whitespace is added inside values. It ends with `\n`.
//!
//! ## Why the document is written here, not with quick-xml
//!
//! The part of this mapping a writer crate could take over is the escaping, and quick-xml's
//! does not follow it: its escape functions replace only the markup characters (`< > & ' "`, or
//! a subset of them). CR would be written as it is and read back as LF, tab and LF in an
//! attribute value would be read back as spaces, and characters XML 1.0 forbids would pass into
//! a document no parser accepts; it takes element names as given, too, without checking that
//! they are XML names. So text, attribute values and names would still be escaped and checked
//! here and handed to it as already escaped (`BytesText::from_escaped`, raw attribute values).
//! What would be left to it is the angle brackets, the closing tags and the indentation (its
//! indenting writer can produce this layout), which `write_element` and its two helpers write
//! in a few lines; that is not worth a dependency and a conversion of its byte output back into
//! a `String`.

use serde_json::Value;

/// Renders `value` as an XML document whose root element is named `root`.
///
/// `root` should be an XML name (`items`, `item`); one that is not is written like a key that is
/// not a name (`<field name="...">`).
pub fn to_xml(value: &Value, root: &str) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    write_element(&mut out, root, value, 0);
    out
}

/// Appends `<name ...>value</name>` at `depth`, followed by `\n`.
fn write_element(out: &mut String, name: &str, value: &Value, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    let tag = if is_xml_name(name) { name } else { "field" };
    out.push('<');
    out.push_str(tag);
    if tag != name {
        out.push_str(" name=\"");
        escape_into(out, name, true);
        out.push('"');
    }
    match value {
        Value::Null => out.push_str(" null=\"true\"/>"),
        Value::Bool(_) | Value::Number(_) => {
            out.push('>');
            out.push_str(&value.to_string());
            close(out, tag);
        }
        Value::String(s) => {
            out.push('>');
            escape_into(out, s, false);
            close(out, tag);
        }
        Value::Array(items) if items.is_empty() => out.push_str("/>"),
        Value::Object(map) if map.is_empty() => out.push_str("/>"),
        Value::Array(items) => {
            out.push_str(">\n");
            for item in items {
                write_element(out, "item", item, depth + 1);
            }
            indent_close(out, tag, depth);
        }
        Value::Object(map) => {
            out.push_str(">\n");
            for (key, item) in map {
                write_element(out, key, item, depth + 1);
            }
            indent_close(out, tag, depth);
        }
    }
    out.push('\n');
}

fn close(out: &mut String, tag: &str) {
    out.push_str("</");
    out.push_str(tag);
    out.push('>');
}

fn indent_close(out: &mut String, tag: &str, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    close(out, tag);
}

/// Appends `text` escaped for element content (`attribute == false`) or a double-quoted
/// attribute value, replacing characters XML 1.0 does not allow by U+FFFD.
fn escape_into(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' | '\n' => out.push(c),
            c if is_xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
}

/// `Char` of XML 1.0 (Rust chars are never surrogates).
fn is_xml_char(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `NameStartChar` of XML 1.0 (5th edition), without `:`.
fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

/// `NameChar` of XML 1.0 (5th edition), without `:`.
fn is_name_char(c: char) -> bool {
    is_name_start(c)
        || matches!(c,
            '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

/// Whether `name` can be an element name (an XML `Name` without `:`).
pub(crate) fn is_xml_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(is_name_char)
}
