//! `--images`: each page's images as `<image:image>` entries, on the real generators' output
//! (exact image sets per page) and on trees made at run time for the awkward cases. Every
//! sitemap is validated, against Google's image schema as well when it lists images.

use std::collections::BTreeMap;
use std::fs;

use crate::harness::{BASE, Site, fixture_dir, windows_binary};
use crate::validate::{self, UrlRecord};

/// loc → its images, for every URL of a validated sitemap.
fn images_by_url(urls: &[UrlRecord]) -> BTreeMap<String, Vec<String>> {
    urls.iter()
        .map(|url| (url.loc.clone(), url.images.clone()))
        .collect()
}

/// Runs sitemapgen with `args` on a copy of `fixtures/real/NAME`; its validated URLs.
#[track_caller]
fn real(fixture: &str, args: &[&str]) -> Vec<UrlRecord> {
    let site = Site::fixture(&format!("real/{fixture}"));
    let out = site.outside().join("sitemap.xml");
    let run = site.command(&["-o"]).arg(&out).args(args).run();
    run.success();
    assert!(
        !run.stderr().contains("warning"),
        "{fixture}: {}",
        run.stderr()
    );
    validate::sitemap(&out, BASE)
}

fn strings(urls: &[&str]) -> Vec<String> {
    urls.iter().map(|url| url.to_string()).collect()
}

/// `expected` as a map, each path under BASE; URLs it does not name have no images.
fn expected_map(urls: &[UrlRecord], expected: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = urls
        .iter()
        .map(|url| (url.loc.clone(), Vec::new()))
        .collect();
    for (path, images) in expected {
        let loc = format!("{BASE}{path}");
        assert!(map.contains_key(&loc), "{loc} is not listed");
        map.insert(loc, strings(images));
    }
    map
}

#[test]
fn hugo_images_in_main_and_its_og_images() {
    // Hugo's docs theme: the logo and the gopher sit outside <main role="main">, the sidebar
    // menu inside it is a <nav role="navigation">; the showcase tiles are lazy-loaded
    // backgrounds (data-srcset on <a>), no images. The release notes' GIF is on another host.
    let urls = real("hugo", &["--images"]);
    let card = |n: &str| {
        format!(
            "{BASE}opengraph/gohugoio-card-base-1_huf001e7df4fd9c00c4355abac7d4ca455_242906_filter_{n}.png"
        )
    };
    let (blog, urls_card, news, relnotes) = (
        card("18129282545400418243"),
        card("8453457148814798693"),
        card("6364910414317671742"),
        card("6907276014212460205"),
    );
    let birthday = |name: &str| format!("{BASE}news/lets-celebrate-hugos-5th-birthday/{name}");
    let home: Vec<String> = [
        "featured.png",
        "images/icon-fast.svg",
        "images/icon-content-management.svg",
        "images/icon-shortcodes.svg",
        "images/icon-built-in-templates.svg",
        "images/icon-multilingual2.svg",
        "images/icon-custom-outputs.svg",
        "images/homepage-screenshot-hugo-themes.jpg",
        "images/home-page-templating-example.png",
        "images/gopher-hero.svg",
        "images/GitHub-Mark-64px.png",
    ]
    .iter()
    .map(|path| format!("{BASE}{path}"))
    .collect();
    let post: Vec<String> = [
        "featured.png",
        "featured_hu30cb938a182ebd06b50ed15d006d8f64_179291_480x0_resize_catmullrom_3.png",
        "sunset-get_hud0ada96a3532fb27dcd0de96bcce0679_358844_600x300_fill_catmullrom_smart1_3.png",
        "graph-stars_hu169ba15a8bcaf4ddd6a5a1aa8505c448_15599_600x400_fit_catmullrom_3.png",
        "graph-themes_hu25707bee0ec3007199f71bb29226f30c_16956_600x400_fit_catmullrom_3.png",
    ]
    .iter()
    .map(|name| birthday(name))
    .collect();
    let expected: BTreeMap<String, Vec<String>> = [
        ("", home),
        ("categories/blog/", vec![blog]),
        ("content-management/urls/", vec![urls_card]),
        ("news/", vec![news.clone()]),
        ("news/page/2/", vec![news]),
        ("news/0.25-relnotes/", vec![relnotes.clone()]),
        ("news/lets-celebrate-hugos-5th-birthday/", post),
        ("npmjs/", vec![]),
    ]
    .into_iter()
    .map(|(path, images)| (format!("{BASE}{path}"), images))
    .collect();
    assert_eq!(images_by_url(&urls), expected);
    // Allowed, the other host's GIF follows the page's card.
    let urls = real(
        "hugo",
        &["--images", "--image-host", "cdn-standard5.discourse.org"],
    );
    let relnotes_page = urls
        .iter()
        .find(|url| url.loc == format!("{BASE}news/0.25-relnotes/"))
        .unwrap();
    assert_eq!(
        relnotes_page.images,
        [
            relnotes.clone(),
            "https://cdn-standard5.discourse.org/uploads/gohugo/optimized/2X/6/622088d4a8eacaf62bbbaa27dab19d789e10fe09_1_690x345.gif".into()
        ]
    );
}

#[test]
fn hugo_responsive_images_from_its_render_hook() {
    // Hugo's image processing through a render hook: a <picture> whose <source> and <img>
    // have width-descriptor srcsets; the largest of each, and the <img>'s src, are listed.
    // The other host's badge, the data: URI, the 1x1 pixel and the header's logo are not.
    let urls = real("hugo-images", &["--images"]);
    let mut listed: Vec<&str> = urls.iter().map(|url| url.loc.as_str()).collect();
    listed.sort();
    let theirs =
        validate::parse_urls(&fs::read(fixture_dir("real/hugo-images/sitemap.xml")).unwrap());
    let mut theirs: Vec<&str> = theirs.iter().map(|url| url.loc.as_str()).collect();
    theirs.sort();
    assert_eq!(listed, theirs, "the URLs Hugo lists");
    let sunset = |name: &str| {
        format!("{BASE}posts/sunset/sunset_hu7ece81d1cb2be16fba796ad947ee2333_21533_{name}")
    };
    let expected: BTreeMap<String, Vec<String>> = [
        ("", vec![]),
        (
            "posts/",
            vec![format!(
                "{BASE}posts/sunset/featured_hu4386069c72bcff18413921d5ebc58369_3438_320x0_resize_q75_h2_box_3.webp"
            )],
        ),
        (
            "posts/sunset/",
            vec![
                format!("{BASE}posts/sunset/featured.png"),
                sunset("960x0_resize_q75_h2_box_3.webp"),
                sunset("480x0_resize_box_3.png"),
                sunset("960x0_resize_box_3.png"),
            ],
        ),
    ]
    .into_iter()
    .map(|(path, images)| (format!("{BASE}{path}"), images))
    .collect();
    assert_eq!(images_by_url(&urls), expected);
    // Every image listed is a file Hugo wrote.
    for image in expected.values().flatten() {
        let path = fixture_dir("real/hugo-images").join(image.strip_prefix(BASE).unwrap());
        assert!(path.is_file(), "{image}: no {}", path.display());
    }
}

#[test]
fn mkdocs_material_images_outside_its_navigation() {
    // Material's navigation (with the sponsor's logo) sits inside <main>, in <nav>s: left
    // out. The home page's light and dark logos are one image each (the #only-light
    // fragment is Material's, not the image's); its badges are on other hosts.
    let urls = real("mkdocs-material", &["--images", "--exclude", "overrides/"]);
    let logos: &[&str] = &[
        "https://example.com/img/starlette.svg",
        "https://example.com/img/starlette_dark.svg",
    ];
    let expected = [("", logos), ("fr/", logos)];
    assert_eq!(images_by_url(&urls), expected_map(&urls, &expected));
}

#[test]
fn docusaurus_images_per_locale_and_other_hosts_when_allowed() {
    // Every page names the social card as its og:image, under its locale's base URL; the
    // navbar logo is in a <nav>; the blog authors' avatars are on github.com.
    let card = |locale: &str| format!("{BASE}{locale}img/docusaurus-social-card.jpg");
    let banner = |locale: &str| {
        format!(
            "{BASE}{locale}assets/images/docusaurus-plushie-banner-a60f7593abca1e3eef26a9afa244e4fb.jpeg"
        )
    };
    let dropdown = |locale: &str| {
        format!("{BASE}{locale}assets/images/localeDropdown-f0d995e751e7656a1b0dbbc1134e49c2.png")
    };
    // With github.com allowed: the avatars of each page's authors, in the page's order.
    let expected = |github: bool| {
        let avatars = |names: &[&str]| -> Vec<String> {
            match github {
                true => names
                    .iter()
                    .map(|name| format!("https://github.com/{name}.png"))
                    .collect(),
                false => Vec::new(),
            }
        };
        let mut map = BTreeMap::new();
        for locale in ["", "fr/"] {
            for page in [
                "",
                "blog",
                "blog/archive",
                "blog/authors",
                "blog/mdx-blog-post",
                "blog/tags",
                "blog/welcome",
                "docs/category/tutorial---basics",
                "docs/category/tutorial---extras",
                "docs/intro",
                "docs/tutorial-extras/translate-your-site",
                "markdown-page",
            ] {
                let mut images = vec![card(locale)];
                match page {
                    "blog" => images.extend(avatars(&["slorber", "yangshun"])),
                    "blog/authors" => images.extend(avatars(&["yangshun", "slorber"])),
                    "blog/mdx-blog-post" => images.extend(avatars(&["slorber"])),
                    "blog/welcome" => {
                        images.extend(avatars(&["slorber", "yangshun"]));
                        images.push(banner(locale));
                    }
                    "docs/tutorial-extras/translate-your-site" => images.push(dropdown(locale)),
                    _ => {}
                }
                map.insert(format!("{BASE}{locale}{page}"), images);
            }
        }
        map
    };
    let urls = real("docusaurus", &["--images"]);
    assert_eq!(images_by_url(&urls), expected(false));
    let urls = real("docusaurus", &["--images", "--image-host", "github.com"]);
    assert_eq!(images_by_url(&urls), expected(true));
}

#[test]
fn sphinx_jekyll_and_rustdoc_images() {
    // Sphinx: the body role="main"; the sidebar's logo is in role="navigation", the
    // contributors' badges are on shields.io.
    let urls = real("sphinx-html", &["--images"]);
    let map = images_by_url(&urls);
    assert_eq!(
        map[&format!("{BASE}index.html")],
        ["https://example.com/_images/click-name.svg"]
    );
    assert_eq!(map.values().filter(|images| !images.is_empty()).count(), 1);
    // Jekyll (Leaflet's site): no main region, so the body less its navigation; relative
    // sources resolve against each page's own URL, the og:image too.
    let urls = real("jekyll", &["--images"]);
    let map = images_by_url(&urls);
    assert_eq!(
        map[&format!("{BASE}examples/custom-icons/")],
        strings(&[
            "https://example.com/docs/images/logo.png",
            "https://example.com/examples/custom-icons/leaf-green.png",
            "https://example.com/examples/custom-icons/leaf-red.png",
            "https://example.com/examples/custom-icons/leaf-orange.png",
            "https://example.com/examples/custom-icons/leaf-shadow.png",
        ])
    );
    assert_eq!(
        map[BASE],
        ["https://example.com/docs/images/logo.png"],
        "the og:image and the logo are one image"
    );
    // rustdoc puts its logo and the copy button's icon inside <main>; naming the content's
    // own region leaves the logo out.
    let page = format!("{BASE}std/");
    let urls = real("rustdoc", &["--images", "--exclude", "not_found.html"]);
    assert_eq!(
        images_by_url(&urls)[&page],
        [
            "https://example.com/rust-logo1.63.0.svg",
            "https://example.com/clipboard1.63.0.svg"
        ]
    );
    let urls = real(
        "rustdoc",
        &[
            "--images",
            "--exclude",
            "not_found.html",
            "--digest-region",
            "#main-content",
        ],
    );
    assert_eq!(
        images_by_url(&urls)[&page],
        ["https://example.com/clipboard1.63.0.svg"]
    );
}

#[test]
fn images_are_the_same_bytes_with_one_thread_or_sixteen() {
    for fixture in [
        "docusaurus",
        "hugo",
        "jekyll",
        "mkdocs-material",
        "sphinx-html",
    ] {
        let site = Site::fixture(&format!("real/{fixture}"));
        let run = |jobs: &str| {
            let run = site
                .command(&["--images", "--lastmod", "none", "-o", "-", "-j", jobs])
                .run();
            run.success();
            validate::sitemap_bytes(run.stdout(), BASE);
            (run.stdout().to_vec(), run.stderr())
        };
        assert!(run("1") == run("16"), "{fixture}: -j1 and -j16 differ");
    }
}

/// A page whose main region is `main`, with `head` in its head.
fn page(head: &str, main: &str) -> String {
    format!(
        "<!doctype html><html><head><title>t</title>{head}</head><body>\
         <header><img src=/logo.png></header><main>{main}</main></body></html>"
    )
}

#[test]
fn the_awkward_cases_on_a_tree_made_at_run_time() {
    let site = Site::empty();
    let pixel = "<img src=/pixel.gif width=1 height=1><img src=/zero.gif width=0 height=0>";
    let data = "<img src='data:image/png;base64,iVBORw0KGgo='>";
    let srcset = "<img src=small.jpg srcset='small.jpg 480w, large.jpg 1200w, medium.jpg 800w'>\
                  <picture><source srcset='b.avif 1x, b2.avif 2x' type=image/avif>\
                  <img src=b.jpg></picture>";
    site.write(
        "a/index.html",
        page(
            "<meta property=og:image content=/social.png>",
            &format!("{pixel}{data}{srcset}<img src=../drafts/d.png><img src=/a/x.tmp.png>"),
        ),
    );
    site.write(
        "b.html",
        page(
            "<base href=/media/>",
            "<img src=one.png><img src=https://cdn.example.net/two.png>\
             <img src=//static.example.org/three.png><img src=one.png>",
        ),
    );
    site.write("drafts/page.html", page("", "<img src=d.png>"));
    site.write("plain.html", page("", "<p>no image</p>"));
    // A folder named in Latin-1; a Windows name is Unicode.
    let (folder, folder_url): (&[u8], _) = if windows_binary() {
        ("caf\u{e9}".as_bytes(), "caf%C3%A9")
    } else {
        (b"caf\xe9", "caf%E9")
    };
    site.write(
        [folder, b"/index.html"].concat(),
        page("", "<img src=p%20q.png><img src='r s.png'>"),
    );
    let out = site.outside().join("sitemap.xml");
    let run = site
        .command(&[
            "--images",
            "--exclude",
            "drafts/",
            "--exclude",
            "*.tmp.png",
            "-o",
        ])
        .arg(&out)
        .run();
    run.success();
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let urls = validate::sitemap(&out, BASE);
    let mut expected: BTreeMap<String, Vec<String>> = [
        ("b.html", &["https://example.com/media/one.png"][..]),
        (
            "a/",
            &[
                "https://example.com/social.png",
                "https://example.com/a/small.jpg",
                "https://example.com/a/large.jpg",
                "https://example.com/a/b2.avif",
                "https://example.com/a/b.jpg",
            ],
        ),
        ("plain.html", &[]),
    ]
    .iter()
    .map(|(path, images)| (format!("{BASE}{path}"), strings(images)))
    .collect();
    expected.insert(
        format!("{BASE}{folder_url}/"),
        vec![
            format!("{BASE}{folder_url}/p%20q.png"),
            format!("{BASE}{folder_url}/r%20s.png"),
        ],
    );
    assert_eq!(images_by_url(&urls), expected);
    // Other hosts only when named; the namespace declared once, on the root.
    let run = site
        .command(&[
            "--images",
            "--image-host",
            "cdn.example.net",
            "--image-host",
            "STATIC.example.org",
            "-o",
            "-",
        ])
        .run();
    run.success();
    let urls = validate::sitemap_bytes(run.stdout(), BASE);
    assert_eq!(
        images_by_url(&urls)[&format!("{BASE}b.html")],
        [
            "https://example.com/media/one.png",
            "https://cdn.example.net/two.png",
            "https://static.example.org/three.png",
        ]
    );
    let xml = String::from_utf8_lossy(run.stdout());
    assert_eq!(xml.matches("xmlns:image=").count(), 1, "{xml}");
}

#[test]
fn no_image_namespace_without_images() {
    let site = Site::empty();
    site.write("index.html", page("", "<p>text</p>"));
    site.write(
        "a.html",
        page("", "<img src='data:image/gif;base64,R0lGOD=='>"),
    );
    let run = site.command(&["--images", "-o", "-"]).run();
    run.success();
    validate::sitemap_bytes(run.stdout(), BASE);
    let xml = String::from_utf8_lossy(run.stdout());
    assert!(!xml.contains("image"), "{xml}");
}

#[test]
fn past_a_thousand_images_the_first_thousand_and_one_warning_per_page() {
    let site = Site::empty();
    let many: String = (0..1_200)
        .map(|i| format!("<img src=/i/{i}.png><img src=/i/0.png>"))
        .collect();
    site.write("index.html", page("", &many));
    site.write("b.html", page("", &many));
    let some: String = (0..600).map(|i| format!("<img src=/i/{i}.png>")).collect();
    site.write("c.html", page("", &some));
    let out = site.outside().join("sitemap.xml");
    let run = site.command(&["--images", "-o"]).arg(&out).run();
    run.success();
    let stderr = run.stderr();
    assert_eq!(
        stderr.matches("more than 1,000 images").count(),
        2,
        "{stderr}"
    );
    run.stderr_has(&[
        "sitemapgen: warning: b.html: more than 1,000 images (its og:image and its main \
         region's); listing the first 1,000 (the most a URL may list)",
        "sitemapgen: warning: index.html: more than 1,000 images",
    ]);
    let urls = validate::sitemap(&out, BASE);
    let map = images_by_url(&urls);
    let first: Vec<String> = (0..1_000)
        .map(|i| format!("https://example.com/i/{i}.png"))
        .collect();
    assert_eq!(map[BASE], first);
    assert_eq!(map[&format!("{BASE}b.html")], first);
    assert_eq!(map[&format!("{BASE}c.html")].len(), 600);
    // Under --strict the cut is an error, and nothing is written.
    fs::remove_file(&out).unwrap();
    site.command(&["--images", "--strict", "-o"])
        .arg(&out)
        .run()
        .expect_code(1)
        .stderr_has(&[
            "index.html: more than 1,000 images (its og:image and its main region's) (--strict)",
        ]);
    assert!(!out.exists());
}

#[test]
fn shards_each_declare_the_namespace_and_check_compares_images() {
    let site = Site::empty();
    for name in ["a", "b", "c"] {
        site.write(
            format!("{name}.html"),
            page("", &format!("<img src=/{name}.png>")),
        );
    }
    site.write("d.html", page("", "<p>none</p>"));
    let args = ["--images", "--max-urls", "2", "--lastmod", "none"];
    site.run(&args).success();
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(index.len(), 2);
    for shard in ["sitemap-1.xml", "sitemap-2.xml"] {
        let path = site.path(shard);
        let urls = validate::sitemap(&path, BASE);
        assert!(!urls.is_empty());
        let xml = fs::read_to_string(&path).unwrap();
        assert!(xml.contains("xmlns:image="), "{shard}: {xml}");
    }
    let mut check = args.to_vec();
    check.push("--check");
    site.run(&check).success();
    // Another image, the same URLs and dates: out of date, and the summary says what kind
    // of change it is.
    site.write("c.html", page("", "<img src=/other.png>"));
    site.run(&check).expect_code(1).stderr_has(&[
        "is out of date: the same URLs and dates, other changes (changefreq, priority, \
         alternates, images,",
    ]);
    // Without --images, the images are the difference.
    site.run(&args).success();
    site.run(&["--max-urls", "2", "--lastmod", "none", "--check"])
        .expect_code(1)
        .stderr_has(&["the same URLs and dates"]);
}

#[test]
fn images_and_alternates_in_one_sitemap_validate_together() {
    let site = Site::empty();
    let alternates =
        "<link rel=alternate hreflang=en href=/><link rel=alternate hreflang=de href=/de/>";
    site.write("index.html", page(alternates, "<img src=en.png>"));
    site.write("de/index.html", page(alternates, "<img src=de.png>"));
    let run = site.command(&["--images", "-o", "-"]).run();
    run.success();
    let urls = validate::sitemap_bytes(run.stdout(), BASE);
    assert_eq!(urls[0].alternates.len(), 2);
    assert_eq!(urls[0].images, ["https://example.com/en.png"]);
    assert_eq!(urls[1].images, ["https://example.com/de/de.png"]);
}

#[test]
fn usage_errors() {
    let site = Site::empty();
    site.write("index.html", page("", "<img src=a.png>"));
    for (args, message) in [
        (
            &["--images", "--no-html"][..],
            "sitemapgen: error: --images reads the pages, and --no-html reads none: drop one",
        ),
        (
            &["--images", "--format", "txt"],
            "sitemapgen: error: a text sitemap (--format txt) cannot list images",
        ),
        (
            &["--image-host", "cdn.example.net"],
            "sitemapgen: error: --image-host needs --images",
        ),
        (
            &["--images", "--image-host", "https://cdn.example.net/"],
            "sitemapgen: error: --image-host \"https://cdn.example.net/\" is not a host name",
        ),
        (
            &["--digest-region", "article"],
            "sitemapgen: error: --digest-region needs --state or --images",
        ),
    ] {
        site.command(args)
            .arg("-o")
            .arg("-")
            .run()
            .expect_code(2)
            .stderr_has(&[message]);
    }
    // The config file's keys work as the flags do.
    let config = site.outside().join("sitemapgen.toml");
    fs::write(
        &config,
        "images = true\nimage-host = [\"cdn.example.net\"]\n",
    )
    .unwrap();
    let run = site.command(&["-o", "-", "--config"]).arg(&config).run();
    run.success();
    let urls = validate::sitemap_bytes(run.stdout(), BASE);
    assert_eq!(urls[0].images, ["https://example.com/a.png"]);
}
