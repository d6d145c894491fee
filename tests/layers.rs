//! The runtime's files form five layers (listed in `LAYERS` below): a
//! file may import from its own layer and the ones before it, never from a
//! later one. That rules out import circles between layers, and keeps the
//! data (storage, entities, masks, ticks) from knowing the queries, systems
//! and world built on it. This test reads `ecs/src` and checks every
//! `crate::` path outside the files' unit tests.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, first to last: a top-level module (`storage`, `mask`) or a
/// file (`event/read.rs`), which takes precedence over its folder.
const LAYERS: [&[&str]; 5] = [
    // The data.
    &[
        "mask",
        "layout",
        "misuse",
        "lend",
        "storage",
        "entity",
        "tick",
        "changes",
        "retention",
        "stable_hash",
        "save",
        "pool",
        "relations",
    ],
    // Structural change.
    &["structure", "bundle", "entity_ref"],
    // The world and what reads it.
    &[
        "world_impl",
        "query",
        "event",
        "state",
        "commands",
        "command_buffer",
        "component_bounds",
    ],
    // Systems, and each feature's parameters beside the feature.
    &[
        "system",
        "schedule",
        "event/read.rs",
        "state/next.rs",
        "removed",
        "sparse_mut",
        "spawner",
        "migrator",
        "despawner",
    ],
    // The public modules that gather items of several files: re-exports
    // only, named by no other file.
    &[
        "schema",
        "world",
        "relation",
        "change",
        "command",
        "checksum",
        "condition",
        "soa",
        "random",
        // The guide: documentation only, it imports nothing.
        "guide",
    ],
];

fn layer_of_module(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The layer of a file, by its path under `ecs/src`.
fn layer_of_file(relative: &str) -> Option<usize> {
    if let Some(layer) = LAYERS.iter().position(|layer| layer.contains(&relative)) {
        return Some(layer);
    }
    let top = relative.split('/').next()?.trim_end_matches(".rs");
    layer_of_module(top)
}

/// The layer a `crate::` path leads to: `crate::event::read::...` is
/// `event/read.rs`'s.
fn layer_of_path(path: &str) -> Option<usize> {
    let mut segments = path.split("::");
    let top = segments.next()?;
    if let Some(second) = segments.next() {
        let file = format!("{top}/{second}.rs");
        if let Some(layer) = LAYERS
            .iter()
            .position(|layer| layer.contains(&file.as_str()))
        {
            return Some(layer);
        }
    }
    layer_of_module(top)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::a::b` paths of `source` outside comments and its
/// `#[cfg(test)] mod tests`, as `a::b` (one or two segments).
fn crate_paths(source: &str) -> Vec<String> {
    let code = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(source);
    let mut paths = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            // `$crate::` is a macro's path to the crate's public items.
            let dollar = rest[..at].ends_with('$');
            let tail = &rest[at + "crate::".len()..];
            let end = tail
                .find(|c: char| !(c.is_ascii_lowercase() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            let path: Vec<&str> = tail[..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .take(2)
                .collect();
            if !dollar && !path.is_empty() {
                paths.push(path.join("::"));
            }
            rest = tail;
        }
    }
    paths
}

#[test]
fn no_file_imports_from_a_later_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ecs/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if relative == "lib.rs" {
            continue;
        }
        let layer = layer_of_file(&relative)
            .unwrap_or_else(|| panic!("{relative} is in no layer: add it to LAYERS"));
        for path in crate_paths(&fs::read_to_string(file).unwrap()) {
            let Some(target) = layer_of_path(&path) else {
                continue;
            };
            checked += 1;
            if target > layer {
                wrong.push(format!(
                    "{relative} (layer {}) uses crate::{path} (layer {})",
                    layer + 1,
                    target + 1
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} crate:: paths found: is ecs/src there?"
    );
    assert!(
        wrong.is_empty(),
        "imports from a later layer:\n{}",
        wrong.join("\n")
    );
}

/// The file a `crate::` path (one or two segments, as [`crate_paths`] gives
/// them) leads to, among `files` (paths under `ecs/src`): `event::read` is
/// `event/read.rs`, `event` is `event/mod.rs`, `mask` is `mask.rs`.
fn file_of_path(path: &str, files: &[String]) -> Option<String> {
    let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    (1..=segments.len()).rev().find_map(|len| {
        let base = segments[..len].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|file| files.contains(file))
    })
}

/// The import circles among `edges` (file → files it imports): Tarjan's
/// strongly connected components of more than one file, each sorted.
fn circles(edges: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    struct Walk<'a> {
        edges: &'a [(String, Vec<String>)],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    impl Walk<'_> {
        fn node(&self, file: &str) -> Option<usize> {
            self.edges.iter().position(|(name, _)| name == file)
        }
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            let targets: Vec<usize> = self.edges[v]
                .1
                .iter()
                .filter_map(|file| self.node(file))
                .collect();
            for w in targets {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(index) if self.on_stack[w] => self.low[v] = self.low[v].min(index),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on_stack[w] = false;
                    component.push(self.edges[w].0.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let count = edges.len();
    let mut walk = Walk {
        edges,
        index: vec![None; count],
        low: vec![0; count],
        stack: Vec::new(),
        on_stack: vec![false; count],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..count {
        if walk.index[v].is_none() {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let edge = |from: &str, to: &[&str]| {
        (
            from.to_string(),
            to.iter().map(|file| file.to_string()).collect::<Vec<_>>(),
        )
    };
    let loop_of_three = [
        edge("a.rs", &["b.rs"]),
        edge("b.rs", &["c/mod.rs"]),
        edge("c/mod.rs", &["a.rs", "d.rs"]),
        edge("d.rs", &[]),
    ];
    assert_eq!(circles(&loop_of_three), [["a.rs", "b.rs", "c/mod.rs"]]);
    let files: Vec<String> = ["c/mod.rs", "c/e.rs", "d.rs"].map(String::from).to_vec();
    assert_eq!(file_of_path("c::e", &files).as_deref(), Some("c/e.rs"));
    assert_eq!(file_of_path("c::f", &files).as_deref(), Some("c/mod.rs"));
    assert_eq!(file_of_path("d", &files).as_deref(), Some("d.rs"));
}

/// The import circles among the files of `src` (a crate's source folder,
/// relative to this package), and how many imports were read.
fn circles_in(src: &str) -> (Vec<Vec<String>>, usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    paths.sort();
    let relative = |path: &PathBuf| {
        path.strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/")
    };
    let files: Vec<String> = paths.iter().map(relative).collect();
    let edges: Vec<(String, Vec<String>)> = paths
        .iter()
        .zip(&files)
        .filter(|(_, file)| file.as_str() != "lib.rs")
        .map(|(path, file)| {
            let mut targets: Vec<String> = crate_paths(&fs::read_to_string(path).unwrap())
                .iter()
                .filter_map(|path| file_of_path(path, &files))
                .filter(|target| target != file)
                .collect();
            targets.sort();
            targets.dedup();
            (file.clone(), targets)
        })
        .collect();
    let imports = edges.iter().map(|(_, targets)| targets.len()).sum();
    (circles(&edges), imports)
}

/// No loop of imports between files, in the runtime or the derive: a
/// file's `crate::` paths lead to files that never lead back to it. The
/// layers above allow a loop inside a layer; this rules those out too. A
/// child module's `super::` paths to its parent are not counted (the parent
/// declares the child).
#[test]
fn no_import_circle_among_files() {
    for (src, least) in [("../ecs/src", 200), ("../ecs-macros/src", 20)] {
        let (found, imports) = circles_in(src);
        assert!(
            imports > least,
            "only {imports} imports read in {src}: is it there?"
        );
        assert!(
            found.is_empty(),
            "import circles among the files of {src}:\n{}",
            found
                .iter()
                .map(|circle| circle.join(" "))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
