#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;

// Pages to record, and --digest-ignore patterns.
fuzz_target!(|input: (Vec<checks::StatePage>, Vec<String>)| {
    let (pages, patterns) = input;
    checks::state_records(&pages, &patterns);
});
