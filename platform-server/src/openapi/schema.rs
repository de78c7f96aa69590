//! The schemas the document builds its parameters and bodies from: a string, one of some
//! strings, an integer in a range, a boolean, any object, any array.

use utoipa::openapi::schema::{AdditionalProperties, Array, Object, ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

/// A string.
pub(super) fn string() -> Schema {
    Object::with_type(Type::String).into()
}

/// Any JSON object.
pub(super) fn any_object() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .build()
        .into()
}

/// Any JSON array.
pub(super) fn any_array() -> Schema {
    Array::new(RefOr::T(Schema::Object(Object::new()))).into()
}

/// One of these strings.
pub(super) fn enum_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .build()
        .into()
}

/// An integer from `min`, up to `max` when given.
pub(super) fn integer(min: i64, max: Option<i64>) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(min))
        .maximum(max)
        .build()
        .into()
}

/// `true` or `false`.
pub(super) fn boolean() -> Schema {
    Object::with_type(Type::Boolean).into()
}
