/**
 * @harn/lsp: the Harn language server (`harn lsp`). It reuses the parser
 * (with editor recovery), the checker, the linter and the formatter in
 * process; the host (the CLI) supplies what only a runtime knows: the
 * builtins and their documentation, the bundled std modules, and how
 * imports resolve.
 */
export { startServer, type ServerOptions } from "./server";
export type { LanguageHost } from "./workspace";
export type { BuiltinDoc } from "./describe";
