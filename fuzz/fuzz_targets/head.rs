#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;

use std::sync::LazyLock;

use tempfile::TempDir;

/// Where the page is written, once per process.
static DIR: LazyLock<TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

// The size of the read buffer, and the page.
fuzz_target!(|input: (u16, &[u8])| {
    let (buffer_len, page) = input;
    checks::head(page, usize::from(buffer_len), DIR.path());
});
