/**
 * The host-library error dicts `{kind, builtin, message}` (agents.md §0.3,
 * §6.2), thrown by the command tools and the cancel/read requests.
 */
import { HarnError, HDict, Tag, typeOf, type Value } from "@harn/vm";

export type HostlibErrorKind = "missing_parameter" | "invalid_parameter" | "backend_error" | "unimplemented";

/**
 * `missing_parameter`: `detail` unused; `invalid_parameter`: `param` and
 * `detail`; `backend_error`: `param` is the detail text; `unimplemented`:
 * neither.
 */
export function hostlibError(kind: HostlibErrorKind, builtin: string, param = "", detail = ""): HarnError {
  let message: string;
  switch (kind) {
    case "missing_parameter":
      message = `hostlib: ${builtin}: missing required parameter '${param}'`;
      break;
    case "invalid_parameter":
      message = `hostlib: ${builtin}: invalid parameter '${param}': ${detail}`;
      break;
    case "backend_error":
      message = `hostlib: ${builtin}: ${param}`;
      break;
    case "unimplemented":
      message = `hostlib: ${builtin} is not implemented yet (scaffolded contract without an implementation)`;
      break;
  }
  return HarnError.thrown(HDict.of({ kind, builtin, message }));
}

/** The types parameter errors name as themselves (§6.2); any other is
 * `other`. */
const PARAM_TYPES = new Set(["int", "float", "string", "bytes", "bool", "nil", "list", "dict", "set"]);

/** `<type>` in parameter errors: int, float, string, bytes, bool, nil,
 * list, dict, set or other (§6.2). An opaque value says `other` whatever
 * its type's name. */
export function typeName(v: Value): string {
  if (v !== null && typeof v === "object" && !Array.isArray(v) && v.tag === Tag.Opaque) return "other";
  const t = typeOf(v);
  return PARAM_TYPES.has(t) ? t : "other";
}
