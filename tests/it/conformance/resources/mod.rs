//! Resources and their fields: each resource's fields as the interface lists them.

mod automation;
mod contract;
mod curve;
mod data_ids;
mod extension;
mod object;
mod secret;
mod status;
mod time_series;
mod time_value;
mod validation_config;
mod validation_record;
