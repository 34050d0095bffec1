// The Docusaurus plugin: `plugins: [["sitemapgen-cli/docusaurus", {}]]` in
// docusaurus.config.js, with the classic preset's own sitemap off (`sitemap: false`). After
// the build it runs sitemapgen on the output with `url` and `baseUrl` as the base URL; it
// only maps the config to flags: every decision is the binary's.
import { flags, joinBase, runSitemapgen, stateFlags } from "./run.js";

/**
 * The flags for a Docusaurus config: `url` + `baseUrl` as the base URL; `trailingSlash`
 * unset writes `intro/index.html` for `/intro` (`--no-trailing-slash`), `false` writes
 * `intro.html` for it (and `--clean-urls`), `true` needs no flag.
 */
export function docusaurusFlags(siteConfig, outDir, options = {}) {
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
    args.push(...stateFlags(outDir, base));
  }
  return args.concat(flags(options), [outDir]);
}

const log = {
  info: (line) => console.log(`[sitemapgen] ${line}`),
  warn: (line) => console.warn(`[sitemapgen] warning: ${line}`),
};

/**
 * @param {unknown} context
 * @param {{state?: boolean, images?: boolean, groups?: string[], xsl?: boolean | string,
 *   indexnowKeyEnv?: string, args?: string[], requireBinary?: boolean}} options
 */
export default function sitemapgen(context, options = {}) {
  return {
    name: "sitemapgen",
    async postBuild({ siteConfig, outDir }) {
      // Docusaurus's outDir ends with a slash, which would double in the state's path.
      const dir = outDir.replace(/\/$/, "");
      await runSitemapgen(docusaurusFlags(siteConfig, dir, options), log, options.requireBinary);
    },
  };
}
