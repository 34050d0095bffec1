#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;

fuzz_target!(|input: (u8, bool, Vec<checks::Values>)| {
    let (kind, xhtml, entries) = input;
    checks::serializer(kind, xhtml, &entries);
});
