//! Integration tests: the built binary on sites in temp dirs, every sitemap validated.

mod added;
mod browser;
mod builds;
mod docs;
mod explain;
mod failures;
mod faults;
mod files_from;
mod generators;
mod groups;
mod harness;
mod heads;
mod images;
mod imports;
mod lastmod;
mod mapping;
mod published;
mod real;
mod rebuilds;
mod regression;
mod search_console;
mod serve;
mod split;
mod validate;
mod walk;
mod workflow;
