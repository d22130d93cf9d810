/** Commander parsers for the integer options of several commands. */
import { InvalidArgumentError } from "commander";

/** `-n 3`, `--line-width 80`: digits only, not 0. */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) === 0) throw new InvalidArgumentError("expected a positive integer");
  return Number(value);
}
