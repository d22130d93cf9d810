/**
 * Rust `io::Error` texts for Node system errors (spec/stdlib.md §2.5):
 * `No such file or directory (os error 2)` and friends, with Linux errno
 * numbers.
 */

const TEXTS: Record<string, [string, number]> = {
  EPERM: ["Operation not permitted", 1],
  ENOENT: ["No such file or directory", 2],
  EIO: ["Input/output error", 5],
  ENOEXEC: ["Exec format error", 8],
  EBADF: ["Bad file descriptor", 9],
  EAGAIN: ["Resource temporarily unavailable", 11],
  ENOMEM: ["Cannot allocate memory", 12],
  EACCES: ["Permission denied", 13],
  EBUSY: ["Device or resource busy", 16],
  EEXIST: ["File exists", 17],
  EXDEV: ["Invalid cross-device link", 18],
  ENOTDIR: ["Not a directory", 20],
  EISDIR: ["Is a directory", 21],
  EINVAL: ["Invalid argument", 22],
  EMFILE: ["Too many open files", 24],
  ETXTBSY: ["Text file busy", 26],
  EFBIG: ["File too large", 27],
  ENOSPC: ["No space left on device", 28],
  EROFS: ["Read-only file system", 30],
  EMLINK: ["Too many links", 31],
  EPIPE: ["Broken pipe", 32],
  ENAMETOOLONG: ["File name too long", 36],
  ENOTEMPTY: ["Directory not empty", 39],
  ELOOP: ["Too many levels of symbolic links", 40],
};

interface SystemError {
  code?: string;
  errno?: number;
  message?: string;
}

/** glibc's strerror text for a Node error code (`ENOENT` -> `No such file
 * or directory`), or undefined for codes not in the table. */
export function strerrorText(code: string | undefined): string | undefined {
  return code ? TEXTS[code]?.[0] : undefined;
}

/** The Rust-style description of a Node fs/child_process error. */
export function osErrorText(e: unknown): string {
  const err = (e ?? {}) as SystemError;
  // Node rejects NUL bytes before any system call; Rust reports InvalidInput
  if (err.code === "ERR_INVALID_ARG_VALUE" && /null bytes/.test(err.message ?? "")) return "file name contained an unexpected NUL byte";
  // Node refuses to spawn an empty program name; exec("") in Rust reaches
  // execvp, which fails with ENOENT
  if (err.code === "ERR_INVALID_ARG_VALUE" && /cannot be empty/.test(err.message ?? "")) return `${TEXTS.ENOENT![0]} (os error 2)`;
  const known = err.code ? TEXTS[err.code] : undefined;
  if (known) return `${known[0]} (os error ${known[1]})`;
  if (typeof err.errno === "number" && err.code) return `${err.code} (os error ${Math.abs(err.errno)})`;
  return err.message ?? String(e);
}
