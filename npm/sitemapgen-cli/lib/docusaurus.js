// The Docusaurus plugin: `plugins: [["sitemapgen-cli/docusaurus", {}]]` in
// docusaurus.config.js, with the classic preset's own sitemap off (`sitemap: false`). After
// the build it runs sitemapgen on the output with `url` and `baseUrl` as the base URL; it
// only maps the config to flags: every decision is the binary's.
import path from "node:path";
import { flags, joinBase, runSitemapgen, stateFlags } from "./run.js";

/**
 * The flags for a Docusaurus config: `url` + `baseUrl` as the base URL; `trailingSlash`
 * unset writes `intro/index.html` for `/intro` (`--no-trailing-slash`), `false` writes
 * `intro.html` for it (and `--clean-urls`), `true` needs no flag.
 */
export function docusaurusFlags(siteConfig, outDir, options = {}, sources = {}) {
  // Docusaurus itself refuses a config without a valid `url`, naming it, before the build.
  const base = joinBase(siteConfig.url, siteConfig.baseUrl ?? "/", "baseUrl in docusaurus.config.js");
  const args = ["--base-url", base];
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
 * @param {unknown} context
 * @param {{state?: boolean, ignorePatterns?: string[], lastmod?: "date" | "datetime" | null,
 *   lastmodMode?: string, addUrls?: string[], images?: boolean, groups?: string[],
 *   xsl?: boolean | string, indexnowKeyEnv?: string, args?: string[],
 *   previousSitemap?: boolean | string, requireBinary?: boolean}} options
 */
export default function sitemapgen(context, options = {}) {
  return {
    name: "sitemapgen",
    async postBuild({ siteConfig, outDir, siteDir, plugins }) {
      // Docusaurus's outDir ends with a slash, which would double in the state's path.
      const dir = outDir.replace(/\/$/, "");
      const pages = docusaurusSources(siteDir, siteConfig, plugins);
      await runSitemapgen(docusaurusFlags(siteConfig, dir, options, { siteDir, pages }), log, options.requireBinary);
    },
  };
}
