import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { display, HBytes } from "@harn/vm";
import { raised, rig } from "./harness";

const root = mkdtempSync(join(tmpdir(), "harn-fs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("files, resolved against the execution root", () => {
  const r = rig({ cwd: root });

  it("writes, reads, appends and checks existence", () => {
    expect(r.call("write_file", "a.txt", 42)).toBe(null);
    expect(r.call("read_file", "a.txt")).toBe("42");
    r.call("append_file", "a.txt", "\nmore");
    expect(r.call("read_file", join(root, "a.txt"))).toBe("42\nmore");
    expect(r.call("file_exists", "a.txt")).toBe(true);
    expect(r.call("file_exists", "nope")).toBe(false);
    r.call("write_file", "only-one-arg");
    expect(r.call("file_exists", "only-one-arg")).toBe(false);
  });

  it("reports the resolved path and the Rust io::Error text", async () => {
    expect((await raised(() => r.call("read_file", "missing.txt"))).caughtValue()).toBe(
      `Failed to read file ${root}/missing.txt: No such file or directory (os error 2)`,
    );
    expect((await raised(() => r.call("write_file", "no/dir/x.txt", "x"))).caughtValue()).toBe(
      `Failed to write file ${root}/no/dir/x.txt: No such file or directory (os error 2)`,
    );
    r.call("mkdir", "adir");
    expect((await raised(() => r.call("read_file", "adir"))).caughtValue()).toBe(`Failed to read file ${root}/adir: Is a directory (os error 21)`);
    writeFileSync(join(root, "bad.bin"), Buffer.from([0x61, 0xff]));
    expect((await raised(() => r.call("read_file", "bad.bin"))).caughtValue()).toBe(
      `Failed to read file ${root}/bad.bin: stream did not contain valid UTF-8`,
    );
    expect((await raised(() => r.call("read_file", "a\u0000b"))).caughtValue()).toBe(
      `Failed to read file ${root}/a\u0000b: file name contained an unexpected NUL byte`,
    );
    expect(display(r.call("read_file_result", "missing.txt"))).toBe(
      `Result.Err(Failed to read file ${root}/missing.txt: No such file or directory (os error 2))`,
    );
  });

  // Node's own recursive mkdir spins forever on procfs, which answers ENOENT
  // for a new directory whose parent exists.
  it.runIf(existsSync("/proc/self"))("mkdir under /proc fails with the OS error instead of hanging", async () => {
    expect((await raised(() => r.call("mkdir", "/proc/harn-no-such/deep"))).caughtValue()).toBe(
      "Failed to create directory /proc/harn-no-such/deep: No such file or directory (os error 2)",
    );
  });

  it("mkdir -p, list_dir sorted by code point, delete_file recursive", async () => {
    r.call("mkdir", "tree/sub/deep");
    r.call("mkdir", "tree/sub/deep");
    r.call("write_file", "tree/b", "");
    r.call("write_file", "tree/.hidden", "");
    r.call("write_file", "tree/B", "");
    expect(r.call("list_dir", "tree")).toEqual([".hidden", "B", "b", "sub"]);
    r.call("write_file", "tree/file", "");
    expect((await raised(() => r.call("mkdir", "tree/file"))).caughtValue()).toBe(`Failed to create directory ${root}/tree/file: File exists (os error 17)`);
    expect((await raised(() => r.call("mkdir", "tree/file/below"))).caughtValue()).toBe(
      `Failed to create directory ${root}/tree/file/below: Not a directory (os error 20)`,
    );
    r.call("delete_file", "tree");
    expect(r.call("file_exists", "tree")).toBe(false);
    expect((await raised(() => r.call("delete_file", "tree"))).caughtValue()).toBe(
      `Failed to delete file ${root}/tree: No such file or directory (os error 2)`,
    );
    expect((await raised(() => r.call("list_dir", "tree"))).caughtValue()).toBe(
      `Failed to list directory ${root}/tree: No such file or directory (os error 2)`,
    );
  });

  it("copy, move, read_lines, stat, bytes", async () => {
    r.call("write_file", "src.txt", "l1\r\nl2\n");
    r.call("copy_file", "src.txt", "copy.txt");
    expect(r.call("read_lines", "copy.txt")).toEqual(["l1", "l2"]);
    r.call("move_file", "copy.txt", "moved.txt");
    expect(r.call("file_exists", "copy.txt")).toBe(false);
    expect(r.call("read_file", "moved.txt")).toBe("l1\r\nl2\n");
    expect((await raised(() => r.call("move_file", "x"))).caughtValue()).toBe("move_file: src and dst are required");
    expect((await raised(() => r.call("copy_file", "nope", "x"))).caughtValue()).toBe(
      `Failed to copy ${root}/nope to ${root}/x: No such file or directory (os error 2)`,
    );
    const st = r.call("stat", "moved.txt");
    expect(display(st)).toMatch(/^\{is_dir: false, is_file: true, modified: \d+\.\d+, readonly: false, size: 7\}$/);
    r.call("write_file_bytes", "b.bin", new HBytes(new Uint8Array([0, 255])));
    expect(display(r.call("read_file_bytes", "b.bin"))).toBe('b"00ff"');
    expect((await raised(() => r.call("write_file_bytes", "b.bin", "s"))).caughtValue()).toBe("write_file_bytes expects bytes content, got string");
  });

  it("file_exists follows symlinks", () => {
    symlinkSync(join(root, "dangling-target"), join(root, "link"));
    expect(r.call("file_exists", "link")).toBe(false);
    r.call("write_file", "dangling-target", "");
    expect(r.call("file_exists", "link")).toBe(true);
  });
});

describe("paths", () => {
  const r = rig({ cwd: root, env: { TMPDIR: "/custom/tmp/", HOME: "/home/u" } });
  it("path_join pushes parts like Rust PathBuf", () => {
    expect(r.call("path_join", "a", "/b", "c")).toBe("/b/c");
    expect(r.call("path_join", "a/", "b")).toBe("a/b");
    expect(r.call("path_join", "a", "")).toBe("a/");
    expect(r.call("path_join", "a", 1, "../x")).toBe("a/1/../x");
    expect(r.call("path_join")).toBe("");
  });
  it("dirname, basename, extname", () => {
    expect(r.call("dirname", "/a/b/tool")).toBe("/a/b");
    expect(r.call("dirname", "file.txt")).toBe("");
    expect(r.call("dirname", "/")).toBe("");
    expect(r.call("dirname", "a/b/")).toBe("a");
    expect(r.call("basename", "/a/b/z.txt")).toBe("z.txt");
    expect(r.call("basename", "a/b/")).toBe("b");
    expect(r.call("basename", "..")).toBe("");
    expect(r.call("extname", "bundle.min.js")).toBe(".js");
    expect(r.call("extname", ".bashrc")).toBe("");
    expect(r.call("extname", "file.")).toBe(".");
  });
  it("pure path helpers", () => {
    expect(r.call("path_normalize", "a/./b/../../..//c/")).toBe("../c");
    expect(r.call("path_normalize", "/../a")).toBe("/a");
    expect(r.call("path_normalize", "a/..")).toBe(".");
    expect(r.call("path_relative_to", "/a/b/c", "/a/d")).toBe("../b/c");
    expect(r.call("path_relative_to", "a", "/a")).toBe(null);
    expect(r.call("path_parent", "/x")).toBe("/");
    expect(r.call("path_parent", "x")).toBe("");
    expect(r.call("path_with_extension", "a/b.txt", "md")).toBe("a/b.md");
    expect(r.call("path_with_stem", "a/b.txt", "c")).toBe("a/c.txt");
    expect(display(r.call("path_parts", "C:\\dir\\f.tar.gz"))).toBe("{dir: C:/dir, ext: .gz, file: f.tar.gz, segments: [dir, f.tar.gz], stem: f.tar}");
    expect(r.call("path_is_absolute", "C:/x")).toBe(true);
  });
  it("runtime locations", () => {
    expect(r.call("temp_dir")).toBe("/custom/tmp/");
    expect(r.call("cwd")).toBe(root);
    expect(r.call("home_dir")).toBe("/home/u");
    expect(r.call("project_root")).toBe(null);
    writeFileSync(join(root, "harn.toml"), "");
    r.call("mkdir", "proj/inner");
    const inner = rig({ cwd: join(root, "proj/inner"), env: {} });
    expect(inner.call("project_root")).toBe(root);
    const paths = inner.call("runtime_paths");
    expect(display(paths)).toContain(`run_root: ${root}/.harn-runs`);
    expect(display(paths)).toContain(`worktree_root: ${root}/.harn/worktrees`);
  });
});

describe("workspace paths", () => {
  const r = rig({ cwd: "/work/repo", env: {} });
  it("classifies relative, absolute-inside, absolute-outside and escaping paths", () => {
    expect(display(r.call("path_workspace_info", "src/./a.harn"))).toBe(
      "{host_path: /work/repo/src/a.harn, input: src/./a.harn, kind: workspace_relative, normalized: src/a.harn, reason: nil, recovered_root_drift: false, workspace_path: src/a.harn}",
    );
    expect(r.call("path_workspace_normalize", "/work/repo/lib/x.harn")).toBe("lib/x.harn");
    expect(r.call("path_workspace_normalize", "/etc/passwd")).toBe(null);
    expect((r.call("path_workspace_info", "../outside") as import("@harn/vm").HDict).get("kind")).toBe("invalid");
    expect(r.call("path_workspace_normalize", "a/b", "/other")).toBe("a/b");
  });
  it("reports an empty path and a NUL byte as invalid, with the reference's reasons", () => {
    expect((r.call("path_workspace_info", " \t") as import("@harn/vm").HDict).get("reason")).toBe("path is empty");
    expect((r.call("path_workspace_info", "a\0b") as import("@harn/vm").HDict).get("reason")).toBe("path contains NUL bytes");
  });
});

describe("delete_file with an empty path", () => {
  it("refuses instead of deleting the whole execution root", async () => {
    const own = mkdtempSync(join(tmpdir(), "harn-fs-empty-"));
    try {
      writeFileSync(join(own, "keep.txt"), "x");
      const r = rig({ cwd: own });
      for (const args of [[""], []] as unknown[][]) {
        const e = await raised(() => r.call("delete_file", ...(args as never[])));
        expect(e.caughtValue()).toBe(`Failed to delete file ${own}/: refusing to delete the execution root (empty path)`);
      }
      expect(r.call("file_exists", "keep.txt")).toBe(true);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
