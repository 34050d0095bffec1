// The Astro integration: `integrations: [sitemapgen()]` in astro.config.mjs. After `astro
// build` it runs sitemapgen on the output with `site` and `base` as the base URL; it only
// maps the config to flags: every decision is the binary's.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { flags, joinBase, runSitemapgen, stateFlags, withUrlFile } from "./run.js";

/**
 * Each page's source and its file in DIR: the pages of `src/pages/` and the entries of
 * Starlight's `src/content/docs/` (their ids lowercased), where a page of that name was
 * built (`about/index.html`, or with `build.format: "file"`, `about.html`).
 */
export function astroSources(config, dir) {
  if (!config.srcDir && !config.root) {
    return [];
  }
  const src = fileURLToPath(config.srcDir ?? new URL("src/", config.root));
  const sources = [];
  for (const [folder, extensions, lower] of [
    ["pages", /\.(astro|md|mdx|html)$/, false],
    ["content/docs", /\.(md|mdx|mdoc)$/, true],
  ]) {
    const top = path.join(src, folder);
    if (!fs.existsSync(top)) {
      continue;
    }
    for (const rel of fs.readdirSync(top, { recursive: true })) {
      const file = String(rel).split(path.sep).join("/");
      if (!extensions.test(file) || file.includes("[")) {
        continue;
      }
      let slug = file.replace(extensions, "").replace(/(^|\/)index$/, "");
      slug = lower ? slug.toLowerCase() : slug;
      const page = [slug ? `${slug}/index.html` : "index.html", `${slug}.html`].find(
        (name) => fs.existsSync(path.join(dir, name)),
      );
      if (page) {
        sources.push([path.join(top, rel), page]);
      }
    }
  }
  return sources;
}

/**
 * The flags for an Astro config: `site` + `base` as the base URL; `trailingSlash: "never"`
 * lists `about/index.html` as `/about` (and with `build.format: "file"`, `about.html` too).
 */
export function astroFlags(config, dir, options = {}) {
  if (!config.site) {
    throw new Error(
      "sitemapgen: error: site is not set in astro.config.mjs, and the sitemap needs the " +
        "site's public URL\nhint: add `site: \"https://example.com\"` to astro.config.mjs",
    );
  }
  const base = joinBase(String(config.site), config.base ?? "/", "base in astro.config.mjs");
  const args = ["--base-url", base];
  if (config.trailingSlash === "never") {
    args.push("--no-trailing-slash");
    if (config.build?.format === "file") {
      args.push("--clean-urls");
    }
  }
  for (const [lang, folder] of astroLocales(config.i18n)) {
    args.push("--locale", `${lang}=/${folder}`);
  }
  if (options.state ?? true) {
    args.push(
      ...stateFlags({
        root: config.root ? fileURLToPath(config.root) : process.cwd(),
        dir,
        base,
        previousSitemap: options.previousSitemap,
        sources: astroSources(config, dir),
      }),
    );
  }
  // @astrojs/sitemap's names: `lastmod` a Date (one date for every page) or our mode,
  // `customPages` URLs to list besides the pages, `xslURL` the stylesheet.
  const lastmod =
    options.lastmod instanceof Date
      ? options.lastmod.toISOString().replace(/\.\d+Z$/, "Z")
      : options.lastmod;
  const common = {
    ...options,
    lastmod,
    xsl: options.xsl ?? options.xslURL,
    addUrls: [...(options.addUrls ?? []), ...(options.customPagesFile ? [options.customPagesFile] : [])],
  };
  return args.concat(flags(common), [dir]);
}

/**
 * Astro's `i18n` as [hreflang, folder] pairs: each locale's pages lie in a folder named after
 * it (an object locale's `path`, its first code as the language), the default locale's at
 * the root unless `routing.prefixDefaultLocale`. None for a site of one locale.
 */
export function astroLocales(i18n) {
  if (!i18n || (i18n.locales ?? []).length < 2) {
    return [];
  }
  const prefixDefault = i18n.routing?.prefixDefaultLocale === true;
  return i18n.locales.map((locale) => {
    const [lang, path] = typeof locale === "string" ? [locale, locale] : [locale.codes[0], locale.path];
    const folder = path === i18n.defaultLocale && !prefixDefault ? "" : `${path}/`;
    return [lang, folder];
  });
}

/**
 * @param {{state?: boolean, exclude?: string[], customPages?: string[],
 *   lastmod?: Date | string, lastmodFormat?: "date" | "datetime", addUrls?: string[],
 *   images?: boolean, groups?: string[], xsl?: boolean | string, xslURL?: string,
 *   indexnowKeyEnv?: string, args?: string[], previousSitemap?: boolean | string,
 *   requireBinary?: boolean}} options
 */
export default function sitemapgen(options = {}) {
  let config;
  return {
    name: "sitemapgen",
    hooks: {
      "astro:config:done": ({ config: done }) => {
        config = done;
      },
      "astro:build:done": async ({ dir, logger }) => {
        const out = fileURLToPath(dir).replace(/\/$/, "");
        await withUrlFile(options.customPages, (customPagesFile) =>
          runSitemapgen(
            astroFlags(config, out, { ...options, customPagesFile }),
            logger,
            options.requireBinary,
          ),
        );
      },
    },
  };
}
