//! One-way layers: no file of `src/` imports a file that (directly or through others) imports
//! it, except the circles still listed in `REMAINING`. An import is any path naming another file's module — `use crate::a::b`, `super::x`,
//! `self::x`, or a child module by its bare name — resolved to the longest module path that is
//! a file. A module naming its own submodules (declaring or re-exporting them) is not counted:
//! that is what a parent module is for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("reading src/") {
        let path = entry.expect("reading src/").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/isa/decode.rs` → `isa::decode`, `src/isa/mod.rs` → `isa`.
fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

/// Source text without `//` comments and string literals' contents.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_str && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
                out.push(c);
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `a::b::c` path in `code` (identifiers joined by `::`), with the `use x::{y, z::w}`
/// groups expanded.
fn paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < chars.len() && is_ident(chars[j]) {
                j += 1;
            }
            segs.push(chars[start..j].iter().collect::<String>());
            if j + 2 < chars.len() && chars[j] == ':' && chars[j + 1] == ':' {
                if is_ident(chars[j + 2]) {
                    j += 2;
                    continue;
                }
                if chars[j + 2] == '{' {
                    // A group: each item is a path below the prefix.
                    let close = chars[j + 2..]
                        .iter()
                        .position(|&c| c == '}')
                        .map_or(chars.len(), |p| j + 2 + p);
                    let inner: String = chars[j + 3..close].iter().collect();
                    for item in inner.split(',') {
                        let item: Vec<String> = item
                            .split("::")
                            .map(|s| s.trim().trim_start_matches('{').to_string())
                            .filter(|s| !s.is_empty() && s.chars().all(is_ident))
                            .collect();
                        if !item.is_empty() {
                            let mut full = segs.clone();
                            full.extend(item);
                            found.push(full);
                        }
                    }
                    j = close;
                }
            }
            break;
        }
        if segs.len() > 1 {
            found.push(segs);
        }
        i = j.max(i + 1);
    }
    found
}

/// The files each file imports.
fn imports(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| (module_of(root, f), f.clone()))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let code = code_only(&std::fs::read_to_string(file).expect("reading a source file"));
        let mut targets = BTreeSet::new();
        for path in paths(&code) {
            let absolute: Option<Module> = match path[0].as_str() {
                "crate" => Some(path[1..].to_vec()),
                "self" => Some(
                    module
                        .iter()
                        .cloned()
                        .chain(path[1..].iter().cloned())
                        .collect(),
                ),
                "super" => {
                    let mut base = module.clone();
                    let mut rest = &path[..];
                    while rest.first().is_some_and(|s| s == "super") {
                        base.pop();
                        rest = &rest[1..];
                    }
                    Some(base.into_iter().chain(rest.iter().cloned()).collect())
                }
                child => {
                    let mut c = module.clone();
                    c.push(child.to_string());
                    modules
                        .contains_key(&c)
                        .then(|| module.iter().cloned().chain(path.iter().cloned()).collect())
                }
            };
            let Some(absolute) = absolute else { continue };
            let target = (1..=absolute.len())
                .rev()
                .map(|n| absolute[..n].to_vec())
                .find(|m| modules.contains_key(m));
            if let Some(target) = target {
                let own_child = target.len() > module.len() && target.starts_with(module);
                if &target != module && !target.is_empty() && !own_child {
                    targets.insert(target);
                }
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// The strongly connected components with more than one file (Tarjan).
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, usize>,
        low: BTreeMap<&'g Module, usize>,
        stack: Vec<&'g Module>,
        on_stack: BTreeSet<&'g Module>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g Module) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.graph[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.join("/"));
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

#[test]
fn no_file_imports_a_file_that_imports_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&root);
    assert!(
        graph.len() > 100,
        "only {} files found under src/",
        graph.len()
    );
    let found = circles(&graph);
    let listing: Vec<String> = found
        .iter()
        .map(|c| {
            let inner: Vec<String> = c
                .iter()
                .map(|a| {
                    let m: Module = a.split('/').map(String::from).collect();
                    let to: Vec<String> = graph[&m]
                        .iter()
                        .map(|t| t.join("/"))
                        .filter(|t| c.contains(t))
                        .collect();
                    format!("{a} -> {}", to.join(", "))
                })
                .collect();
            inner.join("; ")
        })
        .collect();
    let remaining: Vec<Vec<String>> = REMAINING
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    assert_eq!(
        found,
        remaining,
        "the import circles changed; a new one must be broken, and one broken leaves REMAINING \
         (docs/architecture.md):\n{}",
        listing.join("\n")
    );
}

/// The circles not yet broken, each listed in docs/architecture.md with the way out. The
/// list only shrinks: the test fails on a new circle and on one that is gone but still listed.
const REMAINING: &[&[&str]] = &[
    &[
        "isa/decode",
        "isa/dpp",
        "isa/encode",
        "isa/ldsdir",
        "isa/mem",
        "isa/mfma",
        "isa/print",
        "isa/vop",
        "isa/vopd",
        "isa/vopd3",
    ],
    &[
        "spec/cache",
        "spec/codec",
        "spec/db",
        "spec/derive",
        "spec/targets",
    ],
];

#[test]
fn the_import_reader_sees_groups_relative_paths_and_circles() {
    let p = paths("use super::{a::B, c};\nfn f() { crate::x::y(); self::z::W; }\n");
    let as_text: Vec<String> = p.iter().map(|s| s.join("::")).collect();
    assert!(as_text.contains(&"super::a::B".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"super::c".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"crate::x::y".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"self::z::W".to_string()), "{as_text:?}");
    let m = |s: &str| -> Module { s.split('/').map(String::from).collect() };
    let mut g = BTreeMap::new();
    g.insert(m("a/x"), BTreeSet::from([m("a/y")]));
    g.insert(m("a/y"), BTreeSet::from([m("a/x")]));
    g.insert(m("b"), BTreeSet::from([m("a/x")]));
    assert_eq!(
        circles(&g),
        vec![vec!["a/x".to_string(), "a/y".to_string()]]
    );
    g.insert(m("a/y"), BTreeSet::new());
    assert!(circles(&g).is_empty());
}
