//! Endpoints: the conventions shared by every service, then each service's paths.

mod automation;
mod conventions;
mod data;
mod extension;
mod list_automations;
mod object;
mod secret;
mod validation;
mod validationconfig;
