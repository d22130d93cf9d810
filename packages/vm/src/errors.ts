/**
 * Harn runtime errors (spec/semantics.md §8.1, §10).
 *
 * `HarnError` deliberately does not extend `Error`: errors are ordinary
 * control flow in Harn (`try`/`catch`, `try { }` Results, retries), and
 * capturing a JS stack for each would be slow. Anything thrown that is not a
 * `HarnError` is an internal bug; the CLI reports it as such.
 */

import type { Span } from "@harn/parser";
import { display, HDict, typeOf, type Value } from "./values";

/**
 * `display` of a thrown value, or a placeholder when the host cannot render
 * it: a value nested deeper than the JS stack allows, or whose text would
 * be longer than a JS string may be. The error must still be reported
 * (`println` of such a value fails with the stack-overflow error, but an
 * uncaught `throw` of it has no place left to fail to).
 */
function displayForError(v: Value): string {
  try {
    return display(v);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return /call stack/i.test(e.message) ? `<${typeOf(v)} nested too deeply to display>` : `<${typeOf(v)} too large to display>`;
  }
}

export type ErrorKind =
  | "thrown"
  | "runtime"
  | "type"
  | "undefinedVariable"
  | "undefinedBuiltin"
  | "immutable"
  | "divisionByZero"
  | "stackOverflow"
  | "categorized"
  /** A daemon's bounded trigger queue is full (spec/agents.md §0.3, §6.4):
   * its own kind so `catch` sees the text without a `Runtime error:`
   * prefix. */
  | "daemonQueueFull";

/** One call frame for the `= note: called from NAME at FILE:LINE` lines. */
export interface FrameNote {
  name: string;
  file: string;
  line: number;
}

export class HarnError {
  /** Where the failing operation is (innermost frame), when known. */
  span: Span | null = null;
  /** File of `span`. */
  file: string | null = null;
  /** Outer frames, innermost first (filled as the error unwinds). */
  frames: FrameNote[] = [];
  /** Line of the innermost executing function, for the ` (line N)` suffix. */
  line = 0;
  /** Set once the ` (line N)` suffix was applied, so nested contexts do not
   * apply it twice. */
  suffixed = false;

  private constructor(
    readonly kind: ErrorKind,
    /** The message (without prefix) or the name, by kind. */
    readonly message: string,
    /** The thrown value for `thrown`; null otherwise. */
    readonly value: Value,
    /** The category of a `categorized` error. */
    readonly category: string | null,
  ) {}

  static thrown(value: Value): HarnError {
    return new HarnError("thrown", "", value, null);
  }
  static runtime(message: string): HarnError {
    return new HarnError("runtime", message, null, null);
  }
  static type(message: string): HarnError {
    return new HarnError("type", message, null, null);
  }
  static undefinedVariable(name: string): HarnError {
    return new HarnError("undefinedVariable", name, null, null);
  }
  static undefinedBuiltin(name: string): HarnError {
    return new HarnError("undefinedBuiltin", name, null, null);
  }
  static immutable(name: string): HarnError {
    return new HarnError("immutable", name, null, null);
  }
  static divisionByZero(): HarnError {
    return new HarnError("divisionByZero", "", null, null);
  }
  static stackOverflow(): HarnError {
    return new HarnError("stackOverflow", "", null, null);
  }
  static categorized(message: string, category: string): HarnError {
    return new HarnError("categorized", message, null, category);
  }
  static daemonQueueFull(daemonId: string, capacity: number): HarnError {
    const message = `Daemon queue full: daemon '${daemonId}' reached its event_queue_capacity of ${capacity}`;
    const data = HDict.of({ kind: "daemon_queue_full", message, daemon_id: daemonId, capacity });
    return new HarnError("daemonQueueFull", message, data, null);
  }

  /** The one-line description (spec/semantics.md §8.1). */
  description(): string {
    switch (this.kind) {
      case "thrown":
        return "Thrown: " + displayForError(this.value);
      case "runtime":
        return "Runtime error: " + this.message;
      case "type":
        return "Type error: " + this.message;
      case "undefinedVariable":
        return "Undefined variable: " + this.message;
      case "undefinedBuiltin":
        return "Undefined builtin: " + this.message;
      case "immutable":
        return "Cannot assign to immutable binding: " + this.message;
      case "divisionByZero":
        return "Division by zero";
      case "stackOverflow":
        return "Stack overflow: too many nested calls";
      case "categorized":
        return `Error [${this.category}]: ${this.message}`;
      case "daemonQueueFull":
        return this.message;
    }
  }

  /** What `catch (e)` binds and what a `try { }` Err carries: the thrown
   * value itself, or the description string for every other kind. */
  caughtValue(): Value {
    return this.kind === "thrown" ? this.value : this.description();
  }

  /** [extension] What `catch (e: dict)` binds, or null when the error has
   * no dict form: a thrown dict, and the daemon queue-full error as
   * `{kind: "daemon_queue_full", message, daemon_id, capacity}`. */
  dictForm(): HDict | null {
    if (this.kind === "thrown" || this.kind === "daemonQueueFull") return this.value instanceof HDict ? this.value : null;
    return null;
  }

  /**
   * The form an error takes when it escapes a whole execution context (the
   * program, a callback run by a builtin, a task body): Runtime and Type
   * errors get ` (line N)`; the bare kinds become Runtime errors with the
   * suffix; thrown and categorized errors are unchanged (§8.1).
   */
  escaped(line: number): HarnError {
    if (line <= 0 || this.suffixed) return this;
    let next: HarnError;
    switch (this.kind) {
      case "thrown":
      case "categorized":
      case "daemonQueueFull":
        return this;
      case "runtime":
        next = HarnError.runtime(`${this.message} (line ${line})`);
        break;
      case "type":
        next = HarnError.type(`${this.message} (line ${line})`);
        break;
      default:
        next = HarnError.runtime(`${this.description()} (line ${line})`);
    }
    next.span = this.span;
    next.file = this.file;
    next.frames = this.frames;
    next.line = line;
    next.suffixed = true;
    return next;
  }
}

export function isHarnError(e: unknown): e is HarnError {
  return e instanceof HarnError;
}
