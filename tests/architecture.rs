//! The shape of `src/`, checked on every test run: modules import each other without a
//! circle, only the HTTP boundary (and the code that starts the server) knows actix-web, every
//! file fits on a few screens and opens with a `//!` line saying what lives there, the doors
//! a request comes in by are named once, and no handler looks its state up with a panic.
//!
//! A test over the code's own `use` declarations and paths, rather than a tool such as
//! cargo-modules: it needs no install on a fresh machine, runs in milliseconds, and resolves a
//! name through `pub use` re-exports to the file that defines it, which is the dependency that
//! matters. A re-export itself is no arrow: a folder's `mod.rs` that hands its files' names on
//! does not depend on them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Most lines a file of `src/` may have.
const MAX_LINES: usize = 400;

/// Where actix-web may be named: the HTTP boundary, and what starts the server.
fn may_know_actix(file: &str) -> bool {
    file.starts_with("src/http/") || file == "src/startup.rs" || file == "src/main.rs"
}

struct Module {
    file: String,
    /// The code, without comments, string literals or the trailing `#[cfg(test)]` module.
    code: String,
}

/// Every module of the library, by its path from the crate root (`[]` is `lib.rs`).
fn modules() -> BTreeMap<Vec<String>, Module> {
    let mut modules = BTreeMap::new();
    for path in rust_files(Path::new("src")) {
        let file = path.to_string_lossy().replace('\\', "/");
        let relative = file.trim_start_matches("src/").trim_end_matches(".rs");
        let mut segments: Vec<String> = relative.split('/').map(str::to_owned).collect();
        if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
            segments.pop();
        }
        if file == "src/main.rs" {
            continue; // a crate of its own, which uses the library by name
        }
        let source = fs::read_to_string(&path).unwrap();
        let code = strip(source.split("#[cfg(test)]").next().unwrap());
        modules.insert(segments, Module { file, code });
    }
    modules
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// `source` without comments, and with string and character literals emptied: a literal
/// may run over several lines, or hold a quote (`r#"…"…"#`, `'"'`), and none of it is code.
fn strip(source: &str) -> String {
    let mut out = String::new();
    let mut chars = source.chars().peekable();
    let mut last = ' ';
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                out.push_str("\"\"");
                while let Some(inner) = chars.next() {
                    match inner {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        '\n' => out.push('\n'),
                        _ => {}
                    }
                }
            }
            'r' if !(last.is_alphanumeric() || last == '_')
                && matches!(chars.peek(), Some('#' | '"')) =>
            {
                let mut hashes = 0;
                while chars.peek() == Some(&'#') {
                    chars.next();
                    hashes += 1;
                }
                chars.next(); // the opening quote
                let end = format!("\"{}", "#".repeat(hashes));
                let mut seen = String::new();
                for inner in chars.by_ref() {
                    seen.push(inner);
                    if inner == '\n' {
                        out.push('\n');
                    }
                    if seen.ends_with(&end) {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A character literal ('x', '\n', '"'), or a lifetime ('a), which is code.
                let mut ahead = chars.clone();
                let literal = match ahead.next() {
                    Some('\\') => true,
                    Some(_) => ahead.next() == Some('\''),
                    None => false,
                };
                if literal {
                    if chars.next() == Some('\\') {
                        chars.next();
                    }
                    while chars.next().is_some_and(|inner| inner != '\'') {}
                    out.push_str("' '");
                } else {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
        last = c;
    }
    out
}

/// Every path a `use` declaration names, expanded (`a::{b, c::d}` is `a::b` and `a::c::d`),
/// with whether the declaration re-exports it.
fn use_paths(code: &str) -> Vec<(Vec<String>, bool)> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let before = &rest[..at];
        let public = before
            .rsplit('\n')
            .next()
            .is_some_and(|line| line.trim_start().starts_with("pub"));
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
        let tree = &rest[at + 4..end];
        for path in expand(tree) {
            paths.push((path, public));
        }
        rest = &rest[end..];
    }
    paths
}

/// `code` without its `use` declarations, which [`use_paths`] reads: a re-export is no arrow.
fn without_uses(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        out.push_str(&rest[..at]);
        rest = &rest[rest[at..].find(';').map_or(rest.len(), |e| at + e)..];
    }
    out.push_str(rest);
    out
}

/// The position of the next `use ` keyword that starts a declaration.
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = code[from..].find("use ") {
        let at = from + i;
        let boundary = code[..at]
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == ')' || c == ';' || c == '{' || c == '}');
        if boundary {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

fn expand(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand_into(&tree, &[], &mut out);
    out
}

fn expand_into(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    match tree.find('{') {
        Some(open) => {
            let head = tree[..open].trim_end_matches("::");
            let mut base = prefix.to_vec();
            base.extend(segments(head));
            let inner = &tree[open + 1..tree.rfind('}').unwrap()];
            for part in split_top(inner) {
                expand_into(part, &base, out);
            }
        }
        None => {
            let path = tree.split("as").next().unwrap_or(tree);
            let mut full = prefix.to_vec();
            full.extend(segments(path));
            out.push(full);
        }
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty() && *s != "*")
        .map(str::to_owned)
        .collect()
}

/// The parts of a brace list, split at its top-level commas.
fn split_top(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Paths written out in code: `crate::a::b`, `super::c`, `self::d`, and `e::f` where `e` is
/// one of `children`, the modules the code's own module declares (a `mod.rs` calling into its
/// files by name).
fn inline_paths(code: &str, children: &[String]) -> Vec<Vec<String>> {
    let code = without_uses(code);
    let mut paths = Vec::new();
    let starts = ["crate", "super", "self"]
        .into_iter()
        .map(str::to_owned)
        .chain(children.iter().cloned());
    for start in starts.map(|name| format!("{name}::")) {
        let mut rest = code.as_str();
        while let Some(i) = rest.find(&start) {
            // Not the tail of a longer path (`std::io::error::`), nor of a longer name, nor
            // a visibility (`pub(in crate::a)`), which names a module without using it.
            let boundary = rest[..i]
                .chars()
                .last()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'))
                && !rest[..i].ends_with("(in ");
            let tail: String = rest[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let path = segments(&tail);
            // `super::{…}` is a use tree, which `use_paths` reads.
            if boundary && path.len() > 1 {
                paths.push(path);
            }
            rest = &rest[i + start.len()..];
        }
    }
    paths
}

/// `path` as written in module `at`, made absolute (from the crate root).
fn absolute(at: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base = at.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        // A child module of this one, or an outside crate.
        _ => {}
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file that defines what `path` names: the deepest module on the path, following that
/// module's re-exports for the rest.
fn resolve(
    modules: &BTreeMap<Vec<String>, Module>,
    exports: &BTreeMap<(Vec<String>, String), Vec<String>>,
    path: &[String],
    depth: usize,
) -> Option<Vec<String>> {
    let mut module: Vec<String> = Vec::new();
    for segment in path {
        let mut child = module.clone();
        child.push(segment.clone());
        if modules.contains_key(&child) {
            module = child;
            continue;
        }
        if let Some(target) = exports.get(&(module.clone(), segment.clone()))
            && depth < 8
        {
            return resolve(modules, exports, target, depth + 1);
        }
        break;
    }
    Some(module)
}

/// Which files import which, by the files that define what they name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let mut exports = BTreeMap::new();
    for (at, module) in &modules {
        for (path, public) in use_paths(&module.code) {
            if let (true, Some(full)) = (public, absolute(at, &path)) {
                exports.insert((at.clone(), path.last().unwrap().clone()), full);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (at, module) in &modules {
        // A re-export passes a name on without using it: no arrow of its own.
        let named = use_paths(&module.code)
            .into_iter()
            .filter(|(_, public)| !public)
            .map(|(path, _)| path);
        let mut edges = BTreeSet::new();
        let children: Vec<String> = modules
            .keys()
            .filter(|m| m.len() == at.len() + 1 && m.starts_with(at))
            .map(|m| m.last().unwrap().clone())
            .collect();
        for path in named.chain(inline_paths(&module.code, &children)) {
            let Some(full) = absolute(at, &path) else {
                continue;
            };
            let is_local = full
                .first()
                .is_some_and(|first| modules.contains_key(&vec![first.clone()]));
            if !is_local {
                continue;
            }
            if let Some(target) = resolve(&modules, &exports, &full, 0)
                && target != *at
                && let Some(file) = modules.get(&target)
            {
                edges.insert(file.file.clone());
            }
        }
        graph.insert(module.file.clone(), edges);
    }
    graph
}

/// Every set of files that import each other in a circle (strongly connected components of
/// more than one file, by Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        circles: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, file: &'a str) {
            let n = self.index.len();
            self.index.insert(file, n);
            self.low.insert(file, n);
            self.stack.push(file);
            for next in self.graph.get(file).into_iter().flatten() {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next.as_str()]);
                    self.low.insert(file, low);
                } else if self.stack.contains(&next.as_str()) {
                    let low = self.low[file].min(self.index[next.as_str()]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut circle = Vec::new();
                while let Some(top) = self.stack.pop() {
                    circle.push(top.to_owned());
                    if top == file {
                        break;
                    }
                }
                if circle.len() > 1 {
                    circle.sort();
                    self.circles.push(circle);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for file in graph.keys() {
        if !walk.index.contains_key(file.as_str()) {
            walk.visit(file);
        }
    }
    walk.circles
}

#[test]
fn modules_import_each_other_without_a_circle() {
    let graph = imports();
    let found = circles(&graph);
    let described: Vec<String> = found
        .iter()
        .map(|circle| {
            let arrows: Vec<String> = circle
                .iter()
                .flat_map(|file| {
                    graph[file]
                        .iter()
                        .filter(|to| circle.contains(to))
                        .map(move |to| format!("{file} -> {to}"))
                })
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "import circles: {described:#?}");
}

#[test]
fn literals_are_no_code() {
    let code = "let a = \"one\\\"\n use x;\";\nlet b = r#\"say \"use y;\"\"#;\nlet c = '\"'; use z::W;\nfn f<'a>(s: &'a str) {} // use v;";
    let paths: Vec<Vec<String>> = use_paths(&strip(code))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(paths, [vec!["z".to_owned(), "W".to_owned()]]);
    assert!(strip(code).contains("fn f<'a>(s: &'a str)"));
}

#[test]
fn the_check_finds_a_circle_and_follows_re_exports() {
    let code = "pub use a::{B, c::D as E};\nuse super::{F, g::*};\nfn f() { crate::h::i(); }";
    let used: Vec<Vec<String>> = use_paths(&strip(code))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let words = |path: &[&str]| path.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        used,
        [
            words(&["a", "B"]),
            words(&["a", "c", "D"]),
            words(&["super", "F"]),
            words(&["super", "g"])
        ]
    );
    assert_eq!(inline_paths(code, &[]), [words(&["crate", "h", "i"])]);
    let calls = "pub use child::m;\npub(in crate::n) fn f() { child::g(); std::io::child::h(); self::k::l(); }";
    assert_eq!(
        inline_paths(calls, &["child".to_owned()]),
        [words(&["self", "k", "l"]), words(&["child", "g"])]
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(from, to)| (from.to_owned(), to.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(circles(&graph), [words(&["a", "b", "c"])]);
}

#[test]
fn only_the_http_boundary_knows_actix_web() {
    let outside: Vec<String> = modules()
        .into_values()
        .filter(|m| m.code.contains("actix_web") && !may_know_actix(&m.file))
        .map(|m| m.file)
        .collect();
    assert!(
        outside.is_empty(),
        "actix-web outside src/http/: {outside:?}"
    );
}

#[test]
fn every_file_is_short_and_says_what_lives_there() {
    for path in rust_files(Path::new("src")) {
        let source = fs::read_to_string(&path).unwrap();
        let lines = source.lines().count();
        assert!(lines <= MAX_LINES, "{} has {lines} lines", path.display());
        assert!(
            source.starts_with("//!"),
            "{} does not open with a `//!` line",
            path.display()
        );
    }
}

/// The enums of the library that name a way in: their name says "door", or one of their
/// variants is `Mcp`, the one door every such list has. There is one: `domain::Door`.
fn door_enums(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("enum ") {
        let after = &rest[at + 5..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let body = after
            .find('{')
            .and_then(|open| {
                after[open..]
                    .find('}')
                    .map(|close| &after[open..open + close])
            })
            .unwrap_or_default();
        let has_mcp = body
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "Mcp");
        if name.to_lowercase().contains("door") || has_mcp {
            found.push(name);
        }
        rest = after;
    }
    found
}

#[test]
fn the_doors_are_named_once() {
    let found: Vec<(String, String)> = modules()
        .into_values()
        .flat_map(|m| {
            door_enums(&m.code)
                .into_iter()
                .map(move |e| (m.file.clone(), e))
        })
        .collect();
    assert_eq!(
        found,
        [("src/domain/door.rs".to_owned(), "Door".to_owned())],
        "one enum names the doors; use `domain::Door`"
    );
    let second =
        "enum Door { Api, Mcp }\nenum Entrance {\n    Page,\n    Mcp,\n}\nenum Mode { Save }";
    assert_eq!(door_enums(&strip(second)), ["Door", "Entrance"]);
}

/// Places where a handler's state is looked up and a miss would panic: `app_data` followed by
/// `.expect(` or `.unwrap(`. `AppState::of` is the one lookup, and it answers an error.
fn panicking_lookups(code: &str) -> usize {
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    squeezed
        .match_indices("app_data::<")
        .filter(|(at, _)| {
            let tail = &squeezed[*at..];
            let call_end = tail.find(">>()").map(|e| e + 4);
            call_end.is_some_and(|end| {
                tail[end..].starts_with(".expect(") || tail[end..].starts_with(".unwrap(")
            })
        })
        .count()
}

#[test]
fn no_handler_looks_its_state_up_with_a_panic() {
    let found: Vec<String> = modules()
        .into_values()
        .filter(|m| panicking_lookups(&m.code) > 0)
        .map(|m| m.file)
        .collect();
    assert!(
        found.is_empty(),
        "app_data looked up with a panic in {found:?}; use AppState::of"
    );
    let bad = "let t = req\n    .app_data::<web::Data<Tokens>>()\n    .expect(\"registered\");";
    assert_eq!(panicking_lookups(&strip(bad)), 1);
    assert_eq!(panicking_lookups("req.app_data::<web::Data<S>>()?;"), 0);
}

/// The library's top-level modules in the order lib.rs's tour names them, from the bottom up.
fn tour() -> Vec<String> {
    let lib = fs::read_to_string("src/lib.rs").unwrap();
    let mut order: Vec<String> = Vec::new();
    for line in lib.lines().filter(|line| line.starts_with("//!")) {
        let mut rest = line;
        while let Some(at) = rest.find("[`") {
            let after = &rest[at + 2..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let module = Path::new("src").join(&name);
            let is_module = module.with_extension("rs").exists() || module.is_dir();
            if after[name.len()..].starts_with("`]") && is_module && !order.contains(&name) {
                order.push(name);
            }
            rest = after;
        }
    }
    order
}

#[test]
fn each_module_imports_only_those_before_it_in_the_tour() {
    let order = tour();
    let lib = fs::read_to_string("src/lib.rs").unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    let untoured: Vec<&&str> = declared
        .iter()
        .filter(|m| !order.iter().any(|o| o == *m))
        .collect();
    assert!(untoured.is_empty(), "lib.rs's tour leaves out {untoured:?}");
    let place = |file: &str| {
        let top = file.trim_start_matches("src/").split(['/', '.']).next();
        order.iter().position(|m| Some(m.as_str()) == top)
    };
    let mut upward = Vec::new();
    for (file, targets) in imports() {
        for target in targets {
            if let (Some(from), Some(to)) = (place(&file), place(&target))
                && to > from
            {
                upward.push(format!("{file} -> {target}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports of modules later in lib.rs's tour: {upward:#?}"
    );
}
