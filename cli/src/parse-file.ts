/**
 * Reading and parsing the one `.harn` file a command works on (bench,
 * viz), with the errors a user sees when that fails: `Error reading FILE:
 * REASON` or the rendered syntax errors, on stderr.
 */
import { readFileSync } from "node:fs";
import { parse, renderDiagnostic, syntaxDiagnostic, type Program } from "@harn/parser";
import { reason } from "./targets";

/** The file's text and syntax tree, or `undefined` once the failure was reported. */
export function readAndParse(file: string): { source: string; program: Program } | undefined {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (e) {
    process.stderr.write(`Error reading ${file}: ${reason(e)}\n`);
    return undefined;
  }
  const { program, errors } = parse(source, { file });
  if (errors.length > 0) {
    for (const err of errors) process.stderr.write(renderDiagnostic(syntaxDiagnostic(err), file, source));
    return undefined;
  }
  return { source, program };
}
