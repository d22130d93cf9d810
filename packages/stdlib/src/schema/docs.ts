/**
 * Signatures and docs of the schema builtins for the builtin table
 * (registry/docs.ts): the spec's words where it documents the builtin, a
 * short summary where it only mentions it. Read by the build only.
 */
import type { BuiltinDocs } from "../registry/docs";

export const SCHEMA_DOCS: BuiltinDocs = {
  is_type: ["is_type(value, schema)", "Same as `schema_is`."],
  json_validate: ["json_validate(value, schema)", "`true` or throws messages joined with `\"; \"` (e.g. `at root: missing required key 'id'`, `at title: expected type 'string', got 'int'`)"],
  schema_check: ["schema_check(value, schema)", "`Result.Ok(value)` or `Result.Err({message, errors, value})` — `errors` is the list of messages, `message` the first one, `value` the (partially normalised) input. A bad schema gives `Err({message, errors})` without `value`"],
  schema_expect: ["schema_expect(value, schema, apply_defaults?)", "Returns the normalised value or throws all messages joined with `\"; \"`"],
  schema_extend: ["schema_extend(base, over)", "Shallow merge of two schema dicts."],
  schema_from_json_schema: ["schema_from_json_schema(s)", "The canonical schema of a JSON Schema dict."],
  schema_from_openapi_schema: ["schema_from_openapi_schema(s)", "The canonical schema of an OpenAPI schema dict."],
  schema_is: ["schema_is(value, schema)", "Bool (no defaults). Bad schema throws with the canonicalisation message."],
  schema_of: ["schema_of(x)", "Runtime form: a dict is returned unchanged; anything else throws `schema_of: expected a type alias or schema dict, got <type>`. When the argument is the *name of a type alias*, the compiler replaces the call with the alias's schema literal (see below)"],
  schema_omit: ["schema_omit(s, keys)", "Keep / drop top-level properties (and the matching `required` entries); `keys` must be a list else throws `<name>: keys must be a list`"],
  schema_parse: ["schema_parse(value, schema)", "Like `schema_check` but applies `default`s; Ok carries the normalised value."],
  schema_partial: ["schema_partial(s)", "Removes `required` recursively."],
  schema_pick: ["schema_pick(s, keys)", "Keep / drop top-level properties (and the matching `required` entries); `keys` must be a list else throws `<name>: keys must be a list`"],
  schema_to_json_schema: ["schema_to_json_schema(s)", "Canonical → JSON Schema (`int`→`integer`, `float`→`number`, `bool`→`boolean`, `list`→`array`, `dict`→`object`, `nil`→`null`, `set`→`array`+`uniqueItems`, `min`→`minimum`, …, `union`→`oneOf`, `all_of`→`allOf`, `nullable`→ type list with `\"null\"`)"],
  schema_to_openapi_schema: ["schema_to_openapi_schema(s)", "As above but `nullable: true` is kept and a two-branch union with null collapses to the other branch plus `nullable: true`"],
};
