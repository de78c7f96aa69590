//! Conformance: the interface (`interface.md`), section by section.
//!
//! Each module below is one section of the interface, in its order, and its tests are the
//! section's statements, each named for what it states. Where the interface says "not shown",
//! the project's decisions (`docs/decisions.md`) settle it and the test says so. Deeper tests of
//! an area (paging corners, grammar, properties) live in the area modules beside this one.

mod authentication;
mod endpoints;
mod errors;
mod events;
mod limits;
mod resources;
mod states;
mod versioning;
mod what_the_service_does;

/// Every section heading of the interface and the module that holds its statements.
const SECTIONS: &[(&str, &str)] = &[
    ("What the service does", "what_the_service_does"),
    ("Resources and their fields", "resources"),
    ("Object", "resources::object"),
    ("TimeSeries (data entity)", "resources::time_series"),
    ("TimeValue", "resources::time_value"),
    ("Status", "resources::status"),
    ("Curve (data entity)", "resources::curve"),
    ("Contract", "resources::contract"),
    ("Data ids", "resources::data_ids"),
    ("Secret", "resources::secret"),
    ("Extension", "resources::extension"),
    (
        "Validation configuration (service validationconfig, private)",
        "resources::validation_config",
    ),
    (
        "Validation record (service validation, private)",
        "resources::validation_record",
    ),
    ("Automation", "resources::automation"),
    ("States and transitions", "states"),
    ("Object versions", "states::object_versions"),
    ("Extension", "states::extension"),
    ("Data status values", "states::data_status"),
    ("Validation record", "states::validation_record"),
    ("Endpoints", "endpoints"),
    ("Conventions for all services", "endpoints::conventions"),
    ("Object service: {base_url}/object", "endpoints::object"),
    (
        "Data service: {base_url}/data (read-only)",
        "endpoints::data",
    ),
    ("Secret service: {base_url}/secret", "endpoints::secret"),
    (
        "Extension service: {base_url}/extension",
        "endpoints::extension",
    ),
    (
        "Validation configuration service: {base_url}/validationconfig",
        "endpoints::validationconfig",
    ),
    (
        "Validation service: {base_url}/validation",
        "endpoints::validation",
    ),
    (
        "Special function listAutomations",
        "endpoints::list_automations",
    ),
    ("Automation service", "endpoints::automation"),
    ("Authentication", "authentication"),
    ("Events", "events"),
    (
        "Validation service events (source private)",
        "events::validation_service",
    ),
    ("Data service events", "events::data_service"),
    ("Extension realtime messages", "events::extension_realtime"),
    ("Errors", "errors"),
    ("Limits", "limits"),
    ("Versioning", "versioning"),
];

/// The interface's section headings, in order (`##` and `###`).
fn headings(interface: &str) -> Vec<String> {
    interface
        .lines()
        .filter_map(|l| l.strip_prefix("### ").or_else(|| l.strip_prefix("## ")))
        .map(|h| h.trim().to_string())
        .collect()
}

#[test]
fn every_section_of_the_interface_has_its_place_in_this_suite() {
    // The interface sits beside the repository; CI clones the repository alone, where the
    // table above is the record of it.
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/spec/interface.md");
    if let Ok(text) = std::fs::read_to_string(spec) {
        let listed: Vec<&str> = SECTIONS.iter().map(|(h, _)| *h).collect();
        assert_eq!(headings(&text), listed, "the interface's sections changed");
    }
    // Every module named is declared here (the file of a module exists, or this does not build).
    let here = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/conformance");
    for (heading, module) in SECTIONS {
        let path = format!("{here}/{}", module.replace("::", "/"));
        assert!(
            std::path::Path::new(&format!("{path}.rs")).exists()
                || std::path::Path::new(&format!("{path}/mod.rs")).exists(),
            "section \"{heading}\" has no module {module}"
        );
    }
}
