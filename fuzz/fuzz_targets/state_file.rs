#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;

fuzz_target!(|bytes: &[u8]| {
    checks::state_file(bytes);
});
