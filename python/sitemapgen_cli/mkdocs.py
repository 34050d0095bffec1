"""The MkDocs plugin ``sitemapgen`` (``plugins: [sitemapgen]`` in mkdocs.yml).

After ``mkdocs build`` it runs the installed sitemapgen on ``site_dir`` with ``site_url`` as
the base URL, in place of the sitemap.xml MkDocs wrote, and writes sitemap.xml.gz as gzip
of ours (MkDocs served that URL too). It only maps the config to flags: every decision is
the binary's. ``mkdocs serve`` builds a preview on localhost, which gets no sitemap.
"""

import os

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger

from sitemapgen_cli._run import Failed, escape_glob, flags, gzip_copy, run_sitemapgen, state_flags

log = get_plugin_logger("sitemapgen")

# The option that turns each flag off, as sitemapgen's messages name it.
OFF = {
    "--state": "state: false",
    "--state-url": "state: false",
    "--previous-sitemap": "previous_sitemap: false",
}


class SitemapgenConfig(Config):
    # The state in .cache/sitemapgen/, its copy published with the site and read back from
    # there where there is none (CI).
    state = c.Type(bool, default=True)
    # With no state published yet, keep the dates of the site's sitemap: true for
    # SITE_URL/sitemap.xml (MkDocs's own), or a URL or file.
    previous_sitemap = c.Type((bool, str), default=True)
    images = c.Type(bool, default=False)
    # NAME=GLOB, as --group takes them.
    groups = c.ListOfItems(c.Type(str), default=[])
    # true: --write-xsl (sitemapgen's own stylesheet); a string: --xsl HREF.
    xsl = c.Type((bool, str), default=False)
    # The environment variable that holds the IndexNow key (--indexnow-key-env).
    indexnow_key_env = c.Optional(c.Type(str))
    # Globs of files to leave out (--exclude), beside the pages whose meta says so.
    exclude = c.ListOfItems(c.Type(str), default=[])
    # --lastmod MODE (mtime, git, page, none, a date) and --lastmod-format (date, datetime).
    lastmod = c.Optional(c.Type(str))
    lastmod_format = c.Optional(c.Choice(("date", "datetime")))
    # Files of URLs to list besides the pages (--add-urls), relative to mkdocs.yml.
    add_urls = c.ListOfItems(c.Type(str), default=[])
    # More flags, passed as they are.
    args = c.ListOfItems(c.Type(str), default=[])
    # Fail the build where this platform has no binary (by default: a warning, no sitemap).
    require_binary = c.Type(bool, default=False)


# What makes sitemap.xml an index, or leaves none: Material reads it as a list of pages.
NOT_A_LIST = ("--group", "--index-add", "--gzip", "--max-urls", "-o", "--output", "--format")


def left_out(meta):
    """Whether a page's meta asks it out of the sitemap: `sitemap: false`, or a `robots`
    with noindex (as `<meta name="robots">` says it)."""
    if meta.get("sitemap") is False:
        return True
    robots = meta.get("robots")
    if isinstance(robots, str):
        words = robots.replace(",", " ").lower().split()
        return "noindex" in words or "none" in words
    return False


def material_conflict(config, options):
    """Why these options break Material for MkDocs, or None."""
    if config.theme.name != "material":
        return None
    given = [f"groups: {options.groups}"] if options.groups else []
    given += [
        arg
        for arg in options.args
        if arg.split("=", 1)[0] in NOT_A_LIST
    ]
    if not given:
        return None
    return (
        f"sitemapgen: error: {given[0]} would make sitemap.xml a sitemap index (or write "
        "none), and Material for MkDocs reads sitemap.xml as a list of pages: its instant "
        "navigation and its version and language selectors stop working without a word\n"
        "hint: drop it (MkDocs sites stay far below the 50,000 URLs of one sitemap)"
    )


class SitemapgenPlugin(BasePlugin[SitemapgenConfig]):
    """Runs sitemapgen once an `mkdocs` command has built the whole site, at its shutdown:
    a plugin such as mkdocs-static-i18n builds each language as a build of its own inside
    the first (every plugin's hooks, `on_config` and `on_post_build` among them, run again
    for each), and a run after the first language's would see half the site. What each
    build says of its pages (which are left out, which source each comes from) is gathered
    over all of them."""

    def __init__(self):
        self.command = None
        self.built = None
        self.failed = False
        self.sources = {}
        self.excluded = set()

    def on_startup(self, *, command, dirty):
        self.command = command

    def on_config(self, config):
        problem = material_conflict(config, self.config)
        if problem:
            raise PluginError(problem)

    def on_page_markdown(self, markdown, *, page, config, files):
        # Each page as the build writes it (after mkdocs-static-i18n moved `a.fr.md` to
        # `fr/a/index.html`), from the source it was built from (a fallback page, from the
        # default language's), to date a page new to the state by its last commit.
        page_file = page.file.dest_path.replace(os.sep, "/")
        if page.file.abs_src_path:
            self.sources[page_file] = page.file.abs_src_path
        if left_out(page.meta):
            self.excluded.add(page.file.dest_uri)

    def on_post_build(self, *, config):
        self.built = config

    def on_build_error(self, *, error):
        self.failed = True

    def on_shutdown(self):
        if self.command == "serve":
            log.info("mkdocs serve: no sitemap for a preview (mkdocs build writes it)")
            return
        if self.built is None or self.failed:
            return
        sitemap(self.built, self.config, self.sources, self.excluded)


def sitemap(config, options, sources, excluded):
    """Runs sitemapgen on the site CONFIG built, in place of MkDocs's own sitemap."""
    site_url = config.site_url
    if not site_url:
        raise PluginError(
            "sitemapgen: error: site_url is not set in mkdocs.yml, and the sitemap needs "
            "the site's public URL\nhint: add `site_url: https://example.com/` to "
            "mkdocs.yml"
        )
    site_dir = config.site_dir
    # use_directory_urls needs no flag either way: `a/index.html` stands for `a/`, and the
    # themes declare each page's URL as its canonical one, which sitemapgen lists.
    args = ["--base-url", site_url]
    if options.state:
        args += state_flags(
            root=os.path.dirname(config.config_file_path),
            out_dir=site_dir,
            base=site_url,
            previous_sitemap=options.previous_sitemap,
            sources=[(source, page) for page, source in sorted(sources.items())],
        )
    config_dir = os.path.dirname(config.config_file_path or "")
    args += flags(
        exclude=[*options.exclude, *map(escape_glob, sorted(excluded))],
        lastmod=options.lastmod,
        lastmod_format=options.lastmod_format,
        add_urls=[os.path.join(config_dir, path) for path in options.add_urls],
        images=options.images,
        groups=options.groups,
        xsl=options.xsl,
        indexnow_key_env=options.indexnow_key_env,
        extra=options.args,
    )
    # MkDocs's own sitemap, written by this build: sitemapgen's takes its place, and its
    # gzip copy is made of ours (whoever submitted that URL keeps it).
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        path = os.path.join(site_dir, name)
        if os.path.isfile(path):
            os.remove(path)
    try:
        warnings = run_sitemapgen(
            args + [site_dir], log, OFF, require_binary=options.require_binary
        )
    except Failed as failed:
        raise PluginError(str(failed)) from None
    # The build's own count of warnings has closed by now: --strict fails here, as MkDocs
    # fails it for a warning of its own.
    if config.strict and warnings:
        raise PluginError(
            f"sitemapgen: error: aborted with {warnings} warnings in strict mode"
        )
    gzip_copy(os.path.join(site_dir, "sitemap.xml"))
