/**
 * Schema builtins (spec/stdlib.md §11.6). Type-alias arguments are lowered
 * to schema dicts by the compiler before these run; at runtime a schema is
 * always a value.
 */
import { err, HarnError, HDict, ok, typeOf, type Runtime, type Value } from "@harn/vm";
import { canonicalize, SchemaError } from "./canonical";
import { extend, partial, selectProperties, toJsonSchema } from "./convert";
import { validate, type Validation } from "./validate";
import { lowerType } from "./lowering";
import { builtinModule, type BuiltinModule } from "../registry/define";

function need(name: string, args: Value[], n: number): void {
  if (args.length < n) throw HarnError.thrown(`${name} requires ${n} argument${n === 1 ? "" : "s"}`);
}

/** Validate, turning a bad schema into a thrown string. */
function run(rt: Runtime, value: Value, schema: Value, defaults: boolean): Validation {
  try {
    return validate(rt, value, schema, defaults);
  } catch (e) {
    if (e instanceof SchemaError) throw HarnError.thrown(e.message);
    throw e;
  }
}

function checkResult(rt: Runtime, value: Value, schema: Value, defaults: boolean): Value {
  let v: Validation;
  try {
    v = validate(rt, value, schema, defaults);
  } catch (e) {
    if (e instanceof SchemaError) return err(HDict.of({ message: e.message, errors: [e.message] }));
    throw e;
  }
  if (v.errors.length === 0) return ok(v.value);
  return err(HDict.of({ message: v.errors[0]!, errors: v.errors, value: v.value }));
}

function dictArg(name: string, v: Value): HDict {
  try {
    return canonicalize(v);
  } catch (e) {
    if (e instanceof SchemaError) throw HarnError.thrown(`${name}: ${e.message}`);
    throw e;
  }
}

export const SCHEMA_BUILTINS = builtinModule("schema/builtins", (def, rt) => {
  rt.typeSchema = (type, aliases) => lowerType(type, aliases);
  for (const name of ["schema_is", "is_type"]) {
    def(name, (args, ctx) => {
      need(name, args, 2);
      return run(ctx.runtime, args[0]!, args[1]!, false).errors.length === 0;
    });
  }

  def("schema_check", (args, ctx) => {
    need("schema_check", args, 2);
    return checkResult(ctx.runtime, args[0]!, args[1]!, false);
  });

  def("schema_parse", (args, ctx) => {
    need("schema_parse", args, 2);
    return checkResult(ctx.runtime, args[0]!, args[1]!, true);
  });

  def("schema_expect", (args, ctx) => {
    need("schema_expect", args, 2);
    const v = run(ctx.runtime, args[0]!, args[1]!, args[2] === true);
    if (v.errors.length > 0) throw HarnError.thrown(v.errors.join("; "));
    return v.value;
  });

  def("json_validate", (args, ctx) => {
    need("json_validate", args, 2);
    const v = run(ctx.runtime, args[0]!, args[1]!, false);
    if (v.errors.length > 0) throw HarnError.thrown(v.errors.join("; "));
    return true;
  });

  def("schema_of", (args) => {
    need("schema_of", args, 1);
    const x = args[0]!;
    if (x instanceof HDict) return x;
    throw HarnError.thrown(`schema_of: expected a type alias or schema dict, got ${typeOf(x)}`);
  });

  def("schema_to_json_schema", (args) => {
    need("schema_to_json_schema", args, 1);
    dictArg("schema_to_json_schema", args[0]!);
    return toJsonSchema(args[0]!, false);
  });
  def("schema_to_openapi_schema", (args) => {
    need("schema_to_openapi_schema", args, 1);
    dictArg("schema_to_openapi_schema", args[0]!);
    return toJsonSchema(args[0]!, true);
  });
  for (const name of ["schema_from_json_schema", "schema_from_openapi_schema"]) {
    def(name, (args) => {
      need(name, args, 1);
      return dictArg(name, args[0]!);
    });
  }

  def("schema_extend", (args) => {
    need("schema_extend", args, 2);
    const [a, b] = args as [Value, Value];
    if (!(a instanceof HDict) || !(b instanceof HDict)) throw HarnError.thrown("schema_extend: schema must be a dict");
    return extend(a, b);
  });

  def("schema_partial", (args) => {
    need("schema_partial", args, 1);
    return partial(args[0]!);
  });

  for (const [name, keep] of [
    ["schema_pick", true],
    ["schema_omit", false],
  ] as const) {
    def(name, (args) => {
      need(name, args, 2);
      const s = args[0]!;
      const keys = args[1]!;
      if (!Array.isArray(keys)) throw HarnError.thrown(`${name}: keys must be a list`);
      if (!(s instanceof HDict)) throw HarnError.thrown(`${name}: schema must be a dict`);
      return selectProperties(s, keys, keep);
    });
  }
});

/** The schema group's builtin modules (lazy/groups.ts). */
export const SCHEMA_MODULES: readonly BuiltinModule[] = [SCHEMA_BUILTINS];
