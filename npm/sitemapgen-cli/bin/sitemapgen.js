#!/usr/bin/env node
// Runs this platform's sitemapgen binary with the same arguments and standard streams, and
// ends the way it ended: its exit status, or the signal that killed it.
import { spawn } from "node:child_process";
import { BinaryNotFound, binaryPath } from "../lib/binary.js";

let binary;
try {
  binary = binaryPath();
} catch (error) {
  if (!(error instanceof BinaryNotFound)) {
    throw error;
  }
  process.stderr.write(`sitemapgen: error: ${error.message}\nhint: ${error.hint}\n`);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });

// A signal sent to the launcher alone (kill PID, a CI runner's timeout) goes on to the
// binary; the launcher ends when the binary does.
const FORWARDED = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"];
for (const signal of FORWARDED) {
  process.on(signal, () => child.kill(signal));
}

child.on("error", (error) => {
  process.stderr.write(`sitemapgen: error: cannot run ${binary}: ${error.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal === null) {
    process.exit(code);
  }
  // Die of the same signal, so a shell or CI sees what the binary saw.
  for (const forwarded of FORWARDED) {
    process.removeAllListeners(forwarded);
  }
  process.kill(process.pid, signal);
});
