//! sitemapgen: write sitemap.xml for a static site's build folder.
//!
//! One straight pipe, each stage taking only its own settings:
//!
//! ```text
//! cli ─→ state ─→ walk ─→ decide (scan) ─→ sitemap ─→ publish | check
//! ```
//!
//! `cli` reads the command line and the config file into `run::Settings`; `state` loads
//! what the last run recorded; `walk` finds the pages; `decide` scans each (`scan`: the one
//! place a page is read) and makes its `Entry` and its record for the new state; `sitemap`
//! writes the documents; `publish` writes the new state and makes everything visible with
//! robots.txt, or `check` compares the documents with the files on disk. `run` strings
//! them together; `submit` is the other command, run after the deploy. `outputs` (the
//! files a run writes and reads back), `io` (atomic files, bounded input, HTTP),
//! `report`, `error`, `url` and `html` serve every stage.
//!
//! The binary (`src/main.rs`) is a thin shell over this library. The library makes public
//! what the binary runs and what the property tests (`tests/properties`) and the fuzz
//! targets (`fuzz/`) drive directly.

mod check;
pub mod cli;
pub mod decide;
pub mod entry;
pub mod error;
mod explain;
mod html;
mod io;
pub mod known;
mod outputs;
mod publish;
mod report;
pub mod run;
pub mod scan;
pub mod sitemap;
pub mod state;
pub mod submit;
mod summary;
pub mod url;
pub mod w3c;
mod walk;

pub use crate::cli::{Request, request};
pub use crate::explain::explain;
pub use crate::report::to_stderr;
