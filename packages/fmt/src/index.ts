/** `harn fmt`'s formatter (spec/cli.md §6). */
export { formatSource, FormatError, DEFAULT_FORMAT_OPTIONS, type FormatOptions } from "./format";
