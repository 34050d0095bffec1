//! The state of the last run, loaded before the walk: the state file, or where the last
//! deploy published it, or the dates of the sitemap published before.

pub mod file;
pub mod origin;

pub use file::{OldState, Record, Stamp, Take, Writer, parse, read};
