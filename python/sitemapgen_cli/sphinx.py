"""The Sphinx extension (``extensions = ["sitemapgen_cli.sphinx"]`` in conf.py).

When an html or dirhtml build has finished without an error, it runs the installed
sitemapgen on the output folder with ``html_baseurl`` as the base URL. Options are the
``sitemapgen_*`` config values; it only maps them to flags: every decision is the binary's.
"""

import os
import string

from sphinx.util import logging

from sitemapgen_cli._run import Failed, escape_glob, flags, run_sitemapgen, state_flags

log = logging.getLogger(__name__)


class _Named:
    """Sphinx's log names no extension: each of sitemapgen's lines begins with its name, as
    in the MkDocs log."""

    def warning(self, message):
        log.warning(f"sitemapgen: {message}")

    def info(self, message):
        log.info(f"sitemapgen: {message}")


BUILDERS = ("html", "dirhtml")
# The config value that turns each flag off, as sitemapgen's messages name it.
OFF = {
    "--state": "sitemapgen_state = False",
    "--state-url": "sitemapgen_state = False",
    "--previous-sitemap": "sitemapgen_previous_sitemap = False",
}


def setup(app):
    # As sphinx-sitemap's sitemap_url_scheme: what comes between html_baseurl and a page's
    # path, {lang} the language and {version} the version, each with a final slash.
    app.add_config_value("sitemapgen_url_scheme", "{link}", "html", str)
    # The state in .cache/sitemapgen/ beside conf.py, its copy published with the site and
    # read back from there where there is none (CI).
    app.add_config_value("sitemapgen_state", True, "html", bool)
    # With no state published yet, keep the dates of the site's sitemap: True for
    # BASE/sitemap.xml (sphinx-sitemap's), or a URL or file.
    app.add_config_value("sitemapgen_previous_sitemap", True, "html", (bool, str))
    app.add_config_value("sitemapgen_images", False, "html", bool)
    # NAME=GLOB, as --group takes them.
    app.add_config_value("sitemapgen_groups", [], "html", list)
    # True: --write-xsl (sitemapgen's own stylesheet); a string: --xsl HREF.
    app.add_config_value("sitemapgen_xsl", False, "html", (bool, str))
    # The environment variable that holds the IndexNow key (--indexnow-key-env).
    app.add_config_value("sitemapgen_indexnow_key_env", "", "html", str)
    # As sphinx-sitemap's sitemap_excludes: globs of files to leave out (--exclude), beside
    # the documents whose file-wide metadata says `:nositemap:`.
    app.add_config_value("sitemapgen_excludes", [], "html", list)
    # --lastmod MODE (mtime, git, page, none, a date) and --lastmod-format (date, datetime).
    app.add_config_value("sitemapgen_lastmod", "", "html", str)
    app.add_config_value("sitemapgen_lastmod_format", "", "html", str)
    # Files of URLs to list besides the pages (--add-urls), relative to conf.py.
    app.add_config_value("sitemapgen_add_urls", [], "html", list)
    # More flags, passed as they are.
    app.add_config_value("sitemapgen_args", [], "html", list)
    # Fail the build where this platform has no binary (by default: a warning, no sitemap).
    app.add_config_value("sitemapgen_require_binary", False, "html", bool)
    # As sphinx-sitemap's sitemap_locales: the languages of the site besides `language`,
    # each built into its own folder (--locale); [None] for none; empty: the folders of
    # locale_dirs.
    app.add_config_value("sitemapgen_locales", [], "html", list)
    app.connect("build-finished", build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def base_url(config):
    """html_baseurl with the layout of sitemapgen_url_scheme."""
    if not config.html_baseurl:
        raise Failed(
            "sitemapgen: error: html_baseurl is not set in conf.py, and the sitemap needs "
            "the site's public URL\nhint: add `html_baseurl = \"https://example.com/\"` to "
            "conf.py"
        )
    lang = f"{config.language}/" if config.language else ""
    version = f"{config.version}/" if config.version else ""
    prefix = url_scheme(config.sitemapgen_url_scheme, lang=lang, version=version, link="")
    return config.html_baseurl.rstrip("/") + "/" + prefix


def url_scheme(scheme, **values):
    """SCHEME with its plain fields ({lang}, {version}, {link}) replaced by VALUES.

    Not str.format, which would follow an attribute or an index in a field
    ("{lang.__class__}"): a field that is not one of them plainly is refused.
    """
    try:
        parts = list(string.Formatter().parse(scheme))
    except ValueError as error:
        raise Failed(f"sitemapgen: error: sitemapgen_url_scheme {scheme!r}: {error}") from None
    out = []
    for literal, field, spec, conversion in parts:
        out.append(literal)
        if field is None:
            continue
        if field not in values or spec or conversion:
            raise Failed(
                f"sitemapgen: error: sitemapgen_url_scheme {scheme!r} holds a field other "
                "than {lang}, {version} and {link}, the only ones it takes"
            )
        out.append(values[field])
    return "".join(out)


def build_finished(app, exception):
    if exception is not None or app.builder.name not in BUILDERS:
        return
    try:
        sitemap(app)
    except Failed as failed:
        # An error in the log and exit status 1, as Sphinx fails a build for its own errors.
        log.error(str(failed))
        app.statuscode = 1
        # Sphinx counts each error it logs among the warnings of its closing line ("build
        # finished with problems, 1 warning"): this one is the build's error, not a warning,
        # and the line then says "build finished with problems".
        if getattr(app, "_warncount", 0) > 0:
            app._warncount -= 1


def sitemap(app):
    config = app.config
    base = base_url(config)
    outdir = str(app.outdir)
    site = locale_site(app, base)
    # The folder of this build's pages in the site's (`fr/` in a site of every language).
    own = site["folders"][site["own"]] if site else ""
    if site:
        base, outdir = site["base"], site["dir"]
    args = ["--base-url", base]
    for lang, folder in site["folders"].items() if site else ():
        args += ["--locale", f"{lang.replace('_', '-')}=/{folder}"]
    if config.sitemapgen_state:
        env = app.env
        # Each document's source and its page, to date a page new to the state by its
        # source's last commit.
        sources = [
            (str(env.doc2path(docname)), own + page)
            for docname, page in pages(app)
        ]
        args += state_flags(
            root=str(app.confdir),
            out_dir=outdir,
            base=base,
            previous_sitemap=config.sitemapgen_previous_sitemap,
            sources=sources,
        )
    # The same documents in every language: each glob under every language's folder.
    folders = list(site["folders"].values()) if site else [""]
    excludes = dict.fromkeys(
        under(folder, glob)
        for glob in [*config.sitemapgen_excludes, *unlisted(app)]
        for folder in folders
    )
    args += flags(
        exclude=list(excludes),
        lastmod=config.sitemapgen_lastmod,
        lastmod_format=config.sitemapgen_lastmod_format,
        add_urls=[os.path.join(app.confdir, path) for path in config.sitemapgen_add_urls],
        images=config.sitemapgen_images,
        groups=config.sitemapgen_groups,
        xsl=config.sitemapgen_xsl,
        indexnow_key_env=config.sitemapgen_indexnow_key_env,
        extra=config.sitemapgen_args,
    )
    run_sitemapgen(args + [outdir], _Named(), OFF, require_binary=config.sitemapgen_require_binary)


def under(folder, glob):
    """GLOB (relative to a build's output) for the build in FOLDER of the site's: a glob
    with a `/` is anchored at the output, one without matches a name at any depth."""
    if not folder or "/" not in glob:
        return glob
    return escape_glob(folder) + glob.lstrip("/")


def locales(app):
    """The site's languages: sitemapgen_locales (as sphinx-sitemap's sitemap_locales: [None]
    for none; empty: the folders of locale_dirs) and ``language``; and whether they were
    named in conf.py."""
    config = app.config
    named = config.sitemapgen_locales
    if named == [None]:
        return [], True
    found = list(named)
    if not named:
        for folder in config.locale_dirs:
            folder = os.path.join(app.confdir, folder)
            if os.path.isdir(folder):
                found += sorted(
                    name
                    for name in os.listdir(folder)
                    if os.path.isdir(os.path.join(folder, name))
                )
    langs = []
    for lang in [*found, config.language]:
        if lang and lang not in langs:
            langs.append(lang)
    return langs, bool(named)


def locale_site(app, base):
    """The site of every language, when it has several: each language built into its folder
    (``language`` and what follows it in this build's URL, ``fr/`` or ``fr/1.0/``) of one
    output, at its URL under one base. Its base URL, folder, each language's folder, and
    this build's language; None for a site of one language, or a layout that is not this one
    when the languages were found in locale_dirs (each language a site of its own)."""
    langs, named = locales(app)
    if len(langs) < 2:
        return None
    language = app.config.language
    segments = base.split("/")
    tail = None
    if language in segments[3:]:
        at = len(segments) - 1 - segments[::-1].index(language)
        tail = "/".join(segments[at + 1 :])
        root = "/".join(segments[:at]) + "/"
    outdir = os.path.normpath(str(app.outdir))
    own = os.path.join(language, tail) if tail is not None else None
    if own is None or not (outdir + os.sep).endswith(os.sep + os.path.normpath(own) + os.sep):
        if not named:
            return None
        raise Failed(
            f"sitemapgen: error: sitemapgen_locales names {', '.join(langs)}, but this build's "
            f"URL ({base}) and output folder ({outdir}) do not end with the folder of its "
            f"language {language!r}\nhint: build each language into its folder of one output "
            f"at its URL: sphinx-build -D language={language} -D html_baseurl=https://"
            f"example.com/{language}/ SOURCE OUT/{language}"
        )
    top = outdir[: len(outdir) - len(os.path.normpath(own))].rstrip(os.sep) or os.sep
    folders = {lang: f"{lang}/{tail}" for lang in langs}
    return {"base": root, "dir": top, "folders": folders, "own": language}


def unlisted(app):
    """Globs of the pages of the documents whose file-wide metadata says ``:nositemap:``."""
    return [
        escape_glob(page)
        for docname, page in pages(app)
        if "nositemap" in app.env.metadata.get(docname, {})
    ]


def pages(app):
    """Each document and its page, relative to the build's output, `/`-separated."""
    return [
        (
            docname,
            os.path.relpath(app.builder.get_outfilename(docname), str(app.outdir)).replace(
                os.sep, "/"
            ),
        )
        for docname in sorted(app.env.found_docs)
    ]
