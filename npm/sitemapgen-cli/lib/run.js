// What the generators' plugins share: the flags their options map to, and running the
// binary with its messages in the generator's log.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { BinaryNotFound, NoBinary, binaryPath } from "./binary.js";

export const STATE = "sitemap.state.gz";

/**
 * The flags of the options every plugin has (`state` is each plugin's own).
 * @param {{images?: boolean, groups?: string[], xsl?: boolean | string,
 *   indexnowKeyEnv?: string, args?: string[]}} options
 */
export function flags(options = {}) {
  const args = [];
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
 * The site URL with the base path `path` (`KEY` names it in the config) as its path: joined
 * as a path, never resolved as a URL, so that no base (`//evil.com/x`,
 * `https://evil.com/`) moves the sitemap and the state to another host; such a base is refused.
 */
export function joinBase(site, path, key) {
  if (/^[a-z][a-z0-9+.-]*:|^[/\\]{2}|\\|[\s\u0000-\u001f\u007f]/i.test(path)) {
    throw new Error(
      `sitemapgen: error: ${key} ${JSON.stringify(path)} is not a path on the site (such as /docs/)`,
    );
  }
  const url = new URL(site);
  url.pathname = `/${path.replace(/^\/+/, "")}`.replace(/\/?$/, "/");
  url.search = "";
  url.hash = "";
  return url.href;
}

/** The state flags: in the site, read back from the live site ("CI without a cache"). */
export function stateFlags(dir, base) {
  return ["--state", `${dir}/${STATE}`, "--state-url", `${base}${STATE}`];
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
  let binary;
  try {
    binary = binaryPath();
  } catch (error) {
    if (error instanceof NoBinary && !requireBinary) {
      if (!warned) {
        warned = true;
        log.warn(`${error.message}: no sitemap written; CI on Linux or macOS writes it`);
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
