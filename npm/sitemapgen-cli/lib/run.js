// What the generators' plugins share: the flags their options map to, and running the
// binary with its messages in the generator's log.
import { spawnSync } from "node:child_process";
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

/** The state flags: in the site, read back from the live site ("CI without a cache"). */
export function stateFlags(dir, base) {
  return ["--state", `${dir}/${STATE}`, "--state-url", `${base}${STATE}`];
}

// The warning of a platform without a binary is given once a process (Docusaurus runs the
// plugin once a locale).
let warned = false;

/**
 * Runs sitemapgen with ARGS: its warnings go to `log.warn`, its notes and summary line to
 * `log.info`. When it fails (exit 1 or 2), throws an Error with its message. Where this
 * platform has no binary, the build goes on without a sitemap, after one warning, unless
 * `requireBinary`: then it throws.
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
      return;
    }
    if (error instanceof BinaryNotFound) {
      throw new Error(`sitemapgen: error: ${error.message}\nhint: ${error.hint}`);
    }
    throw error;
  }
  const done = spawnSync(binary, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (done.error) {
    throw new Error(`sitemapgen: error: cannot run ${binary}: ${done.error.message}`);
  }
  const lines = done.stderr.split("\n").filter((line) => line !== "");
  if (done.status !== 0) {
    throw new Error(lines.join("\n") || `sitemapgen ended by ${done.signal ?? done.status}`);
  }
  // The generator's log names the plugin already.
  for (const line of lines) {
    if (line.startsWith("sitemapgen: warning: ")) {
      log.warn(line.slice("sitemapgen: warning: ".length));
    } else {
      log.info(line.startsWith("sitemapgen: ") ? line.slice("sitemapgen: ".length) : line);
    }
  }
}
