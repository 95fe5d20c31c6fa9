import path from "node:path";
import type { NextConfig } from "next";

// The stack's floor (bench/stack-floor.ts): the smallest Next app that answers a chat turn of
// the same shape as Cairn's — the AI SDK's documented route, nothing of Cairn's.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  turbopack: { root: path.join(import.meta.dirname, "../..") },
};

export default nextConfig;
