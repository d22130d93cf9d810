/**
 * `std/worktree` (spec/workflows.md §5.12), in Harn: thin wrappers over
 * `exec_at` / `shell_at` running git. Each returns the exec result dict
 * (`success`, `status`, `stdout`, `stderr`) unless noted.
 */
import type { Runtime } from "@harn/vm";

const WORKTREE = String.raw`// std/worktree: bundled with the runtime
pub fn worktree_default_path(repo, name) {
  return repo + "/.harn/worktrees/" + name
}

pub fn worktree_create(repo, name, base_ref = "HEAD", path = nil) {
  let target = path ?? worktree_default_path(repo, name)
  mkdir(path_join(repo, ".harn", "worktrees"))
  let result = exec_at(repo, "git", "worktree", "add", "-B", name, target, base_ref ?? "HEAD")
  return {repo: repo, name: name, path: target, base_ref: base_ref ?? "HEAD", result: result, success: result.success}
}

pub fn worktree_remove(repo, path, force = false) {
  if force {
    return exec_at(repo, "git", "worktree", "remove", "--force", path)
  }
  return exec_at(repo, "git", "worktree", "remove", path)
}

pub fn worktree_status(path) {
  return exec_at(path, "git", "status", "--short", "--branch")
}

pub fn worktree_diff(path, base_ref = nil) {
  if base_ref == nil || base_ref == "" {
    return exec_at(path, "git", "diff", "--stat")
  }
  return exec_at(path, "git", "diff", base_ref + "...HEAD")
}

pub fn worktree_shell(path, script) {
  return shell_at(path, script)
}
`;

export function installWorktreeStdModule(rt: Runtime): void {
  rt.stdModules.set("std/worktree", WORKTREE);
}
