//! The properties the fuzz targets check: the same file the proptest drivers use.

#[path = "../../tests/properties/checks.rs"]
pub mod checks;
