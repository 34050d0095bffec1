//! What a run reads from outside, bounded and checked: a state whose keys sitemapgen could
//! not have written, or that repeats a record. (The changes file's checks are in
//! `published.rs`, with `--indexnow-submit`.)

use std::fs;

use crate::published::{assert_nothing_written, gzip, site_with_old_sitemap};

#[test]
fn a_state_whose_keys_sitemapgen_could_not_have_written_is_refused() {
    let site = site_with_old_sitemap();
    let state = site.outside().join("state");
    let digest = "0".repeat(64);
    for key in ["/../../etc/passwd", "/\u{1b}[31mred.html", "/<x>&\"'.html"] {
        fs::write(
            &state,
            format!("sitemapgen-state 2\ndigest blake3 ignore=-\n{key} - {digest} -\nend 1\n"),
        )
        .unwrap();
        let before = site.all_files();
        site.command(&["--state"])
            .arg(&state)
            .run()
            .expect_code(1)
            .stderr_has(&["line 3 is malformed", "is not a URL path sitemapgen writes"]);
        assert_nothing_written(&site, &before);
    }
}

#[test]
fn a_state_repeating_one_record_is_refused_where_the_repeat_is_read() {
    let site = site_with_old_sitemap();
    let state = site.outside().join("state.gz");
    let record = format!("/a.html - {} -\n", "0".repeat(64));
    // 2 million records, 170 MB decompressed, some 200 KB compressed, and no end.
    let mut text = String::from("sitemapgen-state 2\ndigest blake3 ignore=-\n");
    text.push_str(&record.repeat(2_000_000));
    fs::write(&state, gzip(text.as_bytes())).unwrap();
    let before = site.all_files();
    site.command(&["--state"])
        .arg(&state)
        .run()
        .expect_code(1)
        .stderr_has(&["is not usable: line 4: it repeats the URL /a.html"]);
    assert_nothing_written(&site, &before);
}
