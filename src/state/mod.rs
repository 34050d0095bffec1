//! The state of the last run, loaded before the walk: the state file, or where the last
//! deploy published it, or the dates of the sitemap published before.

pub mod file;
pub mod old;
pub mod origin;

pub use file::{Record, Stamp, Writer, parse, read};
pub use old::{OldState, Take};
