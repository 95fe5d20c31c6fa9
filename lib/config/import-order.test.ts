import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("lib/config", () => {
  it("loads first in a fresh Node process, as the server's instrumentation loads it", () => {
    // lib/config's imports reach lib/cairn, which builds lib/oidc-settings: a value of lib/config
    // read while it was still loading stopped the server's start ("Cannot access … before
    // initialization"). Vitest orders modules differently, so this runs in a Node process.
    const output = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        'const config = await import("./lib/config/index.ts"); console.log(JSON.stringify(config.domainList.parse("Example.com")));',
      ],
      { cwd: process.cwd(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    expect(output.trim()).toBe('["example.com"]');
  });
});
