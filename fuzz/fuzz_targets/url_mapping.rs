#![no_main]

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;

// A base URL (any text, or a path under a plain host), the two mapping flags, and a page
// path's components as raw bytes.
fuzz_target!(|input: (bool, String, bool, bool, Vec<Vec<u8>>)| {
    let (raw, base, clean_urls, trailing_slash, segments) = input;
    let base = if raw {
        base
    } else {
        format!("https://example.com/{base}")
    };
    checks::url_mapping(&base, clean_urls, trailing_slash, &segments);
});
