// The Astro integration: `integrations: [sitemapgen()]` in astro.config.mjs. After `astro
// build` it runs sitemapgen on the output with `site` and `base` as the base URL; it only
// maps the config to flags: every decision is the binary's.
import { fileURLToPath } from "node:url";
import { flags, joinBase, runSitemapgen, stateFlags } from "./run.js";

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
  if (options.state ?? true) {
    args.push(...stateFlags(dir, base));
  }
  return args.concat(flags(options), [dir]);
}

/**
 * @param {{state?: boolean, images?: boolean, groups?: string[], xsl?: boolean | string,
 *   indexnowKeyEnv?: string, args?: string[], requireBinary?: boolean}} options
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
        await runSitemapgen(astroFlags(config, out, options), logger, options.requireBinary);
      },
    },
  };
}
