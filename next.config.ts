import type { NextConfig } from "next";

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
  ],
  poweredByHeader: false,
  typedRoutes: false,
  // forbidden() answers 403 from pages and server actions.
  experimental: { authInterrupts: true },
};

export default nextConfig;
