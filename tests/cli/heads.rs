//! Reading the built pages: noindex, redirect stubs and other canonical pages are left out;
//! hreflang alternates are written, checked across the sitemap.

use std::collections::BTreeMap;
use std::fs;

use crate::harness::{BASE, Site};
use crate::validate;

fn listed(site: &Site) -> Vec<String> {
    validate::listed(&site.sitemap_path(), BASE)
}

#[test]
fn each_head_rule_leaves_out_exactly_its_pages() {
    let site = Site::fixture("heads");
    // A head longer than the cap (1 MiB) is read up to the cap; one within it is read whole.
    let style = |n: usize| {
        format!(
            "<head><title>t</title><style>{}</style>",
            "p{}".repeat(n / 3)
        )
    };
    site.write(
        "huge-head.html",
        style(600_000) + "<meta name=robots content=noindex></head>",
    );
    site.write(
        "beyond-cap.html",
        style(1_200_000) + "<meta name=robots content=noindex></head>",
    );
    let run = site.run(&["-v", "--include", "*.html", "--include", "*.pdf"]);
    run.success().stderr_has(&[
        "skip bom.html: marked noindex",
        "skip entity.html: marked noindex",
        "skip googlebot-none.html: marked noindex",
        "skip huge-head.html: marked noindex",
        "skip latin1.html: marked noindex",
        "skip noindex-upper.html: marked noindex",
        "skip noindex.html: marked noindex",
        "skip redirect.html: a redirect to https://example.com/",
        "skip canonical-other.html: its canonical URL is https://example.com/",
        "warning: canonical-form.html: its canonical URL http://example.com/canonical-form \
         has another host or scheme than https://example.com/canonical-form.html",
        "(left out: 1 redirect page, 7 noindex, 1 naming another page as canonical)",
    ]);
    assert_eq!(
        listed(&site),
        [
            "",
            "beyond-cap.html",
            "body-meta.html",
            "canonical-form.html",
            "comment.html",
            "no-head.html",
            "paper.pdf",
            "robots-index.html",
            "robots-no-content.html",
            "script.html",
            "slow-refresh.html",
        ]
    );
    let xml = fs::read_to_string(site.sitemap_path()).unwrap();
    assert!(!xml.contains("xmlns:xhtml"), "no alternates, no namespace");

    // --strict makes the canonical mismatch an error; --no-html reads nothing.
    site.run(&["--strict"])
        .expect_code(1)
        .stderr_has(&["canonical-form.html: its canonical URL", "(--strict)"]);
    site.run(&["--no-html", "--no-default-excludes"]).success();
    let all_html = fs::read_dir(&site.root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".html")
        })
        .count();
    assert_eq!(listed(&site).len(), all_html);
}

#[test]
fn an_unreadable_page_is_an_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::with_pages(&["index.html", "secret.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    fs::set_permissions(site.path("secret.html"), fs::Permissions::from_mode(0o000)).unwrap();
    let run = crate::harness::Cmd::unprivileged()
        .args(["-b", BASE])
        .arg(&site.root)
        .run();
    run.expect_code(1)
        .stderr_has(&["error: cannot read ", "secret.html", "Permission denied"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
}

/// Per listed URL (relative to BASE), its alternates as (hreflang, URL relative to BASE).
fn alternates(site: &Site) -> BTreeMap<String, Vec<(String, String)>> {
    validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|url| {
            let alternates = url
                .alternates
                .iter()
                .map(|(lang, href)| (lang.clone(), href.strip_prefix(BASE).unwrap().to_string()))
                .collect();
            (url.loc.strip_prefix(BASE).unwrap().to_string(), alternates)
        })
        .collect()
}

#[test]
fn a_multilingual_site_lists_its_indexable_pages_with_their_alternates() {
    let site = Site::fixture("multilingual");
    let run = site.run(&["-v"]);
    run.success().stderr_has(&[
        "skip de/alias.html: a redirect to https://example.com/de/",
        "skip en/copy.html: its canonical URL is https://example.com/en/",
        "skip fr/about.html: marked noindex",
        "warning: https://example.com/en/about.html: its de alternate https://example.com/de/about.html \
         does not name it back (a one-way alternate); kept",
        "warning: https://example.com/en/about.html: its fr alternate https://example.com/fr/about.html \
         is not a page of this sitemap (left out, or not in the site); dropped",
        "warning: https://example.com/en/gone.html: its de alternate https://example.com/de/gone.html \
         is not a page of this sitemap",
    ]);
    let pair = |lang: &str, path: &str| (lang.to_string(), path.to_string());
    let home = vec![
        pair("en", "en/"),
        pair("de", "de/"),
        pair("fr", "fr/"),
        pair("x-default", "en/"),
    ];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("de/", home.clone()),
        ("de/about.html", vec![pair("de", "de/about.html")]),
        ("en/", home.clone()),
        (
            "en/about.html",
            vec![pair("en", "en/about.html"), pair("de", "de/about.html")],
        ),
        ("en/gone.html", vec![pair("en", "en/gone.html")]),
        ("fr/", home),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(alternates(&site), expected);

    // Split, every shard carries the namespace and stays valid.
    site.run(&["--max-urls", "2"]).success();
    let index = validate::index(&site.sitemap_path(), BASE);
    for shard in &index {
        let name = shard.loc.strip_prefix(BASE).unwrap();
        validate::sitemap(&site.path(name), BASE);
    }
}

#[test]
fn hreflang_default_gives_an_x_default_to_each_cluster_without_one() {
    let site = Site::fixture("multilingual");
    site.run(&["--hreflang-default", "DE"]).success();
    let pair = |lang: &str, path: &str| (lang.to_string(), path.to_string());
    let got = alternates(&site);
    // The home pages declare their x-default (en/): kept as declared, none added.
    let home = vec![
        pair("en", "en/"),
        pair("de", "de/"),
        pair("fr", "fr/"),
        pair("x-default", "en/"),
    ];
    for page in ["de/", "en/", "fr/"] {
        assert_eq!(got[page], home, "{page}");
    }
    // A de member, as listed, in the tag's case as the pages write it.
    assert_eq!(
        got["en/about.html"],
        [
            pair("en", "en/about.html"),
            pair("de", "de/about.html"),
            pair("x-default", "de/about.html"),
        ]
    );
    assert_eq!(
        got["de/about.html"],
        [
            pair("de", "de/about.html"),
            pair("x-default", "de/about.html")
        ]
    );
    // Its de alternate is dropped (not a page): no de member, no x-default.
    assert_eq!(got["en/gone.html"], [pair("en", "en/gone.html")]);

    // A cluster one of whose pages declares an x-default gets none from the flag, even on a
    // page that does not declare it; a declared x-default that is no page is dropped, not
    // replaced.
    let site = Site::empty();
    site.write(
        "en/index.html",
        "<link rel=alternate hreflang=en href=/en/><link rel=alternate hreflang=de href=/de/>\
         <link rel=alternate hreflang=x-default href=/en/>",
    );
    site.write(
        "de/index.html",
        "<link rel=alternate hreflang=en href=/en/><link rel=alternate hreflang=de href=/de/>",
    );
    let a = "<link rel=alternate hreflang=en href=/en/a.html>\
             <link rel=alternate hreflang=de href=/de/a.html>";
    site.write(
        "en/a.html",
        format!("{a}<link rel=alternate hreflang=x-default href=/nowhere.html>"),
    );
    site.write("de/a.html", a);
    let run = site.run(&["--hreflang-default", "de"]);
    run.success().stderr_has(&[
        "https://example.com/en/a.html: its x-default alternate https://example.com/nowhere.html \
         is not a page of this sitemap",
    ]);
    let got = alternates(&site);
    assert_eq!(got["de/"], [pair("en", "en/"), pair("de", "de/")]);
    assert_eq!(
        got["en/"],
        [
            pair("en", "en/"),
            pair("de", "de/"),
            pair("x-default", "en/")
        ]
    );
    let a = [pair("en", "en/a.html"), pair("de", "de/a.html")];
    assert_eq!(got["en/a.html"], a);
    assert_eq!(got["de/a.html"], a);

    // Not a language tag; no heads read; no alternates in a text sitemap.
    for (args, message) in [
        (
            &["--hreflang-default", "x-default"][..],
            "sitemapgen: error: --hreflang-default \"x-default\" is not a language tag",
        ),
        (
            &["--hreflang-default", "en_US"],
            "sitemapgen: error: --hreflang-default \"en_US\" is not a language tag",
        ),
        (
            &["--hreflang-default", "en", "--no-html"],
            "sitemapgen: error: --hreflang-default adds to the alternates the pages' heads \
             name, and --no-html reads none: drop one, or give --locale",
        ),
        (
            &["--hreflang-default", "en", "--format", "txt"],
            "sitemapgen: error: a text sitemap (--format txt) has no alternates",
        ),
    ] {
        site.command(args)
            .arg("-o")
            .arg("-")
            .run()
            .expect_code(2)
            .stderr_has(&[message]);
    }
}

#[test]
fn an_alternate_language_is_written_once_and_a_template_does_not_end_the_head() {
    let site = Site::empty();
    let links = "<link rel=alternate hreflang=en href=/en/>\
                 <link rel=alternate hreflang=de href=/de/>\
                 <link rel=alternate hreflang=de href=/de/>\
                 <link rel=alternate hreflang=EN href=/en/>";
    site.write("en/index.html", format!("<head>{links}</head>"));
    site.write("de/index.html", format!("<head>{links}</head>"));
    // A template in the head is inert: its content does not end the head, nor count.
    site.write(
        "hidden.html",
        "<head><template><div>card</div></template>\
         <meta name=robots content=noindex></head>",
    );
    site.write(
        "shown.html",
        "<head><template><meta name=robots content=noindex></template></head>",
    );
    site.run(&[]).success();
    let pair = |lang: &str, path: &str| (lang.to_string(), path.to_string());
    let both = vec![pair("en", "en/"), pair("de", "de/")];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("de/".to_string(), both.clone()),
        ("en/".to_string(), both),
        ("shown.html".to_string(), vec![]),
    ]
    .into_iter()
    .collect();
    assert_eq!(alternates(&site), expected);
}

#[test]
fn a_refresh_inside_noscript_in_the_head_is_a_redirect_stub() {
    // sphinx-reredirects' default template.
    let site = Site::with_pages(&["index.html", "new.html"]);
    site.write(
        "old.html",
        "<html><head><noscript><meta http-equiv=\"refresh\" content=\"0; url=new.html\" />\
         </noscript><script>window.location.replace(\"new.html\")</script></head></html>",
    );
    // In the body, a <noscript> is what a browser with scripts skips: not read.
    site.write(
        "body.html",
        "<body><noscript><meta name=robots content=noindex></noscript><p>text</p></body>",
    );
    site.run(&["-v"])
        .success()
        .stderr_has(&["skip old.html: a redirect to https://example.com/new.html"]);
    assert_eq!(listed(&site), ["", "body.html", "new.html"]);
}

#[test]
fn a_canonical_url_spelt_otherwise_is_the_page_itself() {
    let site = Site::empty();
    for (name, canonical) in [
        ("café.html", "caf%c3%a9.html"),
        ("y(1).html", "y%281%29.html"),
        ("~w.html", "%7Ew.html"),
        ("e.html", "%65.html"),
    ] {
        site.write(name, format!("<link rel=canonical href=\"{canonical}\">"));
    }
    let run = site.run(&[]);
    run.success();
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    assert_eq!(
        listed(&site),
        ["caf%C3%A9.html", "e.html", "y(1).html", "~w.html"]
    );
}

#[test]
fn conflicting_canonical_urls_count_for_none_with_a_warning() {
    let site = Site::with_pages(&["b.html", "c.html"]);
    site.write(
        "a.html",
        "<link rel=canonical href=/b.html><link rel=canonical href=/c.html>",
    );
    site.run(&[]).success().stderr_has(&[
        "warning: a.html: its canonical URLs https://example.com/b.html and \
         https://example.com/c.html conflict, so neither counts; ignored",
    ]);
    assert_eq!(listed(&site), ["a.html", "b.html", "c.html"]);
}

#[test]
fn the_url_a_page_declares_is_listed_unless_computed_urls_is_asked() {
    let site = Site::empty();
    site.write("index.html", "<link rel=canonical href=/index.html>");
    site.write(
        "docs/intro/index.html",
        "<link rel=canonical href=/docs/intro>",
    );
    site.write(
        "guide/index.html",
        "<link rel=canonical href=https://example.com/guide/>",
    );
    site.run(&[]).success();
    assert_eq!(listed(&site), ["index.html", "docs/intro", "guide/"]);
    site.run(&["--computed-urls"]).success();
    assert_eq!(listed(&site), ["", "docs/intro/", "guide/"]);
    // A declared form another file has already is a duplicate, as two files with one URL.
    site.write("docs/intro.html", "<p>the same URL</p>");
    site.run(&["--clean-urls"])
        .success()
        .stderr_has(&["docs/intro/index.html and docs/intro.html both map to"]);
}

#[test]
fn a_warning_every_page_shares_is_shown_three_times_then_counted() {
    // Debian's python docs: every page's canonical URL is a file:// URL.
    let site = Site::empty();
    for i in 0..20 {
        site.write(
            format!("p{i:02}.html"),
            format!("<link rel=canonical href=\"file:///usr/share/doc/p{i:02}.html\">"),
        );
    }
    let run = site.run(&[]);
    run.success().stderr_has(&[
        "warning: p00.html: the canonical URL \"file:///usr/share/doc/p00.html\" is not an \
         http(s) URL; ignored",
        "warning: and 17 more pages with something unusable in their head (-v lists all)",
    ]);
    assert_eq!(run.stderr().lines().count(), 5, "{}", run.stderr());
    let verbose = site.run(&["-v"]);
    assert_eq!(
        verbose.stderr().matches("is not an http(s) URL").count(),
        20,
        "{}",
        verbose.stderr()
    );
}

#[test]
fn an_error_page_anywhere_is_left_out_unless_it_names_itself_canonical() {
    // mike's versioned MkDocs: MkDocs's 404 page in every version's folder, no robots, no
    // canonical; Hugo's docs have a page about 404 templates, which names itself canonical.
    let site = Site::empty();
    let page = |title: &str, head: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title>{head}</head><body><h1>{title}</h1></body></html>"
        )
    };
    site.write("index.html", page("Home", ""));
    site.write("1.0/index.html", page("Docs 1.0", ""));
    site.write("1.0/404.html", page("404 - Not found", ""));
    site.write("2.0/404.html", page("404 - Not found", ""));
    site.write("latest/sub/500/index.html", page("Server error", ""));
    site.write(
        "templates/404/index.html",
        page(
            "Custom 404 page",
            r#"<link rel="canonical" href="https://example.com/templates/404/">"#,
        ),
    );
    let run = site.run(&["-v"]);
    run.success().stderr_has(&[
        "skip 1.0/404.html: an error page that does not name itself canonical",
        "(left out: 3 by the default excludes)",
    ]);
    assert_eq!(listed(&site), ["", "1.0/", "templates/404/"]);
    // The default excludes off: every page is listed.
    site.run(&["--no-default-excludes"]).success();
    assert_eq!(listed(&site).len(), 6);
}

#[test]
fn an_app_shell_is_left_out_as_a_fallback_not_a_page() {
    // nuxt generate: 200.html, byte for byte its 404.html, an app shell with no title and no
    // text for hosts that serve it on unknown paths; @nuxtjs/sitemap leaves it out.
    let site = Site::empty();
    let shell = r#"<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="modulepreload" as="script" crossorigin href="/_nuxt/Bx7.js"><script type="module" src="/_nuxt/Bx7.js" crossorigin></script></head><body><div id="__nuxt"></div><div id="teleports"></div><script type="application/json" data-nuxt-data="nuxt-app" id="__NUXT_DATA__">[{"serverRendered":1}]</script><noscript>Enable JavaScript</noscript></body></html>"#;
    site.write("200.html", shell);
    site.write("404.html", shell);
    site.write(
        "index.html",
        r#"<!DOCTYPE html><html><head><title>Home</title><script src="/_nuxt/a.js"></script></head><body><div id="__nuxt"></div></body></html>"#,
    );
    // No title, but text: a page.
    site.write("plain.html", "<p>A page written by hand.</p>");
    // No title, no text, no script: a page for machines (Hugo's go-import stub), which its
    // generator lists; not a shell.
    site.write(
        "npmjs/index.html",
        r#"<html><head><meta name="go-import" content="example.com/npmjs mod https://example.com"></head><body></body></html>"#,
    );
    // A title, no text: a page (its text may come from a script, yet it names itself).
    site.write(
        "titled.html",
        "<html><head><title>Search</title></head><body><div id=app></div></body></html>",
    );
    let run = site.run(&["-v"]);
    run.success().stderr_has(&[
        "skip 200.html: an app shell: no title and no text",
        "skip 404.html: default exclude /404.html",
    ]);
    assert_eq!(listed(&site), ["", "npmjs/", "plain.html", "titled.html"]);
}

#[test]
fn a_site_whose_every_page_is_noindex_gets_no_sitemap_and_exits_0() {
    // Docusaurus's `noIndex: true` (a staging deploy): every page says noindex.
    let site = Site::empty();
    let page = |title: &str| {
        format!(
            "<!doctype html><html><head><title>{title}</title><meta name=\"robots\" content=\"noindex, nofollow\"></head><body><p>{title}</p></body></html>"
        )
    };
    site.write("index.html", page("Home"));
    site.write("docs/intro/index.html", page("Intro"));
    site.write("404.html", page("Not found"));
    site.write("style.css", "p{}");
    let files = site.all_files();
    let run = site.run(&[]);
    run.success();
    let stderr = run.stderr();
    assert_eq!(
        stderr.trim_end(),
        format!(
            "sitemapgen: note: no sitemap: every page in {} is noindex (2 pages)",
            site.root.display()
        ),
        "one note"
    );
    assert_eq!(site.all_files(), files, "nothing written");
    // An earlier run's sitemap, shards and all, is taken away: it would list noindex pages.
    site.write("index.html", "<title>Home</title><p>Home");
    site.run(&["--max-urls", "1", "--gzip"]).success();
    site.write("docs/intro/index.html", "<title>Intro</title><p>Intro");
    site.run(&["--max-urls", "1"]).success();
    assert!(site.path("sitemap-2.xml").exists());
    site.write("index.html", page("Home"));
    site.write("docs/intro/index.html", page("Intro"));
    site.run(&["--check"])
        .expect_code(1)
        .stderr_has(&["sitemap.xml differs: every page in "]);
    site.run(&[])
        .success()
        .stderr_has(&["removed the earlier run's "]);
    let mut left = site.all_files();
    left.retain(|path| !files.contains(path));
    // The other compression's shards go, as a run takes them; its unsplit sitemap stays, as a
    // run leaves it (it may be another tool's).
    assert_eq!(left, [site.path("sitemap.xml.gz")]);
    site.run(&["--check"]).success();
    // Standard output: nothing on it.
    let run = site.run(&["-o", "-"]);
    assert!(run.success().stdout().is_empty());
    // A site without a page at all is still an error.
    Site::empty()
        .run(&[])
        .expect_code(1)
        .stderr_has(&["error: no pages in "]);
}

fn pair(lang: &str, path: &str) -> (String, String) {
    (lang.to_string(), path.to_string())
}

#[test]
fn a_page_whose_head_names_only_the_other_locales_names_itself_too() {
    let site = Site::empty();
    // The alternates of each URL, given the home page's and the Chinese page's heads.
    let run = |home: &str, zh: &str| {
        site.write("index.html", home);
        site.write("zh/index.html", zh);
        site.run(&[]).success();
        alternates(&site)
    };
    // VuePress 2: the other locale in the head, the page's own language in `<html lang>`.
    let got = run(
        "<html lang=en-US><head><link rel=alternate hreflang=zh-cn href=/zh/></head>",
        "<html lang=zh-CN><head><link rel=alternate hreflang=en-us href=/></head>",
    );
    assert_eq!(got[""], [pair("zh-cn", "zh/"), pair("en-US", "")]);
    assert_eq!(got["zh/"], [pair("en-us", ""), pair("zh-CN", "zh/")]);

    // Without `<html lang>` (or one its alternates give another page, a theme's fixed
    // `lang`), the language the other page names it by.
    let got = run(
        "<head><link rel=alternate hreflang=zh-cn href=/zh/></head>",
        "<html lang=en-US><head><link rel=alternate hreflang=en-us href=/></head>",
    );
    assert_eq!(got[""], [pair("zh-cn", "zh/"), pair("en-us", "")]);
    assert_eq!(got["zh/"], [pair("en-us", ""), pair("zh-cn", "zh/")]);
}

#[test]
fn a_language_switcher_on_every_page_is_not_their_alternates() {
    let site = Site::empty();
    // Material for MkDocs' `extra.alternate`: the languages' home pages in every head.
    let switcher = "<html lang=en><head><title>t</title>\
                    <link rel=alternate href=/ hreflang=en>\
                    <link rel=alternate href=/fr/ hreflang=fr></head>";
    for page in [
        "index.html",
        "guide/index.html",
        "about.html",
        "fr/index.html",
        "fr/guide/index.html",
    ] {
        site.write(page, switcher);
    }
    // A page's own alternates, which happen to be in every head of their cluster.
    let news = "<link rel=alternate hreflang=en href=/news/>\
                <link rel=alternate hreflang=fr href=/fr/news/>";
    site.write("news/index.html", news);
    site.write("fr/news/index.html", news);
    let run = site.run(&[]);
    run.success().stderr_has(&[
        "note: 3 pages name the same alternates, each a language's home page (en \
         https://example.com/, fr https://example.com/fr/): a language switcher, not each \
         page's translations; ignored on those pages",
    ]);
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let homes = vec![pair("en", ""), pair("fr", "fr/")];
    let news = vec![pair("en", "news/"), pair("fr", "fr/news/")];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("", homes.clone()),
        ("about.html", vec![]),
        ("fr/", homes),
        ("fr/guide/", vec![]),
        ("fr/news/", news.clone()),
        ("guide/", vec![]),
        ("news/", news),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(alternates(&site), expected);

    // With the locales' folders, the switcher's pages get their translations from them; the
    // switcher's languages do not count as ones the heads name.
    site.run(&["--locale", "en=/", "--locale", "fr=/fr/"])
        .success();
    let got = alternates(&site);
    let guide = [pair("en", "guide/"), pair("fr", "fr/guide/")];
    assert_eq!(got["guide/"], guide);
    assert_eq!(got["fr/guide/"], guide);
    assert_eq!(got["about.html"], []);

    // One page alone naming the homes names its alternates, checked as any others.
    let lone = Site::empty();
    lone.write("index.html", switcher);
    lone.write("fr/index.html", "<title>fr</title>");
    lone.write("guide.html", switcher);
    let run = lone.run(&[]);
    run.success().stderr_has(&[
        "warning: https://example.com/guide.html: its en alternate https://example.com/ does \
         not name it back",
    ]);
    assert!(!run.stderr().contains("note:"), "{}", run.stderr());
}

/// An English site at the root and its French translation under fr/: a page of each
/// language only, a French page left out, one page that names its alternates itself.
fn two_locales() -> Site {
    let site = Site::empty();
    for page in [
        "index.html",
        "guide/index.html",
        "guide/setup.html",
        "only-en.html",
        "fr/index.html",
        "fr/guide/index.html",
        "fr/only-fr.html",
        "fr.html",
    ] {
        site.write(page, format!("<title>{page}</title>"));
    }
    site.write("fr/guide/setup.html", "<meta name=robots content=noindex>");
    // Its French page is elsewhere: the head wins.
    site.write(
        "news.html",
        "<link rel=alternate hreflang=fr href=/fr/nouvelles.html>",
    );
    site.write("fr/news.html", "<title>not its translation</title>");
    site.write(
        "fr/nouvelles.html",
        "<link rel=alternate hreflang=en href=/news.html>",
    );
    site
}

#[test]
fn locale_folders_make_the_pages_at_one_path_alternates() {
    let site = two_locales();
    site.run(&[
        "--locale",
        "en=/",
        "--locale",
        "fr=/fr/",
        "--hreflang-default",
        "en",
    ])
    .success();
    let got = alternates(&site);
    let cluster = |en: &str, fr: &str| vec![pair("en", en), pair("fr", fr), pair("x-default", en)];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("", cluster("", "fr/")),
        ("fr.html", vec![]),
        ("fr/", cluster("", "fr/")),
        ("fr/guide/", cluster("guide/", "fr/guide/")),
        ("fr/news.html", vec![]),
        (
            "fr/nouvelles.html",
            cluster("news.html", "fr/nouvelles.html"),
        ),
        ("fr/only-fr.html", vec![]),
        ("guide/", cluster("guide/", "fr/guide/")),
        // Its French page is left out: no translation to name.
        ("guide/setup.html", vec![]),
        (
            "news.html",
            vec![
                pair("fr", "fr/nouvelles.html"),
                pair("en", "news.html"),
                pair("x-default", "news.html"),
            ],
        ),
        ("only-en.html", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(got, expected);

    // The same from the config file, and without reading the heads (so fr/news.html is
    // news.html's translation, and nouvelles.html no one's).
    let config = site.outside().join("sitemapgen.toml");
    fs::write(&config, "locale = [\"en=/\", \"fr=fr\"]\nno-html = true\n").unwrap();
    let run = site.command(&["--config"]).arg(&config).run();
    run.success();
    let got = alternates(&site);
    assert_eq!(
        got["news.html"],
        [pair("en", "news.html"), pair("fr", "fr/news.html")]
    );
    assert_eq!(got["fr/nouvelles.html"], []);
    // Its French page's noindex is not read either.
    assert_eq!(
        got["guide/setup.html"],
        [
            pair("en", "guide/setup.html"),
            pair("fr", "fr/guide/setup.html")
        ]
    );

    // A site with no translation at all has no alternates, nor their namespace.
    let lone = Site::with_pages(&["index.html", "a.html"]);
    lone.run(&["--locale", "en=/", "--locale", "fr=/fr/"])
        .success();
    let xml = fs::read_to_string(lone.sitemap_path()).unwrap();
    assert!(!xml.contains("xmlns:xhtml"), "{xml}");
}

#[test]
fn locale_folders_under_a_base_url_with_a_path_and_without_a_root_locale() {
    let site = Site::empty();
    for page in [
        "index.html",
        "en/index.html",
        "en/a/index.html",
        "de-ch/index.html",
        "de-ch/a/index.html",
    ] {
        site.write(page, "<title>t</title>");
    }
    let base = "https://example.com/docs/";
    site.run(&[
        "-b",
        base,
        "--no-trailing-slash",
        "--locale",
        "en=/en/",
        "--locale",
        "de-CH=/de-ch",
    ])
    .success();
    let urls = crate::validate::sitemap(&site.sitemap_path(), base);
    let got: BTreeMap<&str, Vec<(String, String)>> = urls
        .iter()
        .map(|url| (url.loc.as_str(), url.alternates.clone()))
        .collect();
    let abs = |lang: &str, path: &str| (lang.to_string(), format!("{base}{path}"));
    assert_eq!(got["https://example.com/docs/"], []);
    assert_eq!(
        got["https://example.com/docs/de-ch/a"],
        [abs("en", "en/a"), abs("de-CH", "de-ch/a")]
    );
    assert_eq!(
        got["https://example.com/docs/en"],
        [abs("en", "en"), abs("de-CH", "de-ch")]
    );
}

#[test]
fn a_locale_that_is_not_lang_and_folder_is_a_usage_error() {
    let site = Site::with_pages(&["index.html"]);
    for (args, message) in [
        (&["--locale", "fr"][..], "--locale \"fr\" is not LANG=PATH"),
        (&["--locale", "f r=/fr/"], "\"f r\" is not a language tag"),
        (&["--locale", "x-default=/"], "is not a language tag"),
        (&["--locale", "fr=/a/../fr/"], "is not a folder of DIR"),
        (&["--locale", "fr=/fr/?x"], "is not a folder of DIR"),
        (
            &["--locale", "fr=/fr/", "--locale", "FR=/fr2/"],
            "--locale names the language \"FR\" twice",
        ),
        (
            &["--locale", "en=/", "--locale", "fr=/"],
            "--locale gives en and fr the same folder /",
        ),
        (
            &["--locale", "en=/", "--format", "txt"],
            "a text sitemap (--format txt) has no alternates: drop --locale",
        ),
    ] {
        site.command(args)
            .arg("-o")
            .arg("-")
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", message]);
    }
}
