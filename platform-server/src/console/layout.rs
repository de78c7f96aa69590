//! The frame of every console page (head, skip link, navigation, sign-in, main area) and the
//! small pieces pages share (tables of values, statuses, pagers, charts with their text).

use super::assets;
use crate::chart;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value;

/// The section a page belongs to (marked in the navigation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Objects,
    Validation,
    Automations,
}

fn head(base: &str, title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · platform console" }
            link rel="icon" href="data:,";
            link rel="stylesheet" href={ (base) "/console/assets/" (assets::CSS_NAME) };
            script src={ (base) "/console/assets/" (assets::JS_NAME) } defer {}
        }
    }
}

fn header(base: &str, nav: Nav, signed_in: bool) -> Markup {
    let item = |section: Nav, href: String, label: &str| {
        html! {
            li {
                a href=(href) aria-current=[(section == nav).then_some("page")] { (label) }
            }
        }
    };
    html! {
        a.skip href="#main" { "Skip to content" }
        header.top {
            a.brand href={ (base) "/console" } { "platform" span.sub { " console" } }
            nav aria-label="Sections" {
                ul {
                    (item(Nav::Objects, format!("{base}/console"), "Objects"))
                    (item(Nav::Validation, format!("{base}/console/validation"), "Validation"))
                    (item(Nav::Automations, format!("{base}/console/automations"), "Automations"))
                }
            }
            div #session {
                span #whoami {}
                // Signed out: "Sign in" (the form with the script; without it, the browser's
                // prompt). Signed in with a token: "Sign out" (shown by the script).
                a #signin-link href={ (base) "/console/signin" } hidden[signed_in] { "Sign in" }
                button #signout type="button" hidden { "Sign out" }
            }
        }
    }
}

/// The sign-in form: shown by the script (without it, [`basic_help`] explains the other way).
/// The token field has no `name`, so no form submission can ever carry it.
fn signin_form() -> Markup {
    html! {
        section #signin aria-labelledby="signin-title" hidden {
            h2 #signin-title { "Sign in" }
            form #signin-form {
                p {
                    label for="token" { "Token" }
                    input #token type="password" autocomplete="off" required
                        aria-describedby="token-help";
                }
                p #token-help .help {
                    "The token stays in this tab's session storage and is sent as a bearer token; "
                    "closing the tab forgets it."
                }
                p { button type="submit" { "Sign in" } }
                p #signin-error .error role="alert" {}
            }
        }
    }
}

/// A page without credentials: the frame, the sign-in form and an empty main area that the
/// script fills.
pub fn shell(base: &str, nav: Nav, title: &str) -> Markup {
    frame(
        base,
        nav,
        title,
        false,
        html! {
            noscript {
                div.notice {
                    p {
                        "This console signs in with a script. Without JavaScript, "
                        a href={ (base) "/console/signin" } { "sign in with your browser" }
                        " (user name and token) and the pages read as plain HTML."
                    }
                }
            }
            p.loading aria-live="polite" { "Sign in to see " (title.to_lowercase()) "." }
        },
    )
}

/// A page rendered for a caller.
pub fn page(base: &str, nav: Nav, title: &str, main: Markup) -> Markup {
    frame(base, nav, title, true, main)
}

fn frame(base: &str, nav: Nav, title: &str, signed_in: bool, main: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(base, title))
            body data-base=(base) data-signed-in=(signed_in) {
                (header(base, nav, signed_in))
                (signin_form())
                p #console-status .status role="status" aria-live="polite" {}
                main #main tabindex="-1" data-title=(title) {
                    (main)
                }
                footer { p { "platform console · data as of this page's load" } }
            }
        }
    }
}

/// What `/console/signin` shows while the browser asks for credentials.
pub fn basic_help(base: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(base, "Sign in"))
            body {
                main #main {
                    h1 { "Sign in" }
                    p { "Give your user name and your token to the browser's prompt, then open "
                        a href={ (base) "/console" } { "the console" } "." }
                }
            }
        }
    }
}

/// A JSON value as short text for a table cell.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// A status word as a badge: its text always shown (colour is never the only sign).
pub fn status(s: &str) -> Markup {
    let class = match s.split(':').next().unwrap_or_default() {
        "failed" | "FAILED" | "severe" | "error" => "bad",
        "warning" => "warn",
        "valid" | "VALID" | "success" | "enabled" => "good",
        "overridden" => "note",
        _ => "plain",
    };
    html! { span class={ "badge " (class) } { (s) } }
}

/// A narrow chart's size, for a phone's screen (shown instead of the wide one there).
const NARROW: (u32, u32) = (420, 360);

/// A chart with its text alternative shown beside it: a wide SVG and a narrow one for phones
/// (CSS shows one; the hidden one is out of the accessibility tree), `name` keeping the ids of
/// their titles apart from other charts of the page.
pub fn figure(lines: &[chart::Line<'_>], caption: &str, name: &str) -> Markup {
    let description = chart::describe(lines);
    let draw = |size: (u32, u32), id: String| {
        chart::svg_named(lines, size, &id)
            .unwrap_or_else(|e| html! { p.error { (e.to_string()) } }.into_string())
    };
    let wide = draw((chart::WIDTH, chart::HEIGHT), name.to_string());
    let narrow = draw(NARROW, format!("{name}-narrow"));
    html! {
        figure.chart {
            div.plot.wide { (PreEscaped(wide)) }
            div.plot.narrow { (PreEscaped(narrow)) }
            figcaption {
                strong { (caption) } " "
                (description.text)
            }
        }
    }
}

/// "Showing a–b of n" ("of about n" for an estimated total) and links to the previous and
/// next pages.
pub fn pager(
    total: u64,
    estimated: bool,
    skip: u64,
    shown: usize,
    link: impl Fn(u64) -> String,
) -> Markup {
    let size = super::PAGE as u64;
    html! {
        nav.pager aria-label="Pages" {
            @if total == 0 {
                span { "Nothing found." }
            } @else if estimated {
                span title="An estimate: the list counts its matches exactly up to 10,000" {
                    "Showing " (skip + 1) "–" (skip + shown as u64) " of about " (total)
                }
            } @else {
                span { "Showing " (skip + 1) "–" (skip + shown as u64) " of " (total) }
            }
            @if skip > 0 {
                a rel="prev" href=(link(skip.saturating_sub(size))) { "Previous page" }
            }
            @if skip + (shown as u64) < total {
                a rel="next" href=(link(skip + size)) { "Next page" }
            }
        }
    }
}
