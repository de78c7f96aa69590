//! A desk's reads in pandas against the served binary (`scripts/desk-pandas.sh`: pinned pandas
//! and pyarrow from PyPI in a cached virtual environment), when `PLATFORM_DESK_PANDAS=1`, as CI
//! does: Arrow answers read into pandas in local time, each number equal to pandas' own.

use super::BIN;
use std::process::Command;

#[test]
fn desk_reads_in_pandas_through_arrow_equal_pandas_own_computation() {
    if std::env::var("PLATFORM_DESK_PANDAS").as_deref() != Ok("1") {
        // Written to the process's standard error itself, which the test harness does not
        // capture, so the skip shows in every run.
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the pandas desk run needs PLATFORM_DESK_PANDAS=1 (CI sets it)"
        );
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new("bash")
        .arg(root.join("scripts/desk-pandas.sh"))
        .env("PLATFORM_BIN", BIN)
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success(), "scripts/desk-pandas.sh: {status}");
}
