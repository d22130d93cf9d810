/**
 * The artifact builtins (spec/workflows.md §4.1, §4.2): `artifact`, the
 * helper constructors, `artifact_derive`, and selection and rendering.
 */
import { HDict, type Runtime, type Value } from "@harn/vm";
import { stringifyJsonKeepingFloats, toJson } from "../../core/json";
import { builtinModule } from "../../registry/define";
import { canonicalKind, fail, normalizeArtifact, unifiedDiff } from "./record";
import { assembleContext } from "./assemble";
import { handoffContext, normalizeHandoff } from "./handoff";
import { artifactList, parseContextPolicy, renderArtifacts, selectAdaptive, selectArtifacts } from "./select";

/** Keys a helper's trailing options dict may set. */
const OPTION_KEYS = ["id", "title", "text", "source", "stage", "freshness", "priority", "relevance", "estimated_tokens", "lineage", "metadata", "data"];

interface Draft {
  kind: string;
  title: string;
  text: string | null;
  data: Record<string, Value>;
  metadata: Record<string, Value>;
  lineage?: Value[];
}

const asText = (v: Value): string => (typeof v === "string" ? v : stringifyJsonKeepingFloats(toJson(v)));

/** A required argument: present and not an empty string. */
function required(builtin: string, args: Value[], i: number, field: string): Value {
  const v = args[i] ?? null;
  if (v === null || v === "") throw fail(`${builtin}: missing ${field}`);
  return v;
}

function targetOf(builtin: string, args: Value[]): HDict {
  const t = args[0] ?? null;
  if (!(t instanceof HDict)) throw fail(`${builtin}: missing target artifact`);
  return t;
}

const label = (t: HDict): string => {
  const title = t.get("title");
  return typeof title === "string" && title !== "" ? title : String(t.get("id") ?? "");
};

function targetDraft(t: HDict, kind: string, title: string, text: string | null, extra: Record<string, Value>, metaKeys: string[]): Draft {
  const data: Record<string, Value> = { target_artifact_id: t.get("id"), target_kind: t.get("kind"), ...extra };
  const lineage = t.get("lineage");
  return {
    kind,
    title,
    text,
    data,
    metadata: Object.fromEntries(metaKeys.map((k) => [k, data[k]!])),
    lineage: [...(Array.isArray(lineage) ? lineage : []), t.get("id")],
  };
}

/** Build the helper's artifact: the draft, then the options' overrides. */
function build(rt: Runtime, draft: Draft, options: Value): HDict {
  if (options !== null && !(options instanceof HDict)) throw fail("artifact helper options must be a dict or nil");
  const m = new Map<string, Value>([
    ["kind", draft.kind],
    ["title", draft.title],
    ["text", draft.text],
    ["data", HDict.of(draft.data)],
  ]);
  let metadata = HDict.of(draft.metadata);
  let lineage: Value[] = [];
  if (options instanceof HDict) {
    for (const k of OPTION_KEYS) {
      if (!options.has(k)) continue;
      const v = options.get(k);
      if (k === "metadata") {
        if (v instanceof HDict) for (const key of v.keys()) metadata = metadata.with(key, v.get(key));
      } else if (k === "lineage") lineage = Array.isArray(v) ? v.slice() : [];
      else m.set(k, v);
    }
  }
  m.set("metadata", metadata);
  m.set("lineage", [...lineage, ...(draft.lineage ?? [])]);
  return normalizeArtifact(rt, new HDict(m));
}

type Helper = { params: number; draft: (args: Value[], name: string) => Draft };

const HELPERS: Record<string, Helper> = {
  artifact_workspace_file: {
    params: 2,
    draft: (a, n) => {
      const path = asText(required(n, a, 0, "path"));
      const content = asText(required(n, a, 1, "content"));
      return { kind: "workspace_file", title: path, text: content, data: { path, content }, metadata: { path } };
    },
  },
  artifact_workspace_snapshot: {
    params: 2,
    draft: (a, n) => {
      const paths = required(n, a, 0, "paths");
      const summary = a[1] ?? null;
      return { kind: "workspace_snapshot", title: "workspace snapshot", text: summary === null ? null : asText(summary), data: { paths }, metadata: { paths } };
    },
  },
  artifact_editor_selection: {
    params: 2,
    draft: (a, n) => {
      const path = asText(required(n, a, 0, "path"));
      const text = asText(required(n, a, 1, "text"));
      return { kind: "editor_selection", title: `selection ${path}`, text, data: { path, text }, metadata: { path } };
    },
  },
  artifact_verification_result: { params: 2, draft: (a, n) => titled("verification_result", a, n) },
  artifact_test_result: { params: 2, draft: (a, n) => titled("test_result", a, n) },
  artifact_command_result: {
    params: 2,
    draft: (a, n) => {
      const command = asText(required(n, a, 0, "command"));
      const output = a[1] ?? null;
      if (output === null) throw fail(`${n}: missing output`);
      return { kind: "command_result", title: command, text: asText(output), data: { command, output }, metadata: { command } };
    },
  },
  artifact_diff: {
    params: 3,
    draft: (a, n) => {
      const path = asText(required(n, a, 0, "path"));
      const before = a[1] ?? null;
      const after = a[2] ?? null;
      if (before === null) throw fail(`${n}: missing before`);
      if (after === null) throw fail(`${n}: missing after`);
      return { kind: "diff", title: `diff ${path}`, text: unifiedDiff(path, asText(before), asText(after)), data: { path, before, after }, metadata: { path } };
    },
  },
  artifact_git_diff: {
    params: 1,
    draft: (a, n) => {
      const diff = asText(required(n, a, 0, "diff_text"));
      return { kind: "git_diff", title: "git diff", text: diff, data: { diff }, metadata: {} };
    },
  },
  artifact_diff_review: {
    params: 2,
    draft: (a, n) => {
      const t = targetOf(n, a);
      const summary = a[1] ?? null;
      return targetDraft(t, "diff_review", `review ${label(t)}`, summary === null ? null : asText(summary), {}, ["target_artifact_id", "target_kind"]);
    },
  },
  artifact_review_decision: {
    params: 2,
    draft: (a, n) => {
      const t = targetOf(n, a);
      const decision = asText(required(n, a, 1, "decision"));
      return targetDraft(t, "review_decision", `${decision} ${label(t)}`, decision, { decision }, ["target_artifact_id", "target_kind", "decision"]);
    },
  },
  artifact_patch_proposal: {
    params: 2,
    draft: (a, n) => {
      const t = targetOf(n, a);
      const patch = asText(required(n, a, 1, "patch"));
      return targetDraft(t, "patch_proposal", `patch for ${label(t)}`, patch, { patch }, ["target_artifact_id", "target_kind"]);
    },
  },
  artifact_verification_bundle: {
    params: 2,
    draft: (a, n) => {
      const title = asText(required(n, a, 0, "title"));
      const checks = a[1] ?? null;
      if (checks === null) throw fail(`${n}: missing checks`);
      return { kind: "verification_bundle", title, text: asText(checks), data: { title, checks }, metadata: {} };
    },
  },
  artifact_apply_intent: {
    params: 2,
    draft: (a, n) => {
      const t = targetOf(n, a);
      const intent = asText(required(n, a, 1, "intent"));
      return targetDraft(t, "apply_intent", `${intent} ${label(t)}`, intent, { intent }, ["target_artifact_id", "target_kind"]);
    },
  },
};

function titled(kind: string, a: Value[], n: string): Draft {
  const title = asText(required(n, a, 0, "title"));
  const text = asText(required(n, a, 1, "text"));
  return { kind, title, text, data: { title, text }, metadata: {} };
}

export const ARTIFACT_BUILTINS = builtinModule("workflow/artifacts", (def, rt) => {
  def("artifact", (args) => {
    const p = args[0] ?? null;
    if (!(p instanceof HDict)) throw fail("artifact: missing artifact payload");
    return normalizeArtifact(rt, p);
  });
  for (const [name, h] of Object.entries(HELPERS)) {
    def(name, (args) => build(rt, h.draft(args, name), args[h.params] ?? null));
  }
  def("artifact_derive", (args) => {
    const parent = args[0] ?? null;
    if (!(parent instanceof HDict)) throw fail("artifact_derive: missing parent");
    const extra = args[2] instanceof HDict ? args[2] : null;
    const lineage = parent.get("lineage");
    let d = parent
      .with("id", `${String(parent.get("id") ?? "")}_derived`)
      .with("kind", canonicalKind(args[1] ?? null))
      .with("lineage", [...(Array.isArray(lineage) ? lineage : []), parent.get("id")]);
    // A replaced text gets its own token estimate; the rest is the parent's.
    if (extra?.has("text")) d = d.with("text", extra.get("text")).without("estimated_tokens");
    return normalizeArtifact(rt, d);
  });
  def("assemble_context", (args, ctx) => {
    const o = args[0] ?? null;
    if (!(o instanceof HDict)) throw fail("assemble_context: options must be a dict");
    return assembleContext(o, ctx);
  });
  def("handoff", (args) => normalizeHandoff(rt, args[0] ?? null));
  def("handoff_context", (args) => handoffContext(normalizeHandoff(rt, args[0] ?? null)));
  def("artifact_select", (args) => selectArtifacts(artifactList(args[0] ?? null), parseContextPolicy(args[1] ?? null)));
  def("select_artifacts_adaptive", (args) => selectAdaptive(artifactList(args[0] ?? null), parseContextPolicy(args[1] ?? null)));
  def("artifact_context", (args) => {
    const p = parseContextPolicy(args[1] ?? null);
    return renderArtifacts(selectArtifacts(artifactList(args[0] ?? null), p), p.render);
  });
});
