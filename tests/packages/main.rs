//! The packages users install: the Python wheel (with its MkDocs and Sphinx plugins), the
//! npm packages, the GitHub Action, the crate, the release workflow and the one version they
//! all carry. The wheel is built once per run (the `dist` profile: release without LTO) and
//! its binary serves the npm test too.

// Shared with tests/cli, which uses all of them; this binary needs only a part.
#[allow(dead_code)]
#[path = "../cli/harness.rs"]
mod harness;
#[allow(dead_code)]
#[path = "../cli/serve.rs"]
mod serve;
#[allow(dead_code)]
#[path = "../cli/validate.rs"]
mod validate;

mod action;
mod built;
mod crate_package;
mod npm;
mod npm_plugins;
mod plugins;
mod switch;
mod version;
mod versions;
mod wheel;
mod workflow;
