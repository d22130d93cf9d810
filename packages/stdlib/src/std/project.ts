/**
 * `std/project` (spec/workflows.md §5.2), in Harn over the native scans of
 * stdlib workflow/project: enrichment through one model call with a
 * content-addressed cache, deep scans whose per-namespace state makes an
 * unchanged directory a cache hit, and the metadata helpers.
 *
 * Written with String.raw so the Harn text reads as in a `.harn` file
 * (`\n` stays an escape of Harn's); it avoids `${` and backticks.
 */
import type { Runtime } from "@harn/vm";

const PROJECT = String.raw`// std/project: bundled with the runtime
fn __cache_dir(kind) {
  return path_join(runtime_paths().state_root, "cache", kind)
}

fn __abs(path) {
  let p = path ?? "."
  if path_is_absolute(p) {
    return p
  }
  return path_normalize(path_join(cwd(), p))
}

fn __tokens(text) {
  return (len(text) + 3) / 4
}

fn __parse_json(text) {
  return try { json_parse(text.trim()) } catch (e) { nil }
}

// The schema violation of a parsed answer, or nil when it conforms.
fn __violation(parsed, schema) {
  if parsed == nil {
    return "the answer is not valid JSON"
  }
  if schema == nil {
    return nil
  }
  let checked = schema_check(parsed, schema)
  if is_ok(checked) {
    return nil
  }
  return unwrap_err(checked).message
}

fn __retry_message(problem) {
  return "Your previous answer does not satisfy the JSON schema: " + problem + ". Reply with a single JSON value that satisfies the schema, and nothing else."
}

fn __call_options(options) {
  var out = {}
  for k in ["provider", "model"] {
    if options != nil && options[k] != nil {
      out = out + {[k]: options[k]}
    }
  }
  return out
}

// One model call, retried while the answer violates the schema: {value, error, attempts, provider, model}.
fn __ask_json(prompt, schema, retries, options) {
  var messages = [{role: "user", content: prompt}]
  var attempts = 0
  var problem = nil
  var reply = nil
  while true {
    attempts = attempts + 1
    reply = llm_call(prompt, nil, __call_options(options) + {messages: messages})
    let parsed = __parse_json(reply.text)
    problem = __violation(parsed, schema)
    if problem == nil {
      return {value: parsed, error: nil, attempts: attempts, provider: reply.provider, model: reply.model}
    }
    if attempts > retries {
      return {value: nil, error: "response does not match the schema: " + problem, attempts: attempts, provider: reply.provider, model: reply.model}
    }
    messages = messages + [{role: "assistant", content: reply.text}, {role: "user", content: __retry_message(problem)}]
  }
}

pub fn project_catalog() {
  return project_catalog_native()
}

pub fn project_scan(path = ".", options = nil) {
  return project_scan_native(path, options)
}

pub fn project_scan_tree(path = ".", options = nil) {
  return project_scan_tree_native(path, options)
}

pub fn project_scan_paths(path = ".", options = nil) {
  return project_walk_tree_native(path, options)
}

fn __files(root, evidence) {
  var files = []
  for rel in evidence?.source_files ?? [] {
    let content = try { read_file(path_join(root, rel)) } catch (e) { nil }
    if content != nil {
      files = files + [{path: rel, content: content}]
    }
  }
  return files
}

pub fn project_enrich(path = ".", options = nil) {
  let root = __abs(path)
  let base = options?.base_evidence ?? project_scan(root)
  let files = __files(root, base)
  let template = options?.prompt ?? "Describe the project at {{ path }}."
  let prompt = render_string(template, {path: path ?? ".", package_name: base?.package_name, files: files})
  let budget = options?.budget_tokens
  let tokens = __tokens(prompt)
  if budget != nil && tokens > budget {
    return base + {budget_exceeded: true, prompt_tokens: tokens, budget_tokens: budget}
  }
  let schema = options?.schema
  let hashes = files.map({ f -> [f.path, sha256(f.content)] })
  let key = sha256(json_stringify([options?.cache_key, template, schema, options?.provider, options?.model, hashes]))
  let cache_file = path_join(__cache_dir("project_enrich"), key + ".json")
  var meta = {cache_key: options?.cache_key, cache_hash: key, files: files.map({ f -> f.path })}
  if options?.include_operator_meta == true {
    meta = meta + {operator: {prompt_tokens: tokens, budget_tokens: budget, file_count: len(files)}}
  }
  if file_exists(cache_file) {
    let cached = __parse_json(read_file(cache_file))
    if cached != nil {
      return cached.value + {_provenance: cached.provenance + meta + {cached: true}}
    }
  }
  let answer = __ask_json(prompt, schema, options?.schema_retries ?? 0, options)
  let provenance = meta + {cached: false, provider: answer.provider, model: answer.model, attempts: answer.attempts}
  if answer.error != nil {
    return {validation_error: answer.error, base_evidence: base, _provenance: provenance}
  }
  if type_of(answer.value) != "dict" {
    return {validation_error: "response does not match the schema: the answer is not a JSON object", base_evidence: base, _provenance: provenance}
  }
  mkdir(__cache_dir("project_enrich"))
  write_file(cache_file, json_stringify({value: answer.value, provenance: {provider: answer.provider, model: answer.model, attempts: answer.attempts}}))
  return answer.value + {_provenance: provenance}
}

fn __deep_state_file(namespace, root) {
  return path_join(__cache_dir("project_deep_scan"), sha256(namespace + "\n" + root) + ".json")
}

fn __deep_state(namespace, root) {
  let file = __deep_state_file(namespace, root)
  if !file_exists(file) {
    return nil
  }
  return __parse_json(read_file(file))
}

fn __enrich_dir(rel, dir, config, enrichment) {
  let evidence = project_scan_native(dir, {tiers: ["ambient", "config"]})
  let files = __files(dir, evidence)
  let prompt = render_string(enrichment?.prompt ?? "Describe the directory {{ path }}.", {path: rel, package_name: config?.package_name ?? evidence.package_name, files: files})
  let message = prompt + "\n\nDirectory: " + rel + "\nEntries: " + list_dir(dir).join(", ")
  let budget = enrichment?.budget_tokens_per_dir
  if budget != nil && __tokens(message) > budget {
    return {called: false, value: {budget_exceeded: true, prompt_tokens: __tokens(message), budget_tokens: budget}}
  }
  let answer = __ask_json(message, enrichment?.schema, enrichment?.schema_retries ?? 0, enrichment)
  if answer.error != nil {
    return {called: true, value: {validation_error: answer.error}}
  }
  return {called: true, value: answer.value}
}

pub fn project_deep_scan(path = ".", options = nil) {
  let root = __abs(path)
  let namespace = options?.namespace ?? "default"
  let tiers = options?.tiers ?? ["ambient", "config"]
  let incremental = options?.incremental != false
  let enrichment = options?.enrichment
  let previous = if incremental { __deep_state(namespace, root)?.dirs ?? {} } else { {} }
  var out = {}
  var saved = {}
  var hits = 0
  var calls = 0
  for rel in project_walk_tree_native(root, options) {
    let dir = if rel == "." { root } else { path_join(root, rel) }
    let hash = project_content_hash_native(dir)
    let before = previous[rel]
    let hit = before != nil && before.content_hash == hash
    if hit {
      hits = hits + 1
    }
    var entry = {}
    if tiers.contains("ambient") {
      entry = entry + {ambient: project_scan_native(dir, {tiers: ["ambient"]})}
    }
    if tiers.contains("config") {
      entry = entry + {config: project_scan_native(dir, {tiers: ["config"]})}
    }
    var enriched = nil
    if tiers.contains("enriched") && enrichment != nil {
      if hit && before.enriched != nil {
        enriched = before.enriched
      } else {
        let e = __enrich_dir(rel, dir, entry?.config, enrichment)
        if e.called {
          calls = calls + 1
        }
        enriched = e.value
      }
      entry = entry + {enriched: enriched}
    }
    out = out + {[rel]: entry}
    saved = saved + {[rel]: {content_hash: hash, enriched: enriched}}
  }
  let total = len(out.keys())
  let status = {namespace: namespace, root: root, total_dirs: total, cache_hits: hits, cache_misses: total - hits, llm_calls: calls, incremental: incremental, tiers: tiers, scanned_at: date_now_iso()}
  mkdir(__cache_dir("project_deep_scan"))
  write_file(__deep_state_file(namespace, root), json_stringify({namespace: namespace, root: root, dirs: saved, status: status}))
  return out
}

pub fn project_deep_scan_status(namespace = "default", path = ".") {
  return __deep_state(namespace, __abs(path))?.status
}

pub fn metadata_namespace(dir, namespace) {
  return metadata_resolve(dir, namespace)
}

pub fn metadata_local_namespace(dir, namespace) {
  return metadata_get(dir, namespace)
}

pub fn project_inventory(namespace = "classification") {
  return {entries: metadata_entries(namespace), status: metadata_status(namespace)}
}

pub fn project_stale(namespace = "classification") {
  return metadata_status(namespace).stale
}

pub fn project_stale_dirs(namespace = "classification") {
  let stale = project_stale(namespace)
  return (stale.tier1 + stale.tier2).sort()
}

pub fn project_requires_refresh(namespace = "classification") {
  let status = metadata_status(namespace)
  return status.stale.any_stale || len(status.missing_content_hash) > 0
}

pub fn project_root_package() {
  return project_scan_native(project_root() ?? cwd(), {tiers: ["config"]}).package_name ?? ""
}
`;

export function installProjectStdModule(rt: Runtime): void {
  rt.stdModules.set("std/project", PROJECT);
}
