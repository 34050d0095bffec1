// What the generators' plugins share: the flags their options map to, the state's flags
// (kept beside the project, its copy published with the site, the site's own sitemap as the
// seed, each page's source), and running the binary with its messages in the
// generator's log.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { BinaryNotFound, NoBinary, binaryPath } from "./binary.js";

export const STATE = "sitemap.state.gz";
// Beside the project, where generators keep their caches: a cleaned output keeps no state.
const CACHE = path.join(".cache", "sitemapgen");

// The option that turns each flag off, as sitemapgen's messages name it.
const OFF = {
  "--state": "state: false",
  "--state-url": "state: false",
  "--previous-sitemap": "previousSitemap: false",
};

/**
 * The flags of the options every plugin has (`state` is each plugin's own; each names the
 * others as its native plugin does, and passes them here by these names).
 * @param {{exclude?: string[], cleanUrls?: boolean, lastmod?: string,
 *   lastmodFormat?: "date" | "datetime", addUrls?: string[], images?: boolean,
 *   groups?: string[], xsl?: boolean | string, indexnowKeyEnv?: string, args?: string[]}} options
 */
export function flags(options = {}) {
  const args = [];
  for (const glob of options.exclude ?? []) {
    args.push("--exclude", glob);
  }
  if (options.cleanUrls) {
    args.push("--clean-urls");
  }
  if (options.lastmod) {
    args.push("--lastmod", options.lastmod);
  }
  if (options.lastmodFormat) {
    args.push("--lastmod-format", options.lastmodFormat);
  }
  for (const file of options.addUrls ?? []) {
    args.push("--add-urls", file);
  }
  if (options.images) {
    args.push("--images");
  }
  for (const group of options.groups ?? []) {
    args.push("--group", group);
  }
  if (options.xsl === true) {
    args.push("--write-xsl");
  } else if (options.xsl) {
    args.push("--xsl", options.xsl);
  }
  if (options.indexnowKeyEnv) {
    args.push("--indexnow-key-env", options.indexnowKeyEnv);
  }
  return args.concat(options.args ?? []);
}

/**
 * The site URL with the base path `basePath` (`KEY` names it in the config) as its path: joined
 * as a path, never resolved as a URL, so that no base (`//evil.com/x`,
 * `https://evil.com/`) moves the sitemap and the state to another host; such a base is refused.
 */
export function joinBase(site, basePath, key) {
  if (/^[a-z][a-z0-9+.-]*:|^[/\\]{2}|\\|[\s\u0000-\u001f\u007f]/i.test(basePath)) {
    throw new Error(
      `sitemapgen: error: ${key} ${JSON.stringify(basePath)} is not a path on the site (such as /docs/)`,
    );
  }
  const url = new URL(site);
  url.pathname = `/${basePath.replace(/^\/+/, "")}`.replace(/\/?$/, "/");
  url.search = "";
  url.hash = "";
  return url.href;
}

/**
 * Runs `use` with the path of a file of URLS (a URL a line) in a temp folder of its own,
 * outside the site, removed once `use`'s promise settles; with no URLs, with no path.
 */
export async function withUrlFile(urls, use) {
  if (!urls?.length) {
    return use(undefined);
  }
  const dir = fs.mkdtempSync(path.join(tmpdir(), "sitemapgen-"));
  try {
    const file = path.join(dir, "urls.txt");
    fs.writeFileSync(file, urls.map((url) => `${url}\n`).join(""));
    return await use(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The state's flags: the state kept in ROOT/.cache/sitemapgen/ (a folder per base URL path),
 * its copy in DIR for the deploy to publish at BASE, read back from there where there is no
 * local one (CI); with nothing published, the dates of `previousSitemap` (true, the default:
 * BASE/sitemap.xml, the generator's own; false: none); `sources`, pairs of a source file and
 * its page's file relative to DIR (or URL), each page dated by its source's last commit (--sources).
 */
export function stateFlags({ root, dir, base, previousSitemap = true, sources = [] }) {
  const cache = path.join(root, CACHE, ...new URL(base).pathname.split("/").filter(Boolean));
  // sitemapgen writes the state into a folder that exists; the first build makes it.
  fs.mkdirSync(cache, { recursive: true });
  const args = [
    "--state",
    path.join(cache, STATE),
    "--state-copy",
    `${dir}/${STATE}`,
    "--state-url",
    `${base}${STATE}`,
  ];
  if (previousSitemap === true) {
    args.push("--previous-sitemap", `${base}sitemap.xml`);
  } else if (previousSitemap) {
    args.push("--previous-sitemap", previousSitemap);
  }
  if (sources.length > 0) {
    // sitemapgen dates each source by its last commit (one git reader, in the binary).
    const file = path.join(cache, "sources.tsv");
    // A page once (sitemapgen refuses a page named twice): the last source given.
    const pages = new Map(sources.map(([source, page]) => [page, source]));
    const lines = [...pages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    fs.writeFileSync(file, lines.map(([page, source]) => `${page}\t${path.resolve(source)}\n`).join(""));
    args.push("--sources", file);
  }
  return args;
}

// The warning of a platform without a binary is given once a process (Docusaurus runs the
// plugin once a locale).
let warned = false;

/**
 * Runs sitemapgen with ARGS: its warnings go to `log.warn`, its notes and summary line to
 * `log.info`, each line as the binary writes it (no buffer to outgrow, however much -v says).
 * When it fails (exit 1 or 2), rejects with an Error holding its error message. Where this
 * platform has no binary, the build goes on without a sitemap, after one warning, unless
 * `requireBinary`: then it rejects.
 */
export function runSitemapgen(args, log, requireBinary = false) {
  // A message's "drop FLAG" names the plugin's option that turns FLAG off.
  const named = (line) =>
    line.replace(/drop (--[a-z-]+)/g, (all, flag) => (OFF[flag] ? `set \`${OFF[flag]}\`` : all));
  let binary;
  try {
    binary = binaryPath();
  } catch (error) {
    if (error instanceof NoBinary && !requireBinary) {
      if (!warned) {
        warned = true;
        log.warn(`${error.message}: no sitemap written; CI on Linux, macOS or Windows writes it`);
      }
      return Promise.resolve();
    }
    if (error instanceof BinaryNotFound) {
      return Promise.reject(new Error(`sitemapgen: error: ${error.message}\nhint: ${error.hint}`));
    }
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    // The error message and its hint lines, which the Error carries instead of the log.
    const error = [];
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on("line", (line) => {
      if (line === "") {
        return;
      }
      line = named(line);
      if (error.length > 0 || line.startsWith("sitemapgen: error: ")) {
        error.push(line);
      } else if (line.startsWith("sitemapgen: warning: ")) {
        // The generator's log names the plugin already.
        log.warn(line.slice("sitemapgen: warning: ".length));
      } else {
        log.info(line.startsWith("sitemapgen: ") ? line.slice("sitemapgen: ".length) : line);
      }
    });
    child.on("error", (failed) => {
      reject(new Error(`sitemapgen: error: cannot run ${binary}: ${failed.message}`));
    });
    child.on("close", (status, signal) => {
      if (status === 0) {
        resolve();
      } else {
        reject(new Error(error.join("\n") || `sitemapgen ended by ${signal ?? status}`));
      }
    });
  });
}
