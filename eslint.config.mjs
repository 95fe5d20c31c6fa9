import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import tseslint from "typescript-eslint";

const harnessBoundary = {
  patterns: [
    { group: ["next", "next/*"], message: "lib/harness is framework-free: no Next.js." },
    {
      group: ["react", "react-dom", "react/*"],
      message: "lib/harness is framework-free: no React.",
    },
    {
      group: ["@prisma/*", "**/generated/**", "@/lib/db", "@/lib/db/*"],
      message: "lib/harness talks to storage through ports; adapters live outside it.",
    },
    {
      group: ["server-only"],
      message: "lib/harness must run anywhere, including the CLI and tests.",
    },
    {
      group: ["@/app/*", "@/components/*", "@/lib/auth", "@/lib/auth/*"],
      message: "Arrows point down: lib/harness never imports the app.",
    },
  ],
};

/**
 * Each module's `internal/` folder is its own: nothing outside the module imports it (a module is
 * a folder under `lib/` or `lib/harness/`). Outside the core, the core is used through its three
 * doors only: `@/lib/harness` (consumer API), `@/lib/harness/spi` (adapters) and
 * `@/lib/harness/testing` (tests, benchmarks, examples).
 */
const internalBoundary = [
  {
    group: ["../*/internal", "../*/internal/*", "../../*/internal", "../../*/internal/*"],
    message: "Another module's internal/ is private: import the module's index instead.",
  },
  {
    group: ["../../../*/internal/*", "@/lib/*/internal/*", "@/lib/*/*/internal/*"],
    message: "Another module's internal/ is private: import the module's index instead.",
  },
];

// `@/lib/harness/format-bytes` is a leaf without imports: client components use the one byte
// formatter through it without bundling the core.
const harnessDoors = {
  group: [
    "@/lib/harness/*",
    "!@/lib/harness/spi",
    "!@/lib/harness/testing",
    "!@/lib/harness/format-bytes",
  ],
  message:
    "Use one of the core's three doors: @/lib/harness, @/lib/harness/spi or @/lib/harness/testing (or the leaf @/lib/harness/format-bytes).",
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      "**/.next/**",
      "lib/db/generated/**",
      "**/next-env.d.ts",
      "data/**",
      "test-results/**",
      "playwright-report/**",
      "**/*.mjs",
      "**/*.cjs",
    ],
  },
  ...nextVitals,
  ...nextTypescript,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": [
        "error",
        { checksVoidReturn: { attributes: false } },
      ],
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@next/next/no-html-link-for-pages": "off",
      "no-restricted-syntax": [
        "error",
        {
          // The error family is told apart by markers (`X.isInstance(error)`), which work across
          // bundles and realms where `instanceof` does not (issue 29, item 6).
          selector:
            "BinaryExpression[operator='instanceof'][right.name=/^(Harness|Account|AccessToken|Refinement|Usage|JournalWrite|Frontmatter|FailedCommitsQuota|InjectedFault)\\w*Error$/]",
          message: "Use X.isInstance(error) for the error family, not instanceof.",
        },
      ],
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["lib/harness/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [...internalBoundary, harnessDoors] }],
    },
  },
  {
    // The library example must stay a host that only needs the core.
    files: ["docs/examples/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [...harnessBoundary.patterns, ...internalBoundary, harnessDoors] },
      ],
    },
  },
  {
    files: ["lib/harness/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [...harnessBoundary.patterns, ...internalBoundary] },
      ],
    },
  },
);
