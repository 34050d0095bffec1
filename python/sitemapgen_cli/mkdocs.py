"""The MkDocs plugin ``sitemapgen`` (``plugins: [sitemapgen]`` in mkdocs.yml).

After ``mkdocs build`` it runs the installed sitemapgen on ``site_dir`` with ``site_url`` as
the base URL, in place of the sitemap.xml and sitemap.xml.gz MkDocs wrote. It
only maps the config to flags: every decision is the binary's. ``mkdocs serve`` builds a
preview on localhost, which gets no sitemap.
"""

import os

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger

from sitemapgen_cli._run import Failed, flags, run_sitemapgen

log = get_plugin_logger("sitemapgen")

STATE = "sitemap.state.gz"


class SitemapgenConfig(Config):
    # The state in the site, read back from the live site: "CI without a cache".
    state = c.Type(bool, default=True)
    images = c.Type(bool, default=False)
    # NAME=GLOB, as --group takes them.
    groups = c.ListOfItems(c.Type(str), default=[])
    # true: --write-xsl (sitemapgen's own stylesheet); a string: --xsl HREF.
    xsl = c.Type((bool, str), default=False)
    # The environment variable that holds the IndexNow key (--indexnow-key-env).
    indexnow_key_env = c.Optional(c.Type(str))
    # More flags, passed as they are.
    args = c.ListOfItems(c.Type(str), default=[])
    # Fail the build where this platform has no binary (by default: a warning, no sitemap).
    require_binary = c.Type(bool, default=False)


class SitemapgenPlugin(BasePlugin[SitemapgenConfig]):
    def __init__(self):
        self.command = None

    def on_startup(self, *, command, dirty):
        self.command = command

    def on_post_build(self, *, config):
        if self.command == "serve":
            log.info("mkdocs serve: no sitemap for a preview (mkdocs build writes it)")
            return
        site_url = config.site_url
        if not site_url:
            raise PluginError(
                "sitemapgen: error: site_url is not set in mkdocs.yml, and the sitemap needs "
                "the site's public URL\nhint: add `site_url: https://example.com/` to "
                "mkdocs.yml"
            )
        site_dir = config.site_dir
        # use_directory_urls needs no flag either way: `a/index.html` stands for `a/`, and
        # the themes declare each page's URL as its canonical one, which sitemapgen lists.
        args = ["--base-url", site_url]
        if self.config.state:
            args += [
                "--state",
                os.path.join(site_dir, STATE),
                "--state-url",
                site_url + STATE,
            ]
        args += flags(
            images=self.config.images,
            groups=self.config.groups,
            xsl=self.config.xsl,
            indexnow_key_env=self.config.indexnow_key_env,
            extra=self.config.args,
        )
        # MkDocs's own sitemap, written by this build: sitemapgen's takes its place, gzip or not.
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            path = os.path.join(site_dir, name)
            if os.path.isfile(path):
                os.remove(path)
        try:
            run_sitemapgen(args + [site_dir], log, require_binary=self.config.require_binary)
        except Failed as failed:
            raise PluginError(str(failed)) from None
