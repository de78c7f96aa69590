//! The module graph of one crate, read from its files: which module imports which, at the
//! level of the crate's top-level modules (the crate root, `lib.rs` or a binary's `main.rs`, is
//! the node `crate`) and between the sibling submodules of every module; its circles; and the
//! imports that run against a declared layer order.

use super::paths::{named_paths, Kind, Named};
use super::source::{code_only, without_test_items};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The name of the crate root (`lib.rs`, `main.rs`) among the top-level modules.
pub const ROOT: &str = "crate";

/// A source file of the crate: its path (as messages show it), its module path and its code
/// with comments, literals and test items removed.
pub struct ModuleFile {
    pub path: String,
    pub module: Vec<String>,
    pub code: String,
}

impl ModuleFile {
    /// A file at `rel` under the crate's `src` (`lib.rs`, `data/mod.rs`, `data/read.rs`),
    /// shown in messages as `shown`.
    pub fn new(rel: &str, shown: &str, text: &str) -> ModuleFile {
        ModuleFile::in_module(module_of(rel), shown, text)
    }

    /// The file of `module`, shown in messages as `shown`.
    pub fn in_module(module: Vec<String>, shown: &str, text: &str) -> ModuleFile {
        ModuleFile {
            path: shown.to_string(),
            module,
            code: without_test_items(&code_only(text)),
        }
    }
}

/// The module path of a file under `src`: `lib.rs` (a library) and `main.rs` (a binary) are
/// the root, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
pub fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// One import between two modules of one level, with the place that makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// The module whose children the two are (empty: the top level).
    pub level: Vec<String>,
    pub from: String,
    pub to: String,
    /// The importing file and line, and the path as written.
    pub file: String,
    pub line: usize,
    pub name: String,
}

impl Edge {
    fn evidence(&self) -> String {
        format!("{}:{} imports {}", self.file, self.line, self.name)
    }
}

/// Every module import of the crate, at each level.
pub fn edges(files: &[ModuleFile]) -> Vec<Edge> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let named: Vec<(&ModuleFile, Vec<Named>)> =
        files.iter().map(|f| (f, named_paths(&f.code))).collect();
    // The names each module binds with its top-level `use` declarations.
    let mut bindings: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (file, paths) in &named {
        for path in paths {
            if let Kind::ModuleUse { binding } = &path.kind {
                if let Some(target) = absolute(&file.module, &path.segments, &modules) {
                    bindings
                        .entry(file.module.clone())
                        .or_default()
                        .insert(binding.clone(), target);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (file, paths) in &named {
        for path in paths {
            let Some(target) = absolute(&file.module, &path.segments, &modules) else {
                continue;
            };
            let owner = owning_module(&target, &modules, &bindings, 0);
            if let Some(edge) = edge_between(&file.module, &owner) {
                let (level, from, to) = edge;
                out.push(Edge {
                    level,
                    from,
                    to,
                    file: file.path.clone(),
                    line: path.line,
                    name: path.written(),
                });
            }
        }
    }
    out
}

/// A path named in `module` made absolute (from the crate root), or `None` when it does not
/// start in this crate (an external crate, a local name, a type's associated item).
fn absolute(
    module: &[String],
    segments: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let first = segments.first()?.as_str();
    match first {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some([module, &segments[1..]].concat()),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = module.get(..module.len().checked_sub(ups)?)?;
            Some([base, &segments[ups..]].concat())
        }
        _ => {
            let child = [module, &segments[..1]].concat();
            modules
                .contains(&child)
                .then(|| [module, segments].concat())
        }
    }
}

/// The module that defines what an absolute path names: submodules followed, names a module
/// binds with `use` (re-exports and imports a child reaches through `super::`) followed to
/// their target.
fn owning_module(
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    bindings: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    depth: usize,
) -> Vec<String> {
    let mut module: Vec<String> = Vec::new();
    for (k, segment) in path.iter().enumerate() {
        let child = [module.as_slice(), std::slice::from_ref(segment)].concat();
        if modules.contains(&child) {
            module = child;
            continue;
        }
        let bound = bindings.get(&module).and_then(|b| b.get(segment));
        if let Some(target) = bound.filter(|_| depth < 16) {
            let rest = [target.as_slice(), &path[k + 1..]].concat();
            return owning_module(&rest, modules, bindings, depth + 1);
        }
        break;
    }
    module
}

/// The level and the two modules an import from `from` to something of `to` joins, or `None`
/// when it stays inside one module or goes between a module and one of its ancestors (a
/// module uses its own children; a child may use its parent's items).
fn edge_between(from: &[String], to: &[String]) -> Option<(Vec<String>, String, String)> {
    let top = |m: &[String]| m.first().cloned().unwrap_or_else(|| ROOT.to_string());
    if top(from) != top(to) {
        return Some((Vec::new(), top(from), top(to)));
    }
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    if common == 0 || from.len() == common || to.len() == common {
        return None;
    }
    Some((
        from[..common].to_vec(),
        from[common].clone(),
        to[common].clone(),
    ))
}

/// The circles among the edges: at each level, every group of modules that import each other
/// round (a strongly connected component), with the imports that join them.
pub fn circles(edges: &[Edge]) -> Vec<String> {
    let mut levels: BTreeMap<&Vec<String>, Vec<&Edge>> = BTreeMap::new();
    for edge in edges {
        levels.entry(&edge.level).or_default().push(edge);
    }
    let mut out = Vec::new();
    for (level, level_edges) in levels {
        let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for e in &level_edges {
            next.entry(&e.from).or_default().insert(&e.to);
            next.entry(&e.to).or_default();
        }
        for group in components(&next) {
            if group.len() < 2 {
                continue;
            }
            let place = if level.is_empty() {
                "top-level modules".to_string()
            } else {
                format!("submodules of {}", level.join("::"))
            };
            let mut text = format!(
                "import circle between {place}: {} (for example {})",
                group.join(", "),
                one_circle(&next, &group).join(" -> ")
            );
            for e in level_edges
                .iter()
                .filter(|e| group.contains(&e.from.as_str()) && group.contains(&e.to.as_str()))
            {
                text.push_str(&format!("\n    {} -> {}: {}", e.from, e.to, e.evidence()));
            }
            out.push(text);
        }
    }
    out
}

/// The strongly connected components of a graph (Tarjan's algorithm), each sorted.
fn components<'a>(next: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(node: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &to in &next[node] {
            if !s.index.contains_key(to) {
                visit(to, next, s);
                let low = s.low[node].min(s.low[to]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(to) {
                let low = s.low[node].min(s.index[to]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut group = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                group.push(top);
                if top == node {
                    break;
                }
            }
            group.sort();
            s.out.push(group);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &node in next.keys() {
        if !state.index.contains_key(node) {
            visit(node, next, &mut state);
        }
    }
    state.out
}

/// A shortest circle through the first module of a group, found breadth first.
fn one_circle<'a>(next: &BTreeMap<&'a str, BTreeSet<&'a str>>, group: &[&'a str]) -> Vec<&'a str> {
    let start = group[0];
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &to in &next[node] {
            if !group.contains(&to) {
                continue;
            }
            if to == start {
                let mut circle = vec![start, node];
                let mut at = node;
                while at != start {
                    at = came_from[at];
                    circle.push(at);
                }
                circle.reverse();
                return circle;
            }
            if !came_from.contains_key(to) && to != start {
                came_from.insert(to, node);
                queue.push_back(to);
            }
        }
    }
    vec![start]
}

/// The imports between top-level modules that run from a lower layer to a higher one
/// (`layers` lists the modules of each layer, lowest first), and every top-level module the
/// layers leave out or name without its existing.
pub fn layer_breaches(files: &[ModuleFile], edges: &[Edge], layers: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut layer_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (n, layer) in layers.iter().enumerate() {
        for module in layer {
            if layer_of.insert(module, n).is_some() {
                out.push(format!("the layers name {module} twice"));
            }
        }
    }
    let tops: BTreeSet<String> = files
        .iter()
        .map(|f| {
            f.module
                .first()
                .cloned()
                .unwrap_or_else(|| ROOT.to_string())
        })
        .collect();
    for top in &tops {
        if !layer_of.contains_key(top.as_str()) {
            out.push(format!("module {top} is in no layer"));
        }
    }
    for named in layer_of.keys() {
        if !tops.contains(*named) {
            out.push(format!("the layers name {named}, which is not a module"));
        }
    }
    for e in edges.iter().filter(|e| e.level.is_empty()) {
        let (Some(&from), Some(&to)) = (layer_of.get(e.from.as_str()), layer_of.get(e.to.as_str()))
        else {
            continue;
        };
        if from < to {
            out.push(format!(
                "{} (layer {}) imports {} (layer {}), a higher layer: {}",
                e.from,
                from + 1,
                e.to,
                to + 1,
                e.evidence()
            ));
        }
    }
    out
}
