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

/// `code` without its `#[cfg(test)]` items (test modules may use any module as an oracle).
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = match item.find(['{', ';']) {
            Some(i) if item.as_bytes()[i] == b';' => i + 1,
            Some(i) => {
                let mut depth = 0usize;
                let mut close = item.len();
                for (j, c) in item[i..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                close = i + j + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                close
            }
            None => item.len(),
        };
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The files each file imports.
fn imports(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    imports_with(root, false)
}

/// The files each file imports, in its library code only (`#[cfg(test)]` items left out)
/// when `library_only`.
fn imports_with(root: &Path, library_only: bool) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| (module_of(root, f), f.clone()))
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let mut code = code_only(&std::fs::read_to_string(file).expect("reading a source file"));
        if library_only {
            code = without_tests(&code);
        }
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
const REMAINING: &[&[&str]] = &[];

/// The layers of `isa/`, bottom first (docs/architecture.md). A file imports files of lower
/// layers only; the data layer's files may also import each other (the circle test keeps that
/// one-way). `isa/mod.rs` (the `Isa` facade over all of them) is above every layer and no
/// layered file imports it.
const ISA_LAYERS: &[(&str, &[&str])] = &[
    (
        "data",
        &[
            "isa/operands",
            "isa/tables",
            "isa/layout",
            "isa/inst",
            "isa/syntax",
            "isa/enc",
            "isa/spelling",
        ],
    ),
    ("the VALU extension dword", &["isa/dpp"]),
    (
        "formats",
        &[
            "isa/vop",
            "isa/mem",
            "isa/mfma",
            "isa/vopd",
            "isa/vopd3",
            "isa/ldsdir",
        ],
    ),
    ("dispatchers", &["isa/decode", "isa/encode", "isa/print"]),
];

#[test]
fn isa_files_import_only_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&root);
    let layer_of = |m: &Module| {
        let name = m.join("/");
        ISA_LAYERS
            .iter()
            .position(|(_, files)| files.contains(&name.as_str()))
    };
    let mut wrong = Vec::new();
    for (i, (layer, files)) in ISA_LAYERS.iter().enumerate() {
        for file in *files {
            let m: Module = file.split('/').map(String::from).collect();
            let Some(targets) = graph.get(&m) else {
                wrong.push(format!(
                    "{file} is listed in the {layer} layer but is not a file"
                ));
                continue;
            };
            for t in targets {
                if t.first().map(String::as_str) != Some("isa") {
                    continue;
                }
                let allowed = match layer_of(t) {
                    Some(j) => j < i || (j == i && i == 0),
                    None => false,
                };
                if !allowed {
                    wrong.push(format!("{file} ({layer}) imports {}", t.join("/")));
                }
            }
        }
    }
    // Every file of isa/ but the facade is in a layer.
    for m in graph.keys() {
        let name = m.join("/");
        if m.len() == 2 && m[0] == "isa" && layer_of(m).is_none() {
            wrong.push(format!("{name} is in no layer of ISA_LAYERS"));
        }
    }
    assert!(wrong.is_empty(), "isa/ layering:\n{}", wrong.join("\n"));
}

/// The front end: the binary's `main.rs` and `cli/` (argument parsing, the commands' output
/// text and JSON). The library is its engines; none of its files names the front end or
/// keeps a command-line file (`*/cli.rs`) of its own.
#[test]
fn engines_do_not_import_the_front_end() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let front_end = |f: &Path| {
        let rel = f.strip_prefix(&root).expect("a file under src/");
        rel == Path::new("main.rs") || rel.starts_with("cli")
    };
    assert!(
        files.iter().any(|f| front_end(f)) && files.iter().any(|f| !front_end(f)),
        "no front end or no engine found under src/"
    );
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| !front_end(f)) {
        let rel = file
            .strip_prefix(&root)
            .expect("a file under src/")
            .display();
        if file.file_name().is_some_and(|n| n == "cli.rs") {
            wrong.push(format!("{rel}: a command-line file outside src/cli/"));
        }
        let code = code_only(&std::fs::read_to_string(file).expect("reading a source file"));
        for path in paths(&code) {
            if matches!(path[0].as_str(), "crate" | "amdpcode") && path[1] == "cli" {
                wrong.push(format!("{rel}: names {}", path.join("::")));
            }
        }
        if code
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| w[0] == "mod" && w[1].trim_end_matches(';') == "cli")
        {
            wrong.push(format!("{rel}: declares a `cli` module"));
        }
    }
    assert!(
        wrong.is_empty(),
        "the front end leaks into the engines:\n{}",
        wrong.join("\n")
    );
}

/// The IR (and its optimiser) sits below the engines: constant folding evaluates with the
/// built-in library (`builtins::ops`), not the interpreter. Tests inside `ir/` may still
/// run the interpreter as their oracle.
#[test]
fn ir_does_not_import_the_interpreter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports_with(&root, true);
    let ir: Vec<&Module> = graph
        .keys()
        .filter(|m| m.first().is_some_and(|s| s == "ir"))
        .collect();
    assert!(ir.len() > 5, "only {} files found under src/ir/", ir.len());
    let wrong: Vec<String> = ir
        .iter()
        .flat_map(|m| {
            graph[*m]
                .iter()
                .filter(|t| t.first().is_some_and(|s| s == "interp"))
                .map(move |t| format!("{} imports {}", m.join("/"), t.join("/")))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_import_reader_sees_groups_relative_paths_and_circles() {
    let p = paths("use super::{a::B, c};\nfn f() { crate::x::y(); self::z::W; }\n");
    let as_text: Vec<String> = p.iter().map(|s| s.join("::")).collect();
    assert!(as_text.contains(&"super::a::B".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"super::c".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"crate::x::y".to_string()), "{as_text:?}");
    assert!(as_text.contains(&"self::z::W".to_string()), "{as_text:?}");
    let lib = without_tests(
        "use crate::a::b;\n#[cfg(test)]\nuse crate::c::d;\n#[cfg(test)]\nmod tests { fn f() { crate::e::f(); { } } }\nfn g() {}\n",
    );
    assert!(
        lib.contains("crate::a::b") && lib.contains("fn g()"),
        "{lib}"
    );
    assert!(
        !lib.contains("crate::c") && !lib.contains("crate::e"),
        "{lib}"
    );
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
