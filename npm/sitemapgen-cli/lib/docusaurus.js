// The Docusaurus plugin: `plugins: [["sitemapgen-cli/docusaurus", {}]]` in
// docusaurus.config.js, with the classic preset's own sitemap off (`sitemap: false`). After
// the build it runs sitemapgen on the output with `url` and `baseUrl` as the base URL; it
// only maps the config to flags: every decision is the binary's.
import fs from "node:fs";
import path from "node:path";
import { flags, joinBase, runSitemapgen, stateFlags } from "./run.js";

/**
 * The flags for a Docusaurus config: `url` + `baseUrl` as the base URL; `trailingSlash`
 * unset writes `intro/index.html` for `/intro` (`--no-trailing-slash`), `false` writes
 * `intro.html` for it (and `--clean-urls`), `true` needs no flag.
 */
export function docusaurusFlags(siteConfig, outDir, options = {}, sources = {}, locales = []) {
  // Docusaurus itself refuses a config without a valid `url`, naming it, before the build.
  const base = joinBase(siteConfig.url, siteConfig.baseUrl ?? "/", "baseUrl in docusaurus.config.js");
  const args = ["--base-url", base];
  for (const [lang, folder] of locales) {
    args.push("--locale", `${lang}=/${folder}`);
  }
  if (siteConfig.trailingSlash !== true) {
    args.push("--no-trailing-slash");
  }
  if (siteConfig.trailingSlash === false) {
    args.push("--clean-urls");
  }
  if (options.state ?? true) {
    args.push(
      ...stateFlags({
        root: sources.siteDir ?? process.cwd(),
        dir: outDir,
        base,
        previousSitemap: options.previousSitemap,
        sources: sources.pages ?? [],
      }),
    );
  }
  return args.concat(flags(common(options)), [outDir]);
}

/**
 * The options by @docusaurus/plugin-sitemap's names, as `flags` takes them: `lastmod`
 * `"date"` or `"datetime"` (the format; null: no lastmod), `ignorePatterns` (globs, as
 * `--exclude` takes them: `/tags/**` leaves out the folder `tags/`).
 */
function common(options) {
  const { lastmod, ignorePatterns, ...rest } = options;
  if (lastmod !== undefined && lastmod !== null && lastmod !== "date" && lastmod !== "datetime") {
    throw new Error(
      `sitemapgen: error: the option lastmod is ${JSON.stringify(lastmod)}: "date", ` +
        `"datetime" or null, as @docusaurus/plugin-sitemap takes it`,
    );
  }
  return {
    ...rest,
    exclude: [...(rest.exclude ?? []), ...(ignorePatterns ?? [])],
    lastmod: lastmod === null ? "none" : rest.lastmodMode,
    lastmodFormat: lastmod ?? rest.lastmodFormat,
  };
}

/**
 * Each doc's, blog post's and page's source and its URL, from the content of the docs, blog
 * and pages plugins (`@site/docs/intro.md` at `/docs/intro`).
 */
export function docusaurusSources(siteDir, siteConfig, plugins = []) {
  const items = [];
  for (const { name, content } of plugins) {
    if (name === "docusaurus-plugin-content-docs") {
      for (const version of content?.loadedVersions ?? []) {
        items.push(...version.docs);
      }
    } else if (name === "docusaurus-plugin-content-blog") {
      items.push(...(content?.blogPosts ?? []).map((post) => post.metadata));
    } else if (name === "docusaurus-plugin-content-pages") {
      items.push(...(content ?? []));
    }
  }
  return items
    .filter((item) => item?.source?.startsWith("@site/") && item.permalink)
    .map((item) => [
      path.join(siteDir, item.source.slice("@site/".length)),
      new URL(item.permalink, siteConfig.url).href,
    ]);
}

const log = {
  info: (line) => console.log(`[sitemapgen] ${line}`),
  warn: (line) => console.warn(`[sitemapgen] warning: ${line}`),
};

/**
 * What the sitemap of this locale's build covers. When every locale is built into one
 * folder on one host: after the last locale's build, the whole site (its default locale's
 * config, its folder, and each locale's [hreflang, folder]); after the others', nothing
 * (`"later"`). Else (one locale, a build of some locales with `--locale`, locales on other
 * hosts) null: each locale's build gets its own sitemap.
 */
export function wholeSite({ siteConfig, outDir, i18n }, argv = process.argv) {
  const configs = i18n?.localeConfigs ?? {};
  const root = configs[i18n?.defaultLocale];
  if (!root?.baseUrl || i18n.locales.length < 2 || argv.some((a) => /^(-l|--locale)(=|$)/.test(a))) {
    return null;
  }
  const locales = i18n.locales.map((locale) => [locale, configs[locale]]);
  const elsewhere = locales.some(
    ([, config]) => !config?.baseUrl?.startsWith(root.baseUrl) || (config.url ?? root.url) !== root.url,
  );
  // Docusaurus builds the default locale first, then the others in their order.
  const last = i18n.locales.filter((locale) => locale !== i18n.defaultLocale).at(-1);
  if (elsewhere) {
    return null;
  }
  if (i18n.currentLocale !== last) {
    return "later";
  }
  const own = configs[i18n.currentLocale].baseUrl.slice(root.baseUrl.length);
  return {
    siteConfig: { ...siteConfig, url: root.url ?? siteConfig.url, baseUrl: root.baseUrl },
    outDir: outDir.slice(0, outDir.length - own.length),
    locales: locales.map(([locale, config]) => [
      config.htmlLang ?? locale,
      config.baseUrl.slice(root.baseUrl.length),
    ]),
  };
}

/**
 * Where a locale's build keeps the sources it knows for the last locale's run: on disk,
 * beside the state, since Docusaurus loads this module afresh for each locale (nothing held
 * in memory lasts from one locale's build to the next).
 */
function gatheredFile(siteDir, locale) {
  return path.join(siteDir, ".cache", "sitemapgen", `sources.${locale}.json`);
}

/** Keeps LOCALE's [source, URL] pairs for the last locale's build. */
function keepSources(siteDir, locale, pairs) {
  const file = gatheredFile(siteDir, locale);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(pairs));
}

/**
 * The pairs the earlier locales' builds kept, removed once read (a later build of the last
 * locale alone must not take a previous build's); a locale with none kept gives none.
 */
function takeSources(siteDir, locales) {
  const pairs = [];
  for (const locale of locales) {
    const file = gatheredFile(siteDir, locale);
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      if (error.code === "ENOENT") {
        continue;
      }
      throw error;
    }
    fs.rmSync(file);
    pairs.push(...JSON.parse(text));
  }
  return pairs;
}

/**
 * @param {unknown} context
 * @param {{state?: boolean, ignorePatterns?: string[], lastmod?: "date" | "datetime" | null,
 *   lastmodMode?: string, addUrls?: string[], images?: boolean, groups?: string[],
 *   xsl?: boolean | string, indexnowKeyEnv?: string, args?: string[],
 *   previousSitemap?: boolean | string, requireBinary?: boolean}} options
 */
export default function sitemapgen(context, options = {}) {
  return {
    name: "sitemapgen",
    async postBuild({ siteConfig, outDir, siteDir, plugins, i18n }) {
      const whole = wholeSite({ siteConfig, outDir: outDir.replace(/\/?$/, "/"), i18n });
      // Each locale's build knows only its own pages' sources: kept for the last one's run.
      const own = docusaurusSources(siteDir, siteConfig, plugins);
      if (whole === "later") {
        keepSources(siteDir, i18n.currentLocale, own);
        log.info(`one sitemap for every locale, after the last locale's build`);
        return;
      }
      const site = whole ?? { siteConfig, outDir, locales: [] };
      // Docusaurus's outDir ends with a slash, which would double in the state's path.
      const dir = site.outDir.replace(/\/$/, "");
      const earlier = whole ? i18n.locales.filter((locale) => locale !== i18n.currentLocale) : [];
      const pages = [...takeSources(siteDir, earlier), ...own];
      await runSitemapgen(
        docusaurusFlags(site.siteConfig, dir, options, { siteDir, pages }, site.locales),
        log,
        options.requireBinary,
      );
    },
  };
}
