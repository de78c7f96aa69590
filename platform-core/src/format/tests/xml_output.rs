//! XML against the golden files, odd roots and scalars, and a well-formedness checker.
use super::*;

#[test]
fn xml_golden_list() {
    let out = xml::to_xml(&golden_items(), "items");
    assert_eq!(out, include_str!("golden/items.xml"));
    check_well_formed(&out).unwrap();
}

#[test]
fn xml_golden_item() {
    let out = xml::to_xml(&golden_items()[0], "item");
    assert_eq!(out, include_str!("golden/item.xml"));
    check_well_formed(&out).unwrap();
}

#[test]
fn xml_scalars_and_odd_roots_are_well_formed() {
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    for (value, root, body) in [
        (json!("a<b"), "item", "<item>a&lt;b</item>\n"),
        (json!(null), "item", "<item null=\"true\"/>\n"),
        (json!([]), "items", "<items/>\n"),
        (json!(2.5), "item", "<item>2.5</item>\n"),
        (json!(true), "x", "<x>true</x>\n"),
        (json!("v"), "1 bad", "<field name=\"1 bad\">v</field>\n"),
    ] {
        let out = xml::to_xml(&value, root);
        assert_eq!(out, format!("{decl}{body}"));
        check_well_formed(&out).unwrap();
    }
    // Keys with every kind of trouble.
    let nasty = json!({
        "\u{0}\u{1b}": "\u{0}x\u{1f}\u{FFFE}",
        "tab\tkey\nline": "\"'&<>",
        "xml-ok.name_1": "ok",
        "-dash": 1,
        "·mid": 2,
        "a\u{300}": 3,
    });
    let out = xml::to_xml(&nasty, "item");
    check_well_formed(&out).unwrap();
    assert!(out.contains("<field name=\"\u{FFFD}\u{FFFD}\">\u{FFFD}x\u{FFFD}\u{FFFD}</field>"));
    assert!(out.contains("<field name=\"tab&#9;key&#10;line\">&quot;&apos;&amp;&lt;&gt;</field>"));
    assert!(out.contains("<xml-ok.name_1>ok</xml-ok.name_1>"));
    assert!(out.contains("<field name=\"-dash\">1</field>"));
    assert!(out.contains("<a\u{300}>3</a\u{300}>"));
}

#[test]
fn xml_checker_rejects_broken_documents() {
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    for bad in [
        "<a><b></a></b>",
        "<a>",
        "<a/><b/>",
        "<a>x & y</a>",
        "<a>\u{1}</a>",
        "<a x=\"1\" x=\"2\"/>",
        "<1a/>",
        "<a x=\"<\"/>",
        "text<a/>",
    ] {
        assert!(check_well_formed(&format!("{decl}{bad}")).is_err(), "{bad}");
    }
    check_well_formed(&format!("{decl}<a x=\"&#10;\">&amp;&#x41;<b/>\n</a>\n")).unwrap();
}

/// A small XML 1.0 well-formedness checker for the documents `to_xml` writes: the declaration,
/// one root element, balanced tags, valid names, unique attributes, valid characters and
/// references, no `<` or bare `&` in text or attribute values.
fn check_well_formed(doc: &str) -> Result<(), String> {
    let mut rest = doc
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        .ok_or("no XML declaration")?;
    if let Some(c) = doc.chars().find(|&c| !xml_char(c)) {
        return Err(format!("character {c:?} is not allowed"));
    }
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("</") {
            let end = after.find('>').ok_or("unclosed end tag")?;
            let name = after[..end].trim_end();
            if stack.pop() != Some(name) {
                return Err(format!("</{name}> does not close the open element"));
            }
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix('<') {
            let name_end = after
                .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .ok_or("unclosed start tag")?;
            let name = &after[..name_end];
            check_name(name)?;
            if stack.is_empty() {
                roots += 1;
            }
            let mut tail = &after[name_end..];
            let mut attributes: Vec<&str> = Vec::new();
            loop {
                let trimmed = tail.trim_start();
                if let Some(t) = trimmed.strip_prefix("/>") {
                    tail = t;
                    break;
                }
                if let Some(t) = trimmed.strip_prefix('>') {
                    stack.push(name);
                    tail = t;
                    break;
                }
                if trimmed.len() == tail.len() {
                    return Err(format!("no space before an attribute of <{name}>"));
                }
                let eq = trimmed.find('=').ok_or("attribute without value")?;
                let attribute = &trimmed[..eq];
                check_name(attribute)?;
                if attributes.contains(&attribute) {
                    return Err(format!("attribute {attribute} twice"));
                }
                attributes.push(attribute);
                let value = trimmed[eq + 1..]
                    .strip_prefix('"')
                    .ok_or("attribute value not in double quotes")?;
                let close = value.find('"').ok_or("unclosed attribute value")?;
                check_text(&value[..close])?;
                tail = &value[close + 1..];
            }
            rest = tail;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            if stack.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            check_text(text)?;
            rest = &rest[end..];
        }
    }
    match (stack.last(), roots) {
        (Some(open), _) => Err(format!("<{open}> is not closed")),
        (None, 1) => Ok(()),
        (None, n) => Err(format!("{n} root elements")),
    }
}

fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn check_name(name: &str) -> Result<(), String> {
    if xml::is_xml_name(name) {
        Ok(())
    } else {
        Err(format!("{name:?} is not an XML name"))
    }
}

fn check_text(text: &str) -> Result<(), String> {
    if text.contains('<') {
        return Err(format!("'<' in {text:?}"));
    }
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        let after = &rest[at + 1..];
        let end = after.find(';').ok_or("unterminated reference")?;
        let reference = &after[..end];
        let ok = match reference {
            "amp" | "lt" | "gt" | "quot" | "apos" => true,
            _ => {
                let code = if let Some(hex) = reference.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()
                } else if let Some(dec) = reference.strip_prefix('#') {
                    dec.parse().ok()
                } else {
                    None
                };
                code.and_then(char::from_u32).is_some_and(xml_char)
            }
        };
        if !ok {
            return Err(format!("bad reference &{reference};"));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}
