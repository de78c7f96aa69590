//! States and transitions: every row of the interface's state tables.

mod data_status;
mod extension;
mod object_versions;
mod validation_record;
