/**
 * The project catalog of std/project (spec/workflows.md §5.2): what marks a
 * directory as a project of each language, and its default commands. One
 * table serves `project_catalog`, the scans and the fingerprint.
 */

export interface CatalogEntry {
  id: string;
  languages: string[];
  frameworks: string[];
  build_systems: string[];
  anchors: string[];
  lockfiles: string[];
  /** Extensions of the language's sources (for `source_globs` and detection). */
  extensions: string[];
  default_build_cmd: string | null;
  default_test_cmd: string | null;
  /** Confidence given by an anchor alone; an anchor with a lockfile is at least 0.95. */
  anchor_score: number;
}

const JS_LOCKFILES = ["package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb"];

export const CATALOG: readonly CatalogEntry[] = [
  {
    id: "rust",
    languages: ["rust"],
    frameworks: [],
    build_systems: ["cargo"],
    anchors: ["Cargo.toml"],
    lockfiles: ["Cargo.lock"],
    extensions: [".rs"],
    default_build_cmd: "cargo build",
    default_test_cmd: "cargo test",
    anchor_score: 0.9,
  },
  {
    id: "go",
    languages: ["go"],
    frameworks: [],
    build_systems: ["go"],
    anchors: ["go.mod"],
    lockfiles: ["go.sum"],
    extensions: [".go"],
    default_build_cmd: "go build ./...",
    default_test_cmd: "go test ./...",
    anchor_score: 0.9,
  },
  {
    id: "python",
    languages: ["python"],
    frameworks: [],
    build_systems: ["python"],
    anchors: ["pyproject.toml", "setup.py", "requirements.txt"],
    lockfiles: ["uv.lock", "poetry.lock", "Pipfile.lock", "requirements.lock"],
    extensions: [".py"],
    default_build_cmd: null,
    default_test_cmd: "pytest",
    anchor_score: 0.85,
  },
  {
    id: "typescript",
    languages: ["typescript"],
    frameworks: [],
    build_systems: ["npm"],
    anchors: ["tsconfig.json", "package.json"],
    lockfiles: JS_LOCKFILES,
    extensions: [".ts", ".tsx"],
    default_build_cmd: "npm run build",
    default_test_cmd: "npm test",
    anchor_score: 0.9,
  },
  {
    id: "javascript",
    languages: ["javascript"],
    frameworks: [],
    build_systems: ["npm"],
    anchors: ["package.json"],
    lockfiles: JS_LOCKFILES,
    extensions: [".js", ".jsx", ".mjs", ".cjs"],
    default_build_cmd: "npm run build",
    default_test_cmd: "npm test",
    anchor_score: 0.85,
  },
  {
    id: "swift",
    languages: ["swift"],
    frameworks: [],
    build_systems: ["spm"],
    anchors: ["Package.swift"],
    lockfiles: ["Package.resolved"],
    extensions: [".swift"],
    default_build_cmd: "swift build",
    default_test_cmd: "swift test",
    anchor_score: 0.9,
  },
];

/** Dependencies that name a framework, per ecosystem (the framework's id). */
export const FRAMEWORK_DEPS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rust: { axum: "axum", "actix-web": "actix-web", rocket: "rocket", warp: "warp", tauri: "tauri", leptos: "leptos", bevy: "bevy" },
  js: {
    next: "next",
    react: "react",
    vue: "vue",
    svelte: "svelte",
    "@sveltejs/kit": "sveltekit",
    "@angular/core": "angular",
    express: "express",
    fastify: "fastify",
    "@nestjs/core": "nestjs",
    vite: "vite",
    astro: "astro",
    nuxt: "nuxt",
    "solid-js": "solid",
  },
  python: { fastapi: "fastapi", django: "django", flask: "flask", starlette: "starlette" },
  go: { "github.com/gin-gonic/gin": "gin", "github.com/labstack/echo": "echo", "github.com/gofiber/fiber": "fiber", "github.com/go-chi/chi": "chi" },
};

/** Directories a tree scan skips unless `include_vendor: true`. */
export const VENDOR_DIRS: ReadonlySet<string> = new Set([
  ".git",
  "node_modules",
  "target",
  "vendor",
  "dist",
  "build",
  "out",
  ".venv",
  "venv",
  "__pycache__",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".gradle",
  ".build",
  "Pods",
  ".harn",
  ".harn-runs",
]);
