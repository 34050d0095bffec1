//! Property tests: the properties of `checks.rs`, the fuzz targets' own, over a few thousand
//! generated cases each, in every `cargo test`.

mod checks;

use proptest::prelude::*;
use proptest::test_runner::Config;

/// Bytes that stress a URL mapping: every byte can come, the awkward ones often.
fn name_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        any::<u8>(),
        prop::sample::select(b" %?#<>\"'&/\\.\x7f\x01\t\n\r\xc3\xa9\xff".to_vec()),
        prop::char::range('a', 'z').prop_map(|c| c as u8),
    ];
    prop_oneof![
        prop::collection::vec(byte, 0..12),
        prop::sample::select(vec![
            "index.html",
            "index.htm",
            "a.html",
            ".html",
            "b.htm",
            "..",
            "."
        ])
        .prop_map(|name| name.as_bytes().to_vec()),
    ]
}

fn base_url() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "https://example.com",
            "http://example.com/docs/",
            "https://Example.COM:8443/a b/|^[x]/100%/",
            "https://bücher.example/ü",
            "https://[::1]/",
        ])
        .prop_map(String::from),
        "https?://[a-z.]{1,12}(/[ -~]{0,10}){0,3}",
        "https?://[a-z.'\"{}`!$&()*+,;=_~-]{1,8}/",
        any::<String>(),
    ]
}

/// A value for the serializer: mostly printable text, often markup, sometimes any char.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,16}",
        "[<>&'\"\\]]{0,6}",
        any::<String>(),
        prop::sample::select(vec![
            "\u{1}", "\t", "\r\n", "\u{85}", "\u{fffe}", "\u{ffff}", "]]>"
        ])
        .prop_map(String::from),
    ]
}

fn values() -> impl Strategy<Value = checks::Values> {
    (
        value(),
        prop::option::of(value()),
        prop::option::of(value()),
        prop::option::of(value()),
        prop::collection::vec((value(), value()), 0..3),
    )
}

/// An HTML page put together from what heads hold, broken markup included.
fn page() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        prop::sample::select(vec![
            "<head>",
            "</head>",
            "<body>",
            "<meta name=robots content=noindex>",
            "<meta name=\"ROBOTS\" content=\"index,follow\">",
            "<meta http-equiv=refresh content=\"0; url=/new/\">",
            "<link rel=canonical href=/docs/page>",
            "<link rel=alternate hreflang=de href=/de/page.html>",
            "<link rel=\"alternate\" hreflang=\"x-default\" href=\"https://example.com/\">",
            "<link rel=alternate hreflang=\"e n\" href=\"javascript:x\">",
            "<script><link rel=canonical href=/x></script>",
            "<!-- <meta name=robots content=noindex> -->",
            "<title>",
            "\u{e9}&amp;&#0;",
            "<",
            "\"",
            "<main>",
            "</main>",
            "<nav>",
            "<img src=a.png srcset='b.png 2x, c.png 640w'>",
            "<picture><source srcset=\"//cdn.example.net/x.webp 1x,, y.webp (\">",
            "<meta property=og:image content=../og.png?x={y}>",
            "<base href=/b/>",
            "<img src='data:image/gif;base64,R0=' width=1 height=1>",
            "<img src='http://EXAMPLE.com/\u{e9} |x#f'>",
            "<img src=//other.example.org/i.png>",
        ])
        .prop_map(|piece| piece.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

/// A state file and whether it is one as sitemapgen writes it: mostly whole states of
/// either version (so that reading one back and writing it again is checked often), some
/// with one line replaced, dropped or repeated, some any lines at all.
fn state_text() -> impl Strategy<Value = (Vec<u8>, bool)> {
    let digest = blake3::hash(b"x").to_hex().to_string();
    let record_digest = digest.clone();
    let records = move |version: u8| {
        let digest = record_digest.clone();
        let keys = vec!["/", "/a.html", "/b/", "/c/d.html", "/%C3%A9.html", "/e.pdf"];
        let stamp = match version {
            1 => prop_oneof![Just("1 2".to_string()), Just("10 -3".to_string())].boxed(),
            2 => prop_oneof![
                Just("-".to_string()),
                Just("12:1700000000000000000:1700000000000000001:42".to_string()),
            ]
            .boxed(),
            // With the streak and the fingerprint.
            _ => prop_oneof![
                Just("- 0 -".to_string()),
                Just("0:-5:0:1 3 0000000000000ff".to_string()),
                Just("12:1700000000000000000:1700000000000000001:42 0 edcba9876543210".to_string()),
            ]
            .boxed(),
        };
        let lastmod = prop::sample::select(vec!["-", "2024-05-01", "2024-05-01T10:00:00+02:00"]);
        prop::sample::subsequence(keys, 0..6).prop_flat_map(move |keys| {
            let digest = digest.clone();
            prop::collection::vec((lastmod.clone(), stamp.clone()), keys.len()).prop_map(
                move |fields| {
                    keys.iter()
                        .zip(fields)
                        .map(|(key, (lastmod, stamp))| format!("{key} {lastmod} {digest} {stamp}"))
                        .collect::<Vec<_>>()
                },
            )
        })
    };
    let whole = (1..=3u8).prop_flat_map(move |version| {
        records(version).prop_map(move |records| {
            let mut lines = vec![
                format!("sitemapgen-state {version}"),
                "digest blake3 ignore=-".to_string(),
            ];
            let count = records.len();
            lines.extend(records);
            lines.push(format!("end {count}"));
            lines
        })
    });
    let noise = prop_oneof![
        Just("sitemapgen-state 1".to_string()),
        Just("digest blake3 ignore=-".to_string()),
        Just(format!("/ - {digest} 1 2")),
        (0..4usize).prop_map(|n| format!("end {n}")),
        "[ -~]{0,40}",
    ];
    let text = |lines: Vec<String>| (lines.join("\n") + "\n").into_bytes();
    prop_oneof![
        3 => whole.clone().prop_map(move |lines| (text(lines), true)),
        2 => (whole, any::<prop::sample::Index>(), noise.clone(), 0..3u8).prop_map(
            move |(mut lines, at, line, how)| {
                let at = at.index(lines.len());
                match how {
                    0 => lines[at] = line,
                    1 => drop(lines.remove(at)),
                    _ => lines.insert(at, lines[at].clone()),
                }
                (text(lines), false)
            }
        ),
        1 => prop::collection::vec(noise, 0..8).prop_map(move |lines| (text(lines), false)),
    ]
}

fn toml_text() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        prop::sample::select(vec![
            "base-url",
            "dir",
            "include",
            "exclude",
            "gzip",
            "max-urls",
            "lastmod",
            "format",
            "changefreq",
            "priority",
            "state",
            "output",
            "clean-urls",
            "config",
            "nope",
        ])
        .prop_map(String::from),
        "[a-z-]{1,10}",
    ];
    let value = prop_oneof![
        any::<bool>().prop_map(toml::Value::from),
        any::<i64>().prop_map(toml::Value::from),
        prop::sample::select(vec![
            ".",
            "https://example.com/",
            "*.html",
            "[",
            "*=0.5",
            "git",
            "none",
            "x.gz"
        ])
        .prop_map(toml::Value::from),
        prop::collection::vec("[ -~]{0,8}", 0..3).prop_map(toml::Value::from),
    ];
    prop_oneof![
        2 => Just(String::new()),
        2 => prop::collection::vec((key, value), 0..3).prop_map(|pairs| {
            pairs.into_iter().collect::<toml::Table>().to_string()
        }),
        1 => "[ -~\n]{0,60}",
    ]
}

/// Mostly a plausible command line (DIR, a base URL, options with values) with some noise, so
/// that runs get past clap into the settings' own checks.
fn command_line() -> impl Strategy<Value = Vec<String>> {
    let flag = prop::sample::select(vec![
        "--gzip",
        "--check",
        "--robots",
        "--clean-urls",
        "--no-html",
        "--hidden",
        "--follow",
        "--no-trailing-slash",
        "--no-default-excludes",
        "--strict",
        "-q",
        "-v",
        "--null",
    ])
    .prop_map(|flag| vec![flag.to_string()]);
    let option = (
        prop::sample::select(vec![
            "--include",
            "--exclude",
            "--priority",
            "--changefreq",
            "--lastmod",
            "--state",
            "--format",
            "-o",
            "--max-urls",
            "--max-churn",
            "--digest-ignore",
            "--files-from",
            "--completions",
            "-b",
        ]),
        prop_oneof![
            prop::sample::select(vec![
                "*.html",
                "drafts/",
                "[",
                "a/**",
                "*.html=0.3",
                "*=weekly",
                "x=2",
                "*=sometimes",
                "2024-05-01",
                "2024-13-01",
                "none",
                "git",
                "mtime",
                "txt",
                "json",
                "-",
                "0",
                "50001",
                "101",
                "-1",
                "(",
                "bash",
                "https://example.com/",
                "ftp://x/",
            ])
            .prop_map(String::from),
            "[ -~]{0,10}",
        ],
    )
        .prop_map(|(option, value)| vec![option.to_string(), value]);
    let noise = "[ -~]{0,10}".prop_map(|arg| vec![arg]);
    let dir = prop_oneof![8 => Just("."), 1 => Just("/nonexistent"), 1 => Just("Cargo.toml")];
    (
        prop::option::weighted(0.9, dir),
        prop::option::weighted(0.9, Just("--base-url=https://example.com/")),
        prop::collection::vec(prop_oneof![2 => flag, 6 => option, 1 => noise], 0..4),
    )
        .prop_map(|(dir, base, rest)| {
            let mut args: Vec<String> = dir.into_iter().chain(base).map(String::from).collect();
            args.extend(rest.into_iter().flatten());
            args
        })
}

proptest! {
    #![proptest_config(Config::with_cases(3000))]

    #[test]
    fn a_page_path_maps_to_a_strict_url_that_decodes_back(
        base in base_url(),
        clean_urls: bool,
        trailing_slash: bool,
        segments in prop::collection::vec(name_bytes(), 1..5),
    ) {
        checks::url_mapping(&base, clean_urls, trailing_slash, &segments);
    }

    #[test]
    fn the_serializer_writes_well_formed_documents_of_exactly_what_it_takes(
        kind in 0..3u8,
        xhtml: bool,
        entries in prop::collection::vec(values(), 0..5),
    ) {
        checks::serializer(kind, xhtml, &entries);
    }

    #[test]
    fn a_state_file_reads_or_is_refused_and_what_reads_writes_back(
        (bytes, whole) in state_text(),
    ) {
        let read = checks::state_file(&bytes);
        prop_assert!(read || !whole, "a whole state was refused: {}", String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn a_written_state_reads_back_exactly(
        pages in prop::collection::vec(
            (
                prop::collection::vec(name_bytes(), 1..3),
                prop::option::of(any::<(u16, u8, u8)>()),
                any::<[u8; 32]>(),
                any::<u64>(),
                any::<i64>(),
            ),
            0..6,
        ),
        patterns in prop::collection::vec("[a-z.*()]{0,6}", 0..2),
    ) {
        checks::state_records(&pages, &patterns);
    }
}

proptest! {
    // These two write a file per case.
    #![proptest_config(Config::with_cases(1000))]

    #[test]
    fn a_head_reads_the_same_through_any_buffer_and_keeps_only_writable_alternates(
        page in page(),
        buffer_len in 64..256usize,
    ) {
        let dir = tempfile::tempdir().unwrap();
        checks::head(&page, buffer_len, dir.path());
    }

    #[test]
    fn any_config_file_under_any_command_line_is_settings_or_a_usage_error(
        toml in toml_text(),
        args in command_line(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        checks::config(&toml, &args, dir.path());
    }
}
