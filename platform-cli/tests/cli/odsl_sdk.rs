//! The prior art's Python SDK against the served binary (`scripts/odsl-sdk.sh`: the pinned
//! `odsl` from PyPI in a cached virtual environment), when `PLATFORM_ODSL_SDK=1`, as CI does.

use super::BIN;
use std::process::Command;

#[test]
fn odsl_sdk_readme_examples_round_trip_through_the_served_binary() {
    if std::env::var("PLATFORM_ODSL_SDK").as_deref() != Ok("1") {
        // Written to the process's standard error itself, which the test harness does not
        // capture, so the skip shows in every run.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the odsl SDK run needs PLATFORM_ODSL_SDK=1 (CI sets it)"
        );
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new("bash")
        .arg(root.join("scripts/odsl-sdk.sh"))
        .env("PLATFORM_BIN", BIN)
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success(), "scripts/odsl-sdk.sh: {status}");
}
