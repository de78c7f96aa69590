//! Mustache hand cases: interpolation, sections, partials, limits, errors and line endings.
use super::*;

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
