//! What commands read besides their arguments: a JSON body from a file or standard input.

/// The JSON in a file, or on standard input for `-` or no file.
pub fn read_json(file: Option<&std::path::Path>) -> platform_core::Result<serde_json::Value> {
    use std::io::Read as _;
    let (text, name) = match file {
        Some(path) if path.as_os_str() != "-" => (
            std::fs::read_to_string(path).map_err(|e| {
                platform_core::Error::invalid_parameter(format!(
                    "cannot read {}: {e}",
                    path.display()
                ))
            })?,
            path.display().to_string(),
        ),
        _ => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                platform_core::Error::invalid_parameter(format!("cannot read standard input: {e}"))
            })?;
            (s, "standard input".to_string())
        }
    };
    platform_core::api::formats::from_str(&text).map_err(|e| {
        platform_core::Error::new(
            platform_core::ErrorCode::InvalidBody,
            format!("{name} is not valid JSON: {e}"),
        )
    })
}
