//! The corpus of real generators' output (`fixtures/real/`, see its README for how each site
//! was built): run as a user of each generator would run it, sitemapgen lists exactly the
//! URLs the generator's own sitemap lists, but for the differences named here, where the
//! generator is wrong; it writes the alternates the generator writes; and it says nothing a
//! user of that generator could not act on.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::harness::{Run, Site, fixture_dir};
use crate::validate::{self, UrlRecord};

const BASE: &str = "https://example.com/";

/// The URLs of every sitemap the generator wrote in the site (one per locale for
/// Docusaurus), with their alternates.
fn generator_urls(fixture: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut urls = BTreeMap::new();
    collect_sitemaps(&fixture_dir(&format!("real/{fixture}")), &mut urls);
    assert!(!urls.is_empty(), "{fixture} has no sitemap");
    urls
}

fn collect_sitemaps(dir: &Path, urls: &mut BTreeMap<String, Vec<(String, String)>>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_sitemaps(&path, urls);
        } else if path.file_name().is_some_and(|name| name == "sitemap.xml") {
            // The generators' sitemaps are not all valid (Docusaurus declares namespaces it
            // never uses; nothing else is checked here): read them, do not validate them.
            for mut url in validate::parse_urls(&fs::read(&path).unwrap()) {
                // next-sitemap writes the root as https://example.com: an empty path is `/`
                // (RFC 3986, 6.2.3), the same URL.
                if url.loc.matches('/').count() == 2 {
                    url.loc.push('/');
                }
                urls.insert(url.loc, url.alternates);
            }
        }
    }
}

/// Runs sitemapgen on a copy of the fixture; returns its validated URLs and the run.
fn run_on(fixture: &str, base: &str, args: &[&str]) -> (Vec<UrlRecord>, Run) {
    let site = Site::fixture(&format!("real/{fixture}"));
    let ours = site.outside().join("ours.xml");
    let run = site
        .command(&["-b", base, "-o"])
        .arg(&ours)
        .args(args)
        .run();
    run.success();
    (validate::sitemap(&ours, base), run)
}

/// Asserts that sitemapgen lists the generator's URLs, less `theirs_only` and plus
/// `ours_only` (each a documented difference), and says nothing but its summary.
#[track_caller]
fn assert_generator_urls(fixture: &str, args: &[&str], theirs_only: &[&str], ours_only: &[&str]) {
    let (urls, run) = run_on(fixture, BASE, args);
    let got: BTreeSet<String> = urls.iter().map(|u| u.loc.clone()).collect();
    let mut expected: BTreeSet<String> = generator_urls(fixture).into_keys().collect();
    for url in theirs_only {
        assert!(
            expected.remove(&format!("{BASE}{url}")),
            "{fixture}: {url} not theirs"
        );
    }
    for url in ours_only {
        assert!(
            expected.insert(format!("{BASE}{url}")),
            "{fixture}: {url} theirs too"
        );
    }
    assert_eq!(got, expected, "{fixture}: our URLs vs the generator's");
    let stderr = run.stderr();
    assert!(
        stderr.lines().count() == 1 && stderr.starts_with("wrote "),
        "{fixture}: more than the summary:\n{stderr}"
    );
}

#[test]
fn sphinx_html() {
    // The sphinx-reredirects stubs hide their refresh in a <noscript> in the head; the root's
    // canonical URL is /index.html, which is what the sitemap lists. Sphinx's sitemap lists
    // its 404 page, and its search page, which is noindex.
    assert_generator_urls("sphinx-html", &[], &["404.html", "search.html"], &[]);
}

#[test]
fn sphinx_dirhtml() {
    // The same, with the 404 page built as 404/index.html.
    assert_generator_urls("sphinx-dirhtml", &[], &["404/", "search/"], &[]);
}

/// Zensical, Material's successor, building the same docs from the same `mkdocs.yml`: the
/// same URLs as its sitemap (which gives no dates), with the same exclude as under MkDocs
/// for the templates it copies into the site.
#[test]
fn zensical_on_a_mkdocs_config() {
    assert_generator_urls("zensical", &["--exclude", "overrides/"], &[], &[]);
}

#[test]
fn mkdocs_material_with_i18n_and_redirects() {
    // Starlette's docs keep Jinja templates under docs/ (its custom_dir), which MkDocs copies
    // into the site as .html files: they are no pages, and no head says so.
    let args = ["--exclude", "overrides/"];
    assert_generator_urls("mkdocs-material", &args, &[], &[]);
    // The hreflang alternates are the generator's: the same pairs, made absolute.
    let (urls, _) = run_on("mkdocs-material", BASE, &args);
    let ours: BTreeMap<String, BTreeSet<(String, String)>> = urls
        .into_iter()
        .map(|u| (u.loc, u.alternates.into_iter().collect()))
        .collect();
    let theirs: BTreeMap<String, BTreeSet<(String, String)>> = generator_urls("mkdocs-material")
        .into_iter()
        .map(|(loc, alternates)| (loc, alternates.into_iter().collect()))
        .collect();
    assert_eq!(ours, theirs);
}

#[test]
fn docusaurus_with_two_locales() {
    // Docusaurus declares /docs/intro (no slash) but /fr/ for a locale root: the sitemap
    // lists the forms the pages declare, as Docusaurus's two sitemaps do.
    assert_generator_urls("docusaurus", &[], &[], &[]);
    let (urls, _) = run_on("docusaurus", BASE, &[]);
    let home = urls.iter().find(|u| u.loc == BASE).unwrap();
    assert_eq!(
        home.alternates,
        [
            ("en".to_string(), BASE.to_string()),
            ("fr".to_string(), format!("{BASE}fr/")),
            ("x-default".to_string(), BASE.to_string()),
        ]
    );
    let intro = urls
        .iter()
        .find(|u| u.loc == format!("{BASE}docs/intro"))
        .unwrap();
    assert_eq!(intro.alternates[1].1, format!("{BASE}fr/docs/intro"));
}

#[test]
fn hreflang_default_on_mkdocs_i18n_and_docusaurus() {
    // mkdocs-static-i18n declares no x-default: each page gets its en alternate as one.
    let (urls, run) = run_on(
        "mkdocs-material",
        BASE,
        &["--exclude", "overrides/", "--hreflang-default", "en"],
    );
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let theirs = generator_urls("mkdocs-material");
    for url in &urls {
        let mut expected = theirs[&url.loc].clone();
        if let Some((_, en)) = expected.iter().find(|(lang, _)| lang == "en") {
            let en = en.clone();
            expected.push(("x-default".to_string(), en));
        }
        let mut ours = url.alternates.clone();
        ours.sort();
        expected.sort();
        assert_eq!(ours, expected, "{}", url.loc);
    }
    assert!(urls.iter().any(|u| u.alternates.len() == 3));
    // Docusaurus declares its own (the default locale's page): kept as declared, fr or not.
    let (plain, _) = run_on("docusaurus", BASE, &[]);
    let (urls, run) = run_on("docusaurus", BASE, &["--hreflang-default", "fr"]);
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let alternates = |urls: &[UrlRecord]| -> Vec<_> {
        urls.iter()
            .map(|u| (u.loc.clone(), u.alternates.clone()))
            .collect()
    };
    assert_eq!(alternates(&urls), alternates(&plain));
    let fr = urls.iter().find(|u| u.loc == format!("{BASE}fr/")).unwrap();
    assert!(
        fr.alternates
            .contains(&("x-default".to_string(), BASE.to_string())),
        "{:?}",
        fr.alternates
    );
}

#[test]
fn docusaurus_alternates_match_pages_listed_in_another_form() {
    // Listed at computed URLs without a final slash, the fr root is /fr; its alternates
    // written /fr/ still find it, and are written as it is listed.
    let (urls, run) = run_on(
        "docusaurus",
        BASE,
        &["--computed-urls", "--no-trailing-slash"],
    );
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let home = urls.iter().find(|u| u.loc == BASE).unwrap();
    assert!(
        home.alternates
            .contains(&("fr".to_string(), format!("{BASE}fr"))),
        "{:?}",
        home.alternates
    );
    let fr = urls.iter().find(|u| u.loc == format!("{BASE}fr")).unwrap();
    assert_eq!(fr.alternates.len(), 3, "{:?}", fr.alternates);
}

#[test]
fn hugo_docs_with_aliases() {
    // Hugo leaves pagination pages out of its sitemap, and knows nothing of static HTML
    // files (npmjs/index.html comes from the docs' static/): both are indexable pages.
    assert_generator_urls("hugo", &[], &[], &["news/page/2/", "npmjs/"]);
    let (_, run) = run_on("hugo", BASE, &[]);
    // Its aliases are redirect stubs that are noindex too: the summary calls them redirects.
    run.stderr_has(&[
        "(left out: 8 redirect pages, 1 by the default excludes; 3 files that are not pages)",
    ]);
}

#[test]
fn jekyll_with_redirect_from() {
    // jekyll-redirect-from's stubs have no <head> tag: their metas open the implied head.
    assert_generator_urls("jekyll", &[], &[], &[]);
}

#[test]
fn rustdoc_slice_with_its_robots_txt() {
    // rustdoc writes no sitemap. Its 404 page is not_found.html, which nothing marks.
    let (urls, run) = run_on("rustdoc", BASE, &["--exclude", "not_found.html", "-v"]);
    let listed: BTreeSet<&str> = urls
        .iter()
        .map(|u| u.loc.strip_prefix(BASE).unwrap())
        .collect();
    assert_eq!(listed.len(), 32, "{listed:?}");
    for left_out in [
        "std/macro.eprintln!.html",
        "book/README.html",
        "book/first-edition/",
        "book/first-edition/getting-started.html",
        "not_found.html",
    ] {
        assert!(!listed.contains(left_out), "{left_out} listed");
    }
    run.stderr_has(&[
        "skip std/macro.eprintln!.html: a redirect to https://example.com/std/macro.eprintln.html",
        "skip book/first-edition/index.html: robots.txt disallows its URL",
        "(left out: 11 redirect pages, 3 noindex, 2 disallowed by robots.txt, 1 by --exclude; \
         4 files that are not pages)",
    ]);
    // --strict refuses a sitemap that robots.txt contradicts; --ignore-disallow lists them.
    let site = Site::fixture("real/rustdoc");
    site.command(&["--strict", "--exclude", "not_found.html", "-o", "-"])
        .run()
        .expect_code(1)
        .stderr_has(&["robots.txt disallows https://example.com/book/first-edition/"]);
    let (urls, _) = run_on(
        "rustdoc",
        BASE,
        &["--exclude", "not_found.html", "--ignore-disallow"],
    );
    assert_eq!(urls.len(), 34);
}

#[test]
fn nextjs_static_export() {
    // `output: 'export'` writes about.html for /about: --clean-urls gives next-sitemap's URLs.
    // Its 404.html and _not-found.html are noindex (and 404.html a default exclude).
    assert_generator_urls("nextjs", &["--clean-urls"], &[], &[]);
}

#[test]
fn sveltekit_adapter_static() {
    // SvelteKit writes no sitemap: the URLs are the paths it prerendered (prerendered.txt,
    // written by the build from adapt()'s builder.prerendered.paths). about.html is /about
    // (trailingSlash 'never'); its 404.html is the fallback app shell.
    let (urls, run) = run_on("sveltekit", BASE, &["--clean-urls"]);
    let got: BTreeSet<String> = urls.into_iter().map(|u| u.loc).collect();
    let prerendered =
        fs::read_to_string(fixture_dir("real/sveltekit").join("prerendered.txt")).unwrap();
    let expected: BTreeSet<String> = prerendered
        .lines()
        .map(|path| format!("{BASE}{}", &path[1..]))
        .collect();
    assert_eq!(expected.len(), 12);
    assert_eq!(
        got, expected,
        "sveltekit: our URLs vs the prerendered paths"
    );
    assert_eq!(run.stderr().lines().count(), 1, "{}", run.stderr());
}

#[test]
fn nuxt_generate() {
    // nuxt generate writes about/index.html for /about: --no-trailing-slash gives
    // @nuxtjs/sitemap's URLs. 200.html, the SPA fallback, is an app shell; 404.html a default
    // exclude.
    assert_generator_urls("nuxt", &["--no-trailing-slash"], &[], &[]);
    let (_, run) = run_on("nuxt", BASE, &["--no-trailing-slash"]);
    run.stderr_has(&["(left out: 2 by the default excludes;"]);
}

#[test]
fn hexo_with_generator_sitemap() {
    // hexo-generator-sitemap lists the 404 page, and a page in its index-file form
    // (/about/index.html, where its posts are /2026/11/02/scope/); it leaves the archives
    // out, which are indexable pages.
    assert_generator_urls(
        "hexo",
        &[],
        &["404.html", "about/index.html"],
        &["about/", "archives/", "archives/2026/", "archives/2026/11/"],
    );
}

#[test]
fn vuepress_default_theme_with_two_locales() {
    assert_generator_urls("vuepress", &[], &[], &[]);
    // The theme's SEO plugin declares each page's other locales, not the page itself; its
    // sitemap plugin lists both, and so do we: the page names itself among its alternates
    // (its language from <html lang>).
    let (urls, _) = run_on("vuepress", BASE, &[]);
    let theirs = generator_urls("vuepress");
    let lower = |alternates: &[(String, String)]| -> BTreeSet<(String, String)> {
        alternates
            .iter()
            .map(|(lang, href)| (lang.to_ascii_lowercase(), href.clone()))
            .collect()
    };
    let mut with_alternates = 0;
    for url in &urls {
        assert_eq!(
            lower(&url.alternates),
            lower(&theirs[&url.loc]),
            "{}",
            url.loc
        );
        with_alternates += usize::from(!url.alternates.is_empty());
    }
    assert_eq!(with_alternates, 10);
}

#[test]
fn a_wrong_base_url_is_named_as_such() {
    // Every Sphinx page names its canonical URL under https://example.com/: run with a
    // mirror's base URL, they are left out, none is left, and the run says why.
    let site = Site::fixture("real/sphinx-html");
    let run = site
        .command(&["-b", "https://mirror.example.org/click/", "-o", "-"])
        .run();
    run.expect_code(1).stderr_has(&[
        "warning: index.html: its canonical URL https://example.com/index.html is outside the \
         base URL https://mirror.example.org/click/",
        "warning: and 29 more pages whose canonical URL is outside the base URL",
        "warning: 32 of the 33 pages with a canonical URL name one on another host or outside \
         the base URL https://mirror.example.org/click/, most under https://example.com/: the \
         base URL is probably wrong",
        "hint: -b https://example.com/",
        "error: no pages in ",
    ]);
    assert!(run.stderr().lines().count() < 10, "{}", run.stderr());
    site.command(&[
        "-b",
        "https://mirror.example.org/click/",
        "-o",
        "-",
        "--strict",
    ])
    .run()
    .expect_code(1);
}

#[test]
fn the_same_site_gives_the_same_bytes_and_report_with_one_thread_or_sixteen() {
    // Each real site, read whole for a first --state, with -v: the sitemap, the state and
    // every line said are the same whatever the threads reading the pages.
    for fixture in [
        "docusaurus",
        "hexo",
        "hugo",
        "jekyll",
        "mkdocs-material",
        "nextjs",
        "nuxt",
        "rustdoc",
        "sphinx-dirhtml",
        "sphinx-html",
        "sveltekit",
        "vuepress",
    ] {
        let site = Site::fixture(&format!("real/{fixture}"));
        let run = |jobs: &str| {
            let out = site.outside().join(format!("j{jobs}"));
            fs::create_dir(&out).unwrap();
            let run = site
                .command(&["-v", "--lastmod", "page,mtime", "-j", jobs, "-o"])
                .arg(out.join("sitemap.xml"))
                .arg("--state")
                .arg(out.join("state"))
                .run();
            run.success();
            validate::sitemap(&out.join("sitemap.xml"), BASE);
            let read = |name| fs::read(out.join(name)).unwrap();
            let said = run.stderr().replace(&out.display().to_string(), "OUT");
            (read("sitemap.xml"), read("state"), said)
        };
        let (one, sixteen) = (run("1"), run("16"));
        assert!(one.2.contains("skip "), "{fixture}: -v said nothing");
        assert!(one == sixteen, "{fixture}: -j1 and -j16 differ");
    }
}
