// Which sitemapgen binary to run: the one SITEMAPGEN_BINARY names, else the one in this
// platform's package (an optionalDependency: npm installs only the one whose os and cpu fit).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

// `${process.platform}-${process.arch}` → the package that holds its binary. The Linux
// binaries are static (musl), so one package serves glibc and musl systems alike; Windows'
// binary is sitemapgen.exe.
const PACKAGES = {
  "darwin-arm64": "sitemapgen-cli-darwin-arm64",
  "darwin-x64": "sitemapgen-cli-darwin-x64",
  "linux-arm64": "sitemapgen-cli-linux-arm64",
  "linux-x64": "sitemapgen-cli-linux-x64",
  "win32-x64": "sitemapgen-cli-win32-x64",
};

/** An error worth one line to the user, with one hint line under it. */
export class BinaryNotFound extends Error {
  constructor(message, hint) {
    super(message);
    this.name = "BinaryNotFound";
    this.hint = hint;
  }
}

/** This platform has no sitemapgen binary: no package holds one for it. */
export class NoBinary extends BinaryNotFound {
  constructor(platform) {
    super(
      `sitemapgen has no binary for ${platform}`,
      `the packages with one are for ${Object.keys(PACKAGES).join(", ")}; elsewhere, build it with \`cargo install --locked sitemapgen\` and set SITEMAPGEN_BINARY to its path`,
    );
    this.name = "NoBinary";
  }
}

/**
 * The path of the sitemapgen binary for this machine.
 * @returns {string}
 * @throws {NoBinary} when no binary fits this platform
 * @throws {BinaryNotFound} when its package is missing
 */
export function binaryPath() {
  if (process.env.SITEMAPGEN_BINARY) {
    return process.env.SITEMAPGEN_BINARY;
  }
  const platform = `${process.platform}-${process.arch}`;
  const name = PACKAGES[platform];
  if (name === undefined) {
    throw new NoBinary(platform);
  }
  try {
    return require.resolve(`${name}/${process.platform === "win32" ? "sitemapgen.exe" : "sitemapgen"}`);
  } catch {
    throw new BinaryNotFound(
      `the package ${name}, which holds the binary for ${platform}, is not installed`,
      `install it (npm install ${name}); optional dependencies may have been left out (--omit=optional, or a lock file made on another platform)`,
    );
  }
}
