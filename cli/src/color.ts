import pc from "picocolors";

/**
 * Whether a report written to `stream` is coloured (cli.md §0.3): on a TTY
 * unless `NO_COLOR` is set; `FORCE_COLOR` forces colour on (or, as `0` /
 * `false`, off) wherever the output goes.
 */
export function colorEnabled(stream: { isTTY?: boolean }): boolean {
  const env = process.env;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "") return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

export type Colors = ReturnType<typeof pc.createColors>;

/** picocolors' functions, on or off by `colorEnabled(stream)`: they serve as
 * the parser's `DiagnosticStyle`. (The
 * default `pc` export decides by stdout alone.) */
export function colorsFor(stream: { isTTY?: boolean }): Colors {
  return pc.createColors(colorEnabled(stream));
}
