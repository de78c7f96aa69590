//! Record statuses: their codes (in rank order), names, and which count as failing.
/// `skipped`.
pub const SKIPPED: u8 = 0;
/// `valid`.
pub const VALID: u8 = 1;
/// `warning`.
pub const WARNING: u8 = 2;
/// `failed`.
pub const FAILED: u8 = 3;
/// `error`.
pub const ERROR: u8 = 4;
/// `severe`.
pub const SEVERE: u8 = 5;
/// `overridden`.
pub const OVERRIDDEN: u8 = 6;
/// No status (a timeline entry without a previous status).
pub(super) const NONE: u8 = 255;

const NAMES: [&str; 7] = [
    "skipped",
    "valid",
    "warning",
    "failed",
    "error",
    "severe",
    "overridden",
];

/// The name of a status code.
pub fn status_name(code: u8) -> &'static str {
    NAMES.get(usize::from(code)).copied().unwrap_or("skipped")
}

/// The code of a status name (`skipped` for anything unknown).
pub fn status_code(name: &str) -> u8 {
    NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(SKIPPED, |i| i as u8)
}

/// Whether a status counts as failing.
pub fn is_failing(status: &str) -> bool {
    matches!(status, "failed" | "severe" | "error")
}

/// Whether a status code counts as failing.
pub fn failing(code: u8) -> bool {
    matches!(code, FAILED | ERROR | SEVERE)
}

/// The worse of two status codes (severe > error > failed > warning > valid > skipped).
pub fn worse(a: u8, b: u8) -> u8 {
    // The codes of the check statuses are in rank order.
    a.max(b)
}

/// The worst of some check statuses; `skipped` when none ran.
pub fn worst<'a>(statuses: impl IntoIterator<Item = &'a str>) -> String {
    let code = statuses
        .into_iter()
        .map(status_code)
        .filter(|c| *c != OVERRIDDEN)
        .fold(SKIPPED, worse);
    status_name(code).to_string()
}
