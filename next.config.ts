import type { NextConfig } from "next";
import { API_HEADERS_SOURCE, API_SECURITY_HEADERS } from "./lib/security/security-headers";

const nextConfig: NextConfig = {
  // Native and CLI-side packages stay out of the server bundle and are required at run time.
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "pg",
    "pg-boss",
    "bcryptjs",
    // A simulated bash whose optional runtimes load lazily: keep it out of the bundle.
    "just-bash",
    // Its o200k encoding is a 2.4 MB module: bundled, every server route group carried a copy
    // (five 2.8 MB chunks and their source maps) and the first build parsed it five times.
    // Required at run time instead (bench/README.md, "First build").
    "gpt-tokenizer",
    // Document conversion (issue 25): pdf.js loads its worker module by path at run time, and
    // the converters are large and used only by uploads — required at run time, not bundled.
    "pdfjs-dist",
    "mammoth",
    "exceljs",
    "turndown",
    // Observability (decision 0038): pino and prom-client keep process-wide state (and pino's
    // optional worker-thread transports resolve files at run time); OpenTelemetry's API must be
    // one copy for the tracer provider that instrumentation.ts registers to be the one spans see.
    "pino",
    "prom-client",
    "@vercel/otel",
    "@opentelemetry/api",
  ],
  poweredByHeader: false,
  // Keep request URLs as served: by default NextRequest.url turns a loopback address
  // (127.0.0.1, [::1]) into `localhost`, so Auth.js's OIDC token request named another
  // redirect_uri than its authorization request on an instance served at such an address, and
  // the issuer refused the code (invalid_grant). See lib/auth/callback-url.test.ts.
  skipProxyUrlNormalize: true,
  // The API routes' fixed security headers; pages get theirs from proxy.ts (decision 0026).
  headers: async () => [
    {
      source: API_HEADERS_SOURCE,
      headers: Object.entries(API_SECURITY_HEADERS).map(([key, value]) => ({ key, value })),
    },
  ],
  typedRoutes: false,
  experimental: {
    // forbidden() answers 403 from pages and server actions.
    authInterrupts: true,
    // A file save carries the new text and the text it started from, each at most 1 MiB (the
    // dirs' per-file limit), JSON-escaped: 5 MB leaves room for both. The editor checks the
    // size before sending, and reports a refused body instead of losing the text.
    serverActions: { bodySizeLimit: "5mb" },
  },
};

export default nextConfig;
