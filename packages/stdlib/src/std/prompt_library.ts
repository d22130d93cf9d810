/**
 * `std/prompt_library` (spec/workflows.md §5.7, P2), in Harn: prompt
 * fragments from TOML catalogs and `.harn.prompt` files, rendering,
 * suggestions, budgeted clusters, and k-means hotspots that propose new
 * fragments for review.
 */
import type { Runtime } from "@harn/vm";

const PROMPT_LIBRARY = String.raw`// std/prompt_library: bundled with the runtime
import { kmeans } from "std/math"

fn __words(text) {
  var out = []
  for t in regex_split(to_string(text).lower(), "[^\\p{L}\\p{N}_]+") {
    if t != "" && !out.contains(t) {
      out = out + [t]
    }
  }
  return out
}

fn __fragment(raw, source) {
  if type_of(raw?.id) != "string" || raw.id == "" {
    throw "prompt_library: fragment without an id in " + source
  }
  return {
    _type: "prompt_fragment",
    id: raw.id,
    title: raw?.title ?? raw.id,
    tags: raw?.tags ?? [],
    token_budget: raw?.token_budget,
    cache_ttl: raw?.cache_ttl,
    body: (raw?.body ?? "").trim(),
    source: raw?.source ?? source,
    status: raw?.status ?? "active",
    provenance: raw?.provenance,
    members: raw?.members,
  }
}

pub fn prompt_library() {
  return {_type: "prompt_library", fragments: []}
}

pub fn prompt_library_define(lib, fragment) {
  let f = __fragment(fragment, "prompt_library_define")
  var found = false
  var out = []
  for g in lib.fragments {
    if g.id == f.id {
      out = out + [f]
      found = true
    } else {
      out = out + [g]
    }
  }
  if !found {
    out = out + [f]
  }
  return lib + {fragments: out}
}

fn __load_prompt_file(path) {
  let text = read_file(path)
  if !text.starts_with("---") {
    throw "prompt_library_load: " + path + " has no --- front matter"
  }
  let rest = text.substring(3, len(text))
  let end = rest.index_of("\n---")
  if end < 0 {
    throw "prompt_library_load: " + path + " has an unterminated --- front matter"
  }
  let meta = toml_parse(rest.substring(0, end))
  return meta + {body: rest.substring(end + 4, len(rest))}
}

pub fn prompt_library_load(paths) {
  var lib = prompt_library()
  let list = if type_of(paths) == "list" { paths } else { [paths] }
  for path in list {
    if path.ends_with(".harn.prompt") {
      lib = prompt_library_define(lib, __load_prompt_file(path) + {source: path})
    } else {
      for raw in toml_parse(read_file(path))?.prompt_fragments ?? [] {
        lib = prompt_library_define(lib, raw + {source: path})
      }
    }
  }
  return lib
}

pub fn prompt_library_list(lib, options = nil) {
  let tag = options?.tag
  return lib.fragments.filter({ f -> f.status == "active" && (tag == nil || f.tags.contains(tag)) })
}

fn __find(lib, id) {
  for f in lib.fragments {
    if f.id == id {
      return f
    }
  }
  throw "prompt_library: unknown fragment '" + to_string(id) + "'"
}

pub fn prompt_library_inject(lib, id, vars = nil) {
  return render_string(__find(lib, id).body, vars ?? {})
}

pub fn prompt_library_payload(lib, id, vars = nil) {
  let f = __find(lib, id)
  let text = render_string(f.body, vars ?? {})
  return {id: f.id, title: f.title, text: text, tokens: (len(text) + 3) / 4, token_budget: f.token_budget, cache_ttl: f.cache_ttl, cache_control: {type: "ephemeral"}}
}

pub fn prompt_library_suggest(lib, options = nil) {
  let words = __words(options?.query ?? "")
  let tags = options?.tags ?? []
  var scored = []
  for f in prompt_library_list(lib) {
    let have = __words(f.title + " " + f.body + " " + f.tags.join(" "))
    let score = len(words.filter({ w -> have.contains(w) })) + 2 * len(tags.filter({ t -> f.tags.contains(t) }))
    if score > 0 {
      scored = scored + [{id: f.id, title: f.title, tags: f.tags, score: score}]
    }
  }
  return scored.sort_by({ s -> 0 - s.score }).take(options?.limit ?? 5)
}

pub fn prompt_library_inject_cluster(lib, options, vars = nil) {
  let budget = options?.max_tokens
  var texts = []
  var ids = []
  var dropped = []
  var used = 0
  for f in prompt_library_list(lib, {tag: options?.tag}) {
    let text = render_string(f.body, vars ?? {})
    let tokens = (len(text) + 3) / 4
    if budget != nil && used + tokens > budget {
      dropped = dropped + [f.id]
    } else {
      texts = texts + [text]
      ids = ids + [f.id]
      used = used + tokens
    }
  }
  return {text: texts.join("\n\n"), ids: ids, tokens: used, dropped: dropped}
}

pub fn prompt_library_api(lib) {
  return {
    list: { options -> prompt_library_list(lib, options) },
    inject: { id, vars -> prompt_library_inject(lib, id, vars) },
    payload: { id, vars -> prompt_library_payload(lib, id, vars) },
    suggest: { options -> prompt_library_suggest(lib, options) },
    inject_cluster: { options, vars -> prompt_library_inject_cluster(lib, options, vars) },
  }
}

// A conversation's vector: its embedding, else word presence over the tenant's vocabulary.
fn __vectors(convs) {
  if convs.all({ c -> c?.embedding != nil }) {
    return convs.map({ c -> c.embedding })
  }
  var vocab = []
  for c in convs {
    for w in __words(c.text) {
      if !vocab.contains(w) {
        vocab = vocab + [w]
      }
    }
  }
  return convs.map({ c -> __words(c.text) }).map({ ws -> vocab.map({ v -> if ws.contains(v) { 1.0 } else { 0.0 } }) })
}

pub fn prompt_library_hotspots(conversations, options = nil) {
  let tenant = options?.tenant_id
  let convs = conversations.filter({ c -> tenant == nil || c?.tenant_id == tenant })
  if len(convs) < 2 {
    return []
  }
  let k = min(options?.k ?? 2, len(convs))
  let min_shared = options?.min_shared_tokens ?? 3
  let clusters = kmeans(__vectors(convs), k).assignments
  var proposals = []
  for c in range(0, k) {
    var members = []
    var shared = nil
    for i in range(0, len(convs)) {
      if clusters[i] == c {
        members = members + [convs[i]?.id ?? i]
        let ws = __words(convs[i].text)
        shared = if shared == nil { ws } else { shared.filter({ w -> ws.contains(w) }) }
      }
    }
    if len(members) >= 2 && len(shared) >= min_shared {
      let savings = to_float(len(shared)) * to_float(options?.dollars_per_token ?? 0.0) * to_float(options?.daily_invocation_count ?? 0)
      proposals = proposals + [{
        id: "hotspot-" + to_string(tenant ?? "all") + "-" + to_string(len(proposals) + 1),
        title: "Shared prompt of " + to_string(len(members)) + " conversations",
        provenance: "kmeans",
        tenant_id: tenant,
        body: shared.join(" "),
        shared_tokens: len(shared),
        members: members,
        estimated_daily_savings: savings,
        status: "proposed",
        tags: ["hotspot"],
      }]
    }
  }
  return proposals
}

pub fn prompt_library_review_queue(lib) {
  return lib.fragments.filter({ f -> f.status == "proposed" })
}
`;

export function installPromptLibraryStdModule(rt: Runtime): void {
  rt.stdModules.set("std/prompt_library", PROMPT_LIBRARY);
}
