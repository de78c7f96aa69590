//! Tests of the response formats: negotiation, CSV and XML against golden files (and a
//! well-formedness checker), mustache hand cases and the official mustache spec (read from the
//! mustache crate's package).

use super::{csv, negotiate, template, xml, Format};
use crate::error::{Error, ErrorCode};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The golden items: a nested object, arrays, null, a string with comma, quote and newline,
/// numbers, booleans, keys that are not XML names, non-ASCII, control characters.
fn golden_items() -> Value {
    json!([
        {
            "_id": "GB",
            "name": "Britain, \"Great\"\nKingdom",
            "n": 42,
            "ratio": 1.5,
            "active": true,
            "nested": {"a": 1, "b": [1, "two"], "c": {"deep": null}},
            "tags": ["x", "y"],
            "gone": null,
            "#type": "Country",
            "a b": "space key",
            "city": "Zürich – 東京",
            "größe": 3,
            "empty": "",
            "list0": [],
            "obj0": {}
        },
        {
            "_id": "FR",
            "n": -7,
            "active": false,
            "extra": "only here",
            "ctrl": "bell\u{7}tab\tcr\r",
            "<tag>": "a & b < c > d 'q'",
            "big": 18446744073709551615u64,
            "exp": 1e300
        },
        {
            "name": "no id",
            "1st": 1,
            "a:b": "colon",
            "": "empty key",
            "matrix": [[1, 2], [], [null]]
        }
    ])
}

fn user_error(result: Result<impl std::fmt::Debug, Error>) -> (ErrorCode, String) {
    let e = result.expect_err("expected an error");
    (e.code(), e.public_message())
}

// ---------------------------------------------------------------------------------------------
// Negotiation

const ALL: [Format; 4] = [Format::Json, Format::Csv, Format::Xml, Format::Html];
const DATA: [Format; 3] = [Format::Json, Format::Csv, Format::Xml];

fn pick(accept: &str, available: &[Format]) -> Format {
    negotiate(Some(accept), available).unwrap_or_else(|e| panic!("{accept}: {e}"))
}

#[test]
fn negotiate_defaults_to_json_then_the_first_offer() {
    assert_eq!(negotiate(None, &DATA).unwrap(), Format::Json);
    assert_eq!(negotiate(Some(""), &DATA).unwrap(), Format::Json);
    assert_eq!(negotiate(Some("  "), &DATA).unwrap(), Format::Json);
    assert_eq!(
        negotiate(None, &[Format::Csv, Format::Json]).unwrap(),
        Format::Json
    );
    assert_eq!(
        negotiate(None, &[Format::Xml, Format::Csv]).unwrap(),
        Format::Xml
    );
}

#[test]
fn negotiate_exact_types() {
    assert_eq!(pick("text/csv", &DATA), Format::Csv);
    assert_eq!(pick("application/xml", &DATA), Format::Xml);
    assert_eq!(pick("text/xml", &DATA), Format::Xml);
    assert_eq!(pick("application/json", &DATA), Format::Json);
    assert_eq!(pick("text/html", &ALL), Format::Html);
    assert_eq!(pick("TEXT/CSV", &DATA), Format::Csv);
    assert_eq!(pick(" text/csv ; charset=utf-8 ", &DATA), Format::Csv);
    assert_eq!(pick("image/png, text/csv", &DATA), Format::Csv);
}

#[test]
fn negotiate_weights() {
    assert_eq!(
        pick("application/xml;q=0.5, text/csv;q=0.9", &DATA),
        Format::Csv
    );
    assert_eq!(
        pick("application/xml;q=0.9, text/csv;q=0.5", &DATA),
        Format::Xml
    );
    assert_eq!(
        pick(
            "text/csv;charset=utf-8;q=0.5, application/json;q=0.4",
            &DATA
        ),
        Format::Csv
    );
    assert_eq!(
        pick("text/csv; Q=1, application/json;q=0.999", &DATA),
        Format::Csv
    );
    // q=0 refuses a type that a wildcard would allow.
    assert_eq!(
        pick("text/csv;q=0, */*", &[Format::Csv, Format::Xml]),
        Format::Xml
    );
    // Equal weights: the order of the offer.
    assert_eq!(
        pick("text/csv, application/xml", &[Format::Xml, Format::Csv]),
        Format::Xml
    );
}

#[test]
fn negotiate_wildcards() {
    assert_eq!(pick("*/*", &DATA), Format::Json);
    assert_eq!(pick("*/*", &[Format::Xml, Format::Csv]), Format::Xml);
    assert_eq!(pick("text/*", &ALL), Format::Csv);
    assert_eq!(
        pick("application/*", &[Format::Csv, Format::Xml, Format::Json]),
        Format::Xml
    );
    assert_eq!(
        pick("application/*;q=0.2, text/csv;q=0.1", &DATA),
        Format::Json
    );
    // The most specific range decides a format's weight.
    let ranges = "text/*;q=0.1, text/csv;q=0.9, */*;q=0.5";
    assert_eq!(pick(ranges, &[Format::Html, Format::Csv]), Format::Csv);
    assert_eq!(pick(ranges, &[Format::Html, Format::Json]), Format::Json);
    // What a browser sends.
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    assert_eq!(pick(browser, &DATA), Format::Xml);
    assert_eq!(pick(browser, &ALL), Format::Html);
}

#[test]
fn negotiate_refuses_with_what_is_available() {
    let (code, message) = user_error(negotiate(Some("image/png"), &DATA));
    assert_eq!(code, ErrorCode::NotAcceptable);
    assert!(message.contains("image/png"), "{message}");
    assert!(
        message.contains("available: application/json, text/csv, application/xml"),
        "{message}"
    );
    assert!(!message.contains("text/html"), "{message}");

    let (code, message) = user_error(negotiate(Some("text/html"), &[Format::Csv]));
    assert_eq!(code, ErrorCode::NotAcceptable);
    assert!(message.ends_with("available: text/csv"), "{message}");

    for refused in [
        "text/csv;q=0",
        "garbage",
        "*/csv",
        "text/csv;q=abc",
        "text/csv;q=2",
    ] {
        let (code, _) = user_error(negotiate(Some(refused), &[Format::Csv]));
        assert_eq!(code, ErrorCode::NotAcceptable, "{refused}");
    }
    let long = "x/y,".repeat(200);
    let (_, message) = user_error(negotiate(Some(&long), &DATA));
    assert!(message.len() < 400, "{message}");
}

#[test]
fn negotiate_needs_an_offer() {
    let (code, _) = user_error(negotiate(None, &[]));
    assert_eq!(code, ErrorCode::Internal);
}

#[test]
fn content_types() {
    assert_eq!(Format::Json.content_type(), "application/json");
    assert_eq!(Format::Csv.content_type(), "text/csv; charset=utf-8");
    assert_eq!(Format::Xml.content_type(), "application/xml");
    assert_eq!(Format::Html.content_type(), "text/html; charset=utf-8");
}

// ---------------------------------------------------------------------------------------------
// CSV

#[test]
fn csv_golden_items() {
    let items = golden_items();
    let out = csv::objects_to_csv(items.as_array().unwrap());
    assert_eq!(out, include_str!("golden/items.csv"));
}

#[test]
fn csv_quoting_and_records() {
    let rows = vec![
        vec!["2024-01-01".to_string(), "1.5".to_string(), String::new()],
        vec!["a,b".into(), "say \"hi\"".into(), "two\nlines\r".into()],
    ];
    assert_eq!(
        csv::rows_to_csv(&["time", "value", "quality"], &rows),
        "time,value,quality\n2024-01-01,1.5,\n\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\r\"\n"
    );
    // A record of one empty field is not a blank line.
    assert_eq!(
        csv::rows_to_csv(&["tenor"], &[vec![String::new()]]),
        "tenor\n\"\"\n"
    );
    assert_eq!(csv::objects_to_csv(&[]), "_id\n");
    assert_eq!(
        csv::objects_to_csv(&[json!("scalar"), json!({"_id": "A"})]),
        "_id\n\"\"\nA\n"
    );
}

// ---------------------------------------------------------------------------------------------
// XML

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

// ---------------------------------------------------------------------------------------------
// Mustache: hand cases

fn render(t: &str, data: Value) -> String {
    template::render(t, &data, &HashMap::new()).unwrap_or_else(|e| panic!("{t:?}: {e}"))
}

fn render_with(t: &str, data: Value, partials: &[(&str, &str)]) -> String {
    let partials = partials
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    template::render(t, &data, &partials).unwrap_or_else(|e| panic!("{t:?}: {e}"))
}

fn render_error(t: &str, data: Value, partials: &[(&str, &str)]) -> String {
    let partials = partials
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (code, message) = user_error(template::render(t, &data, &partials));
    assert_eq!(code, ErrorCode::InvalidParameter, "{message}");
    message
}

#[test]
fn mustache_interpolation() {
    let data = json!({"x": "<b>\"Tom\" & 'Jerry'</b>", "a": {"b": {"c": "deep"}}});
    assert_eq!(
        render("{{x}}", data.clone()),
        "&lt;b&gt;&quot;Tom&quot; &amp; 'Jerry'&lt;/b&gt;"
    );
    assert_eq!(render("{{{x}}}", data.clone()), "<b>\"Tom\" & 'Jerry'</b>");
    assert_eq!(render("{{&x}}", data.clone()), "<b>\"Tom\" & 'Jerry'</b>");
    assert_eq!(
        render("{{ x }}|{{{ x }}}|{{& x }}", json!({"x": "&"})),
        "&amp;|&|&"
    );
    assert_eq!(
        render("{{a.b.c}}|{{a.b.missing}}|{{nope.c}}|{{missing}}", data),
        "deep|||"
    );
    assert_eq!(
        render(
            "{{n}} {{neg}} {{f}} {{whole}} {{t}} {{no}} [{{nul}}] {{big}}",
            json!({"n": 42, "neg": -3, "f": 1.5, "whole": 2.0, "t": true, "no": false,
                   "nul": null, "big": 18446744073709551615u64})
        ),
        "42 -3 1.5 2 true false [] 18446744073709551615"
    );
    assert_eq!(render("{{.}}", json!("<top>")), "&lt;top&gt;");
}

#[test]
fn mustache_lists_and_objects_interpolate_escaped() {
    let data = json!({"tags": ["<script>", "a&b"], "obj": {"k": "<i>"}, "empty": []});
    for t in [
        "{{tags}}",
        "{{{tags}}}",
        "{{&tags}}",
        "{{obj}}",
        "{{{obj}}}",
        "{{empty}}",
    ] {
        let out = render(t, data.clone());
        assert!(!out.contains('<') && !out.contains('>'), "{t} -> {out}");
    }
    assert!(render("{{tags}}", data.clone()).contains("&lt;script&gt;"));
}

#[test]
fn mustache_non_ascii_in_tags() {
    let data = json!({"größe": "XL", "名前": {"値": "東京"}, "%C3%A9": "literal"});
    assert_eq!(
        render(
            "{{! Übersicht – Größen }}{{größe}}/{{名前.値}}/{{#名前}}{{値}}{{/名前}}",
            data
        ),
        "XL/東京/東京"
    );
    assert_eq!(
        render("Zürich {{x}} – ok", json!({"x": "é"})),
        "Zürich é – ok"
    );
    let message = render_error("{{#größe}} ünclosed", json!({}), &[]);
    assert_eq!(
        message,
        "the template does not compile: unclosed group at line 1, column 1"
    );
    assert!(render_error("a\n{{ x ö", json!({}), &[]).contains("unclosed tag at line 2, column 1"));
}

#[test]
fn mustache_sections() {
    let data = json!({
        "title": "T",
        "items": [{"name": "a"}, {"name": "b<"}],
        "person": {"name": "Ann", "age": 30},
        "nums": [1, 2, 3],
        "t": true, "f": false, "nul": null, "zero": 0, "empty": "", "none": [], "s": "yes"
    });
    assert_eq!(
        render("{{#items}}<li>{{name}}</li>{{/items}}", data.clone()),
        "<li>a</li><li>b&lt;</li>"
    );
    assert_eq!(
        render("{{#person}}{{name}} ({{age}}){{/person}}", data.clone()),
        "Ann (30)"
    );
    assert_eq!(render("{{#nums}}{{.}},{{/nums}}", data.clone()), "1,2,3,");
    assert_eq!(
        render("{{#items}}{{title}}{{name}} {{/items}}", data.clone()),
        "Ta Tb&lt; "
    );
    assert_eq!(
        render(
            concat!(
                "{{#t}}T{{/t}}{{#f}}F{{/f}}{{#nul}}N{{/nul}}{{#zero}}Z{{/zero}}",
                "{{#empty}}E{{/empty}}{{#none}}L{{/none}}{{#missing}}M{{/missing}}{{#s}}{{.}}{{/s}}"
            ),
            data.clone()
        ),
        "Tyes"
    );
    assert_eq!(
        render(
            "<ul>\n  {{#items}}\n  <li>{{name}}</li>\n  {{/items}}\n</ul>\n",
            data
        ),
        "<ul>\n  <li>a</li>\n  <li>b&lt;</li>\n</ul>\n"
    );
}

#[test]
fn mustache_inverted_sections() {
    let t = "{{^v}}none{{/v}}";
    assert_eq!(render(t, json!({"v": []})), "none");
    assert_eq!(render(t, json!({"v": [1]})), "");
    assert_eq!(render(t, json!({})), "none");
    assert_eq!(render(t, json!({"v": false})), "none");
    assert_eq!(render(t, json!({"v": true})), "");
    assert_eq!(render(t, json!({"v": null})), "none");
    assert_eq!(render(t, json!({"v": {"k": 1}})), "");
    assert_eq!(render(t, json!({"v": ""})), "none");
    assert_eq!(
        render(
            "{{#items}}{{name}}{{/items}}{{^items}}no items{{/items}}",
            json!({"items": []})
        ),
        "no items"
    );
}

#[test]
fn mustache_partials() {
    let data = json!({"name": "Ann", "items": [{"x": 1}, {"x": 2}]});
    assert_eq!(
        render_with("Hi {{>who}}!", data.clone(), &[("who", "<b>{{name}}</b>")]),
        "Hi <b>Ann</b>!"
    );
    // Nested partials, each rendered in the current context.
    assert_eq!(
        render_with(
            "{{#items}}{{>row}}{{/items}}",
            data.clone(),
            &[("row", "[{{>cell}}]"), ("cell", "{{x}}/{{name}}")]
        ),
        "[1/Ann][2/Ann]"
    );
    // A standalone partial is indented line by line.
    assert_eq!(
        render_with(
            "<ul>\n  {{>rows}}\n</ul>\n",
            data.clone(),
            &[(
                "rows",
                "<li>{{name}}</li>\n{{#items}}<li>{{x}}</li>{{/items}}\n<li>end</li>\n"
            )]
        ),
        "<ul>\n  <li>Ann</li>\n  <li>1</li><li>2</li>\n  <li>end</li>\n</ul>\n"
    );
    // Missing partials render as nothing.
    assert_eq!(render_with("a{{>nope}}b", data.clone(), &[]), "ab");
    // Partial names as written, non-ASCII and public ids included.
    assert_eq!(
        render_with(
            "{{> übersicht }}{{>#common}}",
            data.clone(),
            &[("übersicht", "Ü"), ("#common", "C")]
        ),
        "ÜC"
    );
    // Recursion that the data ends.
    let tree = json!({"n": "root", "kids": [{"n": "a", "kids": [{"n": "b", "kids": []}]}]});
    assert_eq!(
        render_with(
            "{{>node}}",
            tree,
            &[("node", "{{n}}({{#kids}}{{>node}}{{/kids}})")]
        ),
        "root(a(b()))"
    );
    // A partial's delimiters do not leak into its caller, nor the caller's into it.
    assert_eq!(
        render_with(
            "{{=<% %>=}}<%>p%><%x%>",
            json!({"x": 1}),
            &[("p", "{{x}}<%x%>")]
        ),
        "1<%x%>1"
    );
}

/// Known deviation of mustache2 1.0.7 (whitespace only): inside a standalone indented partial,
/// a line that starts a new iteration of a section is not indented. The spec gives
/// `"<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>\n"`; when this fails after an upgrade, the engine
/// is fixed: assert the spec's text instead.
#[test]
fn mustache_known_deviation_indentation_in_loops() {
    assert_eq!(
        render_with(
            "<ul>\n  {{>rows}}\n</ul>\n",
            json!({"items": [{"x": 1}, {"x": 2}]}),
            &[("rows", "{{#items}}\n<li>{{x}}</li>\n{{/items}}\n")]
        ),
        "<ul>\n  <li>1</li>\n<li>2</li>\n</ul>\n"
    );
}

#[test]
fn mustache_partial_limits_and_errors() {
    let message = render_error("{{>loop}}", json!({}), &[("loop", "x{{>loop}}")]);
    assert!(
        message.contains("expands partials more than 100000 times"),
        "{message}"
    );
    assert!(message.contains("'loop'"), "{message}");

    let message = render_error(
        "ok {{>bad}}",
        json!({}),
        &[("bad", "line one\n  {{#open}}")],
    );
    assert_eq!(
        message,
        "partial 'bad' does not compile: unclosed group at line 2, column 3"
    );
    // A partial that is never reached is never compiled.
    assert_eq!(
        render_with("{{#no}}{{>bad}}{{/no}}", json!({}), &[("bad", "{{#")]),
        ""
    );

    // Many expansions that the data bounds are fine (the engine runs on a large stack).
    let items: Vec<Value> = (0..30_000).map(|i| json!({"i": i})).collect();
    let out = render_with(
        "{{#items}}{{>row}}{{/items}}",
        json!({"items": items}),
        &[("row", "{{i}},")],
    );
    assert!(out.starts_with("0,1,2,") && out.ends_with(",29999,"));

    let message = render_error("{{>p}}", json!({}), &[("p", "{{=« »=}}")]);
    assert!(
        message.starts_with("partial 'p' does not compile: delimiters must be ASCII"),
        "{message}"
    );
}

#[test]
fn mustache_compile_errors() {
    for (t, expected) in [
        ("{{#a}}", "unclosed group at line 1, column 1"),
        ("{{/a}}", "disconnected closing tag at line 1, column 1"),
        (
            "{{#a}}\n{{/b}}",
            "expected '{{/a}}', but found {{/b}} at line 2, column 1",
        ),
        ("x {{y", "unclosed tag at line 1, column 3"),
        ("{{{x}}", "expected a triple mustache at line 1, column 5"),
        (
            "{{=}}",
            "a set-delimiter tag must read '=<open> <close>=' at line 1, column 3",
        ),
        (
            "{{=<%%>=}}",
            "a set-delimiter tag must read '=<open> <close>=' at line 1, column 3",
        ),
        ("{{=« »=}}", "delimiters must be ASCII at line 1, column 3"),
        (
            "{{<parent}}{{/parent}}",
            "inheritance is disabled at line 1, column 1",
        ),
    ] {
        assert_eq!(
            render_error(t, json!({}), &[]),
            format!("the template does not compile: {expected}"),
            "{t:?}"
        );
        let (code, message) = user_error(template::compile(t));
        assert_eq!(
            (code, message.as_str()),
            (ErrorCode::InvalidParameter, expected),
            "{t:?}"
        );
    }
    template::compile("{{#a}}{{b}}{{/a}}{{^c}}{{>p}}{{/c}}{{=<% %>=}}<%x%>").unwrap();
    // Nesting is bounded (the engine's parser recurses).
    let deep = |n: usize| format!("{}{}", "{{#a}}".repeat(n), "{{/a}}".repeat(n));
    template::compile(&deep(100)).unwrap();
    let (_, message) = user_error(template::compile(&deep(101)));
    assert_eq!(
        message,
        "sections nest more than 100 deep at line 1, column 603"
    );
    // Encoding non-ASCII text must not move tag boundaries.
    let message = render_error("{{=%3 3%=}}%3ö3%", json!({}), &[]);
    assert!(message.contains("clashes with the delimiters"), "{message}");
}

#[test]
fn mustache_output_limit() {
    let big = "x".repeat(1 << 20);
    let items: Vec<Value> = (0..65).map(|_| json!(1)).collect();
    let message = render_error(
        "{{#items}}{{{big}}}{{/items}}",
        json!({"items": items, "big": big}),
        &[],
    );
    assert_eq!(message, "the template's output exceeds 64 MiB");
}

#[test]
fn mustache_crlf_templates() {
    assert_eq!(
        render("a\r\n{{#t}}\r\nb\r\n{{/t}}\r\nc", json!({"t": true})),
        "a\nb\nc"
    );
    assert_eq!(
        render("{{x}}", json!({"x": "keep\r\nthis"})),
        "keep\r\nthis"
    );
}

#[test]
fn mustache_partial_names() {
    assert_eq!(
        template::partial_names(
            "{{>a}} {{> b }} {{#s}}{{>a}}{{/s}}{{^i}}{{>c}}{{/i}}{{! {{>not}} }}"
        ),
        ["a", "b", "c"]
    );
    assert_eq!(
        template::partial_names("{{=<% %>=}}<%> x %>{{>y}}<%={{ }}=%>{{>z}}"),
        ["x", "z"]
    );
    assert_eq!(
        template::partial_names("{{{>raw}}}{{>}}{{x}}{{> übersicht}}{{>#pub}}"),
        ["übersicht", "#pub"]
    );
    assert!(template::partial_names("no tags {{ unclosed").is_empty());
}

// ---------------------------------------------------------------------------------------------
// Mustache: the official spec

/// The spec cases this renderer deliberately gives differently: CRLF line endings are read as
/// LF (see the module documentation), so these match once the expected text's CRLFs are LFs.
const CRLF_CASES: &[(&str, &str)] = &[
    ("comments", "Standalone Line Endings"),
    ("delimiters", "Standalone Line Endings"),
    ("inverted", "Standalone Line Endings"),
    ("partials", "Standalone Line Endings"),
    ("sections", "Standalone Line Endings"),
];

/// The spec's test files as shipped inside the mustache crate's package (in cargo's registry,
/// where every build of this crate has unpacked it); the project keeps no copy of them.
fn spec_file(module: &str) -> String {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let registry = cargo_home.join("registry/src");
    for index in std::fs::read_dir(&registry).expect("cargo registry sources") {
        let dir = index
            .unwrap()
            .path()
            .join("mustache2-1.0.7/src/specs/upstream/specs");
        if let Ok(text) = std::fs::read_to_string(dir.join(format!("{module}.json"))) {
            return text;
        }
    }
    panic!(
        "the mustache spec files of mustache2 1.0.7 are not under {}",
        registry.display()
    );
}

fn run_spec(module: &str) -> usize {
    let json = spec_file(module);
    let spec: Value = serde_json::from_str(&json).unwrap();
    let mut failures = Vec::new();
    let cases = spec["tests"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let partials: HashMap<String, String> = case
            .get("partials")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let mut expected = case["expected"].as_str().unwrap().to_string();
        if CRLF_CASES.contains(&(module, name)) {
            expected = expected.replace("\r\n", "\n");
        }
        let got = template::render(case["template"].as_str().unwrap(), &case["data"], &partials);
        match got {
            Ok(got) if got == expected => {}
            other => failures.push(format!(
                "{module} / {name}: {other:?}, expected {expected:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cases.len()
}

#[test]
fn spec_interpolation() {
    assert_eq!(run_spec("interpolation"), 42);
}

#[test]
fn spec_sections() {
    assert_eq!(run_spec("sections"), 34);
}

#[test]
fn spec_inverted() {
    assert_eq!(run_spec("inverted"), 22);
}

#[test]
fn spec_partials() {
    assert_eq!(run_spec("partials"), 12);
}

#[test]
fn spec_comments() {
    assert_eq!(run_spec("comments"), 12);
}

#[test]
fn spec_delimiters() {
    assert_eq!(run_spec("delimiters"), 14);
}
